"""Reading a report file, from a folder or as the module's writer left it, and its JSON.

A file is read only when it is a regular file (never through a symbolic link, never a
named pipe or a device) of at most :data:`MAX_BYTES`, and is UTF-8 (a BOM is allowed).
What cannot be read is described by a message code and its parameters: missing, a
directory, not a regular file, unreadable, too large, not UTF-8, invalid JSON with line
and column, a top level that is not an object.

Reading costs time linear in the file's size, whatever it holds: a JSON number of
more than :data:`MAX_NUMBER` characters is refused before it is converted (long digit
strings convert in quadratic time, and Python 3.11 refuses more than 4,300 digits),
JSON nested deeper than :data:`MAX_NESTING` is refused before anything walks it, and
a markdown file of more than :data:`MAX_MD_LINES` lines, :data:`MAX_MARKUP` markup
characters (markdown-it-py spends some 20 microseconds on each) or
:data:`MAX_KEY_NAMES` report key names (each a figure to read) is not parsed.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import field
from pathlib import Path
from typing import Any

from grader.engine import safefs
from grader.engine.frozen import frozen
from grader.engine.messages import text
from grader.engine.sandbox import WrittenFile
from grader.engine.vocabulary.results import Status
from grader.labs.embed.contract import REPORT_JSON
from grader.labs.embed.reports.findings import (
    _KEY,
    MAX_BYTES,
    MAX_KEY_NAMES,
    MAX_MARKUP,
    MAX_MD_LINES,
    MAX_NESTING,
    MAX_NUMBER,
    WEIGHTS,
    Finding,
    _type_name,
)

MARKUP = "\n!#$%&*+-:<=>@[\\]^_`{}~"  # where markdown-it-py's inline rules stop to look
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


@frozen
class _Read:
    text: str | None
    code: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    size: int = 0


def _read(path: Path, where: str | None = None) -> _Read:
    """The text of a report file, or why it cannot be read.  Never raises.

    ``where`` names the folder in messages (default: its path).  Only a regular file
    is read, never through a symbolic link (a link to another student's report, or to
    a file of the grader's machine, is refused) and never a named pipe or a device.
    """
    name = path.name
    try:
        got = safefs.read_regular(str(path), MAX_BYTES + 1)
    except safefs.NotRegular as exc:
        if exc.strerror == "a folder":
            return _Read(None, "report.file.directory", {"file": name})
        if exc.strerror == "a symbolic link":
            return _Read(None, "report.file.link", {"file": name})
        return _Read(None, "report.file.special", {"file": name})
    except (FileNotFoundError, NotADirectoryError):
        shown = where if where is not None else str(path.parent)
        return _Read(None, "report.file.missing", {"file": name, "dir": shown})
    except OSError as exc:
        return _Read(
            None, "report.file.unreadable", {"file": name, "error": exc.strerror or str(exc)}
        )
    raw = got.data
    if got.size > MAX_BYTES:
        return _Read(
            None, "report.file.too_large", {"file": name, "size": got.size, "limit": MAX_BYTES}
        )
    return _decode(name, raw)


def _decode(name: str, raw: bytes, size: int | None = None) -> _Read:
    """The text of at most MAX_BYTES + 1 bytes of a file, or why it is not usable."""
    if len(raw) > MAX_BYTES or (size is not None and size > MAX_BYTES):
        return _Read(
            None,
            "report.file.too_large",
            {
                "file": name,
                "size": size if size is not None else "> %d" % MAX_BYTES,
                "limit": MAX_BYTES,
            },
        )
    try:
        decoded = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return _Read(
            None,
            "report.file.not_utf8",
            {"file": name, "byte": "0x%02x" % raw[exc.start], "line": line, "column": column},
        )
    return _Read(decoded, size=len(raw))


def written(name: str, file: WrittenFile) -> _Read:
    """A file as the module's writer left it (read by the child, see Sandbox.write_report)."""
    if file.state == "file":
        return _decode(name, file.data, file.size)
    if file.state == "missing":
        return _Read(None, "report.file.not_written", {"file": name})
    if file.state == "directory":
        return _Read(None, "report.file.directory", {"file": name})
    if file.state == "unreadable":
        return _Read(None, "report.file.unreadable", {"file": name, "error": "?"})
    if file.state == "link":
        return _Read(None, "report.file.link", {"file": name})
    return _Read(None, "report.file.special", {"file": name})


class _Object(dict[str, Any]):
    """A JSON object that remembers which keys appeared more than once."""

    duplicates: dict[str, int]


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object()
    counts: dict[str, int] = {}
    for key, value in pairs:
        counts[key] = counts.get(key, 0) + 1
        obj[key] = value
    obj.duplicates = {key: n for key, n in counts.items() if n > 1}
    return obj


class Refused(ValueError):
    """A report the grader does not read: its message code and parameters."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def _number(text: str) -> str:
    if len(text) > MAX_NUMBER:
        raise Refused("report.json.number_long", length=len(text), limit=MAX_NUMBER)
    return text


def nesting(source: str) -> int:
    """How deep arrays and objects are within each other in a valid JSON text."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", source))
    return max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0)


def load_json(source: str, pairs: Any = None) -> Any:
    """``json.loads`` in linear time: ``Refused`` for a number of more than MAX_NUMBER
    characters (before it is converted) and for nesting deeper than MAX_NESTING
    (before anything walks it); ValueError or RecursionError when it is no JSON."""
    data = json.loads(
        source,
        object_pairs_hook=pairs,
        parse_int=lambda s: int(_number(s)),
        parse_float=lambda s: float(_number(s)),
    )
    depth = nesting(source)
    if depth > MAX_NESTING:
        raise Refused("report.json.too_deep", depth=depth, limit=MAX_NESTING)
    return data


def _parse_json(source: str) -> tuple[_Object | None, str, dict[str, Any]]:
    params: dict[str, Any] = {"file": REPORT_JSON}
    try:
        data = load_json(source, _object)
    except Refused as exc:
        params.update(exc.params)
        return None, exc.code, params
    except json.JSONDecodeError as exc:
        params.update(line=exc.lineno, column=exc.colno, error=exc.msg)
        return None, "report.json.invalid", params
    except (ValueError, RecursionError) as exc:
        params.update(error=str(exc) or type(exc).__name__)
        return None, "report.json.unparsable", params
    if not isinstance(data, _Object):
        params.update(found=_type_name(data))
        return None, "report.json.not_object", params
    return data, "", params


def bounded_markdown(name: str, read: _Read) -> _Read:
    """The markdown file as read, unless it has more lines or markup than is read."""
    if read.text is None:
        return read
    text = read.text
    lines = text.count("\n") + text.count("\r") - text.count("\r\n") + 1
    if lines > MAX_MD_LINES:
        return _Read(
            None, "report.md.too_many_lines", {"file": name, "lines": lines, "limit": MAX_MD_LINES}
        )
    markup = sum(map(text.count, MARKUP))
    if markup > MAX_MARKUP:
        return _Read(
            None, "report.md.too_much_markup", {"file": name, "count": markup, "limit": MAX_MARKUP}
        )
    if next(itertools.islice(_KEY.finditer(text), MAX_KEY_NAMES, None), None) is not None:
        return _Read(None, "report.md.too_many_keys", {"file": name, "limit": MAX_KEY_NAMES})
    return read


def _file_finding(fid: str, read: _Read, lang: str, name: str) -> Finding:
    if read.code:
        return Finding(
            fid,
            Status.FAIL,
            text(read.code, lang, **read.params),
            WEIGHTS[fid],
            read.code,
            dict(read.params),
        )
    code = "report.file.ok"
    return Finding(
        fid,
        Status.PASS,
        text(code, lang, file=name, size=read.size),
        WEIGHTS[fid],
        code,
        {"file": name, "size": read.size},
    )
