"""The junit and gradescope formats, checked against their schemas, and the Gradescope bundle."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader import grade
from grader.engine.commands.cli import main, parser
from grader.engine.output.byformat import FORMATS, render
from grader.engine.output.render import render_text
from grader.engine.output.systems import clean, gradescope_results, render_gradescope, render_junit
from grader.engine.vocabulary.results import CheckResult, Report, Status
from grader.labs.embed.contract import MAX_SCORE

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
WRONG = ROOT / "tests" / "corpus" / "wrong" / "cosine_not_divided.py"
GRADESCOPE_SCHEMA = ROOT / "grader" / "engine" / "schemas" / "gradescope-results.schema.json"
BUNDLER = ROOT / "ci-templates" / "gradescope" / "build_bundle.py"

NASTY = "a\x00b\x07c\x1b[31md\x7f <&> \"quoted\" 'single' \ud800 \ufffe \uffff ]]> é 한 中"


@pytest.fixture(scope="module")
def right() -> Report:
    return grade(ROOT / "embed.py", seed=3, report_dir=REFERENCE)


@pytest.fixture(scope="module")
def wrong() -> Report:
    return grade(WRONG, seed=3, report_dir=REFERENCE)


def nasty_report() -> Report:
    """A report whose every text holds characters that XML 1.0 cannot carry."""
    checks = (
        CheckResult(
            "dot.values", 2, "dot", Status.FAIL, 0.0, 5.0, NASTY, reproduce=NASTY, code="value"
        ),
        CheckResult(
            "rms.values",
            7,
            "rms",
            Status.ERROR,
            0.0,
            5.0,
            NASTY,
            hint=NASTY,
            details={"traceback": NASTY + "\nline 2\x0c", "snippet": NASTY},
        ),
        CheckResult("norm.values", 6, "norm", Status.TIMEOUT, 0.0, 5.0, NASTY, code="timeout"),
        CheckResult("shape.values", 1, "shape", Status.SKIP, 0.0, 5.0, NASTY, code="not_started"),
        CheckResult("one_hot.open", 3, "one_hot", Status.ADVISORY, 0.0, 0.0, NASTY),
        CheckResult("lookup.values", 2, "lookup", Status.PASS, 5.0, 5.0, NASTY),
    )
    return Report(path=NASTY, seed=7, checks=checks, elapsed=0.5)


# JUnit -----------------------------------------------------------------------------------

COUNTS = ("tests", "failures", "errors", "skipped")
OUTCOMES = {"failure", "error", "skipped"}


def validate_junit(xml: str) -> ET.Element:
    """The structure of the common JUnit XML schema (the one CI systems read).

    testsuites (tests, failures, errors, skipped, time) > testsuite (name, the same
    counts, time; properties > property (name, value)) > testcase (name, classname,
    time) with at most one of failure / error (message, type, text) / skipped
    (message), and system-out; after its test cases a suite may have a system-out.
    """
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    xml.encode("utf-8")  # no lone surrogates
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "testsuites"
    totals = dict.fromkeys(COUNTS, 0)
    assert float(root.get("time", "x")) >= 0
    for suite in root:
        assert suite.tag == "testsuite"
        assert suite.get("name")
        assert float(suite.get("time", "x")) >= 0
        counts = dict.fromkeys(COUNTS, 0)
        children = list(suite)
        if children and children[-1].tag == "system-out":
            children.pop()
        for child in children:
            if child.tag == "properties":
                for prop in child:
                    assert prop.tag == "property" and set(prop.attrib) == {"name", "value"}
                continue
            assert child.tag == "testcase", child.tag
            assert child.get("name") and child.get("classname")
            assert float(child.get("time", "x")) >= 0
            counts["tests"] += 1
            outcomes = [el for el in child if el.tag in OUTCOMES]
            assert len(outcomes) <= 1
            assert {el.tag for el in child} <= OUTCOMES | {"system-out", "system-err"}
            for el in outcomes:
                assert el.get("message") is not None
                key = {"failure": "failures", "error": "errors", "skipped": "skipped"}[el.tag]
                counts[key] += 1
                if el.tag != "skipped":
                    assert el.get("type") and el.text
        for key in COUNTS:
            assert int(suite.get(key, "x")) == counts[key], (suite.get("name"), key)
            totals[key] += counts[key]
    for key in COUNTS:
        assert int(root.get(key, "x")) == totals[key], key
    return root


def test_formats_are_registered_and_offered() -> None:
    assert {"text", "json", "junit", "gradescope"} <= set(FORMATS)
    fmt = next(a for a in parser()._actions if a.dest == "format")
    assert {"junit", "gradescope"} <= set(fmt.choices or ())


def test_junit_of_a_right_module(right: Report) -> None:
    root = validate_junit(render(right, "junit"))
    graded = [c for c in right.checks if c.status is not Status.ADVISORY]
    assert int(root.get("tests", "0")) == len(graded)
    assert root.get("failures") == root.get("errors") == "0"
    assert len(root.findall("testsuite")) == len({c.step for c in right.checks})
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["seed"] == "3" and props["score"] == "100"


def test_junit_of_a_wrong_module(wrong: Report) -> None:
    root = validate_junit(render_junit(wrong))
    failed = [c for c in wrong.checks if c.status is Status.FAIL]
    assert failed and int(root.get("failures", "0")) == len(failed)
    names = {case.get("name") for case in root.iter("testcase") if case.find("failure") is not None}
    assert "cosine.values" in names or any(n.startswith("cosine.") for n in names)
    failure = next(root.iter("failure"))
    assert "\n" not in failure.get("message", "")
    assert "--seed 3" in (failure.text or "")  # the replay command is in the text


def test_junit_counts_the_tests_the_text_counts(wrong: Report) -> None:
    """A step's label says ``FAIL n/m``; its suite has m tests, n of them failing.  What
    open behaviour did is no test: it is the suite's output."""
    labels = re.findall(r"^step (\d) .*FAIL (\d+)/(\d+)$", render_text(wrong), re.M)
    assert labels
    root = validate_junit(render_junit(wrong))
    suites = {int(s.get("name", "")[5]): s for s in root.findall("testsuite")}
    for step, failing, total in labels:
        suite = suites[int(step)]
        assert suite.get("tests") == total, step
        assert int(suite.get("failures", "")) + int(suite.get("errors", "")) == int(failing)
    open_behaviour = [c for c in wrong.checks if c.status is Status.ADVISORY]
    assert open_behaviour
    notes = "".join(s.findtext("system-out") or "" for s in root.findall("testsuite"))
    assert all(c.message in notes for c in open_behaviour)
    names = {case.get("name") for case in root.iter("testcase")}
    assert not names & {c.id for c in open_behaviour}


def test_junit_has_the_same_tests_whether_or_not_the_module_imports(
    right: Report, tmp_path: Path
) -> None:
    broken = tmp_path / "embed.py"
    broken.write_text("def lookup(table, ids)\n    return []\n", encoding="utf-8")
    failed = grade(broken, seed=3, report_dir=REFERENCE)
    assert any(c.id == "imports.load" and not c.ok for c in failed.checks)

    def cases(report: Report) -> list[str | None]:
        return [c.get("name") for c in validate_junit(render_junit(report)).iter("testcase")]

    assert cases(failed) == cases(right) and len(cases(right)) > 100
    root = validate_junit(render_junit(failed))
    assert root.get("tests") == str(len(cases(right)))


def test_junit_escapes_what_xml_cannot_hold() -> None:
    xml = render_junit(nasty_report())
    root = validate_junit(xml)
    assert root.get("failures") == "1" and root.get("errors") == "2" and root.get("skipped") == "1"
    failure = next(root.iter("failure"))
    message = failure.get("message", "")
    for raw in ("\x00", "\x07", "\x1b", "\x7f", "\ud800", "\ufffe", "\uffff"):
        assert raw not in xml
    assert "a\\x00b\\x07c\\x1b[31md\\x7f" in message
    assert "<&>" in message and '"quoted"' in message and "]]>" in message
    assert "\\ud800" in message and "é 한 中" in message
    case = next(c for c in root.iter("testcase") if c.get("name") == "rms.values")
    error = case.find("error")
    assert error is not None and "line 2" in (error.text or "")
    assert "\\x1b[31m" in (error.text or "")


def test_junit_of_a_grader_error() -> None:
    report = Report(path="embed.py", seed=1, checks=(), grader_error="boom\x00")
    root = validate_junit(render_junit(report))
    assert root.get("errors") == "1"
    assert "boom\\x00" in next(root.iter("error")).get("message", "")


def test_clean_keeps_ordinary_text() -> None:
    text = "tab\there\nnew line\r, ünïcödé, 한국어, 中文, emoji 🙂"
    assert clean(text) == text


# Gradescope ------------------------------------------------------------------------------


def gradescope_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(GRADESCOPE_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def validate_gradescope(text: str) -> dict[str, Any]:
    text.encode("utf-8")
    data: dict[str, Any] = json.loads(text)
    jsonschema.validate(data, gradescope_schema(), cls=jsonschema.Draft202012Validator)
    return data


def test_gradescope_of_a_right_module(right: Report) -> None:
    data = validate_gradescope(render(right, "gradescope"))
    # Gradescope's specification has no top-level max_score: each test has its own.
    assert data["score"] == MAX_SCORE and "max_score" not in data
    # One test per check of the code, seven for the 46 checks of the report step.
    code_checks = [c for c in right.checks if c.function != "report"]
    assert len([c for c in right.checks if c.function == "report"]) == 46
    assert len(data["tests"]) == len(code_checks) + 7
    assert all(t["status"] == "passed" for t in data["tests"])
    assert round(sum(t["max_score"] for t in data["tests"]), 2) == MAX_SCORE
    assert "seed 3" in data["output"]


def test_gradescope_of_a_wrong_module(wrong: Report) -> None:
    data = validate_gradescope(render_gradescope(wrong))
    assert data["score"] == wrong.score < MAX_SCORE
    assert round(sum(t["score"] for t in data["tests"]), 2) == data["score"]
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert failed and all(t["score"] == 0 for t in failed)
    assert all(t["visibility"] == "visible" and t["output"] for t in data["tests"])
    numbers = [t["number"] for t in data["tests"]]
    assert len(set(numbers)) == len(numbers)


def test_gradescope_groups_the_report_checks(tmp_path: Path) -> None:
    """Forgotten report files are one failing test, not one per report check: the
    files the code writes are graded, the ones handed in only have to match them."""
    report = grade(ROOT / "embed.py", seed=3, report_dir=tmp_path)
    data = validate_gradescope(render_gradescope(report))
    failed = [t for t in data["tests"] if t["status"] == "failed"]
    assert [t["name"] for t in failed] == [
        "report files · write_report: the files it writes, and whether they match those handed in",
    ]
    assert "report.same" in failed[0]["output"] and "python embed.py" in failed[0]["output"]
    assert "1 of 2 checks passed" in failed[0]["output"]
    report_tests = [t for t in data["tests"] if t["name"].startswith("report files")]
    assert len(report_tests) == 7
    assert 99 < data["score"] < 100
    # Handed-in files with one value changed: still that one test, and only it.
    (tmp_path / "embed_report.md").write_text(
        (REFERENCE / "embed_report.md").read_text(encoding="utf-8"), encoding="utf-8"
    )
    values = json.loads((REFERENCE / "embed_report.json").read_text(encoding="utf-8"))
    values["vocab"] = 500
    (tmp_path / "embed_report.json").write_text(json.dumps(values), encoding="utf-8")
    data = validate_gradescope(
        render_gradescope(grade(ROOT / "embed.py", seed=3, report_dir=tmp_path))
    )
    failing = [t for t in data["tests"] if t["status"] == "failed"]
    assert [t["name"] for t in failing] == [t["name"] for t in failed]
    # Handed-in files equal to what the code writes: every report test passes.
    (tmp_path / "embed_report.json").write_text(
        (REFERENCE / "embed_report.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    data = validate_gradescope(
        render_gradescope(grade(ROOT / "embed.py", seed=3, report_dir=tmp_path))
    )
    assert all(t["status"] == "passed" for t in data["tests"])


def test_gradescope_of_nasty_text_and_of_a_grader_error() -> None:
    data = validate_gradescope(render_gradescope(nasty_report()))
    assert "\\x00" in data["tests"][0]["output"]
    broken = Report(path="embed.py", seed=1, checks=(), grader_error="boom")
    data = gradescope_results(broken)
    validate_gradescope(json.dumps(data))
    assert data["score"] == 0 and "max_score" not in data and data["tests"] == []


def test_schema_rejects_malformed_results(right: Report) -> None:
    schema = gradescope_schema()
    good = gradescope_results(right)
    for bad in (
        {k: v for k, v in good.items() if k != "tests"} | {"tests": [{"status": "ok"}]},
        good | {"score": "100"},
        good | {"tests": [good["tests"][0] | {"visibility": "everyone"}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)


def test_cli_writes_both_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = tmp_path / "embed.py"
    shutil.copyfile(WRONG, module)
    for fmt, check in (("junit", validate_junit), ("gradescope", validate_gradescope)):
        out = tmp_path / ("out." + fmt)
        status = main(
            [str(module), "--seed", "5", "--report-dir", str(REFERENCE), "--format", fmt]
            + ["--output", str(out), "--check", "cosine"]
        )
        assert status == 1
        check(out.read_text(encoding="utf-8"))
        assert "cosine" in capsys.readouterr().out  # the text report goes to the terminal


# The Gradescope bundle -------------------------------------------------------------------


def load_bundler() -> Any:
    spec = importlib.util.spec_from_file_location("build_bundle", BUNDLER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wheel_holds_the_grader_and_no_solution(tmp_path: Path) -> None:
    bundler = load_bundler()
    built = bundler.build_wheel(ROOT, tmp_path / "dist")
    with zipfile.ZipFile(built) as z:
        names = z.namelist()
    assert "grader/engine/commands/cli.py" in names and "grader/engine/messages/en.json" in names
    assert not [n for n in names if n.rsplit("/", 1)[-1] == "embed.py" or "reference/" in n]
    assert {n.split("/")[0] for n in names} == {
        "grader",
        built.name.split("-py3")[0] + ".dist-info",
    }
    assert bundler.stray_files(built) == []
    # A wheel that carried the answer key would be refused.
    bad = tmp_path / "bad.whl"
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("grader/engine/commands/cli.py", "")
        z.writestr("embed.py", "")
        z.writestr("reference/embed_report.json", "{}")
        z.writestr("embed_grader-0.1.0.dist-info/METADATA", "")
    assert sorted(bundler.stray_files(bad)) == ["embed.py", "reference/embed_report.json"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_setup_stops_clearly_without_python_310(tmp_path: Path) -> None:
    """An image whose python3 is older than 3.10, with nothing to install a newer one from."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("dirname", "cat"):
        found = shutil.which(tool)
        assert found is not None
        (bin_dir / tool).symlink_to(found)
    old = bin_dir / "python3"
    old.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'Python 3.8.10'\nexit 1\n")
    old.chmod(0o755)
    run = subprocess.run(
        ["/bin/bash", str(ROOT / "ci-templates" / "gradescope" / "setup.sh")],
        env={"PATH": str(bin_dir), "AUTOGRADER_ROOT": str(tmp_path / "autograder")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "Python 3.10 or newer" in run.stderr and "Python 3.8.10" in run.stderr
    assert "Ubuntu 22.04" in run.stderr
    assert not (tmp_path / "autograder" / "embed-grader-venv").exists()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_gradescope_bundle_grades_a_fake_autograder(tmp_path: Path) -> None:
    bundle = load_bundler().build(ROOT, tmp_path / "dist")
    assert bundle.name == "gradescope-autograder.zip"
    source = tmp_path / "autograder" / "source"
    with zipfile.ZipFile(bundle) as z:
        names = set(z.namelist())
        assert {"setup.sh", "run_autograder", "gradescope.json"} <= names
        wheels = [n for n in names if n.endswith(".whl") and "/" not in n]
        assert len(wheels) == 1
        z.extractall(source)
    for script in ("setup.sh", "run_autograder"):
        assert subprocess.run(["bash", "-n", str(source / script)]).returncode == 0
    # The grader as the wheel installs it, with this interpreter's dependencies.
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
        + ["--target", str(site), str(source / wheels[0])],
        check=True,
    )
    root = tmp_path / "autograder"
    (root / "submission").mkdir()
    shutil.copyfile(WRONG, root / "submission" / "embed.py")
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, root / "submission" / name)
    env = dict(
        os.environ,
        AUTOGRADER_ROOT=str(root),
        EMBED_GRADER="%s -m grader" % sys.executable,
        EMBED_GRADER_SEED="11",
        PYTHONPATH=str(site),
    )
    run = subprocess.run(
        ["bash", str(source / "run_autograder")], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    results = root / "results" / "results.json"
    raw = results.read_text(encoding="utf-8")
    data = validate_gradescope(raw)
    assert 0 < data["score"] < MAX_SCORE and "seed 11" in data["output"]
    # The feedback reads from the student's folder, not from this machine's.
    assert str(root) not in raw and str(tmp_path) not in raw
    outputs = "\n".join(t["output"] for t in data["tests"])
    assert "embed-grader embed.py --seed 11 --check cosine." in outputs
    assert "python3 -c 'import embed; print(embed.cosine(" in outputs
    assert "cosine" in run.stdout  # the text report goes to the log
    # Without a submission the student still gets a results.json that says why.
    (root / "submission" / "embed.py").unlink()
    run = subprocess.run(
        ["bash", str(source / "run_autograder")], env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    data = validate_gradescope(results.read_text(encoding="utf-8"))
    assert data["score"] == 0 and "embed.py" in data["output"]


def _requires(wheel: Path) -> list[str]:
    """The names of what a wheel needs (not its extras), from its METADATA."""
    with zipfile.ZipFile(wheel) as z:
        [meta] = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        lines = z.read(meta).decode("utf-8").splitlines()
    wanted = [line.split(":", 1)[1] for line in lines if line.startswith("Requires-Dist:")]
    return [re.split(r"[ ;<>=!~\[(]", r.strip())[0] for r in wanted if "extra ==" not in r]


def _wheel_name(filename: str) -> str:
    return re.sub(r"[-_.]+", "-", filename.split("-")[0]).lower()


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_bundle_ships_every_wheel_setup_needs_and_setup_asks_no_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bundler = load_bundler()
    # Without a reachable package index, pip gives up soon and the test is skipped.
    monkeypatch.setenv("PIP_RETRIES", "1")
    monkeypatch.setenv("PIP_TIMEOUT", "30")
    try:
        bundle = bundler.build(ROOT, tmp_path / "dist")
    except subprocess.CalledProcessError:
        pytest.skip("pip download found no package index to fetch the dependencies from")
    source = tmp_path / "autograder" / "source"
    with zipfile.ZipFile(bundle) as z:
        z.extractall(source)
    [grader] = source.glob("embed_grader-*.whl")
    shipped = sorted((source / bundler.WHEELS).glob("*.whl"))
    names = {_wheel_name(w.name) for w in shipped}
    assert {re.sub(r"[-_.]+", "-", r).lower() for r in _requires(grader)} <= names
    assert "embed-grader" not in names
    # A compiled dependency is there for every Python that setup.sh may pick.
    compiled = [w.name for w in shipped if "-cp3" in w.name]
    for version in bundler.PYTHONS:
        tag = "-cp%s-" % version.replace(".", "")
        assert any(tag in n for n in compiled), (version, compiled)
    setup = (source / "setup.sh").read_text("utf-8")
    installs = [line for line in setup.splitlines() if "pip install" in line]
    assert installs and all("--no-index" in line for line in installs)
    # setup.sh with this Python and no package index at all: pip may read nothing else.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python3").symlink_to(sys.executable)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(
        PATH="%s:/usr/bin:/bin" % bin_dir,
        AUTOGRADER_ROOT=str(tmp_path / "autograder"),
        PIP_CONFIG_FILE=os.devnull,
        PIP_INDEX_URL="http://127.0.0.1:9/simple",
        PIP_RETRIES="0",
        PIP_TIMEOUT="1",
    )
    run = subprocess.run(
        ["bash", str(source / "setup.sh")], env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "embed-grader" in run.stdout
