"""Notebooks graded as the module: what counts, where lines come from, what is refused.

Every module of ``tests/corpus/`` turned into a notebook (its top-level statements
split into cells, with a markdown cell, a cell of IPython escapes and a plotting cell
marked ``# not graded`` around them) gets the same verdict as the module.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader import grade
from grader.engine.batch.handins import discover
from grader.engine.grading.runoptions import UsageError
from grader.engine.handin import ipynb, notebook

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted((ROOT / "tests" / "corpus").glob("*/*.py"))


def cells_of(source: str) -> list[str]:
    """The module's top-level statements as cells (comments go with the statement above)."""
    lines = source.splitlines()
    starts = sorted(
        {
            min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])])
            for n in ast.parse(source).body
        }
    )
    cuts = [1] + [s for s in starts if s > 1] + [len(lines) + 1]
    return ["\n".join(lines[a - 1 : b - 1]).strip("\n") for a, b in zip(cuts, cuts[1:]) if a < b]


def as_notebook(source: str, extras: bool = True) -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_code_cell(c) for c in cells_of(source)]
    if extras:
        cells = [
            nbformat.v4.new_markdown_cell("# My embeddings"),
            nbformat.v4.new_code_cell("%pip install -q some-wheel\n!ls"),
            *cells,
            nbformat.v4.new_code_cell(
                "# not graded\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])"
            ),
            nbformat.v4.new_code_cell("%%bash\necho $HOME"),
        ]
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    return nb


def v4(cells: list[Any]) -> dict[str, Any]:
    """A notebook of format 4 with these cells, as JSON data."""
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def write(nb: Any, path: Path) -> Path:
    if isinstance(nb, (bytes, str)):
        path.write_bytes(nb if isinstance(nb, bytes) else nb.encode())
    else:
        nbformat.write(nb, str(path))
    return path


def verdict(report: Any) -> list[tuple[str, str, float]]:
    return [(c.id, c.status.value, c.points) for c in report.checks]


# What counts as the module ---------------------------------------------------------


def test_code_cells_in_order_without_kit_cells_magics_or_cells_marked_not_graded() -> None:
    nb = nbformat.v4.new_notebook()
    kit = nbformat.v4.new_code_cell("check(1)")
    kit.metadata[notebook.KIT_KEY] = "check"
    nb.cells = [
        nbformat.v4.new_markdown_cell("text"),
        nbformat.v4.new_code_cell("import math\n%matplotlib inline\nfiles = !ls\nmath?"),
        kit,
        nbformat.v4.new_code_cell("# Not graded: a plot\nimport numpy"),
        nbformat.v4.new_code_cell("%%timeit\nx = 1"),
        nbformat.v4.new_code_cell("def f(x):\n    if x:\n        !echo hi\n    return x"),
    ]
    cells = notebook.module(json.loads(nbformat.writes(nb)))
    assert cells.source == (
        "import math\npass\npass\npass\ndef f(x):\n    if x:\n        pass\n    return x\n"
    )
    assert [(c.number, c.start, c.lines) for c in cells.cells] == [(2, 1, 4), (6, 5, 4)]
    assert cells.where(7) == (cells.cells[1], 3)
    assert cells.cells[1].first == "def f(x):"


def test_a_percent_sign_that_continues_a_statement_is_python() -> None:
    source = (
        'x = (\n    "%d"\n    % 3\n)\ny = "a" \\\n    % ()\ns = """\n!not a shell escape\n"""\n'
    )
    cells = notebook.module(v4([{"cell_type": "code", "source": source, "metadata": {}}]))
    assert cells.source == source


def test_a_traceback_names_the_cell_and_its_line() -> None:
    cells = notebook.module(
        v4(
            [
                {"cell_type": "code", "source": "a = 1\nb = 2", "metadata": {}},
                {"cell_type": "code", "source": ["def g():\n", "    1 / 0"], "metadata": {}},
            ]
        )
    )
    text = 'File "/x/embed.ipynb", line 4, in g\nFile "other.py", line 4'
    assert cells.retrace(text, "embed.ipynb") == (
        'File "/x/embed.ipynb", cell 2, line 2, in g\nFile "other.py", line 4'
    )


# Notebooks that cannot be graded ----------------------------------------------------


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b'{"cells": [', "notebook.json"),
        (b"\xff\xfe{}", "notebook.not_utf8"),
        (b"[1, 2]", "notebook.not_notebook"),
        (b"[" * 100000 + b"]" * 100000, "notebook.too_deep"),
        (b"[" + b"[]," * 1100000 + b"[]]", "notebook.too_complex"),
        (
            json.dumps({"cells": [], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}).encode(),
            "notebook.version",
        ),
        (
            json.dumps(
                {
                    "cells": [{"cell_type": "code"}],
                    "metadata": {},
                    "nbformat": 4,
                    "nbformat_minor": 5,
                }
            ).encode(),
            "notebook.cell_missing",
        ),
        (
            nbformat.writes(
                nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("hi")])
            ).encode(),
            "notebook.no_code",
        ),
        (
            lambda: as_notebook("x = 1\n" * (notebook.MAX_CELLS + 1), False),
            "notebook.too_many_cells",
        ),
        (lambda: as_notebook("x = '%s'\n" % ("a" * (5 << 20)), False), "notebook.code_too_large"),
    ],
    ids=["broken", "not_utf8", "list", "deep", "many", "v3", "invalid", "no_code", "cells", "code"],
)
def test_a_broken_notebook_gets_a_clear_message(tmp_path: Path, data: Any, code: str) -> None:
    path = write(data() if callable(data) else data, tmp_path / "embed.ipynb")
    with pytest.raises(UsageError) as caught:
        grade(path, seed=1, check_reports=False)
    assert caught.value.code == code


def test_a_huge_notebook_is_refused_without_reading_past_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nb = as_notebook("x = 1\n", extras=False)
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="y" * (50 << 20))]
    path = write(nb, tmp_path / "embed.ipynb")
    asked: list[int] = []
    real = open

    def counting(*args: Any, **kwargs: Any) -> Any:
        f = real(*args, **kwargs)
        read = f.read
        f_read = lambda n=-1: asked.append(n) or read(n)  # noqa: E731
        return type(
            "F",
            (),
            {
                "read": staticmethod(f_read),
                "__enter__": lambda s: s,
                "__exit__": lambda s, *a: f.close(),
            },
        )()

    monkeypatch.setattr(ipynb, "open", counting, raising=False)
    with pytest.raises(notebook.NotebookError) as caught:
        notebook.load(path)
    assert caught.value.code == "notebook.too_large"
    assert asked == [notebook.MAX_NOTEBOOK + 1]


def test_the_batch_marks_a_broken_notebook_unreadable_with_its_message(tmp_path: Path) -> None:
    (tmp_path / "class" / "ana").mkdir(parents=True)
    write(b"{not json", tmp_path / "class" / "ana" / "embed.ipynb")
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "batch",
            str(tmp_path / "class"),
            "--out",
            str(out),
            "--sandbox",
            "process",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    row = (out / "gradebook.csv").read_text().splitlines()[1]
    assert ",unreadable," in row and "not valid JSON" in row


# Grading a notebook -------------------------------------------------------------------


def test_the_reference_as_a_notebook_gets_full_marks_and_its_errors_name_cells(
    tmp_path: Path,
) -> None:
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    for name in ("embed_report.json", "embed_report.md"):
        (tmp_path / name).write_bytes((ROOT / "reference" / name).read_bytes())
    path = write(as_notebook(source), tmp_path / "embed.ipynb")
    report = grade(path, seed=11)
    assert report.score == report.max_score, [
        c.message for c in report.checks if c.points < c.max_points
    ]
    broken = source.replace("    rows = []\n", "    rows = [] + 1 / 0\n", 1)
    assert broken != source
    write(as_notebook(broken), path)
    report = grade(
        path, seed=11, check_reports=False, only=("lookup.values",), student_root=tmp_path
    )
    (check,) = report.checks
    lookup_cell = next(
        i for i, c in enumerate(as_notebook(broken).cells, 1) if "def lookup(" in c.source
    )
    assert "in cell %d, line" % lookup_cell in check.message
    assert "def lookup(table, ids):" in check.message
    assert check.details["snippet"].startswith("print(lookup(")
    assert check.reproduce.startswith("embed-grader ")
    assert " embed.ipynb " in check.reproduce


def test_the_batch_finds_notebooks_in_folders_and_alone(tmp_path: Path) -> None:
    (tmp_path / "ana").mkdir()
    write(as_notebook("x = 1\n"), tmp_path / "ana" / "embed.ipynb")
    write(as_notebook("x = 1\n"), tmp_path / "ben.ipynb")
    (tmp_path / "cat").mkdir()
    (tmp_path / "cat" / "embed.py").write_text("x = 1\n")
    write(as_notebook("x = 1\n"), tmp_path / "cat" / "embed.ipynb")
    found = {s.id: s.module for s in discover(tmp_path)}
    assert found == {
        "ana": tmp_path / "ana" / "embed.ipynb",
        "ben": tmp_path / "ben.ipynb",
        "cat": tmp_path / "cat" / "embed.py",
    }


@pytest.mark.parametrize("module", CORPUS, ids=[p.parent.name + "/" + p.stem for p in CORPUS])
def test_a_corpus_module_as_a_notebook_gets_the_modules_verdict(
    tmp_path: Path, module: Path
) -> None:
    source = module.read_text(encoding="utf-8")
    path = write(as_notebook(source), tmp_path / "embed.ipynb")
    as_module = grade(module, seed=7, check_reports=False)
    as_cells = grade(path, seed=7, check_reports=False)
    assert verdict(as_cells) == verdict(as_module)
    assert as_cells.blamed() == as_module.blamed()
