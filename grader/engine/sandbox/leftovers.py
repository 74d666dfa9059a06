"""The folders of children whose grader was killed outright.

A child's folder (``embed-grader-XXXXXXXX`` in the temporary folder, a tmpfs of its
own when the grader runs as root) is removed when its child is closed.  A grader
killed outright (SIGKILL, the machine's out-of-memory killer, a test run stopped)
cannot do that, and its folders and mounts would stay.

So the grader holds each folder with an exclusive ``flock`` while its child lives,
taken once the folder is ready (after its tmpfs is mounted: the lock is on what the
path opens), and the lock goes with the grader's process however it ends.  The
first child a process starts in a temporary folder removes there, in a thread of
its own, every child's folder that nobody holds and that has not changed for
``STALE_AFTER`` seconds (a folder is held a moment after it is made).

Children may write in the temporary folder too (``/tmp``): they can plant folders of
that name and swap them for links while the sweep looks.  So the sweep acts on no
path but through descriptors: each folder is opened relative to the temporary
folder's own descriptor, without following a link, and everything after that goes
through what was opened: its owner (its own user; root: also the grader's child
users) and age, its lock, the mount on it (only a child's tmpfs, detached through
``/proc/self/fd/N``, never through its name), and its content, removed entry by entry
relative to it.  The name is used once more only to remove the folder, then empty,
from the temporary folder: ``rmdir`` removes no link and no folder with anything in
it.  Where there is no ``flock`` (Windows) nothing is held and nothing is removed.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Callable

from grader.engine import safefs
from grader.engine.sandbox import users
from grader.engine.sandbox.limits import TMPFS_BYTES

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

STALE_AFTER = 60.0  # seconds unchanged, and held by nobody
_NAME = re.compile(r"embed-grader-[a-z0-9_]{8}\Z")  # tempfile.mkdtemp's names
_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
_swept: set[str] = set()  # temporary folders swept by this process
_mutex = threading.Lock()


def hold(folder: str) -> int | None:
    """A descriptor that holds ``folder`` (an exclusive lock), or None where it cannot
    be held: by nobody else, or by this descriptor only."""
    if fcntl is None:
        return None
    try:
        fd = os.open(folder, _FLAGS)
    except OSError:
        return None
    if not _lock(fd):
        os.close(fd)
        return None
    return fd


def _lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _ours(uid: int) -> bool:
    me = os.geteuid()
    return uid == me or (me == 0 and users.FIRST_UID <= uid < users.FIRST_UID + users.COUNT)


def _left(top: int, name: str) -> int | None:
    """The folder ``name`` of the open folder ``top``, opened without following a link
    and locked, when it is a child's folder left behind: of one of our users, old,
    held by nobody.  None otherwise."""
    try:
        fd = os.open(name, _FLAGS, dir_fd=top)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if (
            stat.S_ISDIR(info.st_mode)
            and _ours(info.st_uid)
            and time.time() - info.st_mtime >= STALE_AFTER
            and _lock(fd)
        ):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _child_tmpfs(fd: int) -> bool:
    """Whether the mount whose root ``fd`` holds is a child's tmpfs (by its size: no
    child can mount one in the grader's view)."""
    try:
        st = os.fstatvfs(fd)
    except OSError:
        return False
    return st.f_blocks * st.f_frsize == TMPFS_BYTES


def _remove(top: int, device: int, name: str, unmount: Callable[[str], None]) -> bool:
    """Remove the child's folder ``name`` of the open folder ``top`` (on ``device``)
    if it was left behind; whether it was."""
    fd = _left(top, name)
    if fd is None:
        return False
    try:
        if os.fstat(fd).st_dev != device:
            # A mount on the folder: a child's tmpfs, detached through this descriptor.
            if not _child_tmpfs(fd):
                return False
            unmount("/proc/self/fd/%d" % fd)
            os.close(fd)
            fd = -1
            fd = os.open(name, _FLAGS, dir_fd=top)  # the folder it was mounted on
            info = os.fstat(fd)
            if info.st_dev != device or not _ours(info.st_uid):
                return False
        safefs.empty_dir(fd)
    except OSError:
        return False
    finally:
        if fd >= 0:
            os.close(fd)
    try:
        os.rmdir(name, dir_fd=top)  # a link, a mount or a full folder put there stays
    except OSError:
        return False
    return True


def sweep(root: str, unmount: Callable[[str], None]) -> list[str]:
    """Remove the children's folders in ``root`` that nobody holds; those removed.

    ``unmount`` detaches the tmpfs at the path it is given, ``/proc/self/fd/N``."""
    if fcntl is None or not {os.open, os.rmdir} <= os.supports_dir_fd:
        return []
    try:
        top = os.open(root, _FLAGS)
    except OSError:
        return []
    removed = []
    try:
        device = os.fstat(top).st_dev
        names = os.listdir(top)
        for name in names:
            if _NAME.match(name) and _remove(top, device, name, unmount):
                removed.append(os.path.join(root, name))
    except OSError:
        pass
    finally:
        os.close(top)
    return removed


def sweep_once(root: str, unmount: Callable[[str], None]) -> None:
    """``sweep`` the first time this process starts a child in ``root``, in a thread
    of its own: however much was left there (a child may have written a large tree
    outside its folder), no grading waits for it or is charged its time."""
    with _mutex:
        if root in _swept:
            return
        _swept.add(root)
    threading.Thread(target=sweep, args=(root, unmount), name="sweep", daemon=True).start()
