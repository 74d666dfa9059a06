"""A notebook (``.ipynb``) graded as the lab's module.

The notebook is the student's file, so reading it is bounded like every parser of
student bytes: at most ``MAX_NOTEBOOK`` bytes are read (a larger file is refused
without reading the rest), at most ``MAX_CONTAINERS`` JSON arrays and objects are
decoded, nesting deeper than the decoder allows is refused, and the cells are then
checked against the notebook format with nbformat (whose import waits for the first
notebook).

What counts as the module: every code cell, in the notebook's order, except

* the cells the exercise's notebook marks as its own in their metadata
  (``"embed_grader": "setup" | "example" | "check" | "report"``: installing the
  grader, the course's examples, the check cells, the cell that writes the report
  files);
* cells whose first line is the comment ``# not graded`` (experiments, plots);
* cells that start with a cell magic (``%%time``, ``%%bash``): their text need not be
  Python.

At most ``MAX_CELLS`` cells, and code cells of at most ``MAX_MODULE`` characters in all.

In the cells kept, a line that is an IPython line magic or shell escape (``%pip``,
``!ls``, ``files = !ls``) or a help request (``lookup?``) becomes ``pass`` at its
indentation, so that the line numbers stay those of the cell.  Outputs are never read.
``Cells`` maps a line of the module back to its cell and the cell's own line.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from dataclasses import dataclass, replace
from pathlib import Path, PurePath
from typing import Any

from grader.engine import safefs
from grader.engine.sandbox.limits import MAX_MODULE
from grader.engine.wire import Raised

SUFFIX = ".ipynb"
MAX_NOTEBOOK = 16 << 20  # bytes of a notebook, its outputs included
MAX_CONTAINERS = 1 << 20  # JSON arrays and objects in it
MAX_CELLS = 5000  # cells of any kind
KIT_KEY = "embed_grader"  # the cell metadata key that marks the exercise's own cells
KIT_ROLES = ("setup", "example", "check", "report")
SKIP_MARK = "# not graded"

_PRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # what a message must not carry as it is
_SPECIAL = re.compile(r"[#\"'()\[\]{}]")
_ESCAPE = re.compile(
    r"^(?P<indent>[ \t]*)(?:[%!]|[\w.]+\?{1,2}[ \t]*$|\?+[\w.]|[\w.,\s]+=[ \t]*[%!][\w!])"
)


class NotebookError(ValueError):
    """A notebook that cannot be graded; ``code`` is the message (``notebook.*``)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Cell:
    """A code cell that is part of the module."""

    number: int  # 1-based, counting every cell of the notebook from the top
    start: int  # the module's line of the cell's first line
    lines: int
    first: str  # the cell's first line that is not blank


@dataclass(frozen=True)
class Cells:
    """The module made of a notebook's cells, and where each line came from."""

    source: str
    cells: tuple[Cell, ...]

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


def is_notebook(path: str | os.PathLike[str] | PurePath) -> bool:
    return str(path).lower().endswith(SUFFIX)


def read(path: Path, within: Path | None = None) -> bytes:
    """The notebook's bytes, at most ``MAX_NOTEBOOK`` of them (a ``NotebookError`` past
    that); with ``within``, never through a link (``safefs`` raises)."""
    if within is not None:
        data = safefs.read_below(str(within), str(path), MAX_NOTEBOOK + 1).data
    else:
        with open(path, "rb") as f:
            data = f.read(MAX_NOTEBOOK + 1)
    if len(data) > MAX_NOTEBOOK:
        raise NotebookError("notebook.too_large", limit=MAX_NOTEBOOK >> 20)
    return data


def decode(data: bytes) -> dict[str, Any]:
    """The notebook's JSON, checked against the notebook format."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookError("notebook.not_utf8", byte=exc.start) from None
    if text.count("[") + text.count("{") > MAX_CONTAINERS:
        raise NotebookError("notebook.too_complex", limit=MAX_CONTAINERS)
    try:
        raw = json.loads(text)
    except RecursionError:
        raise NotebookError("notebook.too_deep") from None
    except json.JSONDecodeError as exc:
        raise NotebookError(
            "notebook.json", error=exc.msg, line=exc.lineno, column=exc.colno
        ) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        raise NotebookError("notebook.not_notebook")
    if len(raw["cells"]) > MAX_CELLS:
        raise NotebookError("notebook.too_many_cells", cells=len(raw["cells"]), limit=MAX_CELLS)
    return _validated(raw)


def _validated(raw: dict[str, Any]) -> dict[str, Any]:
    import nbformat  # noqa: PLC0415 - only for notebooks: it takes a while to import

    try:
        node = nbformat.from_dict(raw)
        major = node.get("nbformat")
        if major != 4:
            raise NotebookError("notebook.version", version=str(major))
        with warnings.catch_warnings():
            # Cells without ids (older writers): their code is still there to grade.
            warnings.simplefilter("ignore")
            nbformat.validate(node)
    except nbformat.ValidationError as exc:
        where = "/" + "/".join(str(p) for p in exc.absolute_path)
        error = _PRINTABLE.sub("?", exc.message[:200])
        raise NotebookError(
            "notebook.invalid", where=_PRINTABLE.sub("?", where[:200]), error=error
        ) from None
    except RecursionError:
        raise NotebookError("notebook.too_deep") from None
    return raw


def module(notebook: dict[str, Any]) -> Cells:
    """The module made of the notebook's code cells (see the module's docstring)."""
    out: list[str] = []
    cells: list[Cell] = []
    code_cells = 0
    size = 0
    for number, cell in enumerate(notebook["cells"], start=1):
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
        cells.append(Cell(number, len(out) + 1, len(lines), first[:60]))
        out += _plain(lines)
    if not code_cells:
        raise NotebookError("notebook.no_code")
    return Cells("\n".join(out) + "\n", tuple(cells))


def counts(cell: dict[str, Any], first: str) -> bool:
    """Is this code cell part of the module?"""
    metadata = cell.get("metadata")
    if isinstance(metadata, dict) and metadata.get(KIT_KEY) in KIT_ROLES:
        return False
    return not (first.lower().startswith(SKIP_MARK) or first.startswith("%%"))


def _plain(lines: list[str]) -> list[str]:
    """The lines, each IPython escape that starts a statement (not one inside brackets,
    a string or after a backslash) as ``pass`` at its indentation."""
    out = []
    state = _Scan()
    for line in lines:
        match = _ESCAPE.match(line) if state.at_start() else None
        if match is not None:
            out.append(match.group("indent") + "pass")
            continue
        state.feed(line)
        out.append(line)
    return out


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
