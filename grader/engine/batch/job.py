"""Grading one submission of a batch, in a worker: its row and its feedback files."""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Sequence
from pathlib import Path

from grader.engine.batch.rows import GRADER_ERROR, NOT_GRADED, Row, empty_row, num, row_of
from grader.engine.frozen import frozen
from grader.engine.grading.grade import UsageError, grade
from grader.engine.handin.submissions import REFUSED, UNREADABLE, Submission
from grader.engine.lab import find
from grader.engine.messages import text
from grader.engine.output import terminal
from grader.engine.output.byformat import render
from grader.engine.sandbox import MachineFault


@frozen
class Job:
    sub: Submission
    seed: int
    key: str
    report_dir: Path  # an empty folder for single files
    timeout: float
    python: str | None
    lang: str
    isolation: str = "process"
    within: Path | None = None  # the submissions folder: nothing is read through a link
    max_seconds: float | None = None
    lab: str | None = None


@frozen
class Graded:
    row: Row
    feedback_text: str
    feedback_json: str


def grade_one(job: Job) -> Graded:
    """Grade one submission; never raises: a fault of the grader becomes the row's status."""
    start = time.perf_counter()
    sub = job.sub
    assert sub.module is not None
    try:
        report = grade(
            sub.module,
            seed=job.seed,
            report_dir=job.report_dir,
            python=job.python,
            timeout=job.timeout,
            lang=job.lang,
            isolation=job.isolation,
            # The feedback is read in the student's own folder.
            student_root=sub.source if sub.report_dir is not None else None,
            single_file=sub.report_dir is None,
            within=job.within,
            max_seconds=job.max_seconds,
            lab=job.lab,
        )
        row = row_of(sub, report, time.perf_counter() - start)
        feedback = render(report, "text", job.lang, width=terminal.DEFAULT_WIDTH)
        return with_notes(Graded(row, feedback, render(report, "json", job.lang)), sub.notes)
    except UsageError as exc:
        status = REFUSED if exc.code.startswith("submission.") else UNREADABLE
        detail = text(exc.code, job.lang, **exc.params)
        row = empty_row(sub, status, job.seed, detail, find(job.lab), time.perf_counter() - start)
    except MachineFault as exc:  # tried twice: never charged to the submission
        detail = text(
            "machine.not_graded", job.lang, resource=text("machine." + exc.resource, job.lang)
        )
        row = empty_row(
            sub, NOT_GRADED, job.seed, detail, find(job.lab), time.perf_counter() - start
        )
    except Exception as exc:  # a fault of the grader, never of the student
        detail = "%s: %s" % (type(exc).__name__, exc)
        row = empty_row(
            sub, GRADER_ERROR, job.seed, detail, find(job.lab), time.perf_counter() - start
        )
        row.detail += "\n" + traceback.format_exc(limit=8)
    graded = problem_feedback(row, job.lang, shown_module(sub, find(job.lab).module_file))
    return with_notes(graded, sub.notes)


def with_notes(graded: Graded, notes: Sequence[str]) -> Graded:
    """The feedback with what it says of the hand-in's files (which file was graded as
    what, the others handed in) first: in the text, and as ``notes`` in the JSON."""
    if not notes:
        return graded
    lines = "\n".join("\n".join(terminal.wrap(n, terminal.DEFAULT_WIDTH, "  ")) for n in notes)
    data = json.loads(graded.feedback_json)
    data["notes"] = list(notes)
    return Graded(
        graded.row,
        lines + "\n\n" + graded.feedback_text,
        json.dumps(data, indent=2, ensure_ascii=False) + "\n",
    )


def shown_module(sub: Submission, module_file: str) -> str:
    """The module as the student names it: inside their folder, else the lab's file name."""
    if sub.module is not None and sub.report_dir is not None:
        try:
            return sub.module.relative_to(sub.source).as_posix()
        except ValueError:
            pass
    return module_file


def problem_feedback(row: Row, lang: str, path: str) -> Graded:
    """Feedback for a submission that has no grading report; its JSON follows the
    schema of ``--format json`` (``path`` is the module as the student names it)."""
    lines = [
        "embed-grader · %s · %s" % (row.id, text("render.seed", lang, seed=row.seed)),
        "",
        text("batch.not_graded", lang, status=row.status),
        "",
        row.detail,
        "",
        text("render.total", lang, score=num(row.total), max_score=num(row.max)),
    ]
    data = {
        "id": row.id,
        "path": path,
        "seed": row.seed,
        "score": row.total,
        "max_score": row.max,
        "passed": False,
        "status": row.status,
        "detail": row.detail,
        "checks": [],
    }
    return Graded(
        row,
        "\n".join(lines).rstrip() + "\n",
        json.dumps(data, indent=2, ensure_ascii=False) + "\n",
    )
