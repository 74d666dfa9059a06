"""What a batch says about the class is true: the first run, folders without a module,
and the feedback files of submissions that could not be graded."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from grader.engine.batch import BatchOptions, run_batch
from grader.engine.commands.cli import main
from grader.engine.messages import LANGUAGES, text

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "grader/engine/schemas/result.schema.json").read_text("utf-8"))
RIGHT = ROOT / "tests" / "corpus" / "right" / "plain_loops.py"


def small_class(root: Path) -> None:
    """One module to grade and three folders that hold none."""
    root.mkdir()
    shutil.copyfile(RIGHT, root / "alice.py")
    (root / "bob").mkdir()
    (root / "bob" / "notes.txt").write_text("no module", encoding="utf-8")
    (root / "bob" / "embed.zip").write_bytes(b"PK")
    (root / "carol").mkdir()
    (root / "dave").mkdir()
    (root / "dave" / "helper.py").write_text("VOCAB = 512\n", encoding="utf-8")


def test_a_first_batch_does_not_speak_of_a_last_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small_class(tmp_path / "class")
    argv = ["batch", str(tmp_path / "class"), "--out", str(tmp_path / "out"), "--jobs", "1"]
    assert main(argv + ["--sandbox", "process", "--pool", "thread"]) == 0
    first = capsys.readouterr().err
    assert "4 submissions" in first and "last run" not in first
    assert main(argv + ["--sandbox", "process", "--pool", "thread"]) == 0
    again = capsys.readouterr().err
    # The module is cached; the folders without one are looked at again.
    assert "3 to grade" in again and "unchanged since the last run" in again


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_others_are_named_only_when_there_are_others(lang: str) -> None:
    from grader.engine.batch.command import found_line

    everything = found_line(7, 7, 3, lang)
    some = found_line(7, 2, 3, lang)
    assert everything == text("batch.found_all", lang, total=7, todo=7, jobs=3)
    assert some == text("batch.found", lang, total=7, todo=2, jobs=3)
    assert everything != some


def test_a_folder_without_the_module_says_what_it_holds(tmp_path: Path) -> None:
    small_class(tmp_path / "class")
    result = run_batch(tmp_path / "class", tmp_path / "out", BatchOptions(seed=1, jobs=1))
    details = {r.id: r.detail for r in result.rows if r.status == "missing"}
    # An archive that is none says so (a real one is unpacked and graded).
    broken = text("handin.zip_broken", "en", archive="embed.zip", error="File is not a zip file")
    assert details["bob"] == broken
    assert details["carol"] == text("batch.missing_empty", "en")
    assert details["dave"] == text("batch.missing", "en", found="helper.py")
    assert not any("-)" in d for d in details.values())
    # Every feedback file follows the schema of --format json, graded or not.
    for row in result.rows:
        data = json.loads((tmp_path / "out" / "feedback" / ("%s.json" % row.id)).read_text())
        jsonschema.Draft202012Validator(SCHEMA).validate(data)
        assert data["path"] == "embed.py"
