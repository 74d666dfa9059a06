"""Benchmark of the grader's speed beside pytest's: ``python tests/bench_speed.py [-n N]``.

Also run by ``nox -s bench``.  In one run, side by side:
- ``embed-grader embed.py --format json`` on the reference (interpreter start included),
  N runs: median and min wall time;
- ``pytest -q tests/bench_pytest_ten.py`` (ten fixed tests of the same module), N runs,
  with the plugins installed here and with none autoloaded;
- a class of 200 submissions (``tests/bench_batch.py`` builds it: copies of the reference
  and of the right corpus modules, wrong ones, five that hang) graded by
  ``embed-grader batch`` with the default options: wall time.
It prints figures and asserts nothing about time.  The package's bytecode is compiled
first, as an install does, so that no run pays for compiling it.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "tests"))
from bench_batch import make_class  # noqa: E402

TARGET_ONE = 0.2  # seconds, median of one grading from the command line
TARGET_CLASS = 15.0  # seconds for the class of 200


def grader_command() -> list[str]:
    """The installed console script beside this interpreter, else ``python -m grader``."""
    script = Path(sys.executable).with_name("embed-grader")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-m", "grader"]


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an install has its bytecode
    env.update(extra)
    return env


CPU: list[float] = []  # CPU seconds (user and system) of each run timed, children included


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: Sequence[str], runs: int, env: dict[str, str], ok: Sequence[int]) -> list[float]:
    """Wall times of ``runs`` runs; their CPU times go to ``CPU``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        cpu = _cpu()
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True)
        times.append(time.perf_counter() - start)
        CPU.append(_cpu() - cpu)
        if done.returncode not in ok:
            raise SystemExit(
                "%s exited with %d:\n%s"
                % (" ".join(command), done.returncode, done.stderr.decode()[-2000:])
            )
    return times


def line(label: str, times: list[float], cpu: list[float], target: float | None = None) -> str:
    med = statistics.median(times)
    text = "  %-46s median %.3f s   min %.3f s   CPU %.3f s" % (
        label,
        med,
        min(times),
        statistics.median(cpu),
    )
    if target is not None and med > target:
        text += "   (target %.2f s)" % target
    return text


def one(runs: int) -> float:
    env = environment()
    grader = grader_command() + ["embed.py", "--format", "json"]
    pytest = [sys.executable, "-m", "pytest", "-q", "tests/bench_pytest_ten.py"]
    plain = environment(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    timed(grader, 1, env, (0,))  # warm the disk cache
    timed(pytest, 1, env, (0,))
    g, p, q = [], [], []
    gc, pc, qc = [], [], []
    for _ in range(runs):  # interleaved, so that all meet the same load
        g += timed(grader, 1, env, (0,))
        gc.append(CPU[-1])
        p += timed(pytest, 1, env, (0,))
        pc.append(CPU[-1])
        q += timed(pytest, 1, plain, (0,))
        qc.append(CPU[-1])
    print("one submission, the reference embed.py, %d runs each (interleaved):" % runs)
    print(line(" ".join(["embed-grader"] + grader[-3:]), g, gc, TARGET_ONE))
    print(line("pytest -q tests/bench_pytest_ten.py", p, pc))
    print(line("the same, PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", q, qc))
    print(
        "  grader / pytest (medians): %.2f; / pytest without plugins: %.2f"
        % (statistics.median(g) / statistics.median(p), statistics.median(g) / statistics.median(q))
    )
    return statistics.median(g)


def klass(size: int) -> float:
    with tempfile.TemporaryDirectory(prefix="embed-grader-bench-") as tmp:
        kinds = make_class(Path(tmp) / "class", size)
        command = grader_command() + [
            "batch",
            str(Path(tmp) / "class"),
            "--out",
            str(Path(tmp) / "out"),
        ]
        (seconds,) = timed(command, 1, environment(), (0, 1))
        cpu = CPU[-1]
    print(
        "a class of %d (%d right, %d wrong, %d hanging), embed-grader batch, default options:"
        % (size, kinds["right"], kinds["wrong"], kinds["hanging"])
    )
    print(
        "  %.1f s in all (CPU %.1f s), %.1f submissions per second%s"
        % (
            seconds,
            cpu,
            size / seconds,
            "" if seconds <= TARGET_CLASS else "   (target %.0f s)" % TARGET_CLASS,
        )
    )
    return seconds


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", "--runs", type=int, default=11, help="runs of each command (default 11)")
    p.add_argument("--size", type=int, default=200, help="submissions in the class (default 200)")
    p.add_argument("--no-class", action="store_true", help="skip the class benchmark")
    args = p.parse_args(argv)
    compileall.compile_dir(str(ROOT / "grader"), quiet=1)
    compileall.compile_file(str(ROOT / "embed.py"), quiet=1)
    print(
        "%d cores, load average %s"
        % (os.cpu_count() or 1, " ".join("%.2f" % x for x in os.getloadavg()))
    )
    one(args.runs)
    if not args.no_class:
        klass(args.size)


if __name__ == "__main__":
    main()
