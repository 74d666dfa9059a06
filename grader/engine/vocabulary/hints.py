"""What a lab knows of its students' usual mistakes: the interface the engine asks.

Imports nothing of the grader: ``expect`` and ``lab`` both name it.
"""

from __future__ import annotations

from typing import Any


class Hints:
    """The known mistakes that give an outcome: their message codes, in the lab's order.

    A lab that knows its students' usual mistakes overrides these.  Each method
    lists every mistake that, run on these very arguments, gives this very outcome
    (the value and its type, or the exception); the engine shows one only when it
    does so for every failing case of a check.  A hint never changes a verdict.
    """

    def explain(self, fn: str, args: tuple[Any, ...], got: Any) -> list[str]:
        """The mistakes that answer ``got``."""
        return []

    def explain_raised(self, fn: str, args: tuple[Any, ...], exc: str) -> list[str]:
        """The mistakes that raise ``exc`` (a call that raised where it should have
        answered, or raised another exception than the one due)."""
        return []

    def explain_no_raise(self, fn: str, args: tuple[Any, ...], got: Any) -> list[str]:
        """The mistakes that answer ``got`` where an exception was due."""
        return []

    def guess_mutated(self, fn: str) -> str | None:
        """For a call that changed its arguments."""
        return "hint.inputs"
