"""The parent side of the child process that runs a student module.

The child (``grader/engine/_child.py``) receives only inputs and sends back only plain
JSON; expected values never exist in it.  See "The child protocol" in
docs/architecture.md.  Nothing the student's code made is ever an object in
this process: answers are decoded to plain values, with ``Foreign`` standing
for subclasses and unknown objects and ``Raised`` for exceptions.
"""

from __future__ import annotations

import array
import binascii
import functools
import itertools
import json
import math
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from grader.engine import safefs, users, wire
from grader.engine.wire import (  # noqa: F401 - re-exported
    Foreign,
    OffProtocol,
    Raised,
    WrittenFile,
    decode,
    unpack,
    unpack_rows,
)
from grader.labs.embed.contract import BY_NAME, NAMES

CHILD = Path(__file__).with_name("_child.py")
# The child's program is handed to the interpreter with ``-c``: no file of the
# installed package is ever run (or named in sys.argv) where the child could write.
CHILD_TAG = "# embed-grader child"
MODULE_FILE = "embed.py"  # the child's private copy of the student's module
MAX_MODULE = 4 << 20  # bytes of a student module

MAX_LINE = 64 << 20  # bytes in one answer line
SMALL_LINE = 64 << 10  # bytes in a line that carries no value (ready, where)
LOAD_LINE = 4 << 20  # bytes in the answer to load (constants are cut far below)
MAX_OUTPUT = 4096  # characters of printed output kept in Loaded.output
CPU_SECONDS = 120  # RLIMIT_CPU backstop for one child
BUDGET = 4  # a function's calls together may take this many per-call time limits
MAX_SECONDS_FACTOR = 10  # default time cap of one submission, in per-call time limits
MAX_RESTARTS = 100  # children started for one submission after the first
SPENT = "not run: the submission's time budget was spent"
FSIZE_MB = 64  # RLIMIT_FSIZE
START_TIMEOUT = 15.0  # seconds for the interpreter to start and say it is ready
WHERE_WAIT = 0.2  # seconds to wait for the child's stack after the time limit
PIDS_MAX = 64  # processes in the child's cgroup, where one can be made
MARKER = "EMBED_GRADER_RUN"  # environment variable that tags every process of one child

STDLIB: tuple[str, ...] = tuple(sorted(set(sys.stdlib_module_names) | {"embed"}))
# process: the grader's own user; user: an unprivileged user of its own (the grader
# runs as root); bwrap: bubblewrap, and an unprivileged user too when run as root.
ISOLATIONS = ("process", "user", "bwrap")
CHOICES = ISOLATIONS + ("auto",)  # auto: the strongest that works here
CONTRACT_NAMES: tuple[str, ...] = tuple(n.name for n in NAMES)


class SandboxError(Exception):
    """A fault of the grader or its installation, never of the student's code."""


@dataclass(frozen=True)
class Loaded:
    """What importing the student module gave."""

    ok: bool
    names: dict[str, Any]
    third_party: tuple[str, ...]
    error: Raised | None
    traceback: str
    output: str
    elapsed: float
    detail: str = ""  # when the import timed out or the child died: a short reason


@dataclass(frozen=True)
class Call:
    """One call of a contract function with plain arguments."""

    id: int
    fn: str
    args: tuple[Any, ...]
    count: tuple[int, ...] = ()
    limit: int = MAX_LINE  # bytes its answer may take (see answer_limit)


@dataclass(frozen=True)
class Outcome:
    """What one call gave."""

    id: int
    fn: str
    kind: str  # "returned" | "raised" | "timeout" | "crashed" | "skipped"
    value: Any = None
    raised: Raised | None = None
    mutated: str | None = None
    called: tuple[str, ...] = ()
    mults: int | None = None
    elapsed: float = 0.0
    detail: str = ""
    why: str = ""  # "budget": the submission's time ran out; "budget_fn": the function's


@dataclass(frozen=True)
class Written:
    """What running the module's report writer gave."""

    # "written" | "raised" | "timeout" | "budget" | "crashed" | "missing" | "not callable"
    # | "not loaded"
    kind: str
    files: dict[str, WrittenFile]
    raised: Raised | None = None
    traceback: str = ""
    called: tuple[str, ...] = ()  # contract functions it entered (its stack, on a timeout)
    elapsed: float = 0.0
    detail: str = ""


# ---------------------------------------------------------------- encoding and decoding

MIN_ANSWER = 256 << 10  # bytes any answer may take
ANSWER_SLACK = 64 << 10  # bytes of an answer line besides its value


def answer_limit(expected: Any) -> int:
    """The bytes an answer may take when ``expected`` is the right one: far more than
    it needs (8 times 32 bytes per number), so that only an answer far larger than
    the right one is cut, by the child before it is sent and by the parent before it
    is decoded."""
    leaves = 0
    stack = [expected]
    while stack and leaves < MAX_LINE:
        x = stack.pop()
        t = type(x)
        if t is list or t is tuple:
            if set(map(type, x)) <= _NUMBERS:
                leaves += len(x)
            else:
                stack.extend(x)
        elif t is dict:
            stack.extend(x)
            stack.extend(x.values())
        elif t is str:
            leaves += 1 + len(x) // 16
        else:
            leaves += 1
    return min(MAX_LINE, MIN_ANSWER + 8 * 32 * leaves)


_NUMBERS = frozenset((float, int, bool))
_FLOATS = {float}
_LISTS = {list}
_BIG_ENDIAN = sys.byteorder == "big"
PACK_FROM = 8  # lists of at least this many floats travel as packed doubles


def pack(floats: Iterable[float]) -> dict[str, Any]:
    """A list of floats as little-endian IEEE doubles in base64: fast and bit-exact."""
    a = array.array("d", floats)
    if _BIG_ENDIAN:
        a.byteswap()
    return {"$": "f64", "v": binascii.b2a_base64(a.tobytes(), newline=False).decode("ascii")}


def pack_rows(rows: list[list[float]], cols: int) -> dict[str, Any]:
    """A table of floats (rows of one width) as one run of packed doubles."""
    packed = pack(itertools.chain.from_iterable(rows))
    packed["$"] = "f64rows"
    packed["cols"] = cols
    return packed


def _finite(values: list[Any]) -> bool:
    try:
        return all(map(math.isfinite, values))
    except (OverflowError, TypeError):
        return False


def encode(value: Any) -> Any:
    """Plain Python data to the protocol's JSON data (the input is left as it is)."""
    t = type(value)
    if t is float:
        if math.isfinite(value):
            return value
        return {"$": "float", "v": "nan" if value != value else ("inf" if value > 0 else "-inf")}
    if t is int or t is str or t is bool or value is None:
        return value
    if t is list:
        kinds = set(map(type, value))
        if len(value) >= PACK_FROM and kinds == _FLOATS:
            return pack(value)
        if kinds == _LISTS:
            widths = set(map(len, value))
            cols = widths.pop() if len(widths) == 1 else 0
            if (
                cols
                and cols * len(value) >= PACK_FROM
                and set(map(type, itertools.chain.from_iterable(value))) == _FLOATS
            ):
                return pack_rows(value, cols)
        if kinds <= _NUMBERS and _finite(value):
            return value
        return [encode(v) for v in value]
    if t is tuple:
        return {"$": "tuple", "v": [encode(v) for v in value]}
    if t is dict:
        return {"$": "dict", "v": [[encode(k), encode(v)] for k, v in value.items()]}
    raise ValueError("cannot send a %s to the child" % t.__name__)


_ENCODED: OrderedDict[int, tuple[Any, str]] = OrderedDict()
_ENCODED_MAX = 4096


def _encoded(value: Any) -> str:
    """The JSON text of an argument, remembered for the very same object.

    A class graded with one seed sends the same inputs to every child; encoding
    them once saves most of the parent's work per submission.  The entry keeps the
    object alive, so its id cannot be reused while it is remembered.
    """
    if type(value) not in (list, tuple, dict):
        return _dumps(encode(value))
    hit = _ENCODED.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    text = _dumps(encode(value))
    _ENCODED[id(value)] = (value, text)
    while len(_ENCODED) > _ENCODED_MAX:
        try:
            _ENCODED.popitem(last=False)
        except KeyError:
            break
    return text


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), allow_nan=False)


# ---------------------------------------------------------------- the pipe


class _Died(Exception):
    """The child closed its end of the protocol."""


class _TooLarge(Exception):
    """The child sent a line longer than MAX_LINE."""


class _Pipe:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.rfd = proc.stdout.fileno()
        self.wfd = proc.stdin.fileno()
        os.set_blocking(self.rfd, False)
        os.set_blocking(self.wfd, False)
        self.buf = bytearray()
        self.scan = 0  # self.buf[:scan] holds no newline
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.rfd, selectors.EVENT_READ)

    def close(self) -> None:
        self.selector.close()

    def _read(self) -> None:
        try:
            chunk = os.read(self.rfd, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            raise _Died()
        self.buf += chunk

    def send(self, data: bytes, deadline: float) -> bool:
        """Write data; False when the deadline passed first."""
        view = memoryview(data)
        self.selector.register(self.wfd, selectors.EVENT_WRITE)
        try:
            while view:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                for key, _ in self.selector.select(left):
                    if key.fd == self.wfd:
                        try:
                            view = view[os.write(self.wfd, view) :]
                        except BlockingIOError:
                            pass
                        except (BrokenPipeError, ConnectionResetError):
                            raise _Died() from None
                    else:
                        self._read()
            return True
        finally:
            self.selector.unregister(self.wfd)

    def line(self, deadline: float, limit: int = MAX_LINE) -> bytes | None:
        """The next line without its newline; None when the deadline passed first.

        A line longer than ``limit`` bytes raises _TooLarge before it is all read.
        """
        while True:
            at = self.buf.find(b"\n", self.scan)
            if at > limit:
                raise _TooLarge()
            if at >= 0:
                out = bytes(self.buf[:at])
                del self.buf[: at + 1]
                self.scan = 0
                return out
            self.scan = len(self.buf)
            if self.scan > limit:
                raise _TooLarge()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if self.selector.select(left):
                self._read()


# ---------------------------------------------------------------- processes


def _proc_stat(pid: str) -> tuple[int, int, int] | None:
    """(ppid, process group, session) of a process from /proc, None if it is gone."""
    try:
        with open("/proc/%s/stat" % pid, "rb") as f:
            data = f.read()
        fields = data[data.rindex(b")") + 2 :].split()
        return int(fields[1]), int(fields[2]), int(fields[3])
    except (OSError, ValueError, IndexError):
        return None


def _has_marker(pid: str, tag: bytes) -> bool:
    try:
        with open("/proc/%s/environ" % pid, "rb") as f:
            return tag in f.read()
    except OSError:
        return False


def _sweep(leader: int, tag: bytes, rounds: int = 20) -> int:
    """SIGKILL every process the child started; how many were found.

    A process belongs to the child when it is in the child's process group or
    session, descends from the child, or carries the child's marker in its
    environment.  What escapes all four (a double fork after setsid() with a
    cleared environment) is found only by the cgroup or bubblewrap's pid namespace.
    """
    if not os.path.isdir("/proc/self"):
        try:
            os.killpg(leader, signal.SIGKILL)
        except OSError:
            pass
        return 0
    me = os.getpid()
    found: set[int] = set()
    for _ in range(rounds):
        family = {leader}
        victims = []
        stats = {}
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == me:
                continue
            st = _proc_stat(name)
            if st is not None:
                stats[int(name)] = st
        grew = True
        while grew:
            grew = False
            for pid, (ppid, pgrp, sid) in stats.items():
                if pid not in family and (ppid in family or pgrp == leader or sid == leader):
                    family.add(pid)
                    grew = True
        for pid in stats:
            if pid in family or _has_marker(str(pid), tag):
                victims.append(pid)
        if not victims:
            break
        for pid in victims:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        found.update(victims)
        time.sleep(0.002)
    return len(found)


class _Cgroup:
    """A pids cgroup for one child, where the grader may make one (Linux, as root).

    It bounds the number of processes (a fork bomb) and lists every process of the
    child, whatever session or environment it has, so that all can be killed.
    """

    def __init__(self, path: str) -> None:
        self.path = path

    @staticmethod
    def roots() -> list[str]:
        """cgroup v1's pids hierarchy, or cgroup v2's root with the pids controller."""
        found = []
        if os.path.isfile("/sys/fs/cgroup/pids/cgroup.procs"):
            found.append("/sys/fs/cgroup/pids")
        try:
            with open("/sys/fs/cgroup/cgroup.subtree_control") as f:
                if "pids" in f.read().split():
                    found.append("/sys/fs/cgroup")
        except OSError:
            pass
        return found

    @classmethod
    def make(cls, pids_max: int) -> _Cgroup | None:
        if not _cgroups_usable():
            return None
        for root in cls.roots():
            path = os.path.join(root, "embed-grader-%d-%s" % (os.getpid(), secrets.token_hex(4)))
            try:
                os.mkdir(path)
            except OSError:
                continue
            group = cls(path)
            if group.write("pids.max", str(pids_max)):
                return group
            group.remove()
        _NO_CGROUP.append(True)
        _cgroups_usable.cache_clear()
        return None

    def write(self, name: str, value: str) -> bool:
        try:
            with open(os.path.join(self.path, name), "w") as f:
                f.write(value)
            return True
        except OSError:
            return False

    def add(self, pid: int) -> bool:
        return self.write("cgroup.procs", str(pid))

    def pids(self) -> list[int]:
        try:
            with open(os.path.join(self.path, "cgroup.procs")) as f:
                return [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        self.write("cgroup.kill", "1")
        for _ in range(50):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.002)

    def remove(self) -> None:
        for _ in range(50):
            try:
                os.rmdir(self.path)
                return
            except FileNotFoundError:
                return
            except OSError:
                self.kill()
                time.sleep(0.005)


_NO_CGROUP: list[bool] = []


@functools.lru_cache(maxsize=1)
def _cgroups_usable() -> bool:
    return sys.platform.startswith("linux") and os.geteuid() == 0 and not _NO_CGROUP


# ---------------------------------------------------------------- isolation


def _drops_user() -> bool:
    """Whether children run as an unprivileged user of their own (as root only)."""
    return users.problem() == ""


def _as_user(lease: users.Lease | None) -> dict[str, Any]:
    """Popen arguments that start a process as the leased user, no other groups."""
    if lease is None:
        return {}
    return {"user": lease.uid, "group": lease.gid, "extra_groups": []}


@functools.lru_cache(maxsize=8)
def user_problem(python: str) -> str:
    """Why children cannot run ``python`` as an unprivileged user ("" when they can)."""
    problem = users.problem()
    if problem:
        return problem
    lease = users.lease()
    try:
        done = subprocess.run(
            [os.path.realpath(python), "-I", "-S", "-B", "-c", "pass"],
            capture_output=True,
            timeout=30,
            cwd="/",
            **_as_user(lease),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return "%s cannot be started as an unprivileged user: %s" % (python, exc)
    finally:
        lease.release()
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return (
            "%s cannot run as an unprivileged user (%s); install it where every user can read it"
            % (python, why[-1] if why else "exit status %d" % done.returncode)
        )
    return ""


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


# bubblewrap run by root makes no user namespace: the child starts as root in its own
# mount, pid and network namespaces with no capability but these two, and its first
# act is to become the leased user (``UID_VARIABLE``), which drops them too.
_AS_ROOT = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
_AS_ROOT += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
_AS_ROOT += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
UID_VARIABLE = "EMBED_GRADER_UID"
HOME_AS_ROOT = "/tmp/child"  # where the child's folder is inside bubblewrap run by root


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str:
    """Why bubblewrap cannot run here ("" when it can): tried once per process."""
    exe = bwrap_path()
    if exe is None:
        return "bwrap is not installed (Debian: apt-get install bubblewrap)"
    cmd = [exe] + (_AS_ROOT if _drops_user() else ["--unshare-pid", "--unshare-net"])
    cmd += [
        "--ro-bind",
        "/",
        "/",
        "--tmpfs",
        "/tmp",
        "--dir",
        "/tmp/a",
        "--chmod",
        "0755",
        "/tmp/a",
    ]
    try:
        done = subprocess.run(cmd + ["true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return "bwrap does not run: %s" % exc
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bwrap cannot make namespaces here: %s" % (why[-1] if why else done.returncode)
    return ""


def strongest(python: str | None = None) -> str:
    """The strongest isolation that works here: bwrap, else an unprivileged user
    (as root), else the grader's own user."""
    if not bwrap_problem():
        return "bwrap"
    if _drops_user() and not user_problem(python or sys.executable):
        return "user"
    return "process"


def isolation_problem(isolation: str, python: str | None = None) -> str:
    """What stops ``isolation`` from working here ("" when nothing does)."""
    if isolation == "bwrap":
        return bwrap_problem()
    if isolation == "user":
        return user_problem(python or sys.executable)
    return ""


def weaker_note(isolation: str) -> str:
    """Why a class graded with ``isolation`` is exposed ("" when it is not)."""
    if isolation != "process":
        return ""
    if _drops_user():
        return "the grader runs as root and its children do too"
    return "the children run as the grader's own user"


_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")


def bwrap_command(python: str, tmp: str, uid: int | None = None) -> list[str]:
    """bubblewrap around the child: its own pid and network namespaces, a read-only
    view of the system directories and the Python installation, and nothing
    writable but the child's temporary directory (which holds its copy of the
    student's module).  With ``uid`` (the grader runs as root) the child becomes
    that user before it reads anything."""
    exe = bwrap_path()
    if exe is None:
        raise SandboxError(bwrap_problem())
    real = os.path.realpath(python)
    cmd = [exe] + (_AS_ROOT if uid is not None else ["--unshare-all"])
    cmd += ["--die-with-parent", "--new-session", "--clearenv", "--tmpfs", "/"]
    bound: list[str] = []
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            cmd += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
            bound.append(d)
    prefix = os.path.dirname(os.path.dirname(real))
    if not any(prefix == b or prefix.startswith(b + "/") for b in bound) and prefix != "/":
        cmd += ["--ro-bind", prefix, prefix]
        if uid is not None:
            # The folders above the installation are copies in the sandbox's own
            # root, as closed as the originals (/root, say): the user must pass them.
            above = os.path.dirname(prefix)
            while above != "/":
                cmd += ["--chmod", "0755", above]
                above = os.path.dirname(above)
    cmd += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    if uid is not None:
        # Only the user may enter its folder, so it is bound where every folder above
        # it can be searched; the child goes there once it is that user.
        cmd += ["--bind", tmp, HOME_AS_ROOT, "--chdir", "/", "--setenv", UID_VARIABLE, str(uid)]
    else:
        cmd += ["--bind", tmp, tmp, "--chdir", tmp]
    return cmd + ["--", real, "-I", "-S", "-B", "-c"]


@functools.lru_cache(maxsize=4)
def _child_program(path: Path) -> str:
    """The child's source as the ``-c`` argument, read once per process."""
    return CHILD_TAG + "\n" + path.read_text(encoding="utf-8")


# ---------------------------------------------------------------- the sandbox


def _read_module(path: str) -> bytes:
    """The student's module as given (a link the user named is followed)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_MODULE + 1)
    except OSError as exc:
        raise SandboxError("cannot read %s: %s" % (path, exc.strerror or exc)) from exc
    if len(data) > MAX_MODULE:
        raise SandboxError("%s is larger than %d bytes" % (path, MAX_MODULE))
    return data


def _capture_file() -> int:
    """A read-write file without a name for the child's stdout and stderr."""
    make = getattr(os, "memfd_create", None)
    if make is not None:
        try:
            return int(make("embed-grader-output", os.MFD_CLOEXEC))
        except OSError:
            pass
    with tempfile.TemporaryFile() as f:  # unlinked at once (O_TMPFILE where it exists)
        return os.dup(f.fileno())


def _status(code: int | None) -> str:
    if code is None:
        return "the child process stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "signal %d" % -code
        return "the child process was killed by %s" % name
    return "the child process exited with status %d" % code


class Sandbox:
    """Runs one student module in a child process, call by call.

    Use as a context manager: leaving it kills the child and removes its
    temporary directory.  ``calls``, ``child_seconds`` and ``restarts`` count
    what ``run`` did.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        python: str | None = None,
        timeout: float = 3.0,
        memory_mb: int = 1024,
        isolation: str = "process",
        names: Sequence[str] = CONTRACT_NAMES,
        source: bytes | None = None,
        max_seconds: float | None = None,
    ) -> None:
        if isolation not in CHOICES:
            raise ValueError("isolation must be one of %s" % ", ".join(CHOICES))
        self.path = os.path.abspath(os.fspath(path))
        self.python = python or sys.executable
        if isolation == "auto":
            isolation = strongest(self.python)
        self.timeout = float(timeout)
        # Everything for this module (starts, imports, calls, restarts) ends by then.
        self.max_seconds = float(max_seconds or MAX_SECONDS_FACTOR * self.timeout)
        self.memory_mb = int(memory_mb)
        self.isolation = isolation
        self.names = tuple(names)
        self.calls = 0
        self.child_seconds = 0.0
        self.restarts = 0
        self.loaded: Loaded | None = None
        self.python_version = ""
        self._closed = False
        self._spent: dict[str, float] = {}  # function -> seconds its calls took so far
        self._dead: dict[str, str] = {}  # function -> why its later calls are skipped
        self._because: dict[str, tuple[str, ...]] = {}  # dead function -> what it was running
        self._out_of_time: set[str] = set()  # dead because its calls and restarts took too long
        self._proc: subprocess.Popen[bytes] | None = None
        self._pipe: _Pipe | None = None
        self._tmp: str | None = None
        self._capture: int | None = None  # the child's stdout and stderr
        self._began: float | None = None  # when the first child was started
        self._marker = ""
        self._cgroup: _Cgroup | None = None
        self._stale = ""  # the report writer that ran in this child: the next run restarts
        self._lease: users.Lease | None = None
        problem = isolation_problem(self.isolation, self.python)
        if problem:  # fails early on an isolation that is not there
            raise SandboxError(problem)
        try:
            self._program = _child_program(CHILD)
        except OSError as exc:
            raise SandboxError("the child runner %s is missing" % CHILD) from exc
        # The module is read once, here: every child imports its own copy of these
        # bytes, so nothing a child does to the file reaches a later child.
        self.source = source if source is not None else _read_module(self.path)

    # -- process handling

    def _command(self, tmp: str) -> list[str]:
        if self.isolation == "bwrap":
            uid = self._lease.uid if self._lease is not None else None
            cmd = bwrap_command(self.python, tmp, uid)
            i = cmd.index("--")
            env = ["--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8"]
            home = self.home()
            env += ["--setenv", "HOME", home, "--setenv", MARKER, self._marker]
            return cmd[:i] + env + cmd[i:] + [self._program]
        python = os.path.realpath(self.python) if self._lease is not None else self.python
        return [python, "-I", "-S", "-B", "-c", self._program]

    def home(self) -> str:
        """The child's working folder as the child sees it."""
        if self.isolation == "bwrap" and self._lease is not None:
            return HOME_AS_ROOT
        return self._tmp or ""

    def _start(self) -> None:
        if self._closed:
            # Closed from another thread (the grader is stopping): start nothing new.
            raise SandboxError("the sandbox is closed")
        self._stop()
        if self._began is None:
            self._began = time.monotonic()
        self._stale = ""
        self._tmp = tempfile.mkdtemp(prefix="embed-grader-")
        try:
            self._launch()
        except BaseException:
            # Whatever stopped the start (no user to lease, no cgroup, a signal): the
            # folder just made goes now, not when someone remembers to close.
            self._stop()
            raise

    def _launch(self) -> None:
        assert self._tmp is not None
        self._marker = secrets.token_hex(8)
        if self.isolation != "process" and _drops_user():
            self._lease = users.lease()
        # The child's own copy of the module, in the folder only it may write.
        module = os.path.join(self._tmp, MODULE_FILE)
        with open(module, "xb") as f:
            f.write(self.source)
        os.chmod(module, 0o444)
        if self._lease is not None:
            os.chown(self._tmp, self._lease.uid, self._lease.gid)
        # Nothing of the grader's environment: only these (EMBED_GRADER_RUN tags the
        # child's processes so that all of them can be found and killed).
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": self._tmp}
        env[MARKER] = self._marker
        self._cgroup = _Cgroup.make(PIDS_MAX)
        # bubblewrap run by root starts the child as root: it drops to the user itself.
        as_user = _as_user(self._lease) if self.isolation != "bwrap" else {}
        # What the child prints goes to a file without a name that the parent opened
        # itself: the child cannot swap it for a link or a pipe.
        self._capture = _capture_file()
        try:
            self._proc = subprocess.Popen(
                self._command(self._tmp),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._capture,
                cwd=self._tmp,
                env=env,
                close_fds=True,
                start_new_session=True,
                bufsize=0,
                **as_user,
            )
        except OSError as exc:
            raise SandboxError("cannot start %s: %s" % (self.python, exc)) from exc
        if self._cgroup is not None and not self._cgroup.add(self._proc.pid):
            self._cgroup.remove()
            self._cgroup = None
        self._pipe = _Pipe(self._proc)
        try:
            line = self._pipe.line(time.monotonic() + START_TIMEOUT, SMALL_LINE)
            if line is None:
                raise OffProtocol("no answer")
            self.python_version = wire.ready(decode(line))
        except (_Died, _TooLarge, OffProtocol):
            why = self._startup_error()
            raise SandboxError(
                "the child runner did not start with %s: %s" % (self.python, why)
            ) from None

    def _captured(self, limit: int) -> safefs.Read:
        """What the child printed so far, read from the parent's own descriptor."""
        if self._capture is None:
            return safefs.Read(b"", 0)
        try:
            return safefs.read_fd(self._capture, limit)
        except OSError:
            return safefs.Read(b"", 0)

    def _startup_error(self) -> str:
        text = self._captured(2000).data.decode("utf-8", "replace").strip()
        return text.splitlines()[-1] if text else "no answer"

    def _kill(self) -> int | None:
        """Stop the child and everything it started; its exit status."""
        proc = self._proc
        if proc is None:
            return None
        if self._cgroup is not None:
            self._cgroup.kill()
        # Before the child is reaped: its descendants still name it as their parent.
        _sweep(proc.pid, ("%s=%s" % (MARKER, self._marker)).encode())
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(5.0)
        except subprocess.TimeoutExpired:
            pass
        return proc.returncode

    def _stop(self) -> None:
        if self._pipe is not None:
            self._pipe.close()
            self._pipe = None
        if self._proc is not None:
            self._kill()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
            self._proc = None
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None
        if self._lease is not None:
            # Whatever still runs as the child's user dies before the id is reused.
            self._lease.release()
            self._lease = None
        if self._capture is not None:
            os.close(self._capture)
            self._capture = None
        if self._tmp is not None:
            safefs.remove_tree(self._tmp)
            self._tmp = None

    def _died(self) -> str:
        """Kill the child after it failed; a reason for people."""
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(0.2)
            except subprocess.TimeoutExpired:
                code = None
        self._kill()
        return _status(code)

    def abort(self) -> None:
        """Kill the child from another thread, so that a call waiting on it ends now.

        Descriptors stay open (the thread running the calls may be using them);
        ``close`` releases them afterwards.
        """
        self._closed = True
        if self._proc is not None:
            self._kill()

    def close(self) -> None:
        self._closed = True
        if self._pipe is not None and self._proc is not None and self._proc.poll() is None:
            try:
                self._pipe.send(b'{"op":"bye"}\n', time.monotonic() + 0.2)
                self._proc.wait(0.2)
            except (_Died, subprocess.TimeoutExpired):
                pass
        self._stop()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:
            pass

    # -- loading

    def _functions(self) -> list[str]:
        return [n for n in self.names if not (n in BY_NAME and BY_NAME[n].is_constant)]

    def _constants(self) -> list[str]:
        return [n for n in self.names if n in BY_NAME and BY_NAME[n].is_constant]

    def _load_message(self) -> bytes:
        functions = self._functions()
        constants = self._constants()
        msg = {
            "op": "load",
            "path": MODULE_FILE,  # the child's copy, in its working directory
            "name": self.path,  # the name its code and tracebacks carry
            "memory_mb": self.memory_mb,
            "cpu_seconds": CPU_SECONDS,
            "fsize_mb": FSIZE_MB,
            "max_line": MAX_LINE,
            "stdlib": list(STDLIB),
            "functions": functions,
            "constants": constants,
            "dead": sorted(self._dead),
        }
        return (_dumps(msg) + "\n").encode()

    def _output(self) -> str:
        read = self._captured(MAX_OUTPUT * 4 + 1)
        text = read.data.decode("utf-8", "replace")
        if len(text) > MAX_OUTPUT or read.cut:
            text = text[:MAX_OUTPUT] + "\n... (%d bytes in all)" % read.size
        return text

    def _load(self) -> Loaded:
        self._start()
        assert self._pipe is not None
        missing = {n: "missing" for n in self.names}
        start = time.monotonic()
        deadline = min(start + self.timeout, self._cap())
        try:
            line = None
            if self._pipe.send(self._load_message(), deadline):
                line = self._pipe.line(deadline, LOAD_LINE)
            if line is None:
                output = self._output()
                self._kill()
                return Loaded(
                    False,
                    missing,
                    (),
                    None,
                    "",
                    output,
                    time.monotonic() - start,
                    "importing the module did not finish within %g s" % self.timeout,
                )
            got = wire.loaded(decode(line), self._functions(), self._constants())
        except (_Died, _TooLarge, OffProtocol) as exc:
            output = self._output()
            if isinstance(exc, _Died):
                why = "%s while importing the module" % self._died()
            else:
                self._kill()
                why = "the answer to the import did not follow the protocol"
            return Loaded(False, missing, (), None, "", output, time.monotonic() - start, why)
        names = dict(missing)
        names.update(got.names)
        return Loaded(
            got.ok,
            names,
            got.third_party,
            got.error,
            got.traceback,
            self._output(),
            got.elapsed,
        )

    def load(self) -> Loaded:
        """Start a child and import the module in it."""
        self.loaded = self._load()
        return self.loaded

    # -- running

    def run(self, calls: Sequence[Call]) -> list[Outcome]:
        """Run calls in order; one Outcome per call."""
        if self.loaded is None:
            self.load()
        loaded = self.loaded
        assert loaded is not None
        results: list[Outcome | None] = [None] * len(calls)
        for i, c in enumerate(calls):
            why = ""
            if not loaded.ok:
                why = "not run: the module did not load"
            elif c.fn in self._dead:
                results[i] = self._skipped(c)
                continue
            elif loaded.names.get(c.fn) != "function":
                why = "not run: %s is %s" % (c.fn, loaded.names.get(c.fn, "not a contract name"))
            if why:
                results[i] = Outcome(
                    c.id, c.fn, "skipped", called=self._because.get(c.fn, ()), detail=why
                )
        todo = [i for i, r in enumerate(results) if r is None]
        if todo and self._over():
            self._spend(results, todo, calls)
            todo = []
        if todo:
            if self._proc is None or self._proc.poll() is not None or self._stale:
                # A report writer ran in this child: its restart is charged to it.
                self._restart(results, todo, calls, charge=self._stale)
                todo = [i for i in todo if results[i] is None]
        if todo:
            self._batch(calls, todo, results)
        out = [r for r in results if r is not None]
        assert len(out) == len(calls)
        return out

    def _cap(self) -> float:
        """When everything for this module must be over (monotonic clock)."""
        began = self._began if self._began is not None else time.monotonic()
        return began + self.max_seconds

    def _over(self) -> bool:
        return time.monotonic() >= self._cap() or self.restarts >= MAX_RESTARTS

    def _skipped(self, c: Call) -> Outcome:
        """A call of a function that is not run any more."""
        return Outcome(
            c.id,
            c.fn,
            "skipped",
            called=self._because.get(c.fn, ()),
            detail=self._dead[c.fn],
            why="budget_fn" if c.fn in self._out_of_time else "",
        )

    def _spend(self, results: list[Outcome | None], rest: list[int], calls: Sequence[Call]) -> None:
        """The submission's time is spent: the rest is not run, attributed to the function
        that took the most of it (its calls and the restarts they caused)."""
        top = max(self._spent, key=lambda fn: self._spent[fn]) if self._spent else ""
        for j in rest:
            if results[j] is None:
                c = calls[j]
                results[j] = Outcome(
                    c.id,
                    c.fn,
                    "skipped",
                    called=(top,) if top and top != c.fn else (),
                    detail=SPENT,
                    why="budget",
                )

    def _charge(self, fn: str, seconds: float) -> None:
        """Count time against fn's budget; past it, fn's later calls are not run."""
        self._spent[fn] = self._spent.get(fn, 0.0) + seconds
        if self._spent[fn] >= BUDGET * self.timeout and fn not in self._dead:
            self._dead[fn] = "not run: %s used up its time budget" % fn
            self._out_of_time.add(fn)

    def write_report(
        self,
        files: Sequence[str],
        *,
        fn: str = "write_report",
        timeout: float | None = None,
        max_bytes: int = 1 << 20,
    ) -> Written:
        """Call ``fn(folder)`` in the child with a fresh, empty folder; the files it wrote.

        The child reads each of ``files`` itself (never through a link, at most
        ``max_bytes + 1`` bytes) and sends the bytes in its answer; nothing is read
        from the folder here.  ``timeout`` (default: the per-call limit) bounds the
        whole call, and the submission's time cap bounds it too: its time (and a
        restart it needs) is charged to ``fn``.  An answer off the protocol is the
        writer's crash.  The writer may have left anything behind, so a later ``run``
        starts a new child.
        """
        limit = self.timeout if timeout is None else float(timeout)
        if self.loaded is None:
            self.load()
        if self.loaded is None or not self.loaded.ok:
            return Written("not loaded", {})
        if self._over():
            return Written("budget", {}, detail=SPENT)
        if self._proc is None or self._proc.poll() is not None:
            self.restarts += 1
            began = time.monotonic()
            again = self._load()
            self._charge(fn, time.monotonic() - began)
            if not again.ok:
                self._stop()
                if self._over():
                    return Written("budget", {}, detail=SPENT)
                return Written("crashed", {}, detail="the module could not be loaded again")
        pipe = self._pipe
        assert pipe is not None
        folder = "report-" + secrets.token_hex(6)  # made by the child in its own folder
        message = {
            "op": "report",
            "fn": fn,
            "dir": folder,
            "files": list(files),
            "max_bytes": max_bytes,
        }
        size = MIN_ANSWER + ANSWER_SLACK + len(files) * (4 * ((max_bytes + 3) // 3) + 256)
        size = min(size, MAX_LINE)
        start = time.monotonic()
        own = start + limit
        deadline = min(own, self._cap())
        self._stale = fn
        try:
            try:
                line = None
                if pipe.send((_dumps(message) + "\n").encode(), deadline):
                    while True:
                        line = pipe.line(deadline, size)
                        if line is None:
                            break
                        data = decode(line)
                        if type(data) is dict and data.get("op") == "reported":
                            break
                        if not (type(data) is dict and ("op" in data or "id" in data)):
                            raise OffProtocol("not the answer to report")
                        # else a copy of an earlier line, written by the student's code
                if line is None and deadline < own:
                    self._kill()  # the submission's time ran out, not the writer's
                    return Written("budget", {}, elapsed=time.monotonic() - start, detail=SPENT)
                if line is None:
                    _, stack = self._where(pipe, -1, size)
                    self._kill()
                    detail = "%s did not finish within %g s" % (fn, limit)
                    called = tuple(n for n in dict.fromkeys(stack) if n in self.names)
                    return Written("timeout", {}, called=called, detail=detail)
                got = wire.reported(data, files, max_bytes, self.names)
            except _Died:
                return Written("crashed", {}, detail="%s during %s" % (self._died(), fn))
            except _TooLarge:
                self._kill()
                return Written("crashed", {}, detail="answer too large")
            except OffProtocol:
                self._kill()
                return Written("crashed", {}, detail="the answer did not follow the protocol")
        finally:
            self._charge(fn, time.monotonic() - start)
        if got.absent:
            return Written(got.absent, {})
        common: dict[str, Any] = {"called": got.called, "elapsed": got.elapsed}
        if not got.ok:
            return Written("raised", {}, raised=got.raised, traceback=got.traceback, **common)
        return Written("written", got.files, **common)

    def _pieces(
        self, calls: Sequence[Call], todo: list[int]
    ) -> tuple[dict[str, str], dict[int, tuple[str, list[str]]]]:
        """The JSON text of shared values and of each call (with the values it uses)."""
        seen: dict[int, int] = {}
        for i in todo:
            for a in calls[i].args:
                if type(a) in (list, tuple, dict) and a:
                    seen[id(a)] = seen.get(id(a), 0) + 1
        refs: dict[int, str] = {}
        values: dict[str, str] = {}
        texts: dict[int, tuple[str, list[str]]] = {}
        for i in todo:
            c = calls[i]
            args = []
            used = []
            for a in c.args:
                if seen.get(id(a), 0) > 1:
                    ref = refs.get(id(a))
                    if ref is None:
                        ref = refs[id(a)] = "v%d" % len(refs)
                        values[ref] = _encoded(a)
                    args.append('{"$ref":"%s"}' % ref)
                    used.append(ref)
                else:
                    args.append(_encoded(a))
            text = '{"id":%d,"fn":%s,"args":[%s],"count":%s,"max":%d}' % (
                i,
                _dumps(c.fn),
                ",".join(args),
                _dumps(list(c.count)),
                c.limit,
            )
            texts[i] = (text, used)
        return values, texts

    def _batch(self, calls: Sequence[Call], todo: list[int], results: list[Outcome | None]) -> None:
        values, texts = self._pieces(calls, todo)
        while todo:
            refs = sorted({r for i in todo for r in texts[i][1]}, key=lambda r: int(r[1:]))
            message = '{"op":"run","values":{%s},"calls":[%s]}\n' % (
                ",".join('"%s":%s' % (r, values[r]) for r in refs),
                ",".join(texts[i][0] for i in todo),
            )
            todo = self._exchange(message.encode(), calls, todo, results)

    def _exchange(
        self, message: bytes, calls: Sequence[Call], todo: list[int], results: list[Outcome | None]
    ) -> list[int]:
        """Send one run message and read its answers; the calls still to run after a failure."""
        pipe = self._pipe
        assert pipe is not None
        since = time.monotonic()
        cap = self._cap()
        own = since + self._limit(calls[todo[0]].fn) if todo else since + self.timeout
        deadline = min(own, cap)
        failed: Outcome | None = None
        at = 0
        done: set[int] = set()
        try:
            sent = pipe.send(message, deadline)
            while at < len(todo):
                i = todo[at]
                c = calls[i]
                limit = min(c.limit, MAX_LINE) + ANSWER_SLACK
                line = pipe.line(deadline, limit) if sent else None
                if line is None and deadline < own:
                    # The submission's time ran out, not this call's.
                    self._kill()
                    self._spend(results, todo[at:], calls)
                    return []
                stack: list[str] = []
                if line is None:
                    line, stack = self._where(pipe, i, limit)
                if line is None:
                    inner = stack[-1] if stack else c.fn
                    failed = Outcome(
                        c.id,
                        c.fn,
                        "timeout",
                        called=tuple(n for n in dict.fromkeys(stack) if n != c.fn),
                        elapsed=time.monotonic() - since,
                        detail="no answer within %g s" % self.timeout
                        + (" (while running %s)" % inner if inner != c.fn else ""),
                    )
                    if inner != c.fn:
                        self._dead[inner] = "not run: an earlier call of %s timed out" % inner
                    self._kill()
                    break
                try:
                    data = decode(line)
                    if type(data) is dict and (
                        "op" in data or (type(data.get("id")) is int and data["id"] in done)
                    ):
                        continue  # a copy of an earlier line, written by the student's code
                    if type(data) is not dict or type(data.get("id")) is not int or data["id"] != i:
                        raise OffProtocol("not the answer to the call")
                    got = wire.answer(data, self.names)
                except OffProtocol:
                    failed = Outcome(
                        c.id,
                        c.fn,
                        "crashed",
                        elapsed=time.monotonic() - since,
                        detail="the answer did not follow the protocol",
                    )
                    self._kill()
                    break
                results[i] = self._outcome(c, got)
                done.add(i)
                self.calls += 1
                self.child_seconds += results[i].elapsed  # type: ignore[union-attr]
                now = time.monotonic()
                self._spent[c.fn] = self._spent.get(c.fn, 0.0) + (now - since)
                at += 1
                since = now
                if at < len(todo):
                    own = since + self._limit(calls[todo[at]].fn)
                    deadline = min(own, cap)
                if got.tainted is not None:
                    # The call left something behind (a thread, a timer, a patched
                    # module) that would reach later calls: they get a fresh child,
                    # whose start and import count against this function's time.
                    self._kill()
                    rest = todo[at:]
                    if rest:
                        self._restart(results, rest, calls, charge=c.fn)
                    return [j for j in rest if results[j] is None]
        except _Died:
            c = calls[todo[at]]
            failed = Outcome(
                c.id,
                c.fn,
                "crashed",
                elapsed=time.monotonic() - since,
                detail="%s during the call" % self._died(),
            )
        except _TooLarge:
            c = calls[todo[at]]
            self._kill()
            failed = Outcome(
                c.id, c.fn, "crashed", elapsed=time.monotonic() - since, detail="answer too large"
            )
        if failed is None:
            return []
        i = todo[at]
        results[i] = failed
        self.calls += 1
        self.child_seconds += failed.elapsed
        what = "timed out" if failed.kind == "timeout" else "crashed the child process"
        self._dead[failed.fn] = "not run: an earlier call of %s %s" % (failed.fn, what)
        self._because[failed.fn] = failed.called
        rest = todo[at + 1 :]
        for j in rest:
            if calls[j].fn in self._dead:
                results[j] = self._skipped(calls[j])
        rest = [j for j in rest if results[j] is None]
        if rest:
            self._restart(results, rest, calls, charge=failed.fn)
        return [j for j in rest if results[j] is None]

    def _limit(self, fn: str) -> float:
        """The time the next call of fn may take: the per-call limit, or less when fn
        has nearly used up its budget (BUDGET per-call limits over the whole run), so
        that a function slow on every call cannot stretch a run without bound."""
        left = BUDGET * self.timeout - self._spent.get(fn, 0.0)
        return max(min(self.timeout, left), 0.05)

    def _where(self, pipe: _Pipe, i: int, limit: int) -> tuple[bytes | None, list[str]]:
        """After the time limit: ask the child which contract functions it is in.

        Returns (the call's answer if it came after all, the stack of contract
        functions, outermost first).  A child stuck in C code does not answer.
        """
        for pid in self._child_pids():
            try:
                os.kill(pid, signal.SIGUSR1)
            except OSError:
                pass
        deadline = time.monotonic() + WHERE_WAIT
        try:
            while True:
                line = pipe.line(deadline, limit)
                if line is None:
                    return None, []
                try:
                    data = decode(line)
                    if type(data) is dict and type(data.get("id")) is int and data["id"] == i:
                        return line, []
                    if type(data) is dict and data.get("op") == "where":
                        return None, wire.where(data, self.names)
                except OffProtocol:
                    return None, []
        except (_Died, _TooLarge):
            return None, []

    def _child_pids(self) -> list[int]:
        proc = self._proc
        if proc is None:
            return []
        if self.isolation != "bwrap":
            return [proc.pid]
        tag = ("%s=%s" % (MARKER, self._marker)).encode()
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit() and _has_marker(name, tag):
                try:
                    with open("/proc/%s/cmdline" % name, "rb") as f:
                        if CHILD_TAG.encode() in f.read():
                            found.append(int(name))
                except OSError:
                    pass
        return found

    def _restart(
        self,
        results: list[Outcome | None],
        rest: list[int],
        calls: Sequence[Call],
        charge: str = "",
    ) -> None:
        """A new child with the module loaded again, its time charged to the function
        that made it necessary; on failure the rest is crashed.  Past the submission's
        time or MAX_RESTARTS, the rest is not run."""
        if self._over():
            self._stop()
            self._spend(results, rest, calls)
            return
        self.restarts += 1
        start = time.monotonic()
        again = self._load()
        if charge:
            self._charge(charge, time.monotonic() - start)
        if again.ok:
            for j in rest:
                if results[j] is None and calls[j].fn in self._dead:
                    results[j] = self._skipped(calls[j])
            return
        self._stop()
        if self._over():
            self._spend(results, rest, calls)
            return
        reason = again.detail or (again.error.type if again.error else "it failed")
        for j in rest:
            results[j] = Outcome(
                calls[j].id,
                calls[j].fn,
                "crashed",
                detail="the module could not be loaded again after a restart: %s" % reason,
            )

    def _outcome(self, c: Call, got: wire.AnswerFields) -> Outcome:
        common: dict[str, Any] = {
            "mutated": got.mutated,
            "called": got.called,
            "mults": got.mults,
            "elapsed": got.elapsed,
        }
        if got.ok:
            return Outcome(c.id, c.fn, "returned", value=got.value, **common)
        return Outcome(c.id, c.fn, "raised", raised=got.raised, **common)
