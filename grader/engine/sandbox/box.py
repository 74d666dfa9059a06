"""The sandbox as callers use it: a running child, and the op that calls the module's
report writer in it."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from grader.engine.sandbox import reportfiles
from grader.engine.sandbox.decoding import OffProtocol, decode
from grader.engine.sandbox.disk import DISK_DETAIL
from grader.engine.sandbox.encoding import dumps
from grader.engine.sandbox.limits import ANSWER_SLACK, MAX_LINE, MIN_ANSWER, SPENT
from grader.engine.sandbox.pipe import Died, TooLarge
from grader.engine.sandbox.records import Written
from grader.engine.sandbox.running import Running


class Sandbox(Running):
    """Runs one student module in a child process, call by call.

    ``names`` are the names the module is asked for and ``constants`` those of them
    that are values, both given by the lab.  Use as a context manager: leaving it
    kills the child and removes its temporary directory.  ``calls``,
    ``child_seconds`` and ``restarts`` count what ``run`` did.
    """

    @property
    def exposed(self) -> bool:
        """A child of a user of its own that could still read the grader's files (no
        Landlock); bubblewrap hides them by itself, and process mode is warned of apart."""
        return self.isolation == "user" and self.walled is False

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def write_report(
        self,
        files: Sequence[str],
        *,
        fn: str = "write_report",
        timeout: float | None = None,
        max_bytes: int = 1 << 20,
    ) -> Written:
        """Call ``fn(folder)`` in the child with a fresh, empty folder; the files it wrote.

        The child reads each of ``files`` itself (never through a link, at most
        ``max_bytes + 1`` bytes) and sends the bytes in its answer; nothing is read
        from the folder here.  ``timeout`` (default: the per-call limit) bounds the
        whole call, and the submission's time cap bounds it too: its time (and a
        restart it needs) is charged to ``fn``.  An answer off the protocol is the
        writer's crash.  The writer may have left anything behind, so a later ``run``
        starts a new child.  A writer that passes the child's share of disk is
        stopped (``"disk"``).
        """
        written = self._write_report(files, fn, timeout, max_bytes)
        if self.disk_spent():
            self._kill()
            return Written("disk", {}, called=written.called, detail=DISK_DETAIL)
        if written.kind in ("raised", "crashed", "timeout"):
            self.machine_check()
        return written

    def _write_report(
        self, files: Sequence[str], fn: str, timeout: float | None, max_bytes: int
    ) -> Written:
        limit = self.timeout if timeout is None else float(timeout)
        if self.loaded is None:
            self.load()
        if self.loaded is None or not self.loaded.ok:
            return Written("not loaded", {})
        if self.budget.over():
            return Written("budget", {}, detail=SPENT)
        if self._proc is None or self._proc.poll() is not None:
            self.budget.restarts += 1
            began = time.monotonic()
            again = self._load()
            self.budget.charge(fn, time.monotonic() - began)
            if not again.ok:
                self._stop()
                if self.budget.over():
                    return Written("budget", {}, detail=SPENT)
                return Written("crashed", {}, detail="the module could not be loaded again")
        pipe = self._pipe
        assert pipe is not None
        folder = "report-" + os.urandom(6).hex()  # made by the child in its own folder
        message = {
            "op": "report",
            "fn": fn,
            "dir": folder,
            "files": list(files),
            "max_bytes": max_bytes,
        }
        size = MIN_ANSWER + ANSWER_SLACK + len(files) * (4 * ((max_bytes + 3) // 3) + 256)
        size = min(size, MAX_LINE)
        start = time.monotonic()
        own = start + limit
        deadline = min(own, self.budget.cap())
        self._stale = fn
        try:
            try:
                line = None
                if pipe.send((dumps(message) + "\n").encode(), deadline):
                    while True:
                        line = pipe.line(deadline, size)
                        if line is None:
                            break
                        data = decode(line)
                        if type(data) is dict and data.get("op") == "reported":
                            break
                        if not (type(data) is dict and ("op" in data or "id" in data)):
                            raise OffProtocol("not the answer to report")
                        # else a copy of an earlier line, written by the student's code
                if line is None and deadline < own:
                    self._kill()  # the submission's time ran out, not the writer's
                    return Written("budget", {}, elapsed=time.monotonic() - start, detail=SPENT)
                if line is None:
                    _, stack = self._where(pipe, -1, size)
                    self._kill()
                    detail = "%s did not finish within %g s" % (fn, limit)
                    called = tuple(n for n in dict.fromkeys(stack) if n in self.names)
                    return Written("timeout", {}, called=called, detail=detail)
                got = reportfiles.reported(data, files, max_bytes, self.names)
            except Died:
                return Written("crashed", {}, detail="%s during %s" % (self._died(), fn))
            except TooLarge:
                self._kill()
                return Written("crashed", {}, detail="answer too large")
            except OffProtocol:
                self._kill()
                return Written("crashed", {}, detail="the answer did not follow the protocol")
        finally:
            self.budget.charge(fn, time.monotonic() - start)
        if got.absent:
            return Written(got.absent, {})
        common: dict[str, Any] = {"called": got.called, "elapsed": got.elapsed}
        if not got.ok:
            return Written("raised", {}, raised=got.raised, traceback=got.traceback, **common)
        return Written("written", got.files, **common)
