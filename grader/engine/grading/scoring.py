"""Points and the words around them: each check's share, blame, replay commands."""

from __future__ import annotations

import functools
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from grader.engine.frozen import frozen
from grader.engine.grading import selection
from grader.engine.grading.runoptions import Options
from grader.engine.handin import SUFFIX
from grader.engine.lab import DEFAULT as DEFAULT_LAB
from grader.engine.lab import Lab
from grader.engine.messages import text
from grader.engine.sandbox import Outcome
from grader.engine.vocabulary.contract import MODULE
from grader.engine.vocabulary.results import CheckResult, Status

if TYPE_CHECKING:
    from grader.engine.handin.notebook import Cells

# Verdicts about a call that cannot say which functions it was running.
UNSEEN = frozenset({"timeout", "crashed", "skipped"})


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
    withheld: str = ""  # why a pass earns nothing yet (the gate check it waits for)


class Scoring:
    """Attribution, points and replay commands of a ``Grading`` (its second half)."""

    lab: Lab
    opts: Options
    path: Path
    shown: PurePosixPath | None
    drafts: list[Draft]
    uses: dict[str, set[str]]
    cells: Cells | None  # a notebook's cells, when the module is one
    placed: dict[int, tuple[Outcome, Outcome]]  # call id -> (outcome, with the cell's line)

    def place(self, outcome: Outcome) -> Outcome:
        """The outcome with the line of its exception as a notebook cell's line."""
        if self.cells is None or outcome.raised is None:
            return outcome
        was = self.placed.get(outcome.id)
        if was is None or was[0] is not outcome:
            was = (outcome, replace(outcome, raised=self.cells.place(outcome.raised)))
            self.placed[outcome.id] = was
        return was[1]

    def msg(self, code: str, **params: Any) -> str:
        """The message ``code`` in the run's language."""
        return text(code, self.opts.lang, **params)

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
                if d.caused_by:
                    # The failure may come from the callee: a hint about this
                    # function's own code would send the student the wrong way.
                    d.hint = ""

    def portable(self, text: str | None) -> str | None:
        """``text`` (a traceback) with the module's path on this machine as the student's,
        and a notebook's lines as its cells'."""
        if text and self.cells is not None:
            text = self.cells.retrace(text, self.path.name)
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
        if self.opts.lab != DEFAULT_LAB:
            parts[1:1] = ["--lab", self.opts.lab]
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
        gives away (the constants, a clean import): the bare stub scores 0, and so do a
        module without the functions and an empty one."""
        if self.opts.only:
            return set()
        started = {
            d.function
            for d in self.drafts
            if d.function in self.lab.by_name
            and not self.lab.by_name[d.function].is_constant
            and not d.advisory
            and d.code not in ("not_started", "not_loaded", "missing", "not_callable")
        }
        idle = {
            step
            for step in {d.step for d in self.drafts}
            if step in self.lab.function_steps
            and not any(self.lab.by_name[n].step == step for n in started)
        }
        if not started:
            idle.add(0)
        return idle

    def score(self) -> list[CheckResult]:
        drafts = sorted(self.drafts, key=lambda d: (d.step, order(self.lab, d.function), d.id))
        shares = points(drafts, self.lab)
        idle = self.idle_steps()
        results = []
        for d in drafts:
            most = shares[d.id]
            earns = d.status is Status.PASS and d.step not in idle and not d.withheld
            got = most if earns else 0.0
            message = d.message
            if d.status is Status.PASS and d.step in idle and most > 0:
                message += " — " + self.msg("idle.module" if d.step == 0 else "idle.step")
            elif d.status is Status.PASS and d.withheld and most > 0:
                message += " — " + d.withheld
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


def shown_path(module: Path, opts: Options, lab: Lab) -> PurePosixPath | None:
    """The module's path as the student sees it, or None to show it as it is."""
    if opts.single_file:
        if module.suffix.lower() == SUFFIX:
            return PurePosixPath(PurePosixPath(lab.module_file).stem + SUFFIX)
        return PurePosixPath(lab.module_file)
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


def default_report_dir(module: Path, files: tuple[str, ...]) -> Path:
    """Beside the module; for a project laid out like this one, its ``reference/``."""
    here = module.resolve().parent
    if files and not any((here / name).exists() for name in files):
        if all((here / "reference" / name).is_file() for name in files):
            return here / "reference"
    return here


def points(drafts: Sequence[Draft], lab: Lab) -> dict[str, float]:
    """Each step's points shared by weight, in hundredths that add up exactly.

    The shares are those of a full run, also when only some checks of a step are
    graded: a check run alone keeps its weight.
    """
    shares: dict[str, float] = {d.id: 0.0 for d in drafts}
    for step in {d.step for d in drafts}:
        full = {
            cid: (function, weight) for function, cid, weight in selection.step_weights(lab, step)
        }
        for d in drafts:
            if d.step == step and not d.advisory:
                full[d.id] = (d.function, d.weight)
        graded = sorted(
            (Weighed(cid, weight, function) for cid, (function, weight) in full.items()),
            key=lambda w: (order(lab, w.function), w.id),
        )
        total = sum(d.weight for d in graded)
        if not total:
            continue
        cents = lab.steps.get(step, 0) * 100
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


@frozen
class Weighed:
    id: str
    weight: int
    function: str


def order(lab: Lab, function: str) -> int:
    """Checks are listed by the contract's order of names: the module first."""
    if function == MODULE:
        return -1
    ranks = _ranks(lab)
    return ranks.get(function, len(ranks))


@functools.lru_cache(maxsize=8)
def _ranks(lab: Lab) -> dict[str, int]:
    return {n.name: i for i, n in enumerate(lab.names)}
