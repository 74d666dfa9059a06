"""Growing the stub one step at a time, as a student does."""

from __future__ import annotations

import ast
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest

from grader import grade
from grader.engine.messages import text
from grader.engine.outputs import render
from grader.engine.results import Status
from grader.labs.embed import contract

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


# What each step's label says ----------------------------------------------------------

LANGUAGES = ("en", "ko", "zh")
SCHEMA = json.loads(
    (ROOT / "grader" / "engine" / "schemas" / "result.schema.json").read_text("utf-8")
)


def _line(out: str, lang: str, step: int) -> str:
    head = text("render.step", lang, step=step, title=text("step.%d" % step, lang))
    return next(line for line in out.splitlines() if line.startswith(head))


@pytest.fixture(scope="module")
def stub(tmp_path_factory):
    folder = tmp_path_factory.mktemp("stub")
    shutil.copy(ROOT / "exercises" / "embed.py", folder / "embed.py")
    return folder / "embed.py"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_untouched_stub_says_what_is_true(stub, lang):
    report = grade(stub, seed=1, lang=lang)
    states = report.step_states()
    assert states == {0: "waiting", **{s: "skip" for s in range(1, 8)}, 8: "not_written"}
    out = render(report, "text", lang)
    zero, eight = _line(out, lang, 0), _line(out, lang, 8)
    assert zero.endswith("  " + text("status.waiting", lang))
    assert eight.endswith("  " + text("status.not_written", lang))
    assert text("status.skip", lang) not in zero
    assert text("status.fail", lang) not in eight
    # The passing import checks say why they earn nothing yet, in every format.
    load = next(c for c in report.checks if c.id == "imports.load")
    assert load.points == 0 and text("idle.module", lang) in load.message
    data = json.loads(render(report, "json", lang))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    assert data["steps"]["0"]["state"] == "waiting"
    assert data["steps"]["8"]["state"] == "not_written"
    suites = ET.fromstring(render(report, "junit", lang)).findall("testsuite")
    # One suite per step, in step order.
    state = [s.find("properties/property[@name='state']").get("value") for s in suites]
    assert state[0] == text("status.waiting", lang)
    assert state[8] == text("status.not_written", lang)
    scope = json.loads(render(report, "gradescope", lang))
    # Gradescope's output is wrapped: a long state goes on below, under its column.
    shown = scope["output"].splitlines()
    for label in (zero, eight):
        first = next(i for i, line in enumerate(shown) if line.startswith(label[:12]))
        row = [shown[first]]
        for line in shown[first + 1 :]:
            if not line.startswith("    ") or not line.strip():
                break
            row.append(line.strip())
        assert "".join(row).replace(" ", "") == label.replace(" ", "")
    test = next(t for t in scope["tests"] if t["name"].endswith("imports.load"))
    assert text("idle.module", lang) in test["output"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_untouched_stub_has_one_note_for_its_functions(stub, lang):
    """One line names every function not started; -v shows nothing tried on them."""
    report = grade(stub, seed=1, lang=lang)
    out = render(report, "text", lang, verbose=True)
    notes = out[out.index(text("render.notes", lang)) :]
    items = [line for line in notes.splitlines() if line.startswith("  · ")]
    functions = [n.name for n in contract.FUNCTIONS if n.name != "write_report"]
    assert len(items) == 2, items  # the functions, and the report writer
    listed = notes.replace("\n", " ").replace("    ", "")
    assert all(name in listed for name in functions)
    # Nothing was tried on a function that only raises NotImplementedError.
    assert "NotImplementedError (" not in out
    assert text("render.open_count", lang, n=3)[:6] not in out


def test_counts_of_one_are_singular():
    assert text("render.open_count", "en", n=1).startswith("1 behaviour that")
    assert text("render.open_count", "en", n=2).startswith("2 behaviours that")
    assert text("pass", "en", n=1) == "1 case passed"
    assert text("inputs_ok", "en", n=1).endswith("(1 call)")
    for lang in LANGUAGES:
        assert text("render.open_count", lang, n=1) != text("render.open_count", lang, n=2)


def test_one_function_makes_the_import_count(tmp_path):
    path = tmp_path / "embed.py"
    path.write_text(student_at_step(1), "utf-8")
    report = grade(path, seed=2, check_reports=False)
    states = report.step_states()
    assert states[0] == "pass" and states[1] == "pass" and states[2] == "skip"
    assert all(text("idle.module", "en") not in c.message for c in report.checks)
    assert report.by_step()[0] == (5.0, 5.0)


def test_one_report_file_missing_is_a_failure(tmp_path):
    path = tmp_path / "embed.py"
    shutil.copy(ROOT / "embed.py", path)
    shutil.copy(ROOT / "reference" / "embed_report.json", tmp_path / "embed_report.json")
    report = grade(path, seed=2, only=["report"])
    assert report.step_states() == {8: "fail"}
    assert _line(render(report, "text", "en"), "en", 8).split()[-2] == text("status.fail", "en")
