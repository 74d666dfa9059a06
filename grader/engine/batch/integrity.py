"""Noticing that grading one submission changed the grader or another submission.

Where the children run as the grader's own user (``--sandbox process`` without
root), a submission can write every file the grader can.  ``batch`` records the
state of the files that decide grades before the first submission runs (the
grader's package, its compiled files and folders, and every submission's module and
report files) and compares after each submission.

A file's state is what ``lstat`` says of it: its inode, type and mode, size, and
modification and change times in nanoseconds.  The change time (ctime) moves on
every write, rename, chmod or ``utime`` and cannot be set by an unprivileged user,
so a file written and then put back as it was still counts as changed, and one
``lstat`` per file is the whole cost of a check (see tests/bench_integrity.py).
A folder's state changes when an entry is added, removed or renamed in it.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Iterable
from pathlib import Path

Signature = tuple[int, int, int, int, int] | None  # None: the file does not exist
# The child's program: its modules are parts of one program, never imported alone.
CHILD = "grader.engine._child"


def signature(path: str) -> Signature:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:  # unreadable now: a change of its own
        return (-1, exc.errno or 0, 0, 0, 0)
    return (st.st_ino, st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class Watch:
    """The recorded state of some files, each with a label for people."""

    def __init__(self) -> None:
        self._paths: list[str] = []
        self._labels: list[str] = []
        self._sigs: list[Signature] = []

    def __len__(self) -> int:
        return len(self._paths)

    def add(self, path: str | os.PathLike[str], label: str) -> None:
        p = os.fspath(path)
        self._paths.append(p)
        self._labels.append(label)
        self._sigs.append(signature(p))

    def add_all(self, paths: Iterable[tuple[str | os.PathLike[str], str]]) -> None:
        for path, label in paths:
            self.add(path, label)

    def changed(self) -> list[str]:
        """The labels of the files whose state differs from the recorded one."""
        return [
            label
            for path, label, sig in zip(self._paths, self._labels, self._sigs)
            if signature(path) != sig
        ]


def load_grader() -> None:
    """Import every module of the grader now, so that no compiled file the grader
    itself writes later looks like a change.  A module that does not import (a file
    an older install of the package left behind, say) is passed over: nothing of the
    grader imports it."""
    import grader

    for info in pkgutil.walk_packages(grader.__path__, "grader.", onerror=lambda name: None):
        child = info.name == CHILD or info.name.startswith(CHILD + ".")
        if info.name != "grader.__main__" and not child:
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: S112 - see the docstring
                continue


def grader_files(package: Path | None = None) -> list[tuple[Path, str]]:
    """The grader's folders and every file in them (compiled files included)."""
    if package is None:
        package = Path(__file__).resolve().parents[2]
    found: list[tuple[Path, str]] = []
    stack = [package]
    while stack:
        folder = stack.pop()
        found.append((folder, "the grader's folder %s" % folder))
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            else:
                found.append((Path(entry.path), "the grader's file %s" % entry.path))
    return found
