"""Benchmark of grading one submission: ``python tests/bench_grade.py`` (or ``nox -s bench``).

Prints figures; it asserts nothing about time, so it never flakes.
- the reference embed.py, graded 10 times in one process (median and max wall time,
  the calls made, the time spent inside the child);
- the same through the command line, interpreter start included;
- a submission whose ``rms`` never returns, at the default time limit.
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from grader import grade  # noqa: E402


def reference_in_process(runs: int = 10) -> None:
    grade(ROOT / "embed.py", seed=0)  # warm the caches (the 512x64 table)
    times, child, calls = [], [], 0
    for seed in range(1, runs + 1):
        start = time.perf_counter()
        report = grade(ROOT / "embed.py", seed=seed)
        times.append(time.perf_counter() - start)
        child.append(report.child_time)
        calls = report.calls
        assert report.score == report.max_score, report.score
    print("reference, in process, %d runs:" % runs)
    print("  median %.3f s   max %.3f s" % (statistics.median(times), max(times)))
    print("  calls to the student's functions per run: %d" % calls)
    print("  time inside the student's code: median %.3f s" % statistics.median(child))


def reference_cli(runs: int = 5) -> None:
    times = []
    for seed in range(1, runs + 1):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "grader", str(ROOT / "embed.py"), "--seed", str(seed)],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
    print("reference, command line (interpreter start included), %d runs:" % runs)
    print("  median %.3f s   max %.3f s" % (statistics.median(times), max(times)))


def hanging() -> None:
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    hung = re.sub(r"def rms\(vec\):\n", "def rms(vec):\n    while True:\n        pass\n", source)
    assert hung != source
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "embed.py"
        path.write_text(hung, encoding="utf-8")
        start = time.perf_counter()
        report = grade(path, seed=1, report_dir=ROOT / "reference")
        took = time.perf_counter() - start
    failing = sorted({c.function for c in report.checks if not c.ok})
    print("a submission whose rms never returns (default --timeout 3):")
    print(
        "  %.2f s, score %.2f / %.0f, failing: %s"
        % (took, report.score, report.max_score, ", ".join(failing))
    )


if __name__ == "__main__":
    reference_in_process()
    reference_cli()
    hanging()
