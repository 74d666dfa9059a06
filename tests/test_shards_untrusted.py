"""``merge`` trusts no shard: each forgery of a shard's output (its ids, its points, its
size, its depth, its types, its links) is refused by name, in the exit status, and the
rest of the class is still merged."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.engine.batch import BatchOptions, lms, run_batch
from grader.engine.batch.classout import in_shard
from grader.engine.batch.merge import main as merge_main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
SEED = 5
CLASS = {
    "amy": ROOT / "embed.py",
    "bo": CORPUS / "wrong" / "cosine_not_divided.py",
    "cy": CORPUS / "wrong" / "dot_skips_last.py",
    "di": CORPUS / "right" / "plain_loops.py",
    "ed": CORPUS / "wrong" / "logits_softmax.py",
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The class in two shards; each test forges copies of them."""
    base = tmp_path_factory.mktemp("untrusted")
    root = base / "class"
    for name, module in CLASS.items():
        (root / name).mkdir(parents=True)
        shutil.copyfile(module, root / name / "embed.py")
        for n in ("embed_report.json", "embed_report.md"):
            shutil.copyfile(ROOT / "reference" / n, root / name / n)
    for k in (1, 2):
        run_batch(root, base / ("shard%d" % k), BatchOptions(seed=SEED, jobs=2, shard=(k, 2)))
    assert all(any(in_shard(i, (k, 2)) for i in CLASS) for k in (1, 2))
    return base


def shards(graded: Path, tmp_path: Path) -> list[Path]:
    outs = []
    for k in (1, 2):
        shutil.copytree(graded / ("shard%d" % k), tmp_path / ("shard%d" % k))
        outs.append(tmp_path / ("shard%d" % k))
    return outs


def holding(outs: list[Path], ident: str) -> Path:
    return next(o for o in outs if ident in rows_of(o))


def rows_of(out: Path) -> dict[str, dict[str, Any]]:
    record = json.loads((out / "rows.json").read_text(encoding="utf-8"))
    return {e["row"]["id"]: e for e in record["rows"]}


def edit(out: Path, change: Callable[[dict[str, Any]], None]) -> None:
    path = out / "rows.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    change(record)
    path.write_text(json.dumps(record), encoding="utf-8")


def entry_of(record: dict[str, Any], ident: str) -> dict[str, Any]:
    return next(e for e in record["rows"] if e["row"]["id"] == ident)


def run_merge(
    outs: list[Path], dest: Path, capsys: pytest.CaptureFixture[str], *more: str
) -> tuple[int, str]:
    code = merge_main([*map(str, outs), "--out", str(dest), "--lang", "en", *more])
    return code, capsys.readouterr().err


def gradebook(dest: Path) -> dict[str, dict[str, str]]:
    text = (dest / "gradebook.csv").read_text(encoding="utf-8")
    return {r["id"]: r for r in csv.DictReader(io.StringIO(text))}


def merged_without(dest: Path, missing: set[str], grader_errors: set[str]) -> None:
    """Every output written; every other student with the grade the shards gave."""
    book = gradebook(dest)
    assert set(book) == set(CLASS) - missing
    for ident, row in book.items():
        want = "grader error" if ident in grader_errors else "graded"
        assert row["status"] == want, (ident, row)
        if ident not in grader_errors:
            assert (dest / "feedback" / ("%s.html" % ident)).is_file()
    if "amy" in book:
        assert float(book["amy"]["total"]) == 100
    for name in (lms.CANVAS_FILE, lms.MOODLE_FILE, "summary.json", "summary.txt", "report.html"):
        assert (dest / name).is_file()
    for row in book.values():
        assert float(row["total"]) <= 100 and float(row["max"]) == 100


@pytest.mark.parametrize("forged", ["../../../outside/escaped", "ABSOLUTE"])
def test_an_id_that_is_a_path_is_refused(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], forged: str
) -> None:
    outs = shards(graded, tmp_path)
    if forged == "ABSOLUTE":
        forged = str(tmp_path / "abs" / "escaped")
    (tmp_path / "abs").mkdir()
    where = holding(outs, "bo")

    def change(record: dict[str, Any]) -> None:
        entry_of(record, "bo")["row"]["id"] = forged

    edit(where, change)
    dest = tmp_path / "deep" / "er" / "merged"
    dest.parent.mkdir(parents=True)
    (tmp_path / "deep" / "outside").mkdir()  # where dest/feedback/../../../outside is
    before = {p for p in tmp_path.rglob("*")}
    code, err = run_merge(outs, dest, capsys)
    after = {p for p in tmp_path.rglob("*") if not p.is_relative_to(dest)}
    assert sorted(after - before) == []
    merged_without(dest, {"bo"}, set())
    assert code == 2 and "refused" in err and "escaped" in err


FORGED_ROWS: dict[str, Callable[[dict[str, Any]], None]] = {
    "total": lambda row: row.update(total=1000.0),
    "max": lambda row: row.update(max=1000.0),
    "steps and total": lambda row: row.update(
        steps={k: 100.0 for k in row["steps"]}, total=100.0 * len(row["steps"])
    ),
    "type of total": lambda row: row.update(total="100"),
    "type of steps": lambda row: row.update(steps=[1, 2]),
    "type of seed": lambda row: row.update(seed=[1]),
    "extra field": lambda row: row.update(admin=True),
    "missing field": lambda row: row.pop("total"),
    "negative": lambda row: row.update(total=-5.0),
    "status": lambda row: row.update(status="graded; drop table"),
}


@pytest.mark.parametrize("how", sorted(FORGED_ROWS))
def test_a_forged_row_is_refused_and_the_rest_merged(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    outs = shards(graded, tmp_path)
    edit(holding(outs, "cy"), lambda record: FORGED_ROWS[how](entry_of(record, "cy")["row"]))
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    merged_without(dest, set(), {"cy"})
    assert float(gradebook(dest)["cy"]["total"]) == 0
    assert "refused" in gradebook(dest)["cy"]["detail"]
    assert code == 2 and "refused" in err


def test_points_the_checks_do_not_give_are_refused(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A row made whole (its steps full, its total their sum): its checks still fail.
    outs = shards(graded, tmp_path)
    full = rows_of(holding(outs, "amy"))["amy"]["row"]

    def change(record: dict[str, Any]) -> None:
        row = entry_of(record, "bo")["row"]
        row.update(steps=full["steps"], total=full["total"], failing=[], follows={})

    edit(holding(outs, "bo"), change)
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    assert code == 2 and "bo.json" in err
    merged_without(dest, set(), {"bo"})


def test_an_id_in_two_shards_is_refused_in_both(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    first = holding(outs, "bo")
    other = next(o for o in outs if o != first)
    copy = rows_of(first)["bo"]
    copy["row"] = {**copy["row"], "total": 100.0}
    edit(other, lambda record: record["rows"].append(copy))
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    assert code == 2 and "bo" in err
    merged_without(dest, set(), {"bo"})


def test_an_id_that_is_no_submission_is_refused(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    where = holding(outs, "bo")
    copy = rows_of(where)["bo"]
    copy["row"] = {**copy["row"], "id": "mallory"}
    edit(where, lambda record: record["rows"].append(copy))
    for ext in ("txt", "json"):
        shutil.copyfile(where / "feedback" / ("bo." + ext), where / "feedback" / ("mallory." + ext))
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys, "--submissions", str(graded / "class"))
    assert code == 2 and "mallory" in err
    merged_without(dest, set(), set())


def test_a_huge_record_is_refused_unread(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    where = holding(outs, "bo")
    lost = set(rows_of(where))
    with open(where / "rows.json", "r+b") as f:
        f.truncate(300 << 20)  # sparse: takes no room on disk
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    assert code == 2 and "bytes" in err and str(where) in err
    merged_without(dest, lost, set())


def test_a_deep_record_is_refused(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    where = holding(outs, "bo")
    lost = set(rows_of(where))
    text = (where / "rows.json").read_text(encoding="utf-8")
    deep = "[" * 100_000 + "]" * 100_000
    (where / "rows.json").write_text(text[:-2] + ', "x": ' + deep + "}\n", encoding="utf-8")
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    assert code == 2 and "deeper" in err
    merged_without(dest, lost, set())


def test_a_deep_feedback_file_is_refused(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    path = holding(outs, "bo") / "feedback" / "bo.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["meta"] = json.loads("[" * 500 + "]" * 500)
    path.write_text(json.dumps(data), encoding="utf-8")
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    assert code == 2 and "deeper" in err
    merged_without(dest, set(), {"bo"})


def test_a_link_in_a_shard_is_not_followed(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("the instructor's private key\n", encoding="utf-8")
    feedback = holding(outs, "bo") / "feedback" / "bo.txt"
    feedback.unlink()
    feedback.symlink_to(secret)
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    for path in dest.rglob("*"):
        if path.is_file():
            assert "private key" not in path.read_text(encoding="utf-8", errors="replace"), path
    merged_without(dest, set(), {"bo"})
    assert code == 2 and "link" in err


def test_a_record_that_is_a_link_is_refused(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    where = holding(outs, "bo")
    lost = set(rows_of(where))
    elsewhere = tmp_path / "elsewhere.json"
    (where / "rows.json").rename(elsewhere)
    (where / "rows.json").symlink_to(elsewhere)
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    assert code == 2 and "link" in err
    merged_without(dest, lost, set())


def test_a_record_of_the_wrong_shape_is_refused(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    where = holding(outs, "bo")
    lost = set(rows_of(where))
    edit(where, lambda record: record.update(rows={"bo": 1}))
    dest = tmp_path / "merged"
    code, err = run_merge(outs, dest, capsys)
    assert code == 2 and str(where) in err
    merged_without(dest, lost, set())


def test_with_the_submissions_every_student_has_one_row(
    graded: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outs = shards(graded, tmp_path)
    where = holding(outs, "bo")
    edit(where, lambda record: record["rows"].remove(entry_of(record, "bo")))
    dest = tmp_path / "merged"
    code, _ = run_merge(outs, dest, capsys, "--submissions", str(graded / "class"))
    assert code == 2
    merged_without(dest, set(), {"bo"})


def test_modules_named_relative_to_where_a_shard_ran_are_taken(
    graded: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A batch run as `embed-grader batch submissions ...` records `submissions/x/embed.py`.
    outs = shards(graded, tmp_path)
    monkeypatch.chdir(graded)

    def relative(record: dict[str, Any]) -> None:
        for e in record["rows"]:
            e["module"] = str(Path(e["module"]).relative_to(graded))

    for out in outs:
        edit(out, relative)
    code, err = run_merge(outs, tmp_path / "merged", capsys)
    assert code == 0, err
    merged_without(tmp_path / "merged", set(), set())
    summary = json.loads((tmp_path / "merged" / "summary.json").read_text(encoding="utf-8"))
    assert summary["similar"]["compared"] == len(CLASS)
