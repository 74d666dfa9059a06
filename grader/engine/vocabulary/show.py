"""Short, safe text for values and calls, for people to read.

Values here are already plain (decoded in the parent), so no student code runs;
the only concern is size.  Large tables are described, small ones shown whole so
that the student can paste the call and try it.
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from grader.engine.sandbox import Foreign

SMALL_TABLE = 24  # cells up to which a table is shown literally


def number(x: Any) -> str:
    if isinstance(x, float):
        if math.isnan(x):
            return "nan"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return repr(x)
    return repr(x)


def short(value: Any, limit: int = 120) -> str:
    """A repr-like text of a plain value, cut to about ``limit`` characters."""
    text = _text(value, limit)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: Any, limit: int) -> str:
    if isinstance(value, Foreign):
        if value.why:
            return "<%s: %s>" % (value.type, value.why)
        if value.base is None:
            return "<%s object>" % value.type
        return "%s(%s)" % (value.type, _text(value.value, limit))
    if isinstance(value, (list, tuple)):
        open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
        parts: list[str] = []
        used = 0
        for i, item in enumerate(value):
            piece = _text(item, limit)
            if used + len(piece) > limit and i > 0:
                parts.append("… %d more" % (len(value) - i))
                break
            parts.append(piece)
            used += len(piece) + 2
        if isinstance(value, tuple) and len(value) == 1:
            return "(%s,)" % parts[0]
        return open_ + ", ".join(parts) + close
    if isinstance(value, dict):
        return "{" + ", ".join("%r: %s" % (k, _text(v, limit)) for k, v in value.items()) + "}"
    if isinstance(value, float):
        return number(value)
    return repr(value)


def type_name(value: Any) -> str:
    if isinstance(value, Foreign):
        return value.type
    return type(value).__name__


def is_table(value: Any) -> bool:
    return isinstance(value, list) and len(value) > 0 and all(isinstance(r, list) for r in value)


def literal(value: Any) -> str | None:
    """The full Python literal of a small input, or None when it is too big to paste."""
    if is_table(value) and sum(len(r) for r in value) > SMALL_TABLE:
        return None
    if isinstance(value, list) and len(value) > 32:
        return None
    text = _shared_rows(value) if is_table(value) else None
    if text is None:
        text = _text(value, 10**6)
    if "nan" in text or "inf" in text:
        return None
    return text


def _shared_rows(table: list[list[Any]]) -> str | None:
    """A table some of whose rows are one list object, written so that pasting it makes
    the same sharing: ``[[0.0, 0.0]] * 3``, ``(lambda r0: [r0, [1.0], r0])([0.5])``."""
    ids = [id(r) for r in table]
    if len(set(ids)) == len(ids):
        return None
    if len(set(ids)) == 1:
        return "[%s] * %d" % (_text(table[0], 10**6), len(table))
    shared = [i for i in dict.fromkeys(ids) if ids.count(i) > 1]
    names = {i: "r%d" % n for n, i in enumerate(shared)}
    rows = {id(r): r for r in table}
    body = ", ".join(names.get(id(r)) or _text(r, 10**6) for r in table)
    return "(lambda %s: [%s])(%s)" % (
        ", ".join(names[i] for i in shared),
        body,
        ", ".join(_text(rows[i], 10**6) for i in shared),
    )


def describe(value: Any) -> str:
    """A literal for small inputs, a shape for big tables and long vectors."""
    lit = literal(value)
    if lit is not None:
        return lit
    if is_table(value):
        widths = {len(r) for r in value}
        width = widths.pop() if len(widths) == 1 else "ragged"
        return "<%d×%s table>" % (len(value), width)
    if isinstance(value, list):
        return "<vector of %d: %s>" % (len(value), short(value, 40))
    return short(value)


def _rounded(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """Numbers to 4 digits; rows that are one list object stay one."""
    if isinstance(value, float) and value == value and abs(value) != float("inf"):
        return float("%.4g" % value)
    if isinstance(value, list):
        memo = {} if memo is None else memo
        if id(value) not in memo:
            memo[id(value)] = [_rounded(v, memo) for v in value]
        return memo[id(value)]
    return value


def call(fn: str, args: Sequence[Any]) -> str:
    """The call as people read it: small inputs in full, numbers to 4 digits."""
    return "%s(%s)" % (fn, ", ".join(describe(_rounded(a) if _small(a) else a) for a in args))


def _small(value: Any) -> bool:
    return literal(value) is not None


def snippet(
    fn: str,
    args: Sequence[Any],
    module: Path | None = None,
    shown: PurePosixPath | None = None,
    limit: float | None = None,
) -> str | None:
    """A one-line shell command that makes the same call, when the inputs are small
    (for a notebook, a line of Python to run in one of its cells).

    It imports the module by its file name, from its folder when that is not the
    current one.  ``shown`` is the module's path as the student sees it, relative
    to their own folder: the command then goes into that path's folder, not into
    the one on the grading machine.  With ``limit`` (a call that did not finish, or
    one not run after such a call) the command stops itself after that many seconds
    and shows where the code was, rather than holding the terminal.
    """
    parts = [literal(a) for a in args]
    if any(p is None for p in parts):
        return None
    if str(shown if shown is not None else module).lower().endswith(".ipynb"):
        # A notebook's functions are called in a cell of the notebook itself.
        text = "print(%s(%s))" % (fn, ", ".join(p for p in parts if p is not None))
        return text if len(text) <= 500 else None
    if shown is not None:
        name = shown.stem
    else:
        name = module.stem if module is not None else "embed"
    if not name.isidentifier():
        return None
    stop = ""
    if limit is not None:
        stop = '__import__("faulthandler").dump_traceback_later(%g, exit=True); ' % limit
    text = "python3 -c '%simport %s; print(%s.%s(%s))'" % (
        stop,
        name,
        name,
        fn,
        ", ".join(p for p in parts if p is not None),
    )
    if shown is not None:
        if str(shown.parent) != ".":
            text = "cd %s && %s" % (shlex.quote(str(shown.parent)), text)
    elif module is not None and module.resolve().parent != Path.cwd().resolve():
        text = "cd %s && %s" % (shlex.quote(str(module.resolve().parent)), text)
    return text if len(text) <= 500 else None


def traceback_tail(text: str, most: int = 14) -> list[str]:
    """The end of a traceback in whole frames, in at most about ``most`` lines.

    A frame (its ``File`` line, its source line and the ``^^^`` marks under it) is
    kept whole or left out; the exception's own lines are always kept.  Frames left
    out at the start are shown as one ``...`` line.
    """
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if not blocks or line.startswith('  File "') or not line.startswith(" "):
            blocks.append([line])
        else:
            blocks[-1].append(line)
    head = blocks.pop(0) if blocks and blocks[0][0].startswith("Traceback") else []
    kept: list[list[str]] = []
    used = len(head)
    for block in reversed(blocks):
        if kept and used + len(block) > most:
            break
        kept.insert(0, block)
        used += len(block)
    lines = list(head)
    if len(kept) < len(blocks):
        lines.append("  ...")
    return lines + [line for block in kept for line in block]
