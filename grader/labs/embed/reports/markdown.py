"""The structure of the markdown report: its lines, what is code, and its headings.

ATX headings outside fenced code blocks are read; a heading's text is stripped of the
surrounding spaces (and of closing ``#``) and put in Unicode NFC.  HTML comments are
blanked out first, so nothing inside them counts.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HASHES = re.compile(r"^\s{0,3}#{1,6}\S")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


@dataclass(frozen=True)
class _Line:
    number: int
    text: str
    code: bool  # a fence line or inside a fenced code block


@dataclass(frozen=True)
class _Heading:
    line: int
    level: int
    text: str  # stripped, NFC
    raw: str


def _lines(source: str) -> list[_Line]:
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    # HTML comments become spaces (line numbers stay right).
    source = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    out: list[_Line] = []
    fence = ""
    for number, line in enumerate(source.split("\n"), start=1):
        if fence:
            closing = _FENCE.match(line)
            if (
                closing
                and closing.group(1)[0] == fence[0]
                and len(closing.group(1)) >= len(fence)
                and not line.strip().strip(fence[0])
            ):
                fence = ""
            out.append(_Line(number, line, True))
            continue
        opening = _FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
            fence = opening.group(1)
            out.append(_Line(number, line, True))
            continue
        out.append(_Line(number, line, False))
    return out


def _headings(lines: list[_Line]) -> list[_Heading]:
    out = []
    for line in lines:
        if line.code:
            continue
        match = _ATX.match(line.text)
        if match:
            content = unicodedata.normalize("NFC", (match.group(2) or "").strip())
            out.append(_Heading(line.number, len(match.group(1)), content, line.text.strip()))
    return out
