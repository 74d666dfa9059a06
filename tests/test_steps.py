"""Growing the stub one step at a time, as a student does."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from grader import contract, grade
from grader.results import Status

ROOT = Path(__file__).resolve().parents[1]


def _defs(source: str) -> dict[str, str]:
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    return {
        node.name: "".join(lines[node.lineno - 1 : node.end_lineno])
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


def student_at_step(step: int) -> str:
    """The stub with every function of steps 1..step taken from the reference."""
    stub = (ROOT / "exercises" / "embed.py").read_text("utf-8")
    reference = _defs((ROOT / "embed.py").read_text("utf-8"))
    done = {n.name for n in contract.FUNCTIONS if n.step <= step}
    stub_defs = _defs(stub)
    for name in done:
        stub = stub.replace(stub_defs[name], reference[name])
    helpers = "".join(code for name, code in reference.items() if name.startswith("_"))
    return stub + "\n\n" + helpers


@pytest.mark.parametrize("step", range(1, 8))
def test_each_step_passes_and_later_ones_are_not_started(tmp_path, step):
    path = tmp_path / "embed.py"
    path.write_text(student_at_step(step), "utf-8")
    report = grade(path, seed=step, upto=step)
    assert report.passed, [c.message for c in report.checks if not c.ok]
    assert report.score == report.max_score == sum(contract.STEP_POINTS[s] for s in range(step + 1))
    everything = grade(path, seed=step, check_reports=False)
    assert not everything.grader_error
    later = [c for c in everything.checks if c.step > step and c.status is not Status.ADVISORY]
    assert bool(later) is (step < 7)
    assert all(c.status is Status.SKIP for c in later)
    assert all(c.code == "not_started" for c in later)


def test_the_bare_stub_scores_zero_and_does_not_crash(tmp_path):
    path = tmp_path / "embed.py"
    shutil.copy(ROOT / "exercises" / "embed.py", path)
    report = grade(path, seed=1)
    assert report.score == 0 and not report.passed
    assert not report.grader_error
    assert all(c.status is not Status.ERROR for c in report.checks)


@pytest.mark.parametrize("upto", range(1, 9))
def test_the_reference_gets_full_marks_at_every_upto(upto):
    report = grade(ROOT / "embed.py", seed=upto, upto=upto, report_dir=ROOT / "reference")
    assert report.passed
    assert report.score == report.max_score == sum(contract.STEP_POINTS[s] for s in range(upto + 1))
