"""Step 8 from the code: the module's own write_report writes the files that are graded.

Each test module is the reference (or the stub) with one change, written next to
the report files it hands in: copies of ``reference/`` unless the test says otherwise.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from timelimits import scaled

from grader import grade
from grader.engine.sandbox import Sandbox, WrittenFile
from grader.engine.sandbox.decoding import OffProtocol
from grader.engine.sandbox.reportfiles import reported
from grader.engine.vocabulary.results import CheckResult, Report, Status
from grader.labs.embed import reportstep
from grader.labs.embed.contract import CONSTANTS, REPORT_JSON, REPORT_MD
from grader.labs.embed.contract import NAMES as CONTRACT

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "embed.py"
STUB = ROOT / "exercises" / "embed.py"
REPORTS = ROOT / "reference"
FILES = (REPORT_JSON, REPORT_MD)
NAMES = tuple(n.name for n in CONTRACT)
LAB = {"names": NAMES, "constants": tuple(CONSTANTS)}


def submission(folder: Path, source: str, handed_in: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "embed.py"
    path.write_text(source, "utf-8")
    if handed_in:
        for name in FILES:
            shutil.copyfile(REPORTS / name, folder / name)
    return path


def patched(old: str, new: str, source: str | None = None) -> str:
    text = REFERENCE.read_text("utf-8") if source is None else source
    assert text.count(old) == 1, old
    return text.replace(old, new)


def step8(report: Report) -> float:
    return report.by_step()[8][0]


def checks(report: Report) -> dict[str, CheckResult]:
    return {c.id: c for c in report.checks if c.step == 8}


def failing(report: Report) -> set[str]:
    return {c.id for c in report.checks if c.step == 8 and not c.ok}


HARD_CODED_WRITER = """def write_report(outdir="."):
    os.makedirs(outdir, exist_ok=True)
    for name, text in ((%r, %r), (%r, %r)):
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as out:
            out.write(text)
"""


def hard_coded(source: str) -> str:
    """The module with a writer that writes the reference's files as typed-in text."""
    start = source.index("def write_report(")
    end = source.index("\n\nif __name__")
    texts = []
    for name in FILES:
        texts += [name, (REPORTS / name).read_text("utf-8")]
    return source[:start] + HARD_CODED_WRITER % tuple(texts) + source[end:]


# Full marks and no marks -----------------------------------------------------------------


def test_the_reference_gets_full_marks_on_step_8() -> None:
    report = grade(REFERENCE, seed=8, report_dir=REPORTS)
    assert report.score == report.max_score == 100, failing(report)
    ids = [c.id for c in report.checks if c.step == 8]
    assert sorted(ids) == sorted(reportstep.ids()) and len(ids) == 46
    assert reportstep.ids()[0] == "report.write" and reportstep.ids()[-1] == "report.same"


def test_the_stub_with_copied_files_scores_nothing(tmp_path: Path) -> None:
    path = submission(tmp_path, STUB.read_text("utf-8"))
    report = grade(path, seed=8)
    assert step8(report) == 0 and report.score == 0
    write = checks(report)["report.write"]
    assert write.status is Status.SKIP and write.code == "not_started"


def test_a_syntax_error_with_copied_files_scores_nothing(tmp_path: Path) -> None:
    path = submission(tmp_path, REFERENCE.read_text("utf-8") + "\ndef broken(:\n")
    report = grade(path, seed=8)
    assert step8(report) == 0 and report.score == 0
    assert {c.code for c in report.checks if c.step == 8} == {"not_loaded"}


def test_a_dot_that_never_returns_earns_nothing_on_the_reports(tmp_path: Path) -> None:
    source = patched("def dot(a, b):\n", "def dot(a, b):\n    while True:\n        pass\n")
    path = submission(tmp_path, source)
    start = time.perf_counter()
    report = grade(path, seed=8, timeout=scaled(1.0))
    assert time.perf_counter() - start < scaled(10)
    assert step8(report) == 0
    write = checks(report)["report.write"]
    assert write.code == "report.write.stopped"
    assert "dot" in write.message and write.caused_by == ("dot",)


# Figures that the functions do not give ------------------------------------------------


def test_a_hard_coded_writer_fails_where_the_functions_disagree(tmp_path: Path) -> None:
    root = "    return math.sqrt(dot(vec, vec) / len(vec))\n"
    source = hard_coded(patched(root, "    return math.sqrt(dot(vec, vec))\n"))
    report = grade(submission(tmp_path, source), seed=8)
    bad = failing(report)
    assert {"report.json.values.rms_plain", "report.json.values.rms_scaled"} <= bad
    assert "report.md.figures" in bad
    assert "report.json.values.cos_neighbors" not in bad  # what the functions do give
    value = checks(report)["report.json.values.rms_plain"]
    assert value.code == "report.json.value_not_measured"
    assert "rms(table[137])" in value.message and value.caused_by == ("rms",)
    assert "your functions give" in checks(report)["report.md.figures"].message


def test_a_hard_coded_writer_with_correct_functions_passes(tmp_path: Path) -> None:
    source = hard_coded(REFERENCE.read_text("utf-8"))
    report = grade(submission(tmp_path, source), seed=8, only=["report"])
    assert failing(report) == set()


def test_figures_of_an_unfinished_function_earn_nothing(tmp_path: Path) -> None:
    body = "        return 0.0\n    return math.sqrt(dot(vec, vec) / len(vec))\n"
    source = hard_coded(patched(body, "        return 0.0\n    raise NotImplementedError\n"))
    report = grade(submission(tmp_path, source), seed=8, only=["report"])
    value = checks(report)["report.json.values.rms_plain"]
    assert value.code == "report.json.value_unmeasured"
    assert "rms is not started yet" in value.message


# The files handed in ---------------------------------------------------------------------


def test_handed_in_files_that_differ(tmp_path: Path) -> None:
    path = submission(tmp_path, REFERENCE.read_text("utf-8"))
    data = json.loads((tmp_path / REPORT_JSON).read_text("utf-8"))
    data["rms_plain"] = 0.3
    (tmp_path / REPORT_JSON).write_text(json.dumps(data), "utf-8")
    md = (tmp_path / REPORT_MD).read_text("utf-8")
    (tmp_path / REPORT_MD).write_text(md.replace("0.29783", "0.29782"), "utf-8")
    report = grade(path, seed=8, only=["report"])
    assert failing(report) == {"report.same"}
    same = checks(report)["report.same"]
    message = same.message
    assert message.startswith(
        "your report files are not what your code writes: run `python embed.py`"
    )
    assert '"rms_plain" is 0.3' in message and "0.29782" in message and "line 37" in message


def test_line_endings_trailing_spaces_and_key_order_do_not_matter(tmp_path: Path) -> None:
    path = submission(tmp_path, REFERENCE.read_text("utf-8"))
    data = json.loads((tmp_path / REPORT_JSON).read_text("utf-8"))
    (tmp_path / REPORT_JSON).write_text(json.dumps(dict(reversed(data.items()))), "utf-8")
    md = (tmp_path / REPORT_MD).read_text("utf-8")
    crlf = "\r\n".join(line + "  " for line in md.split("\n")) + "\r\n\r\n"
    (tmp_path / REPORT_MD).write_bytes(b"\xef\xbb\xbf" + crlf.encode("utf-8"))
    assert failing(grade(path, seed=8, only=["report"])) == set()


def test_an_integer_written_as_a_float_is_not_the_same(tmp_path: Path) -> None:
    path = submission(tmp_path, REFERENCE.read_text("utf-8"))
    text = (tmp_path / REPORT_JSON).read_text("utf-8")
    (tmp_path / REPORT_JSON).write_text(text.replace('"vocab": 512', '"vocab": 512.0'), "utf-8")
    report = grade(path, seed=8, only=["report"])
    assert failing(report) == {"report.same"}


def test_missing_handed_in_files_say_how_to_write_them(tmp_path: Path) -> None:
    path = submission(tmp_path, REFERENCE.read_text("utf-8"), handed_in=False)
    report = grade(path, seed=8)
    assert failing(report) == {"report.same"}
    same = checks(report)["report.same"]
    assert same.code == "report.same.missing"
    assert "run `python embed.py`" in same.message
    # The files the code writes still earn their points.
    assert 14 < step8(report) < 15


def test_a_link_is_not_followed_for_handed_in_files(tmp_path: Path) -> None:
    path = submission(tmp_path, REFERENCE.read_text("utf-8"))
    (tmp_path / REPORT_MD).unlink()
    (tmp_path / REPORT_MD).symlink_to(REPORTS / REPORT_MD)
    report = grade(path, seed=8, only=["report"])
    assert failing(report) == {"report.same"}
    assert "link" in checks(report)["report.same"].message


# Writers that do not write ---------------------------------------------------------------


def test_a_writer_that_raises_shows_the_students_line(tmp_path: Path) -> None:
    source = patched("    rms_plain = rms(plain)\n", "    rms_plain = rms(plain) / 0\n")
    line = source.splitlines().index("    rms_plain = rms(plain) / 0") + 1
    report = grade(submission(tmp_path, source), seed=8)
    assert step8(report) == 0
    write = checks(report)["report.write"]
    assert write.status is Status.ERROR
    assert "raised ZeroDivisionError at line %d (in measure)" % line in write.message
    trace = write.details["traceback"]
    assert 'embed.py", line %d, in measure' % line in trace and "_child" not in trace
    rest = [c for c in report.checks if c.step == 8 and c.id != "report.write"]
    assert {c.code for c in rest} == {"report.code.not_read"}


def test_every_failed_report_check_has_its_replay_line(tmp_path: Path) -> None:
    """The README promises a replay command for every failure: the report's too, and
    it fails that check again."""
    source = patched("    rms_plain = rms(plain)\n", "    rms_plain = rms(plain) + 1\n")
    path = submission(tmp_path, source)
    report = grade(path, seed=8)
    failed = [c for c in report.checks if c.step == 8 and not c.ok]
    assert len(failed) >= 2
    for c in failed:
        assert c.reproduce.endswith("--seed 8 --check %s" % c.id), c.id
    again = grade(path, seed=8, only=[failed[0].id])
    assert [c.id for c in again.checks if not c.ok] == [failed[0].id]


def test_a_missing_writer_says_how_to_write_the_reports(tmp_path: Path) -> None:
    source = patched("def write_report(", "def write_reports(")
    source = source.replace("    write_report(sys.argv", "    write_reports(sys.argv")
    report = grade(submission(tmp_path, source), seed=8, only=["report"])
    write = checks(report)["report.write"]
    assert write.code == "report.write.missing" and step8(report) == 0
    assert "write_report(outdir)" in write.message


def test_without_a_writer_step_8_is_not_written_yet(tmp_path: Path) -> None:
    source = patched("def write_report(", "def write_reports(")
    source = source.replace("    write_report(sys.argv", "    write_reports(sys.argv")
    report = grade(submission(tmp_path, source), seed=8, only=["report"])
    assert checks(report)["report.write"].code == "report.write.missing"
    assert report.step_states()[8] == "not_written"


def test_a_writer_that_raises_fails_step_8(tmp_path: Path) -> None:
    source = patched("    fields = measure()\n", "    raise ValueError('no')\n")
    report = grade(submission(tmp_path, source), seed=8, only=["report"])
    assert checks(report)["report.json.file"].code == "report.code.not_read"
    assert report.step_states()[8] == "fail"


def test_a_writer_that_writes_one_file(tmp_path: Path) -> None:
    old = '        "embed_report.md": _markdown(fields),\n'
    report = grade(submission(tmp_path, patched(old, "")), seed=8, only=["report"])
    bad = failing(report)
    assert "report.md.file" in bad and "report.json.file" not in bad
    assert "did not write embed_report.md" in checks(report)["report.md.file"].message


def test_a_writer_that_hangs_costs_its_time_limit_only(tmp_path: Path) -> None:
    source = patched("    fields = measure()\n", "    while True:\n        pass\n")
    start = time.perf_counter()
    report = grade(submission(tmp_path, source), seed=8, timeout=scaled(0.5))
    elapsed = time.perf_counter() - start
    assert elapsed < scaled(0.5 * reportstep.WRITER_TIMEOUTS + 10)  # the rest of the grading too
    write = checks(report)["report.write"]
    assert write.status is Status.TIMEOUT and step8(report) == 0
    assert report.score == 85


def test_a_writer_that_links_its_file_elsewhere(tmp_path: Path) -> None:
    old = "    return fields\n\n\nif __name__"
    new = (
        "    os.remove(os.path.join(outdir, 'embed_report.json'))\n"
        "    os.symlink('/etc/passwd', os.path.join(outdir, 'embed_report.json'))\n"
        "    return fields\n\n\nif __name__"
    )
    report = grade(submission(tmp_path, patched(old, new)), seed=8, only=["report"])
    assert "report.json.file" in failing(report)
    assert checks(report)["report.json.file"].code == "report.file.link"


# The protocol ------------------------------------------------------------------------------


def test_the_child_sends_the_written_bytes() -> None:
    with Sandbox(REFERENCE, **LAB) as box:
        written = box.write_report(FILES, timeout=30)
    assert written.kind == "written" and "measure" not in written.called
    assert "nearest_by_cosine" in written.called
    for name in FILES:
        assert written.files[name] == WrittenFile(
            "file", (REPORTS / name).read_bytes(), (REPORTS / name).stat().st_size
        )


GOOD = {
    "op": "reported",
    "ok": True,
    "absent": None,
    "elapsed": 0.1,
    "called": ["dot"],
    "files": {"a": {"state": "file", "size": 3, "v": "YWJj"}, "b": {"state": "missing"}},
}


@pytest.mark.parametrize(
    "change",
    [
        {"op": "loaded"},
        {"ok": 1},
        {"elapsed": -1},
        {"elapsed": True},
        {"elapsed": 1e12},
        {"called": "dot"},
        {"called": [["dot"]]},
        {"files": {"a": {"state": "file", "size": 3, "v": "YWJj"}}},
        {"files": {"a": {"state": "odd"}, "b": {"state": "missing"}}},
        {"files": {"a": {"state": 5}, "b": {"state": "missing"}}},
        {"files": {"a": {"state": "file", "size": 2, "v": "YWJj"}, "b": {"state": "missing"}}},
        {"files": {"a": {"state": "file", "size": 3.0, "v": "YWJj"}, "b": {"state": "missing"}}},
        {
            "files": {
                "a": {"state": "file", "size": 1 << 70, "v": "YWJj"},
                "b": {"state": "missing"},
            }
        },
        {"files": {"a": {"state": "file", "size": 3, "v": "YW?j"}, "b": {"state": "missing"}}},
        {"files": {"a": {"state": "file", "size": 9, "v": "YWJjZA=="}, "b": {"state": "missing"}}},
        {
            "files": {
                "a": {"state": "file", "size": 200, "v": "YWJj" * 40},
                "b": {"state": "missing"},
            }
        },
        {"absent": "gone"},
        {"absent": ["missing"]},
        {"ok": False, "raised": "ValueError"},
        {"ok": False, "raised": {"type": 5}},
    ],
)
def test_answers_off_the_protocol_are_refused(change: dict[str, object]) -> None:
    assert reported(GOOD, ("a", "b"), 100, NAMES).files["a"] == WrittenFile("file", b"abc", 3)
    bad = dict(GOOD, **change)
    limit = 2 if "YWJjZA==" in json.dumps(change) else 100
    with pytest.raises(OffProtocol):
        reported(bad, ("a", "b"), limit, NAMES)


def test_names_outside_the_contract_are_dropped_from_called() -> None:
    got = reported(dict(GOOD, called=["not_a_name", "dot", "dot"]), ("a", "b"), 100, NAMES)
    assert got.called == ("dot",)


def test_a_writer_whose_helper_is_not_written_shows_where(tmp_path: Path) -> None:
    old = "    table = make_table(VOCAB, DIM, SEED)\n    plain = lookup(table, [PROBE])[0]\n"
    source = patched(old, "    raise NotImplementedError\n" + old)
    line = source.splitlines().index("    raise NotImplementedError") + 1
    report = grade(submission(tmp_path, source), seed=8, only=["report"])
    write = checks(report)["report.write"]
    assert write.status is Status.ERROR and step8(report) == 0
    assert "NotImplementedError at line %d (in measure)" % line in write.message


def test_calls_after_the_writer_get_a_new_child() -> None:
    from grader.engine.sandbox import Call

    with Sandbox(REFERENCE, **LAB) as box:
        assert box.write_report(FILES).kind == "written"
        (outcome,) = box.run([Call(0, "dot", ([1.0, 2.0], [3.0, 4.0]))])
        assert outcome.kind == "returned" and outcome.value == 11.0
        assert box.restarts == 1


def test_the_writer_stops_at_the_submissions_time_cap(tmp_path: Path) -> None:
    source = patched("    fields = measure()\n", "    while True:\n        pass\n")
    path = submission(tmp_path, source)
    with Sandbox(path, timeout=scaled(1.0), max_seconds=scaled(3.0), **LAB) as box:
        assert box.load().ok
        start = time.monotonic()
        written = box.write_report(FILES, timeout=30.0)
        assert written.kind == "budget" and time.monotonic() - start < scaled(5.0)
        assert box.budget.spent["write_report"] > 0  # charged to the writer
        # Past the cap nothing more runs, and the writer is not started again.
        assert box.write_report(FILES, timeout=30.0).kind == "budget"


def test_a_writer_past_the_time_cap_is_a_timeout_of_step_8(tmp_path: Path) -> None:
    source = patched("    fields = measure()\n", "    while True:\n        pass\n")
    report = grade(
        submission(tmp_path, source), seed=8, timeout=scaled(0.5), max_seconds=scaled(4.0)
    )
    write = checks(report)["report.write"]
    assert write.code in ("report.write.budget", "report.write.timeout")
    assert write.status is Status.TIMEOUT and step8(report) == 0
    assert not report.grader_error


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
_FIELDS = st.fixed_dictionaries(
    {},
    optional={
        "op": st.sampled_from(["reported", "loaded"]) | _JSON,
        "ok": st.booleans() | _JSON,
        "absent": st.sampled_from(["missing", "not callable", "other"]) | _JSON,
        "elapsed": st.floats() | _JSON,
        "called": st.lists(st.sampled_from(["dot", "lookup", "x"])) | _JSON,
        "raised": st.fixed_dictionaries({"type": st.text(max_size=5)}) | _JSON,
        "traceback": st.text(max_size=8) | _JSON,
        "files": st.dictionaries(
            st.sampled_from(["a", "b", "c"]),
            st.fixed_dictionaries(
                {"state": st.sampled_from(["file", "missing", "link", "x"]) | _JSON},
                optional={"size": st.integers() | _JSON, "v": st.sampled_from(["YWJj", "=", ""])},
            )
            | _JSON,
        )
        | _JSON,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_FIELDS)
def test_any_answer_to_report_is_usable_or_off_the_protocol(data: dict[str, object]) -> None:
    try:
        got = reported(data, ("a", "b"), 100, NAMES)
    except OffProtocol:
        return
    assert set(got.called) <= set(NAMES)
    assert got.absent or not got.ok or sorted(got.files) == ["a", "b"]
    assert all(len(f.data) <= 101 for f in got.files.values())
