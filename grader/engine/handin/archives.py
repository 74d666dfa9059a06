"""A hand-in that is a ``.zip``: unpacked within limits into a folder of its own, or
refused with the reason.

The archive's bytes come from a student, so nothing in it is trusted: the listing is
read once, before anything is written, and refused when it has more than
``MAX_MEMBERS`` entries, more than ``MAX_TOTAL`` bytes unpacked in all (as the
archive states them, and again as they are read), a name that is absolute, holds
``..`` or a drive, a symbolic link, a device or any entry that is not a file or a
folder, or is encrypted.  Folders are made by the unpacking itself, never taken
from the archive; nested archives are not unpacked.  Like ``tarfile``'s
``data_filter``, nothing written can land outside the folder.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from grader.engine.frozen import frozen

if TYPE_CHECKING:
    import zipfile

MAX_ARCHIVE = 32 * 1024 * 1024  # the .zip file itself
MAX_MEMBERS = 200
MAX_TOTAL = 32 * 1024 * 1024  # unpacked
MAX_DEPTH = 6


class Refused(Exception):
    """The archive is not unpacked; ``str()`` is the reason in English, ``code`` and
    ``params`` name the message (``handin.zip_*``)."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@frozen
class Unpacked:
    folder: Path
    names: tuple[str, ...]  # the files written, paths inside ``folder``


def _safe_name(raw: str) -> str | None:
    """The member's path as written inside the folder, else None (refused)."""
    name = raw.replace("\\", "/")
    path = PurePosixPath(name)
    if name.startswith("/") or ":" in name or "\0" in name:
        return None
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts) or len(parts) > MAX_DEPTH:
        return None
    return "/".join(parts)


def unpack(archive: Path, folder: Path) -> Unpacked:
    """Unpack ``archive`` (a regular file, never a link) into the empty ``folder``."""
    try:
        size = os.lstat(archive).st_size
    except OSError as exc:
        raise Refused("handin.zip_unreadable", error=exc.strerror or type(exc).__name__) from None
    if size > MAX_ARCHIVE:
        raise Refused("handin.zip_large", limit=MAX_ARCHIVE // (1024 * 1024))
    try:
        fd = os.open(archive, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise Refused("handin.zip_unreadable", error=exc.strerror or type(exc).__name__) from None
    import zipfile  # here: a grading of one module asks only whether a name is an archive's

    with os.fdopen(fd, "rb") as raw:
        if not stat.S_ISREG(os.fstat(raw.fileno()).st_mode):
            raise Refused("handin.zip_unreadable", error="not a regular file")
        try:
            with zipfile.ZipFile(raw) as zf:
                return _unpack(zf, folder)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError) as exc:
            if isinstance(exc, Refused):
                raise
            raise Refused("handin.zip_broken", error=str(exc)[:200]) from None
        except NotImplementedError:
            raise Refused("handin.zip_broken", error="unsupported compression") from None


def _unpack(zf: zipfile.ZipFile, folder: Path) -> Unpacked:
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise Refused("handin.zip_many", limit=MAX_MEMBERS)
    plan: list[tuple[zipfile.ZipInfo, str]] = []
    total = 0
    for info in infos:
        if info.flag_bits & 0x1:
            raise Refused("handin.zip_encrypted")
        mode = info.external_attr >> 16
        if info.is_dir():
            continue
        if stat.S_IFMT(mode) not in (0, stat.S_IFREG):
            raise Refused("handin.zip_link", name=info.filename[:100])
        name = _safe_name(info.filename)
        if name is None:
            raise Refused("handin.zip_path", name=info.filename[:100])
        if PurePosixPath(name).parts[0] == "__MACOSX":
            continue
        total += info.file_size
        if total > MAX_TOTAL:
            raise Refused("handin.zip_large", limit=MAX_TOTAL // (1024 * 1024))
        plan.append((info, name))
    written: list[str] = []
    seen: set[str] = set()
    left = MAX_TOTAL
    for info, name in plan:
        if name.lower() in seen:
            raise Refused("handin.zip_path", name=info.filename[:100])
        seen.add(name.lower())
        target = folder.joinpath(*PurePosixPath(name).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        with zf.open(info) as src:
            data = src.read(min(info.file_size, left) + 1)
        if len(data) > info.file_size or len(data) > left:
            raise Refused("handin.zip_large", limit=MAX_TOTAL // (1024 * 1024))
        left -= len(data)
        # "x": never over a file already there (two names that fold to one, a link).
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        written.append(name)
    return Unpacked(folder, tuple(written))
