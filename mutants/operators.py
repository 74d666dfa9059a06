"""Small changes to the source of chosen functions, one at a time (standard library only).

``mutants_of(source, names)`` returns every mutant of the named top-level functions
of a module.  A mutant changes one place of one function with one operator:

- ``ArithSwap``: ``+`` and ``-`` swapped, ``*`` and ``/`` swapped, ``//`` to ``*``,
  ``%`` to ``//``, ``**`` to ``*``; in expressions and in augmented assignments;
- ``UnaryDrop``: a unary ``-``, ``+``, ``~`` or ``not`` left out;
- ``CompareSwap``: ``<`` and ``<=`` swapped, ``>`` and ``>=`` swapped, ``==`` and
  ``!=``, ``in`` and ``not in``, ``is`` and ``is not``;
- ``ConstShift``: a number constant plus one, then minus one (two mutants);
- ``BoolSwap``: ``and`` and ``or`` swapped;
- ``NegateCondition``: the test of ``if``, ``while``, a conditional expression, a
  comprehension filter or ``assert`` wrapped in ``not (...)`` (a test that already
  starts with ``not`` is left to ``UnaryDrop``);
- ``ReturnNone``: the value of a ``return`` or of a ``lambda`` replaced by ``None``;
- ``IndexShift``: a subscript index or slice bound plus one, then minus one (constant
  indices are left to ``ConstShift``);
- ``DeleteStatement``: a statement replaced by ``pass`` (not a ``return``, which
  ``ReturnNone`` covers, nor a docstring).

Not mutated: docstrings and the arguments of a raised exception (the text of an error
message is not part of what is graded; deleting the ``raise`` is still a mutant).

Each mutant has a stable id ``FUNCTION:N:OPERATOR``: ``N`` counts that operator's
mutants in that function in source order, from 0, so a change to one function never
renumbers the mutants of another.
"""

from __future__ import annotations

import ast
import copy
import difflib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

OPERATORS: tuple[str, ...] = (
    "ArithSwap",
    "UnaryDrop",
    "CompareSwap",
    "ConstShift",
    "BoolSwap",
    "NegateCondition",
    "ReturnNone",
    "IndexShift",
    "DeleteStatement",
)

ARITH: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}

COMPARE: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Mutant:
    """One changed copy of a module."""

    id: str
    function: str
    index: int  # N of the id: this operator's count in this function
    operator: str
    line: int  # line of the changed place in the original source
    removed: tuple[str, ...]  # the function's lines (as ast.unparse writes them) it replaces
    added: tuple[str, ...]  # and the lines that replace them
    source: str  # the whole mutated module

    @property
    def change(self) -> str:
        """The change in one line: ``old -> new`` with the blanks squeezed."""
        old = " / ".join(" ".join(s.split()) for s in self.removed)
        new = " / ".join(" ".join(s.split()) for s in self.added)
        return "%s -> %s" % (old, new)


# An edit: (operator, line, transform).  The transform gets the node at the site in a
# fresh copy of the function and returns what replaces it.
Edit = tuple[str, int, Callable[[ast.AST], ast.AST]]
Path = tuple[tuple[str, int | None], ...]


def _plus(node: ast.expr, delta: int) -> ast.expr:
    op: ast.operator = ast.Add() if delta > 0 else ast.Sub()
    return ast.BinOp(left=node, op=op, right=ast.Constant(value=1))


def _set_op(new: type[ast.AST]) -> Callable[[ast.AST], ast.AST]:
    def apply(node: ast.AST) -> ast.AST:
        node.op = new()  # type: ignore[attr-defined]
        return node

    return apply


def _set_cmp(i: int, new: type[ast.cmpop]) -> Callable[[ast.AST], ast.AST]:
    def apply(node: ast.AST) -> ast.AST:
        assert isinstance(node, ast.Compare)
        node.ops[i] = new()
        return node

    return apply


def _shift_const(delta: int) -> Callable[[ast.AST], ast.AST]:
    def apply(node: ast.AST) -> ast.AST:
        assert isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
        return ast.Constant(value=node.value + delta)

    return apply


def _shift_field(name: str, delta: int) -> Callable[[ast.AST], ast.AST]:
    def apply(node: ast.AST) -> ast.AST:
        setattr(node, name, _plus(getattr(node, name), delta))
        return node

    return apply


def _negate(name: str, i: int | None = None) -> Callable[[ast.AST], ast.AST]:
    def apply(node: ast.AST) -> ast.AST:
        if i is None:
            setattr(node, name, ast.UnaryOp(op=ast.Not(), operand=getattr(node, name)))
        else:
            tests = getattr(node, name)
            tests[i] = ast.UnaryOp(op=ast.Not(), operand=tests[i])
        return node

    return apply


def _return_none(node: ast.AST) -> ast.AST:
    node.value = ast.Constant(value=None)  # type: ignore[attr-defined]
    return node


def _operand(node: ast.AST) -> ast.AST:
    assert isinstance(node, ast.UnaryOp)
    return node.operand


def _pass(node: ast.AST) -> ast.AST:
    return ast.Pass()


def _is_number(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    )


def _is_docstring(node: ast.stmt, field: str, index: int | None) -> bool:
    return (
        field == "body"
        and index == 0
        and isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _condition_edits(node: ast.AST) -> list[Edit]:
    line = getattr(node, "lineno", 0)
    edits: list[Edit] = []
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        if not (isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)):
            edits.append(("NegateCondition", line, _negate("test")))
    elif isinstance(node, ast.comprehension):
        for i, test in enumerate(node.ifs):
            if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
                edits.append(("NegateCondition", test.lineno, _negate("ifs", i)))
    return edits


def _edits(node: ast.AST, field: str, index: int | None) -> list[Edit]:
    """Every mutation of this one node, in the order of OPERATORS."""
    line = getattr(node, "lineno", 0)
    edits: list[Edit] = []
    if isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITH:
        edits.append(("ArithSwap", line, _set_op(ARITH[type(node.op)])))
    if isinstance(node, ast.UnaryOp):
        edits.append(("UnaryDrop", line, _operand))
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in COMPARE:
                edits.append(("CompareSwap", line, _set_cmp(i, COMPARE[type(op)])))
    if _is_number(node):
        edits += [("ConstShift", line, _shift_const(1)), ("ConstShift", line, _shift_const(-1))]
    if isinstance(node, ast.BoolOp):
        other: type[ast.boolop] = ast.Or if isinstance(node.op, ast.And) else ast.And
        edits.append(("BoolSwap", line, _set_op(other)))
    edits += _condition_edits(node)
    if isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            edits.append(("ReturnNone", line, _return_none))
    if isinstance(node, ast.Lambda):
        edits.append(("ReturnNone", line, _return_none_lambda))
    if isinstance(node, ast.Subscript):
        edits += _index_edits(node)
    if isinstance(node, ast.stmt) and not isinstance(node, (ast.Return, ast.Pass)):
        if not _is_docstring(node, field, index):
            edits.append(("DeleteStatement", line, _pass))
    return edits


def _return_none_lambda(node: ast.AST) -> ast.AST:
    assert isinstance(node, ast.Lambda)
    node.body = ast.Constant(value=None)
    return node


def _index_edits(node: ast.Subscript) -> list[Edit]:
    line = node.lineno
    s = node.slice
    edits: list[Edit] = []
    if isinstance(s, ast.Slice):
        for name in ("lower", "upper", "step"):
            bound = getattr(s, name)
            if bound is not None and not _is_number(bound):
                for delta in (1, -1):
                    edits.append(("IndexShift", line, _slice_bound(name, delta)))
    elif not isinstance(s, ast.Constant):
        for delta in (1, -1):
            edits.append(("IndexShift", line, _shift_field("slice", delta)))
    return edits


def _slice_bound(name: str, delta: int) -> Callable[[ast.AST], ast.AST]:
    def apply(node: ast.AST) -> ast.AST:
        assert isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice)
        _shift_field(name, delta)(node.slice)
        return node

    return apply


def _sites(node: ast.AST, path: Path = ()) -> Iterator[tuple[Path, ast.AST]]:
    """Every node below ``node`` in source order, with its path; raises are not entered."""
    for name, value in ast.iter_fields(node):
        items = (
            [(i, v) for i, v in enumerate(value)] if isinstance(value, list) else [(None, value)]
        )
        for i, child in items:
            if isinstance(child, ast.AST) and not isinstance(
                child, (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop)
            ):
                here = path + ((name, i),)
                yield here, child
                if not isinstance(child, ast.Raise):
                    yield from _sites(child, here)


def _replace(root: ast.AST, path: Path, transform: Callable[[ast.AST], ast.AST]) -> None:
    parent = root
    for name, i in path[:-1]:
        value = getattr(parent, name)
        parent = value[i] if i is not None else value
    name, i = path[-1]
    if i is None:
        setattr(parent, name, transform(getattr(parent, name)))
    else:
        getattr(parent, name)[i] = transform(getattr(parent, name)[i])


def _changed_lines(before: str, after: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    removed, added = [], []
    for line in difflib.ndiff(before.splitlines(), after.splitlines()):
        if line.startswith("- "):
            removed.append(line[2:])
        elif line.startswith("+ "):
            added.append(line[2:])
    return tuple(removed), tuple(added)


def graded_functions(tree: ast.Module, names: Sequence[str]) -> list[ast.FunctionDef]:
    """The top-level functions ``names`` and the private ones they use, in source order."""
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    wanted = {n for n in names if n in defs}
    todo = list(wanted)
    while todo:
        for node in ast.walk(defs[todo.pop()]):
            if isinstance(node, ast.Name) and node.id in defs and node.id.startswith("_"):
                if node.id not in wanted:
                    wanted.add(node.id)
                    todo.append(node.id)
    return [d for d in defs.values() if d.name in wanted]


def mutants_of(source: str, names: Sequence[str]) -> list[Mutant]:
    """Every mutant of the functions ``names`` (and their private helpers) in ``source``."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    found: list[Mutant] = []
    for fn in graded_functions(tree, names):
        original = ast.unparse(fn)
        first = min([fn.lineno] + [d.lineno for d in fn.decorator_list]) - 1
        assert fn.end_lineno is not None
        head, tail = "".join(lines[:first]), "".join(lines[fn.end_lineno :])
        counts: dict[str, int] = {}
        for path, node in _sites(fn):
            field, index = path[-1]
            for operator, line, transform in _edits(node, field, index):
                copied = copy.deepcopy(fn)
                _replace(copied, path, transform)
                text = ast.unparse(ast.fix_missing_locations(copied))
                removed, added = _changed_lines(original, text)
                n = counts.get(operator, 0)
                counts[operator] = n + 1
                found.append(
                    Mutant(
                        id="%s:%d:%s" % (fn.name, n, operator),
                        function=fn.name,
                        index=n,
                        operator=operator,
                        line=line,
                        removed=removed,
                        added=added,
                        source=head + text + "\n" + tail,
                    )
                )
    return found
