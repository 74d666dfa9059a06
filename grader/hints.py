"""Recognising the common mistake behind a wrong answer.

For a failed case, the answers that the well-known mistakes would give are computed
here (in the parent, from the same inputs) and compared with the student's answer.
The first one that matches names the mistake.  A hint is only a guess and never
changes a verdict.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from typing import Any

from grader import oracle
from grader.compare import diff
from grader.contract import BY_NAME, Answer

Guess = tuple[str, Callable[..., Any]]


def _columns_first(vocab: int, dim: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    cols = [[rng.random() - 0.5 for _ in range(vocab)] for _ in range(dim)]
    return [[cols[c][r] for c in range(dim)] for r in range(vocab)]


def _unshifted(vocab: int, dim: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    return [[rng.random() for _ in range(dim)] for _ in range(vocab)]


def _rng_per_row(vocab: int, dim: int, seed: int) -> list[list[float]]:
    return [[r - 0.5 for r in _unshifted(1, dim, seed)[0]] for _ in range(vocab)]


def _swapped(vocab: int, dim: int, seed: int) -> list[list[float]]:
    return oracle.make_table(dim, vocab, seed)


def _one_hot_only(vec: list[float], matrix: list[list[float]]) -> list[float]:
    best = max(range(len(vec)), key=lambda i: vec[i])
    return list(matrix[best])


def _transposed(vec: list[float], matrix: list[list[float]]) -> list[float]:
    return [oracle.dot(vec, row) for row in matrix]


def _ranking(by: str, order: str) -> Callable[..., list[int]]:
    def rank(table: list[list[float]], token_id: int, k: int) -> list[int]:
        scores = oracle.scores(table, token_id, by)
        idx = list(range(len(table)))
        if order == "self":
            idx.sort(key=lambda i: (-scores[i], i))
            return idx[:k]
        idx.remove(token_id)
        if order == "ascending":
            idx.sort(key=lambda i: (scores[i], i))
        elif order == "larger":
            idx.sort(key=lambda i: (-scores[i], -i))
        else:
            idx.sort(key=lambda i: (-scores[i], i))
        return idx[:k]

    return rank


def _norm_sq(vec: list[float]) -> float:
    return oracle.dot(vec, vec)


def _cos_squared(a: list[float], b: list[float]) -> float:
    n = oracle.dot(a, a) * oracle.dot(b, b)
    return oracle.dot(a, b) / n if n else 0.0


GUESSES: dict[str, list[Guess]] = {
    "make_table": [
        ("hint.make_table.columns", _columns_first),
        ("hint.make_table.unshifted", _unshifted),
        ("hint.make_table.rng_per_row", _rng_per_row),
        ("hint.make_table.swapped", _swapped),
    ],
    "shape": [("hint.shape.swapped", lambda m: (len(m[0]) if m else 0, len(m)))],
    "param_count": [("hint.param_count.sum", lambda v, d: v + d)],
    "one_hot": [
        ("hint.one_hot.position", lambda t, v: oracle.one_hot((t + 1) % v, v) if v > 1 else [0.0]),
        ("hint.one_hot.position", lambda t, v: oracle.one_hot(t - 1, v)),
    ],
    "row_times_matrix": [
        ("hint.row_times_matrix.one_hot_only", _one_hot_only),
        ("hint.row_times_matrix.transposed", _transposed),
    ],
    "logits": [
        (
            "hint.logits.transposed",
            lambda t, h: [oracle.dot(oracle.column(t, c), h[: len(t)]) for c in range(len(t[0]))],
        )
    ],
    "tied_params": [("hint.tied.doubled", lambda v, d: 2 * v * d)],
    "untied_params": [("hint.untied.not_doubled", lambda v, d: v * d)],
    "vocab_growth": [
        (
            "hint.vocab_growth.saved_bigger",
            lambda v, d, f: dict(oracle.vocab_growth(v, d, f), saved=v * f * d),
        ),
        (
            "hint.vocab_growth.bigger_vocab_sum",
            lambda v, d, f: dict(oracle.vocab_growth(v, d, f), bigger_vocab=v + f),
        ),
    ],
    "norm": [("hint.norm.squared", _norm_sq)],
    "cosine": [("hint.cosine.dot", oracle.dot), ("hint.cosine.squared", _cos_squared)],
    "stretch": [
        ("hint.stretch.all_rows", lambda t, i, f: [[x * f for x in r] for r in t]),
        ("hint.stretch.unchanged", lambda t, i, f: [list(r) for r in t]),
    ],
    "nearest_by_cosine": [
        ("hint.nearest.self", _ranking("cosine", "self")),
        ("hint.nearest.ascending", _ranking("cosine", "ascending")),
        ("hint.nearest.tie_larger", _ranking("cosine", "larger")),
        ("hint.nearest.by_dot", _ranking("dot", "plain")),
    ],
    "nearest_by_dot": [
        ("hint.nearest.self", _ranking("dot", "self")),
        ("hint.nearest.ascending", _ranking("dot", "ascending")),
        ("hint.nearest.tie_larger", _ranking("dot", "larger")),
        ("hint.nearest.by_cosine", _ranking("cosine", "plain")),
    ],
    "rms": [
        ("hint.rms.no_mean", oracle.norm),
        ("hint.rms.no_sqrt", lambda v: oracle.dot(v, v) / len(v) if v else 0.0),
    ],
    "scaled_lookup": [
        ("hint.scaled.by_d", lambda t, ids, d: [[x * d for x in t[i]] for i in ids]),
        (
            "hint.scaled.width",
            lambda t, ids, d: oracle.scaled_lookup(t, ids, len(t[0]) if t else 0),
        ),
        ("hint.scaled.none", lambda t, ids, d: [list(t[i]) for i in ids]),
    ],
}

KIND_OF_RANKING = Answer.INDICES


def _matches(fn: str, wrong: Any, got: Any) -> bool:
    kind = BY_NAME[fn].answer
    if kind is Answer.INDICES:
        return isinstance(got, (list, tuple)) and list(got) == list(wrong)
    try:
        return diff(kind, wrong, got) is None
    except (TypeError, ValueError, IndexError):
        return False


def _candidates(fn: str) -> Iterator[Guess]:
    yield from GUESSES.get(fn, ())


def guess(fn: str, args: tuple[Any, ...], got: Any) -> str | None:
    """The message code of the mistake that explains ``got``, if one does."""
    for code, mistake in _candidates(fn):
        try:
            wrong = mistake(*args)
        except (ArithmeticError, IndexError, ValueError, TypeError):
            continue
        if _matches(fn, wrong, got):
            return code
    return None


def guess_raise(fn: str, args: tuple[Any, ...], got: Any) -> str | None:
    """For a call that should have raised IndexError: does ``got`` show a known mistake?"""
    if fn not in ("lookup", "scaled_lookup", "lookup_via_one_hot"):
        return None
    table, ids = args[0], args[1]
    if all(-len(table) <= i < len(table) for i in ids):
        return "hint.lookup.wraps"
    if any(i == len(table) for i in ids):
        return "hint.lookup.off_by_one"
    return None


def is_finite(x: float) -> bool:
    return not (math.isnan(x) or math.isinf(x))
