"""The files handed in beside the module, read and compared with the ones its code writes.

``report.same`` (``grader.labs.embed.reportstep``) passes when the handed-in JSON has the
same parsed values and the markdown the same text, up to line endings and trailing
spaces; these say where the two differ first.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from grader.engine import safefs
from grader.engine.messages import text
from grader.labs.embed.contract import REPORT_JSON

SHOW = 80  # characters of a differing line shown


def _handed_in(path: Path) -> tuple[str | None, str]:
    """The text of a handed-in file; (None, "") when it is missing, (None, why) otherwise."""
    from grader.labs.embed import reports

    try:
        read = safefs.read_regular(str(path), reports.MAX_BYTES + 1)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, exc.strerror or str(exc)
    if read.cut or len(read.data) > reports.MAX_BYTES:
        return None, "> %d bytes" % reports.MAX_BYTES
    try:
        return read.data.decode("utf-8-sig"), ""
    except UnicodeDecodeError:
        return None, "not UTF-8"


def _same_value(a: Any, b: Any) -> bool:
    """Equal parsed JSON values, of the same types (1, 1.0 and true differ); values
    from ``reports.load_json``, so that the recursion is bounded."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _json_differs(handed: str, own: str, lang: str) -> tuple[str, dict[str, Any]] | None:
    from grader.labs.embed.reports import Refused, load_json

    if handed == own:
        return None
    try:
        theirs = load_json(own)
    except (ValueError, RecursionError):
        theirs = None
    try:
        mine = load_json(handed)
    except Refused as exc:
        return "report.same.json_unread", {
            "why": text(exc.code, lang, file=REPORT_JSON, **exc.params)
        }
    except (ValueError, RecursionError):
        return "report.same.json_invalid", {}
    if _same_value(mine, theirs):
        return None
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for key in list(theirs) + [k for k in mine if k not in theirs]:
            if key not in mine or key not in theirs or not _same_value(mine[key], theirs[key]):
                return "report.same.json_key", {
                    "key": _cut(json.dumps(key, ensure_ascii=False)),
                    "handed": _cut(_dump(mine.get(key, "-"))),
                    "written": _cut(_dump(theirs.get(key, "-"))),
                }
    return "report.same.json_other", {}


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return "?"


def _lines(source: str) -> list[str]:
    lines = [line.rstrip() for line in source.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _md_differs(handed: str, own: str) -> tuple[str, dict[str, Any]] | None:
    mine, theirs = _lines(handed), _lines(own)
    if mine == theirs:
        return None
    if not mine:  # what open(path, "w") leaves on Windows when the first heading fails
        return "report.same.md_empty", {}
    for i in range(max(len(mine), len(theirs))):
        a = mine[i] if i < len(mine) else ""
        b = theirs[i] if i < len(theirs) else ""
        if a != b:
            return "report.same.md_line", {"line": i + 1, "handed": _cut(a), "written": _cut(b)}
    return None  # pragma: no cover (the lists differ, so some line does)


def _cut(s: str) -> str:
    return s if len(s) <= SHOW else s[: SHOW - 1] + "…"
