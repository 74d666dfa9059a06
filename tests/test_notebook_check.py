"""What a check cell says a notebook student can type: ``check`` has a docstring, and the
note on the behaviour left open names the check to run, which shows it."""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from grader import grade
from grader.engine.commands import checkcells
from grader.engine.messages import text
from grader.engine.output.render import render_text
from grader.labs.embed.stubgen import notebook as kit

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "embed.py").read_text(encoding="utf-8")


def test_check_says_how_it_is_called() -> None:
    check = checkcells.checker("embed.ipynb", "en")
    doc = check.__doc__ or ""
    assert 'check(3, "--verbose")' in doc and "check(3)" in doc


def _shown(folder: Path, *args: object) -> str:
    out = io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out):
            checkcells.checker("embed.ipynb", "en")(*args)
    finally:
        os.chdir(here)
    return " ".join(out.getvalue().split())


def test_the_note_in_a_notebook_names_the_check_that_shows_the_open_behaviour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    (tmp_path / "embed.ipynb").write_text(kit.notebooks(REFERENCE, filled=True)["embed.ipynb"])
    report = grade(tmp_path / "embed.ipynb", seed=3, upto=3, check_reports=False)
    plain = " ".join(render_text(report, "en").split())
    assert 'in a cell, check(3, "--verbose") shows it' in plain, plain
    verbose = _shown(tmp_path, 3, "--verbose")
    assert "the contract leaves this open: not graded" in verbose, verbose
    assert "check(3, " not in verbose


def test_a_module_s_note_names_the_option() -> None:
    assert "--verbose" in text("render.open_count", "en", n=2)
    assert "check(" not in text("render.open_count", "en", n=2)
