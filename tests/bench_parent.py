"""Benchmark of the grading process alone: ``python tests/bench_parent.py [--python EXE]``.

Grades the reference ``embed.py`` from the command line (``embed-grader embed.py
--format json --seed 1 --report-dir reference``) and prints, for the grading process
only (its child runs outside any count):

- how many modules are loaded when the child is spawned, when the run message is
  about to go out, and when the grading ends;
- with ``--instructions``, the instructions it executes (valgrind's cachegrind) up
  to the spawn, up to the run message, and in all.

Everything before the spawn, and everything between it and the run message that the
child does not need, lies on the path of every grading.  Counts do not move with the
machine's load, so two builds compare exactly (``--python`` an interpreter with the
other build installed, run in a scratch folder; given twice, both).  It asserts
nothing about time.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run in the measured interpreter: left through os._exit at the moment argv[1] names
# ("spawn", "run" or "end"), after writing how many modules are loaded to fd 2.
HARNESS = r"""
import os, sys
from grader.engine.sandbox import box
where = sys.argv[1]

exit = os._exit

def leave(*args, **kwargs):
    os.write(2, b"MODULES %d\n" % len(sys.modules))
    exit(0)

if where == "end":
    os._exit = leave  # one grading from the command line leaves through it
else:
    setattr(box.Sandbox, where, leave)
from grader.engine.commands import cli
sys.argv = ["embed-grader"] + sys.argv[2:]
cli.console()
"""

MOMENTS = (("spawn", "the child is spawned"), ("run", "the run message goes out"), ("end", "end"))


def measure(python: str, folder: Path, where: str, count: bool) -> tuple[int, int | None]:
    """Modules loaded at ``where``, and the instructions executed up to it (or None)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an install has its bytecode
    command = [python, "-c", HARNESS, where, "embed.py", "--format", "json", "--seed", "1"]
    command += ["--report-dir", "reference"]
    if count:
        cachegrind = ["valgrind", "--tool=cachegrind", "--cache-sim=no"]
        command = cachegrind + ["--cachegrind-out-file=/dev/null"] + command
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    modules = re.search(r"MODULES (\d+)", done.stderr)
    refs = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if modules is None:
        raise SystemExit("the grading did not reach %s:\n%s" % (where, done.stderr[-2000:]))
    return int(modules.group(1)), int(refs.group(1).replace(",", "")) if refs else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", action="append", help="an interpreter with a build installed")
    ap.add_argument("--instructions", action="store_true", help="count them with valgrind")
    args = ap.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed")
    for python in args.python or [sys.executable]:
        with tempfile.TemporaryDirectory(prefix="bench-parent-") as tmp:
            folder = Path(tmp) if args.python else ROOT
            if args.python:
                shutil.copy(ROOT / "embed.py", folder / "embed.py")
                shutil.copytree(ROOT / "reference", folder / "reference")
            print(python)
            for where, label in MOMENTS:
                modules, refs = measure(python, folder, where, args.instructions)
                counted = "" if refs is None else "  %15s instructions" % format(refs, ",")
                print("  %-28s %4d modules%s" % (label, modules, counted))


if __name__ == "__main__":
    main()
