"""The tiny lab's right answers, computed in the grader's process only."""

from __future__ import annotations

import math


def mean(xs: list[float]) -> float:
    if not xs:
        raise ValueError("the mean of no numbers")
    return math.fsum(xs) / len(xs)


def scale(xs: list[float], k: float) -> list[float]:
    return [x * k for x in xs]
