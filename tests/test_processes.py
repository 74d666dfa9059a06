"""Finding and killing a child's processes: /proc, the sweep, the cgroup, user ids."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.engine.sandbox import processes, procfs, users

LINUX = os.path.isdir("/proc/self")
CGROUPS = bool(processes.cgroups_usable() and processes.Cgroup.roots())

# The first thread ends (pthread_exit) while another keeps running: /proc shows the
# process as a zombie, its own environ file is empty, and it still runs.
FIRST_THREAD_GONE = """
import ctypes, sys, threading, time

def spin():
    while True:
        time.sleep(0.01)

threading.Thread(target=spin).start()
sys.stdout.write("ready\\n")
sys.stdout.flush()
ctypes.CDLL(None).pthread_exit(None)
"""


def _pthread_exit() -> bool:
    try:
        import ctypes

        return hasattr(ctypes.CDLL(None), "pthread_exit")
    except (ImportError, OSError):
        return False


def _until(condition: object, what: str) -> None:
    for _ in range(500):
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.01)
    raise AssertionError("never: " + what)


@contextlib.contextmanager
def started(argv: list[str], **kw: object) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(argv, start_new_session=True, **kw)  # type: ignore[call-overload]
    try:
        yield proc
    finally:
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def _gone_or_ended(pid: int) -> bool:
    return procfs.ended(str(pid))


def _state(pid: int) -> bytes:
    st = procfs.stat(str(pid))
    return b"gone" if st is None else st[0]


@pytest.mark.skipif(not LINUX, reason="needs /proc")
def test_a_sweep_passes_over_the_ended_leader_and_kills_what_it_left() -> None:
    # A killed child stays a zombie until its parent waits for it: no signal ends
    # it, so the sweep must not count it (it looped over it for 20 rounds).
    with started(["/bin/sh", "-c", "sleep 600 & sleep 600 & wait"]) as leader:
        _until(lambda: len(processes.descendants(leader.pid)) == 2, "two sleeps")
        left = processes.descendants(leader.pid)
        assert len(left) == 2
        os.kill(leader.pid, signal.SIGKILL)
        _until(lambda: _state(leader.pid) == b"Z", "the leader a zombie")
        assert _state(leader.pid) == b"Z"
        assert processes.sweep(leader.pid, b"EMBED_GRADER_RUN=none") == 2
        for pid in left:
            _until(lambda pid=pid: _state(pid) in (b"Z", b"gone"), "the sleep %d killed" % pid)
            assert _state(pid) in (b"Z", b"gone")


@pytest.mark.skipif(not LINUX or not _pthread_exit(), reason="needs /proc and pthread_exit")
def test_a_sweep_kills_a_process_whose_first_thread_ended_while_others_run() -> None:
    # Its /proc entry says zombie, but a thread of it still runs: it must be killed.
    with started([sys.executable, "-c", FIRST_THREAD_GONE], stdout=subprocess.PIPE) as leader:
        assert leader.stdout is not None and leader.stdout.readline() == b"ready\n"
        _until(lambda: _state(leader.pid) == b"Z", "shown as a zombie")
        assert _state(leader.pid) == b"Z"
        assert len(os.listdir("/proc/%d/task" % leader.pid)) == 2
        assert processes.sweep(leader.pid, b"EMBED_GRADER_RUN=none") == 1
        _until(lambda: len(procfs.threads(str(leader.pid))) <= 1, "its threads killed")
        assert leader.wait(5) == -signal.SIGKILL


@pytest.mark.skipif(not LINUX or not _pthread_exit(), reason="needs /proc and pthread_exit")
def test_a_process_whose_first_thread_ended_is_alive_and_carries_its_marker() -> None:
    env = dict(os.environ, EMBED_GRADER_RUN="probe-%d" % os.getpid())
    with started(
        [sys.executable, "-c", FIRST_THREAD_GONE], stdout=subprocess.PIPE, env=env
    ) as proc:
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        pid = str(proc.pid)
        _until(lambda: (procfs.stat(pid) or (b"",))[0] == b"Z", "shown as a zombie")
        assert not procfs.ended(pid)
        assert b"EMBED_GRADER_RUN=probe-" in procfs.environ(pid)
        assert processes.has_marker(pid, b"EMBED_GRADER_RUN=probe-%d" % os.getpid())
        assert proc.pid in users.processes_of(os.getuid())  # kill_all reaches it
        os.kill(proc.pid, signal.SIGKILL)
        _until(lambda: procfs.ended(pid), "ended once killed")
        assert proc.pid not in users.processes_of(os.getuid())


@pytest.mark.skipif(not LINUX, reason="needs /proc")
def test_a_sweep_after_the_reap_spares_the_pid_and_kills_the_group_it_left() -> None:
    # The child was reaped: another process may have its pid by now.
    with started(["sleep", "600"]) as stranger:
        assert processes.sweep(stranger.pid, b"EMBED_GRADER_RUN=none", reaped=True) == 0
        assert stranger.poll() is None
        # Not reaped, the same pid is the child: it is killed.
        assert processes.sweep(stranger.pid, b"EMBED_GRADER_RUN=none") == 1
        assert stranger.wait(5) == -signal.SIGKILL
    # A reaped leader whose session still has members: they are the child's.
    with started(["/bin/sh", "-c", "sleep 600 & sleep 600 & wait"]) as leader:
        _until(lambda: len(processes.descendants(leader.pid)) == 2, "two sleeps")
        left = processes.descendants(leader.pid)
        os.kill(leader.pid, signal.SIGKILL)
        leader.wait()
        assert processes.sweep(leader.pid, b"EMBED_GRADER_RUN=none", reaped=True) == 2
        for pid in left:
            _until(lambda pid=pid: _gone_or_ended(pid), "the sleep %d killed" % pid)


@pytest.mark.skipif(not CGROUPS, reason="no pids cgroup can be made here (Linux, as root)")
def test_a_cgroup_made_inside_the_childs_is_emptied_and_removed() -> None:
    group = processes.Cgroup.make(64)
    assert group is not None
    inner = Path(group.path) / "inner"
    with started(["sleep", "600"]) as sleeper:
        try:
            inner.mkdir()
            (inner / "cgroup.procs").write_text(str(sleeper.pid))
            assert sleeper.pid in group.pids()
            group.kill()
            assert sleeper.wait(5) == -signal.SIGKILL
        finally:
            group.remove()
        assert not os.path.exists(group.path)


@pytest.mark.skipif(not CGROUPS, reason="no pids cgroup can be made here (Linux, as root)")
def test_only_old_empty_cgroups_of_graders_are_removed() -> None:
    # A grader killed outright leaves its cgroup; one in another pid namespace (its
    # pid unseen here) may be using any that is not both empty and old.
    root = Path(processes.Cgroup.roots()[0])
    tag = "%d-%s" % (os.getpid(), os.urandom(4).hex())
    stale, fresh, busy = (root / ("embed-grader-%s-%s" % (tag, n)) for n in ("a", "b", "c"))
    old = time.time() - 2 * processes.STALE_AFTER
    with started(["sleep", "600"]) as sleeper:
        try:
            for path in (stale, fresh, busy):
                path.mkdir()
            (stale / "inner").mkdir()
            (busy / "cgroup.procs").write_text(str(sleeper.pid))
            for path in (stale, busy):
                os.utime(path, (old, old))
            processes.clear_stale(str(root))
            assert not stale.exists()
            assert fresh.exists()  # made a moment ago: its child may be about to join
            assert busy.exists() and sleeper.poll() is None  # in use: never killed
        finally:
            processes.Cgroup(str(busy)).remove()
            for path in (stale / "inner", stale, fresh):
                with contextlib.suppress(OSError):
                    path.rmdir()
