"""A notebook (``.ipynb``) graded as the lab's module.

The notebook is the student's file, so reading it is bounded like every parser of
student bytes (``ipynb``: size and counts checked before work, one linear pass
over the cells, every failure a ``NotebookError``), and so is making the module of it:
``load`` is the one way the grader reads a notebook, and it returns the module or
raises a ``NotebookError``.

What counts as the module: every code cell, in the notebook's order, except

* the cells the exercise's notebook marks as its own in their metadata
  (``"embed_grader": "setup" | "example" | "check" | "report"``: installing the
  grader, the course's examples, the check cells, the cell that writes the report
  files);
* cells whose first line is the comment ``# not graded`` (experiments, plots);
* cells that start with a cell magic (``%%time``, ``%%bash``): their text need not be
  Python;
* cells that are the kit's by their content (``cellkinds``: they import the grader
  or only call ``check``; in a notebook without the kit's marks, also the cells that
  only run calls and define nothing, as the kit's examples do).  ``Cells`` names them,
  and the names that more than one kept cell binds (the last one is what is graded).

At most ``MAX_CELLS`` cells, and code cells of at most ``MAX_MODULE`` characters in all.

In the cells kept, a line that is an IPython line magic or shell escape (``%pip``,
``!ls``, ``files = !ls``) or a help request (``lookup?``) becomes ``pass`` at its
indentation, so that the line numbers stay those of the cell.  Outputs are never read.
``Cells`` maps a line of the module back to its cell and the cell's own line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.handin import SUFFIX, is_notebook
from grader.engine.handin import cellkinds as kit
from grader.engine.handin.ipynb import (
    MAX_CELLS,
    MAX_CONTAINERS,
    MAX_NOTEBOOK,
    NotebookError,
    checked_cells,
    decode,
    read,
)
from grader.engine.sandbox.decoding import Raised
from grader.engine.sandbox.limits import MAX_MODULE
from grader.engine.vocabulary.contract import Name

__all__ = [
    "KIT_KEY",
    "KIT_ROLES",
    "MAX_CELLS",
    "MAX_CONTAINERS",
    "MAX_NOTEBOOK",
    "SKIP_MARK",
    "SUFFIX",
    "Cell",
    "Cells",
    "NotebookError",
    "counts",
    "decode",
    "is_notebook",
    "load",
    "module",
    "notes",
    "read",
]

KIT_KEY = "embed_grader"  # the cell metadata key that marks the exercise's own cells
KIT_ROLES = ("setup", "example", "check", "report")
SKIP_MARK = "# not graded"

_SPECIAL = re.compile(r"[#\"'()\[\]{}]")
# After the indentation, each matched from a fixed place and with nothing to try twice,
# so linear in the line: a help request (``lookup?``, ``?lookup``) and the names that an
# escape is assigned to (``files = !ls``).
_HELP = re.compile(r"[\w.]+\?{1,2}[ \t]*|\?+[\w.].*")
_TARGETS = re.compile(r"[\w.,\s]*")
_ASSIGNED_ESCAPE = re.compile(r"=[ \t]*[%!][\w!]")


@frozen
class Cell:
    """A code cell that is part of the module."""

    number: int  # 1-based, counting every cell of the notebook from the top
    start: int  # the module's line of the cell's first line
    lines: int
    first: str  # the cell's first line that is not blank


@frozen
class Cells:
    """The module made of a notebook's cells, and where each line came from."""

    source: str
    cells: tuple[Cell, ...]
    marked: bool = True  # the notebook marks the kit's cells in their metadata
    kit_cells: tuple[int, ...] = ()  # cells taken as the kit's by their content
    defined_again: tuple[tuple[str, tuple[int, ...]], ...] = ()  # name -> the cells binding it

    def notes(self, names: Sequence[Name]) -> dict[str, Any]:
        """What the report says of the notebook (``meta["notebook"]``): the cells taken
        as the kit's by their content, and the lab's ``names`` bound in more than one
        cell, with those cells and whether the name is a constant."""
        constant = {n.name: n.is_constant for n in names}
        return {
            "marked": self.marked,
            "kit_cells": list(self.kit_cells),
            "again": [[n, list(c), constant[n]] for n, c in self.defined_again if n in constant],
        }

    def where(self, line: int | None) -> tuple[Cell, int] | None:
        """The cell holding the module's ``line``, and its line within the cell."""
        if line is None:
            return None
        for cell in self.cells:
            if cell.start <= line < cell.start + cell.lines:
                return cell, line - cell.start + 1
        return None

    def place(self, raised: Raised | None) -> Raised | None:
        """``raised`` with its line as the cell's (``cell`` and ``first`` set)."""
        found = self.where(raised.line) if raised is not None else None
        if raised is None or found is None:
            return raised
        return replace(raised, cell=(found[0].number, found[0].first), line=found[1])

    def retrace(self, text: str, shown: str) -> str:
        """A traceback with ``File "NAME", line N`` lines of the notebook (NAME ends in
        ``shown``) naming the cell and its line instead."""

        def place(match: re.Match[str]) -> str:
            found = self.where(int(match.group(2)))
            if found is None:
                return match.group(0)
            return "%s, cell %d, line %d" % (match.group(1), found[0].number, found[1])

        pattern = r'(File "[^"\n]*%s"), line (\d+)' % re.escape(shown)
        return re.sub(pattern, place, text)


def module(notebook: Any) -> Cells:
    """The module made of the code cells of ``notebook`` (its JSON), which is checked
    first (``checked_cells``; see the module's docstring)."""
    found = checked_cells(notebook)
    marked = any(_mark(cell) for cell in found)
    out: list[str] = []
    cells: list[Cell] = []
    aside: list[int] = []
    defined: dict[str, list[int]] = {}
    code_cells = 0
    size = 0
    for number, cell in enumerate(found, start=1):
        if cell.get("cell_type") != "code":
            continue
        code_cells += 1
        text = cell.get("source", "")
        if isinstance(text, list):
            text = "".join(text)
        size += len(text)
        if size > MAX_MODULE:
            raise NotebookError("notebook.code_too_large", limit=MAX_MODULE >> 20)
        lines = text.splitlines() or [""]
        first = next((line.strip() for line in lines if line.strip()), "")
        if not counts(cell, first):
            continue
        plain, names = _plain(lines)
        if kit.role("\n".join(plain), marked):
            aside.append(number)
            continue
        for name in names:
            defined.setdefault(name, []).append(number)
        cells.append(Cell(number, len(out) + 1, len(lines), first[:60]))
        out += plain
    if not code_cells:
        raise NotebookError("notebook.no_code")
    again = tuple((n, tuple(c)) for n, c in defined.items() if len(c) > 1)
    return Cells("\n".join(out) + "\n", tuple(cells), marked, tuple(aside), again)


def _mark(cell: dict[str, Any]) -> Any:
    metadata = cell.get("metadata")
    return metadata.get(KIT_KEY) if isinstance(metadata, dict) else None


def counts(cell: dict[str, Any], first: str) -> bool:
    """Is this code cell part of the module (by its mark and its first line)?"""
    if _mark(cell) in KIT_ROLES:
        return False
    return not (first.lower().startswith(SKIP_MARK) or first.startswith("%%"))


def _plain(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines, each IPython escape that starts a statement (not one inside brackets,
    a string or after a backslash) as ``pass`` at its indentation; and the names that
    the statements at the top level bind, each once, in order."""
    out = []
    names: dict[str, None] = {}
    state = _Scan()
    for line in lines:
        indent = _escape_indent(line) if state.at_start() else None
        if indent is not None:
            out.append(indent + "pass")
            continue
        if state.at_start():
            name = kit.defined(line)
            if name:
                names[name] = None
        state.feed(line)
        out.append(line)
    return out, list(names)


def _escape_indent(line: str) -> str | None:
    """The indentation of ``line`` when it is an IPython escape, else None."""
    rest = line.lstrip(" \t")
    if not rest:
        return None
    indent = line[: len(line) - len(rest)]
    if rest[0] in "%!" or _HELP.fullmatch(rest):
        return indent
    targets = _TARGETS.match(rest)
    end = targets.end() if targets is not None else 0
    return indent if end and _ASSIGNED_ESCAPE.match(rest, end) else None


class _Scan:
    """Where a line ends: inside brackets or a string that goes on, or after a backslash.
    Linear in the text; unbalanced closing brackets count as none."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""  # the open string's quote (a triple one goes on to later lines)
        self.joined = False

    def at_start(self) -> bool:
        return not (self.depth or self.quote or self.joined)

    def feed(self, line: str) -> None:
        i, n = 0, len(line)
        while i < n:
            if self.quote:
                end = line.find(self.quote, i)
                if end < 0:
                    break
                escapes = end
                while escapes > i and line[escapes - 1] == "\\":
                    escapes -= 1
                if (end - escapes) % 2:  # an escaped quote
                    i = end + 1
                    continue
                i = end + len(self.quote)
                self.quote = ""
                continue
            found = _SPECIAL.search(line, i)
            if found is None or found.group() == "#":
                break
            ch, i = found.group(), found.end()
            if ch in "\"'":
                self.quote = ch * 3 if line.startswith(ch * 3, found.start()) else ch
                i = found.start() + len(self.quote)
            elif ch in "([{":
                self.depth += 1
            else:
                self.depth = max(0, self.depth - 1)
        if len(self.quote) == 1:
            self.quote = ""  # a one-quote string ends with its line
        self.joined = line.rstrip().endswith("\\") and not self.quote


def load(path: Path, within: Path | None = None) -> Cells:
    """The notebook at ``path`` as a module (``NotebookError`` when it cannot be)."""
    return module(decode(read(path, within)))


def notes(meta: Any, t: Callable[..., str]) -> list[str]:
    """The lines a report adds for a notebook (``Cells.notes``), in ``t``'s language."""
    if not isinstance(meta, dict):
        return []
    lines = []
    if meta.get("kit_cells"):
        code = "notebook.note.check_cells" if meta.get("marked") else "notebook.note.kit_cells"
        lines.append(t(code, cells=_listed(meta["kit_cells"]), n=len(meta["kit_cells"])))
    for name, cells, constant in meta.get("again") or ():
        code = "notebook.note.changed" if constant else "notebook.note.redefined"
        lines.append(t(code, name=name, cells=_listed(cells), last=cells[-1]))
    return lines


def _listed(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)
