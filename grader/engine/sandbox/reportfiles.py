"""What the parent accepts as the answer to "report": the files the writer left.

Like every line from the child, the answer may be forged by the student's code:
each field is checked (``grader.engine.sandbox.decoding`` for the rest of the protocol), and
the files' contents are checked as base64 of a bounded length before they are
decoded.  What breaks a rule raises ``OffProtocol``: the writer's crash.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Collection
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.sandbox.decoding import (
    MAX_TEXT,
    OffProtocol,
    Raised,
    _message,
    _number,
    _text,
    _texts,
    raised,
)

REPORT_STATES = frozenset(("file", "missing", "link", "directory", "special", "unreadable"))
ABSENT = frozenset(("missing", "not callable"))
MAX_SIZE = 1 << 62
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


@frozen
class WrittenFile:
    """One file the report writer left in its folder, as the child read it."""

    state: str  # one of REPORT_STATES
    data: bytes = b""  # at most max_bytes + 1 bytes of it
    size: int = 0  # the whole size


@frozen
class ReportedFields:
    absent: str  # "" when the writer ran, else "missing" or "not callable"
    ok: bool
    files: dict[str, WrittenFile]
    raised: Raised | None
    traceback: str
    called: tuple[str, ...]
    elapsed: float


def _written_file(entry: Any, max_bytes: int) -> WrittenFile:
    if type(entry) is not dict or type(entry.get("state")) is not str:
        raise OffProtocol("a file entry is not an object with a state")
    state = entry["state"]
    if state not in REPORT_STATES:
        raise OffProtocol("a file's state is unknown")
    if state != "file":
        return WrittenFile(state)
    size, v = entry.get("size"), entry.get("v")
    if type(size) is not int or not 0 <= size <= MAX_SIZE or type(v) is not str:
        raise OffProtocol("a file has no size or contents")
    # Checked before decoding, so that a forged line cannot make the parent decode more.
    if len(v) > 4 * ((max_bytes + 3) // 3) or not _BASE64.fullmatch(v):
        raise OffProtocol("a file's contents are not base64 of at most max_bytes + 1 bytes")
    raw = binascii.a2b_base64(v.encode("ascii"))
    if len(raw) > max_bytes + 1 or len(raw) > size:
        raise OffProtocol("a file is longer than it says")
    return WrittenFile("file", raw, size)


def reported(
    data: Any, files: Collection[str], max_bytes: int, names: Collection[str]
) -> ReportedFields:
    """The answer to "report": exactly ``files``, each checked; ``called`` keeps only ``names``."""
    data = _message(data)
    if data.get("op") != "reported" or type(data.get("ok")) is not bool:
        raise OffProtocol("not an answer to report")
    absent = data.get("absent")
    if absent is not None:
        if type(absent) is not str or absent not in ABSENT:
            raise OffProtocol("absent is unknown")
        return ReportedFields(absent, False, {}, None, "", (), 0.0)
    elapsed = _number(data.get("elapsed"), "elapsed")
    called = tuple(dict.fromkeys(n for n in _texts(data.get("called"), "called") if n in names))
    if not data["ok"]:
        exc = raised(data.get("raised"))
        trace = _text(data.get("traceback", ""), "traceback", MAX_TEXT + 100)
        return ReportedFields("", False, {}, exc, trace, called, elapsed)
    got = data.get("files")
    if type(got) is not dict or sorted(got) != sorted(files):
        raise OffProtocol("files are not the ones asked for")
    out = {name: _written_file(got[name], max_bytes) for name in files}
    return ReportedFields("", True, out, None, "", called, elapsed)
