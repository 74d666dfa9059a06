"""No submission stops a stage of the class: a fault of the grader injected into one
student's step (grading, feedback, similarity, summary, gradebook, LMS files, pages,
rows.json, merge) makes that student's row a grader error, named in summary.json, and
every output is still written for everybody else."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from grader.engine.batch import (
    GRADER_ERROR,
    BatchOptions,
    BatchResult,
    Row,
    classout,
    filledroster,
    lms,
    merge,
    pages,
    run,
    run_batch,
)

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
SEED = 11
BAD = "bad"
CLASS = {
    "amy": ROOT / "embed.py",
    BAD: CORPUS / "right" / "plain_loops.py",
    "cid": CORPUS / "wrong" / "cosine_not_divided.py",
    "dee": CORPUS / "wrong" / "dot_skips_last.py",
}
OTHERS = sorted(set(CLASS) - {BAD})
OUTPUTS = (
    "gradebook.csv",
    lms.CANVAS_FILE,
    lms.MOODLE_FILE,
    "summary.json",
    "summary.txt",
    "report.html",
    "rows.json",
)


def make_class(root: Path) -> None:
    for name, module in CLASS.items():
        (root / name).mkdir(parents=True)
        shutil.copyfile(module, root / name / "embed.py")
        for n in ("embed_report.json", "embed_report.md"):
            shutil.copyfile(ROOT / "reference" / n, root / name / n)


def options(**more: Any) -> BatchOptions:
    return BatchOptions(seed=SEED, jobs=2, pool="thread", **more)


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The class graded once: a rerun into a copy of its output grades nothing again."""
    base = tmp_path_factory.mktemp("stages")
    make_class(base / "class")
    result = run_batch(base / "class", base / "out", options())
    assert result.exit_status == 0 and [r.status for r in result.rows] == ["graded"] * 4
    return base


def rerun(graded: Path, tmp_path: Path, **more: Any) -> BatchResult:
    out = tmp_path / "out"
    shutil.copytree(graded / "out", out)
    return run_batch(graded / "class", out, options(**more))


def csv_rows(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def everything_written(
    out: Path, struck: str, stage: str, outputs: Sequence[str] = OUTPUTS
) -> dict[str, dict[str, str]]:
    """Every output is there and holds every other student as usual; the struck one's
    row is a grader error that names the step; summary.json lists the fault."""
    for name in outputs:
        assert (out / name).is_file(), name
    book = {r["id"]: r for r in csv.DictReader(io.StringIO((out / "gradebook.csv").read_text()))}
    assert sorted(book) == sorted(CLASS)
    for ident in OTHERS:
        assert book[ident]["status"] == "graded", book[ident]
        assert (out / "feedback" / ("%s.html" % ident)).is_file()
    assert float(book["amy"]["total"]) == 100
    assert book[struck]["status"] == GRADER_ERROR
    assert "ZeroDivisionError" in book[struck]["detail"]
    for name, grade in ((lms.CANVAS_FILE, -1), (lms.MOODLE_FILE, "Grade")):
        header, *lines = csv_rows(out / name)
        column = header.index(grade) if isinstance(grade, str) else len(header) - 1
        holds = {ident: r[column] for r in lines for ident in CLASS if ident in r}
        assert set(OTHERS) <= set(holds), name
        # The struck row is there with no points, or (when even that fails) not at all.
        assert holds.get(struck, "") == "", name
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert {"id": struck, "stage": stage} in [
        {k: f[k] for k in ("id", "stage")} for f in summary["faults"]
    ]
    assert summary["statuses"].get("graded") == len(OTHERS)
    assert struck in (out / "summary.txt").read_text(encoding="utf-8")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert all(ident in page for ident in OTHERS)
    if "rows.json" in outputs:
        record = json.loads((out / "rows.json").read_text(encoding="utf-8"))
        assert set(OTHERS) <= {e["row"]["id"] for e in record["rows"]}
    return book


def raising_for(ident: str, real: Callable[..., Any], rows_at: int = 0) -> Callable[..., Any]:
    """``real``, raising when the rows (or modules) it is given hold the graded ``ident``."""

    def hit(items: Any) -> bool:
        for item in items if isinstance(items, (list, tuple)) else [items]:
            if isinstance(item, Row) and item.id == ident and item.status != GRADER_ERROR:
                return True
            if isinstance(item, tuple) and item and item[0] == ident:
                return True
        return False

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if hit(args[rows_at]):
            raise ZeroDivisionError("a fault of the grader")
        return real(*args, **kwargs)

    return wrapped


STAGES: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "similarity": lambda mp: mp.setattr(
        classout, "class_similarity", raising_for(BAD, classout.class_similarity)
    ),
    "summary": lambda mp: mp.setattr(classout, "summarize", raising_for(BAD, classout.summarize)),
    "gradebook": lambda mp: mp.setattr(Row, "csv", raising_for(BAD, Row.csv)),
    "page": lambda mp: mp.setattr(
        pages, "write_pages", raising_for(BAD, pages.write_pages, rows_at=1)
    ),
    "roster": lambda mp: mp.setattr(
        filledroster, "problems", raising_for(BAD, filledroster.problems)
    ),
}


def _by_row(real: Callable[..., Any]) -> Callable[..., Any]:
    """``real`` for a row, raising for the struck one's (even for its grader-error row:
    it is then left out of that file)."""

    def wrapped(row: Row, *args: Any) -> Any:
        if row.id == BAD:
            raise ZeroDivisionError("a fault of the grader")
        return real(row, *args)

    return wrapped


STAGES["canvas"] = lambda mp: mp.setattr(lms, "canvas_id", _by_row(lms.canvas_id))
STAGES["moodle"] = lambda mp: mp.setattr(lms, "moodle_participant", _by_row(lms.moodle_participant))


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_fault_in_one_students_step_stops_nothing(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    STAGES[stage](monkeypatch)
    result = rerun(graded, tmp_path)
    assert result.exit_status == 2
    assert [f.id for f in result.faults] == [BAD] and result.faults[0].stage == stage
    everything_written(tmp_path / "out", BAD, stage)


def test_a_fault_before_grading_is_that_submissions_row(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = run.files_hash

    def files_hash(sub: Any) -> str:
        if sub.id == BAD:
            raise ZeroDivisionError("a fault of the grader")
        return real(sub)

    monkeypatch.setattr(run, "files_hash", files_hash)
    result = rerun(graded, tmp_path)
    assert result.exit_status == 2
    everything_written(tmp_path / "out", BAD, "grading")
    # Nothing of it was kept: the next run has its grade.
    monkeypatch.setattr(run, "files_hash", real)
    again = run_batch(graded / "class", tmp_path / "out", options())
    assert again.exit_status == 0 and [r.status for r in again.rows] == ["graded"] * 4


def test_feedback_that_cannot_be_written_is_that_submissions_row(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = run.write_atomic

    def write(path: Path, data: str) -> None:
        if path.name == "%s.json" % BAD and '"checks": []' not in data:
            raise ZeroDivisionError("a fault of the grader")
        real(path, data)

    monkeypatch.setattr(run, "write_atomic", write)
    result = rerun(graded, tmp_path, force=True)
    assert result.exit_status == 2
    everything_written(tmp_path / "out", BAD, "feedback")


def test_a_row_that_cannot_be_recorded_is_recorded_as_a_grader_error(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = Row.to_dict

    def to_dict(row: Row) -> dict[str, Any]:
        if row.id == BAD and row.status != GRADER_ERROR:
            raise ZeroDivisionError("a fault of the grader")
        return real(row)

    monkeypatch.setattr(Row, "to_dict", to_dict)
    result = rerun(graded, tmp_path)
    assert result.exit_status == 2
    record = json.loads((tmp_path / "out" / "rows.json").read_text(encoding="utf-8"))
    rows = {e["row"]["id"]: e["row"] for e in record["rows"]}
    assert sorted(rows) == sorted(CLASS) and rows[BAD]["status"] == GRADER_ERROR
    assert all(rows[i]["status"] == "graded" for i in OTHERS)


def test_a_fault_for_the_whole_class_leaves_out_its_step_only(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("a fault of the grader")

    # Fails for any two modules together, for none alone: no one submission's fault.
    real = classout.class_similarity
    monkeypatch.setattr(
        classout,
        "class_similarity",
        lambda ms, **kw: broken() if len(list(ms)) > 1 else real(ms, **kw),
    )
    result = rerun(graded, tmp_path)
    assert result.exit_status == 2
    assert [(f.id, f.stage) for f in result.faults] == [("", "similarity")]
    out = tmp_path / "out"
    for name in OUTPUTS:
        assert (out / name).is_file()
    assert [r.status for r in result.rows] == ["graded"] * 4
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert "ZeroDivisionError" in summary["similar"]["error"]
    assert "similarity" in (out / "summary.txt").read_text(encoding="utf-8")


def test_a_file_the_class_could_not_have_is_not_an_earlier_runs(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The gradebook fails for any two rows together, for none alone: no gradebook.
    real = classout.gradebook_csv
    monkeypatch.setattr(
        classout,
        "gradebook_csv",
        lambda rs, lab: (1 / 0) if len(rs) > 1 else real(rs, lab),
    )
    result = rerun(graded, tmp_path)  # into a copy of the last run's output
    assert [(f.id, f.stage) for f in result.faults] == [("", "gradebook")]
    out = tmp_path / "out"
    assert not (out / "gradebook.csv").exists()
    for name in OUTPUTS[1:]:
        assert (out / name).is_file(), name


def test_a_malformed_notebook_stops_nothing(tmp_path: Path) -> None:
    root = tmp_path / "class"
    make_class(root)
    (root / "nb").mkdir()
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "source": "x = 1", "outputs": []}, 1],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": "5",
    }
    (root / "nb" / "embed.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    result = run_batch(root, tmp_path / "out", options())
    for name in OUTPUTS:
        assert (tmp_path / "out" / name).is_file()
    assert {r.id for r in result.rows} == set(CLASS) | {"nb"}
    assert all(r.status == "graded" for r in result.rows if r.id in CLASS)


# Shards and merge ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def shards(graded: Path) -> list[Path]:
    outs = []
    for k in (1, 2):
        out = graded / ("shard%d" % k)
        run_batch(graded / "class", out, options(shard=(k, 2)))
        outs.append(out)
    return outs


MERGE_STAGES = dict(STAGES)
MERGE_STAGES["merge"] = lambda mp: mp.setattr(
    merge.shardfile, "entry", _raising_entry(merge.shardfile.entry)
)


def _raising_entry(real: Callable[..., Any]) -> Callable[..., Any]:
    def entry(out: Path, raw: Any, lab: Any) -> Any:
        if raw["row"]["id"] == BAD:
            raise ZeroDivisionError("a fault of the grader")
        return real(out, raw, lab)

    return entry


@pytest.mark.parametrize("stage", sorted(MERGE_STAGES))
def test_a_fault_in_one_students_step_stops_no_merge(
    shards: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stage: str
) -> None:
    MERGE_STAGES[stage](monkeypatch)
    dest = tmp_path / "merged"
    merged = merge.merge(shards, dest)
    assert merged.exit_status == 2
    book = everything_written(dest, BAD, stage, OUTPUTS[:-1])  # merge writes no rows.json
    assert float(book["cid"]["total"]) < 100
    assert [r.id for r in merged.rows] == sorted(CLASS)


def test_merge_says_what_failed_in_its_exit_status(
    shards: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    MERGE_STAGES["page"](monkeypatch)
    argv = [*map(str, shards), "--out", str(tmp_path / "m"), "--lang", "en"]
    assert merge.main(argv) == 2
    assert BAD in capsys.readouterr().err
    monkeypatch.undo()
    assert merge.main(argv) == 0


def test_a_long_name_in_any_script_is_a_submission_like_any(tmp_path: Path) -> None:
    # 84 Korean characters are 252 bytes: a legal folder name, but no feedback file
    # can be named after it (".NAME.json.tmp" is over 255 bytes).
    root = tmp_path / "class"
    make_class(root)
    long = "가" * 84
    shutil.copytree(root / "amy", root / long)
    result = run_batch(root, tmp_path / "out", options())
    assert result.exit_status == 0 and not result.faults
    [row] = [r for r in result.rows if r.id.startswith("가")]
    assert row.status == "graded" and row.total == 100
    for ext in ("txt", "json", "html"):
        assert (tmp_path / "out" / "feedback" / ("%s.%s" % (row.id, ext))).is_file()


def test_a_fault_in_a_shard_stops_neither_the_shard_nor_the_merge(
    graded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    STAGES["page"](monkeypatch)
    outs = []
    for k in (1, 2):
        out = tmp_path / ("shard%d" % k)
        shutil.copytree(graded / "out", out)  # its cache: nothing graded again
        result = run_batch(graded / "class", out, options(shard=(k, 2)))
        assert result.exit_status == (2 if BAD in {r.id for r in result.rows} else 0)
        for name in OUTPUTS:
            assert (out / name).is_file(), name
        outs.append(out)
    monkeypatch.undo()  # the fault was the shard's grader's; the merge's is sound
    merged = merge.merge(outs, tmp_path / "merged")
    assert merged.exit_status == 0
    assert [r.status for r in merged.rows] == ["graded"] * 4
