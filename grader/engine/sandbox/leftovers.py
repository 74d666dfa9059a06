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
``STALE_AFTER`` seconds (a folder is held a moment after it is made).  It never follows a link, and touches
only folders of its own user (root: also those of the grader's child users).
Where there is no ``flock`` (Windows) nothing is held and nothing is removed.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from collections.abc import Callable

from grader.engine import safefs, users

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

STALE_AFTER = 60.0  # seconds unchanged, and held by nobody
_NAME = re.compile(r"embed-grader-[a-z0-9_]{8}\Z")  # tempfile.mkdtemp's names
_swept: set[str] = set()  # temporary folders swept by this process
_mutex = threading.Lock()


def hold(folder: str) -> int | None:
    """A descriptor that holds ``folder`` (an exclusive lock), or None where it cannot
    be held: by nobody else, or by this descriptor only."""
    if fcntl is None:
        return None
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _ours(uid: int) -> bool:
    me = os.geteuid()
    return uid == me or (me == 0 and users.FIRST_UID <= uid < users.FIRST_UID + users.COUNT)


def sweep(root: str, unmount: Callable[[str], None]) -> list[str]:
    """Remove the children's folders in ``root`` that nobody holds; those removed."""
    if fcntl is None:
        return []
    try:
        names = os.listdir(root)
    except OSError:
        return []
    removed = []
    for name in names:
        if not _NAME.match(name):
            continue
        path = os.path.join(root, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or not _ours(info.st_uid):
            continue
        if time.time() - info.st_mtime < STALE_AFTER:
            continue
        fd = hold(path)
        if fd is None:
            continue  # a grader holds it: its child still runs
        try:
            if os.path.ismount(path):
                unmount(path)
            if safefs.remove_tree(path):
                removed.append(path)
        finally:
            os.close(fd)
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
