"""The student edition, graded from prepared cases, against the full grader.

The prepared runs are the full grader's own runs: for every module of
``tests/corpus/`` both editions give each check the same verdict, points, blame,
hint and message on the same inputs, and the reference gets full marks.  A module
that answers from the prepared data gets no point from the full grader that it
would not get without it.  ``tests/test_student_wheel.py`` checks the built wheel.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from timelimits import scaled

from grader import grade
from grader.engine import lab as labs
from grader.engine.vocabulary.expect import Returns
from grader.engine.vocabulary.results import Report
from grader.labs.embed import fixed
from grader.labs.embed.lab import full
from grader.labs.embed.stored import build, data
from grader.labs.embed.stored import lab as stored

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
MODULES = sorted((CORPUS / "wrong").glob("*.py")) + sorted((CORPUS / "right").glob("*.py"))
SPEC = "student-edition-under-test"
RUNS = 2


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> data.Prepared:
    folder = tmp_path_factory.mktemp("prepared")
    build.prepare(folder, RUNS)
    runs = data.Prepared(folder)
    labs.register(SPEC, stored.make(runs))
    return runs


def _same(a: Any, b: Any) -> bool:
    """Equal, bit for bit for floats (nan included), tuples apart from lists."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b) or (a != a and b != b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def test_a_prepared_run_holds_the_full_graders_cases(prepared: data.Prepared) -> None:
    lab = labs.find(SPEC)
    ids = tuple(c.id for c in lab.checks)
    assert ids == tuple(c.id for c in full().checks)
    seed = prepared.common["seeds"][1]
    mine = lab.cases(1, ids)
    theirs = full().cases(seed, ids)
    assert len(mine) == len(theirs)
    for (check, cases), (their_check, their_cases) in zip(mine, theirs):
        assert (check.id, check.weight, check.step) == (
            their_check.id,
            their_check.weight,
            their_check.step,
        )
        assert len(cases) == len(their_cases), check.id
        for c, t in zip(cases, their_cases):
            assert c.fn == t.fn and c.count == t.count
            assert _same(c.args, t.args), check.id
            assert type(c.expect).__name__ in (
                type(t.expect).__name__,
                "Stored" + type(t.expect).__name__,
            )
            if isinstance(t.expect, Returns):
                assert isinstance(c.expect, Returns) and _same(c.expect.value, t.expect.value)


def test_a_seed_picks_one_prepared_run(prepared: data.Prepared) -> None:
    lab = labs.find(SPEC)
    ids = ("lookup.values",)
    assert lab.cases(0, ids) == lab.cases(RUNS, ids)
    assert not _same(lab.cases(0, ids)[0][1][-1].args, lab.cases(1, ids)[0][1][-1].args)


def test_the_report_figures_are_the_oracles(prepared: data.Prepared) -> None:
    stored_values, computed = prepared.fixed(), fixed.computed()
    assert stored_values.keys() == computed.keys()
    assert _same(stored_values.pop("expected"), computed.pop("expected"))
    for key in computed:
        assert _same(stored_values[key], computed[key]), key


def _verdicts(report: Report) -> dict[str, tuple[Any, ...]]:
    return {
        c.id: (
            c.status,
            c.points,
            tuple(c.caused_by),
            c.hint,
            # The import's time is measured afresh.
            None if c.id == "imports.load" else c.message,
        )
        for c in report.checks
    }


# Wrong modules whose answers depend on where the child's allocator puts a new table
# (a cache keyed by id(table)): whether a later call of another check meets a reused
# address is chance, in either edition, run to run.  The blamed function's own checks
# catch it on every run; what its callers inherit from it may differ.
BY_ADDRESS = {"lookup_caches_by_id"}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: "%s/%s" % (p.parent.name, p.stem))
def test_both_editions_agree_on_every_corpus_module(prepared: data.Prepared, path: Path) -> None:
    seed = prepared.common["seeds"][0]
    theirs = grade(path, seed=seed, check_reports=False)
    mine = grade(path, seed=0, check_reports=False, lab=SPEC)
    assert theirs.grader_error == mine.grader_error == ""
    if path.stem in BY_ADDRESS:
        blame = path.read_text("utf-8").splitlines()[0][len("# blame: ") :]
        names = {n.strip() for n in blame.split(",")}

        def own(report: Report) -> dict[str, tuple[Any, ...]]:
            return {k: v for k, v in _verdicts(report).items() if k.split(".")[0] in names}

        assert own(mine) == own(theirs)
        assert mine.blamed() == theirs.blamed() == names
        return
    assert _verdicts(mine) == _verdicts(theirs)
    assert mine.blamed() == theirs.blamed()
    assert mine.score == theirs.score


@pytest.mark.parametrize("run", range(RUNS))
def test_the_reference_gets_full_marks(prepared: data.Prepared, run: int) -> None:
    report = grade(ROOT / "embed.py", seed=run, report_dir=ROOT / "reference", lab=SPEC)
    assert report.grader_error == ""
    assert report.score == report.max_score == 100, [c.id for c in report.checks if not c.ok]


# A module that answers from the prepared data --------------------------------------

# Every graded function of the reference is replaced: by a look-up in the prepared
# answers (falling back to an exception), or by the exception alone.
REPLAY = """
import gzip as _gzip, json as _json, array as _array, base64 as _b64, os as _os

_DIR = %(folder)r

def _load():
    docs = [_json.loads(_gzip.decompress(open(_os.path.join(_DIR, n), "rb").read()))
            for n in sorted(_os.listdir(_DIR))]
    pool = {}
    for d in docs:
        pool.update(d.get("pool", {}))
    memo = {}
    def value(v):
        if isinstance(v, list):
            return [value(x) for x in v]
        if not isinstance(v, dict):
            return v
        if "$p" in v:
            k = v["$p"]
            if k not in memo:
                e = pool[k]
                if "f64" in e:
                    a = _array.array("d"); a.frombytes(_b64.b64decode(e["f64"])); memo[k] = a.tolist()
                else:
                    memo[k] = [value(x) for x in e["list"]]
            return memo[k]
        if "$t" in v:
            return tuple(value(v["$t"]))
        if "$d" in v:
            return {value(k): value(x) for k, x in v["$d"]}
        if "$f" in v:
            return float(v["$f"])
        if "$c" in v:
            return {k: value(x) for k, x in v["v"].items()}
        return v
    answers = {}
    for d in docs:
        if "seed" not in d:
            continue  # the common part: no cases
        for cases in d["checks"].values():
            for c in cases:
                e = value(c["expect"])
                if "value" in e:
                    answers[(c["fn"], repr(value(c["args"])))] = e["value"]
                elif "expected" in e:
                    answers[(c["fn"], repr(value(c["args"])))] = list(e["expected"])
    return answers

_ANSWERS = _load()

def _answer(fn, *args):
    key = (fn, repr(list(args)))
    if %(replay)s and key in _ANSWERS:
        return _ANSWERS[key]
    raise ValueError("not among the prepared cases")
"""


def _replacing(folder: Path, replay: bool) -> str:
    from grader.labs.embed.contract import NAMES

    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    source += REPLAY % {"folder": str(folder), "replay": replay}
    for name in NAMES:
        if name.params is not None and name.name != "write_report":
            source += "\n\ndef %s(*args):\n    return _answer(%r, *args)\n" % (name.name, name.name)
    return source


def test_answers_from_the_prepared_data_earn_nothing_with_the_full_grader(
    prepared: data.Prepared, tmp_path: Path
) -> None:
    points = {}
    for replay in (True, False):
        module = tmp_path / ("replay" if replay else "without") / "embed.py"
        module.parent.mkdir()
        module.write_text(_replacing(prepared.folder, replay), encoding="utf-8")
        # A seed that is not one of the prepared runs', as for the grade that counts.
        report = grade(module, seed=20261201, check_reports=True, timeout=scaled(10))
        assert report.grader_error == ""
        points[replay] = {c.id: c.points for c in report.checks}
        assert points[replay]["imports.load"] > 0
    assert points[True] == points[False]
    # The same module does replay the prepared answers: in the student edition it passes.
    module = tmp_path / "replay" / "embed.py"
    replayed = grade(module, seed=0, check_reports=False, lab=SPEC, timeout=scaled(10))
    # (its refusal and inputs checks wait for values checks that the replay fails on
    # the aliased tables, so it keeps less than half)
    assert replayed.score > 30, json.dumps({c.id: c.points for c in replayed.checks})


def test_students_are_told_to_install_the_student_edition() -> None:
    for name in ("README.md", "README.ko.md", "README.zh.md"):
        text = (ROOT / "exercises" / name).read_text(encoding="utf-8")
        assert "pip install embed_grader_student-" in text, name
        assert "embed_grader-0" not in text, name
    template = (ROOT / "ci-templates" / "github-actions-grade.yml").read_text(encoding="utf-8")
    assert "nox -s student-wheel" in template


def test_the_texts_state_how_many_runs_are_prepared() -> None:
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "%d runs of cases prepared" % build.RUNS in readme
    assert "run `N %% %d`" % build.RUNS in readme
    for name, words in (
        ("README.md", "%d runs' worth"),
        ("README.ko.md", "실행 %d번 분량"),
        ("README.zh.md", "共 %d 次运行"),
    ):
        text = " ".join((ROOT / "exercises" / name).read_text(encoding="utf-8").split())
        assert words % build.RUNS in text, name
