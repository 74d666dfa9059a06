"""Tests of grader.labs.embed.reports: the grading of embed_report.json and embed_report.md.

The corpus under tests/corpus/reports/ holds one broken report per failure kind;
each case must fail exactly the findings listed in CASES.  Files that are awkward to
commit (not UTF-8, huge, a directory, a FIFO) are made in a temporary folder.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from timelimits import scaled

from grader.engine.vocabulary.results import Status
from grader.labs.embed import reports
from grader.labs.embed.contract import ATOL, REPORT_FIELDS, REPORT_HEADINGS, RTOL

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
CORPUS = ROOT / "tests" / "corpus" / "reports"
KEYS = [key for key, _ in REPORT_FIELDS]

JSON_IDS = (
    ["report.json.file", "report.json.schema"]
    + ["report.json.values." + key for key in KEYS]
    + [
        "report.json.consistency." + name
        for name in ("stretch_target", "neighbors_differ", "rms_ratio", "logit_argmax_is_self")
    ]
)
MD_IDS = (
    ["report.md.file", "report.md.headings"]
    + ["report.md.prose.%d" % i for i in range(1, 6)]
    + ["report.md.figures"]
)
ALL_IDS = JSON_IDS + MD_IDS


def values(*keys: str) -> set[str]:
    return {"report.json.values." + key for key in keys}


def consistency(*names: str) -> set[str]:
    return {"report.json.consistency." + name for name in names}


# case -> the ids of the findings that must fail (every other finding passes)
CASES: dict[str, set[str]] = {
    "student_style": set(),
    "missing_key": {"report.json.schema"} | values("rms_ratio") | consistency("rms_ratio"),
    "wrong_type": {"report.json.schema"}
    | values("vocab", "table_shape", "params", "repeat_same", "dot_neighbors", "stretch_factor"),
    "wrong_value": values("saved", "one_hot_mults", "rms_scaled", "rms_ratio"),
    "inconsistent": values("logit_argmax", "cos_neighbors", "rms_scaled")
    | consistency("stretch_target", "neighbors_differ", "rms_ratio", "logit_argmax_is_self"),
    "invalid_json": set(JSON_IDS),
    "missing_json": set(JSON_IDS),
    "not_object": set(JSON_IDS),
    "missing_md": set(MD_IDS),
    "wrong_json_and_md": values("saved") | {"report.md.figures"},
    "missing_section": {"report.md.headings", "report.md.prose.5"},
    "heading_level": {"report.md.headings", "report.md.prose.1"},
    "deleted_section": {"report.md.headings", "report.md.prose.3"},
    "out_of_order": {"report.md.headings"},
    "empty_sections": {"report.md.prose.2", "report.md.prose.4"},
    "figures_disagree": {"report.md.figures"},
    "no_figures": {"report.md.figures"},
    "sorted_keys": {"report.json.schema"},
    "figures_in_tables": set(),
    "table_figure_wrong": {"report.md.figures"},
}


def failing(findings: list[reports.Finding]) -> set[str]:
    return {f.id for f in findings if f.status is not Status.PASS}


def by_id(findings: list[reports.Finding]) -> dict[str, reports.Finding]:
    return {f.id: f for f in findings}


def copy_reference(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, folder / name)
    return folder


def reference_json() -> dict:
    return json.loads((REFERENCE / "embed_report.json").read_text("utf-8"))


# The schema ----------------------------------------------------------------------------


def test_schema_is_a_valid_draft_2020_12_schema():
    schema = reports.schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    assert schema["required"] == KEYS
    assert list(schema["properties"]) == KEYS


def test_schema_accepts_the_reference_json():
    errors = list(Draft202012Validator(reports.schema()).iter_errors(reference_json()))
    assert errors == []


def _json_values():
    from hypothesis import strategies as st

    leaves = (
        st.none()
        | st.booleans()
        | st.integers(-3, 10**20)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.sampled_from([0.0, -0.0, 1.0, 2.0, 5.0, 1e300])
        | st.text(max_size=3)
    )
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=7) | st.dictionaries(st.text(max_size=3), inner),
        max_leaves=12,
    )


def _reports():
    """Report-like objects: the reference's, with keys dropped, retyped or stretched."""
    from hypothesis import strategies as st

    base = reference_json()
    values = _json_values()
    lists = st.lists(st.integers(-2, 6) | st.booleans() | st.sampled_from([1.0, 2.5]), max_size=7)

    def changed(edits):
        data = dict(base)
        for key, action, value, items in edits:
            if action == "drop":
                data.pop(key, None)
            elif action == "value":
                data[key] = value
            else:
                data[key] = items
        return data

    edit = st.tuples(
        st.sampled_from(KEYS + ["extra", "cos_neighbours"]),
        st.sampled_from(["drop", "value", "list"]),
        values,
        lists,
    )
    return st.lists(edit, max_size=4).map(changed) | values


def test_the_quick_validator_is_generated_from_the_current_schema():
    from grader.labs.embed.reports import json_schema, report_validator

    assert report_validator.SCHEMA_SHA256 == json_schema.schema_digest(), (
        "schemas/report.schema.json changed: run python -m grader.labs.embed.reports"
    )
    assert "import" not in json_schema.GENERATED.read_text("utf-8").split('"""')[2]
    fastjsonschema = pytest.importorskip("fastjsonschema")
    if fastjsonschema.VERSION == report_validator.VERSION:
        assert json_schema.GENERATED.read_text("utf-8") == json_schema.generated_source()


def test_the_quick_validator_passes_only_what_jsonschema_passes():
    """Reports the quick validator passes skip jsonschema: it must never pass more."""
    from hypothesis import given, settings

    from grader.labs.embed.reports import json_schema

    reference = Draft202012Validator(reports.schema())
    seen = {True: 0, False: 0}

    @settings(max_examples=600, deadline=None, derandomize=True)
    @given(_reports())
    def agree(data):
        quick = json_schema.valid(data)
        full = not list(reference.iter_errors(data))
        seen[full] += 1
        assert quick == full, data
        assert json_schema.schema_errors(data) == [] if full else json_schema.schema_errors(data)

    agree()
    assert seen[True] and seen[False], seen  # both kinds were tried


# Expected values -------------------------------------------------------------------------


def _load_reference_module():
    spec = importlib.util.spec_from_file_location(
        "embed_reference_for_reports", str(ROOT / "embed.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_expected_fields_equal_the_reference_measure():
    measured = _load_reference_module().measure()
    expected = reports.expected_fields()
    assert list(expected) == list(measured) == KEYS
    for key, kind in REPORT_FIELDS:
        got, want = measured[key], expected[key]
        assert type(got) is type(want), key
        if kind == "number":
            assert abs(got - want) <= ATOL + RTOL * abs(want), key
        else:
            assert got == want, key


def test_expected_fields_decisions():
    e = reports.expected_fields()
    assert e["table_shape"] == [512, 64]
    assert e["lookup_mults"] == 0 and e["one_hot_mults"] == 512 * 64
    assert e["max_abs_diff"] == 0.0 and e["repeat_same"] is True
    assert e["cos_unchanged_by_scale"] is True and e["stretch_factor"] == 4.0
    assert e["stretch_target"] == e["cos_neighbors"][4]
    assert math.isclose(e["rms_ratio"], 8.0)


def test_expected_fields_is_cached_and_returns_copies():
    first = reports.expected_fields()
    first["cos_neighbors"].append(-1)
    first["vocab"] = 0
    assert reports.expected_fields()["cos_neighbors"][-1] != -1
    assert reports.expected_fields()["vocab"] == 512


# The reference and the corpus --------------------------------------------------------


def test_reference_reports_pass_every_finding():
    findings = reports.check(REFERENCE)
    assert [f.id for f in findings] == ALL_IDS
    assert failing(findings) == set(), [f.message for f in findings if f.status is not Status.PASS]
    assert sum(f.weight for f in findings) == 51
    assert all(f.message and f.code for f in findings)


def test_check_is_fast():
    reports.check(REFERENCE)  # the expected values are computed once and cached
    elapsed = min(_timed(lambda: reports.check(REFERENCE)) for _ in range(3))
    assert elapsed < scaled(0.1)


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def test_every_corpus_case_is_listed():
    assert sorted(p.name for p in CORPUS.iterdir() if p.is_dir()) == sorted(CASES)


@pytest.mark.parametrize("case", sorted(CASES))
def test_corpus_case_fails_exactly_its_findings(case):
    findings = reports.check(CORPUS / case)
    assert [f.id for f in findings] == ALL_IDS
    assert {f.status for f in findings} <= {Status.PASS, Status.FAIL}
    assert failing(findings) == CASES[case], {
        f.id: f.message for f in findings if f.status is not Status.PASS
    }
    assert all(f.message for f in findings)


def test_messages_name_what_is_wrong():
    schema = by_id(reports.check(CORPUS / "wrong_type"))["report.json.schema"].message
    assert '$.params: "32768" (string) is not of type integer' in schema
    for path in (
        "$.vocab",
        "$.table_shape",
        "$.repeat_same",
        "$.dot_neighbors",
        "$.stretch_factor",
    ):
        assert path in schema
    assert (
        len(by_id(reports.check(CORPUS / "wrong_type"))["report.json.schema"].details["errors"])
        == 6
    )

    order = by_id(reports.check(CORPUS / "sorted_keys"))["report.json.schema"]
    assert '"bigger_tied" comes where "vocab" belongs' in order.message
    assert len(order.details["errors"]) == 1

    table = by_id(reports.check(CORPUS / "table_figure_wrong"))["report.md.figures"]
    assert table.details["failed"] == 1 and "2.9783" in table.message
    assert by_id(reports.check(CORPUS / "figures_in_tables"))["report.md.figures"].details[
        "figures"
    ] == len(KEYS)

    missing = by_id(reports.check(CORPUS / "missing_key"))["report.json.schema"].message
    assert "$.rms_ratio" in missing and "rms_ratoi" in missing

    value = by_id(reports.check(CORPUS / "wrong_value"))["report.json.values.one_hot_mults"]
    assert "expected 32768" in value.message and "found 64" in value.message

    invalid = by_id(reports.check(CORPUS / "invalid_json"))
    assert "line 59, column 1" in invalid["report.json.file"].message
    assert "could not be read" in invalid["report.json.values.vocab"].message

    heading = by_id(reports.check(CORPUS / "missing_section"))["report.md.headings"].message
    assert (
        "## √d 를 곱하면 무엇이 달라지나" in heading and "## √d를 곱하면 무엇이 바뀌나" in heading
    )

    figures = by_id(reports.check(CORPUS / "figures_disagree"))["report.md.figures"]
    assert figures.details["figures"] == 30 and len(figures.details["problems"]) == 5
    assert "(`params` = 32000)" in figures.message
    assert "significant digits" in figures.message
    assert "line " in figures.message

    both = by_id(reports.check(CORPUS / "wrong_json_and_md"))["report.md.figures"].message
    assert "embed_report.json has 65536" in both


def test_other_languages_fall_back_without_errors():
    assert failing(reports.check(REFERENCE, lang="ko")) == set()
    assert failing(reports.check(CORPUS / "wrong_type", lang="zh")) == CASES["wrong_type"]


# Files made on the spot ----------------------------------------------------------------


def test_markdown_not_utf8(tmp_path):
    folder = copy_reference(tmp_path)
    md = (REFERENCE / "embed_report.md").read_text("utf-8")
    (folder / "embed_report.md").write_bytes(md.encode("cp949", errors="replace"))
    findings = by_id(reports.check(folder))
    assert failing(list(findings.values())) == set(MD_IDS)
    assert "not UTF-8" in findings["report.md.file"].message
    assert "line 1," in findings["report.md.file"].message


def test_json_too_large_is_not_read(tmp_path):
    folder = copy_reference(tmp_path)
    (folder / "embed_report.json").write_text(" " * (2 << 20) + "{}", "utf-8")
    findings = by_id(reports.check(folder))
    assert failing(list(findings.values())) == set(JSON_IDS)
    assert "too large" in findings["report.json.file"].message


def test_directory_with_the_file_name(tmp_path):
    folder = copy_reference(tmp_path)
    (folder / "embed_report.json").unlink()
    (folder / "embed_report.json").mkdir()
    findings = by_id(reports.check(folder))
    assert failing(list(findings.values())) == set(JSON_IDS)
    assert "directory" in findings["report.json.file"].message


def test_missing_folder(tmp_path):
    findings = reports.check(tmp_path / "nowhere")
    assert failing(findings) == set(ALL_IDS)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_not_opened(tmp_path):
    folder = copy_reference(tmp_path)
    (folder / "embed_report.md").unlink()
    os.mkfifo(folder / "embed_report.md")
    findings = by_id(reports.check(folder))
    assert failing(list(findings.values())) == set(MD_IDS)
    assert "not a regular file" in findings["report.md.file"].message


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="permissions do not apply to root"
)
def test_unreadable_file(tmp_path):
    folder = copy_reference(tmp_path)
    (folder / "embed_report.json").chmod(0)
    try:
        findings = by_id(reports.check(folder))
    finally:
        (folder / "embed_report.json").chmod(0o644)
    assert failing(list(findings.values())) == set(JSON_IDS)
    assert "could not be read" in findings["report.json.file"].message


def test_bom_and_crlf_are_accepted(tmp_path):
    folder = tmp_path
    for name in ("embed_report.json", "embed_report.md"):
        body = (REFERENCE / name).read_text("utf-8").replace("\n", "\r\n")
        (folder / name).write_bytes(b"\xef\xbb\xbf" + body.encode("utf-8"))
    assert failing(reports.check(folder)) == set()


def _write_json(folder: Path, text: str) -> list[reports.Finding]:
    copy_reference(folder)
    (folder / "embed_report.json").write_text(text, "utf-8")
    return reports.check(folder)


def test_nan_is_reported(tmp_path):
    data = reference_json()
    data["rms_plain"] = float("nan")
    findings = _write_json(tmp_path, json.dumps(data))
    assert failing(findings) == (
        {"report.json.schema"} | values("rms_plain") | consistency("rms_ratio")
    )
    assert "not a finite number" in by_id(findings)["report.json.schema"].message


def test_duplicate_key_is_reported(tmp_path):
    text = json.dumps(reference_json())[:-1] + ', "vocab": 512}'
    findings = _write_json(tmp_path, text)
    assert failing(findings) == {"report.json.schema"}
    assert "$.vocab: the key appears 2 times" in by_id(findings)["report.json.schema"].message


def test_booleans_and_floats_are_not_integers(tmp_path):
    data = reference_json()
    data["lookup_mults"] = False
    data["cos_neighbors"] = [489.0, 85, 209, 4, 276]
    findings = _write_json(tmp_path, json.dumps(data))
    assert failing(findings) == (
        {"report.json.schema"}
        | values("lookup_mults", "cos_neighbors")
        | consistency("stretch_target", "neighbors_differ")
    )
    schema = by_id(findings)["report.json.schema"].message
    assert "$.lookup_mults: false (boolean) is not of type integer" in schema
    assert "$.cos_neighbors[0]: 489.0 is a float" in schema


def test_accepted_number_forms(tmp_path):
    data = reference_json()
    data["stretch_factor"] = 4
    data["max_abs_diff"] = 1e-13
    data["rms_ratio"] = 8
    assert failing(_write_json(tmp_path, json.dumps(data))) == set()
    data["max_abs_diff"] = 1e-11
    assert failing(_write_json(tmp_path, json.dumps(data))) == values("max_abs_diff")


def test_deep_nesting_and_empty_file(tmp_path):
    findings = _write_json(tmp_path, "[" * 100000 + "]" * 100000)
    assert failing(findings) == set(JSON_IDS)
    findings = _write_json(tmp_path, "")
    assert failing(findings) == set(JSON_IDS)
    assert "line 1, column 1" in by_id(findings)["report.json.file"].message


# Figures in prose --------------------------------------------------------------------


def figures(line: str) -> list[tuple[str, str]]:
    return [(f.key, f.written) for f in reports.figures_in(line)]


def test_figures_are_read_right_after_their_key():
    assert figures("(`seed` = 20260917)") == [("seed", "20260917")]
    assert figures("vocab은 512, dim is 64") == [("vocab", "512"), ("dim", "64")]
    assert figures("`table_shape` = (512, 64)") == [("table_shape", "(512, 64)")]
    assert figures("table_shape: 512 x 64") == [("table_shape", "512 x 64")]
    assert figures("`params` = 32,768 values") == [("params", "32,768")]
    assert figures("`repeat_same` = True.") == [("repeat_same", "True")]
    assert figures('"rms_plain": 0.2978,') == [("rms_plain", "0.2978")]
    assert figures("probe 137.") == [("probe", "137")]
    assert figures("| `rms_plain` | 0.2978 |") == [("rms_plain", "0.2978")]
    assert figures("- `params` = 32768 - one table's values") == [("params", "32768")]
    assert figures("`rms_plain` = 0.2978 -> 2.3826") == [("rms_plain", "0.2978")]


def test_figures_not_judged():
    assert figures("the probe row has an rms of 0.29") == []
    assert figures("`rms_scaled` / `rms_plain` = 8.0") == []
    assert figures("`saved` = `untied_params` - `tied_params`") == []
    assert figures("`cos_neighbors`[4] = 276") == []
    assert figures("`tied_params(512, 64)` = 32768") == []
    assert figures("`one_hot_mults` = 512 × 64 = 32768") == []
    assert figures("`params` = 512 * 64 = 32768") == []
    assert figures("`saved` = 65536 - 32768 = 32768") == []
    assert figures("`rms_ratio` = 2.3826 / 0.29783 = 8.0") == []
    assert figures("| `one_hot_mults` | 512 · 64 |") == []
    assert figures("`repeat_same` = 1") == []  # a number is not a boolean figure
    assert figures("bigger_vocabulary 7, my_vocab = 3") == []


def test_figures_inside_code_and_comments_are_not_judged(tmp_path):
    folder = copy_reference(tmp_path)
    md = (REFERENCE / "embed_report.md").read_text("utf-8")
    md += "\n```\nvocab = 1\n```\n\n<!-- dim = 2 -->\n\n~~~~\nseed = 3\n~~~~\n"
    (folder / "embed_report.md").write_text(md, "utf-8")
    assert failing(reports.check(folder)) == set()


@pytest.mark.parametrize(
    "written,ok",
    [
        ("0.29783", True),
        ("0.2978", True),
        ("0.298", True),
        ("0.2978265080426352", True),
        ("0.29782650804263516", True),
        ("2.9783e-1", True),
        ("0.3", False),
        ("0.30", False),
        ("0.2979", False),
        ("0.29782", False),
    ],
)
def test_float_rounding_rule(tmp_path, written, ok):
    folder = copy_reference(tmp_path)
    md = (REFERENCE / "embed_report.md").read_text("utf-8")
    (folder / "embed_report.md").write_text(
        md.replace("`rms_plain` = 0.29783", "`rms_plain` = " + written), "utf-8"
    )
    assert failing(reports.check(folder)) == (set() if ok else {"report.md.figures"})


def test_prose_minimum(tmp_path):
    folder = copy_reference(tmp_path)
    lines = ["# r", ""]
    for i, heading in enumerate(REPORT_HEADINGS):
        body = "x" * (reports.PROSE_MIN_LETTERS - (1 if i == 2 else 0))
        lines += ["## " + heading, "", body + " `rms_plain` = 0.29783 12345", ""]
    (folder / "embed_report.md").write_text("\n".join(lines), "utf-8")
    assert failing(reports.check(folder)) == {"report.md.prose.3"}


# The same sentences in each language the kit speaks: all pass, or all fail.
SAME_SENTENCES = [
    (
        "The lookup and the one-hot product give the same row. The lookup needs no "
        "multiplication. The one-hot product multiplies every cell of the table.",
        "조회와 원-핫 곱은 같은 행을 준다. 조회에는 곱셈이 필요 없다. "
        "원-핫 곱은 표의 모든 칸을 곱한다.",
        "查表和独热乘积得到同一行。查表不需要乘法。独热乘积要把表中的每一格都乘一遍。",
    ),
    (
        "We measured the table built from the seed. It has one row per token. Every "
        "figure here comes from running the code.",
        "시드로 만든 표를 쟀다. 토큰마다 행이 하나 있다. 여기 적은 숫자는 모두 코드를 "
        "실행해서 얻었다.",
        "我们测量了用种子生成的表。每个词元对应一行。这里的每个数字都来自运行代码。",
    ),
    (
        "Scaling by the root of d makes the row longer. Its direction stays. So does its cosine.",
        "d의 제곱근을 곱하면 행이 길어진다. 방향은 그대로다. 코사인도 그렇다.",
        "乘以 d 的平方根会让行变长。方向不变。余弦也不变。",
    ),
]
TOO_SHORT = [
    ("Same row. No cost. It grows.", "같은 행. 비용 없음. 커진다.", "同一行。没有代价。会变大。"),
    ("Lookup is free.", "조회는 공짜다.", "查表免费。"),
]


@pytest.mark.parametrize("sentences", SAME_SENTENCES + TOO_SHORT)
def test_the_same_sentences_pass_or_fail_in_every_language(sentences):
    verdicts = {
        lang: reports.prose_letters([said]) >= reports.PROSE_MIN_LETTERS
        for lang, said in zip(("en", "ko", "zh"), sentences)
    }
    assert set(verdicts.values()) == {sentences not in TOO_SHORT}, verdicts


def test_three_korean_sentences_on_what_was_measured_pass(tmp_path):
    """49 Hangul syllables say what 99 Latin letters say."""
    said = "시드로 만든 표를 쟀다. 토큰마다 행이 하나 있다. 숫자는 모두 코드를 실행해서 얻었다."
    assert reports.prose_letters([said]) >= reports.PROSE_MIN_LETTERS
    folder = copy_reference(tmp_path)
    lines = ["# r", ""]
    for heading in REPORT_HEADINGS:
        lines += ["## " + heading, "", said + " `rms_plain` = 0.29783", ""]
    (folder / "embed_report.md").write_text("\n".join(lines), "utf-8")
    assert not {f for f in failing(reports.check(folder)) if f.startswith("report.md.prose")}


# Markdown read as tokens -----------------------------------------------------------------


def _write_md(folder: Path, md: str) -> dict[str, reports.Finding]:
    copy_reference(folder)
    (folder / "embed_report.md").write_text(md, "utf-8")
    return by_id(reports.check(folder))


def _reference_md() -> str:
    return (REFERENCE / "embed_report.md").read_text("utf-8")


def test_a_hash_line_inside_a_fence_is_no_heading(tmp_path):
    # The fence opens inside a list item and closes when the item ends, unclosed.
    fenced = "- 예:\n\n  ```\n  ## %s\n" % REPORT_HEADINGS[4]
    md = _reference_md().replace("## " + REPORT_HEADINGS[1], fenced + "\n## " + REPORT_HEADINGS[1])
    findings = _write_md(tmp_path, md)
    assert failing(list(findings.values())) == set()
    lines = findings["report.md.headings"].details["lines"]
    assert lines[REPORT_HEADINGS[4]] > lines[REPORT_HEADINGS[3]]


def test_a_setext_heading_is_a_heading(tmp_path):
    wanted = REPORT_HEADINGS[0]
    md = _reference_md().replace("## " + wanted + "\n", wanted + "\n" + "-" * 12 + "\n")
    assert "## " + wanted not in md
    findings = _write_md(tmp_path, md)
    assert failing(list(findings.values())) == set()
    assert findings["report.md.headings"].details["lines"][wanted] == 3
    # "===" underlines a level-1 heading, which is not one of the required ones.
    md = _reference_md().replace("## " + wanted + "\n", wanted + "\n===\n")
    assert failing(list(_write_md(tmp_path, md).values())) == {
        "report.md.headings",
        "report.md.prose.1",
    }


def test_a_heading_inside_an_html_comment_is_no_heading(tmp_path):
    first = "## " + REPORT_HEADINGS[0]
    md = _reference_md().replace(first, "<!--\n%s\n-->\n\n%s" % (first, first))
    findings = _write_md(tmp_path, md)
    assert failing(list(findings.values())) == set()
    assert findings["report.md.headings"].details["lines"][REPORT_HEADINGS[0]] == 7


def test_a_comment_mark_in_a_code_span_hides_nothing(tmp_path):
    # `<!--` in code opens no comment: the headings and figures after it still count.
    md = _reference_md()
    md = md.replace(
        "## " + REPORT_HEADINGS[0] + "\n", "## %s\n\n`<!--` 를 쓴다.\n" % REPORT_HEADINGS[0]
    )
    md = md.replace("(`dim` = 64)", "(`dim` = 65)")
    md += "\n`-->` 로 닫는다.\n"
    findings = _write_md(tmp_path, md)
    assert failing(list(findings.values())) == {"report.md.figures"}
    problems = findings["report.md.figures"].details["problems"]
    assert [(p["key"], p["written"]) for p in problems] == [("dim", "65")]


def test_figures_inside_code_spans_are_judged_on_their_own_line(tmp_path):
    md = _reference_md().replace(
        "아래 측정은 모두",
        "코드로 쓰면 `vocab = 513` 이고\n`긴 코드가\n두 줄에 걸친다` 그리고 `dim` = 65.\n아래 측정은 모두",
    )
    findings = _write_md(tmp_path, md)
    problems = findings["report.md.figures"].details["problems"]
    assert [(p["key"], p["written"], p["line"]) for p in problems] == [
        ("vocab", "513", 9),
        ("dim", "65", 11),
    ]
    assert "`vocab = 513`" in findings["report.md.figures"].message


def test_code_and_comments_are_no_prose(tmp_path):
    lines = ["# r", ""]
    for i, heading in enumerate(REPORT_HEADINGS):
        body = "x" * (reports.PROSE_MIN_LETTERS - 1)
        extra = "`a code span that\nruns over two lines`" if i == 1 else "<!-- words\nhidden -->"
        lines += ["## " + heading, "", body + " `rms_plain` = 0.29783 " + extra, ""]
    findings = _write_md(tmp_path, "\n".join(lines))
    assert failing(list(findings.values())) == {"report.md.prose.%d" % i for i in range(1, 6)}
    assert findings["report.md.prose.2"].details["letters"] == reports.PROSE_MIN_LETTERS - 1
