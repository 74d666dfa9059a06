"""The time one submission may take: a cap on everything for the module, a budget per
function, and the calls that are not run once either is spent."""

from __future__ import annotations

import time
from collections.abc import Sequence

from grader.engine.sandbox.limits import BUDGET, MAX_RESTARTS, SPENT
from grader.engine.sandbox.records import Call, Outcome


class Budget:
    """What the calls of each function and the restarts they caused have taken so far,
    and which functions are not run any more (and why)."""

    def __init__(self, timeout: float, max_seconds: float) -> None:
        self.timeout = timeout
        self.max_seconds = max_seconds
        self.began: float | None = None  # when the first child was started
        self.restarts = 0
        self.spent: dict[str, float] = {}  # function -> seconds its calls took so far
        self.dead: dict[str, str] = {}  # function -> why its later calls are skipped
        self.because: dict[str, tuple[str, ...]] = {}  # dead function -> what it was running
        self.out_of_time: set[str] = set()  # dead because its calls and restarts took too long

    def begin(self) -> None:
        """The first child starts now: the submission's time counts from here."""
        if self.began is None:
            self.began = time.monotonic()

    def cap(self) -> float:
        """When everything for this module must be over (monotonic clock)."""
        began = self.began if self.began is not None else time.monotonic()
        return began + self.max_seconds

    def over(self) -> bool:
        return time.monotonic() >= self.cap() or self.restarts >= MAX_RESTARTS

    def charge(self, fn: str, seconds: float) -> None:
        """Count time against fn's budget; past it, fn's later calls are not run."""
        self.spent[fn] = self.spent.get(fn, 0.0) + seconds
        if self.spent[fn] >= BUDGET * self.timeout and fn not in self.dead:
            self.dead[fn] = "not run: %s used up its time budget" % fn
            self.out_of_time.add(fn)

    def limit(self, fn: str) -> float:
        """The time the next call of fn may take: the per-call limit, or less when fn
        has nearly used up its budget (BUDGET per-call limits over the whole run), so
        that a function slow on every call cannot stretch a run without bound."""
        left = BUDGET * self.timeout - self.spent.get(fn, 0.0)
        return max(min(self.timeout, left), 0.05)

    def skipped(self, c: Call) -> Outcome:
        """A call of a function that is not run any more."""
        return Outcome(
            c.id,
            c.fn,
            "skipped",
            called=self.because.get(c.fn, ()),
            detail=self.dead[c.fn],
            why="budget_fn" if c.fn in self.out_of_time else "",
        )

    def spend(self, results: list[Outcome | None], rest: list[int], calls: Sequence[Call]) -> None:
        """The submission's time is spent: the rest is not run, attributed to the function
        that took the most of it (its calls and the restarts they caused)."""
        top = max(self.spent, key=lambda fn: self.spent[fn]) if self.spent else ""
        for j in rest:
            if results[j] is None:
                c = calls[j]
                results[j] = Outcome(
                    c.id,
                    c.fn,
                    "skipped",
                    called=(top,) if top and top != c.fn else (),
                    detail=SPENT,
                    why="budget",
                )
