"""Benchmark of the hostile corpus: ``python tests/bench_hostile.py [--timeout S] [--only NAME]``.

Grades every module of tests/hostile/ (appended to the reference embed.py, as
tests/test_hostile.py does) in each sandbox mode that runs here (``auto`` too), each
grading in a fresh interpreter, and prints its wall time and the grader's peak
memory (the parent's ``ru_maxrss``; the child is not counted), then the worst of
each mode.  The attacks on the report files (``report_*``) are graded with step 8,
their files handed in as their writer writes them; the others without.  The whole
corpus is also graded as one class by ``batch`` (threads, two at once).  Prints
figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOSTILE = ROOT / "tests" / "hostile"
sys.path.insert(0, str(ROOT))

from grader.engine import sandbox  # noqa: E402

ONE = (
    "import json, resource, sys, time\n"
    "from grader import grade\n"
    "start = time.monotonic()\n"
    "r = grade(sys.argv[1], seed=11, timeout=float(sys.argv[3]), isolation=sys.argv[2],\n"
    "          check_reports='/report_' in sys.argv[1])\n"
    "print(json.dumps({'seconds': time.monotonic() - start, 'error': r.grader_error,\n"
    "    'peak': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))\n"
)
CLASS = (
    "import json, resource, sys, time\n"
    "from grader.engine.batch import BatchOptions, run_batch\n"
    "start = time.monotonic()\n"
    "opts = BatchOptions(seed=11, jobs=2, timeout=float(sys.argv[3]), pool='thread',\n"
    "                    isolation=sys.argv[4])\n"
    "rows = run_batch(sys.argv[1], sys.argv[2], opts).rows\n"
    "print(json.dumps({'seconds': time.monotonic() - start,\n"
    "    'error': [r.id for r in rows if r.status == 'grader error'],\n"
    "    'peak': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))\n"
)


def run(code: str, *args: str) -> dict[str, object]:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        # kill_parent ends a process-mode grader with SIGTERM: that is its point.
        return {"seconds": time.monotonic() - start, "error": "exit %d" % done.returncode}
    return json.loads(lines[-1])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--timeout", type=float, default=1.0, help="per-call limit (default 1 s)")
    p.add_argument("--only", action="append", default=[], help="grade only this module")
    args = p.parse_args()
    modes = ["process"] + ([] if sandbox.bwrap_problem() else ["bwrap"]) + ["auto"]
    names = sorted(x.stem for x in HOSTILE.glob("*.py") if not args.only or x.stem in args.only)
    reference = (ROOT / "embed.py").read_text(encoding="utf-8")
    worst: dict[str, tuple[float, str, int, str]] = {}
    with tempfile.TemporaryDirectory(prefix="embed-grader-bench-") as tmp:
        work = Path(tmp)
        for name in names:
            folder = work / "class" / name
            folder.mkdir(parents=True)
            attack = (HOSTILE / (name + ".py")).read_text(encoding="utf-8")
            (folder / "embed.py").write_text(reference + "\n\n" + attack, encoding="utf-8")
            if name.startswith("report_"):
                hand_in = (
                    "import sys; sys.path.insert(0, '.'); import embed; embed.write_report('.')"
                )
                subprocess.run([sys.executable, "-I", "-c", hand_in], cwd=folder, check=True)
        print("%-20s %-8s %8s %9s  %s" % ("module", "mode", "seconds", "peak MB", "note"))
        for mode in modes:
            for name in names:
                got = run(ONE, str(work / "class" / name / "embed.py"), mode, str(args.timeout))
                seconds = float(got["seconds"])  # type: ignore[arg-type]
                peak = int(got.get("peak", 0)) >> 20  # type: ignore[call-overload]
                note = "grader error: %s" % got["error"] if got.get("error") else ""
                print("%-20s %-8s %8.1f %9d  %s" % (name, mode, seconds, peak, note[:60]))
                slow, slow_name, high, high_name = worst.get(mode, (0.0, "", 0, ""))
                if seconds > slow:
                    slow, slow_name = seconds, name
                if peak > high:
                    high, high_name = peak, name
                worst[mode] = (slow, slow_name, high, high_name)
        for mode in modes:
            got = run(
                CLASS, str(work / "class"), str(work / ("out-" + mode)), str(args.timeout), mode
            )
            print(
                "batch of all %d (%s, 2 at once): %.1f s, peak %d MB, grader errors: %s"
                % (
                    len(names),
                    mode,
                    float(got["seconds"]),  # type: ignore[arg-type]
                    int(got.get("peak", 0)) >> 20,  # type: ignore[call-overload]
                    got.get("error") or "none",
                )
            )
    for mode, (slow, slow_name, high, high_name) in worst.items():
        print(
            "worst in %s: %.1f s (%s), peak %d MB (%s)" % (mode, slow, slow_name, high, high_name)
        )


if __name__ == "__main__":
    main()
