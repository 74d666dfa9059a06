"""What the student's code prints is never graded, and never lost: a short note says
during which calls it was printed, how many lines, and the first ones, escaped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grader import grade
from grader.engine.messages import text
from grader.engine.output.byformat import render
from grader.engine.output.systems import gradescope_results
from grader.engine.vocabulary.results import Report

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "embed.py"

PRINTING = """

_lookup = lookup


def lookup(table, ids):
    print("looking up", ids, "\\x1b[2J")
    print("rows:", len(table))
    return _lookup(table, ids)


print("imported")
"""


@pytest.fixture(scope="module")
def printing(tmp_path_factory: pytest.TempPathFactory) -> Report:
    path = tmp_path_factory.mktemp("printing") / "embed.py"
    path.write_text(REFERENCE.read_text("utf-8") + PRINTING, "utf-8")
    return grade(path, seed=3, only=["lookup"], check_reports=False)


def _notes(out: str, lang: str = "en") -> str:
    return " ".join(out[out.index(text("render.notes", lang)) :].split())


def test_printing_costs_nothing(printing: Report) -> None:
    assert printing.passed and printing.score == printing.max_score


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
@pytest.mark.parametrize("verbose", [False, True])
def test_a_note_says_where_the_module_printed(printing: Report, lang: str, verbose: bool) -> None:
    out = render(printing, "text", lang, verbose=verbose)
    notes = _notes(out, lang)
    lines = printing.meta["printed"]["lookup"]["lines"]
    assert lines >= 2
    assert text("printed.calls", lang, fn="lookup", n=lines, first="")[:-1] in notes
    assert "'looking up [" in notes and "'rows: " in notes
    assert "\\x1b[2J" in notes and "\x1b" not in out  # escaped
    assert text("printed.import", lang, n=1, first="'imported'") in notes


def test_every_format_carries_the_note(printing: Report) -> None:
    data = json.loads(render(printing, "json", "en"))
    assert data["meta"]["printed"]["lookup"]["first"][0].startswith("looking up")
    output = gradescope_results(printing, "en")["output"]
    assert "printed during the calls of lookup" in " ".join(output.split())


def test_a_module_that_prints_nothing_gets_no_note() -> None:
    report = grade(REFERENCE, seed=3, only=["lookup"], check_reports=False)
    assert report.meta["printed"] == {}
    assert "printed" not in render(report, "text", "en")


def test_a_flood_is_counted_without_being_kept(tmp_path: Path) -> None:
    path = tmp_path / "embed.py"
    path.write_text(
        REFERENCE.read_text("utf-8")
        + "\n\n_dot = dot\n\n\ndef dot(a, b):\n    print('x' * 100000)\n    return _dot(a, b)\n",
        "utf-8",
    )
    report = grade(path, seed=3, only=["dot.values"], check_reports=False)
    entry = report.meta["printed"]["dot"]
    assert entry["cut"] and all(len(line) <= 60 for line in entry["first"])
    assert "%d+ lines were printed" % entry["lines"] in " ".join(
        render(report, "text", "en").split()
    )
