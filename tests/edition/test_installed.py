"""The installed student edition, on the systems students use.

``.github/workflows/student-edition.yml`` installs the student wheel on Windows,
macOS and Linux and runs these from this folder (``python -m pytest -c pytest.ini``
with ``EMBED_GRADER_STUDENT_TESTS=1``).  In the full grader's tree they are skipped:
``tests/test_student_wheel.py`` checks the wheel there.  Only the standard library,
pytest and the installed grader are used.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import grader
from grader import grade
from grader.engine.sandbox.processes import plain
from grader.labs.embed import fixed

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus"
WRONG = sorted((CORPUS / "wrong").glob("*.py"))
RIGHT = sorted((CORPUS / "right").glob("*.py"))
ASKED = os.environ.get("EMBED_GRADER_STUDENT_TESTS") == "1"

if ASKED:
    assert fixed.student_edition(), "the grader at %s holds its oracle" % grader.__file__
pytestmark = pytest.mark.skipif(
    not fixed.student_edition(), reason="the full grader: tests/test_student_wheel.py checks"
)


def _blamed(path: Path) -> set[str]:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    return {n.strip() for n in first[len("# blame: ") :].split(",") if n.strip()}


def test_this_is_the_installed_wheel() -> None:
    assert ROOT not in Path(grader.__file__).resolve().parents
    assert plain() or sys.platform.startswith("linux")


@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_the_reference_gets_full_marks(seed: int) -> None:
    report = grade(ROOT / "embed.py", seed=seed, report_dir=ROOT / "reference")
    assert report.grader_error == ""
    assert report.score == report.max_score == 100, [c.id for c in report.checks if not c.ok]


@pytest.mark.parametrize("path", RIGHT, ids=lambda p: p.stem)
def test_right_modules_get_full_marks(path: Path) -> None:
    report = grade(path, seed=3, check_reports=False)
    assert report.passed and report.score == report.max_score, report.grader_error


@pytest.mark.parametrize("path", WRONG, ids=lambda p: p.stem)
def test_wrong_modules_are_blamed_as_their_header_says(path: Path) -> None:
    report = grade(path, seed=3, check_reports=False)
    assert report.grader_error == ""
    assert not report.passed
    assert report.blamed() == _blamed(path)


def test_a_hanging_function_costs_its_time_limit(tmp_path: Path) -> None:
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    hang = tmp_path / "embed.py"
    hang.write_text(
        source.replace("def dot(a, b):", "def dot(a, b):\n    while True:\n        pass\n", 1),
        encoding="utf-8",
    )
    start = time.monotonic()
    report = grade(hang, seed=3, check_reports=False, timeout=2)
    assert time.monotonic() - start < 120
    dot = {c.id: c for c in report.checks}["dot.values"]
    assert dot.status.value == "timeout"
    assert report.blamed() == {"dot"}


def test_the_command_grades_and_says_once_where_it_runs_plainly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "grader", str(ROOT / "embed.py"), "--report-dir", "reference"],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "score 100 / 100" in done.stdout
    assert done.stderr.count("plain child process") == (1 if plain() else 0)
