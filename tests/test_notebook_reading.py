"""Reading a notebook is bounded and linear, and whatever a notebook holds, it is graded
or refused as the submission's fault, in every stage that reads it.

The hostile shapes of ``bench_notebook`` (a line of blanks, many tags with one not a
string, many outputs with the last one invalid) read in a time within a generous ratio
of a plain notebook of the same size; random mutations of a valid notebook (values of
another type, deletions, insertions) give a module or a ``NotebookError``, nothing else;
and one malformed notebook in a class leaves every other student graded.
"""

from __future__ import annotations

import copy
import csv
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from bench_notebook import MB, SHAPES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from timelimits import scaled

from grader import grade
from grader.engine.commands.cli import main
from grader.engine.grading.runoptions import UsageError
from grader.engine.handin import notebook
from grader.engine.messages import text

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "embed.py").read_text(encoding="utf-8")
RATIO = 10  # a hostile shape may take this many times a plain notebook's reading
GUARD = 120  # seconds: a reading still going then is ended (and far over the ratio)


def v4(cells: list[Any]) -> dict[str, Any]:
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def code(source: Any, **more: Any) -> dict[str, Any]:
    cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": []}
    cell["execution_count"] = None
    cell.update(more)
    return cell


GOOD = v4(
    [
        {"cell_type": "markdown", "metadata": {}, "source": ["# My embeddings\n", "text"]},
        code(["import math\n", "%matplotlib inline\n", "VOCAB = 512\n"], id="a"),
        code("def f(x):\n    return math.sqrt(x)\n", outputs=[{"output_type": "stream"}]),
        {"cell_type": "raw", "metadata": {"tags": ["x"]}, "source": ""},
    ]
)


# Bounded and linear ---------------------------------------------------------------


def _reading_seconds(path: Path) -> float:
    """CPU seconds that reading ``path`` takes in a process of its own (inf: not done
    within ``GUARD`` seconds)."""
    script = (
        "import sys, time\n"
        "from grader.engine.handin import notebook\n"
        "start = time.process_time()\n"
        "try:\n"
        "    notebook.load(sys.argv[1])\n"
        "except Exception:\n"
        "    pass\n"
        "print(time.process_time() - start)\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script, str(path)],
            capture_output=True,
            text=True,
            timeout=GUARD,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return math.inf
    return float(done.stdout.split()[-1])


@pytest.mark.parametrize("shape", [s for s in SHAPES if s != "plain"])
def test_a_hostile_notebook_reads_about_as_fast_as_a_plain_one_of_its_size(
    tmp_path: Path, shape: str
) -> None:
    size = 2 * MB
    plain = tmp_path / "plain.ipynb"
    plain.write_bytes(SHAPES["plain"](size))
    hostile = tmp_path / "hostile.ipynb"
    hostile.write_bytes(SHAPES[shape](size))
    assert abs(len(hostile.read_bytes()) - size) < size // 10
    baseline = min(_reading_seconds(plain) for _ in range(3))
    bound = RATIO * max(baseline, 0.01)
    took = _reading_seconds(hostile)
    if bound < took < math.inf:  # once more, in case the machine was busy
        took = min(took, _reading_seconds(hostile))
    assert took <= bound, (shape, took, baseline)


def test_a_line_of_blanks_is_read_as_python_not_as_an_escape() -> None:
    line = " " * 2_000
    cells = notebook.module(v4([code([line + "\n", "x = 1  \t\n", "  files = !ls"])]))
    assert cells.source == line + "\nx = 1  \t\n  pass\n"


def test_a_number_too_long_to_read_in_linear_time_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "embed.ipynb"
    path.write_text(json.dumps(v4([code("x = 1")]))[:-1] + ', "n": 1%s}' % ("0" * 100_000))
    with pytest.raises(notebook.NotebookError) as caught:
        notebook.load(path)
    assert caught.value.code == "notebook.long_number"


# Every malformed notebook is the submission's fault --------------------------------


def _with(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    nb = copy.deepcopy(GOOD)
    node: Any = nb
    for key in path[:-1]:
        node = node[key]
    if isinstance(node, list) and path[-1] == len(node):
        node.append(value)
    else:
        node[path[-1]] = value
    return nb


@pytest.mark.parametrize(
    ("nb", "code", "params"),
    [
        (_with(("cells", 4), 1), "notebook.cell_not_object", {"cell": 5, "got": "1"}),
        (_with(("nbformat_minor",), "5"), "notebook.minor", {"got": '"5"'}),
        (_with(("nbformat",), 4.0), "notebook.version", {"version": "4.0"}),
        (_with(("cells", 1, "source"), None), "notebook.cell_source", {"cell": 2}),
        (
            _with(("cells", 1, "source", 2), ["x"]),
            "notebook.cell_source",
            {"cell": 2, "field": "source[2]", "got": "[…]"},
        ),
        (_with(("cells", 2, "cell_type"), "heading"), "notebook.cell_type", {"cell": 3}),
        (_with(("cells", 2, "metadata"), []), "notebook.cell_metadata", {"cell": 3}),
        ({k: v for k, v in GOOD.items() if k != "nbformat"}, "notebook.missing", {}),
        (_with(("cells",), {"0": {}}), "notebook.not_notebook", {}),
    ],
    ids=["cell", "minor", "major", "source", "line", "type", "metadata", "missing", "cells"],
)
def test_a_malformed_notebook_is_refused_naming_what_is_wrong(
    nb: dict[str, Any], code: str, params: dict[str, Any]
) -> None:
    with pytest.raises(notebook.NotebookError) as caught:
        notebook.module(nb)
    assert caught.value.code == code
    assert params.items() <= caught.value.params.items()
    for lang in ("en", "ko", "zh"):
        message = text(code, lang, **caught.value.params)
        assert str(params.get("cell", "")) in message


def test_every_message_quotes_what_it_found_without_control_characters() -> None:
    nb = _with(("cells", 1, "cell_type"), "\x1b[31m" + "x" * 1000)
    with pytest.raises(notebook.NotebookError) as caught:
        notebook.module(nb)
    got = caught.value.params["got"]
    assert got.isprintable() and "\x1b" not in got and len(got) <= 40


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _places(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found += _places(value, (*path, i))
    return found


def _mutate(nb: Any, draw: Any) -> Any:
    """``nb`` with a few places changed: a value swapped for one of another type, a key
    or item deleted, or a value inserted."""
    nb = copy.deepcopy(nb)
    for _ in range(draw(st.integers(1, 3))):
        places = _places(nb)
        path = draw(st.sampled_from(places))
        kind = draw(st.sampled_from(["swap", "delete", "insert"]))
        if not path:
            if kind == "swap":
                nb = draw(json_values)
            continue
        parent: Any = nb
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        if kind == "swap":
            parent[last] = draw(json_values)
        elif kind == "delete":
            del parent[last]
        elif isinstance(parent, list):
            parent.insert(last, draw(json_values))
        else:
            parent[draw(st.text(max_size=8))] = draw(json_values)
    return nb


SHIPPED = json.loads((ROOT / "exercises" / "embed.ipynb").read_text(encoding="utf-8"))


@st.composite
def mutated(draw: Any) -> Any:
    return _mutate(draw(st.sampled_from([GOOD, SHIPPED])), draw)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_a_mutated_notebook_gives_a_module_or_the_submissions_fault(nb: Any) -> None:
    for read in (
        notebook.module,
        lambda n: notebook.module(notebook.decode(json.dumps(n).encode())),
    ):
        try:
            cells = read(nb)
        except notebook.NotebookError as exc:
            assert text(exc.code, "en", **exc.params)
        else:
            assert isinstance(cells.source, str)


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_a_mutated_notebook_is_graded_or_refused_never_a_grader_error(
    tmp_path_factory: pytest.TempPathFactory, nb: Any
) -> None:
    path = tmp_path_factory.mktemp("nb") / "embed.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    try:
        report = grade(path, seed=1, check_reports=False, only=("shape.values",))
    except UsageError as exc:
        assert exc.code.startswith("notebook."), exc.code
    else:
        assert not report.grader_error, report.grader_error


def test_a_deeply_nested_notebook_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "embed.ipynb"
    deep = "[" * 50_000 + "]" * 50_000
    path.write_text(json.dumps(GOOD)[:-1] + ', "deep": %s}' % deep, encoding="utf-8")
    with pytest.raises(notebook.NotebookError) as caught:
        notebook.load(path)
    assert caught.value.code == "notebook.too_deep"


# In every stage ---------------------------------------------------------------------

MALFORMED = json.dumps(_with(("cells", 4), 1))


def test_a_single_grading_says_what_is_wrong_and_is_no_grader_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "embed.ipynb"
    path.write_text(MALFORMED, encoding="utf-8")
    status = main([str(path), "--sandbox", "process", "--no-report"])
    out = capsys.readouterr()
    assert status == 2, out
    assert "cell 5 of the notebook is 1, not an object" in out.out + out.err
    assert "grader error" not in (out.out + out.err).lower()


def _notebook_of(source: str) -> str:
    return json.dumps(v4([code(source)]))


def test_a_class_with_a_malformed_notebook_grades_everyone_else(tmp_path: Path) -> None:
    students = tmp_path / "class"
    for name, body in {
        "ana": _notebook_of(REFERENCE),
        "ben": MALFORMED,
        "cat": _notebook_of(REFERENCE.replace("return math.sqrt", "return 2 * math.sqrt")),
    }.items():
        (students / name).mkdir(parents=True)
        (students / name / "embed.ipynb").write_text(body, encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "batch",
            str(students),
            "--out",
            str(out),
            "--sandbox",
            "process",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    with open(out / "gradebook.csv", encoding="utf-8") as f:
        rows = {row["id"]: row for row in csv.DictReader(f)}
    assert set(rows) == {"ana", "ben", "cat"}, rows
    assert rows["ben"]["status"] == "unreadable", rows["ben"]
    assert "cell 5" in json.dumps(rows["ben"])
    assert float(rows["ana"]["total"]) > float(rows["cat"]["total"]) > 0
    assert (out / "summary.json").is_file()


def test_the_gradescope_runner_writes_the_message_to_results_json(tmp_path: Path) -> None:
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    (root / "submission" / "embed.ipynb").write_text(MALFORMED, encoding="utf-8")
    (root / "source").mkdir()
    settings = {"seed": 11, "sandbox": "process", "timeout": 3.0}
    (root / "source" / "gradescope.json").write_text(json.dumps(settings), encoding="utf-8")
    assert main(["gradescope", "--root", str(root)]) == 0
    data = json.loads((root / "results" / "results.json").read_text("utf-8"))
    assert data["score"] == 0
    assert "cell 5 of the notebook is 1, not an object" in data["output"]


def test_the_time_a_notebook_takes_to_read_counts_against_its_own_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from grader.engine.grading import grade as grading
    from grader.engine.grading import reading

    path = tmp_path / "embed.ipynb"
    path.write_text(_notebook_of("VOCAB = 512\n"), encoding="utf-8")
    real_read, real_box = reading.read, grading.Sandbox
    caps: list[float] = []

    def slow_read(*args: Any) -> Any:
        time.sleep(1.5)
        return real_read(*args)

    def box(*args: Any, **kwargs: Any) -> Any:
        caps.append(kwargs["max_seconds"])
        return real_box(*args, **kwargs)

    monkeypatch.setattr(reading, "read", slow_read)
    monkeypatch.setattr(grading, "Sandbox", box)
    cap = scaled(20.0)
    grade(path, seed=1, check_reports=False, only=("shape.values",), max_seconds=cap)
    assert caps and caps[0] <= cap - 1.5, caps


def test_the_similarity_pass_reads_a_malformed_notebook_as_unreadable(tmp_path: Path) -> None:
    from grader.engine.similarity import classpass

    path = tmp_path / "embed.ipynb"
    path.write_text(MALFORMED, encoding="utf-8")
    assert classpass._read_submission(path) is None
    path.write_text(_notebook_of("VOCAB = 512\n"), encoding="utf-8")
    assert classpass._read_submission(path) == "VOCAB = 512\n"
