"""The comparison rules: tolerance, exact ints, types, paths."""

from __future__ import annotations

import math
import operator
import random

import pytest

from grader.engine.sandbox import Foreign
from grader.engine.vocabulary.compare import allowed_error, diff, float_diff, int_diff
from grader.labs.embed import cases, oracle
from grader.labs.embed.checks import CHECKS, Returns, build
from grader.labs.embed.contract import ATOL, RTOL, Answer


def test_tolerance_is_asymmetric():
    assert allowed_error(100.0) == pytest.approx(ATOL + RTOL * 100.0)
    assert allowed_error(0.0) == ATOL
    assert float_diff(1.0, 1.0 + 0.5e-9) is None
    m = float_diff(1.0, 1.0 + 5e-9)
    assert m is not None and m.reason == "value" and m.allowed == pytest.approx(2e-9)


@pytest.mark.parametrize("seed", range(30))
def test_any_summation_order_is_accepted(seed):
    rng = random.Random(seed)
    n = rng.choice((1, 7, 64, 512))
    a, b = cases.vector(rng, n), cases.vector(rng, n, spread=0.5)
    expected = oracle.dot(a, b)
    styles = [
        sum(x * y for x, y in zip(a, b)),
        sum(x * y for x, y in reversed(list(zip(a, b)))),
        math.fsum(x * y for x, y in zip(a, b)),
        sum(map(operator.mul, a, b)),
        sum(sorted((x * y for x, y in zip(a, b)), key=abs)),
    ]
    for got in styles:
        assert float_diff(expected, got) is None


@pytest.mark.parametrize("wrong", [lambda v: v * 1.0000001, lambda v: v + 1e-6, lambda v: -v])
def test_wrong_values_are_rejected(wrong):
    assert float_diff(0.3, wrong(0.3)) is not None


def test_nan_and_infinities():
    assert float_diff(math.nan, math.nan) is None
    assert float_diff(0.0, math.nan).reason == "nan"
    assert float_diff(math.nan, 0.0).reason == "nan"
    assert float_diff(math.inf, math.inf) is None
    assert float_diff(math.inf, -math.inf) is not None
    assert float_diff(1e308, math.inf) is not None


def test_ints_are_exact_and_of_type_int():
    assert int_diff(1024, 1024) is None
    assert int_diff(1024, 1024.0).reason == "int_type"
    assert int_diff(1, True).reason == "int_type"
    assert int_diff(5, 6).reason == "value"
    assert int_diff(3, Foreign("MyInt", "int", 3)).reason == "int_type"


def test_floats_accept_ints_and_float_subclasses_but_not_bools():
    assert float_diff(2.0, 2) is None
    assert float_diff(2.0, Foreign("MyFloat", "float", 2.0)) is None
    assert float_diff(1.0, True).reason == "type"
    assert float_diff(1.0, "1.0").reason == "type"


def test_vectors_and_matrices_report_a_path():
    m = diff(Answer.VECTOR, [0.0, 1.0, 2.0], (0.0, 1.0, 2.5))
    assert m.path == "[2]" and m.wrong == 1 and m.total == 3
    m = diff(Answer.MATRIX, [[1.0, 2.0], [3.0, 4.0]], [[1.0, 2.0], [3.0, 5.0]])
    assert m.path == "[1][1]"
    assert diff(Answer.MATRIX, [[1.0]], ([1.0],)) is None
    assert diff(Answer.VECTOR, [1.0, 2.0], [1.0]).reason == "length"
    assert diff(Answer.MATRIX, [[1.0]], [[1.0], [2.0]]).reason == "rows"
    assert diff(Answer.VECTOR, [1.0], Foreign("ndarray", None, None)).reason == "not_sequence"


def test_shape_must_be_a_tuple_of_ints():
    assert diff(Answer.SHAPE, (2, 3), (2, 3)) is None
    assert diff(Answer.SHAPE, (2, 3), [2, 3]).reason == "shape_list"
    assert diff(Answer.SHAPE, (2, 3), (2.0, 3)).reason == "int_type"
    assert diff(Answer.SHAPE, (2, 3), (3, 2)) is not None


def test_a_named_tuple_is_a_tuple_for_shape():
    assert diff(Answer.SHAPE, (2, 3), Foreign("Shape", "tuple", (2, 3))) is None
    assert diff(Answer.SHAPE, (2, 3), Foreign("Shape", "tuple", (3, 2))) is not None
    assert diff(Answer.SHAPE, (2, 3), Foreign("Shape", "tuple", (2.0, 3))).reason == "int_type"
    assert diff(Answer.SHAPE, (2, 3), Foreign("Rows", "list", [2, 3])).reason == "shape_type"


def test_counts_need_exactly_their_keys_each_an_int():
    want = oracle.vocab_growth(4, 3, 2)
    m = diff(Answer.COUNTS, want, dict(want, extra=1))
    assert m.reason == "keys_extra" and m.got == ["extra"]
    assert diff(Answer.COUNTS, want, dict(want, **{"Saved": 1})).got == ["Saved"]
    assert diff(Answer.COUNTS, want, {**want, 7: 7}).reason == "keys_extra"
    m = diff(Answer.COUNTS, want, {k: v for k, v in want.items() if k != "saved"})
    assert m.reason == "keys" and m.got == ["saved"]
    m = diff(Answer.COUNTS, want, dict(want, saved=float(want["saved"])))
    assert m.reason == "int_type" and m.path == '["saved"]'


EPS = 2.0**-52


def _worst_rounding(a, b):
    """A bound on the rounding error of summing a dot product in any order."""
    return len(a) * EPS * oracle.dot_scale(a, b)


@pytest.mark.parametrize("seed", range(10))
def test_generated_sums_stay_far_inside_the_tolerance(seed):
    # The fixed tolerance is fair only if no generated sum can round by more than a
    # small part of what is allowed at its value, whatever order a student adds in.
    worst = 0.0

    def note(a, b, expected, scale=1.0):
        nonlocal worst
        worst = max(worst, _worst_rounding(a, b) / scale / allowed_error(expected))

    for check in CHECKS:
        if check.function not in ("dot", "row_times_matrix", "logits", "cosine"):
            continue
        for case in build(check, seed):
            if not isinstance(case.expect, Returns):
                continue
            if case.fn == "dot":
                a, b = case.args
                note(a, b, case.expect.value)
            elif case.fn == "cosine":
                a, b = case.args
                lengths = oracle.norm(a) * oracle.norm(b)
                if lengths:
                    note(a, b, case.expect.value, lengths)
            elif case.fn == "logits":
                table, hidden = case.args
                for row, expected in zip(table, case.expect.value):
                    note(row, hidden, expected)
            else:
                vec, table = case.args
                for c, expected in enumerate(case.expect.value):
                    note(vec, oracle.column(table, c), expected)
    assert 0 < worst < 0.01
