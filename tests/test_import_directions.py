"""The parts of the engine import one another in one direction only.

A part of ``grader/engine`` is one of its packages or one of the modules left loose
there.  Each says in its docstring (a package's in its ``__init__.py``) which other
parts its modules may import, in a paragraph "... may import, of the grader: ..." that
names them in double backquotes (or says "none"); ``grader/labs/__init__.py`` says the
same for every lab.  A module may always import the modules of its own part, the
standard library, third-party packages and the top package ``grader``.  Any other
import of ``grader.engine`` fails here, wherever it is written: at the top, in a
function, under ``if TYPE_CHECKING:``, or as ``importlib.import_module("...")``.
The parts and what they may import make no cycle.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "grader" / "engine"
LABS = ROOT / "grader" / "labs"
HEADING = "may import, of the grader:"
LABS_PART = "(labs)"


def parts(engine: Path = ENGINE) -> dict[str, Path]:
    """Every part of the engine by name: the file whose docstring says what it may import."""
    found: dict[str, Path] = {}
    for path in sorted(engine.iterdir()):
        if path.is_dir() and (path / "__init__.py").is_file():
            found[path.name] = path / "__init__.py"
        elif path.suffix == ".py" and path.name != "__init__.py":
            found[path.stem] = path
    return found


def said(path: Path, known: set[str]) -> set[str]:
    """The parts that the docstring of ``path`` lets it import (ValueError when it does
    not say, or names something that is not a part)."""
    doc = ast.get_docstring(ast.parse(path.read_text("utf-8"))) or ""
    start = doc.find(HEADING)
    if start < 0:
        raise ValueError("%s: no paragraph %r in its docstring" % (path, HEADING))
    paragraph = doc[start + len(HEADING) :].split("\n\n")[0]
    names = set(re.findall(r"``([^`]+)``", paragraph))
    if not names and not paragraph.split()[0].startswith("none"):
        raise ValueError("%s: %r names no part, and does not say none" % (path, HEADING))
    unknown = sorted(names - known)
    if unknown:
        raise ValueError("%s: not parts of the engine: %s" % (path, ", ".join(unknown)))
    return names


def allowed(engine: Path = ENGINE, labs: Path = LABS) -> dict[str, set[str]]:
    """What each part, the engine's own ``__init__`` ("") and the labs may import."""
    known = parts(engine)
    rules = {name: said(path, set(known)) for name, path in known.items()}
    rules[""] = said(engine / "__init__.py", set(known))
    if (labs / "__init__.py").is_file():
        rules[LABS_PART] = said(labs / "__init__.py", set(known))
    return rules


def imported(path: Path, root: Path) -> set[str]:
    """Every module name ``path`` imports, at any depth, relative imports resolved."""
    tree = ast.parse(path.read_text("utf-8"))
    package = list(path.relative_to(root).with_suffix("").parts)[:-1]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                kept = package[: len(package) - node.level + 1]
                base = ".".join(kept + ([base] if base else []))
            names.update("%s.%s" % (base, alias.name) for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                names.add(str(node.args[0].value))
    return names


def owner(path: Path, engine: Path, labs: Path) -> str | None:
    """The part ``path`` belongs to ("" for the engine's ``__init__``), None outside."""
    if path.is_relative_to(engine):
        inner = path.relative_to(engine).parts
        if inner == ("__init__.py",):
            return ""
        return inner[0] if len(inner) > 1 else Path(inner[0]).stem
    if path.is_relative_to(labs):
        return LABS_PART
    return None


def violations(engine: Path = ENGINE, labs: Path = LABS) -> list[str]:
    """Each import that goes where its part's docstring does not let it."""
    rules = allowed(engine, labs)
    root = engine.parent.parent
    found: list[str] = []
    files = sorted(engine.rglob("*.py")) + (sorted(labs.rglob("*.py")) if labs.is_dir() else [])
    for path in files:
        mine = owner(path, engine, labs)
        if mine is None:
            continue
        for name in sorted(imported(path, root)):
            pieces = name.split(".")
            if pieces[:2] != ["grader", "engine"] or len(pieces) < 3:
                continue
            part = pieces[2]
            if part in rules and part != mine and part not in rules[mine]:
                found.append("%s imports %s" % (path.relative_to(root), name))
    return found


def cycle(rules: dict[str, set[str]]) -> list[str]:
    """One cycle of ``rules`` as a path that ends where it starts, or [] when none."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(rules.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return []

    for node in sorted(rules):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_every_part_of_the_engine_says_what_it_may_import() -> None:
    rules = allowed()
    assert {"lab", "sandbox", "vocabulary", "grading", "batch", "commands"} <= set(rules)
    assert rules["vocabulary"] and "lab" not in rules["vocabulary"]
    assert "commands" not in set().union(*(v for k, v in rules.items() if k != "commands"))


def test_what_the_parts_may_import_makes_no_cycle() -> None:
    found = cycle(allowed())
    assert not found, "the parts may import one another in a circle: " + " -> ".join(found)


@functools.lru_cache(maxsize=None)
def _found() -> tuple[str, ...]:
    return tuple(violations())


@pytest.mark.parametrize("part", sorted(parts()) + [LABS_PART])
def test_a_part_imports_only_what_its_docstring_allows(part: str) -> None:
    mine = [v for v in _found() if owner(ROOT / v.split(" ")[0], ENGINE, LABS) == part]
    assert not mine, "\n".join(mine)


def _tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "grader" / "engine", tmp_path / "grader" / "labs"


def test_an_import_against_the_direction_is_found_wherever_it_is_written(tmp_path: Path) -> None:
    low = '"""Low.\n\nIts modules may import, of the grader: none."""\n'
    high = '"""High.\n\nIts modules may import, of the grader: ``low`` and ``loose``."""\n'
    engine, labs = _tree(
        tmp_path,
        {
            "grader/engine/__init__.py": '"""E.\n\nIt may import, of the grader: none."""\n',
            "grader/engine/loose.py": '"""L.\n\nIt may import, of the grader: ``low``."""\n',
            "grader/engine/low/__init__.py": low,
            "grader/engine/low/a.py": (
                "from typing import TYPE_CHECKING\n"
                "from grader.engine.low import b\n"
                "if TYPE_CHECKING:\n    from grader.engine import high\n"
                "def f():\n    from ..high.c import g\n"
                "def h():\n    import importlib\n"
                "    return importlib.import_module('grader.engine.loose')\n"
            ),
            "grader/engine/low/b.py": "",
            "grader/engine/high/__init__.py": high,
            "grader/engine/high/c.py": "from grader.engine.low.a import f\nimport grader.engine.loose\n",
            "grader/labs/__init__.py": '"""Labs.\n\nA lab may import, of the grader: ``loose``."""\n',
            "grader/labs/x/__init__.py": "from grader.engine.high import c\n",
        },
    )
    assert allowed(engine, labs)["high"] == {"low", "loose"}
    assert violations(engine, labs) == [
        "grader/engine/low/a.py imports grader.engine.high",
        "grader/engine/low/a.py imports grader.engine.high.c.g",
        "grader/engine/low/a.py imports grader.engine.loose",
        "grader/labs/x/__init__.py imports grader.engine.high.c",
    ]
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle(allowed(engine, labs)) == []


def test_a_docstring_that_names_no_part_or_an_unknown_one_is_refused(tmp_path: Path) -> None:
    engine, labs = _tree(
        tmp_path,
        {
            "grader/engine/__init__.py": '"""E.\n\nIt may import, of the grader: none."""\n',
            "grader/engine/p/__init__.py": '"""P, with no word on its imports."""\n',
        },
    )
    with pytest.raises(ValueError, match="no paragraph"):
        allowed(engine, labs)
    (engine / "p" / "__init__.py").write_text(
        '"""P.\n\nIts modules may import, of the grader: ``q``."""\n'
    )
    with pytest.raises(ValueError, match="not parts of the engine: q"):
        allowed(engine, labs)
