"""The list of students as the platform itself exports it (``--roster FILE``).

- **Canvas**: the gradebook export (Grades, Export, CSV): ``Student, ID, SIS User ID,
  SIS Login ID, [Integration ID,] Section``, then one column per assignment titled
  ``Name (ASSIGNMENT_ID)``, then totals; a row ``Points Possible`` (and sometimes
  ``Manual Posting``) under the header.  A student is their ``ID``.
- **Moodle**: the assignment's grading worksheet (View all submissions, Download
  grading worksheet): ``Identifier, Full name, Email address, Status, Grade, Maximum
  Grade, ...``; ``Identifier`` reads ``Participant N``, the number in the download's
  folder names.  In a group assignment its ``Team`` column names each student's team,
  whose one hand-in is every member's.
- **Gradescope**: ``submission_metadata.yml`` of "Export Submissions": one entry per
  submission folder, with ``:submitters:`` (``:name:``, ``:sid:``, ``:email:``): every
  member of a group is a student of that submission.
- **GitHub Classroom**: the classroom roster (Students, Download):
  ``identifier, github_username, github_id, name``; a repository
  ``PREFIX-USERNAME`` is that student's.

A roster is read as untrusted: its size is checked before it is read, a CSV has at
most ``MAX_ROWS`` rows of ``MAX_COLUMNS`` fields of ``MAX_FIELD`` characters, and
the YAML is read by a small parser of the subset Gradescope writes (a line at a
time, linear, nothing else interpreted); every problem is a ``RosterError`` that
says what and where.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader.engine import safefs
from grader.engine.frozen import frozen
from grader.engine.handin import identity

GRADESCOPE_METADATA = "submission_metadata.yml"  # beside the folders of an export
MAX_ROSTER = 16 * 1024 * 1024
MOODLE_NO_TEAM = "Default group"  # the Team of a student in no group
MAX_ROWS = 100_000
MAX_COLUMNS = 2_000
MAX_FIELD = 64 * 1024
# Canvas's columns that the import reads as no assignment (totals, read only).
CANVAS_IDS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section")
_CANVAS_TOTALS = re.compile(
    r"(Current|Final|Unposted) (Points|Score|Grade)|.* (Current|Final|Unposted) (Points|Score)"
)


class RosterError(Exception):
    """The roster cannot be used; the message says why."""


@frozen
class Student:
    key: str  # the platform's id of the student (Gradescope: of their submission)
    name: str
    line: int  # the student's line in the roster's table (-1: none)
    email: str = ""
    sid: str = ""
    login: str = ""
    team: str = ""  # Moodle's team of a group assignment: one hand-in for all of it


@dataclass
class Roster:
    platform: str
    path: Path
    students: list[Student]
    header: list[str] = field(default_factory=list)
    lines: list[list[str]] = field(default_factory=list)  # the table as read (CSV rosters)
    column: int = -1  # the column that gets the grade (-1: appended)
    title: str = ""  # its title
    max_points: float | None = None  # what the platform says the assignment is out of

    def by_key(self) -> dict[str, list[Student]]:
        found: dict[str, list[Student]] = {}
        for s in self.students:
            found.setdefault(s.key, []).append(s)
        return found

    def canvas_names(self) -> dict[str, set[str]]:
        """Canvas: user id -> the name Canvas writes in the download's file names."""
        return {s.key: {identity.canvas_written_name(s.name)} for s in self.students}


def _text(path: Path) -> str:
    try:
        read = safefs.read_regular(str(path), MAX_ROSTER + 1)
    except OSError as exc:
        raise RosterError("%s: %s" % (path, exc.strerror or exc)) from None
    if read.cut:
        raise RosterError("%s: larger than %d MB" % (path, MAX_ROSTER // (1024 * 1024)))
    data = read.data
    for encoding in ("utf-8-sig", "cp1252"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return data.decode("latin-1")


def _table(text: str, path: Path) -> list[list[str]]:
    if "\0" in text:
        raise RosterError("%s: not a text file" % path)
    old = csv.field_size_limit(MAX_FIELD)
    try:
        rows: list[list[str]] = []
        # The dialect of Excel's and the platforms' CSV; a ";" file is read as such.
        first = text.split("\n", 1)[0]
        delimiter = ";" if first.count(";") > first.count(",") else ","
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            if len(rows) >= MAX_ROWS:
                raise RosterError("%s: more than %d rows" % (path, MAX_ROWS))
            if len(row) > MAX_COLUMNS:
                raise RosterError("%s: more than %d columns" % (path, MAX_COLUMNS))
            rows.append(row)
        return rows
    except csv.Error as exc:
        raise RosterError("%s: not a CSV file the platform exports (%s)" % (path, exc)) from None
    finally:
        csv.field_size_limit(old)


def load(path: str | Path, assignment: str | None = None, module_stem: str = "embed") -> Roster:
    """The roster in ``path``, of whichever platform made it."""
    path = Path(path)
    text = _text(path)
    if path.suffix.lower() in (".yml", ".yaml"):
        return Roster(identity.GRADESCOPE, path, gradescope_students(text, path))
    table = _table(text, path)
    if not table:
        raise RosterError("%s: empty" % path)
    header = [h.strip().lstrip("\ufeff") for h in table[0]]
    lower = [h.lower() for h in header]
    if "identifier" in lower and "github_username" in lower:
        return _classroom(path, header, table, assignment or module_stem)
    if "identifier" in lower and "grade" in lower:
        return _moodle(path, header, table)
    if header[:2] == ["Student", "ID"]:
        return _canvas(path, header, table, assignment, module_stem)
    raise RosterError(
        "%s: not a roster this grader reads (Canvas's gradebook export, Moodle's grading "
        "worksheet, Gradescope's submission_metadata.yml, GitHub Classroom's roster); "
        "its first line is: %s" % (path, ", ".join(header[:8])[:200])
    )


def _number(value: str) -> float | None:
    try:
        got = float(value.strip().replace(",", ""))
    except ValueError:
        return None
    return got if got == got and abs(got) != float("inf") else None


def _canvas(
    path: Path, header: list[str], table: list[list[str]], assignment: str | None, stem: str
) -> Roster:
    ids = [i for i, h in enumerate(header) if h in CANVAS_IDS]
    others = [
        (i, h) for i, h in enumerate(header) if i not in ids and not _CANVAS_TOTALS.fullmatch(h)
    ]
    if assignment is not None:
        wanted = [(i, h) for i, h in others if h == assignment or h.startswith(assignment + " (")]
    else:
        wanted = [(i, h) for i, h in others if h.lower().startswith(stem.lower())]
    if len(wanted) != 1:
        shown = "; ".join(h for _, h in others[:20]) or "-"
        raise RosterError(
            "%s: name the assignment's column with --assignment TITLE (%s): %s"
            % (path, "several fit" if wanted else "none is named like the lab", shown)
        )
    column, title = wanted[0]
    points = None
    students = []
    for n, line in enumerate(table[1:], start=1):
        line = line + [""] * (len(header) - len(line))
        first = line[0].strip()
        if first == "Points Possible":
            points = _number(line[column])
            continue
        user = line[1].strip()
        if not user.isdigit():
            continue  # "Manual Posting", "Muted" and other rows of the platform's own
        login = line[header.index("SIS Login ID")] if "SIS Login ID" in header else ""
        students.append(Student(str(int(user)), line[0], n, login=login))
    return Roster(identity.CANVAS, path, students, header, table, column, title, points)


def _moodle(path: Path, header: list[str], table: list[list[str]]) -> Roster:
    lower = [h.lower() for h in header]
    ident, grade = lower.index("identifier"), lower.index("grade")
    name = lower.index("full name") if "full name" in lower else -1
    email = lower.index("email address") if "email address" in lower else -1
    top = lower.index("maximum grade") if "maximum grade" in lower else -1
    team = lower.index("team") if "team" in lower else -1
    students, points = [], None
    for n, line in enumerate(table[1:], start=1):
        line = line + [""] * (len(header) - len(line))
        match = re.fullmatch(r"\s*\S+\s+(\d{1,18})\s*", line[ident])  # "Participant 123"
        if match is None:
            continue
        if top >= 0 and points is None:
            points = _number(line[top])
        students.append(
            Student(
                str(int(match.group(1))),
                line[name] if name >= 0 else "",
                n,
                email=line[email] if email >= 0 else "",
                # Those in no group share only Moodle's name for none: no team.
                team=line[team].strip() if team >= 0 and line[team] != MOODLE_NO_TEAM else "",
            )
        )
    return Roster(identity.MOODLE, path, students, header, table, grade, header[grade], points)


def _classroom(path: Path, header: list[str], table: list[list[str]], title: str) -> Roster:
    lower = [h.lower() for h in header]
    user = lower.index("github_username")
    name = lower.index("name") if "name" in lower else lower.index("identifier")
    ident = lower.index("identifier")
    column = lower.index(title.lower()) if title.lower() in lower else -1
    students = []
    for n, line in enumerate(table[1:], start=1):
        line = line + [""] * (len(header) - len(line))
        login = line[user].strip()
        # An identifier not yet linked to a GitHub account has no repository: its key
        # is one no repository's name gives, so it is a row "nothing handed in".
        key = login.lower() if login else "identifier:" + line[ident]
        students.append(Student(key, line[name] or line[ident], n, login=login))
    return Roster(identity.CLASSROOM, path, students, header, table, column, title, None)


# Gradescope's submission_metadata.yml ---------------------------------------------------

_TOP = re.compile(r"([^\s#'\"][^:]*|'[^']*'|\"[^\"]*\"):\s*(#.*)?")
_FIELD = re.compile(r"(-\s+)?:?([A-Za-z_]+):(?:\s+(.*))?")


def _scalar(raw: str | None) -> str:
    """A YAML scalar as Gradescope writes one: plain, 'single' or "double" quoted."""
    value = (raw or "").strip()
    if value.startswith("'") and value.endswith("'") and len(value) >= 2:
        return value[1:-1].replace("''", "'")
    if value.startswith('"') and value.endswith('"') and len(value) >= 2:
        inner = value[1:-1]
        out, i = [], 0
        while i < len(inner):
            ch = inner[i]
            if ch == "\\" and i + 1 < len(inner):
                nxt = inner[i + 1]
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", inner[i + 2 : i + 6]):
                    out.append(chr(int(inner[i + 2 : i + 6], 16)))
                    i += 6
                    continue
                out.append({"n": "\n", "t": "\t", "\\": "\\", '"': '"'}.get(nxt, nxt))
                i += 2
                continue
            out.append(ch)
            i += 1
        return "".join(out)
    if value in ("~", "null"):
        return ""
    return re.sub(r"\s+#.*$", "", value)


def gradescope_students(text: str, path: Path = Path("submission_metadata.yml")) -> list[Student]:
    """Every submitter of every submission in ``submission_metadata.yml``: key is the
    submission's folder.  Only the lines of ``:submitters:`` are interpreted; every
    other key (``:results:``, ``:history:``, ...) is skipped by its indentation."""
    students: list[Student] = []
    folder = ""
    within: int | None = None  # the indentation of ":submitters:" while in it
    level: int | None = None  # the indentation of a submission's own keys
    person: dict[str, str] | None = None
    dash = -1

    def close() -> None:
        nonlocal person
        if person is not None and folder:
            students.append(
                Student(
                    folder,
                    person.get("name", ""),
                    -1,
                    email=person.get("email", ""),
                    sid=person.get("sid", ""),
                )
            )
        person = None

    for number, line in enumerate(text.splitlines(), start=1):
        if number > MAX_ROWS * 20:
            raise RosterError("%s: more than %d lines" % (path, MAX_ROWS * 20))
        body = line.strip()
        if not body or body.startswith("#") or body == "---":
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            close()
            within, level = None, None
            top = _TOP.fullmatch(line.rstrip())
            folder = _scalar(top.group(1)) if top else ""
            continue
        if within is not None:
            if body.startswith("-") and indent >= within:
                close()
                person, dash = {}, indent
                body = body[1:].strip()
                if not body:
                    continue
            elif person is not None and indent > dash:
                pass
            else:
                close()
                within = None
            if within is not None and person is not None:
                got = _FIELD.fullmatch(body)
                if got is not None and got.group(2) in ("name", "sid", "email"):
                    person[got.group(2)] = _scalar(got.group(3))[:500]
                continue
        if level is None:
            level = indent
        got = _FIELD.fullmatch(body)
        # Only the submission's own key: the same words deeper down (in ":results:",
        # which holds what the autograder printed) are not read.
        if got is not None and got.group(2) == "submitters" and indent == level:
            within = indent
    close()
    if not students:
        raise RosterError("%s: no submitters (:submitters:) in it" % path)
    return students
