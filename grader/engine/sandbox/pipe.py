"""The parent's end of the pipe to the child: writes and reads of lines, each
bounded by a deadline and a size.

Where pipes can be polled (Linux, macOS) this side writes and reads without
blocking; where they cannot (Windows, or wherever ``fcntl`` is missing) a thread
reads the child's pipe and another writes each message, with the same deadlines.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import queue
import selectors
import subprocess
import threading
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
        with contextlib.suppress(OSError, AttributeError, ImportError):
            fcntl = importlib.import_module("fcntl")
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
            self._more(left)

    def _more(self, left: float) -> None:
        """Wait up to ``left`` seconds for bytes from the child and add them."""
        if self.selector.select(left):
            self._read()


CHUNKS = 64  # chunks of up to 1 MiB a reading thread holds before it waits


class ThreadPipe(Pipe):
    """A pipe read by a thread of its own and written by another: for pipes that
    cannot be polled.  At most ``CHUNKS`` MiB wait to be taken."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdin is not None and proc.stdout is not None
        self.rfd = proc.stdout.fileno()
        self.wfd = proc.stdin.fileno()
        self.buf = bytearray()
        self.scan = 0
        self.ended = False
        self.chunks: queue.Queue[bytes] = queue.Queue(CHUNKS)
        threading.Thread(target=self._pump, name="embed-grader-pipe", daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                chunk = os.read(self.rfd, 1 << 20)
            except OSError:
                chunk = b""
            self.chunks.put(chunk)
            if not chunk:
                return

    def close(self) -> None:
        pass

    def _more(self, left: float) -> None:
        if self.ended:
            raise Died()
        try:
            chunk = self.chunks.get(timeout=max(left, 0.0))
        except queue.Empty:
            return
        if not chunk:
            self.ended = True
            raise Died()
        self.buf += chunk

    def send(self, data: bytes, deadline: float) -> bool:
        done = threading.Event()
        failed: list[OSError] = []

        def write() -> None:
            view = memoryview(data)
            try:
                while view:
                    view = view[os.write(self.wfd, view) :]
            except OSError as exc:
                failed.append(exc)
            finally:
                done.set()

        threading.Thread(target=write, name="embed-grader-send", daemon=True).start()
        if not done.wait(max(deadline - time.monotonic(), 0.0)):
            return False
        if failed:
            raise Died()
        return True


def pollable() -> bool:
    """Whether the child's pipes can be polled here."""
    if os.name == "nt":
        return False
    try:
        importlib.import_module("fcntl")
    except ImportError:
        return False
    return True


def make_pipe(proc: subprocess.Popen[bytes]) -> Pipe:
    """The parent's end of the pipes of ``proc``, polled where pipes can be."""
    return Pipe(proc) if pollable() else ThreadPipe(proc)
