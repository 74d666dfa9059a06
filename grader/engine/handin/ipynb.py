"""A notebook's file read and checked as the notebook format, bounded like every parser
of student bytes.

At most ``MAX_NOTEBOOK`` bytes are read (a larger file is refused without reading the
rest); the text must be UTF-8 with at most ``MAX_CONTAINERS`` JSON arrays and objects
(counted before it is decoded), nested no deeper than the decoder allows, and with no
number longer than ``MAX_DIGITS`` digits.  The JSON is then checked in one pass over
its cells for what grading reads, and nothing else: a version 4 notebook (``nbformat``
4, ``nbformat_minor`` a whole number), at most ``MAX_CELLS`` cells, each an object with
a ``cell_type`` of the format, a ``source`` that is a string or a list of strings and,
when it has one, a ``metadata`` object.  Outputs, attachments and the notebook's own
metadata are never looked at, so that no size of theirs costs more than its decoding.

Every failure is a ``NotebookError`` naming what is wrong: the submission's fault,
never the grader's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn

from grader.engine import safefs

MAX_NOTEBOOK = 16 << 20  # bytes of a notebook, its outputs included
MAX_CONTAINERS = 1 << 20  # JSON arrays and objects in it
MAX_CELLS = 5000  # cells of any kind
MAX_DIGITS = 4000  # digits of a number (longer ones take more than linear time to read)
CELL_TYPES = ("code", "markdown", "raw")


class NotebookError(ValueError):
    """A notebook that cannot be graded; ``code`` is the message (``notebook.*``)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


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


def decode(data: bytes) -> Any:
    """The notebook's JSON (``cells`` checks it as a notebook)."""
    if len(data) > MAX_NOTEBOOK:
        raise NotebookError("notebook.too_large", limit=MAX_NOTEBOOK >> 20)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotebookError("notebook.not_utf8", byte=exc.start) from None
    if text.count("[") + text.count("{") > MAX_CONTAINERS:
        raise NotebookError("notebook.too_complex", limit=MAX_CONTAINERS)
    try:
        raw = json.loads(text, parse_int=_whole, parse_float=_real)
    except RecursionError:
        raise NotebookError("notebook.too_deep") from None
    except json.JSONDecodeError as exc:
        raise NotebookError(
            "notebook.json", error=exc.msg, line=exc.lineno, column=exc.colno
        ) from None
    return raw


def checked_cells(raw: Any) -> list[dict[str, Any]]:
    """The cells of the notebook ``raw`` (decoded JSON), each checked; linear in them."""
    if not isinstance(raw, dict) or not isinstance(raw.get("cells"), list):
        raise NotebookError("notebook.not_notebook")
    for key in ("nbformat", "nbformat_minor"):
        if key not in raw:
            raise NotebookError("notebook.missing", key=key)
    major, minor = raw["nbformat"], raw["nbformat_minor"]
    if not _is_int(major) or major != 4:
        raise NotebookError("notebook.version", version=shown(major))
    if not _is_int(minor) or minor < 0:
        raise NotebookError("notebook.minor", got=shown(minor))
    found: list[dict[str, Any]] = raw["cells"]
    if len(found) > MAX_CELLS:
        raise NotebookError("notebook.too_many_cells", cells=len(found), limit=MAX_CELLS)
    for number, cell in enumerate(found, start=1):
        _check_cell(number, cell)
    return found


def _check_cell(number: int, cell: Any) -> None:
    if not isinstance(cell, dict):
        _wrong("notebook.cell_not_object", number, "", cell)
    for key in ("cell_type", "source"):
        if key not in cell:
            raise NotebookError("notebook.cell_missing", cell=number, key=key)
    kind = cell["cell_type"]
    if not isinstance(kind, str) or kind not in CELL_TYPES:
        _wrong("notebook.cell_type", number, "cell_type", kind)
    source = cell["source"]
    if isinstance(source, list):
        for i, line in enumerate(source):
            if not isinstance(line, str):
                _wrong("notebook.cell_source", number, "source[%d]" % i, line)
    elif not isinstance(source, str):
        _wrong("notebook.cell_source", number, "source", source)
    if "metadata" in cell and not isinstance(cell["metadata"], dict):
        _wrong("notebook.cell_metadata", number, "metadata", cell["metadata"])


def _wrong(code: str, number: int, field: str, value: Any) -> NoReturn:
    raise NotebookError(code, cell=number, field=field, got=shown(value))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _whole(digits: str) -> int:
    if len(digits) > MAX_DIGITS:
        raise NotebookError("notebook.long_number", limit=MAX_DIGITS)
    return int(digits)


def _real(digits: str) -> float:
    if len(digits) > MAX_DIGITS:
        raise NotebookError("notebook.long_number", limit=MAX_DIGITS)
    return float(digits)


def shown(value: Any, width: int = 40) -> str:
    """``value`` as JSON, in ASCII, arrays and objects as ``[…]`` and ``{…}``, at most
    ``width`` characters: what a message may quote of it."""
    if isinstance(value, list):
        return "[…]"
    if isinstance(value, dict):
        return "{…}"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= width else text[: width - 1] + "…"
