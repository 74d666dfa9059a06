"""Each child's share of disk, and what the grading machine itself lacks.

A child may fill ``DISK_MB`` MiB and ``DISK_FILES`` files, however it writes them:

- ``mounted``: the grader runs as root (process and user modes): the child's folder
  is a tmpfs of its own, mounted here with that size and that many inodes; the
  kernel stops it at the bound.
- ``bwrap``: bubblewrap gives the child a tmpfs of ``DISK_MB`` MiB as its ``/tmp``
  (its folder is inside); the inodes it uses are read through its ``/proc/PID/root``.
- ``walked``: nowhere to mount one (process mode as an ordinary user): the child's
  folder lies on the grader's temporary file system, and its use is measured, the
  folder walked without following a link, at most ``DISK_FILES`` entries read.

The sandbox measures the share after every answer and a watcher thread every
``WATCH_EVERY`` seconds while the child runs: a child past its share is killed, and
that is its own fault (``DISK_DETAIL``).  Only a shortage of the machine (its disk,
memory, process or file slots) outside the child's share is a ``MachineFault``.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import stat
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from grader.engine.sandbox import leftovers
from grader.engine.sandbox.limits import DISK_FILES, DISK_MB, TMPFS_BYTES, TMPFS_FILES
from grader.engine.sandbox.records import MachineFault

T = TypeVar("T")
SHARE_BYTES = DISK_MB << 20
WATCH_EVERY = 0.1  # seconds between two looks at a running child's share
RESERVE_BYTES = 1 << 20  # the machine is short of disk below this much free space
RESERVE_FILES = 16  # ... or this many free inodes
DISK_DETAIL = "it wrote more than its share of disk (%d MiB, %d files)" % (DISK_MB, DISK_FILES)

# errno -> the resource the grading machine ran out of
_SHORT = {
    errno.ENOSPC: "disk",
    errno.EDQUOT: "disk",
    errno.ENOMEM: "memory",
    errno.EAGAIN: "processes",
    errno.EMFILE: "files",
    errno.ENFILE: "files",
}


def machine_fault(exc: BaseException) -> MachineFault | None:
    """The machine's shortage behind an error of the grader's own work, if it is one."""
    if isinstance(exc, MachineFault):
        return exc
    if isinstance(exc, MemoryError):
        return MachineFault("memory", "MemoryError")
    if isinstance(exc, OSError) and exc.errno in _SHORT:
        return MachineFault(_SHORT[exc.errno], "%s: %s" % (type(exc).__name__, exc))
    return None


def twice(work: Callable[[], T]) -> T:
    """``work()``, done once more when the machine ran short the first time; a
    ``MachineFault`` when it ran short both times."""
    try:
        return work()
    except (MachineFault, OSError, MemoryError) as exc:
        if machine_fault(exc) is None:
            raise
    try:
        return work()
    except (MachineFault, OSError, MemoryError) as exc:
        fault = machine_fault(exc)
        if fault is None or fault is exc:
            raise
        raise fault from exc


def tmpfs_used(path: str) -> tuple[int, int] | None:
    """(bytes, inodes) used on the child's tmpfs at ``path``; None when it cannot be
    read or what is there is not a child's tmpfs (unmounted, the process gone)."""
    try:
        st = os.statvfs(path)
    except (OSError, AttributeError):  # no statvfs on Windows
        return None
    if st.f_blocks * st.f_frsize != TMPFS_BYTES:
        return None
    return (st.f_blocks - st.f_bfree) * st.f_frsize, st.f_files - st.f_ffree


def walked_used(folder: str, most: int = DISK_FILES) -> tuple[int, int]:
    """(bytes, entries) of a folder tree, links not followed, at most ``most`` + 1
    entries read (a tree with more is over its share whatever they hold)."""
    total = entries = 0
    todo = [folder]
    while todo and entries <= most:
        try:
            with os.scandir(todo.pop()) as it:
                for entry in it:
                    entries += 1
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += getattr(st, "st_blocks", (st.st_size + 511) // 512) * 512
                    if stat.S_ISDIR(st.st_mode):
                        todo.append(entry.path)
                    if entries > most:
                        break
        except OSError:
            continue
    return total, entries


def short_of_disk(path: str) -> bool:
    """Whether the file system at ``path`` has (almost) no space or inodes left."""
    try:
        st = os.statvfs(path)
    except (OSError, AttributeError):
        return False
    return st.f_bavail * st.f_frsize < RESERVE_BYTES or (
        st.f_files > 0 and st.f_favail < RESERVE_FILES
    )


@functools.lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def can_mount() -> bool:
    """Whether this process may mount a tmpfs for a child (Linux, as root)."""
    return os.name == "posix" and os.geteuid() == 0 and _libc() is not None


def mount_share(folder: str, uid: int, gid: int) -> bool:
    """Mount the child's tmpfs on its (empty) folder; False when the kernel refuses."""
    libc = _libc()
    if libc is None:
        return False
    options = "size=%d,nr_inodes=%d,mode=0700,uid=%d,gid=%d" % (
        TMPFS_BYTES,
        TMPFS_FILES,
        uid,
        gid,
    )
    flags = 0x2 | 0x4  # MS_NOSUID | MS_NODEV
    done = libc.mount(b"tmpfs", os.fsencode(folder), b"tmpfs", flags, options.encode())
    return done == 0


def unmount_share(folder: str) -> None:
    """Detach the child's tmpfs at ``folder`` (``/proc/self/fd/N``: the one whose root
    that descriptor holds): its content goes once no process holds it."""
    libc = _libc()
    if libc is not None:
        libc.umount2(os.fsencode(folder), 2)  # MNT_DETACH


class Share:
    """One child's share of disk: where it is measured and whether it is spent."""

    def __init__(self, kind: str, folder: str, where: Callable[[], str | None]) -> None:
        self.kind = kind  # "mounted" | "bwrap" | "walked"
        self.folder = folder
        self._where = where  # the path at which the child's file system is measured
        self._path: str | None = None  # ... once found
        self._lock = threading.Lock()  # the watcher and the thread reading answers
        self._next = 0.0  # no measure before then
        self.spent = False
        self.held: int | None = None  # the descriptor that holds the folder

    @classmethod
    def make(
        cls, isolation: str, folder: str, uid: int, gid: int, inside: Callable[[], str | None]
    ) -> Share:
        """The share of a child whose folder (on this side) is ``folder``, empty yet,
        held while the child lives (``leftovers``: the folders of a grader killed
        outright are removed by the next one)."""
        leftovers.sweep_once(os.path.dirname(folder), unmount_share)
        if isolation == "bwrap":
            share = cls("bwrap", folder, inside)
        elif can_mount() and mount_share(folder, uid, gid):
            share = cls("mounted", folder, lambda: folder)
        else:
            share = cls("walked", folder, lambda: folder)
        share.held = leftovers.hold(folder)  # after the mount: the lock is on the tmpfs
        return share

    def used(self) -> tuple[int, int]:
        """(bytes, files) the child holds now (0, 0 when that cannot be read)."""
        if self._path is None:
            self._path = self._where()
        if self._path is None:
            return 0, 0
        if self.kind == "walked":
            return walked_used(self._path)
        return tmpfs_used(self._path) or (0, 0)

    def over(self) -> bool:
        """Whether the child has passed its share (remembered once it has).

        A tmpfs is measured at once, every time.  A walk that took t seconds is not
        made again within 10 t: a tree that is slow to walk (thousands of nested
        folders) costs the grader a tenth of its time at most.
        """
        with self._lock:
            start = time.monotonic()
            if self.spent or start < self._next:
                return self.spent
            size, files = self.used()
            if self.kind == "walked":
                self._next = start + 10 * (time.monotonic() - start)
            self.spent = size > SHARE_BYTES or files > DISK_FILES
            return self.spent

    def machine_short(self) -> bool:
        """Whether a failure now may come from the machine: the child's folder lies on
        the grader's file system (``walked``), which is full, and the child is within
        its share."""
        return self.kind == "walked" and short_of_disk(self.folder) and not self.over()

    def check_room(self) -> None:
        """A ``MachineFault`` when the grader's file system cannot hold a whole share."""
        if self.kind != "walked":
            return
        try:
            st = os.statvfs(self.folder)
        except (OSError, AttributeError):
            return
        if st.f_bavail * st.f_frsize < SHARE_BYTES or (st.f_files > 0 and st.f_favail < DISK_FILES):
            raise MachineFault("disk", "less than a child's share is free in %s" % self.folder)

    def release(self) -> None:
        if self.kind == "mounted":
            # Through the descriptor that holds the tmpfs: never a path, which a child
            # may have changed.
            held = self.held
            unmount_share(self.folder if held is None else "/proc/self/fd/%d" % held)
        if self.held is not None:
            os.close(self.held)
            self.held = None


class Watcher:
    """A thread that looks at a running child's share and kills it once it is spent."""

    def __init__(self, share: Share, kill: Callable[[], None]) -> None:
        self.share = share
        self._kill = kill
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="disk-share", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(WATCH_EVERY):
            try:
                if self.share.over():
                    self._kill()
                    return
            except Exception:  # a child that vanished meanwhile: nothing to watch
                return

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()
