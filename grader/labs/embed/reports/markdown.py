"""The structure of the markdown report, read with markdown-it-py (CommonMark).

:func:`parse` turns the text into what the checks need: the headings at the top level
of the document (ATX ``##`` and setext ``---`` alike, with their level, text and line),
and every line outside code with two readings of it.  ``text`` is the line as written,
where figures are looked for and quoted from: code spans keep their backticks, HTML
comments are blanked out, emphasis and links keep their marks.  ``prose`` holds only
the words a reader sees: no code spans, HTML, link targets or autolinks.  Fenced and
indented code blocks and HTML comments yield no line, so nothing inside them counts.
markdown-it is imported on the first parse only.

markdown-it-py does work beyond the text's length on some inputs (a link
destination or title is looked for up to the end of its paragraph, once for each
``[a](``), so :func:`parse` gives it a budget counted in steps, not in seconds:
every position its inline parser tries costs one (some 15 microseconds at worst),
and every call of a link helper one per :data:`SCAN` characters it may scan.  Past
:data:`MAX_WORK`, ``TooComplex``.
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from grader.engine.frozen import frozen

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline
    from markdown_it.token import Token

MAX_WORK = 10_000  # steps of markdown-it-py on one file (the reference takes some 200)
SCAN = 256  # characters a link helper may scan for one step

_HASHES = re.compile(r"^\s{0,3}#{1,6}\S")  # a line that looks like a heading
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)  # within an HTML block
_EMPHASIS = ("em_open", "em_close", "strong_open", "strong_close")


@frozen
class Line:
    """One line of the report outside code (1-based ``number``)."""

    number: int
    text: str  # as written: what figures are read from
    prose: str  # what a reader sees as words
    heading: bool  # a line of a top-level heading


@frozen
class Heading:
    """A heading at the top level of the document."""

    line: int
    level: int
    text: str  # stripped, NFC


@frozen
class Document:
    lines: tuple[Line, ...]
    headings: tuple[Heading, ...]
    lookalikes: tuple[tuple[int, str], ...]  # (line, text) outside code starting with #
    length: int  # lines in the file


def prepare() -> None:
    """Load markdown-it-py and build the parser ahead (while the child runs, say)."""
    parse("# a\n\nb `c`\n")  # what its first parse sets up, set up now


class TooComplex(Exception):
    """markdown-it-py would need more than MAX_WORK steps for this text."""


_work = threading.local()  # .left: steps left to the parse running in this thread


def _spend(steps: int) -> None:
    _work.left -= steps
    if _work.left < 0:
        raise TooComplex()


def _step(state: StateInline, silent: bool) -> bool:
    """An inline rule that matches nothing: it runs at every position tried."""
    _spend(1)
    return False


def _charged(helper: Any) -> Any:
    def scan(src: Any, pos: int, maximum: int, *rest: Any) -> Any:
        _spend(1 + (maximum - pos) // SCAN)  # it may scan up to the end of the paragraph
        return helper(src, pos, maximum, *rest)

    return scan


@functools.lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt, helpers

    parser = MarkdownIt("commonmark")
    parser.disable("text_join")  # escapes and entities stay apart, as written
    parser.inline.ruler.before("text", "embed_grader_step", _step)
    parser.helpers = SimpleNamespace(  # type: ignore[assignment]
        parseLinkLabel=helpers.parseLinkLabel,  # each of its steps is a position tried
        parseLinkDestination=_charged(helpers.parseLinkDestination),
        parseLinkTitle=_charged(helpers.parseLinkTitle),
    )
    return parser


def _blank(match: re.Match[str]) -> str:
    return "\n".join(" " * len(part) for part in match.group().split("\n"))


def _newlines_in_code(token: Token) -> list[int]:
    """Line breaks inside each code span of an inline token (markdown-it drops them)."""
    source, pos, out = token.content, 0, []
    for child in token.children or []:
        if child.type != "code_inline":
            continue
        mark = re.escape(child.markup)
        fence = re.compile(r"(?<!`)%s(?!`)" % mark)
        opening = fence.search(source, pos)
        closing = fence.search(source, opening.end()) if opening else None
        if opening is None or closing is None:
            out.append(0)
            pos = len(source)  # the later spans are not looked for again
            continue
        out.append(source.count("\n", opening.end(), closing.start()))
        pos = closing.end()
    return out


def _inline_lines(token: Token) -> list[tuple[int, str, str]]:
    """(number, text, prose) of each line of an inline token."""
    assert token.map is not None
    number = token.map[0] + 1
    children = token.children or []
    breaks = sum(c.type in ("softbreak", "hardbreak") for c in children)
    breaks += sum(c.content.count("\n") for c in children if c.type == "html_inline")
    spans = iter(_newlines_in_code(token) if token.content.count("\n") > breaks else [])
    out: list[tuple[int, str, str]] = []
    text: list[str] = []
    prose: list[str] = []
    targets: list[str] = []
    autolink = False

    def end_line(count: int = 1) -> None:
        nonlocal number
        for _ in range(count):
            out.append((number, "".join(text), "".join(prose)))
            text.clear()
            prose.clear()
            number += 1

    for child in children:
        kind = child.type
        if kind in ("softbreak", "hardbreak"):
            end_line()
        elif kind == "text":
            text.append(child.content)
            prose.append("" if autolink else child.content)
        elif kind == "text_special":
            text.append(child.markup)
            prose.append(child.content)
        elif kind == "code_inline":
            text.append(child.markup + child.content + child.markup)
            prose.append(" ")
            end_line(next(spans, 0))
        elif kind == "html_inline":
            parts = child.content.split("\n")
            comment = child.content.startswith("<!--")
            for i, part in enumerate(parts):
                if i:
                    end_line()
                text.append(" " * len(part) if comment else part)
                prose.append(" ")
        elif kind == "link_open":
            autolink = child.markup == "autolink"
            text.append("<" if autolink else "[")
            targets.append(str(child.attrs.get("href", "")))
        elif kind == "link_close":
            target = targets.pop() if targets else ""
            text.append(">" if autolink else "](%s)" % target)
            autolink = False
        elif kind == "image":
            text.append("![%s](%s)" % (child.content, child.attrs.get("src", "")))
            prose.append(child.content)
        elif kind in _EMPHASIS:
            text.append(child.markup)
        else:
            text.append(child.content)
    end_line()
    return out


def parse(source: str) -> Document:
    """The headings and the lines outside code of a markdown text; ``TooComplex``
    when markdown-it-py would need more than MAX_WORK steps for it."""
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    raw = source.split("\n")
    _work.left = MAX_WORK
    tokens = _parser().parse(source)
    lines: dict[int, Line] = {}
    headings: list[Heading] = []
    shown = dict(enumerate(raw, start=1))  # lines outside code, HTML comments blanked
    for i, token in enumerate(tokens):
        if token.map is None:
            continue
        first, stop = token.map
        if token.type in ("fence", "code_block"):
            for n in range(first + 1, stop + 1):
                shown.pop(n, None)
        elif token.type == "html_block":
            parts = _COMMENT.sub(_blank, token.content).split("\n")
            for n, part in zip(range(first + 1, stop + 1), parts):
                lines[n] = Line(n, part, part, False)
                shown[n] = part
        elif token.type == "inline":
            top = tokens[i - 1].type == "heading_open" and tokens[i - 1].level == 0
            found = _inline_lines(token)
            for n, text, prose in found:
                lines[n] = Line(n, text, prose, top)
            if top:
                level = int(tokens[i - 1].tag[1:])
                words = "\n".join(text for _, text, _ in found).strip()
                headings.append(Heading(first + 1, level, unicodedata.normalize("NFC", words)))
                if tokens[i - 1].markup[:1] in ("=", "-"):  # a setext underline
                    lines[stop] = Line(stop, "", "", True)
    lookalikes = tuple((n, text.strip()) for n, text in shown.items() if _HASHES.match(text))
    ordered = tuple(lines[n] for n in sorted(lines))
    return Document(ordered, tuple(headings), lookalikes, len(raw))
