"""Tests of the message catalogues: complete, consistent and used the same way in every language.

``en.json`` defines the codes; ``ko.json`` and ``zh.json`` must translate every one of them
with the same placeholders.  A wrong module graded in all three languages must report the
same facts (checks, statuses, points, numbers, replay commands) in different words.
"""

from __future__ import annotations

import json
import os
import re
import string
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import grader
from grader.engine import messages
from grader.engine.messages import LANGUAGES, default_language, text
from grader.engine.output.render import render_text
from grader.engine.vocabulary.results import Report, Status
from grader.labs.embed.contract import STEPS

ROOT = Path(__file__).resolve().parent.parent
# The engine's catalogues, then the lab's: together, the texts of a run of this lab.
FOLDERS = (ROOT / "grader" / "engine" / "messages", ROOT / "grader" / "labs" / "embed" / "messages")
REFERENCE = ROOT / "embed.py"
STUB = ROOT / "exercises" / "embed.py"
TRANSLATIONS = [lang for lang in LANGUAGES if lang != "en"]
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")
NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def load_one(folder: Path, lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((folder / ("%s.json" % lang)).read_text("utf-8"))
    return data


def load(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for folder in FOLDERS:
        merged.update(load_one(folder, lang))
    return merged


def fields(template: str) -> list[tuple[str, str]]:
    """The (name, format spec) of every replacement field of a template."""
    return [
        (name, spec or "")
        for _, name, spec, _ in string.Formatter().parse(template)
        if name is not None
    ]


def dummy(name: str, spec: str) -> Any:
    return 1.5 if spec else "<%s>" % name


# The catalogues themselves ---------------------------------------------------------------


@pytest.mark.parametrize("folder", FOLDERS, ids=["engine", "lab"])
@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_each_folder_translates_exactly_its_own_codes(folder: Path, lang: str) -> None:
    assert set(load_one(folder, lang)) == set(load_one(folder, "en"))


def test_no_code_lives_in_both_the_engine_and_the_lab() -> None:
    engine, lab = (set(load_one(f, "en")) for f in FOLDERS)
    assert not engine & lab, sorted(engine & lab)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_catalogue_is_a_flat_table_of_strings(lang: str) -> None:
    data = load(lang)
    assert data, lang
    assert all(isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in data.items())
    # Written the way the project writes JSON, so that diffs stay small.
    for folder in FOLDERS:
        raw = (folder / ("%s.json" % lang)).read_text("utf-8")
        assert raw == json.dumps(load_one(folder, lang), indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_has_exactly_the_english_codes(lang: str) -> None:
    en, other = load("en"), load(lang)
    assert sorted(set(en) - set(other)) == [], "codes not translated into %s" % lang
    assert sorted(set(other) - set(en)) == [], "codes of %s unknown in en.json" % lang


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_uses_the_same_placeholders(lang: str) -> None:
    en, other = load("en"), load(lang)
    wrong = {
        code: (sorted(set(fields(en[code]))), sorted(set(fields(other[code]))))
        for code in en
        if code in other and set(fields(en[code])) != set(fields(other[code]))
    }
    assert wrong == {}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_template_formats_with_dummy_values(lang: str) -> None:
    for code, template in load(lang).items():
        found = fields(template)
        assert all(name.isidentifier() for name, _ in found), (code, template)
        params = {name: dummy(name, spec) for name, spec in found}
        filled = template.format(**params)
        for name, spec in found:
            if not spec:
                assert "<%s>" % name in filled
        # text() gives the same string (in Korean with each particle written in both
        # forms chosen for the word before it): no silent fallback to English.
        if lang == "ko":
            filled = messages._fill(template, params)
        assert text(code, lang, **params) == filled


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translation_quotes_the_same_literal_numbers(lang: str) -> None:
    def literal(template: str) -> Counter[str]:
        fixed = "".join(part for part, _, _, _ in string.Formatter().parse(template))
        return Counter(NUMBER.findall(fixed))

    en, other = load("en"), load(lang)
    assert {c: other[c] for c in en if c in other and literal(other[c]) != literal(en[c])} == {}


def test_step_titles_exist_for_every_step() -> None:
    for lang in LANGUAGES:
        for step in STEPS:
            assert text("step.%d" % step, lang), (lang, step)
    assert {int(c.split(".")[1]) for c in load("en") if c.startswith("step.")} == set(STEPS)


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_translations_are_not_english(lang: str) -> None:
    en, other = load("en"), load(lang)
    # Templates made only of placeholders, names and commands read the same everywhere.
    same = {code for code in en if code in other and en[code] == other[code]}
    assert same <= {
        "constant_ok",
        "open_other",
        "render.label",  # a label and its colon: full-width in Chinese only
        "reproduce",
        "report.json.schema_other",
        "report.json.value_ok",
    }


# text() and default_language() -----------------------------------------------------------


def test_text_falls_back_to_english_for_an_unknown_language() -> None:
    assert text("pass", "fr", n=3) == text("pass", "en", n=3) == load("en")["pass"].format(n=3)
    assert text("status.fail", "xx") == load("en")["status.fail"]


def test_text_falls_back_to_english_per_code(monkeypatch: pytest.MonkeyPatch) -> None:
    real = messages.catalogue

    def partial(lang: str) -> dict[str, str]:
        data = dict(real(lang))
        if lang == "ko":
            del data["pass"]
        return data

    monkeypatch.setattr(messages, "catalogue", partial)
    assert text("pass", "ko", n=2) == load("en")["pass"].format(n=2)
    assert text("status.fail", "ko") == load("ko")["status.fail"]


def test_text_rejects_an_unknown_code() -> None:
    with pytest.raises(KeyError):
        text("no.such.code", "ko")


@pytest.fixture
def clean_locale(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in LOCALE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(messages.locale, "getlocale", lambda *a: (None, None))
    return monkeypatch


@pytest.mark.parametrize(
    "env, expected",
    [
        ({"LANG": "ko_KR.UTF-8"}, "ko"),
        ({"LANG": "zh_CN.UTF-8"}, "zh"),
        ({"LANG": "zh_TW.UTF-8"}, "zh"),
        ({"LANG": "en_US.UTF-8"}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "C"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "ko"}, "ko"),
        ({"LC_ALL": "zh_CN.UTF-8"}, "zh"),
        ({"LC_MESSAGES": "ko_KR.UTF-8"}, "ko"),
        ({"LANGUAGE": "zh_CN:en_US"}, "zh"),
        ({"LANGUAGE": "ko:zh"}, "ko"),
        # The more specific variable wins.
        ({"LC_ALL": "ko_KR.UTF-8", "LANG": "zh_CN.UTF-8"}, "ko"),
        ({"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "ko_KR.UTF-8"}, "en"),
        ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "ko_KR.UTF-8"}, "zh"),
        ({"LANG": "ko_KR.UTF-8", "LANGUAGE": "zh_CN"}, "ko"),
        # Empty variables are ignored.
        ({"LC_ALL": "", "LANG": "zh_CN.UTF-8"}, "zh"),
        ({}, "en"),
    ],
)
def test_default_language_from_the_environment(
    clean_locale: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    for name, value in env.items():
        clean_locale.setenv(name, value)
    assert default_language() == expected


def test_default_language_from_the_locale_module(clean_locale: pytest.MonkeyPatch) -> None:
    clean_locale.setattr(messages.locale, "getlocale", lambda *a: ("ko_KR", "UTF-8"))
    assert default_language() == "ko"
    clean_locale.setattr(messages.locale, "getlocale", lambda *a: ("fr_FR", "UTF-8"))
    assert default_language() == "en"


# The same failure in three languages ------------------------------------------------------


def wrong_module(folder: Path) -> Path:
    """The reference module with two mistakes: negative ids pass lookup, rms skips the root."""
    source = REFERENCE.read_text("utf-8")
    checked = """    for token_id in ids:
        _check_id(token_id, len(table))
        rows.append(list(table[token_id]))"""
    upper_only = """    for token_id in ids:
        if token_id >= len(table):
            raise IndexError(token_id)
        rows.append(list(table[token_id]))"""
    root = "    return math.sqrt(dot(vec, vec) / len(vec))"
    assert source.count(checked) == 1 and source.count(root) == 1
    source = source.replace(checked, upper_only).replace(
        root, "    return dot(vec, vec) / len(vec)"
    )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "embed.py"
    path.write_text(source, "utf-8")
    return path


@pytest.fixture(scope="module")
def wrong(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return wrong_module(tmp_path_factory.mktemp("wrong"))


@pytest.fixture(scope="module")
def graded(wrong: Path) -> dict[str, Report]:
    return {
        lang: grader.grade(wrong, seed=5, report_dir=ROOT / "reference", lang=lang)
        for lang in LANGUAGES
    }


def total(report: Report, lang: str) -> str:
    def num(x: float) -> str:
        return ("%.2f" % x).rstrip("0").rstrip(".")

    return text("render.total", lang, score=num(report.score), max_score=num(report.max_score))


def step_line(out: str, lang: str, step: int) -> str:
    label = text("render.step", lang, step=step, title=text("step.%d" % step, lang))
    return next(line for line in out.splitlines() if line.startswith(label))


def numbers(message: str) -> Counter[str]:
    return Counter(NUMBER.findall(message))


def facts(report: Report) -> list[tuple[Any, ...]]:
    return [
        (
            c.id,
            c.step,
            c.function,
            c.status,
            c.points,
            c.max_points,
            c.reproduce,
            c.code,
            c.caused_by,
            bool(c.hint),
        )
        for c in report.checks
    ]


def test_the_wrong_module_fails_where_expected(graded: dict[str, Report]) -> None:
    failing = {c.id for c in graded["en"].checks if not c.ok and c.status is not Status.SKIP}
    assert {"lookup.out_of_range", "rms.values"} <= failing
    # The module's own report writer measures with the wrong rms: the figures that come
    # from it fail, blamed on rms, and the reference's files are not what it writes.
    assert {"report.json.values.rms_plain", "report.same"} <= failing
    assert all(
        c.function in ("lookup", "rms", "scaled_lookup")
        or (c.function == "report" and (c.caused_by == ("rms",) or c.id == "report.same"))
        for c in graded["en"].checks
        if c.id in failing
    )


def test_same_checks_statuses_points_and_commands(graded: dict[str, Report]) -> None:
    en = graded["en"]
    for lang in TRANSLATIONS:
        report = graded[lang]
        assert facts(report) == facts(en), lang
        assert (report.score, report.max_score, report.passed) == (
            en.score,
            en.max_score,
            en.passed,
        )
        assert [c.details for c in report.checks] == [c.details for c in en.checks], lang


def test_same_numbers_in_other_words(graded: dict[str, Report]) -> None:
    en = {c.id: c for c in graded["en"].checks}
    for lang in TRANSLATIONS:
        for c in graded[lang].checks:
            e = en[c.id]
            if c.id != "imports.load":  # states how long the import took
                assert numbers(c.message) == numbers(e.message), (lang, c.id, c.message)
            assert numbers(c.hint) == numbers(e.hint), (lang, c.id, c.hint)
            if not c.ok and c.status is not Status.SKIP:
                assert c.message != e.message, (lang, c.id)
                assert not e.hint or c.hint != e.hint, (lang, c.id)
    failing = [c.id for c in graded["en"].checks if not c.ok]
    for check_id in failing:
        texts = {
            lang: next(c for c in graded[lang].checks if c.id == check_id).message
            for lang in LANGUAGES
        }
        assert len(set(texts.values())) == len(LANGUAGES), texts


def test_rendered_reports_agree(graded: dict[str, Report]) -> None:
    rendered = {lang: render_text(report, lang) for lang, report in graded.items()}
    for lang, out in rendered.items():
        for step in STEPS:
            title = text("step.%d" % step, lang)
            assert text("render.step", lang, step=step, title=title) in out, (lang, step)
        assert total(graded[lang], lang) in out
        for c in graded[lang].checks:
            if c.reproduce:
                assert c.reproduce in out
    # The same lines, word for word, wherever no words are translated.
    replay = {
        lang: [
            line[len("  " + text("render.label", lang, label=text("render.replay", lang))) :]
            for line in out.splitlines()
            if line.startswith("  " + text("render.label", lang, label=text("render.replay", lang)))
        ]
        for lang, out in rendered.items()
    }
    assert replay["ko"] == replay["zh"] == replay["en"] != []


@pytest.mark.parametrize("lang", TRANSLATIONS)
def test_cli_speaks_the_language(wrong: Path, graded: dict[str, Report], lang: str) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            str(wrong),
            "--seed",
            "5",
            "--report-dir",
            str(ROOT / "reference"),
            "--lang",
            lang,
        ],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "COLUMNS"} | {"PYTHONIOENCODING": "utf-8"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        encoding="utf-8",
        timeout=120,
    )
    assert result.returncode == 1, result.stderr
    out = result.stdout
    report = graded[lang]
    for step in STEPS:
        title = text("step.%d" % step, lang)
        assert text("render.step", lang, step=step, title=title) in out
    assert total(report, lang) in out
    assert "  %s " % text("status.fail", lang) in step_line(out, lang, 2)
    assert text("status.pass", lang) in out
    assert text("render.label", lang, label=text("render.failures", lang)).rstrip() in out
    assert text("render.label", lang, label=text("render.hint", lang)) in out
    # A long path wraps (in Chinese before the bracket, where no space stands).
    assert text("render.seed", lang, seed=5).replace(" ", "") in "".join(out.split())
    # Piped, the text is wrapped to 80 columns; a long command goes on with " \\".
    joined = re.sub(r" \\\n +", " ", out)
    for c in report.checks:
        if c.reproduce:
            assert c.reproduce in joined
    # No English labels are left.
    for english in ("step 2 lookup", "score ", "what to fix", "FAIL", "replay:", "hint:"):
        assert english not in out, english
    assert render_text(report, lang, width=80) == out


# Steps that have not been started ---------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
def test_bare_stub_shows_steps_as_not_started(lang: str) -> None:
    report = grader.grade(STUB, seed=5, upto=2, lang=lang, check_reports=False)
    # The constants of step 1 pass, but none of its functions is started.
    assert any(c.step == 1 and c.status is Status.PASS for c in report.checks)
    out = render_text(report, lang)
    for step in (1, 2):
        assert step_line(out, lang, step).endswith("  " + text("status.skip", lang))


def test_a_started_step_with_a_failure_is_not_hidden(wrong: Path) -> None:
    report = grader.grade(wrong, seed=5, only=["lookup"], check_reports=False)
    line = step_line(render_text(report, "en"), "en", 2)
    assert text("status.fail", "en") in line
    assert text("status.skip", "en") not in line


# Kinds of mistake -------------------------------------------------------------------------

# Catalogue entries that are not the code of a failing check.
NOT_FAILURES = {
    "pass",
    "reproduce",
    "snippet",
    "caused_by",
    "output_note",
    "open_note",
    "inputs_ok",
    "constant_ok",
    "import_ok",
    "stdlib_ok",
    "open_returned",
    "open_raised",
    "open_other",
    "report.dir.module",
    "report.md.heading_at",
    "report.md.figure_wrong",
    "report.md.figure_wrong_json",
    "report.md.figure_digits",
    "report.md.figure_long",
    "report.md.claim_wrong",
    "report.write.encoding",
    "report.file.ok",
    "not_started",
    # parts of step 8's messages, and the texts of its skipped checks
    "report.md.figure_unmeasured",
    "report.md.figure_not_measured",
    "report.write.while",
    "report.write.not_started",
    "report.write.not_loaded",
    "report.same.unreadable",
    "report.same.json_invalid",
    "report.same.json_unread",
    "report.same.json_key",
    "report.same.json_other",
    "report.same.md_line",
    "report.same.md_empty",
    "report.write.ok",
    "report.same.ok",
}
NOT_FAILURE_PREFIXES = (
    "hint.",
    "again.",  # the context of a second call, around its failure's own message
    "printed.",
    "report.measure.",
    "render.",
    "step.",
    "batch.",
    "merge.",
    "cli.",
    "submission.",
    "status.",
    "idle.",
    "open.",
    "rule.",
    "kind.",
    "machine.",
    "page.",
    "report.kind.",
    "gradescope.",
    "handin.",
    "classroom.",
    "submission.",
    "report.json.schema_",
    "notebook.",
    "nbcheck.",
    "nbcell.",
)


def failure_codes() -> set[str]:
    return {
        code
        for code in load("en")
        if code not in NOT_FAILURES
        and not code.startswith(NOT_FAILURE_PREFIXES)
        # ".one": a singular, ".notebook": the text for a notebook; not codes of their own
        and not code.endswith(("_ok", ".one", ".notebook"))
    } | {"report.json.schema_fail"}


def test_every_failure_code_has_a_kind_in_words() -> None:
    codes = failure_codes()
    assert {"raised_at", "skipped_callee", "neigh_self", "report.file.single"} <= codes
    en = load("en")
    assert sorted(c for c in codes if "kind." + c not in en) == []
    # and nothing else has one
    assert sorted(c[5:] for c in en if c.startswith("kind.") and c[5:] not in codes) == [
        "not_started",
        "other",
    ]
    for lang in LANGUAGES:
        for code in codes:
            words = messages.kind(code, lang)
            assert words and "_" not in words and "." not in words, (lang, code, words)
    assert messages.kind("no.such.code", "ko") == text("kind.other", "ko")


def test_the_corpus_fails_only_with_codes_that_have_words() -> None:
    wrong = sorted((ROOT / "tests" / "corpus" / "wrong").glob("*.py"))[:12]
    seen: set[str] = set()
    for module in wrong:
        report = grader.grade(module, seed=3, report_dir=ROOT / "reference")
        seen |= {c.code for c in report.checks if c.status in (Status.FAIL, Status.ERROR)}
    assert seen and seen <= failure_codes()


# Korean particles and Chinese punctuation ------------------------------------------------


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        ("norm", "을 은 으로 이 과"),
        ("shape", "를 는 로 가 와"),
        ("make_table", "을 은 로 이 과"),  # 테이블: a final ㄹ takes 로
        ("lookup", "을 은 으로 이 과"),
        ("write_report(outdir)", "를 는 로 가 와"),
        ("--seed 2026", "을 은 으로 이 과"),  # 이천이십육
        ("--seed 2027", "을 은 로 이 과"),  # 이천이십칠
        ("--seed 2029", "를 는 로 가 와"),  # 이천이십구
        ("10", "을 은 으로 이 과"),  # 십
        ("IndexError", "를 는 로 가 와"),
        ("embed_report.json", "을 은 으로 이 과"),
        ("표", "를 는 로 가 와"),
        ("값", "을 은 으로 이 과"),
        ("행", "을 은 으로 이 과"),
        ("스케일", "을 은 로 이 과"),
    ],
)
def test_a_korean_particle_fits_the_sound_before_it(word: str, forms: str) -> None:
    from grader.engine.messages import korean

    markers = ("을(를)", "은(는)", "(으)로", "이(가)", "과(와)")
    assert " ".join(korean.resolve(word + m)[len(word) :] for m in markers) == forms


def test_korean_messages_attach_their_particles() -> None:
    """No particle stands apart from the word it follows, and a value's particle is
    chosen when the value is known."""
    loose = re.compile(
        r"[A-Za-z0-9_})\]`] (은|는|이|가|을|를|과|와|의|도|에|에서|로|으로|와|이다|다)(?![가-힣])"
    )
    wrong = [(code, t) for code, t in load("ko").items() if loose.search(t)]
    assert wrong == []
    assert "--seed 2026으로" in text("render.seed", "ko", seed=2026)
    assert "--seed 2027로" in text("render.seed", "ko", seed=2027)
    said = text("no_raise", "ko", call="f(1)", exc="ValueError", got="1")
    assert "ValueError를" in said
    said = text("no_raise", "ko", call="f(1)", exc="KeyError", got="1")
    assert "KeyError를" in said
    # A value's own text is never changed: only the catalogue's particles are chosen.
    said = text("raised", "ko", call="f()", raised="X", error="을(를) (으)로")
    assert said.endswith("을(를) (으)로")


def test_korean_names_a_table_row_haeng() -> None:
    ko = load("ko")
    for code in ("rows", "neigh_order", "hint.shape.swapped", "rule.ragged"):
        assert "행" in ko[code] and "줄" not in ko[code], code


def test_chinese_labels_use_the_full_width_colon(wrong: Path) -> None:
    report = grader.grade(wrong, seed=4, lang="zh", report_dir=ROOT / "reference")
    out = render_text(report, "zh", width=80)
    labels = [text(code, "zh") for code in ("render.hint", "render.replay", "render.notes")]
    labels.append(text("render.failures", "zh"))
    for label in labels:
        assert label + ": " not in out and label + ":\n" not in out + "\n"
    assert text("render.failures", "zh") + "：" in out
