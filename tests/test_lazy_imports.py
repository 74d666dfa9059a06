"""A grading imports what it uses, when it uses it.

Everything a grading from the command line imports before its child starts lies on
the path of every grading: the batch's machinery (``multiprocessing``, the cache, the
class's outputs), the similarity pass or the class page have no place there.  The
report's checks (markdown-it-py among them) load later, while the child runs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# A grading of the reference from the command line, in a fresh interpreter, that
# notes which modules are loaded when the child is spawned, when the run message is
# about to go out (the grading thread waits for it before loading the report's
# checks) and when the grading ends.
SCRIPT = """
import json, sys
from grader.engine.commands import cli
from grader.engine.sandbox import box

seen = {}
spawn = box.Sandbox.spawn
def noted(self, *args, **kwargs):
    seen.setdefault("spawn", sorted(sys.modules))
    return spawn(self, *args, **kwargs)
box.Sandbox.spawn = noted
run = box.Sandbox.run
def running(self, *args, **kwargs):
    seen.setdefault("run", sorted(sys.modules))
    return run(self, *args, **kwargs)
box.Sandbox.run = running
sys.stdout = open("/dev/null", "w")
code = cli.main([%r, "--seed", "1", "--sandbox", "process", "--report-dir", %r])
seen["end"] = sorted(sys.modules)
seen["code"] = code
sys.__stdout__.write(json.dumps(seen))
"""

# Never loaded for one grading of a module.
NEVER = (
    "multiprocessing",
    "concurrent.futures",
    "grader.engine.batch.run",
    "grader.engine.batch.cache",
    "grader.engine.batch.command",
    "grader.engine.batch.classout",
    "grader.engine.batch.job",
    "grader.engine.similarity.classpass",
    "grader.engine.batch.pages",
    "jinja2",
    "jsonschema",
    "rich",
    # a .py module graded in English: no notebook, no archive, no Korean particles
    "grader.engine.handin.notebook",
    "grader.engine.handin.ipynb",
    "grader.engine.handin.cellkinds",
    "grader.engine.handin.archives",
    "grader.engine.messages.korean",
)
# Loaded only when a grading needs them (a grader error's traceback, a .zip, a
# selector that names nothing): never before the child starts.
NOT_FIRST = ("traceback", "zipfile", "difflib")
# Loaded once the child has its calls, and only then.
LATER = (
    "markdown_it",
    "grader.labs.embed.reports.checking",
    "grader.labs.embed.reports.findings",
)


def _grading() -> dict[str, object]:
    script = SCRIPT % (str(ROOT / "embed.py"), str(ROOT / "reference"))
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen: dict[str, object] = json.loads(done.stdout)
    return seen


def test_one_grading_loads_no_class_machinery_and_the_report_checks_after_the_calls_go_out() -> (
    None
):
    seen = _grading()
    assert seen["code"] == 0
    spawn, run, end = (set(seen[k]) for k in ("spawn", "run", "end"))  # type: ignore[call-overload]
    assert not [m for m in NEVER if m in end], "loaded by one grading"
    assert not [m for m in NOT_FIRST if m in spawn], "loaded before the child started"
    assert spawn <= run
    assert not [m for m in LATER if m in run], "loaded before the calls went out"
    assert all(m in end for m in LATER)  # the report was checked


def test_the_batch_package_still_gives_every_name_it_lists() -> None:
    script = (
        "import sys, grader.engine.batch as b\n"
        "assert 'grader.engine.batch.run' not in sys.modules\n"
        "from grader.engine.batch import run_batch, BatchOptions\n"
        "from grader.engine.batch.run import run_batch as home\n"
        "assert run_batch is home\n"
        "missing = [n for n in b.__all__ if getattr(b, n, None) is None]\n"
        "assert not missing, missing\n"
        "try:\n"
        "    b.no_such_name\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
