"""What one grading run is asked to do, and the error that stops it before it starts."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.grading import selection
from grader.engine.lab import DEFAULT as DEFAULT_LAB
from grader.engine.messages import text


class UsageError(Exception):
    """The grader cannot grade at all (bad arguments, missing file): exit status 2.

    ``code`` and ``params`` name the message in the catalogue.
    """

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(text(code, "en", **params))
        self.code = code
        self.params = params


@frozen
class Options:
    seed: int
    report_dir: Path | None = None
    python: str | None = None
    timeout: float = 3.0
    only: tuple[str, ...] = ()
    upto: int = 99  # the last step graded; grade() gives the lab's last by default
    lang: str = "en"
    check_reports: bool = True
    isolation: str = "process"
    command: str = "embed-grader"
    lab: str = DEFAULT_LAB  # the lab graded against: a name under grader/labs, or a folder
    # Feedback read elsewhere (a class's batch, Gradescope) names files as the student
    # sees them: relative to their folder, never by the grading machine's paths.
    student_root: Path | None = None
    single_file: bool = False  # handed in as one file: it has no report files
    within: Path | None = None  # read only regular files below this folder, no link
    max_seconds: float | None = None  # the submission's time cap (None: the sandbox's default)


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 10**9)


def selected(check_id: str, function: str, step: int, opts: Options) -> bool:
    if step > opts.upto:
        return False
    if not opts.only:
        return True
    return any(selection.matches(o, check_id, function) for o in opts.only)
