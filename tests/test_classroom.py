"""GitHub Classroom: the result its reporter reads (``--format classroom``) and the
workflow template that runs the grader once per change and reports the points."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader import grade
from grader.engine.classroom import classroom_result
from grader.engine.cli import main
from grader.engine.results import Report

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "ci-templates" / "github-actions-grade.yml"
REFERENCE = ROOT / "reference"
WRONG = ROOT / "tests" / "corpus" / "wrong" / "cosine_not_divided.py"
STUB = ROOT / "exercises" / "embed.py"


def reporter_fails(results: list[dict[str, Any]]) -> bool:
    """Whether autograding-grading-reporter fails its job (a red check) for these results."""
    return any(r.get("status") in ("fail", "error") for r in results)


def reporter_points(results: list[dict[str, Any]]) -> tuple[float, float]:
    """What the reporter sends Classroom: the tests' scores over the results' max_score."""
    got = sum(t["score"] for r in results if r.get("max_score") for t in r["tests"])
    return got, sum(r.get("max_score") or 0 for r in results)


def check_shape(result: dict[str, Any]) -> None:
    assert result["version"] == 1 and result["status"] in ("pass", "fail", "error")
    assert isinstance(result["max_score"], (int, float))
    for t in result["tests"]:
        assert {"name", "status", "score", "message"} <= set(t)
        assert t["status"] in ("pass", "fail", "error") and t["score"] >= 0


def test_a_partly_done_student_gets_points_and_no_red_check() -> None:
    report = grade(WRONG, seed=4, report_dir=REFERENCE)
    result = classroom_result(report)
    check_shape(result)
    assert 0 < report.score < 100
    assert reporter_points([result]) == (pytest.approx(report.score, abs=0.05), 100)
    assert not reporter_fails([result])
    failing = [t for t in result["tests"] if t["status"] == "fail"]
    assert failing and any("cosine" in t["message"] for t in failing)
    assert len(result["tests"]) == 9  # one per step


def test_the_untouched_stub_scores_nothing_and_a_grader_fault_reports_no_points() -> None:
    stub = classroom_result(grade(STUB, seed=4, report_dir=REFERENCE))
    assert reporter_points([stub]) == (0, 100)
    fault = Report(path="embed.py", seed=1, checks=(), grader_error="boom\x1b[2J")
    result = classroom_result(fault)
    check_shape(result)
    # No points at all for a fault of the grader: not 0 of 100.
    assert reporter_points([result]) == (0, 0) and reporter_fails([result])
    assert "\x1b" not in json.dumps(result)


def test_the_format_is_offered(tmp_path: Path) -> None:
    out = tmp_path / "grade.json"
    args = [str(WRONG), "--seed", "4", "--report-dir", str(REFERENCE)]
    assert main(args + ["--format", "classroom", "--output", str(out)]) == 1
    check_shape(json.loads(out.read_text("utf-8")))


# The workflow ------------------------------------------------------------------------------


def workflow() -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    return data


def test_classroom_finds_the_workflow_and_it_runs_once_per_change() -> None:
    data = workflow()
    text = WORKFLOW.read_text("utf-8")
    # The names Classroom looks for, to take the points from the reporter.
    assert data["name"] == "Autograding Tests"
    assert list(data["jobs"]) == ["run-autograding-tests"]
    triggers = data.get("on", data.get(True))
    # Classroom's feedback pull request would start a second run of every push.
    assert set(triggers) == {"push", "workflow_dispatch", "repository_dispatch"}
    assert data["concurrency"]["cancel-in-progress"] is True
    assert "github.ref" in data["concurrency"]["group"]
    # Nothing to set per repository or organisation: no variables, no secrets.
    assert "vars." not in text and "secrets." not in text
    assert "advisory" in text


def test_the_reporter_reads_the_grade_steps_result() -> None:
    steps = workflow()["jobs"]["run-autograding-tests"]["steps"]
    [reporter] = [s for s in steps if "autograding-grading-reporter" in s.get("uses", "")]
    runners = [r.strip() for r in reporter["with"]["runners"].split(",")]
    for runner in runners:
        value = reporter["env"]["%s_RESULTS" % runner.upper()]
        step_id = re.fullmatch(r"\$\{\{ steps\.(\w+)\.outputs\.result \}\}", value)
        assert step_id is not None
        assert any(s.get("id") == step_id.group(1) for s in steps)
    assert reporter["if"] == "${{ !cancelled() }}"


def grade_step_script() -> str:
    steps = workflow()["jobs"]["run-autograding-tests"]["steps"]
    [step] = [s for s in steps if s.get("id") == "embed"]
    script: str = step["run"]
    return script


def run_grade_step(repo: Path, tmp_path: Path) -> tuple[int, dict[str, Any], str]:
    """The grade step's script, as the runner would run it, with this grader."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "python").unlink(missing_ok=True)
    (bin_dir / "python").symlink_to(sys.executable)
    grader = bin_dir / "embed-grader"
    grader.write_text('#!/bin/sh\nexec "%s" -m grader "$@"\n' % sys.executable)
    grader.chmod(0o755)
    output, summary = tmp_path / "output", tmp_path / "summary"
    output.write_text("")
    summary.write_text("")
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]), PYTHONPATH=str(ROOT))
    env.update(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary))
    done = subprocess.run(
        ["bash", "-e", "-c", grade_step_script()],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    [line] = output.read_text().splitlines()
    assert line.startswith("result=")
    result = json.loads(base64.b64decode(line[len("result=") :]))
    return done.returncode, result, summary.read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_grade_step_reports_points_in_classrooms_way(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copyfile(WRONG, repo / "embed.py")
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, repo / name)
    status, result, summary = run_grade_step(repo, tmp_path)
    assert status == 0
    check_shape(result)
    score = float(re.search(r"score ([\d.]+) / 100", summary).group(1))  # type: ignore[union-attr]
    got, most = reporter_points([result])
    assert 0 < score < 100 and got == pytest.approx(score, abs=0.05) and most == 100
    assert not reporter_fails([result])
    assert "<pre>" in summary
    # Nothing to grade: no points, the reason, and a red check.
    (repo / "embed.py").unlink()
    status, result, summary = run_grade_step(repo, tmp_path / "none")
    assert status == 0 and reporter_fails([result])
    assert reporter_points([result]) == (0, 100) and "embed.py" in result["tests"][0]["message"]
