"""The gradebook in the import formats of learning platforms: Canvas and Moodle.

Both are CSV files that the platform's own gradebook import reads:

- ``gradebook-canvas.csv`` for Canvas (Grades, Import): the columns ``Student``,
  ``ID``, ``SIS User ID``, ``SIS Login ID`` and ``Section`` that identify a student,
  then one column of points for the assignment, named after the lab's module; a
  second row, ``Points Possible``, gives its maximum.  Canvas finds a student by
  ``ID`` (its user id) or by ``SIS Login ID``.  A submission downloaded from Canvas
  is named ``name_USERID_SUBMISSIONID_file`` (``name_late_...`` when late): its
  user id goes into ``ID``; any other submission's id goes into ``SIS Login ID``,
  so a course whose folders are named by login imports as it is.
- ``gradebook-moodle.csv`` for Moodle (Grades, Import, CSV file): ``User ID``,
  ``Username`` and one column of points.  On import, map ``User ID`` to the user's
  id when the submissions were downloaded from a Moodle assignment (folders named
  ``Full Name_USERID_assignsubmission_...``), else ``Username`` to the username.

A submission the grader failed on (``grader error``) has an empty cell: the
platform leaves that grade as it was, so a fault of the grader costs nobody points.
Every cell is safe to open in a spreadsheet: text that a spreadsheet would read as
a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is
prefixed with ``'``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from typing import Any

from grader.engine.batch.rows import UNSCORED, Row, cell, num

CANVAS_FILE = "gradebook-canvas.csv"
MOODLE_FILE = "gradebook-moodle.csv"
CANVAS_IDS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_IDS = ("User ID", "Username")

# What Canvas's "Download Submissions" calls a file: name_[late_]userid_submissionid...
_CANVAS_NAME = re.compile(r"^[^_]+_(?:late_)?(\d+)_(\d+)(?:_|$)", re.I)
# What Moodle's "Download all submissions" calls a folder: Full Name_userid_assignsubmission...
_MOODLE_NAME = re.compile(r"_(\d+)_assignsubmission_", re.I)


def canvas_id(ident: str) -> str:
    """The Canvas user id in a submission named the way Canvas downloads them, else ""."""
    match = _CANVAS_NAME.match(ident)
    return match.group(1) if match else ""


def moodle_id(ident: str) -> str:
    """The Moodle user id in a folder named the way Moodle downloads them, else ""."""
    match = _MOODLE_NAME.search(ident)
    return match.group(1) if match else ""


def _points(row: Row) -> str:
    return "" if row.status in UNSCORED else num(row.total)


def _csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([cell(h) for h in header])
    writer.writerows([cell(v) for v in r] for r in rows)
    return buf.getvalue()


def canvas_csv(rows: Sequence[Row], assignment: str, max_score: float) -> str:
    """The gradebook as Canvas imports it (see the module's docstring)."""
    lines: list[list[Any]] = [["Points Possible", "", "", "", "", num(max_score)]]
    for row in rows:
        user = canvas_id(row.id)
        lines.append([row.id, user, "", "" if user else row.id, "", _points(row)])
    return _csv([*CANVAS_IDS, assignment], lines)


def moodle_csv(rows: Sequence[Row], assignment: str) -> str:
    """The gradebook as Moodle's CSV grade import reads it (see the module's docstring)."""
    lines = [[moodle_id(row.id), row.id, _points(row)] for row in rows]
    return _csv([*MOODLE_IDS, assignment], lines)
