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
from grader.engine.output.byformat import render
from grader.engine.vocabulary.results import Status
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


# Points for computing nothing ----------------------------------------------------------


def _stub_with(body: str) -> str:
    """The stub with every ``raise NotImplementedError`` replaced by ``body``."""
    return (
        (ROOT / "exercises" / "embed.py")
        .read_text("utf-8")
        .replace("raise NotImplementedError", body)
    )


def _refuses_everything() -> str:
    """Every function raises the error its refusals call for, whatever it is given."""
    source = _stub_with("raise IndexError")
    defs = _defs(source)
    for name in ("shape", "row_times_matrix", "logits"):
        source = source.replace(defs[name], defs[name].replace("IndexError", "ValueError"))
    return source


def _free_points(report) -> float:
    """What the rule lets a module that computes nothing keep: the import and the
    constants (its functions are written, so they count)."""
    free = [c for c in report.checks if c.id.startswith("imports.") or c.id.endswith(".value")]
    return round(sum(c.max_points for c in free), 2)


@pytest.mark.parametrize("kind", ["returns_none", "refuses_everything"])
def test_a_module_that_computes_nothing_keeps_only_the_constants(tmp_path, kind):
    path = tmp_path / "embed.py"
    path.write_text(_stub_with("return None") if kind == "returns_none" else _refuses_everything())
    report = grade(path, seed=3)
    assert not report.grader_error
    assert report.score == _free_points(report) == 8.33
    withheld = [
        c for c in report.checks if c.status is Status.PASS and c.points == 0 < c.max_points
    ]
    # Checks that any answer-free code passes: they pass, say what they wait for, and
    # earn nothing.
    assert {c.id.split(".", 1)[1] for c in withheld} <= {
        "inputs",
        "out_of_range",
        "ragged",
        "length",
        "width",
    }
    assert any(c.id == "lookup.inputs" for c in withheld)
    if kind == "refuses_everything":
        assert {"lookup.out_of_range", "logits.width", "shape.ragged"} <= {c.id for c in withheld}
    for c in withheld:
        gate = "%s.values" % c.function
        assert text("idle.values", "en", check=gate) in c.message
        assert next(g for g in report.checks if g.id == gate).status is not Status.PASS
    write = next(c for c in report.checks if c.id == "report.write")
    assert write.points == 0
    if kind == "returns_none":
        assert write.status is Status.FAIL and write.code == "report.write.nothing"


def test_an_empty_module_does_not_outscore_the_stub(tmp_path):
    empty = tmp_path / "empty" / "embed.py"
    empty.parent.mkdir()
    empty.write_text("")
    constants = tmp_path / "constants" / "embed.py"
    constants.parent.mkdir()
    constants.write_text("VOCAB = 512\nDIM = 64\nSEED = 20260917\n")
    stub = grade(ROOT / "exercises" / "embed.py", seed=1)
    for path in (empty, constants):
        report = grade(path, seed=1)
        assert report.score == stub.score == 0
        load = next(c for c in report.checks if c.id == "imports.load")
        assert load.status is Status.PASS and text("idle.module", "en") in load.message


def test_a_refusal_pays_once_the_values_are_right(tmp_path):
    """A one-based lookup refuses out-of-range ids rightly: that check passes but waits
    for lookup.values, also when it is graded alone; the right lookup earns it."""
    source = student_at_step(2)
    wrong = source.replace("list(table[token_id])", "list(table[token_id - 1])")
    assert wrong != source
    path = tmp_path / "embed.py"
    path.write_text(wrong, "utf-8")
    for only in ((), ("lookup.out_of_range",)):
        report = grade(path, seed=4, upto=2, only=only)
        oor = next(c for c in report.checks if c.id == "lookup.out_of_range")
        assert oor.status is Status.PASS and oor.points == 0 < oor.max_points
        assert text("idle.values", "en", check="lookup.values") in oor.message
    assert "lookup.values" not in {c.id for c in report.checks}  # judged, not shown
    path.write_text(source, "utf-8")
    report = grade(path, seed=4, upto=2, only=("lookup.out_of_range",))
    assert report.score == report.max_score > 0


@pytest.mark.parametrize("files", [("embed_report.json",), ()])
def test_the_writer_earns_its_check_by_writing(tmp_path, files):
    path = tmp_path / "embed.py"
    writes = "".join(
        "    open(os.path.join(outdir, %r), 'w').write('{}')\n" % name for name in files
    )
    source = (ROOT / "embed.py").read_text("utf-8")
    source += "\n\ndef write_report(outdir='.'):\n" + (writes or "    return None\n")
    path.write_text(source, "utf-8")
    report = grade(path, seed=5, only=["report.write"])
    write = next(c for c in report.checks if c.id == "report.write")
    if files:
        assert write.status is Status.PASS and write.points == write.max_points
        assert "embed_report.json" in write.message and "embed_report.md" in write.message
    else:
        assert write.status is Status.FAIL and write.points == 0
        assert write.code == "report.write.nothing"
