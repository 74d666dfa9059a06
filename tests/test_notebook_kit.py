"""The exercise notebooks: generated from the stub and the instructions, and graded from
inside themselves.

The reference's code in the notebook (``--filled``), executed top to bottom with
nbclient, gets full marks from every one of its check cells and from
``embed-grader embed.ipynb`` afterwards, with the report files its own cell wrote.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.engine.handin import notebook
from grader.labs.embed import stubgen
from grader.labs.embed.stubgen import notebook as kit

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = (ROOT / "embed.py").read_text(encoding="utf-8")


def roles(nb: dict) -> list[str]:
    return [c["metadata"].get(kit.KIT_KEY, c["cell_type"]) for c in nb["cells"]]


@pytest.mark.parametrize("name", list(kit.FILES.values()))
def test_the_committed_notebooks_are_the_generated_ones(name: str) -> None:
    made = kit.notebooks(REFERENCE)
    assert (ROOT / "exercises" / name).read_text(encoding="utf-8") == made[name], (
        "exercises/%s is stale: run python -m grader.labs.embed.stubgen.notebook" % name
    )


def test_the_check_fails_on_a_stale_notebook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(kit.FILES.values()) + list(kit.READMES.values()):
        (tmp_path / name).write_bytes((ROOT / "exercises" / name).read_bytes())
    monkeypatch.setattr(kit, "EXERCISES", tmp_path)
    assert kit.main(["--check"]) == 0
    readme = tmp_path / "README.ko.md"
    readme.write_text(readme.read_text("utf-8").replace("## 2단계", "## 2 단계"), "utf-8")
    assert kit.main(["--check"]) == 1
    assert kit.main([]) == 0
    assert "## 2 단계" in (tmp_path / "embed.ko.ipynb").read_text("utf-8")


@pytest.mark.parametrize("lang", list(kit.FILES))
def test_a_notebook_holds_the_stub_and_every_step(lang: str) -> None:
    data = nbformat.reads((ROOT / "exercises" / kit.FILES[lang]).read_text("utf-8"), 4)
    nbformat.validate(data)
    # What the grader takes as the module is the stub without its docstring and
    # __main__ block, cell by cell.
    stub = stubgen.generate(REFERENCE)
    graded = notebook.module(data).source
    assert graded.split() == "".join(kit.code_parts(stub).values()).split()
    assert "raise NotImplementedError" in graded and "__main__" not in graded
    checks = [c["source"] for c in data["cells"] if c["metadata"].get(kit.KIT_KEY) == "check"]
    assert checks == ["check(%d)" % n for n in range(1, 9)]
    setup = data["cells"][1]["source"]
    assert 'EMBED_GRADER_WHEEL = "%s"' % kit.PLACEHOLDER in setup
    assert 'checker("%s", "%s")' % (kit.FILES[lang], lang) in setup
    order = roles(data)
    assert order[:3] == ["markdown", "setup", "markdown"]
    assert order.count("exercise") == 8
    assert order.index("report") == len(order) - 2
    for step in range(1, 9):
        assert any(
            c["cell_type"] == "markdown" and '<a id="step-%d"></a>' % step in c["source"]
            for c in data["cells"]
        )


def test_the_stub_notebook_scores_nothing_and_says_not_started(tmp_path: Path) -> None:
    path = tmp_path / "embed.ipynb"
    path.write_bytes((ROOT / "exercises" / "embed.ipynb").read_bytes())
    done = subprocess.run(
        [sys.executable, "-m", "grader", "embed.ipynb", "--seed", "3", "--upto", "2"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
    )
    assert done.returncode == 1, done.stderr
    assert re.search(r"score 0 / 25", done.stdout)
    assert "not started" in done.stdout


def _execute(folder: Path, name: str) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    nb = nbformat.read(str(folder / name), as_version=4)
    client = NotebookClient(
        nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    )
    client.execute()
    return nb


def test_the_filled_notebook_gets_full_marks_from_its_checks_and_the_grader(tmp_path: Path) -> None:
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    assert kit.main(["--filled", str(tmp_path)]) == 0
    nb = _execute(tmp_path, "embed.ipynb")
    for cell in nb.cells:
        if cell.metadata.get(kit.KIT_KEY) != "check":
            continue
        out = "".join(o.get("text", "") for o in cell.outputs)
        step = int(cell.source[len("check(") : -1])
        most = {1: 15, 2: 25, 3: 40, 4: 50, 5: 60, 6: 75, 7: 85, 8: 100}[step]
        assert "score %d / %d" % (most, most) in out, (cell.source, out)
        assert "graded embed.ipynb as saved at" in out
    assert (tmp_path / "embed_report.json").is_file()
    done = subprocess.run(
        [sys.executable, "-m", "grader", "embed.ipynb", "--seed", "5"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "score 100 / 100" in done.stdout


def test_a_check_cell_names_the_notebook_it_could_not_find(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from grader.engine.commands.checkcells import checker; checker('x.ipynb', 'zh')(1)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "x.ipynb" in done.stdout and "checker(" in done.stdout
    assert "没有笔记本" in done.stdout
