"""Grading one submission: build the cases, run them in the child, judge, score."""

from __future__ import annotations

import os
import random
import re
import shlex
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import Any

from grader.engine import safefs, selection, show
from grader.engine.judge import Verdict, judge
from grader.engine.messages import text
from grader.engine.results import CheckResult, Report, Status
from grader.engine.sandbox import MAX_MODULE, Call, Loaded, Outcome, Sandbox, Written, answer_limit
from grader.labs.embed import cases as gen
from grader.labs.embed import fromcode, hints, reportstep
from grader.labs.embed.checks import (
    CHECKS,
    MUTABLE_ARGS,
    Case,
    Check,
    Multiplies,
    Open,
    Ranks,
    Returns,
)
from grader.labs.embed.checks import plan as cases_for
from grader.labs.embed.contract import (
    BY_NAME,
    CONSTANTS,
    MODULE,
    NAMES,
    REPORT,
    REPORT_JSON,
    REPORT_MD,
    STEP_POINTS,
)

MODULE_FILE = "embed.py"  # what the student's module is called in their own folder


class UsageError(Exception):
    """The grader cannot grade at all (bad arguments, missing file): exit status 2.

    ``code`` and ``params`` name the message in the catalogue.
    """

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(text(code, "en", **params))
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Options:
    seed: int
    report_dir: Path | None = None
    python: str | None = None
    timeout: float = 3.0
    only: tuple[str, ...] = ()
    upto: int = 8
    lang: str = "en"
    check_reports: bool = True
    isolation: str = "process"
    command: str = "embed-grader"
    # Feedback read elsewhere (a class's batch, Gradescope) names files as the student
    # sees them: relative to their folder, never by the grading machine's paths.
    student_root: Path | None = None
    single_file: bool = False  # handed in as one file: it has no report files
    within: Path | None = None  # read only regular files below this folder, no link
    max_seconds: float | None = None  # the submission's time cap (None: the sandbox's default)


@dataclass
class Draft:
    """A check's verdict before points are shared out."""

    id: str
    step: int
    function: str
    status: Status
    message: str
    weight: int = 1
    code: str = ""
    hint: str = ""
    advisory: bool = False
    caused_by: tuple[str, ...] = ()
    called: set[str] = field(default_factory=set)  # used by the failing calls
    details: dict[str, Any] = field(default_factory=dict)
    replay: bool = True


def new_seed() -> int:
    return random.SystemRandom().randrange(1, 10**9)


def selected(check_id: str, function: str, step: int, opts: Options) -> bool:
    if step > opts.upto:
        return False
    if not opts.only:
        return True
    return any(selection.matches(o, check_id, function) for o in opts.only)


def grade(
    path: str | os.PathLike[str],
    *,
    seed: int | None = None,
    report_dir: str | os.PathLike[str] | None = None,
    python: str | None = None,
    timeout: float = 3.0,
    only: Sequence[str] = (),
    upto: int = 8,
    lang: str = "en",
    check_reports: bool = True,
    isolation: str = "process",
    student_root: str | os.PathLike[str] | None = None,
    single_file: bool = False,
    within: str | os.PathLike[str] | None = None,
    max_seconds: float | None = None,
) -> Report:
    """Grade the module at ``path`` and return the report (see ``grader.engine.results``).

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
    ``max_seconds`` caps the time of everything done with the module (starts,
    imports, calls, restarts); the default is ten per-call time limits.
    """
    wrong = selection.problem(only, upto, check_reports)
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
    )
    return Grading(Path(path), opts).run()


def read_submission(path: Path, within: Path | None) -> bytes | None:
    """The module's bytes read without following a link, when ``within`` is given
    (None otherwise: the sandbox reads the path given); a ``UsageError`` when it is
    not a regular file reached without a link."""
    if within is None:
        if not path.is_file():
            raise UsageError("cli.no_file", path=path)
        return None
    try:
        return safefs.read_below(str(within), str(path), MAX_MODULE + 1).data
    except safefs.NotRegular as exc:
        raise _refused(exc, within) from None
    except (ValueError, FileNotFoundError, NotADirectoryError):
        raise UsageError("cli.no_file", path=path) from None
    except OSError as exc:
        raise UsageError("batch.unreadable", error=exc.strerror or str(exc)) from None


def check_report_dir(folder: Path, within: Path | None) -> None:
    """A ``UsageError`` when a link stands between ``within`` and ``folder``."""
    if within is None:
        return
    try:
        safefs.check_dir_below(str(within), str(folder))
    except safefs.NotRegular as exc:
        raise _refused(exc, within) from None
    except (ValueError, OSError):
        pass  # outside or missing: the report checks say the files are not there


def _refused(exc: safefs.NotRegular, within: Path) -> UsageError:
    """The refusal, naming the file as the student has it: inside their folder."""
    shown = os.path.relpath(exc.filename, within)
    if exc.strerror == "a symbolic link":
        return UsageError("submission.link", path=shown)
    return UsageError("submission.special", path=shown, kind=exc.strerror)


class Grading:
    def __init__(self, path: Path, opts: Options) -> None:
        self.source = read_submission(path, opts.within)
        if self.source is not None and len(self.source) > MAX_MODULE:
            raise UsageError("batch.unreadable", error="larger than %d bytes" % MAX_MODULE)
        if opts.within is not None and opts.check_reports:
            check_report_dir(opts.report_dir or path.parent, opts.within)
        self.path = path
        self.opts = opts
        self.shown = shown_path(path, opts)
        self.drafts: list[Draft] = []
        self.grader_error = ""
        self.uses: dict[str, set[str]] = {}  # function -> what its calls called
        # function -> (arguments, answered right) of every call judged
        self.seen: dict[str, list[tuple[tuple[Any, ...], bool]]] = {}
        self.verdicts: dict[int, Verdict | None] = {}  # call id -> its verdict

    def msg(self, code: str, **params: Any) -> str:
        return text(code, self.opts.lang, **params)

    def run(self) -> Report:
        start = time.perf_counter()
        # An inputs check watches the calls of its function's other checks.
        checks = [
            c
            for c in CHECKS
            if selected(c.id, c.function, c.step, self.opts)
            or selected("%s.inputs" % c.function, c.function, c.step, self.opts)
        ]
        with (
            Sandbox(
                self.path,
                python=self.opts.python,
                timeout=self.opts.timeout,
                isolation=self.opts.isolation,
                source=self.source,
                max_seconds=self.opts.max_seconds,
            ) as box,
            ThreadPoolExecutor(max_workers=1) as child,
        ):
            # The child starts and imports the module while the cases are drawn, then
            # runs the calls (those that measure the report's figures among them) and
            # the module's report writer.
            try:
                loading = child.submit(box.load)
                plan = cases_for(self.opts.seed, tuple(c.id for c in checks))
                loaded = loading.result()
                self.module_checks(loaded)
                calls, index = self.calls(plan, loaded)
                reporting = self.opts.check_reports and any(
                    selected(e.id, REPORT, 8, self.opts)
                    for e in selection.catalogue()
                    if e.function == REPORT
                )
                first = len(calls)
                if reporting and loaded.ok:
                    calls += fromcode.calls(first)
                running = child.submit(box.run, calls)
                outcomes = running.result()
                written = Written("not loaded", {})
                if reporting and loaded.ok:
                    limit = reportstep.WRITER_TIMEOUTS * self.opts.timeout
                    written = box.write_report(reportstep.FILES, timeout=limit)
            except BaseException:
                # Stopping (SIGTERM, say): kill the child now, so that the thread
                # talking to it ends at once rather than after its calls.
                box.abort()
                raise
            stats = (box.calls, box.child_seconds)
        if reporting:
            measured = fromcode.measure(outcomes[first:], loaded.names) if loaded.ok else {}
            self.report_checks(written, measured)
        by_id = {o.id: o for o in outcomes}
        for o in outcomes:
            self.uses.setdefault(o.fn, set()).update(o.called)
        self.judge_calls(plan, index, by_id)
        for check, cases in plan:
            if selected(check.id, check.function, check.step, self.opts):
                self.drafts.append(self.judge_check(check, cases, loaded, index, by_id))
        self.inputs_checks(plan, loaded, index, by_id)
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
            meta={"lang": self.opts.lang, "upto": self.opts.upto},
        )

    # The module: imports, names, constants -----------------------------------------

    def module_checks(self, loaded: Loaded) -> None:
        if selected("imports.load", MODULE, 0, self.opts):
            if loaded.ok:
                d = Draft(
                    "imports.load",
                    0,
                    MODULE,
                    Status.PASS,
                    self.msg("import_ok", elapsed="%.2f" % loaded.elapsed),
                    replay=False,
                )
            elif loaded.error is None:
                d = Draft(
                    "imports.load",
                    0,
                    MODULE,
                    Status.ERROR,
                    self.msg(
                        "import_crashed",
                        detail=self.portable(loaded.traceback) or loaded.detail or "no answer",
                    ),
                    code="import_crashed",
                )
            else:
                d = Draft(
                    "imports.load",
                    0,
                    MODULE,
                    Status.ERROR,
                    self.msg(
                        "import_error",
                        raised=loaded.error.type,
                        error=show.short(loaded.error.message, 300),
                    ),
                    code="import_error",
                    details={"traceback": self.portable(loaded.traceback)},
                )
            if loaded.output:
                d.details["output"] = loaded.output
            self.drafts.append(d)
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
        for name, expected in CONSTANTS.items():
            cid = "%s.value" % name
            if not selected(cid, name, 1, self.opts):
                continue
            got = loaded.names.get(name, "missing") if loaded.ok else "missing"
            if got == "missing":
                d = Draft(
                    cid,
                    1,
                    name,
                    Status.FAIL if loaded.ok else Status.SKIP,
                    self.msg("missing" if loaded.ok else "not_loaded", fn=name),
                    code="missing" if loaded.ok else "not_loaded",
                    replay=loaded.ok,
                )
            elif type(got) is not int:
                d = Draft(
                    cid,
                    1,
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
                    1,
                    name,
                    Status.FAIL,
                    self.msg("constant", name=name, got=got, expected=expected),
                    code="constant",
                )
            else:
                d = Draft(
                    cid, 1, name, Status.PASS, self.msg("constant_ok", name=name, expected=expected)
                )
            self.drafts.append(d)

    # Calls ---------------------------------------------------------------------------

    def calls(
        self, plan: Sequence[tuple[Check, Sequence[Case]]], loaded: Loaded
    ) -> tuple[list[Call], dict[tuple[str, int], int]]:
        """One Call per case of every function that the module defines."""
        calls: list[Call] = []
        index: dict[tuple[str, int], int] = {}
        if not loaded.ok:
            return calls, index
        for check, cases in plan:
            if loaded.names.get(check.function) != "function":
                continue
            for i, case in enumerate(cases):
                index[(check.id, i)] = len(calls)
                calls.append(
                    Call(len(calls), case.fn, case.args, case.count, answer_limit(expected(case)))
                )
        return calls, index

    def judge_calls(
        self,
        plan: Sequence[tuple[Check, Sequence[Case]]],
        index: dict[tuple[str, int], int],
        by_id: dict[int, Outcome],
    ) -> None:
        """Judge every call once; note which arguments each function answered right."""
        for check, cases in plan:
            for i, case in enumerate(cases):
                outcome = by_id.get(index.get((check.id, i), -1))
                if outcome is None:
                    continue
                verdict = judge(case, outcome, self.opts.timeout)
                self.verdicts[outcome.id] = verdict
                if outcome.kind in ("returned", "raised") and not isinstance(case.expect, Open):
                    right = verdict is None and not outcome.mutated
                    self.seen.setdefault(case.fn, []).append((case.args, right))

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
        if verdict.code in OWN_RULES:
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
                verdict = judge(case, outcome, self.opts.timeout)
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
        # The smallest input that shows the mistake is the one worth reading.
        first = min(failed, key=lambda f: gen.sizes(f[0].args))
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
        hint = verdict.hint
        answers = [(c.fn, c.args, o.value) for c, o, _ in failed if o.kind == "returned"]
        if hint and len(answers) > 1:
            hint = hints.common(answers[:8]) or hint
        details: dict[str, Any] = {"case": show.call(case.fn, case.args)}
        snippet = show.snippet(case.fn, case.args, self.path, shown=self.shown)
        if snippet:
            details["snippet"] = snippet
        return Draft(
            check.id,
            check.step,
            check.function,
            verdict.status,
            self.msg(verdict.code, **verdict.params),
            check.weight,
            code=verdict.code,
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
            params: dict[str, Any] = {"call": show.call(case.fn, case.args)}
            if outcome.kind == "returned":
                notes.append(self.msg("open_returned", got=show.short(outcome.value), **params))
            elif outcome.kind == "raised" and outcome.raised is not None:
                notes.append(self.msg("open_raised", raised=outcome.raised.type, **params))
            else:
                notes.append(
                    self.msg("open_other", detail=outcome.detail or outcome.kind, **params)
                )
        about = self.msg(cases[0].expect.about) if isinstance(cases[0].expect, Open) else ""
        return Draft(
            check.id,
            check.step,
            check.function,
            Status.ADVISORY,
            self.msg("open_note", about=about, notes="; ".join(notes)),
            0,
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
        for function in MUTABLE_ARGS:
            cid = "%s.inputs" % function
            step = BY_NAME[function].step
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
            case, outcome = min(bad, key=lambda co: len(show.call(co[0].fn, co[0].args)))
            called = {n for _, o in bad for n in o.called}
            self.drafts.append(
                Draft(
                    cid,
                    step,
                    function,
                    Status.FAIL,
                    self.msg(
                        "mutated",
                        call=show.call(case.fn, case.args),
                        where=argument_path(function, outcome.mutated or ""),
                    ),
                    code="mutated",
                    hint=self.msg(hints.guess_mutated(function) or "hint.inputs"),
                    called=called,
                    details={"case": show.call(case.fn, case.args)},
                )
            )

    def report_checks(self, written: Written, measured: dict[str, fromcode.Measured]) -> None:
        """Step 8: what the module's writer wrote (see grader.labs.embed.reportstep)."""
        report_dir = self.opts.report_dir or default_report_dir(self.path)
        if written.traceback:
            written = replace(written, traceback=self.portable(written.traceback) or "")
        findings = reportstep.grade(
            written,
            measured,
            report_dir,
            self.opts.lang,
            self.opts.timeout,
            where=self.shown_dir(report_dir),
            single_file=self.opts.single_file,
        )
        for d in findings:
            if d.code == "report.grader_fault":
                # The grader's own files are broken: nobody loses points for that.
                self.grader_error = d.message
                return
        for d in findings:
            if not selected(d.id, REPORT, 8, self.opts):
                continue
            self.drafts.append(
                Draft(
                    d.id,
                    8,
                    REPORT,
                    d.status,
                    d.message,
                    d.weight,
                    code=d.code,
                    replay=False,
                    called=set(d.called),
                    details=dict(d.details),
                )
            )

    # Attribution and points ----------------------------------------------------------

    def attribute(self) -> None:
        """Mark failures that happened while calling another failing function."""
        failing = {
            d.function
            for d in self.drafts
            if d.status in (Status.FAIL, Status.ERROR, Status.TIMEOUT)
        }
        for d in self.drafts:
            if d.status in (Status.FAIL, Status.ERROR, Status.TIMEOUT):
                caused = (d.called & failing) - {d.function}
                if not caused and d.code in UNSEEN:
                    # A call that hung or crashed cannot say what it was running; what
                    # the function calls elsewhere is the best guess.
                    caused = (self.uses.get(d.function, set()) & failing) - {d.function}
                d.caused_by = tuple(sorted(caused))

    def portable(self, text: str | None) -> str | None:
        """``text`` (a traceback) with the module's path on this machine as the student's."""
        if not text or self.shown is None:
            return text
        for spelling in sorted({str(self.path.resolve()), str(self.path.absolute())}, key=len)[
            ::-1
        ]:
            text = text.replace(spelling, str(self.shown))
        return text

    def shown_dir(self, report_dir: Path) -> str | None:
        """The report folder as the student names it; None: as it is."""
        if self.shown is None:
            return None
        inside = _relative(report_dir, self.opts.student_root)
        if inside is None or inside == self.shown.parent:
            return self.msg("report.dir.module", module=str(self.shown))
        return inside.as_posix()

    def replay(self, check_id: str) -> str:
        parts = [
            self.opts.command,
            str(self.shown if self.shown is not None else self.path),
            "--seed",
            str(self.opts.seed),
            "--check",
            check_id,
        ]
        if self.opts.python:
            # Another machine has its own path to that interpreter, not this one's.
            python = self.opts.python if self.shown is None else Path(self.opts.python).name
            parts += ["--python", python]
        if self.opts.report_dir is not None:
            if self.shown is None:
                parts += ["--report-dir", str(self.opts.report_dir)]
            elif not self.opts.single_file:
                inside = _relative(self.opts.report_dir, self.opts.student_root)
                if inside is not None and inside != self.shown.parent:
                    parts += ["--report-dir", inside.as_posix()]
        return shlex.join(parts)

    def idle_steps(self) -> set[int]:
        """Steps none of whose functions is started yet earn nothing for what the stub
        gives away (the constants, a clean import): the bare stub scores 0."""
        if self.opts.only:
            return set()
        started = {
            d.function
            for d in self.drafts
            if d.function in BY_NAME
            and not BY_NAME[d.function].is_constant
            and not d.advisory
            and d.code not in ("not_started", "not_loaded")
        }
        idle = {
            step
            for step in {d.step for d in self.drafts}
            if 1 <= step <= 7 and not any(BY_NAME[n].step == step for n in started)
        }
        if not started:
            idle.add(0)
        return idle

    def score(self) -> list[CheckResult]:
        drafts = sorted(self.drafts, key=lambda d: (d.step, order(d.function), d.id))
        shares = points(drafts)
        idle = self.idle_steps()
        results = []
        for d in drafts:
            most = shares[d.id]
            got = most if d.status is Status.PASS and d.step not in idle else 0.0
            message = d.message
            if d.status is Status.PASS and d.step in idle and most > 0:
                message += " — " + self.msg("idle.module" if d.step == 0 else "idle.step")
            if d.caused_by:
                message += " — " + self.msg("caused_by", names=", ".join(d.caused_by))
            failed = d.status not in (Status.PASS, Status.ADVISORY, Status.SKIP)
            results.append(
                CheckResult(
                    id=d.id,
                    step=d.step,
                    function=d.function,
                    status=d.status,
                    points=round(got, 2),
                    max_points=round(most, 2),
                    message=message,
                    reproduce=self.replay(d.id) if failed and d.replay else "",
                    code=d.code,
                    hint=d.hint,
                    caused_by=d.caused_by,
                    details=d.details,
                )
            )
        return results


# Verdicts about a call that cannot say which functions it was running.
UNSEEN = frozenset({"timeout", "crashed", "skipped"})

# Neighbour-list rules that the list itself breaks, whatever numbers a callee gave.
OWN_RULES = frozenset({"neigh_type", "neigh_len", "neigh_range", "neigh_self", "neigh_dup"})


def expected(case: Case) -> Any:
    """The right answer of a case, or one as large (its size bounds the answer's)."""
    expect = case.expect
    if isinstance(expect, (Returns, Multiplies)):
        return expect.value
    if isinstance(expect, Ranks):
        return [0] * expect.k
    return None


def argument_path(function: str, path: str) -> str:
    """``args[0][3]`` as the student names it: ``table[3]``."""
    match = re.match(r"args\[(\d+)\]", path)
    params = BY_NAME[function].params or ()
    if match and int(match.group(1)) < len(params):
        return params[int(match.group(1))] + path[match.end() :]
    return path


def shown_path(module: Path, opts: Options) -> PurePosixPath | None:
    """The module's path as the student sees it, or None to show it as it is."""
    if opts.single_file:
        return PurePosixPath(MODULE_FILE)
    if opts.student_root is None:
        return None
    inside = _relative(module, opts.student_root)
    return inside if inside is not None else PurePosixPath(module.name)


def _relative(path: Path, root: Path | None) -> PurePosixPath | None:
    """``path`` relative to ``root`` (both resolved), or None when it is outside."""
    if root is None:
        return None
    try:
        inside = path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return None
    return PurePosixPath(inside.as_posix())


def default_report_dir(module: Path) -> Path:
    """Beside the module; for a project laid out like this one, its ``reference/``."""
    here = module.resolve().parent
    if not any((here / name).exists() for name in (REPORT_JSON, REPORT_MD)):
        if all((here / "reference" / name).is_file() for name in (REPORT_JSON, REPORT_MD)):
            return here / "reference"
    return here


def points(drafts: Sequence[Draft]) -> dict[str, float]:
    """Each step's points shared by weight, in hundredths that add up exactly.

    The shares are those of a full run, also when only some checks of a step are
    graded: a check run alone keeps its weight.
    """
    shares: dict[str, float] = {d.id: 0.0 for d in drafts}
    for step in {d.step for d in drafts}:
        full = {cid: (function, weight) for function, cid, weight in selection.step_weights(step)}
        for d in drafts:
            if d.step == step and not d.advisory:
                full[d.id] = (d.function, d.weight)
        graded = sorted(
            (Weighed(cid, weight, function) for cid, (function, weight) in full.items()),
            key=lambda w: (order(w.function), w.id),
        )
        total = sum(d.weight for d in graded)
        if not total:
            continue
        cents = STEP_POINTS[step] * 100
        exact = [cents * d.weight / total for d in graded]
        floor = [int(x) for x in exact]
        # Largest remainders get the hundredths left over.
        order_ = sorted(range(len(graded)), key=lambda i: floor[i] - exact[i])
        for i in order_[: cents - sum(floor)]:
            floor[i] += 1
        for w, c in zip(graded, floor):
            if w.id in shares:
                shares[w.id] = c / 100
    return shares


@dataclass(frozen=True)
class Weighed:
    id: str
    weight: int
    function: str


_ORDER = {n.name: i for i, n in enumerate(NAMES)}


def order(function: str) -> int:
    return _ORDER.get(function, -1 if function == MODULE else len(_ORDER))
