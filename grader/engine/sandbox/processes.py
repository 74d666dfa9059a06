"""Processes of one child: finding and killing all of them (its cgroup where one can
be made), the file that catches what it prints, and why it stopped."""

from __future__ import annotations

import functools
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time

from grader.engine.sandbox import procfs, walls
from grader.engine.sandbox.limits import MARKER


def _proc_stat(pid: str) -> tuple[int, int, int] | None:
    """(ppid, process group, session) of a process from /proc; None if it is gone or
    has ended (``procfs.ended``: a zombie none of whose threads runs)."""
    st = procfs.stat(pid)
    if st is None or procfs.ended(pid, st[0]):
        return None
    return st[1], st[2], st[3]


def descendants(leader: int) -> list[int]:
    """The processes that descend from ``leader`` (and still run), from /proc."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    parents = {}
    for name in names:
        if name.isdigit():
            st = _proc_stat(name)
            if st is not None:
                parents[int(name)] = st[0]
    family = {leader}
    grew = True
    while grew:
        grew = False
        for pid, ppid in parents.items():
            if ppid in family and pid not in family:
                family.add(pid)
                grew = True
    return sorted(family - {leader})


def has_marker(pid: str, tag: bytes) -> bool:
    return tag in procfs.environ(pid)


def sweep(leader: int, tag: bytes, rounds: int = 20, reaped: bool = False) -> int:
    """SIGKILL every process the child started; how many were found.

    A process belongs to the child when it is in the child's process group or
    session, descends from the child, or carries the child's marker in its
    environment.  What escapes all four (a double fork after setsid() with a
    cleared environment) is found only by the cgroup or bubblewrap's pid namespace.

    Once the child has been ``reaped`` its pid may have gone to another process: the
    pid itself is then never killed, nor its group or session while a process has
    that pid (as long as a group or session has members, the kernel gives its id to
    no new process, so they are then the child's).
    """
    if not os.path.isdir("/proc/self"):
        killpg = getattr(os, "killpg", None)
        if not reaped and killpg is not None:
            try:
                killpg(leader, signal.SIGKILL)
            except OSError:
                pass
        return 0
    me = os.getpid()
    found: set[int] = set()
    for _ in range(rounds):
        family = set() if reaped else {leader}
        by_group = not reaped or not os.path.exists("/proc/%d" % leader)
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
                if pid in family:
                    continue
                if ppid in family or (by_group and (pgrp == leader or sid == leader)):
                    family.add(pid)
                    grew = True
        for pid in stats:
            if pid in family or has_marker(str(pid), tag):
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


class Cgroup:
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
    def make(cls, pids_max: int) -> Cgroup | None:
        if not cgroups_usable():
            return None
        for root in cls.roots():
            if root not in _CLEARED:
                _CLEARED.add(root)
                clear_stale(root)
            path = os.path.join(root, "embed-grader-%d-%s" % (os.getpid(), os.urandom(4).hex()))
            try:
                os.mkdir(path)
            except OSError:
                continue
            group = cls(path)
            if group.write("pids.max", str(pids_max)):
                return group
            group.remove()
        _NO_CGROUP.append(True)
        cgroups_usable.cache_clear()
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

    def join_all(self, pid: int) -> bool:
        """Move ``pid`` and every process it started into this cgroup, before the
        module is imported; whether all of them are in.

        A process's children are born in its cgroup: bubblewrap forks the child's
        processes as soon as it starts, maybe before the one it runs in joined, so
        each of them is moved.  Once the child has said it runs, all of them exist,
        and none starts another before the module is imported.
        """
        pids = [pid, *descendants(pid)]
        for p in pids[1:]:
            self.add(p)
        inside = set(self.pids())
        # One that ended meanwhile is not missing.
        return all(p in inside or not os.path.exists("/proc/%d" % p) for p in pids)

    def groups(self) -> list[str]:
        """This cgroup and those made inside it (a child run as root can make them),
        the deepest first."""
        return [folder for folder, _, _ in os.walk(self.path, topdown=False)] or [self.path]

    def pids(self) -> list[int]:
        """The processes in this cgroup and in those inside it."""
        found = []
        for folder in self.groups():
            try:
                with open(os.path.join(folder, "cgroup.procs")) as f:
                    found += [int(x) for x in f.read().split()]
            except (OSError, ValueError):
                pass
        return found

    def kill(self) -> None:
        self.write("cgroup.kill", "1")
        for _ in range(200):  # at most about 0.1 s
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.0005)

    def remove(self) -> None:
        for _ in range(50):
            try:
                for folder in self.groups():
                    os.rmdir(folder)
                return
            except FileNotFoundError:
                if not os.path.isdir(self.path):
                    return
            except OSError:
                self.kill()
                time.sleep(0.005)


STALE_AFTER = 60.0  # seconds: an empty cgroup of a grader this old is left over


def clear_stale(root: str) -> None:
    """Remove the empty cgroups that graders left in ``root`` (one killed outright
    cannot remove its own).  Only empty ones made over STALE_AFTER ago: a grader in
    another pid namespace, whose pid this one cannot see, may be using any other, and
    a grader's cgroup is empty only for a moment after it makes it."""
    try:
        names = os.listdir(root)
    except OSError:
        return
    for name in names:
        if not name.startswith("embed-grader-"):
            continue
        group = Cgroup(os.path.join(root, name))
        try:
            if time.time() - os.stat(group.path).st_mtime < STALE_AFTER or group.pids():
                continue
            for folder in group.groups():
                os.rmdir(folder)
        except OSError:
            continue


_CLEARED: set[str] = set()  # roots cleared of stale cgroups by this process


_NO_CGROUP: list[bool] = []


@functools.lru_cache(maxsize=1)
def cgroups_usable() -> bool:
    return sys.platform.startswith("linux") and os.geteuid() == 0 and not _NO_CGROUP


def plain() -> bool:
    """Whether a child here is a plain child process and nothing more: no ``/proc`` to
    find the processes it started, no resource limits, no process group to kill
    (Windows; macOS has no ``/proc``).  Its time limits are the same everywhere."""
    if not (os.path.isdir("/proc/self") and hasattr(os, "killpg")):
        return True
    return any(importlib.util.find_spec(m) is None for m in ("resource", "fcntl"))


def child_env(home: str, marker: str, walled: bool = False) -> dict[str, str]:
    """Nothing of the grader's environment: only these (EMBED_GRADER_RUN tags the
    child's processes so that all of them can be found and killed; ``walled``: the
    folders the child walls itself off from)."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, MARKER: marker}
    if walled:
        env[walls.VARIABLE] = walls.child_variable()
    if os.name == "nt":  # Python on Windows cannot start without it
        env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "C:\\Windows")
    return env


def own_ids() -> tuple[int, int]:
    """This process's user and group ids (0, 0 where there are none: Windows)."""
    if not hasattr(os, "geteuid"):
        return 0, 0
    return os.geteuid(), os.getegid()


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the child's process group (Windows: the child alone)."""
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def capture_file() -> int:
    """A read-write file without a name for the child's stdout and stderr."""
    make = getattr(os, "memfd_create", None)
    if make is not None:
        try:
            return int(make("embed-grader-output", os.MFD_CLOEXEC))
        except OSError:
            pass
    with tempfile.TemporaryFile() as f:  # unlinked at once (O_TMPFILE where it exists)
        return os.dup(f.fileno())


def status_text(code: int | None) -> str:
    if code is None:
        return "the child process stopped answering"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "signal %d" % -code
        return "the child process was killed by %s" % name
    return "the child process exited with status %d" % code
