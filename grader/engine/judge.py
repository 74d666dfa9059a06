"""Judging one call: the outcome from the child against the expectation in the parent."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from grader.engine import show
from grader.engine.compare import Mismatch, diff, type_name
from grader.engine.results import Status
from grader.engine.sandbox import Foreign, Outcome
from grader.labs.embed import hints, oracle
from grader.labs.embed.checks import Case, Multiplies, Open, Raises, Ranks, Returns


@dataclass(frozen=True)
class Verdict:
    """Why one case failed: a status, a message code and its parameters."""

    status: Status
    code: str
    params: dict[str, Any] = field(default_factory=dict)
    hint: str | None = None


def _raised(outcome: Outcome) -> dict[str, Any]:
    assert outcome.raised is not None
    return {"raised": outcome.raised.type, "error": show.short(outcome.raised.message, 200)}


def _raised_code(outcome: Outcome) -> str:
    """The message names the student's line when the traceback passed through the file."""
    assert outcome.raised is not None
    return "raised" if outcome.raised.line is None else "raised_at"


def _where(outcome: Outcome) -> dict[str, Any]:
    assert outcome.raised is not None
    return {"line": outcome.raised.line, "func": outcome.raised.function}


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


def judge(case: Case, outcome: Outcome, timeout: float = 3.0) -> Verdict | None:
    """None when the case passed, otherwise a Verdict saying why not."""
    expect = case.expect
    if isinstance(expect, Open):
        return None
    if outcome.kind == "returned" and isinstance(expect, Ranks):
        return _judge_ranking(case, expect, outcome.value)
    if outcome.kind == "returned" and isinstance(expect, (Returns, Multiplies)):
        # The common case, a right answer: settle it before building any text.
        if diff(expect.kind, expect.value, outcome.value) is None:
            return None
    base: dict[str, Any] = {"call": show.call(case.fn, case.args), "fn": case.fn}
    if outcome.kind == "timeout":
        return Verdict(Status.TIMEOUT, "timeout", dict(base, seconds="%g" % timeout))
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
        if isinstance(expect, Raises):
            if outcome.raised.is_a(expect.exc):
                return None
            return Verdict(
                Status.FAIL, "wrong_raise", dict(base, exc=expect.exc, **_raised(outcome))
            )
        return Verdict(
            Status.ERROR,
            _raised_code(outcome),
            dict(base, **_raised(outcome), **_where(outcome)),
            hints.guess_raised(case.fn, outcome.raised.type),
        )
    got = outcome.value
    if isinstance(expect, Raises):
        return Verdict(
            Status.FAIL,
            "no_raise",
            dict(base, exc=expect.exc, got=show.short(got)),
            hints.guess_raise(case.fn, case.args, got),
        )
    assert isinstance(expect, (Returns, Multiplies))
    m = diff(expect.kind, expect.value, got)
    if m is not None and isinstance(expect, Multiplies) and m.reason == "nan":
        return _no_product(base, expect, m, outcome.mults)
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
            hints.guess(case.fn, case.args, got),
        )
    return None


def _no_product(
    base: dict[str, Any], expect: Multiplies, m: Mismatch, mults: int | None
) -> Verdict:
    """A finite value where the product gives nan: the infinity of that column was
    never multiplied into the answer."""
    column = int(m.path.rsplit("[", 1)[-1].rstrip("]")) if m.path else 0
    row = next((r for r, c in expect.probes if c == column), -1)
    params = dict(
        base,
        path=m.path,
        got=show.short(m.got),
        row=row,
        column=column,
        mults=mults or 0,
        needed=expect.at_least,
    )
    # The count cannot fail anyone (a table copied with float() is not counted); it
    # only tells apart a product that is done and then thrown away.
    code = "no_product_counted" if (mults or 0) >= expect.at_least else "no_product"
    return Verdict(Status.FAIL, code, params)


def _judge_ranking(case: Case, expect: Ranks, got: Any) -> Verdict | None:
    table, probe, k = case.args
    if isinstance(got, Foreign) and got.base in ("list", "tuple"):
        got = got.value
    ranking = oracle.Ranking(table, probe, expect.by)

    def fail(code: str, **more: Any) -> Verdict:
        params = {
            "call": show.call(case.fn, case.args),
            "fn": case.fn,
            "expected": show.short(ranking.nearest(k)),
            "got": show.short(got),
        }
        return Verdict(
            Status.FAIL, code, dict(params, **more), hints.guess(case.fn, case.args, got)
        )

    if not isinstance(got, (list, tuple)) or any(type(i) is not int for i in got):
        return fail("neigh_type")
    if len(got) != min(k, len(table) - 1):
        return fail("neigh_len", expected=min(k, len(table) - 1), n=len(got))
    for i in got:
        if not 0 <= i < len(table):
            return fail("neigh_range", index=i, last=len(table) - 1)
    if probe in got:
        return fail("neigh_self", probe=probe)
    if len(set(got)) != len(got):
        return fail("neigh_dup", index=next(i for i in got if list(got).count(i) > 1))

    def score(i: int) -> str:
        return show.number(ranking.scores[i])

    for x in range(len(got)):
        for y in range(x + 1, len(got)):
            a, b = got[x], got[y]
            if ranking.must_precede(b, a):
                code = "neigh_tie" if ranking.tied(a, b) else "neigh_order"
                return fail(code, a=a, b=b, sa=score(a), sb=score(b))
    # Every row left out must not belong ahead of one listed.  Rows scoring clearly
    # below the lowest listed score need no closer look.
    floor = min((ranking.scores[x] for x in got), default=float("inf"))
    chosen = set(got)
    for z in range(len(table)):
        if z == probe or z in chosen:
            continue
        if ranking.scores[z] < floor and not oracle.close(ranking.scores[z], floor):
            continue
        for x in got:
            if ranking.must_precede(z, x):
                if ranking.tied(z, x):
                    return fail("neigh_tie", a=z, b=x, sa=score(z), sb=score(x))
                return fail("neigh_missing", z=z, x=x, sz=score(z), sx=score(x))
    return None
