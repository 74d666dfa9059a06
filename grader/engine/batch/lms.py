"""The gradebook in the import formats of learning platforms: Canvas and Moodle.

Both are CSV files that the platform's own import reads, one line per row, with the
student's identity only where the platform wrote it in the download's names
(``identity``; a hand-in whose identity is claimed twice or reads two ways has none):

- ``gradebook-canvas.csv`` for Canvas (Grades, Import): the columns ``Student``,
  ``ID``, ``SIS User ID``, ``SIS Login ID`` and ``Section`` that identify a student,
  then one column of points for the assignment, named after the lab's module; a
  second row, ``Points Possible``, gives its maximum.  Canvas finds a student by
  ``ID`` (its user id) or by ``SIS Login ID``.  A file downloaded from Canvas is
  named ``name_[late_]USERID_FILEID_filename``: its user id goes into ``ID``; any
  other submission's id goes into ``SIS Login ID``, so a course whose folders are
  named by login imports as it is.  A column named after the module makes a new
  assignment on import: to fill the assignment's own column, give the gradebook
  export as ``--roster`` (``filledroster``).
- ``gradebook-moodle.csv`` for Moodle: the columns of the assignment's grading
  worksheet (View all submissions, Upload grading worksheet): ``Identifier`` is
  ``Participant NNN``, the participant number of the download's folder names
  (``Full Name_NNN_assignsubmission_...``), which is no user id; ``Full name``,
  ``Username`` (the submission's id, for a course whose folders are named by
  username: Grades, Import, CSV file, mapped to the username), ``Grade``,
  ``Maximum Grade`` and ``Last modified (grade)`` (the time of the batch, so the
  upload takes these grades over older ones).

A submission the grader failed on (``grader error``) has an empty cell: the
platform leaves that grade as it was, so a fault of the grader costs nobody points.
Every cell is safe to open in a spreadsheet: text that a spreadsheet would read as
a formula (starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is
prefixed with ``'``.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Sequence
from typing import Any

from grader.engine.batch.rows import UNSCORED, Row, cell, num
from grader.engine.handin import identity

CANVAS_FILE = "gradebook-canvas.csv"
MOODLE_FILE = "gradebook-moodle.csv"
CANVAS_IDS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
MOODLE_IDS = ("Identifier", "Full name", "Username")


def _mine(row: Row, platform: str) -> str:
    """The row's key on ``platform``, when the platform wrote it and no one else claims it."""
    who = row.who
    if who.get("platform") != platform or who.get("problem") or who.get("absent"):
        return ""
    return who.get("key", "")


def canvas_id(row: Row) -> str:
    """The Canvas user id of the row's hand-in, else ""."""
    return _mine(row, identity.CANVAS)


def moodle_participant(row: Row) -> str:
    """The Moodle participant number of the row's hand-in, else ""."""
    return _mine(row, identity.MOODLE)


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
        user = canvas_id(row)
        name = row.who.get("name", "") if user else row.id
        lines.append([name or row.id, user, "", "" if user else row.id, "", _points(row)])
    return _csv([*CANVAS_IDS, assignment], lines)


def moodle_csv(rows: Sequence[Row], assignment: str, when: float | None = None) -> str:
    """The gradebook as Moodle's grading worksheet (see the module's docstring)."""
    stamp = time.strftime("%A, %d %B %Y, %I:%M %p", time.localtime(when))
    lines = []
    for row in rows:
        number = moodle_participant(row)
        name = row.who.get("name", "") if number else ""
        lines.append(
            [
                "Participant %s" % number if number else "",
                name,
                "" if number else row.id,
                _points(row),
                num(row.max),
                stamp,
            ]
        )
    # The worksheet's column is "Grade", whatever the assignment is called.
    return _csv([*MOODLE_IDS, "Grade", "Maximum Grade", "Last modified (grade)"], lines)
