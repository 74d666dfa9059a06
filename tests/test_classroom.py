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
from grader.engine.commands.cli import main
from grader.engine.output.classroom import RUNNERS, classroom_results
from grader.engine.vocabulary.results import Report

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "ci-templates" / "github-actions-grade.yml"
REFERENCE = ROOT / "reference"
WRONG = ROOT / "tests" / "corpus" / "wrong" / "cosine_not_divided.py"
STUB = ROOT / "exercises" / "embed.py"


# What autograding-grading-reporter@v1 does with the results of its runners
# (src/main.js, notify-classroom.js, console-results.js, helpers/test-helpers.js).


def reporter_fails(results: dict[str, dict[str, Any]]) -> bool:
    """Whether the reporter fails its job (a red check) for these results."""
    return any(r.get("status") in ("fail", "error") for r in results.values())


def reporter_points(results: dict[str, dict[str, Any]]) -> tuple[float, float]:
    """The notice it posts, ``Points X/Y``, which Classroom records: the tests' scores
    over the results' max_score, results with a max_score of 0 left out."""
    counted = [r for r in results.values() if r.get("max_score")]
    got = 0.0
    for r in counted:
        for t in r["tests"]:
            got += t["score"]
    most = 0.0
    for r in counted:
        most += r["max_score"]
    return got, most


def reporter_log(results: dict[str, dict[str, Any]]) -> tuple[float, float]:
    """The total of its log's table: per result, the share of tests that pass times
    its max_score."""
    got = most = 0.0
    for r in results.values():
        tests = r["tests"]
        passed = sum(1 for t in tests if t["status"] == "pass")
        got += passed / len(tests) * (r.get("max_score") or 0)
        most += r.get("max_score") or 0
    return got, most


def check_shape(results: dict[str, dict[str, Any]]) -> None:
    assert list(results) == list(RUNNERS)
    for result in results.values():
        assert result["version"] == 1 and result["status"] in ("pass", "fail", "error")
        assert isinstance(result["max_score"], (int, float))
        assert result["tests"]  # an empty list makes the reporter's log say NaN
        for t in result["tests"]:
            assert {"name", "status", "score", "message"} <= set(t)
            assert t["status"] in ("pass", "fail", "error") and t["score"] >= 0


def test_a_partly_done_student_gets_points_and_no_red_check() -> None:
    report = grade(WRONG, seed=4, report_dir=REFERENCE)
    results = classroom_results(report)
    check_shape(results)
    assert 0 < report.score < 100
    assert reporter_points(results) == (report.score, 100)
    assert not reporter_fails(results)
    steps = results["steps"]["tests"]
    failing = [t for t in steps if t["status"] == "fail"]
    assert failing and any("cosine" in t["message"] for t in failing)
    assert len(steps) == 9  # one per step


def test_the_log_and_the_notice_give_the_same_points() -> None:
    """Steps of partial points: the log counted passing tests, the notice points."""
    for module in (WRONG, STUB, ROOT / "embed.py"):
        report = grade(module, seed=4, report_dir=REFERENCE)
        results = classroom_results(report)
        assert reporter_log(results) == reporter_points(results) == (report.score, 100)
    # Every score to the hundredth adds up to the full marks exactly, as in JavaScript.
    for hundredths in range(10001):
        got = hundredths / 100
        assert got + round(100 - got, 2) == 100


def test_the_untouched_stub_scores_nothing_and_a_grader_fault_reports_no_points() -> None:
    stub = classroom_results(grade(STUB, seed=4, report_dir=REFERENCE))
    assert reporter_points(stub) == (0, 100)
    fault = Report(path="embed.py", seed=1, checks=(), grader_error="boom\x1b[2J")
    results = classroom_results(fault)
    check_shape(results)
    # No points at all for a fault of the grader: not 0 of 100.
    assert reporter_points(results) == (0, 0) and reporter_fails(results)
    assert reporter_log(results) == (0, 0)
    assert "\x1b" not in json.dumps(results)


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
        step_id = re.fullmatch(r"\$\{\{ steps\.(\w+)\.outputs\.%s \}\}" % runner, value)
        assert step_id is not None
        assert any(s.get("id") == step_id.group(1) for s in steps)
    assert reporter["if"] == "${{ !cancelled() }}"
    assert runners == list(RUNNERS)
    # The grade step runs after a failed install too, so that the reporter has results.
    [grade_step] = [s for s in steps if s.get("id") == "embed"]
    assert grade_step["if"] == "${{ !cancelled() }}"


def test_the_example_address_is_the_student_edition() -> None:
    addresses = re.findall(r"https://\S+\.whl", WORKFLOW.read_text("utf-8"))
    assert addresses and all("embed_grader_student-" in a for a in addresses)


def grade_step_script() -> str:
    steps = workflow()["jobs"]["run-autograding-tests"]["steps"]
    [step] = [s for s in steps if s.get("id") == "embed"]
    script: str = step["run"]
    return script


def run_grade_step(
    repo: Path, tmp_path: Path, installed: bool = True
) -> tuple[int, dict[str, dict[str, Any]], str]:
    """The grade step's script, as the runner would run it, with this grader."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    # The runner's python holds the grader: this one, wherever it is started from.
    python = bin_dir / "python"
    python.unlink(missing_ok=True)
    python.write_text('#!/bin/sh\nexec "%s" "$@"\n' % sys.executable)
    python.chmod(0o755)
    if installed:
        grader = bin_dir / "embed-grader"
        grader.write_text('#!/bin/sh\nexec "%s" -m grader "$@"\n' % sys.executable)
        grader.chmod(0o755)
    output, summary = tmp_path / "output", tmp_path / "summary"
    output.write_text("")
    summary.write_text("")
    path = "%s:/usr/bin:/bin" % bin_dir
    env = dict(os.environ, PATH=path, PYTHONPATH=str(ROOT) if installed else "")
    env.update(GITHUB_OUTPUT=str(output), GITHUB_STEP_SUMMARY=str(summary))
    done = subprocess.run(
        ["bash", "-e", "-c", grade_step_script()],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    results = {}
    for line in output.read_text().splitlines():
        runner, _, data = line.partition("=")
        results[runner] = json.loads(base64.b64decode(data))
    return done.returncode, results, summary.read_text()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_grade_step_reports_points_in_classrooms_way(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copyfile(WRONG, repo / "embed.py")
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, repo / name)
    status, results, summary = run_grade_step(repo, tmp_path)
    assert status == 0
    check_shape(results)
    score = float(re.search(r"score ([\d.]+) / 100", summary).group(1))  # type: ignore[union-attr]
    got, most = reporter_points(results)
    assert 0 < score < 100 and got == pytest.approx(score, abs=0.05) and most == 100
    assert reporter_log(results) == (got, most)
    assert not reporter_fails(results)
    assert "<pre>" in summary
    # Nothing to grade: no points, the reason, and a red check.
    (repo / "embed.py").unlink()
    status, results, summary = run_grade_step(repo, tmp_path / "none")
    assert status == 0 and reporter_fails(results)
    check_shape(results)
    assert reporter_points(results) == reporter_log(results) == (0, 100)
    assert "embed.py" in results["steps"]["tests"][0]["message"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_grade_step_finds_the_module_as_batch_does(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    shutil.copyfile(ROOT / "embed.py", repo / "src" / "embed.py")
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, repo / "src" / name)
    status, results, summary = run_grade_step(repo, tmp_path)
    assert status == 0 and not reporter_fails(results)
    assert reporter_points(results) == (100, 100) and "src/embed.py" in summary


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_without_the_grader_the_reporter_is_told_what_is_missing(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copyfile(ROOT / "embed.py", repo / "embed.py")
    status, results, _ = run_grade_step(repo, tmp_path, installed=False)
    assert status == 0 and reporter_fails(results)
    check_shape(results)
    assert reporter_points(results) == reporter_log(results) == (0, 100)
    message = results["steps"]["tests"][0]["message"]
    assert "embed-grader is not installed" in message and "EMBED_GRADER_WHEEL" in message
