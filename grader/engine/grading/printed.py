"""What the student's code printed while it was graded: per function (and for the
import), how many lines, and the first of them.

Printed output is never graded; a short note says where it came from, so that a
stray ``print`` is found, and its text is shown escaped (``repr`` of each line).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from grader.engine.sandbox import Outcome
from grader.engine.sandbox.limits import MAX_OUTPUT

IMPORT = ""  # the key of what the import printed
COUNTED = 1 << 16  # bytes of one call's output in which the child counts its lines
FIRST_LINES = 3
LINE_CHARS = 60


def first_lines(text: str) -> list[str]:
    """The first few lines of ``text``, each cut to LINE_CHARS characters."""
    lines = text.splitlines()[:FIRST_LINES]
    return [line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…" for line in lines]


def collect(outcomes: Iterable[Outcome], import_output: str = "") -> dict[str, dict[str, Any]]:
    """{function (IMPORT for the import): {"lines", "calls", "cut", "first"}} of what printed."""
    found: dict[str, dict[str, Any]] = {}
    if import_output:
        text = import_output
        found[IMPORT] = {
            "lines": len(text.splitlines()),
            "calls": 1,
            "cut": len(text) >= MAX_OUTPUT,
            "first": first_lines(text),
        }
    for o in outcomes:
        p = o.printed
        if p is None:
            continue
        entry = found.setdefault(o.fn, {"lines": 0, "calls": 0, "cut": False, "first": []})
        entry["lines"] += p.lines
        entry["calls"] += 1
        entry["cut"] = entry["cut"] or p.size > COUNTED
        if p.head and not entry["first"]:
            entry["first"] = first_lines(p.head)
    return found


def note(fn: str, entry: dict[str, Any], text: Any) -> str:
    """The note on what ``fn`` printed; ``text(code, **params)`` gives the catalogue's words."""
    lines = entry.get("lines", 0)
    n: int | str = "%d+" % lines if entry.get("cut") else lines
    first = " ".join(repr(line) for line in entry.get("first", ()))
    if fn == IMPORT:
        return text("printed.import", n=n, first=first)
    return text("printed.calls", fn=fn, n=n, first=first)
