"""Text at a terminal: escaped, wrapped to the width, coloured only where it can be."""

from __future__ import annotations

import ast
import io
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from grader.engine.commands.cli import main
from grader.engine.messages import text
from grader.engine.output import terminal as layout
from grader.engine.output.terminal import cells, escape, wrap, wrap_command

ROOT = Path(__file__).resolve().parents[1]
WRONG = sorted((ROOT / "tests" / "corpus" / "wrong").glob("*.py"))


def unwrap(out: str) -> str:
    """Commands broken for the width, joined again as a shell reads them."""
    return re.sub(r" \\\n +", " ", out)


def test_escape_leaves_no_control_character() -> None:
    raw = "a\x1b[2Jb\x1b]0;title\x07c\r\td\x9b\u202ee\x00f\nnext"
    shown = escape(raw)
    assert shown.count("\n") == 1
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", shown)
    assert "\\x1b[2J" in shown and "\\u202e" in shown and "\\x0d" in shown


@pytest.mark.parametrize("width", [20, 40, 80])
def test_wrap_keeps_every_word_within_the_width(width: int) -> None:
    line = (
        "  hint: " + " ".join("word%d" % i for i in range(60)) + " 表格有行每行单元它应该有行" * 3
    )
    lines = wrap(line, width, "    ")
    assert all(cells(x) <= width for x in lines)
    assert "".join(x.strip() for x in lines).replace(" ", "") == line.replace(" ", "")
    assert all(x.startswith("    ") for x in lines[1:])


def test_wrapped_commands_run_as_the_original() -> None:
    command = "cd 'a b' && python3 -c 'import embed; print(embed.lookup([[0.25, -0.5, 0.125], [1.0, 2.0, 3.0]], [1, 0, 1]))'"
    lines = wrap_command("  try it: ", command, 50, "      ")
    assert len(lines) > 2 and all(cells(x) <= 50 for x in lines)
    pasted = "\n".join(lines)[len("  try it: ") :]
    # The shell reads the same words, and Python the same code, as from one line.
    words = shlex.split(pasted.replace("\\\n", ""))
    original = shlex.split(command)
    assert words[:-1] == original[:-1]
    assert ast.dump(ast.parse(words[-1])) == ast.dump(ast.parse(original[-1]))
    replay = "embed-grader hw/embed.py --seed 123456789 --check nearest_by_cosine.values"
    lines = wrap_command("  replay: ", replay, 40, "      ")
    assert (
        all(cells(x) <= 40 for x in lines)
        and unwrap("\n".join(lines)).strip() == "replay: " + replay
    )


def test_width_is_80_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    assert layout.width(io.StringIO()) == 80
    monkeypatch.setenv("COLUMNS", "120")
    assert layout.width(io.StringIO()) == 120


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_on_a_terminal_only_and_never_with_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = [("fail", "step 2 lookup  FAIL"), ("plain", "x")]
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    terminal = FakeTerminal()
    layout.show(lines, terminal)
    assert "\x1b[" in terminal.getvalue() and "step 2 lookup  FAIL" in terminal.getvalue()
    piped = io.StringIO()
    layout.show(lines, piped)
    assert piped.getvalue() == "step 2 lookup  FAIL\nx\n"
    monkeypatch.setenv("NO_COLOR", "1")
    plain = FakeTerminal()
    layout.show(lines, plain)
    assert plain.getvalue() == "step 2 lookup  FAIL\nx\n"


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
def test_no_line_wider_than_80_when_piped(
    lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    # Run as a student does, from the module's folder: a path wider than the
    # terminal is one word that no shell would read if it were broken.
    monkeypatch.chdir(WRONG[0].parent)
    reports = os.path.relpath(ROOT / "reference", WRONG[0].parent)
    modules = WRONG if lang == "en" else WRONG[::6]
    assert len(modules) > 10
    for module in modules:
        main([module.name, "--seed", "4", "--lang", lang, "--report-dir", reports])
        out = capsys.readouterr().out
        wide = [line for line in out.splitlines() if cells(line) > 80]
        assert wide == [], (module.name, wide)
        assert "\x1b" not in out


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
def test_every_step_label_fits_its_row_at_80_columns(
    lang: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The untouched stub's step 0 says it waits for a function, on the row itself."""
    monkeypatch.setenv("COLUMNS", "80")
    main([str(ROOT / "exercises" / "embed.py"), "--seed", "4", "--lang", lang])
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if cells(line) > 80] == []
    heads = [text("render.step", lang, step=s, title=text("step.%d" % s, lang)) for s in range(9)]
    rows = [i for i, line in enumerate(lines) if any(line.startswith(h) for h in heads)]
    assert len(rows) == 9 and rows == list(range(rows[0], rows[0] + 9))  # one line each
    zero = lines[rows[0]]
    assert zero.endswith("  " + text("status.waiting", lang))
    # The states stand in one column.
    columns = {cells(line[: line.index(" / ") + 8]) for line in lines[rows[0] : rows[0] + 9]}
    assert len(columns) == 1


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
@pytest.mark.parametrize("module", ["exercises/embed.py", "tests/corpus/wrong/cosine_absolute.py"])
def test_the_report_fits_a_narrow_screen(
    lang: str, module: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "50")
    monkeypatch.chdir((ROOT / module).parent)  # a path is one word: it cannot be broken
    main([Path(module).name, "--seed", "4", "--lang", lang, "--no-report", "-v"])
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if cells(line) > 50] == []
    # Each step's title, then its points and state below it.
    title = text("render.step", lang, step=1, title=text("step.1", lang))
    at = next(i for i, line in enumerate(lines) if line.startswith(title))
    assert lines[at + 1].startswith("    ") and " / " in lines[at + 1]


def test_student_strings_reach_the_terminal_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    module = tmp_path / "embed.py"
    module.write_text(
        "print('\\x1b]0;owned\\x07')\n"
        "def lookup(table, ids):\n"
        "    raise ValueError('\\x1b[2J\\x1b[31mred\\r\\u202egnp.exe')\n",
        encoding="utf-8",
    )
    main([str(module), "--seed", "1", "--check", "lookup", "--no-report"])
    out = capsys.readouterr().out
    assert "\\x1b[2J" in out
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]", out)


def test_rich_is_loaded_only_for_a_terminal() -> None:
    code = (
        "import sys\n"
        "from grader.engine.commands.cli import main\n"
        "main([sys.argv[1], '--seed', '1', '--check', 'lookup', '--no-report'])\n"
        "sys.stderr.write('RICH=%s' % any(m.split('.')[0] == 'rich' for m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "embed.py")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    assert "RICH=False" in result.stderr, result.stderr


def test_chinese_breaks_after_its_punctuation_not_inside_a_phrase() -> None:
    han = re.compile("[\u3400-\u9fff]")
    line = '  小节 "x" 除去数字、键名和代码后，正文只有 12 个字母（一个汉字算 3 个字母，一个韩文音节算 2.5 个）；至少要写 60 个：用句子说明这些数字表明了什么'
    for width in (40, 50, 60):  # each phrase fits a line
        lines = wrap(line, width, "    ")
        assert all(cells(x) <= width for x in lines)
        assert "".join(x.strip() for x in lines).replace(" ", "") == line.replace(" ", "")
        for this, after in zip(lines, lines[1:]):
            nxt = after.strip()[0]
            assert (
                this[-1] in "，。；：、）"
                or nxt == "（"
                or not (han.match(this[-1]) or han.match(nxt))
            ), (width, this, after)
