"""The parent's end of the pipe to the child: non-blocking writes and reads of
lines, each bounded by a deadline and a size."""

from __future__ import annotations

import contextlib
import fcntl
import os
import selectors
import subprocess
import time

from grader.engine.sandbox.limits import MAX_LINE

PIPE_SIZE = 1 << 20  # bytes the child may write ahead of this side's reading


class Died(Exception):
    """The child closed its end of the protocol."""


class TooLarge(Exception):
    """The child sent a line longer than MAX_LINE."""


class Pipe:
    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.rfd = proc.stdout.fileno()
        self.wfd = proc.stdin.fileno()
        os.set_blocking(self.rfd, False)
        os.set_blocking(self.wfd, False)
        # A larger pipe from the child (Linux): a long answer does not stop the child
        # until this side, busy judging the last one, comes to read it.
        with contextlib.suppress(OSError, AttributeError):
            fcntl.fcntl(self.rfd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        self.buf = bytearray()
        self.scan = 0  # self.buf[:scan] holds no newline
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.rfd, selectors.EVENT_READ)

    def close(self) -> None:
        self.selector.close()

    def _read(self) -> None:
        try:
            chunk = os.read(self.rfd, 1 << 20)
        except BlockingIOError:
            return
        if not chunk:
            raise Died()
        self.buf += chunk

    def send(self, data: bytes, deadline: float) -> bool:
        """Write data; False when the deadline passed first."""
        view = memoryview(data)
        self.selector.register(self.wfd, selectors.EVENT_WRITE)
        try:
            while view:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                for key, _ in self.selector.select(left):
                    if key.fd == self.wfd:
                        try:
                            view = view[os.write(self.wfd, view) :]
                        except BlockingIOError:
                            pass
                        except (BrokenPipeError, ConnectionResetError):
                            raise Died() from None
                    else:
                        self._read()
            return True
        finally:
            self.selector.unregister(self.wfd)

    def line(self, deadline: float, limit: int = MAX_LINE) -> bytes | None:
        """The next line without its newline; None when the deadline passed first.

        A line longer than ``limit`` bytes raises TooLarge before it is all read.
        """
        while True:
            at = self.buf.find(b"\n", self.scan)
            if at > limit:
                raise TooLarge()
            if at >= 0:
                out = bytes(self.buf[:at])
                del self.buf[: at + 1]
                self.scan = 0
                return out
            self.scan = len(self.buf)
            if self.scan > limit:
                raise TooLarge()
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if self.selector.select(left):
                self._read()
