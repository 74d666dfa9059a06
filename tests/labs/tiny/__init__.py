"""A second, tiny lab: ``mean`` and ``scale`` of a list of numbers.

It exists to show that a lab is a folder: its contract, oracle, checks, hints and
texts, graded by the same engine through the same command line
(``embed-grader --lab tests/labs/tiny module.py``), with no edit to the engine.
"""

from __future__ import annotations

import random
from pathlib import Path

from grader.engine.lab import Hints, Lab
from grader.engine.vocabulary.contract import Answer, Name, function
from grader.engine.vocabulary.expect import Case, Check, Raises, Returns

from . import oracle

HERE = Path(__file__).resolve().parent

NAMES = (
    Name("WIDTH", 1, None, Answer.INT, "how many numbers a row holds, 4"),
    function("mean", 1, "xs", Answer.FLOAT, "the arithmetic mean; [] raises ValueError"),
    function("scale", 2, "xs k", Answer.VECTOR, "a new list of every number times k"),
)


def _numbers(rng: random.Random, n: int) -> list[float]:
    return [rng.uniform(-10.0, 10.0) for _ in range(n)]


def _mean_values(rng: random.Random) -> list[Case]:
    lists = [[2.0], [1.0, 3.0], [0.5, 0.25, 0.125]] + [
        _numbers(rng, rng.randint(2, 40)) for _ in range(6)
    ]
    return [Case("mean", (xs,), Returns(Answer.FLOAT, oracle.mean(xs))) for xs in lists]


def _mean_empty(rng: random.Random) -> list[Case]:
    return [Case("mean", ([],), Raises("ValueError"))]


def _scale_values(rng: random.Random) -> list[Case]:
    cases = [([], 2.0), ([1.0], 0.0), ([1.0, -2.0], -1.5)]
    cases += [(_numbers(rng, rng.randint(1, 30)), rng.uniform(-3.0, 3.0)) for _ in range(5)]
    return [Case("scale", (xs, k), Returns(Answer.VECTOR, oracle.scale(xs, k))) for xs, k in cases]


CHECKS = (
    Check("mean.values", "mean", 1, _mean_values, weight=2),
    Check("mean.empty", "mean", 1, _mean_empty),
    Check("scale.values", "scale", 2, _scale_values, weight=2),
)


class TinyHints(Hints):
    """The one mistake this lab knows: dividing by one less than the length."""

    def explain(self, fn: str, args: tuple[object, ...], got: object) -> list[str]:
        xs = args[0]
        if fn == "mean" and isinstance(xs, list) and len(xs) > 1 and isinstance(got, float):
            wrong = sum(xs) / (len(xs) - 1)
            if abs(got - wrong) <= 1e-9 + 1e-9 * abs(wrong):
                return ["hint.mean.one_less"]
        return []


LAB = Lab(
    name="tiny",
    module_file="stats.py",
    names=NAMES,
    constants={"WIDTH": 4},
    steps={0: 2, 1: 4, 2: 4},
    checks=CHECKS,
    messages=HERE / "messages",
    hints=TinyHints(),
    mutable_args=("mean", "scale"),
    solutions=(HERE / "oracle.py",),
)
