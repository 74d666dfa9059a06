"""What the exercise's texts tell a student, file kit and notebook alike, is true: the
notebook's setup cell installs what is there, its step 8 names what a notebook student
runs, the rules list every open behaviour, and the install says what it downloads."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grader.engine.messages import text
from grader.labs.embed.rules import RULES
from grader.labs.embed.stubgen import notebook as kit

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ROOT / "exercises"


def plain(words: str) -> str:
    return " ".join(words.replace("`", "").split())


def cells(lang: str) -> list[Any]:
    nb = nbformat.reads((EXERCISES / kit.FILES[lang]).read_text("utf-8"), 4)
    return list(nb.cells)


# The notebook's setup cell ---------------------------------------------------------------


def run_setup(source: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The setup cell as IPython runs it, in ``folder``, where the grader is not yet
    installed: the pip commands it gives (none when it stops)."""
    from IPython.core.inputtransformer2 import TransformerManager
    from IPython.utils.text import DollarFormatter

    source = source.split("from grader.engine.commands.checkcells")[0]  # installing, not importing
    code = TransformerManager().transform_cell(source)
    calls: list[str] = []
    namespace: dict[str, Any] = {}

    class Shell:
        def run_line_magic(self, name: str, line: str, _stack_depth: int = 0) -> None:
            # As IPython does, {name} in a magic's line is expanded first.
            calls.append("%s %s" % (name, DollarFormatter().vformat(line, (), namespace)))

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "grader" else real(name, *a),
    )
    monkeypatch.chdir(folder)
    shell = Shell()
    namespace["get_ipython"] = lambda: shell
    exec(compile(code, "setup-cell", "exec"), namespace)
    return calls


@pytest.mark.parametrize("lang", list(kit.FILES))
def test_the_setup_cell_stops_at_once_with_a_sentence_when_there_is_no_wheel(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(FileNotFoundError) as raised:
        run_setup(cells(lang)[1].source, tmp_path, monkeypatch)
    assert str(raised.value) == text("nbcell.missing", lang)
    assert "YOUR-COURSE" not in cells(lang)[1].source


@pytest.mark.parametrize("where", [".", "dist", "../dist"])
def test_the_setup_cell_installs_the_student_edition_it_finds(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "course" / "exercises"
    wheel = folder / where / "embed_grader_student-0.1.0-py3-none-any.whl"
    wheel.parent.mkdir(parents=True, exist_ok=True)
    wheel.write_bytes(b"")
    calls = run_setup(cells("en")[1].source, folder, monkeypatch)
    assert len(calls) == 1 and calls[0].startswith("pip install -q")
    assert Path(calls[0].split('"')[1]).resolve() == wheel.resolve()


def test_the_setup_cell_installs_the_address_the_course_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = kit.notebooks((ROOT / "embed.py").read_text("utf-8"), "https://c.example/w.whl")
    source = nbformat.reads(made["embed.ipynb"], 4).cells[1].source
    assert 'EMBED_GRADER_WHEEL = "https://c.example/w.whl"' in source
    assert run_setup(source, tmp_path, monkeypatch) == ['pip install -q "https://c.example/w.whl"']


@pytest.mark.parametrize("lang", list(kit.FILES))
def test_the_notebook_says_what_it_installs_without_pointing_above(lang: str) -> None:
    intro, setup = cells(lang)[0].source, cells(lang)[1].source
    for above in (
        "as above",
        "the `.venv` above",
        "위에서 말한",
        "위의 `.venv`",
        "与上文",
        "上文的",
    ):
        assert above not in intro, above
    assert "EMBED_GRADER_WHEEL" in intro and "embed_grader_student-" in intro
    assert "EMBED_GRADER_WHEEL" in setup


# Step 8 and the report's messages for a notebook ------------------------------------------


@pytest.mark.parametrize("lang", list(kit.FILES))
def test_a_notebook_never_tells_its_student_to_run_embed_py(lang: str) -> None:
    for cell in cells(lang):
        if cell.cell_type == "markdown":
            assert "python embed.py" not in cell.source, cell.source[:200]
            assert "<!--" not in cell.source
    step8 = next(c.source for c in cells(lang) if '<a id="step-8"></a>' in c.source)
    assert 'write_report(".")' in step8
    readme = (EXERCISES / kit.READMES[lang]).read_text("utf-8")
    assert "python embed.py" in readme  # the file kit's students do run it


# The rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", list(kit.READMES))
def test_the_rules_list_every_behaviour_left_open(lang: str) -> None:
    rules = kit.sections((EXERCISES / kit.READMES[lang]).read_text("utf-8"))["step-0"]
    for rule in RULES:
        if not rule.graded:
            assert plain(text(rule.code, lang)) in plain(rules), rule.code


# Installing ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", list(kit.READMES))
def test_the_install_says_it_downloads_what_the_grader_needs(lang: str) -> None:
    pyproject = (ROOT / "pyproject.toml").read_text("utf-8")
    block = re.search(r"^dependencies = \[(.*?)^\]", pyproject, re.M | re.S)
    assert block is not None
    names = re.findall(r'^\s*"([A-Za-z0-9_.-]+)', block.group(1), re.M)
    assert len(names) >= 5
    install = kit.sections((EXERCISES / kit.READMES[lang]).read_text("utf-8"))["install"]
    for name in names:
        assert name in install, name


def test_the_readme_lists_every_option_of_the_command() -> None:
    from grader.engine.commands.cli import parser

    readme = (ROOT / "README.md").read_text("utf-8")
    table = readme[readme.index("| option | meaning |") :].split("\n\n")[0]
    for action in parser()._actions:
        longest = max(action.option_strings, key=len, default="")
        if longest in ("", "--help", "--version"):
            continue
        assert "`%s" % longest in table or "`%s" % min(action.option_strings, key=len) in table, (
            longest
        )


def test_the_notebooks_are_valid_json() -> None:
    for name in kit.FILES.values():
        json.loads((EXERCISES / name).read_text("utf-8"))


def _report_checks(path: Path, report_dir: Path) -> dict[str, Any]:
    from grader import grade

    report = grade(path, seed=2, report_dir=report_dir, only=["report.write", "report.same"])
    return {c.id: c for c in report.checks}


def test_a_notebooks_report_messages_name_its_write_report_cell(tmp_path: Path) -> None:
    made = kit.notebooks((ROOT / "embed.py").read_text("utf-8"), filled=True)
    (tmp_path / "nb").mkdir()
    notebook = tmp_path / "nb" / "embed.ipynb"
    notebook.write_text(made["embed.ipynb"], "utf-8")
    same = _report_checks(notebook, notebook.parent)["report.same"]
    assert not same.ok and 'write_report(".")' in same.message
    assert "python embed.py" not in same.message
    # A module in a file is told to run it.
    (tmp_path / "py").mkdir()
    module = tmp_path / "py" / "embed.py"
    module.write_bytes((ROOT / "embed.py").read_bytes())
    same = _report_checks(module, module.parent)["report.same"]
    assert not same.ok and "python embed.py" in same.message


def test_a_writer_that_cannot_encode_the_headings_is_told_to_open_with_utf_8(
    tmp_path: Path,
) -> None:
    # What a plain open(path, "w") does on Windows, where the default encoding is cp1252.
    source = (ROOT / "embed.py").read_text("utf-8")
    assert 'encoding="utf-8"' in source
    module = tmp_path / "embed.py"
    module.write_text(source.replace('encoding="utf-8"', 'encoding="cp1252"'), "utf-8")
    write = _report_checks(module, tmp_path)["report.write"]
    assert not write.ok and "UnicodeEncodeError" in write.message
    assert 'encoding="utf-8"' in write.message
    stub = (EXERCISES / "embed.py").read_text("utf-8")
    assert 'encoding="utf-8"' in stub  # the stub says so before it happens


# Rows are counted from 0 in code, as step 1 says (tea is row 0) -------------------------

POT = "(-0.2, 0.8, 0.4)"
ONE_BASED_POT = re.compile(r"(?:row 3|3행|第 3 行)[ ,]*$")
ONE_BASED_SEQUENCE = re.compile(
    r"(?<!board's )rows? 2, (?:then )?1, 3(?:,| and) 4|(?<!칠판의 )2, 1, 3, 4행|2행, 1행, 3행"
    r"|(?<!板书上的 )第 2、1、3、4 行"
)


@pytest.mark.parametrize("lang", list(kit.READMES))
def test_steps_2_and_3_count_code_rows_from_0(lang: str) -> None:
    parts = kit.sections((EXERCISES / kit.READMES[lang]).read_text("utf-8"))
    texts = [parts["step-2"], parts["step-3"]]
    texts += [
        text(c, lang, got="?") for c in ("course.row_times_matrix.pot", "course.lookup.sequence")
    ]
    for words in texts:
        words = " ".join(words.split())
        assert not ONE_BASED_SEQUENCE.search(words), words
        at = words.find(POT)
        while at >= 0:
            assert not ONE_BASED_POT.search(words[:at]), words[max(0, at - 60) : at + 20]
            at = words.find(POT, at + 1)


def test_an_empty_markdown_handed_in_is_told_to_open_with_utf_8(tmp_path: Path) -> None:
    """What a Windows student hands in after a plain open(path, "w") raised."""
    module = tmp_path / "embed.py"
    module.write_bytes((ROOT / "embed.py").read_bytes())
    (tmp_path / "embed_report.json").write_bytes(
        (ROOT / "reference" / "embed_report.json").read_bytes()
    )
    (tmp_path / "embed_report.md").write_text("", "utf-8")
    same = _report_checks(module, tmp_path)["report.same"]
    assert not same.ok and "embed_report.md" in same.message
    assert 'encoding="utf-8"' in same.message
