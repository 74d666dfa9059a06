"""Every parser of bytes a submission controls is bounded: report files and protocol lines.

However a report file or an answer line is made, reading it takes time linear in its
size with small constants, recursion stays under a fixed depth, and what cannot be
read is the submission's fault with a message that says why, never a grader error.
The property tests feed arbitrary and adversarial inputs and print how many they
tried and the longest time one took (``pytest -s`` shows it).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from timelimits import scaled, slowness

from grader.engine.sandbox import Written, WrittenFile, decoding
from grader.engine.vocabulary.results import Status
from grader.labs.embed import reports, reportstep
from grader.labs.embed.contract import REPORT_FIELDS, REPORT_JSON, REPORT_MD

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
REF_JSON = (REFERENCE / REPORT_JSON).read_text("utf-8")
REF_MD = (REFERENCE / REPORT_MD).read_text("utf-8")
JSON_IDS = {f.id for f in reports.check_reads(reportstep._nothing, reportstep._nothing, "en")}
# One report file of at most 1 MiB, or one answer line, is read well within this on a
# loaded machine (the slowest we could make take about 0.3 s on an idle one).
BOUND = 10.0


def check_folder(tmp_path: Path, json_text: str = REF_JSON, md: str = REF_MD) -> dict[str, Any]:
    (tmp_path / REPORT_JSON).write_text(json_text, "utf-8")
    (tmp_path / REPORT_MD).write_text(md, "utf-8")
    findings = reports.check(tmp_path)
    assert not [f.message for f in findings if f.code == "report.grader_fault"]
    return {f.id: f for f in findings}


# The report files ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "`rms_plain` = 1" + "0" * 400,  # OverflowError as a float
        "`vocab` = 1" + "0" * 5000,  # past Python's 4,300 digits
        "`max_abs_diff` = 0." + "0" * 500 + "1",
        "`cos_neighbors` = [1" + "0" * 400 + ", 2, 3, 4, 5]",
    ],
)
def test_a_figure_too_long_to_read_fails_with_a_message(tmp_path: Path, line: str) -> None:
    got = check_folder(tmp_path, md=REF_MD + "\n" + line + "\n")["report.md.figures"]
    assert got.status is Status.FAIL and got.code == "report.md.figures_fail"
    assert "the grader reads numbers of at most 300 characters" in got.message
    assert len(got.message) < 2000


def test_a_list_too_long_to_be_a_figure_is_not_one(tmp_path: Path) -> None:
    line = "`cos_neighbors` = [1" + "0" * 5000 + ", 2, 3, 4, 5]"
    got = check_folder(tmp_path, md=REF_MD + "\n" + line + "\n")["report.md.figures"]
    assert got.status is Status.PASS


@pytest.mark.parametrize("key", ["rms_plain", "vocab", "cos_neighbors", "extra"])
@pytest.mark.parametrize("digits", [400, 5000])
def test_a_json_number_too_long_to_read_is_refused(tmp_path: Path, key: str, digits: int) -> None:
    data = json.loads(REF_JSON)
    number = "1" + "0" * (digits - 1)
    data[key] = "@"
    text = json.dumps(data).replace('"@"', "[%s]" % number if key == "cos_neighbors" else number)
    got = check_folder(tmp_path, json_text=text)
    assert got["report.json.file"].code == "report.json.number_long"
    assert "%d characters" % digits in got["report.json.file"].message
    assert {fid for fid, f in got.items() if f.status is not Status.PASS} == {
        fid for fid in JSON_IDS if fid.startswith("report.json.")
    }


def test_json_nested_too_deep_is_refused_before_it_is_walked(tmp_path: Path) -> None:
    text = REF_JSON.rstrip()[:-1] + ', "extra": ' + "[" * 450 + "]" * 450 + "}"
    got = check_folder(tmp_path, json_text=text)["report.json.file"]
    assert got.code == "report.json.too_deep" and "451 deep" in got.message
    assert reports.load_json(REF_JSON)["vocab"] == 512
    assert reports.load_json("[[[]]]") == [[[]]]


def test_handed_in_json_as_deep_as_the_written_one_is_the_same_file() -> None:
    deep = '{"x": ' + "[" * 450 + "]" * 450 + "}"
    assert reportstep._json_differs(deep, deep, "en") is None
    code, params = reportstep._json_differs(deep, REF_JSON, "en") or ("", {})
    assert code == "report.same.json_unread" and "451 deep" in params["why"]
    code, _ = reportstep._json_differs(REF_JSON, deep, "en") or ("", {})
    assert code == "report.same.json_other"


@pytest.mark.parametrize(
    "md, code",
    [
        ("[" * (1 << 20), "report.md.too_much_markup"),
        ("a\n" * 5000, "report.md.too_many_lines"),
        ("a\r" * 5000, "report.md.too_many_lines"),
        ("vocab 1 " * 3000, "report.md.too_many_keys"),
        ("[a](" * 1000 + "ab" * 100000, "report.md.too_complex"),
        ('[a](b "' * 1000 + "ab " * 100000, "report.md.too_complex"),
    ],
)
def test_markdown_beyond_its_bounds_is_not_parsed(tmp_path: Path, md: str, code: str) -> None:
    got = check_folder(tmp_path, md=md)
    assert got["report.md.file"].code == code
    assert got["report.md.figures"].code == "report.md.not_read"


def test_the_reference_is_far_inside_every_bound() -> None:
    assert REF_MD.count("\n") * 20 < reports.findings.MAX_MD_LINES
    assert sum(map(REF_MD.count, reports.reading.MARKUP)) * 20 < reports.findings.MAX_MARKUP
    assert len(reports.findings._KEY.findall(REF_MD)) * 20 < reports.findings.MAX_KEY_NAMES
    assert reports.reading.nesting(REF_JSON) * 10 < reports.findings.MAX_NESTING
    reports.markdown.parse(REF_MD)
    assert (
        reports.markdown.MAX_WORK - reports.markdown._work.left
    ) * 20 < reports.markdown.MAX_WORK


def test_a_list_of_mixed_items_is_not_compared_pairwise(tmp_path: Path) -> None:
    """jsonschema's uniqueItems compares unsortable items pairwise."""
    data = json.loads(REF_JSON)
    data["cos_neighbors"] = [1, "a"] * 50000
    got = check_folder(tmp_path, json_text=json.dumps(data))["report.json.schema"]
    assert got.status is Status.FAIL
    assert "100000" in got.message and len(got.message) < 5000


# Arbitrary and adversarial report files -----------------------------------------------

PIECES = [
    "[", "![", "](", "]", "`", "``", "*", "_", "**", "<", "<!--", "-->", "#", "## ", "\n",
    "\n\n", "    ", "> ", "- ", "1. ", "|", "\\", "&#", "vocab", "`rms_plain`", " = ", "=",
    "cos_neighbors", "[1, 2, 3, 4, 5]", "0.2978", "9" * 50, "x", " ", "\t", "\r", "```",
    "<a href='", "http://a", "한", "(", "512 x ", "1" * 400, "true",
]  # fmt: skip
TOKENS = ["[", "]", "{", "}", '"a": ', '"', ", ", "1", "1" * 350, "-0.5e300", "null", '"vocab": 1']


def _repeated(pieces: list[str], most: int) -> st.SearchStrategy[str]:
    part = st.tuples(st.sampled_from(pieces), st.integers(1, most))
    return st.lists(part, max_size=5).map(lambda ps: "".join(p * n for p, n in ps))


markdowns = st.one_of(
    st.text(max_size=300),
    st.tuples(st.sampled_from(["", REF_MD]), _repeated(PIECES, 30000)).map("".join),
)
nasty = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**400), 10**400)
    | st.floats()
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=30) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=60,
)


@st.composite
def report_jsons(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["mutated", "deep", "tokens", "text"]))
    if kind == "mutated":
        data = json.loads(REF_JSON)
        keys = [key for key, _ in REPORT_FIELDS] + ["extra"]
        for key in draw(st.lists(st.sampled_from(keys), max_size=3)):
            data[key] = draw(nasty)
        if draw(st.booleans()):
            key = draw(st.sampled_from(keys))
            data[key] = [draw(nasty)] * draw(st.integers(0, 100000))
        return json.dumps(data)
    if kind == "deep":
        n = draw(st.integers(0, 3000))
        opening, closing = draw(st.sampled_from([("[", "]"), ('{"a": ', "}")]))
        return REF_JSON.rstrip()[:-1] + ', "x": ' + opening * n + "1" + closing * n + "}"
    if kind == "tokens":
        return draw(_repeated(TOKENS, 60000))
    return draw(st.text(max_size=300))


def written(json_text: str, md: str) -> Written:
    files = {}
    for name, body in ((REPORT_JSON, json_text), (REPORT_MD, md)):
        data = body.encode("utf-8", "surrogatepass")
        files[name] = WrittenFile("file", data[: reports.MAX_BYTES + 1], len(data))
    return Written("written", files)


class Tally:
    """How many examples a property test tried, and the longest one."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.examples = 0
        self.longest = 0.0

    def timed(self, run: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        out = run()
        took = time.perf_counter() - start
        self.examples += 1
        self.longest = max(self.longest, took)
        assert took < BOUND, took
        return out

    def report(self) -> None:
        print("\n%s: %d examples, longest %.3f s" % (self.what, self.examples, self.longest))


def test_any_report_files_are_graded_in_bounded_time_without_a_grader_error() -> None:
    tally = Tally("report files")

    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(report_jsons(), markdowns, st.booleans(), st.booleans())
    def check(json_text: str, md: str, same_json: bool, same_md: bool) -> None:
        with tempfile.TemporaryDirectory() as folder:
            handed = Path(folder)
            (handed / REPORT_JSON).write_text(json_text if same_json else REF_JSON, "utf-8")
            (handed / REPORT_MD).write_text(md if same_md else REF_MD, "utf-8")
            got = tally.timed(
                lambda: reportstep.grade(written(json_text, md), {}, handed, "en", 1.0)
            )
        assert [f.id for f in got] == reportstep.ids()
        assert not [f.message for f in got if f.code == "report.grader_fault"]
        assert all(len(f.message) < 20000 for f in got)

    check()
    tally.report()


# Arbitrary and adversarial answer lines -----------------------------------------------

SAME_HASH = 2**61 - 1


def adversarial(kind: str, n: int, leaf: Any) -> str:
    """The JSON text of a value of an answer line, made here: hypothesis need not print it."""
    if kind == "colliding":
        return json.dumps({"$": "dict", "v": [[k * SAME_HASH, 0] for k in range(n)]})
    if kind == "colliding tuples":
        pairs = [[{"$": "tuple", "v": [k * SAME_HASH]}, 0] for k in range(n)]
        return json.dumps({"$": "dict", "v": pairs})
    if kind == "deep":
        n = min(n, 3000)
        opening = ("[", '{"$": "tuple", "v": [')[n % 2]
        closing = ("]", "]}")[n % 2]
        return opening * n + json.dumps(leaf) + closing * n
    if kind == "wide":
        return json.dumps([leaf] * (n * 10))
    if kind == "ints":
        return json.dumps([2**10000 - 1] * (n // 100))
    return json.dumps({"$": "dict", "v": [["k%d" % i, leaf] for i in range(n)]})


KINDS = ["colliding", "colliding tuples", "deep", "wide", "ints", "strings"]
leaves = (
    st.none() | st.booleans() | st.integers(-(2**80), 2**80) | st.floats() | st.text(max_size=9)
)


def test_any_answer_line_is_read_in_bounded_time_and_typed_or_off_protocol() -> None:
    tally = Tally("answer lines")
    functions = ["dot", "norm"]

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        st.sampled_from(KINDS), st.integers(0, 20000), leaves, st.sampled_from(["answer", "loaded"])
    )
    def check(shape: str, n: int, leaf: Any, kind: str) -> None:
        value = adversarial(shape, n, leaf)
        if kind == "answer":
            line = '{"id": 0, "ok": true, "elapsed": 0.0, "value": %s}' % value
        else:
            line = '{"op": "loaded", "ok": true, "names": {"dot": "function", "VOCAB": %s}}' % value

        def read() -> Any:
            try:
                data = decoding.decode(line)
                if kind == "answer":
                    return decoding.answer(data, functions).value
                return decoding.loaded(data, functions, ["VOCAB"]).names.get("VOCAB")
            except decoding.OffProtocol:
                return None

        got = tally.timed(read)
        if got is not None:
            decoding.value(got)

    check()
    tally.report()


# The cap on a submission's time -----------------------------------------------------

AT_THE_CAP = """

import json as _json
import os as _os
import time as _time

_write_report = write_report
_imported = _time.monotonic()  # about when the submission's time cap started


def write_report(outdir="."):
    # The slowest files to read that every bound lets through, written at the cap.
    fields = _write_report(outdir)
    data = dict(fields, cos_neighbors=["x", 1] * 100000)
    with open(_os.path.join(outdir, "embed_report.json"), "w") as out:
        out.write(_json.dumps(data))
    with open(_os.path.join(outdir, "embed_report.md"), "w") as out:
        out.write("![" * 2499 + "ab" * 500000)
    _time.sleep(max(0.0, _imported + 7.0 - _time.monotonic()))
    return fields
"""


def test_the_time_cap_bounds_the_parents_own_work_too(tmp_path: Path) -> None:
    """Past --max-seconds the parent only kills the child, judges what ran and reads
    the written files, all bounded: the whole grading ends soon after the cap."""
    from grader import grade

    factor = slowness()  # the writer's wait and the cap grow together on a busy machine
    path = tmp_path / "embed.py"
    late = AT_THE_CAP.replace("_imported + 7.0", "_imported + %r" % (7.0 * factor))
    path.write_text((ROOT / "embed.py").read_text("utf-8") + late, "utf-8")
    start = time.monotonic()
    cap = scaled(12.0, factor)
    report = grade(path, seed=4, timeout=scaled(2.0, factor), max_seconds=cap)
    elapsed = time.monotonic() - start
    print("\ngraded in %.2f s with a cap of %g s" % (elapsed, cap))
    assert not report.grader_error
    codes = {c.code for c in report.checks}
    assert "report.write.ok" in codes, sorted(codes)  # written just before the cap
    assert "report.md.figures_none" in codes, sorted(codes)  # the markdown was read
    assert elapsed < cap + BOUND * factor, elapsed
