"""The gradebook for learning platforms: Canvas's and Moodle's CSV imports, and cells that
no spreadsheet runs as formulas."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from lms_layouts import WRONG, canvas_class, put, with_reports

from grader.engine.batch import BatchOptions, Row, lms, run_batch
from grader.engine.batch.rows import cell

ROOT = Path(__file__).resolve().parent.parent
RIGHT = ROOT / "tests" / "corpus" / "right" / "plain_loops.py"


def row(
    ident: str, total: float = 42.5, status: str = "graded", who: dict[str, str] | None = None
) -> Row:
    return Row(ident, status, total, 100.0, {}, 1, 0.1, who=who or {})


def table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


@pytest.mark.parametrize("raw", ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx"])
def test_a_cell_that_starts_like_a_formula_is_text(raw: str) -> None:
    assert cell(raw) == "'" + raw
    assert cell("alice") == "alice" and cell("42.5") == "42.5"


def test_canvas_finds_students_by_their_canvas_id_or_login() -> None:
    rows = [
        row("smithjohn_12345", who={"platform": "canvas", "key": "12345", "name": "smithjohn"}),
        row("leeann_222", total=100, who={"platform": "canvas", "key": "222", "name": "leeann"}),
        row("kim.minjun"),  # a folder named by the student's login
        row("broken", status="grader error"),
        # Claimed by two hand-ins: neither gets the identity.
        row("mallory_7", who={"problem": "claimed", "claimed": "7", "claimed_platform": "canvas"}),
    ]
    lines = table(lms.canvas_csv(rows, "embed.py", 100))
    assert lines[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "embed.py"]
    assert lines[1] == ["Points Possible", "", "", "", "", "100"]
    by_student = {line[0]: line for line in lines[2:]}
    assert by_student["smithjohn"][1:] == ["12345", "", "", "", "42.5"]
    assert by_student["leeann"][1:] == ["222", "", "", "", "100"]
    assert by_student["kim.minjun"][1:] == ["", "", "kim.minjun", "", "42.5"]
    assert by_student["mallory_7"][1] == ""
    # The grader's own fault: an empty cell leaves the grade in Canvas as it was.
    assert by_student["broken"][5] == ""


def test_moodle_names_the_participant_as_the_grading_worksheet_does() -> None:
    rows = [
        row("Kim_Min-jun_4321", who={"platform": "moodle", "key": "4321", "name": "Kim Min-jun"}),
        row("jdoe", total=0),
        row("x", 7, "grader error"),
    ]
    lines = table(lms.moodle_csv(rows, "embed.py", when=0))
    assert lines[0] == [
        "Identifier",
        "Full name",
        "Username",
        "Grade",
        "Maximum Grade",
        "Last modified (grade)",
    ]
    assert [line[:5] for line in lines[1:]] == [
        ["Participant 4321", "Kim Min-jun", "", "42.5", "100"],
        ["", "", "jdoe", "0", "100"],
        ["", "", "x", "", "100"],
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


# A class as the platforms download it -----------------------------------------------------------------


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    base = tmp_path_factory.mktemp("handins")
    root = base / "class"
    canvas_class(root)
    put(root / "Eve 42 assignsubmission x_777_assignsubmission_file_" / "embed.py", WRONG)
    put(root / "Kim Min-jun_4321_assignsubmission_file_" / "embed.py")
    with_reports(root / "Kim Min-jun_4321_assignsubmission_file_")
    put(root / "Kim Min-jun_4321_assignsubmission_onlinetext_" / "onlinetext.html", "<p>x</p>")
    put(root / "x 4242 1 eve" / "embed.py", WRONG)
    result = run_batch(root, base / "out", BatchOptions(seed=5, jobs=2, pool="thread"))
    return base / "out", result


def test_every_student_is_on_one_row_with_their_grade(graded_class: tuple[Path, object]) -> None:
    out, result = graded_class
    rows = {r.id: r for r in result.rows}  # type: ignore[attr-defined]
    assert len(rows) == 9
    # The report files of Canvas's flat download reach step 8: full marks.
    assert rows["smithjohn_101"].total == 100 and rows["parkjin_105"].total == 100
    canvas = table((out / lms.CANVAS_FILE).read_text("utf-8"))
    ids = [line[1] for line in canvas[2:] if line[1]]
    assert sorted(ids) == ["101", "102", "103", "104", "105", "106"]
    assert "4242" not in ids
    by_user = {line[1]: line for line in canvas[2:] if line[1]}
    assert by_user["101"][5] == "100" and by_user["102"][5] == "0"
    moodle = table((out / lms.MOODLE_FILE).read_text("utf-8"))
    assert moodle[0][:4] == ["Identifier", "Full name", "Username", "Grade"]
    participants = {line[0]: line for line in moodle[1:] if line[0]}
    assert sorted(participants) == ["Participant 4321", "Participant 777"]
    assert participants["Participant 4321"][3] == "100"
    assert float(participants["Participant 777"][3]) < 100
