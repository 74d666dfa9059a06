"""The benchmark scripts still run: they wrap the grader's functions by name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_timeline_notes_every_moment_of_a_grading() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "bench_timeline.py"), "-n", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "did not finish" not in proc.stdout, proc.stdout
    for moment in (
        "grader imported",
        "child spawned",
        "module loaded in the child",
        "calls run",
        "report writer run",
        "process ends",
    ):
        row = [line for line in proc.stdout.splitlines() if line.strip().startswith(moment)]
        assert row and re.search(r"\d+\.\d-\d+\.\d", row[0]), (moment, proc.stdout)
