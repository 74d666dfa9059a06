"""Benchmark of one grading, moment by moment: ``python tests/bench_timeline.py [-n N]``.

Also run by ``nox -s bench``.  Grades the reference ``embed.py`` N times (default 7)
from the command line (``embed-grader embed.py --format json --report-dir
reference``), each run in a fresh interpreter whose grader functions are wrapped to
note when they start and end, and prints the median of each moment in milliseconds
from the start of the process: the imports done, the child started and loaded, the
run message sent, the last answer read, the report writer done, the child closed,
the process ended.  A CPU profile does not show where one thread waits for another
or for the child; these moments do.  ``--python EXE``, given once or more, times
interpreters with the grader installed (two builds, say), their runs interleaved so
that the machine's drift reaches all alike; each runs in a scratch folder, so that
the grader it imports is its own.  The wrappers add a few milliseconds; it asserts
nothing about time.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run in the timed interpreter: T0 (the epoch time just before it was started) comes
# in the environment; every moment goes to fd 2 as "LABEL START END" when the
# command leaves through os._exit (one grading from the command line always does).
HARNESS = r"""
import functools, os, sys, threading, time
T0 = float(os.environ["BENCH_T0"])
now = lambda: (time.time() - T0) * 1000
seen = [("interpreter up", 0.0, now())]
start = now()
from grader.engine.commands import cli; from grader.engine.grading import grade as grading
from grader.engine.sandbox import box, child
seen.append(("grader imported", start, now()))

def wrap(owner, name, label):
    original = getattr(owner, name)
    @functools.wraps(original)
    def timed(*args, **kwargs):
        begun = now()
        try:
            return original(*args, **kwargs)
        finally:
            seen.append((label, begun, now()))
    setattr(owner, name, timed)

S = box.Sandbox
wrap(S, "spawn", "child spawned") if hasattr(S, "spawn") else None
wrap(S, "load", "module loaded in the child")
wrap(S, "_exchange", "calls run (message sent to last answer)")
wrap(S, "write_report", "report writer run")
wrap(S, "close", "child closed")
wrap(grading.Grading, "judge_arriving", "answers judged as they arrive")
wrap(grading.Grading, "report_checks", "report files graded")
leave = os._exit

def dump_and_leave(code):
    for label, begun, ended in seen:
        sys.stderr.write("%s\t%.2f\t%.2f\n" % (label, begun, ended))
    sys.stderr.write("process ends\t%.2f\t%.2f\n" % (now(), now()))
    sys.stderr.flush()
    leave(code)

os._exit = dump_and_leave
sys.argv = ["embed-grader"] + sys.argv[1:]
cli.console()
"""

ORDER = [
    "interpreter up",
    "grader imported",
    "child spawned",
    "module loaded in the child",
    "calls run (message sent to last answer)",
    "answers judged as they arrive",
    "report writer run",
    "report files graded",
    "child closed",
    "process ends",
]


def environment(python: str, folder: str) -> dict[str, str]:
    """The environment of a timed run: the grader from the repository when the
    interpreter has none installed."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an install has its bytecode
    found = subprocess.run([python, "-c", "import grader"], cwd=folder, env=env)
    if found.returncode != 0:
        env["PYTHONPATH"] = str(ROOT)
    return env


def one_run(
    python: str, env: dict[str, str], folder: str, seed: int
) -> dict[str, tuple[float, float]]:
    env = dict(env, BENCH_T0="%.6f" % time.time())
    proc = subprocess.run(
        [python, "-c", HARNESS, "embed.py", "--format", "json", "--seed", str(seed)]
        + ["--report-dir", "reference"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    moments: dict[str, tuple[float, float]] = {}
    for line in proc.stderr.splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0] not in moments:  # the first of each
            try:
                moments[parts[0]] = (float(parts[1]), float(parts[2]))
            except ValueError:
                continue
    if "process ends" not in moments:
        print("a run did not finish as expected (exit %d):" % proc.returncode)
        print(proc.stderr[-2000:])
    return moments


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("-n", type=int, default=7, help="runs of each interpreter (default 7)")
    ap.add_argument("--python", action="append", help="an interpreter to time (repeatable)")
    args = ap.parse_args()
    pythons = args.python or [sys.executable]
    with tempfile.TemporaryDirectory(prefix="bench-timeline-") as folder:
        shutil.copy(ROOT / "embed.py", folder)
        shutil.copytree(ROOT / "reference", Path(folder) / "reference")
        envs = [environment(p, folder) for p in pythons]
        runs: list[list[dict[str, tuple[float, float]]]] = [[] for _ in pythons]
        for i in range(args.n):
            for k, python in enumerate(pythons):
                runs[k].append(one_run(python, envs[k], folder, 100 + i))
    print("one grading of the reference, %d runs of each, interleaved" % args.n)
    print("median milliseconds from the start of the process (start-end):")
    for k, python in enumerate(pythons):
        print("  [%d] %s" % (k + 1, python))
    print("  %-42s" % "" + "".join("%16s" % ("[%d]" % (k + 1)) for k in range(len(pythons))))
    for label in ORDER:
        cells = []
        for k in range(len(pythons)):
            got = [r[label] for r in runs[k] if label in r]
            if got:
                begun = statistics.median(b for b, _ in got)
                ended = statistics.median(e for _, e in got)
                cells.append("%16s" % ("%.1f-%.1f" % (begun, ended)))
            else:
                cells.append("%16s" % "-")
        print("  %-42s" % label + "".join(cells))


if __name__ == "__main__":
    main()
