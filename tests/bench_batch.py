"""Benchmark of batch grading: ``python tests/bench_batch.py [N] [--jobs J] [--pool P]
[--hanging H]``.

Also run by ``nox -s bench``.  Builds a class of N submissions (default 200) in a
temporary folder: correct ones (copies of the reference embed.py, with its report
files, and of ``tests/corpus/right/*.py``), wrong ones (``tests/corpus/wrong/*.py``)
and H (default five) whose ``rms`` never returns; grades them as the batch command
does and prints the submissions per second, the total time and the slowest
submission.  It asserts nothing about time, so it never flakes.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from grader.engine.batch import (  # noqa: E402
    BatchOptions,
    BatchResult,
    discover,
    run_batch,
    write_atomic,
)
from grader.engine.batch.pages import write_pages  # noqa: E402
from grader.engine.similarity.classpass import class_similarity  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
HANGING = 5
TARGET_SECONDS = 15.0  # issue 13: a class of 200 with the default options


def hanging_module() -> str:
    """The reference module with an ``rms`` that never returns."""
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    hung, n = re.subn(
        r"^def rms\((.*)\):\n", r"def rms(\1):\n    while True:\n        pass\n", source, flags=re.M
    )
    assert n == 1, "no rms in embed.py"
    return hung


def make_class(dest: Path, size: int = 200, hanging: int = HANGING) -> dict[str, int]:
    """Write ``size`` submissions into ``dest``; returns how many of each kind."""
    right = [ROOT / "embed.py"] + sorted((CORPUS / "right").glob("*.py"))
    wrong = sorted((CORPUS / "wrong").glob("*.py"))
    kinds = {"right": 0, "wrong": 0, "hanging": 0}
    dest.mkdir(parents=True, exist_ok=True)
    for i in range(size):
        ident = "s%03d" % i
        folder = dest / ident
        folder.mkdir()
        if i < hanging:
            (folder / "embed.py").write_text(hanging_module(), encoding="utf-8")
            kinds["hanging"] += 1
        elif i % 2 == 0:
            shutil.copyfile(right[(i // 2) % len(right)], folder / "embed.py")
            kinds["right"] += 1
        else:
            shutil.copyfile(wrong[(i // 2) % len(wrong)], folder / "embed.py")
            kinds["wrong"] += 1
        # The reference's report files, so that every module is judged on its code.
        for name in ("embed_report.json", "embed_report.md"):
            shutil.copyfile(ROOT / "reference" / name, folder / name)
    return kinds


def bench(
    size: int = 200, jobs: int = 0, pool: str = "process", seed: int = 1, hanging: int = HANGING
) -> BatchResult:
    with tempfile.TemporaryDirectory(prefix="embed-grader-bench-") as tmp:
        kinds = make_class(Path(tmp) / "class", size, hanging)
        opts = BatchOptions(seed=seed, jobs=jobs, pool=pool, force=True)
        start = time.perf_counter()
        cpu_start = _cpu()
        result = run_batch(Path(tmp) / "class", Path(tmp) / "out", opts)
        seconds = time.perf_counter() - start
        cpu = _cpu() - cpu_start
        # The class page's share of that time, measured again on its own.
        subs = discover(Path(tmp) / "class")
        page_start = time.perf_counter()
        similar = class_similarity((s.id, s.module) for s in subs if s.module is not None)
        similar_seconds = time.perf_counter() - page_start
        write_pages(Path(tmp) / "out", result.rows, result.summary, opts.lang, write_atomic)
        page_seconds = time.perf_counter() - page_start - similar_seconds
    slowest = max(result.rows, key=lambda r: r.seconds)
    statuses: dict[str, int] = {}
    for r in result.rows:
        statuses[r.status] = statuses.get(r.status, 0) + 1
    print(
        "batch of %d (%d right, %d wrong, %d hanging), --jobs %d, %s pool:"
        % (size, kinds["right"], kinds["wrong"], kinds["hanging"], opts.workers(), pool)
    )
    print("  %.1f submissions per second" % (size / seconds))
    print(
        "  %.1f s in all (target: %.0f s or less)%s"
        % (seconds, TARGET_SECONDS, "" if seconds <= TARGET_SECONDS else "  SLOWER THAN THE TARGET")
    )
    cores = os.cpu_count() or 1
    if pool == "thread":  # worker processes' CPU time does not reach this process
        print("  CPU time %.1f s, %.0f%% of %d cores" % (cpu, 100 * cpu / seconds / cores, cores))
    print(
        "  of which similarity %.2f s (%d pairs flagged), report.html and feedback pages %.2f s"
        % (similar_seconds, similar["pairs_flagged"], page_seconds)
    )
    print("  slowest submission: %s, %.2f s (%s)" % (slowest.id, slowest.seconds, slowest.status))
    normal = sorted(r.seconds for r in result.rows if r.status == "graded")
    if normal:
        print("  median of the graded ones: %.3f s" % normal[len(normal) // 2])
    print("  statuses: %s" % ", ".join("%s %d" % kv for kv in sorted(statuses.items())))
    broken = [r for r in result.rows if r.status == "grader error"]
    if broken:
        print("  first grader error (%s): %s" % (broken[0].id, broken[0].detail))
    return result


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("size", nargs="?", type=int, default=200)
    p.add_argument("--jobs", type=int, default=0, help="default: as the batch command")
    p.add_argument("--pool", default="process", choices=("thread", "process"))
    p.add_argument("--hanging", type=int, default=HANGING, help="submissions whose rms hangs")
    args = p.parse_args(argv)
    bench(args.size, args.jobs, args.pool, hanging=args.hanging)


if __name__ == "__main__":
    main()
