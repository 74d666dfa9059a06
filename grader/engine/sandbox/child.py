"""One child process at a time: the sandbox's settings, starting a child with its
limits and isolation, and stopping it with everything it started."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Sequence

from grader.engine import safefs
from grader.engine.sandbox import decoding, disk, program, users, walls
from grader.engine.sandbox.budget import Budget
from grader.engine.sandbox.decoding import OffProtocol, decode
from grader.engine.sandbox.isolation import (
    CHOICES,
    HOME_AS_ROOT,
    as_user,
    bwrap_command,
    drops_user,
    isolation_problem,
    strongest,
)
from grader.engine.sandbox.limits import (
    MARKER,
    MAX_MODULE,
    MAX_OUTPUT,
    MAX_SECONDS_FACTOR,
    PIDS_MAX,
    SMALL_LINE,
    START_TIMEOUT,
)
from grader.engine.sandbox.pipe import Died, Pipe, TooLarge, make_pipe
from grader.engine.sandbox.processes import (
    Cgroup,
    capture_file,
    child_env,
    has_marker,
    kill_group,
    own_ids,
    status_text,
    sweep,
)
from grader.engine.sandbox.program import CHILD, CHILD_TAG, child_program, compiled_program
from grader.engine.sandbox.records import Loaded, SandboxError

MODULE_FILE = "embed.py"  # the default name of the child's copy of the student's module


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


class Child:
    """The settings of a sandbox, its state, and the one child process it has at a time.

    ``names`` are the module's names the grader asks for, ``constants`` those of them
    that are values rather than functions.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        python: str | None = None,
        timeout: float = 3.0,
        memory_mb: int = 1024,
        isolation: str = "process",
        names: Sequence[str],
        constants: Collection[str] = (),
        source: bytes | None = None,
        max_seconds: float | None = None,
        module_file: str = MODULE_FILE,
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
        self.constants = frozenset(constants)
        # The child imports its copy under the lab's module name (``embed`` for embed.py).
        self.module_file = os.path.basename(module_file) or MODULE_FILE
        self.budget = Budget(self.timeout, self.max_seconds)
        self.calls = 0
        self.child_seconds = 0.0
        self.loaded: Loaded | None = None
        self.python_version = ""
        self.walled: bool | None = None  # off the grader's files (None: process mode)
        self._closed = False
        self._proc: subprocess.Popen[bytes] | None = None
        self._pipe: Pipe | None = None
        self._tmp: str | None = None
        self._capture: int | None = None  # the child's stdout and stderr
        self._marker = ""
        self._cgroup: Cgroup | None = None
        self._stale = ""  # the report writer that ran in this child: the next run restarts
        self._lease: users.Lease | None = None
        self._spawned = False  # a child started by spawn() that load() has not taken over
        self._share: disk.Share | None = None  # the child's share of disk, and its watcher
        self._watcher: disk.Watcher | None = None
        problem = isolation_problem(self.isolation, self.python)
        if problem:  # fails early on an isolation that is not there
            raise SandboxError(problem)
        try:
            same = os.path.realpath(self.python) == os.path.realpath(sys.executable)
            self._program = compiled_program(CHILD) if same else child_program(CHILD)
        except OSError as exc:
            raise SandboxError("the child runner %s is missing" % CHILD) from exc
        # The module is read once, here: every child imports its own copy of these
        # bytes, so nothing a child does to the file reaches a later child.
        self.source = source if source is not None else _read_module(self.path)

    @property
    def restarts(self) -> int:
        """Children started for this module after the first."""
        return self.budget.restarts

    def _command(self, tmp: str) -> list[str]:
        if self.isolation == "bwrap":
            uid = self._lease.uid if self._lease is not None else None
            cmd = bwrap_command(self.python, tmp, uid, self.module_file, disk.TMPFS_BYTES)
            i = cmd.index("--")
            env = ["--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8"]
            home = self.home()
            env += ["--setenv", "HOME", home, "--setenv", MARKER, self._marker]
            env += ["--setenv", walls.VARIABLE, walls.child_variable()]
            return cmd[:i] + env + cmd[i:] + [self._program]
        python = os.path.realpath(self.python) if self._lease is not None else self.python
        return program.command(python, self._program)

    def home(self) -> str:
        """The child's working folder as the child sees it."""
        if self.isolation == "bwrap":
            return HOME_AS_ROOT
        return self._tmp or ""

    def spawn(self) -> None:
        """Start the first child now without waiting for it: its interpreter starts
        while this process does other work, and the next ``load`` takes it over."""
        if self._proc is None and not self._spawned:
            self._spawn()
            self._spawned = True

    def _start(self) -> None:
        """A child started (or the one spawned ahead taken over) and ready."""
        if self._closed:
            self._stop()
            raise SandboxError("the sandbox is closed")
        if not self._spawned:
            self._spawn()
        self._spawned = False
        try:
            self._ready()
        except BaseException:
            self._stop()
            raise

    def _spawn(self) -> None:
        if self._closed:
            # Closed from another thread (the grader is stopping): start nothing new.
            raise SandboxError("the sandbox is closed")
        self._stop()
        self.budget.begin()
        self._stale = ""
        try:
            self._tmp = tempfile.mkdtemp(prefix="embed-grader-")
            self._launch()
        except BaseException as exc:
            # Whatever stopped the start (no user to lease, no cgroup, a signal): the
            # folder just made goes now, not when someone remembers to close.
            self._stop()
            fault = disk.machine_fault(exc)  # no space, memory or process slot to start it
            if fault is not None and fault is not exc:
                raise fault from exc
            raise

    def _launch(self) -> None:
        assert self._tmp is not None
        self._marker = os.urandom(8).hex()
        if self.isolation != "process" and drops_user():
            self._lease = users.lease()
        owner = (self._lease.uid, self._lease.gid) if self._lease else own_ids()
        self._share = disk.Share.make(self.isolation, self._tmp, *owner, self._inside)
        self._share.check_room()
        # The child's own copy of the module, in the folder only it may write.
        module = os.path.join(self._tmp, self.module_file)
        with open(module, "xb") as f:
            f.write(self.source)
        os.chmod(module, 0o444)
        if self._lease is not None:
            os.chown(self._tmp, self._lease.uid, self._lease.gid)
        self._cgroup = Cgroup.make(PIDS_MAX)
        # bubblewrap run by root starts the child as root: it drops to the user itself.
        user_args = as_user(self._lease) if self.isolation != "bwrap" else {}
        # What the child prints goes to a file without a name that the parent opened
        # itself: the child cannot swap it for a link or a pipe.
        self._capture = capture_file()
        env = child_env(self._tmp, self._marker, walled=self.isolation == "user")
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
                **user_args,
            )
        except OSError as exc:
            if disk.machine_fault(exc) is not None:
                raise
            raise SandboxError("cannot start %s: %s" % (self.python, exc)) from exc
        self._pipe = make_pipe(self._proc)
        self._watcher = disk.Watcher(self._share, self._proc.kill)
        if self.isolation != "bwrap":
            program.hand_over(self._pipe, self.python, time.monotonic() + START_TIMEOUT)

    def _ready(self) -> None:
        """The child in its cgroup and its first line, which says it runs."""
        assert self._pipe is not None and self._proc is not None
        # The process started here joins at once, while its interpreter starts: the
        # first move into a cgroup can take a process 20 ms (made here, in the
        # thread that talks to the child, not in the one that spawned it).
        if self._cgroup is not None and not self._cgroup.add(self._proc.pid):
            self._cgroup.remove()
            self._cgroup = None
        try:
            line = self._pipe.line(time.monotonic() + START_TIMEOUT, SMALL_LINE)
            if line is None:
                raise OffProtocol("no answer")
            data = decode(line)  # said before anything of the student's ran
            self.python_version = decoding.ready(data)
            self.walled = None if self.isolation == "process" else data.get("walled") is True
        except (Died, TooLarge, OffProtocol):
            why = self._startup_error()
            raise SandboxError(
                "the child runner did not start with %s: %s" % (self.python, why)
            ) from None
        if (
            self._cgroup is not None
            and self.isolation == "bwrap"
            and not self._cgroup.join_all(self._proc.pid)
        ):
            self._cgroup.remove()
            self._cgroup = None

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
        # Once it is, its pid may be another process's, which must not be killed.
        reaped = proc.returncode is not None
        sweep(proc.pid, ("%s=%s" % (MARKER, self._marker)).encode(), reaped=reaped)
        if not reaped:
            kill_group(proc)
        try:
            proc.wait(5.0)
        except subprocess.TimeoutExpired:
            pass
        return proc.returncode

    def _inside(self) -> str | None:
        """Where the child's /tmp under bubblewrap is seen from here (once it runs):
        that of its process inside, not of bubblewrap's own outside."""
        paths = ["/proc/%d/root/tmp" % pid for pid in self._child_pids()]
        return next((p for p in paths if disk.tmpfs_used(p) is not None), None)

    def _stop(self) -> None:
        self._spawned = False
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
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
        if self._share is not None:
            self._share.release()
            self._share = None
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
        spent = self._share is not None and self._share.over()
        return disk.DISK_DETAIL if spent else status_text(code)

    def abort(self) -> None:
        """Kill the child from another thread, so that a call waiting on it ends now.

        Descriptors stay open (the thread running the calls may be using them);
        ``close`` releases them afterwards.
        """
        self._closed = True
        if self._proc is not None:
            self._kill()

    def close(self) -> None:
        """Stop the child and release everything.  Nothing more is asked of it, so it
        is killed rather than asked to end: its interpreter would otherwise free
        every object it made (and run what the student's code registered) first."""
        self._closed = True
        self._stop()

    def __del__(self) -> None:
        try:
            self._stop()
        except Exception:
            pass

    def _output(self) -> str:
        """What the child printed so far, cut to MAX_OUTPUT characters."""
        read = self._captured(MAX_OUTPUT * 4 + 1)
        text = read.data.decode("utf-8", "replace")
        if len(text) > MAX_OUTPUT or read.cut:
            text = text[:MAX_OUTPUT] + "\n... (%d bytes in all)" % read.size
        return text

    def _child_pids(self) -> list[int]:
        """The child's own process (inside bubblewrap: found by its marker and program)."""
        proc = self._proc
        if proc is None:
            return []
        if self.isolation != "bwrap":
            return [proc.pid]
        tag = ("%s=%s" % (MARKER, self._marker)).encode()
        found = []
        for name in os.listdir("/proc"):
            if name.isdigit() and has_marker(name, tag):
                try:
                    with open("/proc/%s/cmdline" % name, "rb") as f:
                        if CHILD_TAG.encode() in f.read():
                            found.append(int(name))
                except OSError:
                    pass
        return found
