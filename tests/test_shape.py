"""The shape of the ``grader`` package: how its modules depend on each other."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "grader"


def module_names(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module under ``root``, by dotted name (a package by its own name)."""
    names: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _type_checking(node: ast.AST) -> bool:
    """``if TYPE_CHECKING:``: imports for the type checker, never run."""
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of ``tree`` that can run, the bodies of functions included."""
    nodes: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        nodes.append(node)
        if _type_checking(node):
            assert isinstance(node, ast.If)
            todo += node.orelse
            continue
        todo += ast.iter_child_nodes(node)
    return nodes


def imported(path: Path, name: str, known: set[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` at ``path`` imports, at its top
    level or inside a function (not under ``if TYPE_CHECKING:``): ``from grader.engine
    import x`` is module ``grader.engine.x`` when that is a module, else ``grader.engine``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in _run_nodes(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                if not is_package:
                    anchor.pop()
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = "%s.%s" % (base, alias.name)
                found.add(full if full in known else base)
    return {m for m in found if m in known and m != name}


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    names = module_names(root)
    known = set(names)
    return {name: imported(path, name, known) for name, path in names.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of ``graph`` as a path that ends where it starts, or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        path.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_the_cycle_finder_finds_a_cycle_and_only_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    pkg = tmp_path / "grader"
    (pkg / "engine").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "engine" / "__init__.py").write_text("")
    (pkg / "engine" / "a.py").write_text("def f():\n    from grader.engine import b\n")
    (pkg / "engine" / "b.py").write_text("from . import c\n")
    (pkg / "engine" / "c.py").write_text(
        "import grader.engine.a\nfrom grader.engine import x\n"
        "if TYPE_CHECKING:\n    import grader.engine.d\nelse:\n    import grader.engine.e\n"
    )
    (pkg / "engine" / "d.py").write_text("")
    (pkg / "engine" / "e.py").write_text("")
    graph = import_graph(pkg)
    assert graph["grader.engine.a"] == {"grader.engine.b"}
    assert graph["grader.engine.b"] == {"grader.engine.c"}
    assert graph["grader.engine.c"] == {"grader.engine.a", "grader.engine", "grader.engine.e"}
    assert find_cycle(graph) == [
        "grader.engine.a",
        "grader.engine.b",
        "grader.engine.c",
        "grader.engine.a",
    ]


def test_no_module_of_the_grader_imports_itself_back() -> None:
    graph = import_graph()
    assert "grader.engine.batch.run" in graph and "grader.engine.commands.cli" in graph
    assert "grader.engine.batch" in graph["grader.engine.commands.cli"]  # a function-level import
    cycle = find_cycle(graph)
    assert not cycle, "import cycle: " + " -> ".join(cycle)
