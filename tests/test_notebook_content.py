"""A notebook graded without the kit's cell marks: the kit's cells told by their content,
and the cells that bind a name again named in the report.

The shipped notebooks filled with the reference's code, their cell metadata stripped (a
copy into a fresh notebook, or a tool that drops metadata), get full marks; a check cell
a student adds to a marked notebook is not graded; a later cell that redefines a
function or changes a constant is named.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from grader import grade
from grader.engine.handin import notebook
from grader.engine.output.render import render_text
from grader.labs.embed.stubgen import notebook as kit

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "embed.py").read_text(encoding="utf-8")


def filled(lang: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(kit.notebooks(REFERENCE, filled=True)[kit.FILES[lang]])
    return data


def stripped(nb: dict[str, Any]) -> dict[str, Any]:
    for cell in nb["cells"]:
        cell["metadata"] = {}
        cell.pop("id", None)
    return nb


def roles(nb: dict[str, Any]) -> list[tuple[int, str]]:
    return [
        (n, c["metadata"].get(kit.KIT_KEY, ""))
        for n, c in enumerate(nb["cells"], 1)
        if c["cell_type"] == "code"
    ]


def code(source: str) -> dict[str, Any]:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": []}


def write(nb: dict[str, Any], folder: Path) -> Path:
    """The notebook in ``folder``, with the report files its report cell writes."""
    for name in ("embed_report.json", "embed_report.md"):
        (folder / name).write_bytes((ROOT / "reference" / name).read_bytes())
    path = folder / "embed.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path


@pytest.mark.parametrize("lang", list(kit.FILES))
def test_the_kit_notebook_without_its_marks_gets_full_marks(tmp_path: Path, lang: str) -> None:
    marked = filled(lang)
    kits = [n for n, role in roles(marked) if role != "exercise"]
    path = write(stripped(filled(lang)), tmp_path)
    cells = notebook.load(path)
    assert cells.kit_cells == tuple(kits)
    assert not cells.marked
    report = grade(path, seed=5, lang=lang)
    assert report.score == report.max_score == 100, [
        c.message for c in report.checks if c.points < c.max_points
    ]
    shown = " ".join(render_text(report, lang, width=100).split())
    assert ", ".join(str(n) for n in kits) in shown


def test_a_check_cell_a_student_adds_is_not_graded(tmp_path: Path) -> None:
    nb = filled("en")
    nb["cells"].insert(10, code('check(3, "--verbose")'))
    path = write(nb, tmp_path)
    report = grade(path, seed=5, upto=3, check_reports=False)
    assert report.score == report.max_score, [
        c.message for c in report.checks if c.points < c.max_points
    ]
    assert notebook.load(path).kit_cells == (11,)
    shown = " ".join(render_text(report, "en").split())
    assert "cell 11 imports the grader or only calls check(...)" in shown


def test_a_later_cell_that_redefines_a_function_or_changes_a_constant_is_named(
    tmp_path: Path,
) -> None:
    nb = stripped(filled("en"))
    sources = [(n, "".join(c["source"])) for n, c in enumerate(nb["cells"], 1)]
    code_cells = [(n, s) for (n, s), c in zip(sources, nb["cells"]) if c["cell_type"] == "code"]
    first = next(n for n, source in code_cells if "def lookup(" in source)
    vocab = next(n for n, source in code_cells if "VOCAB = 512" in source)
    nb["cells"].append(code("def lookup(table, ids):\n    return [table[0] for i in ids]\n"))
    nb["cells"].append(code("VOCAB = 100\n"))
    last = len(nb["cells"])
    path = write(nb, tmp_path)
    report = grade(path, seed=5, upto=2, check_reports=False)
    failed = {c.id for c in report.checks if c.points < c.max_points}
    assert {"lookup.values", "VOCAB.value"} <= failed, failed
    shown = " ".join(render_text(report, "en").split())
    assert (
        "lookup is defined in cells %d, %d: the last one, cell %d" % (first, last - 1, last - 1)
        in shown
    )
    assert (
        "VOCAB is set in cells %d, %d: the module has the value that cell %d"
        % (
            vocab,
            last,
            last,
        )
        in shown
    )


def test_what_binds_a_name_is_read_from_the_lines_that_start_a_statement() -> None:
    cells = notebook.module(
        {
            "cells": [
                code("VOCAB = 512\ndef f(x):\n    y = 1\n    return y\nclass K: pass\n"),
                code('s = """\nVOCAB = 3\n"""\nelse_ = 1\nVOCAB: int = 4\nif f(1) == 2: pass\n'),
                code("f = (\n  lambda x: x\n)\nVOCAB += 1\nK.x = 1\nDIM == 3\n"),
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )
    assert dict(cells.defined_again) == {"VOCAB": (1, 2, 3), "f": (1, 3)}


def test_the_stub_notebook_without_its_marks_is_graded_as_with_them(tmp_path: Path) -> None:
    shipped = json.loads((ROOT / "exercises" / "embed.ipynb").read_text(encoding="utf-8"))
    (tmp_path / "marked").mkdir()
    (tmp_path / "bare").mkdir()
    marked = grade(write(shipped, tmp_path / "marked"), seed=2, upto=3, check_reports=False)
    bare = grade(write(stripped(shipped), tmp_path / "bare"), seed=2, upto=3, check_reports=False)
    assert [(c.id, c.status, c.points) for c in bare.checks] == [
        (c.id, c.status, c.points) for c in marked.checks
    ]
    assert not bare.passed and "not started" in render_text(bare, "en")
