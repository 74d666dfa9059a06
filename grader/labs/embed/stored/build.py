"""Prepare the student edition's runs with the full grader (never part of that edition).

``python -m grader.labs.embed.stored.build FOLDER [--runs N] [--first-seed S]`` draws
the cases of every check for the seeds S, S+1, ... with the real case generators and
writes, per case, its inputs, its expectation as data (a ranking with its scores)
and what each known mistake answers, plus the report's fixed values.  Nothing else
of the lab changes: the checks are whatever the full lab has when this runs.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path
from typing import Any

from grader.engine.lab import Lab
from grader.engine.vocabulary.expect import Case, Open, Raises
from grader.labs.embed.hintmatch import NO_ANSWER, MistakeHints
from grader.labs.embed.stored.data import COMMON, FORMAT, Writer, run_file, write

RUNS = 32
FIRST_SEED = 1_000_000_007  # far from the small seeds people type


def full_lab() -> Lab:
    from grader.labs.embed.lab import full

    return full()


def _case(case: Case, hints: MistakeHints, w: Writer) -> dict[str, Any]:
    expect = case.expect
    stored = getattr(expect, "stored", None)
    if stored is not None:
        expect = stored(case)
    doc: dict[str, Any] = {
        "fn": case.fn,
        "args": w.value(list(case.args)),
        "expect": w.value(expect),
        "count": list(case.count),
    }
    if case.before is not None:
        doc["before"], doc["renew"] = w.value(list(case.before)), case.renew
    answers: list[tuple[str, Any]] = []
    if isinstance(case.expect, Raises):
        answers = hints.raise_answers(case.fn, case.args)
    elif not isinstance(case.expect, Open):
        answers = hints.answers(case.fn, case.args)
    answers = [(code, wrong) for code, wrong in answers if wrong is not NO_ANSWER]
    if answers:
        doc["hints"] = [[code, w.value(wrong)] for code, wrong in answers]
    return doc


def prepare(folder: Path, runs: int = RUNS, first_seed: int = FIRST_SEED) -> list[int]:
    """Write ``runs`` prepared runs into ``folder``; returns their seeds."""
    from grader.labs.embed import fixed

    lab = full_lab()
    hints = lab.hints
    assert isinstance(hints, MistakeHints)
    folder.mkdir(parents=True, exist_ok=True)
    w = Writer()
    fixed_doc = {key: w.value(value) for key, value in fixed.computed().items()}
    common_keys = w.take()
    ids = tuple(c.id for c in lab.checks)
    seeds = [first_seed + i for i in range(runs)]
    docs: list[dict[str, Any]] = []
    keys: list[set[str]] = []
    for seed in seeds:
        plan = lab.cases(seed, ids)
        checks = {check.id: [_case(c, hints, w) for c in cases] for check, cases in plan}
        docs.append({"seed": seed, "checks": checks})
        keys.append(w.take())
    uses = collections.Counter(k for used in keys for k in used)
    common_keys |= {k for k, n in uses.items() if n > 1}
    for i, (doc, used) in enumerate(zip(docs, keys)):
        doc["pool"] = {k: w.pool[k] for k in sorted(used - common_keys)}
        write(folder / run_file(i), doc)
    write(
        folder / COMMON,
        {
            "format": FORMAT,
            "runs": runs,
            "seeds": seeds,
            "checks": [[c.id, c.function, c.step, c.weight, c.advisory] for c in lab.checks],
            "mutable_args": list(lab.mutable_args),
            "fixed": fixed_doc,
            "pool": {k: w.pool[k] for k in sorted(common_keys)},
        },
    )
    return seeds


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m grader.labs.embed.stored.build")
    p.add_argument("folder", type=Path)
    p.add_argument("--runs", type=int, default=RUNS)
    p.add_argument("--first-seed", type=int, default=FIRST_SEED)
    args = p.parse_args(argv)
    start = time.perf_counter()
    prepare(args.folder, args.runs, args.first_seed)
    size = sum(f.stat().st_size for f in args.folder.iterdir())
    print(
        "%d runs prepared in %s: %.1f MB in %.0f s"
        % (args.runs, args.folder, size / 1e6, time.perf_counter() - start)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
