"""Grade every mutant of the reference embed.py: ``python -m mutants [options]``.

Each mutant is written to its own folder and graded in process by
``grader.grade`` with one seed, steps 0 to 7: the report step measures the fixed
constants, and a mutant must be caught by the checks of the functions themselves.
A mutant is killed when at least one check does not pass; it survives when every
check passes.

``mutants/equivalent.json`` lists the mutants that no correct grader can kill, each
with the change it makes and a one-line reason.  The run fails (exit status 1) when
a mutant survives that is not listed, when a listed mutant is killed (the grader
rejects correct behaviour, or the entry is wrong), and when a listed id no longer
exists or now makes a different change.  Exit status 2: the reference itself does
not pass, or the grader failed.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from grader.labs.embed.contract import FUNCTIONS
from mutants.operators import Mutant, mutants_of

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "embed.py"
EQUIVALENT = Path(__file__).resolve().parent / "equivalent.json"
SEED = 1
UPTO = 7  # the last step graded: every function check, not the report files


@dataclass(frozen=True)
class Equivalent:
    id: str
    change: str
    reason: str


@dataclass(frozen=True)
class Outcome:
    """What grading one mutant found."""

    id: str
    killed: bool
    failing: tuple[str, ...]  # the checks that did not pass
    error: str = ""  # the grader's own fault, if any
    seconds: float = 0.0


@dataclass(frozen=True)
class Summary:
    mutants: int
    killed: int
    equivalent: int
    survivors: tuple[Mutant, ...]  # survived and not listed
    wrongly_listed: tuple[tuple[Equivalent, str], ...]  # entry, what is wrong with it
    errors: tuple[Outcome, ...]

    @property
    def score(self) -> float:
        """Killed mutants per cent of the mutants that can be killed."""
        killable = self.mutants - self.equivalent
        return 100.0 * self.killed / killable if killable else 100.0

    @property
    def ok(self) -> bool:
        return not (self.survivors or self.wrongly_listed or self.errors)


def load_equivalents(path: Path = EQUIVALENT) -> dict[str, Equivalent]:
    data = json.loads(path.read_text(encoding="utf-8"))
    found: dict[str, Equivalent] = {}
    for item in data["equivalent"]:
        entry = Equivalent(item["id"], item["change"], item["reason"])
        if entry.id in found:
            raise ValueError("%s is listed twice" % entry.id)
        if not entry.reason.strip():
            raise ValueError("%s has no reason" % entry.id)
        found[entry.id] = entry
    return found


def reference_mutants(path: Path = REFERENCE) -> list[Mutant]:
    return mutants_of(path.read_text(encoding="utf-8"), [f.name for f in FUNCTIONS])


def grade_file(path: str, seed: int, timeout: float, ident: str = "") -> Outcome:
    """Grade one module; runs in a worker process."""
    from grader import grade
    from grader.engine.vocabulary.results import Status

    start = time.perf_counter()
    try:
        report = grade(path, seed=seed, upto=UPTO, check_reports=False, timeout=timeout)
    except Exception as exc:  # the grader's fault, not the mutant's
        return Outcome(ident, False, (), "%s: %s" % (type(exc).__name__, exc))
    failing = tuple(c.id for c in report.checks if not c.ok and c.status is not Status.SKIP)
    skipped = tuple(c.id for c in report.checks if c.status is Status.SKIP)
    return Outcome(
        ident,
        not report.passed,
        failing + skipped,
        report.grader_error,
        time.perf_counter() - start,
    )


def grade_all(
    mutants: Sequence[Mutant], seed: int, jobs: int, timeout: float, folder: Path
) -> list[Outcome]:
    paths = []
    for n, m in enumerate(mutants):
        here = folder / ("%04d" % n)
        here.mkdir()
        (here / "embed.py").write_text(m.source, encoding="utf-8")
        paths.append(str(here / "embed.py"))
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method)) as pool:
        futures = [pool.submit(grade_file, p, seed, timeout, m.id) for p, m in zip(paths, mutants)]
        return [f.result() for f in futures]


def summarize(
    mutants: Sequence[Mutant],
    outcomes: Sequence[Outcome],
    listed: dict[str, Equivalent],
    partial: bool = False,
) -> Summary:
    """Compare the outcomes with the list; ``partial``: only some mutants were graded."""
    by_id = {m.id: m for m in mutants}
    survivors, wrong, errors = [], [], []
    killed = equivalent = 0
    for o in outcomes:
        entry = listed.get(o.id)
        if o.error:
            errors.append(o)
        elif entry is not None:
            equivalent += 1
            if o.killed:
                wrong.append((entry, "killed by " + ", ".join(o.failing[:3])))
        elif o.killed:
            killed += 1
        else:
            survivors.append(by_id[o.id])
    for entry in listed.values():
        m = by_id.get(entry.id)
        if m is None:
            if not partial:
                wrong.append((entry, "no such mutant"))
        elif m.change != entry.change:
            wrong.append((entry, "the mutant now makes another change: " + m.change))
    return Summary(len(outcomes), killed, equivalent, tuple(survivors), tuple(wrong), tuple(errors))


def render(summary: Summary, seconds: float, seed: int) -> str:
    lines = []
    for m in summary.survivors:
        lines.append("SURVIVED %s (line %d)" % (m.id, m.line))
        lines += ["  - " + s for s in m.removed] + ["  + " + s for s in m.added]
    for entry, why in summary.wrongly_listed:
        lines.append("WRONGLY LISTED %s: %s" % (entry.id, why))
    for o in summary.errors:
        lines.append("GRADER ERROR %s: %s" % (o.id, o.error))
    lines.append(
        "mutants: %d  killed: %d  equivalent: %d  survivors: %d  score: %.1f%%"
        % (
            summary.mutants,
            summary.killed,
            summary.equivalent,
            len(summary.survivors),
            summary.score,
        )
    )
    lines.append("seed %d, %.1f s" % (seed, seconds))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mutants", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=SEED, help="the grading seed (%d)" % SEED)
    parser.add_argument(
        "--jobs", type=int, default=0, help="worker processes (default: one per core)"
    )
    parser.add_argument("--timeout", type=float, default=3.0, help="time limit per call")
    parser.add_argument(
        "--only", action="append", default=[], help="grade the mutants whose id starts so"
    )
    parser.add_argument("--list", action="store_true", help="list the mutants, grade none")
    parser.add_argument("--verbose", action="store_true", help="one line per mutant")
    parser.add_argument("--json", metavar="PATH", help="write every outcome to PATH")
    args = parser.parse_args(argv)

    mutants = reference_mutants()
    listed = load_equivalents()
    if args.only:
        mutants = [m for m in mutants if any(m.id.startswith(o) for o in args.only)]
    if args.list:
        for m in mutants:
            mark = "  (equivalent)" if m.id in listed else ""
            print("%s  line %d  %s%s" % (m.id, m.line, m.change, mark))
        return 0

    start = time.perf_counter()
    jobs = args.jobs or os.cpu_count() or 1
    with tempfile.TemporaryDirectory(prefix="mutants-") as tmp:
        base = grade_file(str(REFERENCE), args.seed, args.timeout, "reference")
        if base.killed or base.error:
            print("the reference embed.py does not pass: %s" % (base.error or base.failing))
            return 2
        outcomes = grade_all(mutants, args.seed, jobs, args.timeout, Path(tmp))
    seconds = time.perf_counter() - start
    summary = summarize(mutants, outcomes, listed, partial=bool(args.only))
    if args.verbose:
        for m, o in zip(mutants, outcomes):
            state = "equivalent" if m.id in listed else ("killed" if o.killed else "SURVIVED")
            print("%-36s %-10s %5.2fs  %s" % (m.id, state, o.seconds, ", ".join(o.failing[:2])))
    if args.json:
        data = [
            {"id": m.id, "line": m.line, "change": m.change, "equivalent": m.id in listed}
            | {"killed": o.killed, "failing": list(o.failing), "error": o.error}
            for m, o in zip(mutants, outcomes)
        ]
        Path(args.json).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    print(render(summary, seconds, args.seed))
    if summary.errors:
        return 2
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
