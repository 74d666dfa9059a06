"""What a notebook's code cell is, read from its text: one of the kit's own cells, and
which names it defines at the top level.

The exercise's notebook marks its own cells in their metadata; a copy of its cells in a
fresh notebook, or a tool that drops cell metadata, loses the marks.  A cell that is
short enough to be one of the kit's (``KIT_CELL`` characters) is then told by its
content:

* ``setup``: it imports the grader (``from grader... import``, ``import grader``),
  which graded code never can;
* ``check``: its every statement is a call of ``check(...)``;
* ``calls`` (only in a notebook with none of the kit's marks): it defines and imports
  nothing, and runs at least one call (``print(lookup(BOARD, [1]))``), as the kit's
  examples and its report cell do.

``defined`` reads the names a cell binds at the top level (``def``, ``class``,
assignments), from lines that start a statement, in linear time.
"""

from __future__ import annotations

import ast
import keyword
import re

KIT_CELL = 20_000  # characters: a longer cell is never taken as the kit's
GRADER = "grader"
CHECK = "check"

_DEFINES = re.compile(
    r"(?:async[ \t]+)?def[ \t]+(\w+)|class[ \t]+(\w+)"
    r"|(\w+)[ \t]*(?::[^=\n]*)?(?:[-+*/%&|^@]|//|\*\*|>>|<<)?=(?!=)"
)
_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+def|def|class|import|from)\b", re.M)
_CALL = re.compile(r"^[ \t]*[A-Za-z_][\w.]*[ \t]*\(", re.M)  # a line that may start a call
_SIMPLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Pass)


def role(source: str, marked: bool) -> str:
    """The kit's role of a code cell whose escapes are ``pass`` already (``source``),
    or "" when it is the student's code; ``marked``: the notebook marks the kit's cells."""
    if len(source) > KIT_CELL:
        return ""
    defines = _DEFINITION.search(source) is not None
    calls = not (marked or defines) and _CALL.search(source) is not None
    if not (GRADER in source or (CHECK in source and not defines) or calls):
        return ""  # no role is left to find: spare the parse
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    body = [s for s in tree.body if not isinstance(s, ast.Pass)]
    if any(_imports_grader(s) for s in ast.walk(tree)):
        return "setup"
    if body and all(_calls(s, CHECK) for s in body):
        return "check"
    if marked or not body or not all(isinstance(s, _SIMPLE) for s in body):
        return ""
    return "calls" if any(_calls(s, None) for s in body) else ""


def _imports_grader(node: ast.AST) -> bool:
    if isinstance(node, ast.Import):
        return any(a.name.split(".")[0] == GRADER for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return not node.level and (node.module or "").split(".")[0] == GRADER
    return False


def _calls(statement: ast.stmt, name: str | None) -> bool:
    """Is ``statement`` a call (of the function ``name``, when given)?"""
    if not isinstance(statement, ast.Expr) or not isinstance(statement.value, ast.Call):
        return False
    func = statement.value.func
    return name is None or (isinstance(func, ast.Name) and func.id == name)


def defined(line: str) -> str:
    """The name that ``line``, a line that starts a statement, binds at the top level
    ("" when none)."""
    if not line or line[0] in " \t#":
        return ""
    found = _DEFINES.match(line)
    if found is None:
        return ""
    name = found.group(1) or found.group(2) or found.group(3) or ""
    return "" if keyword.iskeyword(name) else name
