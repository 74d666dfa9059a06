"""How the child's program reaches the interpreter: compiled when the child runs the
grader's own interpreter, within one command-line argument."""

from __future__ import annotations

import json
import subprocess
import sys

from grader.engine.sandbox import CHILD
from grader.engine.sandbox import program as sandbox_program


def test_the_child_of_this_interpreter_gets_compiled_code_that_starts() -> None:
    program = sandbox_program.compiled_program(CHILD)
    # Not the source: a program past the argument's limit would silently fall back
    # to it, and every child would compile a thousand lines at its start.
    assert program.startswith(sandbox_program.CHILD_TAG + "\nimport binascii, marshal")
    assert "exec(marshal.loads(" in program
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
