"""Ten fixed tests of the reference embed.py: the yardstick of ``tests/bench_speed.py``.

Its name keeps it out of the normal suite (pytest collects ``test_*.py``); the
benchmark runs it on its own with ``pytest -q tests/bench_pytest_ten.py`` and
times that run beside the grader's.
"""

from __future__ import annotations

import math

import embed


def test_table_shape() -> None:
    table = embed.make_table(embed.VOCAB, embed.DIM, embed.SEED)
    assert embed.shape(table) == (512, 64)


def test_param_count() -> None:
    assert embed.param_count(512, 64) == 32768


def test_lookup_rows() -> None:
    table = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    assert embed.lookup(table, [2, 0]) == [[5.0, 6.0], [1.0, 2.0]]


def test_one_hot() -> None:
    assert embed.one_hot(2, 4) == [0.0, 0.0, 1.0, 0.0]


def test_row_times_matrix() -> None:
    assert embed.row_times_matrix([1.0, 2.0], [[1.0, 0.0], [0.0, 1.0]]) == [1.0, 2.0]


def test_logits() -> None:
    assert embed.logits([[1.0, 0.0], [0.0, 2.0]], [3.0, 4.0]) == [3.0, 8.0]


def test_dot() -> None:
    assert embed.dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]) == 32.0


def test_cosine() -> None:
    assert math.isclose(embed.cosine([1.0, 0.0], [1.0, 1.0]), 1 / math.sqrt(2))


def test_nearest_by_cosine() -> None:
    table = [[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [-1.0, 0.0]]
    assert embed.nearest_by_cosine(table, 0, 2) == [1, 2]


def test_rms() -> None:
    assert math.isclose(embed.rms([3.0, 4.0]), math.sqrt(12.5))
