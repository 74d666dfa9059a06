"""Text for people at a terminal: escaped, wrapped to a width, optionally coloured.

Everything a submission controls (exception messages, printed output, returned
values) can reach the text output, so ``escape`` turns control characters that
would move the cursor, clear the screen or reorder the text into visible escapes
(``\\x1b``), leaving only the newline.  ``wrap`` breaks a line to a number of
terminal columns (Hangul and Han count two) with a hanging indent; shell commands
are broken only where a shell and Python still read them the same.
"""

from __future__ import annotations

import functools
import os
import re
import sys
import unicodedata
from collections.abc import Sequence
from typing import TextIO

DEFAULT_WIDTH = 80
# Cursor and colour controls (C0 and C1 but the newline), DEL, lone surrogates,
# and the bidirectional overrides and isolates that reorder what is displayed.
_UNSAFE = "[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]"


@functools.lru_cache(maxsize=None)
def _pattern(name: str) -> re.Pattern[str]:
    """One of this module's patterns, compiled when it is first used rather than by
    every run that imports this module."""
    return re.compile(_UNSAFE if name == "unsafe" else _BREAKS)


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def escape(text: str) -> str:
    """``text`` with every character that could act on a terminal shown as an escape."""
    return _pattern("unsafe").sub(_escaped, text)


def width(stream: TextIO | None = None) -> int:
    """The width to wrap ``stream``'s text to: ``COLUMNS`` when set, else the terminal's
    when the stream is one, else 80."""
    stream = stream if stream is not None else sys.stdout
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0 and is_terminal(stream):
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (OSError, ValueError, AttributeError):
            columns = 0
    return max(20, columns) if columns > 0 else DEFAULT_WIDTH


def is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def colour_wanted(stream: TextIO = sys.stdout) -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set or TERM is dumb."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    return is_terminal(stream)


def cells(text: str) -> int:
    """Terminal columns taken by ``text``."""
    if text.isascii():  # no ASCII character is wide or combining
        return len(text)
    return sum(_cell(ch) for ch in text)


def _cell(ch: str) -> int:
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


_HAN = "\u3400-\u9fff\uf900-\ufaff"
# Where a line may break: after a space that has no Chinese character on either side,
# after Chinese punctuation, before an opening bracket.
_BREAKS = r"(?<= )(?<![%s] )(?![%s])|(?<=[，。；：、！？）」』])|(?=[（「『])" % (_HAN, _HAN)


def wrap(line: str, limit: int, indent: str = "") -> list[str]:
    """``line`` broken into lines of at most ``limit`` columns.

    Lines after the first start with ``indent``.  Breaks fall at spaces, and in
    Chinese after its punctuation (，。；：、) or before an opening bracket; a space
    beside a Chinese character is no break, it only sets a Latin word apart.  A word
    longer than a line is cut between characters.
    """
    if cells(line) <= limit:
        return [line]
    lead = len(line) - len(line.lstrip(" "))
    first_indent, body = line[:lead], line[lead:]
    out: list[str] = []
    current = first_indent
    room = limit
    for word in _pattern("breaks").split(body):  # each word keeps its trailing space
        while word:
            fits = cells(current) + cells(word.rstrip(" "))
            if fits <= room:
                current += word
                word = ""
                continue
            if current.strip():
                out.append(current.rstrip(" "))
                current = indent
                if cells(current) + cells(word.rstrip(" ")) <= room:
                    continue
            # The word alone is too long: cut it at the last column that fits.
            free = room - cells(current)
            taken = 0
            cut = 0
            for i, ch in enumerate(word):
                taken += _cell(ch)
                if taken > free:
                    break
                cut = i + 1
            cut = max(cut, 1)
            out.append((current + word[:cut]).rstrip(" "))
            current = indent
            word = word[cut:]
    if current.strip():
        out.append(current.rstrip(" "))
    return out


def wrap_command(head: str, command: str, limit: int, indent: str) -> list[str]:
    """``head + command`` broken into lines that still paste into a shell as one command.

    Between shell words a line ends with `` \\``; inside a single-quoted Python
    snippet it breaks after an opening bracket or after a comma within brackets,
    where Python joins the lines itself.  A piece with no such place stays whole.
    """
    if cells(head + command) <= limit:
        return [head + command]
    # (where the line ends, where the next one resumes, what ends the line)
    breaks: list[tuple[int, int, str]] = []
    single = double = False
    depth = 0
    for i, ch in enumerate(command):
        if single:
            if ch == "'":
                single = False
            elif ch in "([{":
                depth += 1
                breaks.append((i + 1, i + 1, ""))
            elif ch in ")]}":
                depth -= 1
            elif ch == " " and depth > 0 and command[i - 1] == ",":
                breaks.append((i, i + 1, ""))
        elif double:
            if ch == '"':
                double = False
        elif ch == "'":
            single = True
        elif ch == '"':
            double = True
        elif ch == " ":
            breaks.append((i, i + 1, " \\"))
    lines: list[str] = []
    start = 0  # where the current line's part of the command starts
    prefix = head
    while True:
        rest = command[start:]
        if cells(prefix + rest) <= limit:
            return lines + [prefix + rest]
        chosen: tuple[int, int, str] | None = None
        for end, resume, mark in breaks:
            if end <= start:
                continue
            if cells(prefix + command[start:end] + mark) <= limit or chosen is None:
                chosen = (end, resume, mark)
            if cells(prefix + command[start:end] + mark) > limit:
                break
        if chosen is None:
            return lines + [prefix + rest]
        end, resume, mark = chosen
        lines.append(prefix + command[start:end] + mark)
        start = resume
        prefix = indent


# The colour of each style of line of the text report (rich's style names).
STYLES = {
    "title": "bold",
    "total": "bold",
    "heading": "bold",
    "pass": "green",
    "fail": "bold red",
    "failure": "bold red",
    "error": "bold red",
    "skip": "dim",
    "dim": "dim",
    "hint": "yellow",
    "command": "cyan",
}


def show(lines: Sequence[tuple[str, str]], stream: TextIO | None = None) -> None:
    """Write styled lines: coloured on a terminal (rich, loaded only then), else plain."""
    stream = stream if stream is not None else sys.stdout
    if not colour_wanted(stream):
        stream.write("".join(text + "\n" for _, text in lines))
        return
    from rich.console import Console
    from rich.text import Text

    console = Console(
        file=stream, highlight=False, markup=False, emoji=False, soft_wrap=True, force_terminal=True
    )
    for style, text in lines:
        console.print(Text(text, style=STYLES.get(style, "")))
