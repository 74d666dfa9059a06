"""Judging one call: the outcome from the child against the expectation in the parent."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from grader.engine.lab import Hints
from grader.engine.sandbox import DISK_FILES, DISK_MB, Outcome
from grader.engine.vocabulary import show
from grader.engine.vocabulary.compare import Mismatch, diff, type_name
from grader.engine.vocabulary.expect import Case, Custom, Open, Raises, Returns, Verdict
from grader.engine.vocabulary.results import Status

__all__ = ["Verdict", "explained", "judge"]

NO_HINTS = Hints()


def _raised(outcome: Outcome) -> dict[str, Any]:
    assert outcome.raised is not None
    return {"raised": outcome.raised.type, "error": show.short(outcome.raised.message, 200)}


def _raised_code(outcome: Outcome) -> str:
    """The message names the student's line when the traceback passed through the file."""
    assert outcome.raised is not None
    if outcome.raised.line is None:
        return "raised"
    return "raised_at" if outcome.raised.cell is None else "raised_in_cell"


def _where(outcome: Outcome) -> dict[str, Any]:
    raised = outcome.raised
    assert raised is not None
    cell, first = raised.cell or (None, "")
    return {"line": raised.line, "func": raised.function, "cell": cell, "first": first}


def _mismatch_params(m: Mismatch) -> dict[str, Any]:
    return {
        "path": m.path,
        "expected": show.short(m.expected),
        "got": show.short(m.got),
        "got_type": type_name(m.got),
        "allowed": "%.3g" % m.allowed if m.allowed is not None else "0",
        "wrong": m.wrong,
        "total": m.total,
        "n": len(m.got) if isinstance(m.got, (list, tuple)) else 0,
    }


def judge(
    case: Case, outcome: Outcome, timeout: float = 3.0, hints: Hints = NO_HINTS
) -> Verdict | None:
    """None when the case passed, otherwise a Verdict saying why not."""
    expect = case.expect
    if isinstance(expect, Open):
        return None
    if outcome.kind == "returned" and isinstance(expect, Custom):
        return expect.judge(case, outcome.value, hints)
    m: Mismatch | None = None  # the answer's difference from the expected value, computed once
    if outcome.kind == "returned" and isinstance(expect, Returns):
        # The common case, a right answer: settle it before building any text.
        m = diff(expect.kind, expect.value, outcome.value)
        if m is None:
            return None
    if (
        outcome.kind == "raised"
        and isinstance(expect, Raises)
        and outcome.raised is not None
        and outcome.raised.type != "_Stopped"
        and outcome.raised.is_a(expect.exc)
    ):
        return None  # the exception asked for: settled before the call is written out
    base: dict[str, Any] = {"call": case.shown, "fn": case.fn}
    if outcome.kind == "timeout":
        return Verdict(Status.TIMEOUT, "timeout", dict(base, seconds="%g" % timeout))
    if outcome.kind == "crashed" and outcome.why == "disk":
        return Verdict(Status.ERROR, "disk_spent", dict(base, mb=DISK_MB, files=DISK_FILES))
    if outcome.kind == "crashed":
        return Verdict(Status.ERROR, "crashed", dict(base, detail=outcome.detail))
    if outcome.kind == "skipped" and outcome.why in ("budget", "budget_fn"):
        return Verdict(Status.TIMEOUT, "budget_spent" + outcome.why[6:], base)
    if outcome.kind == "skipped":
        status = Status.TIMEOUT if "time" in outcome.detail else Status.ERROR
        return Verdict(status, "skipped", base)
    if (
        outcome.kind == "raised"
        and outcome.raised is not None
        and outcome.raised.type == "_Stopped"
    ):
        # A helper it calls hung earlier and is not run again.
        stuck = outcome.raised.message.split(" ")[0] or "?"
        return Verdict(Status.ERROR, "skipped_callee", dict(base, names=stuck))
    if outcome.kind == "raised":
        assert outcome.raised is not None
        because = tuple(hints.explain_raised(case.fn, case.args, outcome.raised.type))
        if isinstance(expect, Raises):
            if outcome.raised.is_a(expect.exc):
                return None
            return Verdict(
                Status.FAIL, "wrong_raise", dict(base, exc=expect.exc, **_raised(outcome)), because
            )
        return Verdict(
            Status.ERROR,
            _raised_code(outcome),
            dict(base, **_raised(outcome), **_where(outcome)),
            because,
        )
    got = outcome.value
    if isinstance(expect, Raises):
        return Verdict(
            Status.FAIL,
            "no_raise",
            dict(base, exc=expect.exc, got=show.short(got)),
            tuple(hints.explain_no_raise(case.fn, case.args, got)),
        )
    if not isinstance(expect, Returns):
        raise TypeError("a case expects %r, which the engine cannot judge" % (expect,))
    if m is None:
        m = diff(expect.kind, expect.value, got)
    own = expect.mismatch(case, outcome, m, base) if m is not None else None
    if own is not None:
        return own
    if m is not None:
        code = m.reason
        if m.reason == "value" and m.allowed is None:
            code = "value_exact"
        elif m.reason == "value" and not m.path:
            code = "value_scalar"
        return Verdict(
            Status.FAIL,
            code,
            dict(base, **_mismatch_params(m)),
            expect.known(got) + tuple(hints.explain(case.fn, case.args, got)),
        )
    return None


def explained(failed: Sequence[tuple[Case, Outcome, Verdict]]) -> str | None:
    """The first known mistake that gives every failing outcome of a check, if one does.

    One small input can fit a mistake by chance (``v * d + 1`` and ``2 * v * d`` agree
    at (1, 1)); a hint is only shown when the mistake reproduces every failure, each
    in value and type or in the exception raised.
    """
    codes: list[str] | None = None
    for _, _, verdict in failed:
        codes = list(verdict.hints) if codes is None else [c for c in codes if c in verdict.hints]
        if not codes:
            return None
    return codes[0] if codes else None
