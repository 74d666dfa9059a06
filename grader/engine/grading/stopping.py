"""SIGTERM as an exception, so that a stopped grading still removes its child's folder.

The command lines and the batch's worker processes turn SIGTERM into ``Terminated``:
the sandbox in use then kills its child and removes its folder on the way out.
Imports the standard library only.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


class Terminated(Exception):
    """SIGTERM arrived while grading."""


def _on_term(signum: int, frame: object) -> None:
    # Once is enough: further signals (a submission may send many) are ignored
    # while the grader cleans up and says what happened.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Terminated()


def raise_on_term() -> None:
    """From now on, SIGTERM raises ``Terminated`` (a batch worker's initializer)."""
    signal.signal(signal.SIGTERM, _on_term)


@contextmanager
def terminated_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises ``Terminated`` (in the main thread only)."""
    try:
        previous = signal.signal(signal.SIGTERM, _on_term)
    except ValueError:  # not the main thread: signals cannot reach it anyway
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
