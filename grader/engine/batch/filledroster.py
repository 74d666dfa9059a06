"""The roster, filled: the platform's own file with the assignment's grades in it, and
what needs a person's look before it is imported.

- Canvas: the gradebook export as it came (its header, its ``Points Possible`` row,
  every other column as it was) with the assignment's column filled:
  ``canvas-import.csv`` (Grades, Import).
- Moodle: the grading worksheet with its ``Grade`` column filled:
  ``moodle-worksheet.csv`` (View all submissions, Upload grading worksheet).
- Gradescope: one line per member of every submission (a group gives every member a
  line): ``gradescope-grades.csv``.
- GitHub Classroom: the roster with a column of points (named after the lab or
  ``--assignment``): ``classroom-grades.csv``.

A grade is the row's points, scaled to what the platform says the assignment is out
of when it says so (``Points Possible``, ``Maximum Grade``).  A student with no
hand-in gets 0, or an empty cell with ``--absent blank``; a grader error leaves the
cell empty (the platform keeps the grade it had).  Cells are written as they were,
except text that a spreadsheet would run as a formula, which gets a ``'`` (a number
such as ``-5`` stays a number).
"""

from __future__ import annotations

import argparse
import csv
import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from grader.engine.batch.roster import Roster, RosterError, load
from grader.engine.batch.rows import UNSCORED, BatchOptions, Row, cell, num
from grader.engine.handin import identity

FILES = {
    identity.CANVAS: "canvas-import.csv",
    identity.MOODLE: "moodle-worksheet.csv",
    identity.GRADESCOPE: "gradescope-grades.csv",
    identity.CLASSROOM: "classroom-grades.csv",
}
_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")


def safe(value: str) -> str:
    """A cell as it was, unless a spreadsheet would run it as a formula."""
    return value if _NUMBER.fullmatch(value) else cell(value)


def _csv(lines: Sequence[Sequence[Any]]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\r\n")
    writer.writerows(lines)
    return buf.getvalue()


def claimed(rows: Sequence[Row], platform: str) -> dict[str, list[Row]]:
    """The rows by the platform's key of the student they are given to."""
    found: dict[str, list[Row]] = {}
    for row in rows:
        who = row.who
        if who.get("platform") == platform and not who.get("problem"):
            found.setdefault(who["key"], []).append(row)
    return found


def _first(rows: list[Row] | None) -> Row | None:
    return rows[0] if rows else None


def team_rows(roster: Roster, mine: dict[str, list[Row]]) -> dict[str, Row]:
    """Moodle's group assignments: each team's hand-in, by the team's name."""
    found: dict[str, Row] = {}
    for s in roster.students:
        if s.team and s.key in mine:
            found.setdefault(s.team, mine[s.key][0])
    return found


def grade(row: Row | None, out_of: float | None, absent: str) -> str:
    """The cell of a student's grade (see the module's docstring)."""
    if row is None or row.who.get("absent"):
        return "" if absent == "blank" else "0"
    if row.status in UNSCORED:
        return ""
    points = row.total
    if out_of is not None and row.max > 0 and out_of != row.max:
        points = row.total * out_of / row.max
    return num(points)


def filled(roster: Roster, rows: Sequence[Row], absent: str = "zero") -> str:
    """The roster's file with every student's grade (see the module's docstring)."""
    mine = claimed(rows, roster.platform)
    # A student two hand-ins claim gets no grade until a person has looked.
    contested = {r.who["claimed"] for r in rows if r.who.get("claimed_platform") == roster.platform}
    if roster.platform == identity.GRADESCOPE:
        lines: list[list[str]] = [["Name", "SID", "Email", "Submission", "Score", "Max Points"]]
        for s in roster.students:
            got = _first(mine.get(s.key))
            top = got.max if got is not None else 0.0
            points = "" if s.key in contested else grade(got, None, absent)
            lines.append([safe(s.name), safe(s.sid), safe(s.email), s.key, points, num(top)])
        return _csv(lines)
    width = max(len(roster.header), roster.column + 1)
    header = list(roster.header)
    column = roster.column
    if column < 0:
        header.append(roster.title)
        column = len(header) - 1
        width = len(header)
    students = {s.line: s for s in roster.students}
    teams = team_rows(roster, mine)
    out = [[safe(h) for h in header]]
    for n, line in enumerate(roster.lines[1:], start=1):
        line = line + [""] * (width - len(line))
        cells = [safe(c) for c in line]
        if n in students:
            key = students[n].key
            got = _first(mine.get(key)) or teams.get(students[n].team)
            cells[column] = "" if key in contested else grade(got, roster.max_points, absent)
        elif roster.column < 0 and line[0].strip() == "":
            cells[column] = ""
        out.append(cells)
    return _csv(out)


def problems(rows: Sequence[Row], lang: str) -> dict[str, list[str]]:
    """What the summary says of identities: under ``look``, what needs a person's look
    before the import (identities claimed twice or unreadable, hand-ins that match no
    student of the roster), one sentence each; under ``absent``, the roster's
    students who handed nothing in."""
    from grader.engine.messages import text

    look: list[str] = []
    claimed_twice: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        problem = row.who.get("problem", "")
        if row.who.get("claimed"):
            key = (row.who.get("claimed_platform", ""), row.who["claimed"])
            claimed_twice.setdefault(key, []).append(row.id)
        elif problem == "ambiguous":
            look.append(text("handin.summary_ambiguous", lang, names=row.id))
        elif problem == "unmatched":
            look.append(text("handin.summary_unmatched", lang, names=row.id))
    for (platform, claimed_key), ids in sorted(claimed_twice.items()):
        look.append(
            text(
                "handin.summary_claimed",
                lang,
                platform=platform,
                key=claimed_key,
                names=", ".join(ids),
            )
        )
    gone = [r.id for r in rows if r.who.get("absent")]
    absent = []
    if gone:
        shown = ", ".join(gone[:20]) + (" (+%d)" % (len(gone) - 20) if len(gone) > 20 else "")
        absent.append(text("handin.summary_absent", lang, n=len(gone), names=shown))
    return {"look": look, "absent": absent}


def write_platform(
    out: Path, rows: Sequence[Row], opts: BatchOptions, write: Callable[[Path, str], None]
) -> dict[str, list[str]]:
    """Write the roster filled (with ``--roster``) into ``out``; the sentences of what
    needs a look before the import, for the summary (``summary["identities"]``)."""
    from grader.engine.lab import find
    from grader.engine.messages import text

    roster = None
    if opts.roster:
        try:
            roster = load(opts.roster, opts.assignment, Path(find(opts.lab).module_file).stem)
        except RosterError as exc:
            return {"look": [text("batch.roster", opts.lang, problem=str(exc))], "absent": []}
        write(out / FILES[roster.platform], filled(roster, rows, opts.absent))
    return problems(rows, opts.lang)


def needs_look(summary: dict[str, Any]) -> bool:
    """Whether the summary names hand-ins that need a look before the import."""
    return bool((summary.get("identities") or {}).get("look"))


def add_arguments(p: argparse.ArgumentParser) -> None:
    """``--roster``, ``--assignment`` and ``--absent``, for ``batch`` and ``merge``."""
    p.add_argument(
        "--roster",
        metavar="FILE",
        help="the platform's own list of students, filled with the grades: Canvas's "
        "gradebook export, Moodle's grading worksheet, Gradescope's submission_metadata.yml "
        "or GitHub Classroom's roster CSV (see docs/lms.md)",
    )
    p.add_argument(
        "--assignment",
        metavar="TITLE",
        help="the roster's column to fill (default: the one named like the lab's module)",
    )
    p.add_argument(
        "--absent",
        choices=("zero", "blank"),
        default="zero",
        help="the grade of a roster student who handed nothing in: 0 (default) or empty",
    )


def after_merge(
    out: Path, rows: Sequence[Row], summary: dict[str, Any], args: argparse.Namespace, lang: str
) -> bool:
    """``merge --roster``: the roster filled from the merged rows, and what needs a look
    added to the summary (``summary.json``, ``summary.txt``); whether some hand-ins
    need a look."""
    import json

    from grader.engine.batch.rows import write_atomic
    from grader.engine.batch.summary import summary_text

    opts = BatchOptions(
        seed=int(summary.get("seed") or 0),
        lang=lang,
        lab=getattr(args, "lab", None) or str(summary.get("lab") or "embed"),
        roster=args.roster,
        assignment=args.assignment,
        absent=args.absent,
    )
    found = write_platform(out, rows, opts, write_atomic)
    if found != summary.get("identities"):
        summary["identities"] = found
        data = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
        write_atomic(out / "summary.json", data)
        write_atomic(out / "summary.txt", summary_text(summary, lang))
    return needs_look(summary)
