"""Grading one submission: build the cases, run them in the child, judge, score.

``grade()`` is the engine's entry point.  ``Grading`` holds one run: the lab it grades
against, the cases, the child's outcomes and the verdicts; ``checks`` and ``scoring``
hold its two halves.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from grader.engine.grading import printed, reading, selection
from grader.engine.grading.calls import judge
from grader.engine.grading.checks import Judging
from grader.engine.grading.runoptions import Options, UsageError, new_seed, selected
from grader.engine.grading.scoring import Draft, default_report_dir, shown_path
from grader.engine.grading.worker import Worker
from grader.engine.lab import ReportStep, find
from grader.engine.sandbox import (
    MAX_MODULE,
    MAX_SECONDS_FACTOR,
    Call,
    Loaded,
    Outcome,
    Sandbox,
    Written,
    answer_limit,
    prepare,
    twice,
)
from grader.engine.vocabulary.contract import REPORT
from grader.engine.vocabulary.expect import Case, Check, Open, Verdict
from grader.engine.vocabulary.results import Report

__all__ = ["Draft", "Grading", "Options", "UsageError", "grade", "new_seed", "selected"]


def grade(
    path: str | os.PathLike[str],
    *,
    seed: int | None = None,
    report_dir: str | os.PathLike[str] | None = None,
    python: str | None = None,
    timeout: float = 3.0,
    only: Sequence[str] = (),
    upto: int | None = None,
    lang: str = "en",
    check_reports: bool = True,
    isolation: str = "process",
    student_root: str | os.PathLike[str] | None = None,
    single_file: bool = False,
    within: str | os.PathLike[str] | None = None,
    max_seconds: float | None = None,
    lab: str | None = None,
) -> Report:
    """Grade the module at ``path`` and return the report (see ``grader.engine.vocabulary.results``).

    With ``student_root`` (the student's folder), paths in the report, the replay
    commands and the snippets are written relative to it.  ``single_file`` marks a
    submission made of the module alone: it is shown as ``embed.py`` and its report
    checks fail with a message that says why, not with a path.  A ``--check``
    (``only``) that selects no check raises ``UsageError``.

    With ``within`` (a batch, the Gradescope runner) the module and the report files
    must be regular files inside that folder, reached without a symbolic link on the
    way: a link anywhere is refused with a ``UsageError``.  Without it, a link the
    user names as the module is followed; report files are read only when they are
    regular files in every case.
    ``upto`` (default: the lab's last step) grades steps 1..upto only.
    ``lab`` names the lab (``grader/labs/NAME``) or its folder; the default is
    ``embed``.  ``max_seconds`` caps the time of everything done with the module (reading
    it, starts, imports, calls, restarts); the default is ten per-call time limits.
    """
    chosen = find(lab)
    if upto is None:
        upto = max(chosen.steps)
    wrong = selection.problem(chosen, only, upto, check_reports)
    if wrong is not None:
        raise UsageError(wrong[0], **wrong[1])
    opts = Options(
        seed=new_seed() if seed is None else seed,
        report_dir=Path(report_dir) if report_dir is not None else None,
        python=python,
        timeout=timeout,
        only=tuple(only),
        upto=upto,
        lang=lang,
        check_reports=check_reports,
        isolation=isolation,
        student_root=Path(student_root) if student_root is not None else None,
        single_file=single_file,
        within=Path(within) if within is not None else None,
        max_seconds=max_seconds,
        lab=chosen.spec,
    )
    # A shortage of the machine is tried once more, then raised as a MachineFault.
    return twice(lambda: Grading(Path(path), opts).run())


def _run_and_tell(
    box: Sandbox,
    calls: Sequence[Call],
    answers: queue.SimpleQueue[Any],
    sent: threading.Event,
    place: Callable[[Outcome], Outcome],
) -> list[Outcome]:
    """Run the calls, each answer (``place``d) put on ``answers`` as it arrives; None when
    done.  ``sent`` is set once the child has the calls."""
    try:
        return [place(o) for o in box.run(calls, lambda o: answers.put(place(o)), sent.set)]
    finally:
        sent.set()
        answers.put(None)


class Grading(Judging):
    """One submission graded against one lab: ``Grading(path, opts).run()``."""

    def __init__(self, path: Path, opts: Options) -> None:
        started = time.perf_counter()  # reading it (a notebook's cells) is its own time
        self.source, self.cells = reading.read(path, opts.within)
        self.read_seconds = time.perf_counter() - started
        self.placed = {}
        if self.source is not None and len(self.source) > MAX_MODULE:
            raise UsageError("batch.unreadable", error="larger than %d bytes" % MAX_MODULE)
        if opts.within is not None and opts.check_reports:
            reading.check_report_dir(opts.report_dir or path.parent, opts.within)
        self.path = path
        self.opts = opts
        self.lab = find(opts.lab)
        self.shown = shown_path(path, opts, self.lab)
        self.drafts: list[Draft] = []
        self.grader_error = ""
        self.uses: dict[str, set[str]] = {}  # function -> what its calls called
        # function -> (arguments, answered right) of every call judged
        self.seen: dict[str, list[tuple[tuple[Any, ...], bool]]] = {}
        self.verdicts: dict[int, Verdict | None] = {}  # call id -> its verdict
        self.hung: dict[str, Case] = {}  # function -> its first call that ran out of time

    def run(self) -> Report:
        start = time.perf_counter()
        # An inputs check watches the calls of its function's other checks, and a
        # function's checks wait for its gate check (``Lab.gate``) to pass.
        gated = {
            c.function
            for c in self.lab.checks
            if self.lab.gate and selected(c.id, c.function, c.step, self.opts)
        }
        checks = [
            c
            for c in self.lab.checks
            if selected(c.id, c.function, c.step, self.opts)
            or selected("%s.inputs" % c.function, c.function, c.step, self.opts)
            or (c.function in gated and c.id == "%s.%s" % (c.function, self.lab.gate))
        ]
        with (
            Sandbox(
                self.path,
                python=self.opts.python,
                timeout=self.opts.timeout,
                isolation=self.opts.isolation,
                source=self.source,
                names=tuple(n.name for n in self.lab.names),
                constants=[n.name for n in self.lab.names if n.is_constant],
                max_seconds=max(
                    (self.opts.max_seconds or MAX_SECONDS_FACTOR * self.opts.timeout)
                    - self.read_seconds,
                    0.001,
                ),
                module_file=self.lab.module_file,
            ) as box,
            Worker() as child,
        ):
            # The child starts and imports the module while the cases are drawn and
            # their arguments encoded; it runs the calls (those measuring the report's
            # figures among them) while the report step gets ready here and each answer
            # is judged as it arrives, then the report writer while the last answers
            # are judged.  The child is closed while the report is graded.
            try:
                # Started from the worker, each step would wait for this busy thread.
                box.spawn()
                loading = child.submit(box.load)
                plan = self.lab.cases(self.opts.seed, tuple(c.id for c in checks))
                prepare(case.args for _, cases in plan for case in cases)
                limits = [[answer_limit(case.expect.bound()) for case in cs] for _, cs in plan]
                loaded = loading.result()
                self.module_checks(loaded)
                calls, index = self.calls(plan, loaded, limits)
                report = self.lab.report
                reporting = report is not None and self.reporting(report)
                first = len(calls)
                if report is not None and reporting and loaded.ok:
                    calls += report.calls(first)
                answers: queue.SimpleQueue[Outcome | None] = queue.SimpleQueue()
                sent = threading.Event()
                running = child.submit(_run_and_tell, box, calls, answers, sent, self.place)
                writing = None
                if report is not None and reporting and loaded.ok:
                    limit = report.writer_timeouts * self.opts.timeout
                    writing = child.submit(
                        box.write_report, report.files, fn=report.writer, timeout=limit
                    )
                report_dir = None
                if report is not None and reporting:
                    sent.wait()  # loading the checks would slow the thread sending calls
                    report.prepare()
                    report_dir = self.opts.report_dir or default_report_dir(self.path, report.files)
                early = self.judge_arriving(plan, index, answers)
                outcomes = running.result()
                by_id = {o.id: o for o in outcomes}
                self.judge_calls(plan, index, by_id, early)
                # While the child runs the report writer: the figures the functions
                # gave, and each check's verdict.
                measured: Any = {}
                if report is not None and report_dir is not None and loaded.ok:
                    measured = report.measure(outcomes[first:], loaded.names)
                for o in outcomes:
                    self.uses.setdefault(o.fn, set()).update(o.called)
                checked = [
                    self.judge_check(check, cases, loaded, index, by_id)
                    for check, cases in plan
                    if selected(check.id, check.function, check.step, self.opts)
                ]
                written = writing.result() if writing is not None else Written("not loaded", {})
                stats = (box.calls, box.child_seconds, box.exposed)
                said = printed.collect(outcomes, loaded.output)
                child.submit(box.close)
            except BaseException:
                # Stopping (SIGTERM, say): kill the child now, so that the thread
                # talking to it ends at once rather than after its calls.
                box.abort()
                raise
            if report is not None and report_dir is not None:
                self.report_checks(report, written, measured, report_dir)
            self.drafts += checked
            self.inputs_checks(plan, loaded, index, by_id)
            self.gate_checks(plan, loaded, index, by_id)
            self.attribute()
            results = self.score()
        return Report(
            path=str(self.shown) if self.shown is not None else str(self.path),
            seed=self.opts.seed,
            checks=tuple(results),
            elapsed=time.perf_counter() - start,
            child_time=stats[1],
            calls=stats[0],
            grader_error=self.grader_error,
            meta={
                "lang": self.opts.lang,
                "upto": self.opts.upto,
                "lab": self.lab.spec,
                "constants": list(self.lab.constants),
                "printed": said,
                "notebook": self.cells.notes(self.lab.names) if self.cells is not None else None,
                "exposed": stats[2],  # a user of its own that could read the grader
            },
        )

    def reporting(self, report: ReportStep) -> bool:
        """Are report checks selected?  (The catalogue is read only when a selection
        needs it.)"""
        if not self.opts.check_reports or self.opts.upto < report.step:
            return False
        if not self.opts.only:
            return True
        return any(
            selected(e.id, REPORT, report.step, self.opts)
            for e in selection.catalogue(self.lab)
            if e.function == REPORT
        )

    def calls(
        self,
        plan: Sequence[tuple[Check, Sequence[Case]]],
        loaded: Loaded,
        limits: Sequence[Sequence[int]],
    ) -> tuple[list[Call], dict[tuple[str, int], int]]:
        """One Call per case of every function that the module defines; ``limits``
        holds the answer's byte limit of each case, in the plan's order."""
        calls: list[Call] = []
        index: dict[tuple[str, int], int] = {}
        if not loaded.ok:
            return calls, index
        for (check, cases), bytes_at_most in zip(plan, limits, strict=True):
            if loaded.names.get(check.function) != "function":
                continue
            for i, case in enumerate(cases):
                index[(check.id, i)] = len(calls)
                calls.append(
                    Call(
                        len(calls),
                        case.fn,
                        case.args,
                        case.count,
                        bytes_at_most[i],
                        case.before,
                        case.renew,
                    )
                )
        return calls, index

    def judge_arriving(
        self,
        plan: Sequence[tuple[Check, Sequence[Case]]],
        index: dict[tuple[str, int], int],
        answers: queue.SimpleQueue[Outcome | None],
    ) -> dict[int, tuple[Outcome, Verdict | None]]:
        """Judge each answer as the child sends it, until the run ends (None)."""
        cases = {
            index[(check.id, i)]: case
            for check, cs in plan
            for i, case in enumerate(cs)
            if (check.id, i) in index  # a function the module does not define is not called
        }
        early: dict[int, tuple[Outcome, Verdict | None]] = {}
        while True:
            outcome = answers.get()
            if outcome is None:
                return early
            case = cases.get(outcome.id)
            if case is not None:
                early[outcome.id] = (
                    outcome,
                    judge(case, outcome, self.opts.timeout, self.lab.hints),
                )

    def judge_calls(
        self,
        plan: Sequence[tuple[Check, Sequence[Case]]],
        index: dict[tuple[str, int], int],
        by_id: dict[int, Outcome],
        early: dict[int, tuple[Outcome, Verdict | None]] | None = None,
    ) -> None:
        """Judge every call once (those judged on arrival are not judged again); note
        which arguments each function answered right, in the order of the plan."""
        early = early or {}
        for check, cases in plan:
            for i, case in enumerate(cases):
                outcome = by_id.get(index.get((check.id, i), -1))
                if outcome is None:
                    continue
                judged = early.get(outcome.id)
                if judged is not None and judged[0] is outcome:
                    verdict = judged[1]
                else:
                    verdict = judge(case, outcome, self.opts.timeout, self.lab.hints)
                self.verdicts[outcome.id] = verdict
                if outcome.kind == "timeout":
                    self.hung.setdefault(case.fn, case)  # the plan's order is the calls' order
                if outcome.kind in ("returned", "raised") and not isinstance(case.expect, Open):
                    right = verdict is None and not outcome.mutated
                    self.seen.setdefault(case.fn, []).append((case.args, right))

    def report_checks(
        self, report: ReportStep, written: Written, measured: Any, report_dir: Path
    ) -> None:
        """The report step: what the module's writer wrote, and the files in ``report_dir``."""
        if written.traceback:
            written = replace(written, traceback=self.portable(written.traceback) or "")
        if self.cells is not None:
            written = replace(written, raised=self.cells.place(written.raised))
        findings = report.grade(
            written,
            measured,
            report_dir,
            self.opts.lang,
            self.opts.timeout,
            where=self.shown_dir(report_dir),
            single_file=self.opts.single_file,
            notebook=self.cells is not None,
        )
        for d in findings:
            if d.code == "report.grader_fault":
                # The grader's own files are broken: nobody loses points for that.
                self.grader_error = d.message
                return
        for d in findings:
            if not selected(d.id, REPORT, report.step, self.opts):
                continue
            self.drafts.append(
                Draft(
                    d.id,
                    report.step,
                    REPORT,
                    d.status,
                    d.message,
                    d.weight,
                    code=d.code,
                    replay=True,  # every failure has its replay line
                    called=set(d.called),
                    details=dict(d.details),
                )
            )
