"""Gradescope's runner: the module found under the name a browser gave it, what came when
there is none, one test for a module that does not import, and the course's choices
(options, visibility per step) read from the bundle's gradescope.json."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from grader.engine.commands import gradescope
from grader.engine.commands.cli import main
from grader.engine.lab import find
from grader.engine.messages import text

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
WRONG = ROOT / "tests" / "corpus" / "wrong" / "cosine_not_divided.py"
SCHEMA = json.loads(
    (ROOT / "grader/engine/schemas/gradescope-results.schema.json").read_text("utf-8")
)
REPORTS = ("embed_report.json", "embed_report.md")


def autograder(tmp_path: Path, files: dict[str, Path | str], config: Any = None) -> Path:
    """An autograder folder: the submission's files, and the bundle's configuration."""
    root = tmp_path / "autograder"
    submission = root / "submission"
    submission.mkdir(parents=True)
    for name, content in files.items():
        (submission / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, Path):
            shutil.copyfile(content, submission / name)
        else:
            (submission / name).write_text(content, encoding="utf-8")
    (root / "source").mkdir()
    settings = {"seed": 11, "sandbox": "process", "timeout": 3.0}
    settings.update(config or {})
    (root / "source" / "gradescope.json").write_text(json.dumps(settings), encoding="utf-8")
    return root


def run(root: Path) -> dict[str, Any]:
    assert main(["gradescope", "--root", str(root)]) == 0
    data: dict[str, Any] = json.loads((root / "results" / "results.json").read_text("utf-8"))
    jsonschema.Draft202012Validator(SCHEMA).validate(data)
    return data


def with_reports(module: Path | str, name: str = "embed.py") -> dict[str, Path | str]:
    files: dict[str, Path | str] = {name: module}
    files.update({n: REFERENCE / n for n in REPORTS})
    return files


@pytest.mark.parametrize(
    "name",
    [
        "embed (1).py",
        "embed(2).py",
        "embed-1.py",
        "embed_copy.py",
        "Embed.py",
        "EMBED (12).py",
        "embed.py.txt",
    ],
)
def test_the_names_a_copy_gets(name: str) -> None:
    assert gradescope.copy_name(name, "embed.py")


@pytest.mark.parametrize("name", ["embedding.py", "my embed.py", "embed.txt", "embed (1).txt"])
def test_other_names_are_no_copy(name: str) -> None:
    assert not gradescope.copy_name(name, "embed.py")


def test_a_module_uploaded_as_a_copy_is_graded_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = autograder(tmp_path, with_reports(WRONG, "embed (1).py"))
    data = run(root)
    note = text("gradescope.renamed", "en", found="embed (1).py", module="embed.py")
    assert data["output"].startswith(note)
    assert 0 < data["score"] < 100 and "no such file" not in data["output"]
    outputs = "\n".join(t["output"] for t in data["tests"])
    assert "embed-grader embed.py --seed 11 --check cosine." in outputs
    assert "cosine" in capsys.readouterr().out  # the text report goes to the log


def test_without_the_module_the_results_list_what_came(tmp_path: Path) -> None:
    root = autograder(tmp_path, {"solution.py": WRONG, "notes/readme.txt": "hi\x1b[2J"})
    data = run(root)
    assert data["score"] == 0 and data["tests"] == []
    assert "solution.py" in data["output"] and "notes/readme.txt" in data["output"]
    assert "\x1b" not in data["output"]  # a file name cannot move the cursor
    # Two files by the module's name at one depth: which one is meant is not for the
    # grader to guess.
    root = autograder(tmp_path / "two", {"a/embed.py": WRONG, "b/embed.py": WRONG})
    data = run(root)
    assert data["score"] == 0 and "a/embed.py, b/embed.py" in data["output"]
    empty = autograder(tmp_path / "empty", {})
    assert run(empty)["output"] == text(
        "gradescope.empty", "en", module="embed.py", reports=", ".join(REPORTS)
    )


def test_a_syntax_error_is_one_test_with_the_error(tmp_path: Path) -> None:
    source = "VOCAB = 512\ndef lookup(table, ids)\n    return []\n"
    data = run(autograder(tmp_path, with_reports(source)))
    assert len(data["tests"]) == 1
    [test] = data["tests"]
    assert test["status"] == "failed" and "SyntaxError" in test["output"]
    assert "line 2" in test["output"] and data["score"] == 0 and "max_score" not in data


def test_visibility_and_options_come_from_the_configuration(tmp_path: Path) -> None:
    config = {"seed": 5, "lang": "ko", "upto": 7}
    config["visibility"] = {"default": "after_due_date", "0": "visible", "6": "hidden"}
    data = run(autograder(tmp_path, with_reports(WRONG), config))
    seen = {t["number"].split(".")[0]: t["visibility"] for t in data["tests"]}
    assert seen["0"] == "visible" and seen["6"] == "hidden" and seen["2"] == "after_due_date"
    assert "8" not in seen  # upto 7: the report files are not graded
    # The report on top would tell what the hidden tests hold: it is left out.
    assert data["output"] == text("gradescope.later", "ko", seed=5)
    assert "cosine" not in data["output"]
    failing = [t for t in data["tests"] if t["status"] == "failed"]
    assert failing and all("--seed 5" in t["output"] for t in failing)


@pytest.mark.parametrize(
    "config",
    [
        {"visibility": {"default": "later"}},
        {"visibility": {"9": "hidden"}},
        {"timeout": 0},
        {"seed": "abc"},
        {"upto": 12},
        {"lang": "fr"},
        {"sandbox": "docker"},
        {"timeuot": 3},
        [],
    ],
)
def test_a_wrong_configuration_grades_nobody(tmp_path: Path, config: Any) -> None:
    with pytest.raises(ValueError):
        gradescope.parse_config(config, find())
    root = autograder(tmp_path, with_reports(WRONG))
    (root / "source" / "gradescope.json").write_text(json.dumps(config), encoding="utf-8")
    # No results: Gradescope says the autograder failed; no grade of 0 is recorded.
    assert main(["gradescope", "--root", str(root)]) == 2
    assert not (root / "results" / "results.json").exists()


def test_the_bundles_configuration_is_the_default_and_is_checked(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location(
        "build_bundle", ROOT / "ci-templates" / "gradescope" / "build_bundle.py"
    )
    assert spec is not None and spec.loader is not None
    bundler = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bundler)
    shipped = bundler.HERE / bundler.CONFIG
    assert gradescope.load_config(shipped, find()) == gradescope.parse_config({}, find())
    bad = tmp_path / "gradescope.json"
    bad.write_text('{"visibility": {"8": "secret"}}', encoding="utf-8")
    with pytest.raises(ValueError, match="visibility"):
        bundler.build(ROOT, tmp_path / "dist", config=bad)
    assert not (tmp_path / "dist").exists()


def test_a_notebook_uploaded_as_a_copy_is_graded_too(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": []}
    notebook = {
        "cells": [dict(cell, source=WRONG.read_text("utf-8"))],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    files: dict[str, Path | str] = {"embed (1).ipynb": json.dumps(notebook)}
    files.update({n: REFERENCE / n for n in REPORTS})
    data = run(autograder(tmp_path, files))
    assert data["output"].startswith(
        text("gradescope.renamed", "en", found="embed (1).ipynb", module="embed.ipynb")
    )
    assert 0 < data["score"] < 100


def test_the_newest_copy_is_graded_and_the_rest_are_listed(tmp_path: Path) -> None:
    """A browser numbers each new download higher: embed (2).py is the newest."""
    files = with_reports(ROOT / "embed.py", "embed (2).py")
    files.update({"embed (1).py": WRONG, "test_embed.py": "def test(): pass\n"})
    data = run(autograder(tmp_path, files))
    assert data["score"] == 100
    assert (
        text("gradescope.renamed", "en", found="embed (2).py", module="embed.py")
        in (data["output"])
    )
    assert "not graded: embed (1).py, test_embed.py" in data["output"]


def test_a_module_in_src_beside_tests_is_the_one_graded(tmp_path: Path) -> None:
    files: dict[str, Path | str] = {
        "src/embed.py": ROOT / "embed.py",
        "tests/embed.py": WRONG,
        "embed (1).py": WRONG,
    }
    files.update({"src/" + n: REFERENCE / n for n in REPORTS})
    data = run(autograder(tmp_path, files))
    assert data["score"] == 100 and "tests/embed.py" in data["output"]


def test_a_zip_is_unpacked_within_limits(tmp_path: Path) -> None:
    import zipfile

    root = autograder(tmp_path, {})
    with zipfile.ZipFile(root / "submission" / "lab.zip", "w") as zf:
        zf.write(ROOT / "embed.py", "lab/embed.py")
        for n in REPORTS:
            zf.write(REFERENCE / n, "lab/" + n)
    assert run(root)["score"] == 100
    evil = autograder(tmp_path / "evil", {})
    with zipfile.ZipFile(evil / "submission" / "lab.zip", "w") as zf:
        zf.writestr("../../source/gradescope.json", "{}")
    data = run(evil)
    assert data["score"] == 0 and "would land outside" in data["output"]
