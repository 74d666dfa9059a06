"""Frozen result objects: what grading produces, before any rendering."""

from __future__ import annotations

import enum
from dataclasses import asdict, field
from typing import Any

from grader.engine.frozen import frozen

# The checks that find each report file, and the codes that say it does not exist.
REPORT_FILES = ("report.json.file", "report.md.file")
# The report files' codes that mean nothing is written yet: no file, or the stub's
# writer, which is not started.
REPORT_ABSENT = frozenset({"report.file.missing", "report.file.not_written", "not_started"})
# The writer's codes that mean the same: there is no report writer yet.
WRITER_ABSENT = frozenset({"report.write.missing", "not_started"})


class Status(str, enum.Enum):
    PASS = "pass"
    FAIL = "fail"  # graded, the answer is wrong
    ERROR = "error"  # the student's code raised where it should have answered
    TIMEOUT = "timeout"  # a call did not return within the time limit
    SKIP = "skip"  # not graded (not started, not selected, module not importable)
    ADVISORY = "advisory"  # behaviour the contract leaves open: a note, no points


@frozen
class CheckResult:
    """The verdict of one check.

    ``function`` is a contract name, ``imports`` or ``report``.  ``caused_by``
    names another failing contract function that this one called while failing:
    the failure is probably a consequence of that one.
    """

    id: str
    step: int
    function: str
    status: Status
    points: float
    max_points: float
    message: str
    reproduce: str = ""
    code: str = ""  # stable message code of the catalogue
    hint: str = ""
    caused_by: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status in (Status.PASS, Status.ADVISORY)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        data["caused_by"] = list(self.caused_by)
        return data


@frozen
class Report:
    """Everything one grading run found."""

    path: str
    seed: int
    checks: tuple[CheckResult, ...]
    elapsed: float = 0.0
    child_time: float = 0.0
    calls: int = 0
    grader_error: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def score(self) -> float:
        return round(sum(c.points for c in self.checks), 2)

    @property
    def max_score(self) -> float:
        return round(sum(c.max_points for c in self.checks), 2)

    @property
    def passed(self) -> bool:
        return not self.grader_error and all(c.ok for c in self.checks)

    def by_step(self) -> dict[int, tuple[float, float]]:
        totals: dict[int, tuple[float, float]] = {}
        for c in self.checks:
            got, most = totals.get(c.step, (0.0, 0.0))
            totals[c.step] = (got + c.points, most + c.max_points)
        return {s: (round(a, 2), round(b, 2)) for s, (a, b) in sorted(totals.items())}

    def step_states(self) -> dict[int, str]:
        """What is true of each step, as a status code of the catalogue (``status.*``).

        ``fail`` (a check failed), ``pass``, ``skip`` (none of its functions is started),
        ``not_graded`` (the module could not be imported), ``waiting`` (everything
        passes, but its points count only once a function is written: the untouched
        stub imports fine) and ``not_written`` (neither report file exists yet).
        """
        states = {}
        for step, (got, most) in self.by_step().items():
            checks = [c for c in self.checks if c.step == step]
            # A step is not started while none of its functions is, even if its
            # constants pass.
            constants = set(self.meta.get("constants", ()))
            functions = {c.function for c in checks if c.function not in constants}
            idle = {
                c.function for c in checks if c.status is Status.SKIP and c.code == "not_started"
            }
            started = any(c.status is not Status.SKIP for c in checks) and not (
                functions and functions <= idle
            )
            files = {c.id: c.code for c in checks if c.id in REPORT_FILES}
            writer = {c.code for c in checks if c.id == "report.write"}
            if (len(files) == len(REPORT_FILES) and set(files.values()) <= REPORT_ABSENT) or (
                writer and writer <= WRITER_ABSENT
            ):
                state = "not_written"
            elif any(not c.ok and c.status is not Status.SKIP for c in checks):
                state = "fail"
            elif (
                checks
                and all(c.code == "not_loaded" for c in checks if c.status is Status.SKIP)
                and not any(c.status is Status.PASS for c in checks)
            ):
                state = "not_graded"
            elif not started:
                state = "skip"
            elif got == 0 and most > 0:
                state = "waiting" if all(c.ok for c in checks) else "skip"
            else:
                state = "pass"
            states[step] = state
        return states

    def blamed(self) -> set[str]:
        """Functions with a failed check that is not explained by another failure."""
        return {
            c.function
            for c in self.checks
            if not c.ok and not c.caused_by and c.status is not Status.SKIP
        }

    def to_dict(self) -> dict[str, Any]:
        states = self.step_states()
        return {
            "path": self.path,
            "seed": self.seed,
            "score": self.score,
            "max_score": self.max_score,
            "passed": self.passed,
            "grader_error": self.grader_error or None,
            "elapsed": round(self.elapsed, 4),
            "child_time": round(self.child_time, 4),
            "calls": self.calls,
            "steps": {
                str(s): {"points": a, "max_points": b, "state": states[s]}
                for s, (a, b) in self.by_step().items()
            },
            "checks": [c.to_dict() for c in self.checks],
            "meta": self.meta,
        }
