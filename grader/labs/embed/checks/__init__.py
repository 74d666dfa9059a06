"""The checks: for each contract function, which inputs it is given and what must come back.

A ``Check`` builds its ``Case``s from its own ``random.Random``.  Each case holds the
arguments (sent to the child) and an expectation (kept in the parent).  Cases are
listed smallest first, so the first failing case is the smallest input that shows
the mistake.

The builders live in ``steps_1_3`` and ``steps_4_7``, and ``course`` holds the course's
own worked examples (one ``FUNCTION.course`` check per function they call); each
registers itself in ``registry.CHECKS`` when its module is imported, in the order of
the contract.  They import the engine's ``expect``, and the lab's contract, oracle,
cases and expectations.
"""

from __future__ import annotations

import functools

from grader.engine.vocabulary.expect import Case, Check, Open, Raises, Returns, build
from grader.engine.vocabulary.expect import plan as plan_cases
from grader.labs.embed.checks import (  # noqa: F401 - they register the checks
    course,
    steps_1_3,
    steps_4_7,
)
from grader.labs.embed.checks.registry import CHECKS, check, ret
from grader.labs.embed.contract import BY_NAME
from grader.labs.embed.expect import Multiplies, Ranks

course.register()

__all__ = [
    "CHECKS",
    "Case",
    "Check",
    "Multiplies",
    "Open",
    "Raises",
    "Ranks",
    "Returns",
    "build",
    "check",
    "plan",
    "ret",
]


LIST_PARAMS = ("table", "matrix", "ids", "vec", "hidden", "a", "b")
MUTABLE_ARGS = tuple(
    n.name for n in BY_NAME.values() if n.params and any(p in LIST_PARAMS for p in n.params)
)


@functools.lru_cache(maxsize=4)
def plan(seed: int, ids: tuple[str, ...]) -> tuple[tuple[Check, tuple[Case, ...]], ...]:
    """The cases of the selected checks for one seed, drawn once and shared.

    A class graded with one seed faces the same cases: they are drawn once, not once
    per submission.  Nothing downstream changes a case (the child gets copies).
    """
    return plan_cases(CHECKS, seed, ids)
