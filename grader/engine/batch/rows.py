"""The options of a batch, its rows (one per submission) and the gradebook they make."""

from __future__ import annotations

import csv
import dataclasses
import io
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.handin.submissions import MISSING, REFUSED, UNREADABLE, Submission
from grader.engine.lab import DEFAULT as DEFAULT_LAB
from grader.engine.lab import Lab, find
from grader.engine.vocabulary.results import Report, Status

GRADED = "graded"
TIMEOUT = "timeout"
CRASHED = "crashed"
IMPORT_ERROR = "import error"
GRADER_ERROR = "grader error"
NOT_GRADED = "not graded"  # the grading machine ran short (disk, memory, processes) twice
# Every status a row can have, the usual first.
STATUSES = (
    GRADED,
    TIMEOUT,
    CRASHED,
    IMPORT_ERROR,
    MISSING,
    UNREADABLE,
    REFUSED,
    GRADER_ERROR,
    NOT_GRADED,
)
UNSCORED = (GRADER_ERROR, NOT_GRADED)  # the grader's fault: no score, never cached


def gradebook_fields(lab: Lab) -> list[str]:
    """The gradebook's columns: one per step of the lab between the totals and the rest."""
    return (
        ["id", "total", "max"]
        + ["step%d" % s for s in sorted(lab.steps)]
        + ["status", "seed", "seconds", "detail"]
    )


FAILING = (Status.FAIL, Status.ERROR, Status.TIMEOUT)
# The codes of a call, an import or a report writer that ran out of time itself.
HUNG = frozenset({"timeout", "import_timeout", "report.write.timeout"})


@frozen
class BatchOptions:
    seed: int
    seed_per_student: bool = False
    jobs: int = 0  # 0: one per core
    force: bool = False
    timeout: float = 3.0
    python: str | None = None
    lang: str = "en"
    pool: str = "process"  # or "thread"
    # The child's sandbox (see grader.engine.sandbox.CHOICES); auto: the strongest here.
    isolation: str = "auto"
    max_seconds: float | None = None  # each submission's time cap (None: 10 time limits)
    lab: str = DEFAULT_LAB  # the lab graded against: a name under grader/labs, or a folder
    shard: tuple[int, int] | None = None  # (K, N): grade share K of N only (classout.in_shard)
    roster: str | None = None  # the platform's list of students (batch.roster), to fill
    assignment: str | None = None  # the roster's column to fill (default: named like the lab)
    absent: str = "zero"  # the grade of a roster student with no hand-in: "zero" or "blank"

    def workers(self) -> int:
        # One more than the cores: while a child waits out a time limit, the others
        # keep every core busy.
        return self.jobs if self.jobs > 0 else (os.cpu_count() or 1) + 1


@dataclass
class Row:
    """One line of the gradebook, with what the summary needs."""

    id: str
    status: str
    total: float
    max: float
    steps: dict[int, float]
    seed: int
    seconds: float
    detail: str = ""
    failing: list[list[str]] = field(default_factory=list)  # [check id, message code]
    # The failing checks that follow from another failing function: id -> those functions.
    follows: dict[str, list[str]] = field(default_factory=dict)
    # Whose it is, as the platform wrote it (Submission.who): platform, key, name, ...
    who: dict[str, str] = field(default_factory=dict)

    def csv(self, steps: Sequence[int]) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": cell(self.id),
            "total": num(self.total),
            "max": num(self.max),
            "status": self.status,
            "seed": self.seed,
            "seconds": "%.2f" % self.seconds,
            "detail": cell(" ".join(self.detail.split())[:300]),
        }
        for s in steps:
            row["step%d" % s] = num(self.steps.get(s, 0.0))
        return row

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["steps"] = {str(k): v for k, v in self.steps.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Row:
        values = dict(data)
        values["steps"] = {int(k): float(v) for k, v in data["steps"].items()}
        return cls(**values)


# What a spreadsheet reads as the start of a formula.
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n")


def cell(value: object) -> str:
    """Text that no spreadsheet runs as a formula: one that starts like one gets a ``'``
    in front (names and messages come from students)."""
    text = str(value)
    return "'" + text if text.startswith(_FORMULA) else text


def num(x: float) -> str:
    return ("%.2f" % x).rstrip("0").rstrip(".")


def status_of(report: Report) -> tuple[str, str]:
    """The row status of a finished grading and a short reason."""
    if report.grader_error:
        return GRADER_ERROR, report.grader_error
    load = next((c for c in report.checks if c.id == "imports.load"), None)
    if load is not None and load.status is Status.ERROR:
        if load.details.get("traceback"):
            return IMPORT_ERROR, load.message
        return CRASHED, load.message
    hit = next((c for c in report.checks if c.code == "crashed"), None)
    if hit is not None:
        return CRASHED, "%s: %s" % (hit.id, hit.message)
    # A call that hung is named before the calls not run because of it.
    timed = sorted(
        (c for c in report.checks if c.status is Status.TIMEOUT),
        key=lambda c: c.code not in HUNG,
    )
    if timed:
        return TIMEOUT, "%s: %s" % (timed[0].id, timed[0].message)
    return GRADED, ""


def row_of(sub: Submission, report: Report, seconds: float) -> Row:
    status, detail = status_of(report)
    steps = {s: got for s, (got, _) in report.by_step().items()}
    # Checks that could not run because a report file is unreadable follow from that
    # file's own check: the class summary counts the cause once.
    failing = [
        [c.id, c.code]
        for c in report.checks
        if c.status in FAILING and not c.code.endswith(".not_read")
    ]
    follows = {
        c.id: list(c.caused_by) for c in report.checks if c.status in FAILING and c.caused_by
    }
    return Row(
        sub.id,
        status,
        report.score,
        report.max_score or float(find(report.meta.get("lab")).max_score),
        steps,
        report.seed,
        seconds,
        detail,
        failing,
        follows,
        sub.who(),
    )


def empty_row(
    sub: Submission, status: str, seed: int, detail: str, lab: Lab, seconds: float = 0.0
) -> Row:
    return Row(sub.id, status, 0.0, float(lab.max_score), {}, seed, seconds, detail, who=sub.who())


def gradebook_csv(rows: Sequence[Row], lab: Lab) -> str:
    """The gradebook's text: a header and one line per row."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=gradebook_fields(lab), lineterminator="\n")
    writer.writeheader()
    steps = sorted(lab.steps)
    for row in rows:
        writer.writerow(row.csv(steps))
    return buf.getvalue()


def write_gradebook(path: Path, rows: Sequence[Row], lab: Lab) -> None:
    write_atomic(path, gradebook_csv(rows, lab))


def write_atomic(path: Path, data: str) -> None:
    """Write atomically, so an interrupted batch never leaves half a file."""
    tmp = path.with_name(".%s.tmp" % path.name)
    tmp.write_text(data, encoding="utf-8", errors="backslashreplace")
    os.replace(tmp, path)
