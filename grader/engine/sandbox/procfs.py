"""What Linux's /proc says of a process: its state and parentage, whether it has
ended, its environment.  Standard library only; every reader answers "gone" rather
than raise when the process is not there (or /proc is not)."""

from __future__ import annotations

import os

ENDED = (b"Z", b"X")  # a zombie, or dead


def stat(pid: str) -> tuple[bytes, int, int, int] | None:
    """(state, ppid, process group, session) of a process; None if it is gone."""
    try:
        with open("/proc/%s/stat" % pid, "rb") as f:
            data = f.read()
        fields = data[data.rindex(b")") + 2 :].split()
        return fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    except (OSError, ValueError, IndexError):
        return None


def threads(pid: str) -> list[str]:
    """The ids of the process's threads (its first one included, even ended)."""
    try:
        return os.listdir("/proc/%s/task" % pid)
    except OSError:
        return []


def ended(pid: str, state: bytes | None = None) -> bool:
    """Gone, or a zombie none of whose threads runs: nothing of it can run again, and
    no signal removes it (only its parent's wait does).  A process whose first
    thread ended while others run shows as a zombie too: it has not ended."""
    if state is None:
        st = stat(pid)
        if st is None:
            return True
        state = st[0]
    return state in ENDED and len(threads(pid)) <= 1


def environ(pid: str) -> bytes:
    """The process's environment.  Once its first thread has ended the process's own
    file reads empty: another thread's file still shows it (all share one memory, so
    one of them is enough)."""
    paths = ["/proc/%s/environ" % pid]
    paths += ["/proc/%s/task/%s/environ" % (pid, tid) for tid in threads(pid) if tid != pid][:1]
    for path in paths:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if data:
            return data
    return b""
