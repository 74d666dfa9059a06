"""An unprivileged user for each child, when the grader runs as root.

A child that runs as the grader's own user can write everything the grader can:
the installed grader and, in a batch, every other submission.  When the grader
runs as root (in Docker, on Gradescope), each child instead runs as a user id of
its own, taken from ``FIRST_UID .. FIRST_UID + COUNT - 1`` (ids without an entry
in the user database), with the same group id and no supplementary groups.  Such a
user owns nothing but the child's temporary folder, so it can write nothing else
that matters, and two children graded at once never share an id, so neither can
signal or trace the other.

Ids are leased with a lock file per id in a folder only root can write; the lock
is held while the child lives and dies with the process that holds it.  Before an
id is handed out and after it is given back, every process still running as that
id is killed: nothing one submission left behind reaches the next one.
"""

from __future__ import annotations

import errno
import os
import random
import signal
import stat
import sys
import tempfile
import threading
import time

from grader.engine.frozen import frozen
from grader.engine.sandbox import procfs

FIRST_UID = 64100
COUNT = 800
_LOCK_DIRS = ("/run/embed-grader-users",)
_lock_dir_fd: list[int] = []
_mutex = threading.Lock()


def problem() -> str:
    """Why children cannot run as an unprivileged user here ("" when they can)."""
    if not sys.platform.startswith("linux"):
        return "only on Linux"
    if os.geteuid() != 0:
        return "the grader does not run as root"
    return ""


@frozen
class Lease:
    """A user id (and the group id of the same number) held by one child."""

    uid: int
    fd: int

    @property
    def gid(self) -> int:
        return self.uid

    def release(self) -> None:
        kill_all(self.uid)
        try:
            os.close(self.fd)
        except OSError:
            pass


def _safe_dir(path: str) -> int | None:
    """A descriptor of the folder ``path``: created if needed, owned by root and
    writable by root alone; None when it is anything else (someone made it first)."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    info = os.fstat(fd)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        os.close(fd)
        return None
    return fd


def _locks() -> int:
    """The folder of lock files: shared by every grader on the machine when possible."""
    with _mutex:
        if not _lock_dir_fd:
            candidates = list(_LOCK_DIRS) + [
                os.path.join(tempfile.gettempdir(), "embed-grader-users-0")
            ]
            for path in candidates:
                fd = _safe_dir(path)
                if fd is not None:
                    break
            else:
                # Every shared place is taken by someone else: a private folder still
                # keeps the children of this process apart.
                fd = _safe_dir(tempfile.mkdtemp(prefix="embed-grader-users-"))
                if fd is None:
                    raise OSError(errno.EACCES, "no folder for the user id locks")
            _lock_dir_fd.append(fd)
        return _lock_dir_fd[0]


def _unused(uid: int) -> bool:
    try:
        import pwd  # POSIX only, as is every lease

        pwd.getpwuid(uid)
    except KeyError:
        return True
    return False


def lease() -> Lease:
    """A user id no other child holds; waits for one when all are taken."""
    folder = _locks()
    start = random.randrange(COUNT)
    for attempt in range(2):
        for i in range(COUNT):
            uid = FIRST_UID + (start + i) % COUNT
            if not _unused(uid):
                continue
            fd = os.open(
                "%d.lock" % uid,
                os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                0o600,
                dir_fd=folder,
            )
            try:
                import fcntl  # POSIX only, as is every lease

                fcntl.flock(fd, fcntl.LOCK_EX | (fcntl.LOCK_NB if attempt == 0 else 0))
            except OSError:
                os.close(fd)
                continue
            kill_all(uid)
            return Lease(uid, fd)
    raise OSError(errno.EAGAIN, "no free user id for the child")


def processes_of(uid: int) -> list[int]:
    """The live processes (not the dead waiting to be reaped, ``procfs.ended``) whose
    owner is ``uid``."""
    found: list[int] = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if name.isdigit():
            try:
                if os.stat("/proc/" + name).st_uid == uid and not procfs.ended(name):
                    found.append(int(name))
            except OSError:
                pass
    return found


def kill_all(uid: int, rounds: int = 50) -> None:
    """SIGKILL every process running as ``uid`` until none is left (bounded)."""
    for _ in range(rounds):
        pids = processes_of(uid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.002)
