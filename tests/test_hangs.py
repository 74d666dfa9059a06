"""A call that hangs is called a hang, wherever a student or a course reads about it."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from timelimits import scaled

from grader import grade
from grader.engine.batch.rows import status_of
from grader.engine.output.byformat import render
from grader.engine.output.systems import gradescope_results
from grader.engine.vocabulary import show
from grader.engine.vocabulary.results import Report, Status

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "embed.py"

# norm loops forever on any vector but the empty one: the smallest call (norm([]))
# answers, the first non-empty one hangs, and the later ones are not run.
LOOPING_NORM = """

def norm(vec):
    total = 0.0
    i = 0
    while i < len(vec):
        total += vec[i] * vec[i]
    return math.sqrt(total)
"""


# The time limit each grading had: one second on an idle machine, more on a busy one.
LIMIT: dict[str, float] = {}


def within(limit: float) -> str:
    return "within %g s" % limit


@pytest.fixture(scope="module")
def looping(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Report]:
    folder = tmp_path_factory.mktemp("looping")
    path = folder / "embed.py"
    path.write_text(REFERENCE.read_text("utf-8") + LOOPING_NORM, "utf-8")
    LIMIT["looping"] = scaled(1)
    return path, grade(path, seed=2026, timeout=LIMIT["looping"], only=["norm", "cosine"])


def _check(report: Report, cid: str):
    return next(c for c in report.checks if c.id == cid)


def _hung(report: Report):
    """The one check of norm that holds the call that hung."""
    hung = [c for c in report.checks if c.function == "norm" and c.code == "timeout"]
    assert len(hung) == 1, [(c.id, c.code) for c in report.checks]
    return hung[0]


def test_the_call_that_hung_is_named_with_its_limit(looping: tuple[Path, Report]) -> None:
    _, report = looping
    values = _hung(report)
    assert values.status is Status.TIMEOUT  # its code is "timeout", not "skipped"
    assert within(LIMIT["looping"]) in values.message and "endless loop" in values.message
    assert "not run" not in values.message
    data = json.loads(render(report, "json", "en"))
    shown = next(c for c in data["checks"] if c["id"] == values.id)
    assert shown["code"] == "timeout" and "endless loop" in shown["message"]
    # The other checks of norm name that call.
    for c in report.checks:
        if c.function == "norm" and c.status is Status.TIMEOUT and c is not values:
            assert c.code == "skipped_hung" and values.details["case"] in c.message


def test_the_try_it_line_of_a_hang_stops_by_itself(looping: tuple[Path, Report]) -> None:
    path, report = looping
    snippet = _hung(report).details["snippet"]
    assert "dump_traceback_later(%g, exit=True)" % LIMIT["looping"] in snippet
    # It really stops, far sooner than anyone would wait, and says where it was.
    start = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", snippet.replace("python3 ", "exec python3 ", 1)],
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.monotonic() - start < scaled(100)
    assert done.returncode != 0
    assert "Timeout" in done.stderr and "in norm" in done.stderr
    # A call that answers keeps its plain line.
    plain = show.snippet("norm", ([1.0],), path)
    assert plain is not None and "faulthandler" not in plain


def test_a_call_not_run_after_a_hang_names_the_hung_call(tmp_path: Path) -> None:
    """lookup hangs on tables of more than three rows: its other check, whose calls
    were not run, names the call that hung, with the limit."""
    path = tmp_path / "embed.py"
    path.write_text(
        REFERENCE.read_text("utf-8")
        + "\n\n_lookup = lookup\n\n\ndef lookup(table, ids):\n"
        + "    while len(table) > 3:\n        pass\n    return _lookup(table, ids)\n",
        "utf-8",
    )
    limit = scaled(1)
    report = grade(path, seed=2026, timeout=limit, only=["lookup"], check_reports=False)
    hung = [c for c in report.checks if c.code == "timeout"]
    after = [c for c in report.checks if c.code == "skipped_hung"]
    assert len(hung) == 1 and after, [(c.id, c.code) for c in report.checks]
    call = hung[0].details["case"]
    for c in after:
        assert call in c.message and within(limit) in c.message and "endless loop" in c.message
        assert "dump_traceback_later(%g, exit=True)" % limit in c.details["snippet"]


def test_the_batch_and_gradescope_say_time_out(looping: tuple[Path, Report]) -> None:
    _, report = looping
    status, detail = status_of(report)
    assert status == "timeout"
    hung = _hung(report)
    assert detail.startswith(hung.id + ":") and "endless loop" in detail
    tests = gradescope_results(report, "en")["tests"]
    norm = next(t for t in tests if t["name"].endswith(hung.id))
    assert norm["status"] == "failed" and "no answer " + within(LIMIT["looping"]) in norm["output"]
    assert "endless loop" in norm["output"] and "faulthandler" in norm["output"]


def test_an_import_that_does_not_finish_is_a_time_out(tmp_path: Path) -> None:
    path = tmp_path / "embed.py"
    path.write_text("import time\nwhile True:\n    pass\n", "utf-8")
    limit = scaled(1)
    report = grade(path, seed=1, timeout=limit)
    load = _check(report, "imports.load")
    assert load.status is Status.TIMEOUT and load.code == "import_timeout"
    assert within(limit) in load.message and "stopped the process" not in load.message
    assert status_of(report)[0] == "timeout"


def test_a_traceback_shows_whole_frames_of_the_student_only(
    looping: tuple[Path, Report], tmp_path: Path
) -> None:
    """write_report meets the hung norm: its traceback holds no cut frame and nothing
    of the grader."""
    path = tmp_path / "embed.py"
    path.write_text(REFERENCE.read_text("utf-8") + LOOPING_NORM, "utf-8")
    report = grade(path, seed=2026, timeout=scaled(1), only=["norm", "report.write"])
    write = _check(report, "report.write")
    assert write.details.get("traceback")
    for text in (render(report, "text", "en"), gradescope_results(report, "en")["output"]):
        block = text[text.index("✗ report.write ") :]
        lines = block.splitlines()
        start = next(i for i, line in enumerate(lines) if "Traceback" in line)
        body = [line.strip() for line in lines[start + 1 :] if line.strip()]
        # The first line after the heading opens a frame (or says frames were left out).
        assert body[0].startswith('File "') or body[0] == "...", body[:3]
        assert "_Stopped" not in text and "_child" not in text
    assert "_Stopped" not in json.dumps(report.to_dict())


def test_a_long_traceback_is_cut_between_frames() -> None:
    frames = "".join(
        '  File "embed.py", line %d, in f\n    return f(n - 1)\n           ^^^^^^^^\n' % i
        for i in range(30)
    )
    text = "Traceback (most recent call last):\n" + frames + "RecursionError: too deep\n"
    tail = show.traceback_tail(text, most=10)
    assert tail[0].startswith("Traceback") and tail[1] == "  ..."
    assert tail[2].startswith('  File "') and tail[-1] == "RecursionError: too deep"
    assert len(tail) <= 12
