"""Comparing an answer with an expected value.

An answer arrives already decoded into plain values (see ``sandbox``), so nothing
here ever calls code the student wrote.  ``diff`` returns ``None`` when the answer
is acceptable, otherwise a ``Mismatch`` that says where and how it differs.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from math import isfinite
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.sandbox import Foreign
from grader.engine.vocabulary.contract import ATOL, RTOL, Answer


@frozen
class Mismatch:
    """Where an answer differs: ``path`` like ``[17]`` or ``[2][5]`` or ``["saved"]``."""

    path: str
    expected: Any
    got: Any
    reason: str  # a message code: "value", "type", "length", "nan", "keys", ...
    allowed: float | None = None  # the float tolerance at that place
    wrong: int = 1  # how many elements differ
    total: int = 1  # out of how many


def allowed_error(expected: float) -> float:
    """The tolerance: ATOL + RTOL * |expected| (numpy's asymmetric isclose)."""
    return ATOL + RTOL * abs(expected)


def type_name(value: Any) -> str:
    if isinstance(value, Foreign):
        return value.type
    return type(value).__name__


def _plain(value: Any) -> Any:
    """A subclass of float, list, tuple or dict is judged by its plain value.

    An int subclass stays foreign: counts must be of type int itself.
    """
    if isinstance(value, Foreign) and value.base in ("float", "list", "tuple", "dict"):
        return value.value
    return value


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def float_diff(expected: float, got: Any, path: str = "") -> Mismatch | None:
    got = _plain(got)
    if isinstance(got, Foreign) and got.base == "int":
        got = got.value
    if not is_number(got):
        return Mismatch(path, expected, got, "type")
    got = float(got)
    if math.isnan(expected) or math.isnan(got):
        if math.isnan(expected) and math.isnan(got):
            return None
        return Mismatch(path, expected, got, "nan")
    if math.isinf(expected) or math.isinf(got):
        return None if expected == got else Mismatch(path, expected, got, "value")
    tol = allowed_error(expected)
    if abs(got - expected) <= tol:
        return None
    return Mismatch(path, expected, got, "value", allowed=tol)


def int_diff(expected: int, got: Any, path: str = "") -> Mismatch | None:
    if type(got) is not int:
        return Mismatch(path, expected, got, "int_type")
    if got != expected:
        return Mismatch(path, expected, got, "value")
    return None


def _sequence(got: Any) -> Sequence[Any] | None:
    got = _plain(got)
    if isinstance(got, (list, tuple)):
        return got
    return None


_PLAIN_NUMBERS = frozenset((float, int))


def _all_close(expected: Sequence[float], seq: Sequence[Any]) -> bool:
    """The fast path: every element a plain finite float or int within tolerance."""
    if not _PLAIN_NUMBERS.issuperset(map(type, seq)):
        return False
    if seq == expected:  # equal numbers (a copied row, say): no arithmetic at all
        return True
    try:
        # Differences that add up to ATOL at most are each within tolerance (a nan or
        # an inf makes the sum nan or inf): one pass of builtins before the bound of
        # each element.
        if sum(map(abs, map(operator.sub, seq, expected))) <= ATOL:
            return True
    except OverflowError:  # an int too large for a float
        pass
    for e, g in zip(expected, seq):
        t = type(g)
        if t is not float and t is not int:
            return False
        if not abs(g - e) <= ATOL + RTOL * abs(e):
            return False  # also false for nan
    return True


def vector_diff(
    expected: Sequence[float], got: Any, path: str = "", count: bool = True
) -> Mismatch | None:
    """The first element that differs, with how many do (only the first without
    ``count``)."""
    seq = _sequence(got)
    if seq is None:
        return Mismatch(path, expected, got, "not_sequence")
    if len(seq) != len(expected):
        return Mismatch(path, len(expected), len(seq), "length")
    if _all_close(expected, seq):
        return None
    first: Mismatch | None = None
    wrong = 0
    for i, (e, g) in enumerate(zip(expected, seq)):
        if type(g) is float and type(e) is float and isfinite(g) and isfinite(e):
            # What float_diff decides for two finite floats, without its path text.
            if abs(g - e) <= ATOL + RTOL * abs(e):
                continue
            if first is not None:
                wrong += 1
                continue
        m = float_diff(e, g, "%s[%d]" % (path, i) if first is None else path)
        if m is not None:
            wrong += 1
            if first is None:
                first = m
                if not count:
                    break
    if first is None:
        return None
    return Mismatch(
        first.path, first.expected, first.got, first.reason, first.allowed, wrong, len(expected)
    )


def matrix_diff(
    expected: Sequence[Sequence[float]],
    got: Any,
    path: str = "",
    count: bool = True,
) -> Mismatch | None:
    seq = _sequence(got)
    if seq is None:
        return Mismatch(path, expected, got, "not_sequence")
    if len(seq) != len(expected):
        return Mismatch(path, len(expected), len(seq), "rows")
    first: Mismatch | None = None
    wrong = total = 0
    for r, (erow, grow) in enumerate(zip(expected, seq)):
        m = vector_diff(erow, grow, "%s[%d]" % (path, r), count)
        total += len(erow)
        if m is not None:
            if m.reason in ("not_sequence", "length") or not count:
                return m
            wrong += m.wrong
            if first is None:
                first = m
    if first is None:
        return None
    return Mismatch(
        first.path, first.expected, first.got, first.reason, first.allowed, wrong, total
    )


def shape_diff(expected: tuple[int, int], got: Any, path: str = "") -> Mismatch | None:
    if isinstance(got, Foreign) and got.base == "tuple":
        got = got.value  # a tuple subclass, such as a named tuple, is a tuple
    if isinstance(got, list) and len(got) == 2 and list(expected) == got:
        return Mismatch(path, expected, got, "shape_list")
    if not isinstance(got, tuple):
        return Mismatch(path, expected, got, "shape_type")
    if len(got) != 2:
        return Mismatch(path, expected, got, "value")
    for i in range(2):
        m = int_diff(expected[i], got[i], "%s[%d]" % (path, i))
        if m is not None:
            return Mismatch(path, expected, got, m.reason)
    return None


def counts_diff(expected: dict[str, int], got: Any, path: str = "") -> Mismatch | None:
    got = _plain(got)
    if not isinstance(got, dict):
        return Mismatch(path, expected, got, "not_dict")
    # Exactly these keys: a missing key and an extra one are both named.
    missing = [k for k in expected if k not in got]
    if missing:
        return Mismatch(path, sorted(expected), sorted(missing), "keys")
    extra = [k for k in got if type(k) is not str or k not in expected]
    if extra:
        return Mismatch(path, sorted(expected), sorted(extra, key=repr), "keys_extra")
    for key, value in expected.items():
        m = int_diff(value, got[key], '%s["%s"]' % (path, key))
        if m is not None:
            return m
    return None


def diff(
    kind: Answer, expected: Any, got: Any, path: str = "", count: bool = True
) -> Mismatch | None:
    """Compare one answer of the given kind with the expected value.

    Without ``count`` the first difference ends the comparison: a mismatch then says
    where, not how many elements differ.
    """
    if kind is Answer.INT:
        return int_diff(expected, got, path)
    if kind is Answer.FLOAT:
        return float_diff(expected, got, path)
    if kind is Answer.VECTOR:
        return vector_diff(expected, got, path, count)
    if kind is Answer.MATRIX:
        return matrix_diff(expected, got, path, count)
    if kind is Answer.SHAPE:
        return shape_diff(expected, got, path)
    if kind is Answer.COUNTS:
        return counts_diff(expected, got, path)
    raise ValueError("no comparison for %s" % kind)
