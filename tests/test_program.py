"""How the child's program reaches the interpreter: the parts of ``grader/engine/_child/``
joined into one program, compiled when the child runs the grader's own interpreter,
within one command-line argument."""

from __future__ import annotations

import binascii
import json
import marshal
import os
import py_compile
import re
import shutil
import subprocess
import sys
import types
import zlib
from pathlib import Path

import pytest

from grader.engine._child import PARTS
from grader.engine.sandbox import program
from grader.engine.sandbox import program as sandbox_program
from grader.engine.sandbox.program import CHILD, CHILD_TAG, child_program, compiled_program

PY38 = "/root/.pyenv/versions/3.8.18/bin/python3.8"


@pytest.fixture(autouse=True)
def _fresh() -> object:
    child_program.cache_clear()
    compiled_program.cache_clear()
    yield
    child_program.cache_clear()
    compiled_program.cache_clear()


def unpacked(text: str) -> tuple[types.CodeType, ...]:
    """The code objects a compiled program carries."""
    found = re.search(r"a2b_base64\('([^']*)'\)", text)
    assert found, text[:200]
    data = binascii.a2b_base64(found.group(1))
    if "zlib.decompress(" in text:
        data = zlib.decompress(data)
    codes = marshal.loads(data)
    assert type(codes) is tuple
    return codes


def every_code(code: types.CodeType) -> list[types.CodeType]:
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += every_code(c)
    return out


def defined(codes: tuple[types.CodeType, ...]) -> dict[str, object]:
    space: dict[str, object] = {"__name__": "child_under_test"}
    for code in codes:
        exec(code, space)
    return space


def test_the_source_program_is_the_parts_joined_in_their_order() -> None:
    text = child_program(CHILD)
    assert text.startswith(CHILD_TAG + "\n")
    at = 0
    for name in PARTS:
        part = (CHILD / (name + ".py")).read_text(encoding="utf-8")
        found = text.find(part, at)
        assert found >= at, name
        at = found + len(part)
    assert at == len(text)


def test_the_compiled_program_defines_what_the_source_defines() -> None:
    source = compile(child_program(CHILD), "<string>", "exec", dont_inherit=True)
    joined = defined((source,))
    compiled = defined(unpacked(compiled_program(CHILD)))
    assert joined.keys() == compiled.keys()
    assert "main" in compiled and "Child" in compiled and "changed" in compiled
    for name, value in joined.items():
        other = compiled[name]
        assert type(value) is type(other), name
        if isinstance(value, types.FunctionType) and value.__code__.co_filename == "<string>":
            assert isinstance(other, types.FunctionType)
            # Compiled apart, a part does not know that base imported ``os``: Python
            # 3.11 then calls ``os.dup`` with another instruction, to the same effect.
            a, b = value.__code__, other.__code__
            assert (a.co_names, a.co_varnames, a.co_argcount) == (
                b.co_names,
                b.co_varnames,
                b.co_argcount,
            ), name
            assert value.__globals__ is joined and other.__globals__ is compiled


def test_the_compiled_program_names_no_file() -> None:
    codes = unpacked(compiled_program(CHILD))
    assert len(codes) == len(PARTS)
    names = {c.co_filename for code in codes for c in every_code(code)}
    assert names == {"<string>"}


def test_a_program_too_long_for_one_argument_is_sent_as_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(program, "MAX_ARGUMENT", 1000)
    assert compiled_program(CHILD) == child_program(CHILD)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "_child"
    shutil.copytree(CHILD, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def test_the_compiled_program_reads_the_installs_compiled_files(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    main = folder / "main.py"
    kept = main.read_text(encoding="utf-8")
    # A compiled file that the loader takes as it is (an unchecked hash) and that
    # differs from the source: the program must hold its code.
    main.write_text(kept + "\nMARKER = 'from the compiled file'\n", encoding="utf-8")
    unchecked = py_compile.PycInvalidationMode.UNCHECKED_HASH
    py_compile.compile(str(main), doraise=True, invalidation_mode=unchecked)
    main.write_text(kept, encoding="utf-8")
    space = defined(unpacked(compiled_program(folder)))
    assert space["MARKER"] == "from the compiled file"
    assert "MARKER" not in child_program(folder)


def test_the_compiled_program_writes_no_compiled_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as a grader may run
    folder = _copy(tmp_path)
    before = sorted(folder.rglob("*"))
    compiled_program(folder)
    assert sorted(folder.rglob("*")) == before and not (folder / "__pycache__").exists()


def test_an_older_child_of_one_file_is_still_a_program(tmp_path: Path) -> None:
    one = tmp_path / "child.py"
    one.write_text("X = 1\n", encoding="utf-8")
    assert child_program(one) == CHILD_TAG + "\nX = 1\n"
    assert defined(unpacked(compiled_program(one)))["X"] == 1


def _ready(python: str, text: str, cwd: Path) -> dict:
    done = subprocess.run(
        [python, "-I", "-S", "-B", "-c", text],
        input=b"",
        capture_output=True,
        cwd=cwd,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return json.loads(done.stdout.splitlines()[0])


def test_the_child_of_this_interpreter_gets_compiled_code_that_starts() -> None:
    program = sandbox_program.compiled_program(CHILD)
    # Not the source: a program past the argument's limit would silently fall back
    # to it, and every child would compile a thousand lines at its start.
    assert program.startswith(sandbox_program.CHILD_TAG + "\nimport binascii, marshal")
    assert "\nfor _part in marshal.loads(" in program
    assert len(program) < sandbox_program.MAX_ARGUMENT
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", program],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ready = json.loads(done.stdout.splitlines()[0])
    assert ready["op"] == "ready"
    assert ready["python"] == "%d.%d.%d" % sys.version_info[:3]


@pytest.mark.skipif(not os.path.exists(PY38), reason="no Python 3.8 here")
def test_the_joined_source_starts_on_python38(tmp_path: Path) -> None:
    said = _ready(PY38, child_program(CHILD), tmp_path)
    assert said["op"] == "ready" and said["python"].startswith("3.8.")
