"""The list of checks, and the decorator each case builder registers itself with."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from grader.engine.vocabulary.expect import Case, Check, Returns
from grader.labs.embed.contract import BY_NAME

CHECKS: list[Check] = []


def check(
    function: str, name: str, weight: int = 1, advisory: bool = False
) -> Callable[[Callable[[random.Random], list[Case]]], Callable[[random.Random], list[Case]]]:
    """Register the decorated case builder as the check ``function.name``."""

    def register(
        build: Callable[[random.Random], list[Case]],
    ) -> Callable[[random.Random], list[Case]]:
        cid = "%s.%s" % (function, name)
        CHECKS.append(Check(cid, function, BY_NAME[function].step, build, weight, advisory))
        return build

    return register


def ret(fn: str, args: tuple[Any, ...], value: Any) -> Case:
    return Case(fn, args, Returns(BY_NAME[fn].answer, value))
