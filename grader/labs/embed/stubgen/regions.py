"""The marked regions of the reference source, and small helpers on its syntax tree."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from grader.engine.frozen import frozen

_MARKER = re.compile(r"^\s*#+\s*(BEGIN|END)\s+(SOLUTION|STUB)\s*$")
_BODY = "raise NotImplementedError"


class StubError(ValueError):
    """The reference source cannot be turned into a stub."""


@frozen
class _Region:
    kind: str  # "SOLUTION" or "STUB"
    begin: int  # line number of the BEGIN marker (1-based)
    end: int  # line number of the END marker


def _regions(lines: Sequence[str]) -> list[_Region]:
    regions: list[_Region] = []
    open_kind = ""
    open_line = 0
    for number, line in enumerate(lines, start=1):
        match = _MARKER.match(line)
        if not match:
            continue
        edge, kind = match.groups()
        if edge == "BEGIN":
            if open_kind:
                raise StubError(
                    f"line {number}: BEGIN {kind} inside the {open_kind} region "
                    f"opened on line {open_line}"
                )
            open_kind, open_line = kind, number
        else:
            if open_kind != kind:
                raise StubError(f"line {number}: END {kind} without BEGIN {kind}")
            regions.append(_Region(kind, open_line, number))
            open_kind = ""
    if open_kind:
        raise StubError(f"line {open_line}: BEGIN {open_kind} is never closed")
    return regions


def _uncomment(line: str) -> str:
    stripped = line.lstrip()
    if not stripped:
        return ""
    if not stripped.startswith("#"):
        raise StubError(f"a STUB block holds commented lines only, not {line.strip()!r}")
    indent = line[: len(line) - len(stripped)]
    text = stripped[1:].removeprefix(" ")
    return (indent + text).rstrip()


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _target_names(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )
