"""No two names in one package of the engine differ only by an ending.

``judge`` and ``judging``, ``prints`` and ``printed``, ``wire`` and ``wirefiles``: a
newcomer cannot tell from such names which module holds what.  Within each package
of ``grader/engine`` (the engine's own folder included), no module's or sub-package's
name is another's stem followed by more letters, the stem being the name without one
ending of ``ENDINGS``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "grader" / "engine"
ENDINGS = ("ing", "ed", "es", "s", "e")


def stem(name: str) -> str:
    """``name`` without the first of ``ENDINGS`` it ends with (at least three letters kept)."""
    for ending in ENDINGS:
        if name.endswith(ending) and len(name) - len(ending) >= 3:
            return name[: -len(ending)]
    return name


def names_in(package: Path) -> list[str]:
    """The modules and sub-packages of ``package``, by name."""
    found = []
    for path in sorted(package.iterdir()):
        if path.is_dir() and (path / "__init__.py").is_file():
            found.append(path.name.lstrip("_"))
        elif path.suffix == ".py" and path.stem not in ("__init__", "__main__"):
            found.append(path.stem)
    return found


def alike(names: list[str]) -> list[tuple[str, str]]:
    """The pairs of ``names`` of which one is the other's stem and more."""
    return [
        (a, b)
        for a in names
        for b in names
        if a != b and b.startswith(stem(a)) and not (a.startswith(stem(b)) and a > b)
    ]


def test_the_rule_finds_the_names_that_differ_only_by_an_ending() -> None:
    old = ["judge", "judging", "prints", "printed", "wire", "wirefiles", "options"]
    old += ["optioncheck", "notebook", "notebook_json", "roster", "rosterfill"]
    assert sorted(alike(old)) == [
        ("judge", "judging"),
        ("notebook", "notebook_json"),
        ("options", "optioncheck"),
        ("printed", "prints"),
        ("roster", "rosterfill"),
        ("wire", "wirefiles"),
    ]
    new = ["calls", "checks", "decoding", "encoding", "reportfiles", "records", "processes"]
    assert alike(new + ["procfs", "runoptions", "optioncheck", "roster", "filledroster"]) == []


@pytest.mark.parametrize(
    "package",
    [ENGINE] + sorted(p.parent for p in ENGINE.glob("*/__init__.py")),
    ids=lambda p: str(p.relative_to(ENGINE.parent.parent)),
)
def test_no_two_names_in_a_package_differ_only_by_an_ending(package: Path) -> None:
    assert alike(names_in(package)) == []
