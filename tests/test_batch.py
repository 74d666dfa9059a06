"""Batch grading: a small class with every kind of submission, its outputs and its cache."""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from timelimits import scaled

from grader.engine import batch
from grader.engine.batch import BatchOptions, BatchResult, discover, job, run_batch, student_seed
from grader.engine.commands.cli import main
from grader.engine.output import terminal
from grader.engine.sandbox import strongest
from grader.labs.embed.contract import MAX_SCORE

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from bench_batch import hanging_module, make_class  # noqa: E402

REFERENCE = ROOT / "reference"
RIGHT = ROOT / "tests" / "corpus" / "right" / "plain_loops.py"
WRONG = ROOT / "tests" / "corpus" / "wrong" / "cosine_not_divided.py"
SEED = 2024
TIMEOUT = 1.0  # a hanging function costs this much on an idle machine
LIMIT: dict[str, float] = {}  # the time limit a fixture graded with, as scaled


def make_submissions(root: Path) -> None:
    """One submission of every kind."""
    root.mkdir()

    def folder(name: str, source: Path | str | None, reports: bool = True) -> Path:
        d = root / name
        d.mkdir(parents=True)
        if isinstance(source, Path):
            shutil.copyfile(source, d / "embed.py")
        elif isinstance(source, str):
            (d / "embed.py").write_text(source, encoding="utf-8")
        if reports:
            for n in ("embed_report.json", "embed_report.md"):
                shutil.copyfile(REFERENCE / n, d / n)
        return d

    folder("alice", ROOT / "embed.py")
    folder("bob", WRONG)
    folder("carol", hanging_module())
    folder("dave", "import math\nraise RuntimeError('boom at import')\n")
    folder("erin", "import os\nos._exit(3)\n")
    folder("frank", None).joinpath("notes.txt").write_text("no module here", encoding="utf-8")
    nested = folder("grace", None, reports=False) / "unzipped" / "project"
    nested.mkdir(parents=True)
    shutil.copyfile(ROOT / "embed.py", nested / "embed.py")
    for n in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / n, nested / n)
    shutil.copyfile(ROOT / "embed.py", root / "heidi.py")  # a single file: no report files
    os.symlink(root / "nowhere.py", root / "ivan.py")  # a link: refused
    (root / ".hidden").mkdir()
    (root / "readme.txt").write_text("not a submission", encoding="utf-8")


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BatchResult]:
    base = tmp_path_factory.mktemp("batch")
    make_submissions(base / "class")
    opts = BatchOptions(seed=SEED, jobs=2, timeout=scaled(TIMEOUT))
    LIMIT["graded"] = opts.timeout
    return base, run_batch(base / "class", base / "out", opts)


def rows_by_id(result: BatchResult) -> dict[str, batch.Row]:
    return {r.id: r for r in result.rows}


def test_every_kind_of_submission_gets_its_row(graded: tuple[Path, BatchResult]) -> None:
    _, result = graded
    rows = rows_by_id(result)
    assert sorted(rows) == [
        "alice",
        "bob",
        "carol",
        "dave",
        "erin",
        "frank",
        "grace",
        "heidi",
        "ivan",
    ]
    status = {k: r.status for k, r in rows.items()}
    assert status == {
        "alice": "graded",
        "bob": "graded",
        "carol": "timeout",
        "dave": "import error",
        "erin": "crashed",
        "frank": "missing",
        "grace": "graded",
        "heidi": "graded",
        "ivan": "refused",
    }
    assert rows["alice"].total == MAX_SCORE
    assert rows["grace"].total == MAX_SCORE  # found one folder down
    assert 0 < rows["bob"].total < MAX_SCORE and rows["bob"].steps[6] < 15
    # A single file: its code writes good reports, but none were handed in beside it.
    assert 0 < rows["heidi"].steps[8] < 15 and rows["heidi"].total < MAX_SCORE
    assert ["report.same", "report.same.single"] in rows["heidi"].failing
    assert 0 < rows["carol"].total < MAX_SCORE and "rms" in rows["carol"].detail
    assert rows["carol"].seconds < 10 * LIMIT["graded"]
    assert "boom at import" in rows["dave"].detail
    for ident in ("dave", "erin", "frank", "ivan"):
        assert rows[ident].steps.get(1, 0) == 0
    # No Python file at all: what the folder holds instead.
    assert "notes.txt" in rows["frank"].detail and "embed.py" in rows["frank"].detail
    assert all(r.seed == SEED for r in result.rows)
    assert result.exit_status == 0 and result.graded == 7 and result.cached == 0


def test_gradebook(graded: tuple[Path, BatchResult]) -> None:
    base, result = graded
    with open(base / "out" / "gradebook.csv", encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        table = list(reader)
        fields = reader.fieldnames or []
    assert fields[:3] == ["id", "total", "max"]
    assert fields[3:12] == ["step%d" % s for s in range(9)]
    assert fields[12:15] == ["status", "seed", "seconds"]
    assert [r["id"] for r in table] == [r.id for r in result.rows]
    alice = next(r for r in table if r["id"] == "alice")
    assert alice["total"] == alice["max"] == "100" and alice["status"] == "graded"
    assert sum(float(alice["step%d" % s]) for s in range(9)) == 100
    assert {r["seed"] for r in table} == {str(SEED)}
    assert all(float(r["seconds"]) >= 0 for r in table)


def test_feedback_files(graded: tuple[Path, BatchResult]) -> None:
    base, result = graded
    feedback = base / "out" / "feedback"
    assert sorted(p.name for p in feedback.iterdir()) == sorted(
        "%s.%s" % (r.id, ext) for r in result.rows for ext in ("txt", "json", "html")
    )
    bob = json.loads((feedback / "bob.json").read_text(encoding="utf-8"))
    assert bob["seed"] == SEED and bob["score"] == rows_by_id(result)["bob"].total
    assert "cosine" in (feedback / "bob.txt").read_text(encoding="utf-8")
    frank = json.loads((feedback / "frank.json").read_text(encoding="utf-8"))
    assert frank["status"] == "missing" and frank["score"] == 0
    assert "missing" in (feedback / "frank.txt").read_text(encoding="utf-8")


def test_feedback_reads_from_the_students_folder(graded: tuple[Path, BatchResult]) -> None:
    """No path of the grading machine: commands work where the student keeps the module."""
    base, _ = graded
    feedback = base / "out" / "feedback"
    everything = "".join(p.read_text(encoding="utf-8") for p in sorted(feedback.iterdir()))
    assert str(base) not in everything
    assert "embed-grader-noreports" not in everything and "/tmp" not in everything
    bob = (feedback / "bob.txt").read_text(encoding="utf-8")
    assert bob.startswith("embed-grader · embed.py · ")
    assert "replay: embed-grader embed.py --seed %d --check cosine." % SEED in bob
    assert "--report-dir" not in bob
    assert "try it: python3 -c 'import embed; print(embed.cosine(" in bob
    assert json.loads((feedback / "bob.json").read_text(encoding="utf-8"))["path"] == "embed.py"
    # A single file has no report files handed in, and says so instead of naming a folder.
    heidi = (feedback / "heidi.txt").read_text(encoding="utf-8")
    assert heidi.count("single-file submission: nothing is handed in beside the module") == 1
    assert "embed-grader · embed.py · " in heidi


def test_nested_module_is_named_from_the_submission_folder(tmp_path: Path) -> None:
    root = tmp_path / "class"
    inner = root / "kim" / "hw"
    inner.mkdir(parents=True)
    checked = "    if not 0 <= token_id < vocab:\n"
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    assert source.count(checked) == 1  # negative ids pass; the report writer still works
    (inner / "embed.py").write_text(
        source.replace(checked, "    if not -vocab <= token_id < vocab:\n"), encoding="utf-8"
    )
    run_batch(root, tmp_path / "out", BatchOptions(seed=5, pool="thread"))
    text = (tmp_path / "out" / "feedback" / "kim.txt").read_text(encoding="utf-8")
    assert str(tmp_path) not in text
    assert "replay: embed-grader hw/embed.py --seed 5 --check lookup.out_of_range" in text
    assert "try it: cd hw && python3 -c 'import embed; print(embed.lookup(" in text
    assert "embed_report.json / embed_report.md not found in the folder of hw/embed.py" in text


def test_summary_names_mistakes_in_words(graded: tuple[Path, BatchResult]) -> None:
    base, result = graded
    from grader.engine.messages import kind

    failing = result.summary["failing_checks"]
    codes = {code for f in failing for code in f["codes"]}
    assert {"timeout", "report.same.single"} <= codes
    for f in failing:
        assert sum(f["mistakes"].values()) == sum(f["codes"].values())
        assert set(f["mistakes"]) == {kind(code) for code in f["codes"]}
    text = (base / "out" / "summary.txt").read_text("utf-8")
    assert all(terminal.cells(line) <= 80 for line in text.splitlines())
    assert "single-file submission: no report files" in " ".join(text.split())
    section = text.split("the checks failed most often")[1]
    for code in codes:
        assert code not in section.replace(";", " ").split(), code


def test_summary(graded: tuple[Path, BatchResult]) -> None:
    base, result = graded
    data: dict[str, Any] = json.loads((base / "out" / "summary.json").read_text("utf-8"))
    assert data == result.summary
    totals = sorted(r.total for r in result.rows)
    assert data["count"] == 9 and data["seed"] == SEED
    assert data["median"] == totals[4]
    assert data["mean"] == round(sum(totals) / 9, 2)
    assert sum(b["count"] for b in data["distribution"]) == 9
    assert data["distribution"][-1] == {"from": 100, "below": None, "count": 2}
    assert set(data["steps"]) == {str(s) for s in range(9)}
    assert data["statuses"]["graded"] == 4
    failing = {f["check"]: f for f in data["failing_checks"]}
    assert "report.same" in failing  # heidi handed in no report files
    counts = [f["students"] for f in data["failing_checks"]]
    assert counts == sorted(counts, reverse=True)
    assert any(c.startswith("cosine.") for c in failing)
    assert any(c.startswith("rms.") and failing[c]["codes"].get("timeout") for c in failing)
    text = (base / "out" / "summary.txt").read_text("utf-8")
    assert str(SEED) in text and "9 submissions" in text and "cosine" in text


def test_rerun_grades_only_what_changed(graded: tuple[Path, BatchResult]) -> None:
    base, first = graded
    work = base / "rerun"
    shutil.copytree(base / "class", work / "class", symlinks=True)
    shutil.copytree(base / "out", work / "out")
    opts = BatchOptions(seed=SEED, jobs=2, timeout=scaled(TIMEOUT))
    again = run_batch(work / "class", work / "out", opts)
    # The unreadable and missing ones are looked at again, at no cost.
    assert again.graded == 0 and again.cached == 7
    assert [(r.id, r.total, r.status) for r in again.rows] == [
        (r.id, r.total, r.status) for r in first.rows
    ]
    shutil.copyfile(ROOT / "embed.py", work / "class" / "bob" / "embed.py")
    (work / "class" / "alice" / "embed_report.md").write_text("# nothing\n", encoding="utf-8")
    shutil.rmtree(work / "class" / "frank")
    third = run_batch(work / "class", work / "out", opts)
    assert third.graded == 2 and third.cached == 5
    rows = rows_by_id(third)
    assert rows["bob"].total == MAX_SCORE and rows["alice"].total < MAX_SCORE
    assert "frank" not in rows and not (work / "out" / "feedback" / "frank.txt").exists()
    cache = json.loads((work / "out" / ".cache.json").read_text("utf-8"))
    assert cache["seed"] == SEED and "frank" not in cache["entries"]
    forced = run_batch(
        work / "class",
        work / "out",
        BatchOptions(seed=SEED, jobs=2, timeout=scaled(TIMEOUT), force=True),
    )
    assert forced.graded == 7


def test_seed_per_student(tmp_path: Path) -> None:
    root = tmp_path / "class"
    root.mkdir()
    for name in ("ann", "ben"):
        shutil.copyfile(WRONG, root / ("%s.py" % name))
    opts = BatchOptions(seed=5, seed_per_student=True, jobs=2)
    result = run_batch(root, tmp_path / "out", opts)
    seeds = {r.id: r.seed for r in result.rows}
    assert seeds == {"ann": student_seed(5, "ann"), "ben": student_seed(5, "ben")}
    assert seeds["ann"] != seeds["ben"] and student_seed(5, "ann") == student_seed(5, "ann")
    assert student_seed(6, "ann") != seeds["ann"]
    assert all(1 <= s < 10**9 for s in seeds.values())
    text = (tmp_path / "out" / "summary.txt").read_text("utf-8")
    assert "--seed-per-student" in text and result.summary["seed_per_student"] is True
    feedback = json.loads((tmp_path / "out" / "feedback" / "ann.json").read_text("utf-8"))
    assert feedback["seed"] == seeds["ann"]


def test_a_grader_fault_is_one_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "class"
    root.mkdir()
    shutil.copyfile(WRONG, root / "ok.py")
    shutil.copyfile(WRONG, root / "unlucky.py")
    real = job.grade  # grade_one reads it from its own module

    def flaky(path: Any, **kwargs: Any) -> Any:
        if Path(path).name == "unlucky.py":
            raise ZeroDivisionError("a fault of the grader")
        return real(path, **kwargs)

    monkeypatch.setattr(job, "grade", flaky)
    monkeypatch.setenv("CI", "true")
    # The stand-in grade() lives in this process: grade in threads.
    argv = ["batch", str(root), "--out", str(tmp_path / "out"), "--seed", "9", "--pool", "thread"]
    status = main(argv)
    assert status == 2
    out, err = capsys.readouterr()
    assert "2 submissions" in out and "grader error 1" in out
    assert "seed 9" in err and "unlucky" in err and "[2/2]" in err  # plain progress lines
    rows = {r["id"]: r for r in csv.DictReader(open(tmp_path / "out" / "gradebook.csv"))}
    assert rows["unlucky"]["status"] == "grader error"
    assert "ZeroDivisionError" in rows["unlucky"]["detail"]
    assert rows["ok"]["status"] == "graded" and float(rows["ok"]["total"]) > 0
    # A grader error is not cached: the next run tries again.
    monkeypatch.setattr(job, "grade", real)
    assert main(["batch", str(root), "--out", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    assert "seed 9" in err  # the seed of the last run into --out
    assert "1 graded now, 1 unchanged" in out


def test_process_pool(tmp_path: Path) -> None:
    root = tmp_path / "class"
    make_class(root, 3, hanging=0)
    opts = BatchOptions(seed=3, jobs=2, pool="process")
    result = run_batch(root, tmp_path / "out", opts)
    assert [r.status for r in result.rows] == ["graded"] * 3
    assert result.rows[0].total == MAX_SCORE


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", str(tmp_path / "absent"), "--out", str(tmp_path / "o")]) == 2
    assert "no such folder" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["batch", str(tmp_path / "empty"), "--out", str(tmp_path / "o")]) == 2
    assert "no submissions" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["batch", str(tmp_path / "empty")])  # --out is required
    assert main(["batch", str(tmp_path), "--out", "o", "--timeout", "0"]) == 2


def test_discover_ids_and_skips(tmp_path: Path) -> None:
    (tmp_path / "Kim Min-jun").mkdir()
    (tmp_path / "Kim Min-jun" / "embed.py").write_text("", encoding="utf-8")
    (tmp_path / "Kim_Min-jun.py").write_text("", encoding="utf-8")
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "embed.py").write_text("", encoding="utf-8")
    two = tmp_path / "two"
    for sub in ("a", "b"):
        (two / sub).mkdir(parents=True)
        (two / sub / "embed.py").write_text("", encoding="utf-8")
    subs = discover(tmp_path, skip=[tmp_path / "out"])
    assert [s.id for s in subs] == ["Kim_Min-jun", "Kim_Min-jun-2", "two"]
    assert subs[0].report_dir == tmp_path / "Kim Min-jun" and subs[1].report_dir is None
    assert subs[2].problem == "missing"  # two embed.py: which one is not ours to guess


def test_single_file_interface_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    status = main([str(ROOT / "embed.py"), "--seed", "1", "--report-dir", str(REFERENCE)])
    assert status == 0
    assert "100" in capsys.readouterr().out


@pytest.mark.skipif(
    __import__("grader.engine.sandbox").engine.sandbox.bwrap_problem() != "",
    reason="bubblewrap cannot run",
)
def test_batch_under_bubblewrap(tmp_path: Path) -> None:
    root = tmp_path / "class"
    root.mkdir()
    shutil.copyfile(RIGHT, root / "right.py")
    shutil.copyfile(WRONG, root / "wrong.py")
    argv = ["batch", str(root), "--out", str(tmp_path / "out"), "--seed", "3"]
    assert main(argv + ["--sandbox", "bwrap"]) == 0
    rows = {r["id"]: r for r in csv.DictReader(open(tmp_path / "out" / "gradebook.csv"))}
    assert rows["right"]["step6"] == "15" and float(rows["wrong"]["step6"]) < 15


def test_unreadable_report_files_count_once_in_the_summary(tmp_path: Path) -> None:
    root = tmp_path / "class"
    root.mkdir()
    shutil.copyfile(RIGHT, root / "alone.py")  # no report writer, no report files
    result = run_batch(root, tmp_path / "out", BatchOptions(seed=2, pool="thread"))
    ids = [f["check"] for f in result.summary["failing_checks"]]
    assert "report.write" in ids
    assert not any(i.startswith("report.json") or i.startswith("report.md") for i in ids)


# Links and the integrity of the class ---------------------------------------------------


def test_links_are_never_followed(tmp_path: Path) -> None:
    """A module or report file that is a link, or a folder that is one, reads nothing
    outside the submission's own folder: the classmate's report earns no points."""
    secret = tmp_path / "secret.py"
    secret.write_text("SECRET = 1\n" * 5 + "raise RuntimeError('SECRET-LINE')\n")
    root = tmp_path / "class"
    root.mkdir()
    alice = root / "alice"
    alice.mkdir()
    shutil.copyfile(ROOT / "embed.py", alice / "embed.py")
    for n in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / n, alice / n)
    linky = root / "linky"
    linky.mkdir()
    os.symlink(secret, linky / "embed.py")
    copycat = root / "copycat"
    copycat.mkdir()
    shutil.copyfile(ROOT / "embed.py", copycat / "embed.py")
    os.symlink(alice / "embed_report.json", copycat / "embed_report.json")
    os.symlink("/etc/passwd", copycat / "embed_report.md")
    os.symlink(alice, root / "alias")
    deep = root / "deep"
    deep.mkdir()
    os.symlink(alice, deep / "inner")  # a folder that is a link is not searched
    result = run_batch(root, tmp_path / "out", BatchOptions(seed=3, jobs=2, pool="thread"))
    rows = rows_by_id(result)
    assert {k: r.status for k, r in rows.items()} == {
        "alias": "refused",
        "alice": "graded",
        "copycat": "graded",
        "deep": "missing",
        "linky": "refused",
    }
    assert rows["alice"].total == MAX_SCORE
    # copycat's code writes its own reports; the linked ones handed in are not read.
    assert rows["copycat"].total < MAX_SCORE
    assert "symbolic link" in rows["linky"].detail and "linky/embed.py" in rows["linky"].detail
    feedback = tmp_path / "out" / "feedback"
    everything = "".join(p.read_text("utf-8") for p in feedback.iterdir())
    assert "SECRET" not in everything and "root:" not in everything
    copycat_json = json.loads((feedback / "copycat.json").read_text("utf-8"))
    codes = {c["id"]: c.get("code") for c in copycat_json["checks"]}
    assert codes["report.same"] == "report.same.differs"
    same = next(c for c in copycat_json["checks"] if c["id"] == "report.same")
    assert same["message"].count("a symbolic link") == 2


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
def test_a_refused_link_is_explained_in_every_language(tmp_path: Path, lang: str) -> None:
    from grader.engine.messages import text

    root = tmp_path / "class"
    (root / "linky").mkdir(parents=True)
    os.symlink(ROOT / "embed.py", root / "linky" / "embed.py")
    result = run_batch(root, tmp_path / "out", BatchOptions(seed=3, pool="thread", lang=lang))
    [row] = result.rows
    assert row.status == "refused"
    assert row.detail == text("submission.link", lang, path=Path("linky") / "embed.py")
    assert "linky/embed.py" in (tmp_path / "out" / "feedback" / "linky.txt").read_text("utf-8")


TAMPER = """

import os as _os
for _path in {targets!r}:
    try:
        with open(_path, "a") as _f:
            _f.write("\\n# changed by mallory\\n")
    except OSError:
        pass
"""


def tampering_class(root: Path, targets: list[Path]) -> None:
    """alice and bob hand in right work; mallory's module appends to ``targets``."""
    for name in ("alice", "bob", "mallory"):
        (root / name).mkdir(parents=True)
        for n in ("embed_report.json", "embed_report.md"):
            shutil.copyfile(REFERENCE / n, root / name / n)
        shutil.copyfile(ROOT / "embed.py", root / name / "embed.py")
    source = (ROOT / "embed.py").read_text() + TAMPER.format(targets=[str(t) for t in targets])
    (root / "mallory" / "embed.py").write_text(source)
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def test_a_submission_that_changes_a_classmate_stops_the_batch(tmp_path: Path) -> None:
    """In process mode the change cannot be prevented: it is found, named, and
    nothing graded after it is kept."""
    root = tmp_path / "class"
    tampering_class(root, [root / "alice" / "embed_report.json"])
    notes: list[str] = []
    opts = BatchOptions(seed=3, jobs=1, pool="thread", isolation="process")
    with pytest.raises(batch.Tampered) as caught:
        run_batch(root, tmp_path / "out", opts, on_note=notes.append)
    message = str(caught.value)
    assert "alice: embed_report.json" in message and "mallory" in message
    assert len(notes) == 1 and "--sandbox process" in notes[0]
    cache = json.loads((tmp_path / "out" / ".cache.json").read_text("utf-8"))
    assert "mallory" not in cache["entries"]
    assert not (tmp_path / "out" / "feedback" / "mallory.txt").exists()
    assert not (tmp_path / "out" / "gradebook.csv").exists()


def test_a_submission_that_changes_the_grader_stops_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in for the installed grader: a change to any of its files (or a new
    file among them) is found after the submission that made it."""
    from grader.engine.batch import integrity

    fake = tmp_path / "installed" / "grader"
    fake.mkdir(parents=True)
    (fake / "oracle.py").write_text("# the oracle\n")
    real = integrity.grader_files
    monkeypatch.setattr(integrity, "grader_files", lambda: real() + real(fake))
    root = tmp_path / "class"
    tampering_class(root, [fake / "oracle.py"])
    opts = BatchOptions(seed=3, jobs=1, pool="thread", isolation="process")
    with pytest.raises(batch.Tampered) as caught:
        run_batch(root, tmp_path / "out", opts)
    assert "oracle.py" in str(caught.value) and "mallory" in str(caught.value)
    cache = json.loads((tmp_path / "out" / ".cache.json").read_text("utf-8"))
    assert set(cache["entries"]) == {"alice", "bob"}


def test_the_command_names_the_offender(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "class"
    tampering_class(root, [root / "bob" / "embed.py"])
    argv = ["batch", str(root), "--out", str(tmp_path / "out"), "--sandbox", "process"]
    assert main(argv + ["--jobs", "1", "--pool", "thread", "--lang", "ko"]) == 2
    err = capsys.readouterr().err
    assert "중단" in err and "bob: embed.py" in err and "mallory" in err


STRONGEST = strongest()


@pytest.mark.skipif(STRONGEST == "process", reason="nothing stronger than process mode here")
def test_by_default_a_submission_cannot_change_a_classmate(tmp_path: Path) -> None:
    root = tmp_path / "class"
    targets = [root / "alice" / "embed_report.json", root / "bob" / "embed.py"]
    tampering_class(root, targets)
    before = [t.read_bytes() for t in targets]
    notes: list[str] = []
    result = run_batch(root, tmp_path / "out", BatchOptions(seed=3, jobs=2), on_note=notes.append)
    assert [t.read_bytes() for t in targets] == before
    assert result.isolation == STRONGEST and notes == []
    assert [r.total for r in result.rows] == [MAX_SCORE] * 3


def test_the_fingerprint_covers_every_file_of_the_grader_the_labs_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import grader

    package = tmp_path / "grader"
    (package / "labs" / "one").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    lab_file = package / "labs" / "one" / "checks.py"
    lab_file.write_text("POINTS = 1\n")
    monkeypatch.setattr(grader, "__file__", str(package / "__init__.py"))
    before = batch.grader_fingerprint()
    assert batch.grader_fingerprint() == before
    lab_file.write_text("POINTS = 2\n")
    assert batch.grader_fingerprint() != before


def test_a_batch_stopped_by_sigterm_leaves_no_folder_behind(tmp_path: Path) -> None:
    """SIGTERM to the batch stops its workers' gradings; each sandbox kills its child
    and removes its folder, and the batch removes its own scratch folder."""
    import signal
    import subprocess
    import tempfile
    import time

    # Short: the process pool's socket lives there, and a Unix socket's path is short.
    scratch = Path(tempfile.mkdtemp(prefix="eg-term-", dir="/tmp"))
    root = tmp_path / "class"
    for i in range(4):
        (root / ("s%d" % i)).mkdir(parents=True)
        (root / ("s%d" % i) / "embed.py").write_text(hanging_module(), encoding="utf-8")
    # A copy of the grader of its own: other tests may compile or change files of the
    # shared one while this batch watches it for changes.
    source = tmp_path / "src"
    shutil.copytree(
        ROOT / "grader", source / "grader", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = dict(os.environ, TMPDIR=str(scratch), PYTHONPATH=str(source))
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", "batch", str(root), "--out", str(tmp_path / "out")]
        + ["--timeout", str(scaled(5)), "--sandbox", "process", "--jobs", "2"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    children = []
    while time.monotonic() < deadline and not children and proc.poll() is None:
        children = [p for p in scratch.iterdir() if (p / "embed.py").exists()]
        time.sleep(0.05)
    assert children, "no child started: %s" % (
        proc.communicate(timeout=60)[1] if proc.poll() is not None else ""
    )
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "SIGTERM" in err
    left = sorted(p.name for p in scratch.iterdir() if p.name.startswith("embed-grader-"))
    shutil.rmtree(scratch, ignore_errors=True)
    assert left == []
