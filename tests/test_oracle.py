"""The grader's oracle agrees with the reference solution, which it never imports."""

from __future__ import annotations

import ast
import math
import random
from pathlib import Path

import pytest

import embed
from grader.labs.embed import cases, oracle

ROOT = Path(__file__).resolve().parents[1]


def test_grader_never_imports_the_reference():
    for path in (ROOT / "grader").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert all(a.name.split(".")[0] != "embed" for a in node.names), path
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "").split(".")[0] != "embed", path


@pytest.mark.parametrize("seed", range(25))
def test_oracle_matches_reference_on_random_tables(seed):
    rng = random.Random(seed)
    rows, cells = rng.randint(2, 40), rng.randint(1, 16)
    table = cases.table(rng, rows, cells)
    assert oracle.make_table(rows, cells, seed) == embed.make_table(rows, cells, seed)
    assert oracle.shape(table) == embed.shape(table)
    ids = cases.ids_for(rng, rows, 5)
    assert oracle.lookup(table, ids) == embed.lookup(table, ids)
    vec = cases.vector(rng, rows)
    for got, want in zip(embed.row_times_matrix(vec, table), oracle.row_times_matrix(vec, table)):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    hidden = cases.vector(rng, cells)
    for got, want in zip(embed.logits(table, hidden), oracle.logits(table, hidden)):
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    a, b = cases.vector(rng, cells), cases.vector(rng, cells)
    assert embed.cosine(a, b) == pytest.approx(oracle.cosine(a, b), rel=1e-12, abs=1e-12)
    assert embed.norm(a) == pytest.approx(oracle.norm(a), rel=1e-12)
    assert embed.rms(a) == pytest.approx(oracle.rms(a), rel=1e-12)
    token = rng.randrange(rows)
    assert embed.stretch(table, token, 3.0) == oracle.stretch(table, token, 3.0)
    d = rng.randint(1, 100)
    assert embed.scaled_lookup(table, ids, d) == oracle.scaled_lookup(table, ids, d)
    for k in (1, 3, rows - 1):
        assert embed.nearest_by_cosine(table, token, k) == oracle.nearest_by_cosine(table, token, k)
        assert embed.nearest_by_dot(table, token, k) == oracle.nearest_by_dot(table, token, k)
    assert embed.vocab_growth(rows, cells, 3) == oracle.vocab_growth(rows, cells, 3)
    assert embed.untied_params(rows, cells) == oracle.untied_params(rows, cells)
    assert embed.tied_params(rows, cells) == oracle.tied_params(rows, cells)
    assert embed.one_hot(token, rows) == oracle.one_hot(token, rows)


@pytest.mark.parametrize("seed", range(25))
def test_neighbours_with_exact_ties_match_reference(seed):
    rng = random.Random(seed)
    table, probe = cases.tie_table(rng, rng.randint(5, 30), rng.randint(1, 8))
    for by, ours, theirs in (
        ("cosine", oracle.nearest_by_cosine, embed.nearest_by_cosine),
        ("dot", oracle.nearest_by_dot, embed.nearest_by_dot),
    ):
        ranking = oracle.Ranking(table, probe, by)
        for k in (1, 4, len(table) - 1):
            # Scores that differ only by rounding may come in either order, so the
            # two lists need not be equal: each must be one that every rule allows.
            assert_allowed(ranking, probe, ours(table, probe, k), k)
            assert_allowed(ranking, probe, theirs(table, probe, k), k)


def assert_allowed(ranking: oracle.Ranking, probe: int, got: list[int], k: int) -> None:
    """``got`` is a neighbour list the contract allows: k other rows, none that must
    come after a row left out or after the row that follows it."""
    rows = len(ranking.table)
    assert len(got) == k == len(set(got)) and probe not in got, got
    left_out = [i for i in range(rows) if i != probe and i not in got]
    for pos, index in enumerate(got):
        assert not any(ranking.must_precede(j, index) for j in left_out), (got, index)
        assert not any(ranking.must_precede(j, index) for j in got[pos + 1 :]), (got, index)


def test_exact_ties_are_recognised():
    base = [0.1, -0.3, 0.7]
    table = [[0.5, 0.5, 0.5], base, [2 * x for x in base], list(base), [0.0, 0.0, 0.0]]
    cos = oracle.Ranking(table, 0, "cosine")
    assert cos.tied(1, 2) and cos.tied(1, 3)
    assert cos.must_precede(1, 2) and not cos.must_precede(2, 1)
    dot = oracle.Ranking(table, 0, "dot")
    assert dot.tied(1, 3) and not dot.tied(1, 2)
    assert oracle.nearest_by_cosine(table, 0, 4) == [1, 2, 3, 4]


def test_rounding_noise_is_not_an_order():
    # Two rows whose exact scores differ far below the tolerance may come either way.
    a = [0.1, 0.2, 0.3]
    b = [0.1, 0.2, 0.3 + 1e-15]
    ranking = oracle.Ranking([[1.0, 1.0, 1.0], a, b], 0, "dot")
    assert not ranking.tied(1, 2)
    assert not ranking.must_precede(1, 2) and not ranking.must_precede(2, 1)


def test_worked_examples():
    toy = [[0.2, -0.5, 0.8], [0.3, -0.4, 0.7], [-0.9, 0.1, 0.2], [0.6, 0.3, -0.5]]
    got = oracle.logits(toy, [0.5, 0.2, -0.3])
    assert got == pytest.approx([-0.24, -0.14, -0.49, 0.51])
    assert oracle.cosine([0.9, 0.2, -0.1], [0.8, 0.3, 0.0]) == pytest.approx(0.985, abs=1e-3)
    assert oracle.untied_params(50257, 768) == 77_194_752
    assert math.isclose(oracle.rms([3.0, -4.0]), math.sqrt(12.5))


def test_mathematical_ties_that_round_differently_may_come_in_any_order():
    # In a table one cell wide every cosine is exactly +1 or -1, but only rows that
    # are equal or power-of-two multiples of each other are computed bit for bit
    # alike by every correct implementation; other pairs are left to the float order.
    table = [[0.3], [0.2413], [0.06644], [0.4826], [0.2413]]
    ranking = oracle.Ranking(table, 0, "cosine")
    assert not ranking.must_precede(1, 2) and not ranking.must_precede(2, 1)
    assert ranking.must_precede(1, 3)  # 0.4826 is 2 * 0.2413
    assert ranking.must_precede(1, 4) and not ranking.must_precede(4, 1)


def test_a_probe_without_direction_ties_every_row():
    table = [[0.0, 0.0], [0.5, 0.1], [-0.3, 0.2]]
    for by in ("cosine", "dot"):
        ranking = oracle.Ranking(table, 0, by)
        assert ranking.must_precede(1, 2) and not ranking.must_precede(2, 1)
