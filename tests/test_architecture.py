"""The tree keeps its shape: a general engine, labs apart from it, small modules.

- Nothing under ``grader/engine`` imports a lab: the engine knows a lab only through
  the ``Lab`` object that ``grader.engine.lab.find`` loads.
- A lab imports the engine and itself, never another lab.
- No module is longer than ``MAX_LINES`` lines, the child's program included: it
  reaches the interpreter as one program, joined from the parts of
  ``grader/engine/_child/``, which import the standard library only.
- Every package says in a docstring what lives there and what it may import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "grader"
MAX_LINES = 400
CHILD = PACKAGE / "engine" / "_child"
TYPING_ONLY = ("__init__.py", "names.py")  # in the child's package, not in its program

MODULES = sorted(PACKAGE.rglob("*.py"))


def imported(path: Path, root: Path = ROOT) -> set[str]:
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
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names.add(base)
            names.update("%s.%s" % (base, alias.name) for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant):
                names.add(str(node.args[0].value))
    return names


def test_imported_finds_every_spelling_of_an_import(tmp_path: Path) -> None:
    folder = tmp_path / "grader" / "engine"
    folder.mkdir(parents=True)
    source = folder / "x.py"
    source.write_text(
        "import grader.labs.embed\n"
        "def f():\n    from grader.labs import embed\n"
        "from ..labs.embed import oracle\n",
        encoding="utf-8",
    )
    found = imported(source, tmp_path)
    assert {"grader.labs", "grader.labs.embed", "grader.labs.embed.oracle"} <= found


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if "engine" in p.relative_to(PACKAGE).parts[:1]],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_the_engine_imports_no_lab(path: Path) -> None:
    labs = sorted(n for n in imported(path) if n == "grader.labs" or n.startswith("grader.labs."))
    assert not labs, "%s imports %s" % (path.relative_to(ROOT), ", ".join(labs))


@pytest.mark.parametrize(
    "path",
    [p for p in MODULES if p.relative_to(PACKAGE).parts[:1] == ("labs",)],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_a_lab_imports_the_engine_and_itself_only(path: Path) -> None:
    parts = path.relative_to(PACKAGE).parts
    if len(parts) < 3:
        return  # grader/labs/__init__.py
    own = "grader.labs.%s" % parts[1]
    others = sorted(
        n
        for n in imported(path)
        if n.startswith("grader.labs.") and not (n == own or n.startswith(own + "."))
    )
    assert not others, "%s imports %s" % (path.relative_to(ROOT), ", ".join(others))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_is_long(path: Path) -> None:
    lines = path.read_text("utf-8").count("\n")
    assert lines <= MAX_LINES, "%s has %d lines" % (path.relative_to(ROOT), lines)


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("__init__.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_package_says_what_lives_there(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text("utf-8")))
    assert doc and len(doc.split()) >= 8, "%s has no docstring worth the name" % path
    assert "import" in doc, "%s does not say what its modules may import" % path


def test_expect_and_lab_do_not_import_each_other() -> None:
    engine = PACKAGE / "engine"
    assert "grader.engine.lab" not in imported(engine / "vocabulary" / "expect.py")
    assert "grader.engine.vocabulary.expect" in imported(engine / "lab.py")


def test_every_part_of_the_child_is_in_its_program() -> None:
    from grader.engine._child import PARTS

    found = sorted(p.stem for p in CHILD.glob("*.py") if p.name not in TYPING_ONLY)
    assert sorted(PARTS) == found and len(set(PARTS)) == len(PARTS)


def _run_time_imports(tree: ast.Module) -> list[ast.stmt]:
    """The imports of a module that run (not those under ``if TYPE_CHECKING:``)."""
    found: list[ast.stmt] = []
    todo: list[ast.AST] = [tree]
    while todo:
        node = todo.pop()
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            todo += node.orelse
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        todo += ast.iter_child_nodes(node)
    return found


@pytest.mark.parametrize("path", sorted(CHILD.glob("*.py")), ids=lambda p: p.name)
def test_a_part_of_the_child_imports_the_standard_library_only(path: Path) -> None:
    """The parts are joined into one program: no import between them, none relative,
    no ``from __future__`` (it would have to come first), the standard library only."""
    import sys

    for node in _run_time_imports(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module != "__future__", ast.unparse(node)
            names = [node.module or ""]
        else:
            names = [alias.name for alias in node.names]
        for name in names:
            assert name.split(".")[0] in sys.stdlib_module_names, ast.unparse(node)
