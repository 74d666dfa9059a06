"""Pairs of calls: a function called again on the table it saw, changed in between.

Each pair calls the function first on one set of inputs, then on another of the same
shape, either on the very same list objects changed in place ("changed") or on new
lists made where the first ones were ("renewed").  The two answers differ, so an
answer kept from the first call (a cache keyed by ``id(table)``, a global, a default
argument, a function attribute) fails every time, in the function that kept it.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from grader.engine.vocabulary.expect import Case
from grader.labs.embed import cases as gen
from grader.labs.embed.contract import BY_NAME
from grader.labs.embed.expect import Again, Ranks

RENEWS = ("changed", "renewed")


def pairs(
    rng: random.Random,
    fn: str,
    draw: Callable[[random.Random], tuple[Any, ...]],
    answer: Callable[..., Any],
    keep: tuple[int, ...] = (),
) -> list[Case]:
    """One pair per way of renewing: ``draw`` makes the arguments of one call (both
    calls get the same shape), ``answer`` gives the right answer of a call.  The
    arguments at the positions ``keep`` have the same values in both calls, so that an
    answer kept by the identity of the others and the values of these fails too."""
    out = []
    for renew in RENEWS:
        before = draw(rng)
        after = _keeping(draw(rng), before, keep)
        while answer(*before) == answer(*after):
            after = _keeping(draw(rng), before, keep)
        expect = Again(BY_NAME[fn].answer, answer(*after), answer(*before))
        out.append(Case(fn, after, expect, before=before, renew=renew))
    return out


def _keeping(
    drawn: tuple[Any, ...], before: tuple[Any, ...], keep: tuple[int, ...]
) -> tuple[Any, ...]:
    """``drawn`` with copies of the values of ``before`` at the positions ``keep``."""
    return tuple(copy.deepcopy(before[i]) if i in keep else a for i, a in enumerate(drawn))


def ranking_pairs(rng: random.Random, fn: str, by: str, nearest: Callable[..., Any]) -> list[Case]:
    """Pairs for a neighbour list: the same probe and k on two tables ranked apart."""
    out = []
    for renew in RENEWS:
        before = (gen.table(rng, 6, 3), rng.randrange(6), 4)
        after = (gen.table(rng, 6, 3), before[1], 4)
        while nearest(*after) == nearest(*before):
            after = (gen.table(rng, 6, 3), before[1], 4)
        out.append(Case(fn, after, Ranks(by, 4), before=before, renew=renew))
    return out
