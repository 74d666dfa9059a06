"""Judging a submission's checks: its import and constants, each check's cases, the
untouched arguments, and what the contract leaves open."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from grader.engine.grading import gates
from grader.engine.grading.calls import explained, judge
from grader.engine.grading.importing import load_draft
from grader.engine.grading.runoptions import selected
from grader.engine.grading.scoring import Draft, Scoring
from grader.engine.lab import Lab
from grader.engine.sandbox import Loaded, Outcome
from grader.engine.vocabulary import show
from grader.engine.vocabulary.contract import MODULE
from grader.engine.vocabulary.expect import Case, Check, Open, Verdict
from grader.engine.vocabulary.results import Status

# Calls that were not run because of another call (one that hung, or the time that ran
# out): the call that caused them is the one worth showing.
NOT_RUN = frozenset({"skipped", "skipped_callee", "budget_spent", "budget_spent_fn"})


class Judging(Scoring):
    """The verdicts of a ``Grading``: one ``Draft`` per check (``Scoring`` shares out
    the points)."""

    seen: dict[str, list[tuple[tuple[Any, ...], bool]]]
    verdicts: dict[int, Verdict | None]
    hung: dict[str, Case]  # function -> its first call that ran out of time

    def module_checks(self, loaded: Loaded) -> None:
        if selected("imports.load", MODULE, 0, self.opts):
            self.drafts.append(load_draft(loaded, self.msg, self.portable, self.opts.timeout))
        if selected("imports.stdlib", MODULE, 0, self.opts):
            if loaded.third_party:
                self.drafts.append(
                    Draft(
                        "imports.stdlib",
                        0,
                        MODULE,
                        Status.FAIL,
                        self.msg("third_party", names=", ".join(loaded.third_party)),
                        code="third_party",
                    )
                )
            else:
                self.drafts.append(
                    Draft(
                        "imports.stdlib",
                        0,
                        MODULE,
                        Status.PASS,
                        self.msg("stdlib_ok"),
                        replay=False,
                    )
                )
        for name, expected in self.lab.constants.items():
            cid = "%s.value" % name
            step = self.lab.by_name[name].step
            if not selected(cid, name, step, self.opts):
                continue
            got = loaded.names.get(name, "missing") if loaded.ok else "missing"
            if got == "missing":
                d = Draft(
                    cid,
                    step,
                    name,
                    Status.FAIL if loaded.ok else Status.SKIP,
                    self.msg("missing" if loaded.ok else "not_loaded", fn=name),
                    code="missing" if loaded.ok else "not_loaded",
                    replay=loaded.ok,
                )
            elif type(got) is not int:
                d = Draft(
                    cid,
                    step,
                    name,
                    Status.FAIL,
                    self.msg(
                        "constant_type",
                        name=name,
                        got=show.short(got),
                        got_type=show.type_name(got),
                        expected=expected,
                    ),
                    code="constant_type",
                )
            elif got != expected:
                d = Draft(
                    cid,
                    step,
                    name,
                    Status.FAIL,
                    self.msg("constant", name=name, got=got, expected=expected),
                    code="constant",
                )
            else:
                d = Draft(
                    cid,
                    step,
                    name,
                    Status.PASS,
                    self.msg("constant_ok", name=name, expected=expected),
                )
            self.drafts.append(d)

    def cleared(self, callee: str, args: tuple[Any, ...]) -> bool:
        """Was ``callee`` seen answering right, and never wrong, on arguments made of
        ``args`` (``rms(v)`` calls ``dot(v, v)``)?"""
        verdicts = [
            right
            for theirs, right in self.seen.get(callee, ())
            if theirs and all(any(a == b for b in args) for a in theirs)
        ]
        return bool(verdicts) and all(verdicts)

    def explainers(self, function: str, case: Case, outcome: Outcome, verdict: Verdict) -> set[str]:
        """The functions entered by a failing call whose own failure could have caused it.

        A wrong value may come from any function the call used.  A neighbour list that
        breaks a rule of its form (the probe listed, a repeat, the wrong length) does not
        follow from a wrong score.  An exception raised in the function's own frame
        follows from a callee only if that callee may have answered it wrongly: not when
        it was seen answering right on the same arguments (``rms([])`` dividing by
        zero after ``dot([], [])`` gave the right 0.0).
        """
        if verdict.own:
            return set()
        called = set(outcome.called)
        raised = outcome.raised
        if raised is not None and raised.type != "_Stopped" and raised.function == function:
            return {name for name in called if not self.cleared(name, case.args)}
        return called

    def absent(self, function: str, loaded: Loaded) -> str | None:
        """The message code when the function cannot be called at all."""
        if not loaded.ok:
            return "not_loaded"
        state = loaded.names.get(function, "missing")
        if state == "function":
            return None
        return "missing" if state == "missing" else "not_callable"

    def judge_check(
        self,
        check: Check,
        cases: Sequence[Case],
        loaded: Loaded,
        index: dict[tuple[str, int], int],
        by_id: dict[int, Outcome],
    ) -> Draft:
        absent = self.absent(check.function, loaded)
        if absent is not None:
            status = Status.SKIP if absent == "not_loaded" else Status.FAIL
            got = loaded.names.get(check.function)
            return Draft(
                check.id,
                check.step,
                check.function,
                status,
                self.msg(absent, fn=check.function, got=show.short(got)),
                check.weight,
                code=absent,
                advisory=check.advisory,
                replay=False,
            )
        outcomes = [by_id.get(index.get((check.id, i), -1)) for i in range(len(cases))]
        if check.advisory:
            return self.advisory(check, cases, outcomes)
        failed: list[tuple[Case, Outcome, Verdict]] = []
        # Blame passes to a callee only when it could explain every failing case.
        called: set[str] | None = None
        for case, outcome in zip(cases, outcomes):
            if outcome is None:
                continue
            verdict = self.verdicts.get(outcome.id)
            if outcome.id not in self.verdicts:
                verdict = judge(case, outcome, self.opts.timeout, self.lab.hints)
            if verdict is not None:
                could = self.explainers(check.function, case, outcome, verdict)
                called = could if called is None else called & could
                failed.append((case, outcome, verdict))
        if not failed:
            return Draft(
                check.id,
                check.step,
                check.function,
                Status.PASS,
                self.msg("pass", n=len(cases)),
                check.weight,
                replay=False,
            )
        # The smallest input that shows the mistake is the one worth reading; calls
        # not run because of another come after every call that did run.
        first = min(failed, key=lambda f: (f[2].code in NOT_RUN, f[0].size))
        case, outcome, verdict = first
        if (
            outcome.raised is not None
            and outcome.raised.type == "NotImplementedError"
            and outcome.called
        ):
            # Started, but it leans on a function that is not written yet.
            return Draft(
                check.id,
                check.step,
                check.function,
                Status.ERROR,
                self.msg("needs_unstarted", fn=check.function, names=", ".join(outcome.called)),
                check.weight,
                code="needs_unstarted",
                replay=False,
            )
        if outcome.raised is not None and outcome.raised.type == "NotImplementedError":
            return Draft(
                check.id,
                check.step,
                check.function,
                Status.SKIP,
                self.msg("not_started", fn=check.function),
                check.weight,
                code="not_started",
                replay=False,
            )
        hint = explained(failed)
        details: dict[str, Any] = {"case": case.shown}
        code, params = verdict.code, verdict.params
        hung = self.hung.get(case.fn)
        if code == "skipped" and hung is not None:
            # Not run because another call of the function hung: name that call.
            code = "skipped_hung"
            params = dict(params, hung=hung.shown, seconds="%g" % self.opts.timeout)
        # A call that did not finish, or one that may not either, stops by itself.
        limit = None
        if verdict.status is Status.TIMEOUT or code in NOT_RUN:
            limit = self.opts.timeout
        snippet = show.snippet(case.fn, case.args, self.path, shown=self.shown, limit=limit)
        if snippet and case.before is None:  # a second call is not made alone
            details["snippet"] = snippet
        message = self.msg(code, **params)
        if case.before is not None:
            before = show.call(case.fn, case.before)
            message = self.msg("again." + case.renew, message=message, before=before)
        return Draft(
            check.id,
            check.step,
            check.function,
            verdict.status,
            message,
            check.weight,
            code=code,
            hint=self.msg(hint) if hint else "",
            called=called or set(),
            details=details,
        )

    def advisory(
        self, check: Check, cases: Sequence[Case], outcomes: list[Outcome | None]
    ) -> Draft:
        notes = []
        for case, outcome in zip(cases, outcomes):
            if outcome is None or not isinstance(case.expect, Open):
                continue
            params: dict[str, Any] = {"call": case.shown}
            if outcome.kind == "returned":
                notes.append(self.msg("open_returned", got=show.short(outcome.value), **params))
            elif outcome.kind == "raised" and outcome.raised is not None:
                notes.append(self.msg("open_raised", raised=outcome.raised.type, **params))
            else:
                notes.append(
                    self.msg("open_other", detail=outcome.detail or outcome.kind, **params)
                )
        about = self.msg(cases[0].expect.about) if isinstance(cases[0].expect, Open) else ""
        ran = [o for o in outcomes if o is not None]
        idle = bool(ran) and all(
            o.raised is not None and o.raised.type == "NotImplementedError" for o in ran
        )
        return Draft(
            check.id,
            check.step,
            check.function,
            Status.ADVISORY,
            self.msg("open_note", about=about, notes="; ".join(notes)),
            0,
            code="not_started" if idle else "",  # nothing was tried
            advisory=True,
            replay=False,
        )

    def inputs_checks(
        self,
        plan: Sequence[tuple[Check, Sequence[Case]]],
        loaded: Loaded,
        index: dict[tuple[str, int], int],
        by_id: dict[int, Outcome],
    ) -> None:
        """One check per function with list arguments: no call may change them."""
        for function in self.lab.mutable_args:
            cid = "%s.inputs" % function
            step = self.lab.by_name[function].step
            if not selected(cid, function, step, self.opts):
                continue
            runs = [
                (case, by_id.get(index.get((check.id, i), -1)))
                for check, cases in plan
                if check.function == function
                for i, case in enumerate(cases)
            ]
            absent = self.absent(function, loaded)
            if absent is not None or not runs:
                if absent is not None:
                    self.drafts.append(
                        Draft(
                            cid,
                            step,
                            function,
                            Status.SKIP if absent == "not_loaded" else Status.FAIL,
                            self.msg(absent, fn=function, got=""),
                            code=absent,
                            replay=False,
                        )
                    )
                continue
            answered = [
                (c, o) for c, o in runs if o is not None and o.kind in ("returned", "raised")
            ]
            if answered and all(
                o.raised is not None and o.raised.type == "NotImplementedError" for _, o in answered
            ):
                self.drafts.append(
                    Draft(
                        cid,
                        step,
                        function,
                        Status.SKIP,
                        self.msg("not_started", fn=function),
                        code="not_started",
                        replay=False,
                    )
                )
                continue
            bad = [(c, o) for c, o in answered if o.mutated]
            if not bad:
                self.drafts.append(
                    Draft(
                        cid,
                        step,
                        function,
                        Status.PASS,
                        self.msg("inputs_ok", n=len(answered)),
                        replay=False,
                    )
                )
                continue
            case, outcome = min(bad, key=lambda co: len(co[0].shown))
            called = {n for _, o in bad for n in o.called}
            self.drafts.append(
                Draft(
                    cid,
                    step,
                    function,
                    Status.FAIL,
                    self.msg(
                        "mutated",
                        call=case.shown,
                        where=argument_path(self.lab, function, outcome.mutated or ""),
                    ),
                    code="mutated",
                    hint=self.msg(self.lab.hints.guess_mutated(function) or "hint.inputs"),
                    called=called,
                    details={"case": case.shown},
                )
            )

    def gate_checks(
        self,
        plan: Sequence[tuple[Check, Sequence[Case]]],
        loaded: Loaded,
        index: dict[tuple[str, int], int],
        by_id: dict[int, Outcome],
    ) -> None:
        """Passes that wait for their function's gate check (``grader.engine.grading.gates``)."""
        gated = gates.waiting(self.drafts, plan, self.lab.gate, self.lab.mutable_args)
        judge = functools.partial(self.judge_check, loaded=loaded, index=index, by_id=by_id)
        for d, gate in gated:
            if not gates.passes(gate, self.drafts, plan, judge):
                d.withheld = self.msg("idle.values", check=gate)


def argument_path(lab: Lab, function: str, path: str) -> str:
    """``args[0][3]`` as the student names it: ``table[3]``."""
    match = re.match(r"args\[(\d+)\]", path)
    params = lab.by_name[function].params or ()
    if match and int(match.group(1)) < len(params):
        return params[int(match.group(1))] + path[match.end() :]
    return path
