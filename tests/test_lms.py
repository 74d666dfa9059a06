"""The gradebook for learning platforms: Canvas's and Moodle's CSV imports, and cells that
no spreadsheet runs as formulas."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from grader.engine.batch import BatchOptions, Row, lms, run_batch
from grader.engine.batch.rows import cell

ROOT = Path(__file__).resolve().parent.parent
RIGHT = ROOT / "tests" / "corpus" / "right" / "plain_loops.py"


def row(ident: str, total: float = 42.5, status: str = "graded") -> Row:
    return Row(ident, status, total, 100.0, {}, 1, 0.1)


def table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("raw", ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_a_cell_that_starts_like_a_formula_is_text(raw: str) -> None:
    assert cell(raw) == "'" + raw
    assert cell("alice") == "alice" and cell("42.5") == "42.5"


def test_canvas_finds_students_by_their_canvas_id_or_login() -> None:
    rows = [
        row("smithjohn_12345_67890_embed"),  # as Canvas names a downloaded submission
        row("leeann_late_222_333_embed", total=100),
        row("kim.minjun"),  # a folder named by the student's login
        row("broken", status="grader error"),
    ]
    lines = table(lms.canvas_csv(rows, "embed.py", 100))
    assert lines[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "embed.py"]
    assert lines[1] == ["Points Possible", "", "", "", "", "100"]
    by_student = {line[0]: line for line in lines[2:]}
    assert by_student["smithjohn_12345_67890_embed"][1:] == ["12345", "", "", "", "42.5"]
    assert by_student["leeann_late_222_333_embed"][1:] == ["222", "", "", "", "100"]
    assert by_student["kim.minjun"][1:] == ["", "", "kim.minjun", "", "42.5"]
    # The grader's own fault: an empty cell leaves the grade in Canvas as it was.
    assert by_student["broken"][5] == ""


def test_moodle_finds_students_by_their_moodle_id_or_username() -> None:
    rows = [
        row("Kim_Min-jun_4321_assignsubmission_file"),
        row("jdoe", total=0),
        row("x", 7, "grader error"),
    ]
    lines = table(lms.moodle_csv(rows, "embed.py"))
    assert lines == [
        ["User ID", "Username", "embed.py"],
        ["4321", "Kim_Min-jun_4321_assignsubmission_file", "42.5"],
        ["", "jdoe", "0"],
        ["", "x", ""],
    ]


def test_every_gradebook_of_a_batch_is_safe_in_a_spreadsheet(tmp_path: Path) -> None:
    """Submission names come from students: none may reach a spreadsheet as a formula."""
    root = tmp_path / "class"
    root.mkdir()
    shutil.copyfile(RIGHT, root / "-2+3.py")
    (root / "@SUM(A1)").mkdir()
    (root / "+cmd").mkdir()
    (root / "+cmd" / "=HYPERLINK(1).txt").write_text("x", encoding="utf-8")
    out = tmp_path / "out"
    result = run_batch(root, out, BatchOptions(seed=1, jobs=1, pool="thread"))
    assert len(result.rows) == 3
    for name in ("gradebook.csv", lms.CANVAS_FILE, lms.MOODLE_FILE):
        lines = table((out / name).read_text("utf-8"))
        cells = [c for line in lines[1:] for c in line]
        assert not [c for c in cells if c.startswith(("=", "+", "-", "@"))], (name, cells)
        assert "'-2+3" in cells and "'+cmd" in cells, name
    canvas = table((out / lms.CANVAS_FILE).read_text("utf-8"))
    assert canvas[0][-1] == "embed.py" and len(canvas) == 2 + 3
