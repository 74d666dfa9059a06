"""The child's program as the parent hands it to the interpreter: the modules of
``grader/engine/_child/`` joined into one program, as their sources one after
another, or as their compiled code run in turn in one namespace when the child runs
this very interpreter."""

from __future__ import annotations

import binascii
import functools
import importlib.machinery
import marshal
import types
from pathlib import Path
from typing import Any

from grader.engine._child import PARTS
from grader.engine.sandbox.pipe import Died, Pipe, pollable
from grader.engine.sandbox.records import SandboxError

try:
    import zlib
except ImportError:  # an interpreter built without it: the code travels as it is
    zlib = None  # type: ignore[assignment]

CHILD = Path(__file__).parent.with_name("_child")
# The child's program is handed to the interpreter with ``-c``: no file of the
# installed package is ever run (or named in sys.argv) where the child could write.
CHILD_TAG = "# embed-grader child"


MAX_ARGUMENT = 100_000  # characters of the -c argument (Linux takes 128 KiB in one)

# Where the pipes are read by threads (Windows, whose command lines hold 32,767
# characters) the program comes through the pipe instead: the ``-c`` argument reads
# its length (12 digits), then exactly that many bytes, and runs them; the protocol
# follows on the same pipe.
FROM_PIPE = (
    "import os\n"
    "def _program():\n"
    "    got = b''\n"
    "    n = None\n"
    "    while n is None or len(got) < n:\n"
    "        more = os.read(0, (12 if n is None else n) - len(got))\n"
    "        if not more:\n"
    "            raise SystemExit(3)\n"
    "        got += more\n"
    "        if n is None and len(got) == 12:\n"
    "            n, got = int(got), b''\n"
    "    return got.decode('utf-8')\n"
    "exec(compile(_program(), '<string>', 'exec'))\n"
)


def command(python: str, program: str) -> list[str]:
    """The command that runs the child's ``program`` with ``python``."""
    if not pollable():
        return [python, "-I", "-S", "-B", "-c", FROM_PIPE]
    return [python, "-I", "-S", "-B", "-c", program]


def hand_over(pipe: Pipe, python: str, deadline: float) -> None:
    """Where the program comes through the pipe: send it, first of all."""
    if pollable():
        return
    data = child_program(CHILD).encode("utf-8")
    try:
        sent = pipe.send(b"%012d" % len(data) + data, deadline)
    except Died:
        sent = False
    if not sent:
        raise SandboxError("cannot hand the child runner to %s" % python)


def parts(path: Path) -> list[Path]:
    """The files of the child's program at ``path``: the modules of a folder laid out
    as ``grader/engine/_child/``, in the order of its ``PARTS``, or the one file of an
    older child (to compare with one)."""
    if path.is_dir():
        return [path / (name + ".py") for name in PARTS]
    return [path]


@functools.lru_cache(maxsize=4)
def child_program(path: Path) -> str:
    """The child's program as source for the ``-c`` argument: its parts joined in their
    order, read once per process."""
    texts = [part.read_text(encoding="utf-8") for part in parts(path)]
    return CHILD_TAG + "\n" + "\n".join(texts)


class _ReadingLoader(importlib.machinery.SourceFileLoader):
    """Reads the compiled file an install wrote beside the source (or compiles the
    source when there is none, or it is stale); never writes one: a batch watches
    the grader's folders for changes."""

    def set_data(self, path: str, data: Any, *, _mode: int = 0o666) -> None:
        pass


def _renamed(code: types.CodeType, name: str) -> types.CodeType:
    """The code with every function in it named as coming from ``name``."""
    consts = tuple(
        _renamed(c, name) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    return code.replace(co_filename=name, co_consts=consts)


def _compiled(path: Path) -> types.CodeType:
    """One part's code, from the install's compiled file when it is there (compiling it
    here would take milliseconds), named ``<string>``."""
    name = path.stem
    try:
        loaded = _ReadingLoader(name, str(path)).get_code(name)
    except (ImportError, OSError, SyntaxError, ValueError):
        loaded = None
    if loaded is None:
        text = path.read_text(encoding="utf-8")
        loaded = compile(text, "<string>", "exec", dont_inherit=True)
    return _renamed(loaded, "<string>")


# The -c argument of a compiled program: the parts' code objects, run in turn in the
# namespace of ``__main__`` as the joined source would be.
UNPACK = "%s\nimport binascii, marshal%s\nfor _part in %s:\n    exec(_part)\n"


@functools.lru_cache(maxsize=4)
def compiled_program(path: Path) -> str:
    """The same program compiled, for a child run by this very interpreter: the ``-c``
    argument then only unpacks it, instead of compiling a thousand lines at every
    start.  Under the name ``<string>``, so that the child's code tells nothing of
    where the grader lives.  The source program when it would not fit in one
    argument."""
    codes = tuple(_compiled(part) for part in parts(path))
    data = marshal.dumps(codes)
    unpack = "marshal.loads(binascii.a2b_base64('%s'))"
    if zlib is not None:
        # Compressed, the argument is less than half as long: the interpreter decodes
        # it from the locale at every start, and it stays far below MAX_ARGUMENT.
        # The fastest level: every grading compresses it before its child can start
        # (level 9 took 16 ms here, level 1 under 2 ms, for a text 9 % shorter).
        data = zlib.compress(data, 1)
        unpack = "marshal.loads(zlib.decompress(binascii.a2b_base64('%s')))"
    packed = binascii.b2a_base64(data, newline=False).decode("ascii")
    program = UNPACK % (CHILD_TAG, "" if zlib is None else ", zlib", unpack % packed)
    return program if len(program) < MAX_ARGUMENT else child_program(path)
