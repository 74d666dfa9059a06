"""What a lab's contract is made of: the names a student module defines, their kinds."""

from __future__ import annotations

import enum

from grader.engine.frozen import frozen


class Answer(str, enum.Enum):
    """What kind of value a contract name gives back; ``compare.diff`` judges each kind."""

    INT = "int"  # an exact int (never bool, never float)
    FLOAT = "float"  # a number judged with the float tolerance
    VECTOR = "vector"  # a list or tuple of numbers
    MATRIX = "matrix"  # a list or tuple of vectors
    SHAPE = "shape"  # a tuple (rows, cells) of two ints
    COUNTS = "counts"  # a dict of str -> int
    INDICES = "indices"  # a list or tuple of ints


@frozen
class Name:
    """One graded name of the student module: a constant or a function."""

    name: str
    step: int
    params: tuple[str, ...] | None  # None for a constant
    answer: Answer
    summary: str

    @property
    def is_constant(self) -> bool:
        return self.params is None

    @property
    def signature(self) -> str:
        if self.params is None:
            return self.name
        return "%s(%s)" % (self.name, ", ".join(self.params))


def function(name: str, step: int, params: str, answer: Answer, summary: str) -> Name:
    """A function of the contract; ``params`` are its parameters' names, space separated."""
    return Name(name, step, tuple(p for p in params.split() if p), answer, summary)


# Pseudo-functions that checks are attributed to besides the contract's names.
MODULE = "imports"
REPORT = "report"

# The float tolerance, numpy's asymmetric isclose: |got - expected| <= ATOL + RTOL * |expected|.
# A lab sizes its inputs so that any summation order stays far inside it.
RTOL = 1e-9
ATOL = 1e-9
