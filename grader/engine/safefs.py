"""Reading and removing files that untrusted code could have replaced.

Student code may swap any file it can write for a symbolic link, a named pipe, a
device or a directory.  Everything here opens with ``O_NOFOLLOW`` and
``O_NONBLOCK``, checks the open descriptor with ``fstat`` before reading, reads at
most a given number of bytes, and removes trees without following links and without
recursion on the Python stack.

It may import, of the grader: ``frozen``.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
from typing import Any

from grader.engine.frozen import frozen

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOCTTY = getattr(os, "O_NOCTTY", 0)
_PATH = getattr(os, "O_PATH", 0)

_BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation

READ_FLAGS = os.O_RDONLY | _BINARY | _NOFOLLOW | _NONBLOCK | _CLOEXEC | _NOCTTY
DIR_FLAGS = os.O_RDONLY | _NOFOLLOW | _DIRECTORY | _CLOEXEC


class NotRegular(OSError):
    """The name exists but is not a regular file: a link, pipe, device or folder."""


@frozen
class Read:
    """At most ``limit`` bytes of a regular file and the file's whole size."""

    data: bytes
    size: int

    @property
    def cut(self) -> bool:
        return self.size > len(self.data)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_regular(path: str, *, dir_fd: int | None = None) -> int:
    """A read-only descriptor of the regular file ``path``, never through a link.

    Raises ``NotRegular`` (with the kind in its message) for anything else, and
    ``OSError`` when the name does not exist or cannot be opened.  Opening never
    blocks: a named pipe is opened non-blocking and refused.
    """
    try:
        fd = os.open(path, READ_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
            try:
                mode = os.lstat(path, dir_fd=dir_fd).st_mode
            except OSError:
                mode = stat.S_IFLNK if exc.errno != errno.ENXIO else stat.S_IFSOCK
            raise NotRegular(exc.errno, _kind(mode), path) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(errno.EINVAL, _kind(mode), path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str, limit: int, *, dir_fd: int | None = None) -> Read:
    """Read at most ``limit`` bytes of the regular file ``path`` (see ``open_regular``)."""
    fd = open_regular(path, dir_fd=dir_fd)
    try:
        size = os.fstat(fd).st_size
        chunks = []
        left = limit
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return Read(data, max(size, len(data)))
    finally:
        os.close(fd)


def _parts_below(root: str, path: str) -> list[str]:
    """The names leading from ``root`` to ``path``; ValueError when it is not below."""
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    parts = rel.split(os.sep)
    if rel == os.curdir or os.pardir in parts or os.path.isabs(rel):
        raise ValueError("%s is not inside %s" % (path, root))
    return parts


def open_dir_below(root: str, names: list[str]) -> int:
    """A descriptor of the folder ``root/names...``, opened one name at a time and
    never through a link (``NotRegular`` names the first name that is one)."""
    fd = os.open(root, DIR_FLAGS)
    try:
        for i, name in enumerate(names):
            try:
                sub = os.open(name, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    try:
                        mode = os.lstat(name, dir_fd=fd).st_mode
                    except OSError:
                        mode = stat.S_IFLNK
                    raise NotRegular(
                        exc.errno, _kind(mode), os.path.join(root, *names[: i + 1])
                    ) from None
                raise
            os.close(fd)
            fd = sub
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_below(root: str, path: str, limit: int) -> Read:
    """Read the regular file ``path`` inside the folder ``root``, reached from
    ``root`` without following a link anywhere on the way (see ``open_regular``)."""
    parts = _parts_below(root, path)
    folder = open_dir_below(root, parts[:-1])
    try:
        try:
            return read_regular(parts[-1], limit, dir_fd=folder)
        except NotRegular as exc:
            raise NotRegular(exc.errno, exc.strerror, path) from None
    finally:
        os.close(folder)


def check_dir_below(root: str, path: str) -> None:
    """Raise ``NotRegular`` when a link stands anywhere between ``root`` and the
    folder ``path`` (the folder itself included), ``OSError`` when it is missing."""
    if os.path.abspath(path) == os.path.abspath(root):
        return
    os.close(open_dir_below(root, _parts_below(root, path)))


def read_fd(fd: int, limit: int) -> Read:
    """Read at most ``limit`` bytes of an open regular file from its start."""
    size = os.fstat(fd).st_size
    chunks = []
    offset = 0
    pread = getattr(os, "pread", None)
    if pread is None:
        return _read_from_start(fd, limit, size)
    while offset < limit:
        chunk = pread(fd, min(limit - offset, 1 << 20), offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    data = b"".join(chunks)
    return Read(data, max(size, len(data)))


def _read_from_start(fd: int, limit: int, size: int) -> Read:
    """``read_fd`` without ``pread`` (Windows): read from the start, then put the
    file's offset back where it was, since the child writes through the same one."""
    was = os.lseek(fd, 0, os.SEEK_CUR)
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        got = 0
        while got < limit:
            chunk = os.read(fd, min(limit - got, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.lseek(fd, was, os.SEEK_SET)
    data = b"".join(chunks)
    return Read(data, max(size, len(data)))


def _chmod_dir(name: str, dir_fd: int) -> None:
    """Give the folder ``name`` (never a link) the modes needed to empty it."""
    if not _PATH:
        return
    try:
        fd = os.open(name, _PATH | _NOFOLLOW | _CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return
    try:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            # chmod through /proc acts on the folder the descriptor holds, and the
            # descriptor was opened without following a link.
            os.chmod("/proc/self/fd/%d" % fd, 0o700)
    except OSError:
        pass
    finally:
        os.close(fd)


def _open_dir(name: str, dir_fd: int) -> int | None:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        _chmod_dir(name, dir_fd)
    except OSError:
        return None
    try:
        return os.open(name, DIR_FLAGS, dir_fd=dir_fd)
    except OSError:
        return None


def _unlink(name: str, dir_fd: int) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except FileNotFoundError:
        pass


MAX_OPEN = 32  # descriptors held at once while removing a deep tree


def remove_tree(path: str) -> bool:
    """Remove the folder ``path`` and everything in it; True when it is gone.

    Never follows a symbolic link (a link is removed, not its target), never
    changes the mode of anything but a folder inside the tree, and works through
    any depth with a bounded number of open descriptors: a folder deeper than
    ``MAX_OPEN`` levels is moved up to the top of the tree and emptied from there.
    """
    if not _BY_DIR_FD:
        return _remove_plainly(path)
    parent, base = os.path.split(os.path.abspath(path))
    try:
        pfd = os.open(parent, DIR_FLAGS)
    except OSError:
        return not os.path.lexists(path)
    try:
        try:
            mode = os.lstat(base, dir_fd=pfd).st_mode
        except FileNotFoundError:
            return True
        if not stat.S_ISDIR(mode):
            _unlink(base, pfd)
            return not os.path.lexists(path)
        top = _open_dir(base, pfd)
        if top is None:
            return False
        try:
            _empty(top)
        finally:
            os.close(top)
        try:
            os.rmdir(base, dir_fd=pfd)
        except OSError:
            pass
        return not os.path.lexists(path)
    finally:
        os.close(pfd)


# Paths relative to an open folder (Linux, macOS; not Windows).
_BY_DIR_FD = {os.open, os.unlink, os.rmdir, os.stat} <= os.supports_dir_fd


def _remove_plainly(path: str) -> bool:
    """``remove_tree`` where paths cannot be taken relative to an open folder
    (Windows): ``shutil.rmtree``, which removes a link or junction without entering
    it, making read-only entries writable on the way."""

    def writable(func: Any, name: str, _: Any) -> None:
        os.chmod(name, stat.S_IWRITE | stat.S_IREAD | stat.S_IEXEC)
        func(name)

    if os.path.isdir(path) and not os.path.islink(path):
        if sys.version_info >= (3, 12):
            shutil.rmtree(path, onexc=writable)
        else:
            shutil.rmtree(path, onerror=writable)
    elif os.path.lexists(path):
        os.unlink(path)
    return not os.path.lexists(path)


def empty_dir(fd: int) -> None:
    """Empty the open folder ``fd`` as ``remove_tree`` does (never following a link);
    the folder itself stays, and so does the descriptor."""
    _empty(fd)


def _empty(top: int) -> None:
    """Empty the open folder ``top`` without recursion and without following links."""
    stack: list[int] = [top]  # open folders, top first; each is emptied before it is closed
    moved = 0
    tried: set[int] = set()  # inodes of folders already emptied as far as possible
    try:
        _chmod_fd(top)
        rounds = 0
        while stack:
            rounds += 1
            if rounds > 10_000_000:  # a tree that keeps growing: give up, never hang
                return
            fd = stack[-1]
            descended = False
            try:
                entries = list(os.scandir(fd))
            except OSError:
                entries = []
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if not is_dir:
                    try:
                        _unlink(name, fd)
                    except IsADirectoryError:
                        is_dir = True
                    except OSError:
                        pass
                    if not is_dir:
                        continue
                try:
                    os.rmdir(name, dir_fd=fd)
                    continue
                except FileNotFoundError:
                    continue
                except OSError:
                    pass
                try:
                    if entry.inode() in tried:
                        continue
                except OSError:
                    continue
                if len(stack) >= MAX_OPEN:
                    moved += 1
                    try:
                        os.rename(name, ".deep-%d" % moved, src_dir_fd=fd, dst_dir_fd=top)
                    except OSError:
                        pass
                    continue
                sub = _open_dir(name, fd)
                if sub is None:
                    continue
                _chmod_fd(sub)
                stack.append(sub)
                descended = True
                break
            if descended:
                continue
            # ``fd`` is as empty as it can be made: close it and remove it from its parent.
            stack.pop()
            try:
                tried.add(os.fstat(fd).st_ino)
            except OSError:
                pass
            if fd != top:
                os.close(fd)
    finally:
        for fd in stack:
            if fd != top:
                os.close(fd)


def _chmod_fd(fd: int) -> None:
    try:
        os.fchmod(fd, 0o700)
    except OSError:
        pass
