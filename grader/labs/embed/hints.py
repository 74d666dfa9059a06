"""Recognising the common mistake behind a wrong answer.

For a failed case, the answers that the well-known mistakes would give are computed
here (in the parent, from the same inputs) and compared with the student's answer.
The first one that matches names the mistake.  A hint is only a guess and never
changes a verdict.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from typing import Any

from grader.engine.vocabulary.memo import Memo
from grader.labs.embed import oracle
from grader.labs.embed.contract import CONSTANTS
from grader.labs.embed.hintmatch import (
    NO_ANSWER,
    WRAPPING,
    MistakeHints,
    When,
    in_python_range,
    rectangular,
)

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


def _clamped(by: str) -> Callable[..., list[int]]:
    """Neighbours by a cosine clamped with ``if abs(c) > 1: c = 1.0``: a score that
    rounds below -1 becomes +1.0 (and one above 1 is 1.0).  Which of the scores at
    +-1 round past it depends on the summation; all of them are taken to."""

    def rank(table: list[list[float]], token_id: int, k: int) -> list[int]:
        raw = oracle.scores(table, token_id, by)
        scores = [1.0 if abs(c) >= 1.0 - 1e-12 else c for c in raw]
        idx = [i for i in range(len(table)) if i != token_id]
        idx.sort(key=lambda i: (-scores[i], i))
        return idx[:k]

    return rank


def _prefiltered(first: str, then: str) -> Callable[..., When]:
    """Neighbours ranked by ``then`` among only the rows with the best ``first`` score:
    every list that keeping some number of rows (fewer than all) can give."""

    def lists(table: list[list[float]], token_id: int, k: int) -> When:
        kept = [i for i in range(len(table)) if i != token_id]
        by_first = oracle.scores(table, token_id, first)
        by_then = oracle.scores(table, token_id, then)
        kept.sort(key=lambda i: (-by_first[i], i))
        found: list[list[int]] = []
        best: list[int] = []
        for i in kept[:-1]:  # a prefilter that keeps every row is no mistake
            best = sorted(best + [i], key=lambda j: (-by_then[j], j))[:k]
            if len(best) == k and best not in found:
                found.append(list(best))
        return When("one_of", (found,))

    return lists


def _short_zero(a: list[float], b: list[float]) -> float:
    """A cosine of 0.0 wherever a vector is shorter than 1e-9 (a cut-off on lengths)."""
    return 0.0 if min(oracle.norm(a), oracle.norm(b)) < 1e-9 else oracle.cosine(a, b)


def _clamped_cosine(a: list[float], b: list[float]) -> float:
    c = oracle.cosine(a, b)
    return 1.0 if c <= -1.0 + 1e-12 else c


def _softmax(table: list[list[float]], hidden: list[float]) -> list[float]:
    scores = oracle.logits(table, hidden)
    top = max(scores)
    exps = [math.exp(x - top) for x in scores]
    total = math.fsum(exps)
    return [e / total for e in exps]


def _logits_cosine(table: list[list[float]], hidden: list[float]) -> list[float]:
    return [oracle.cosine(row, hidden) for row in table]


def _new_table(table: list[list[float]], hidden: list[float]) -> list[float]:
    fresh = oracle.make_table(len(table), len(hidden), CONSTANTS["SEED"])
    return oracle.logits(fresh, hidden)


def _norm_sq(vec: list[float]) -> float:
    return oracle.dot(vec, vec)


def _cos_squared(a: list[float], b: list[float]) -> float:
    n = oracle.dot(a, a) * oracle.dot(b, b)
    return oracle.dot(a, b) / n if n else 0.0


def _growth_key(key: str, value: Callable[[int, int, int], int]) -> Callable[..., Any]:
    """A vocab_growth mistake in one key: every other key as it should be."""

    def wrong(v: int, d: int, f: int) -> Any:
        return dict(oracle.vocab_growth(v, d, f), **{key: value(v, d, f)})

    return wrong


def _one_based(table: list[list[float]], ids: list[int]) -> list[list[float]]:
    """Ids taken as counting from 1: table[i - 1] (id 0 reads the last row)."""
    return [list(table[i - 1]) for i in ids]


def _stretch_row(table: list[list[float]], row: int, factor: float) -> list[list[float]]:
    out = [list(r) for r in table]
    out[row] = [x * factor for x in table[row]]
    return out


def _one_hot_elsewhere(token_id: int, vocab: int) -> When:
    return When("one_hot_elsewhere", (token_id, vocab))


GUESSES: dict[str, list[Guess]] = {
    "make_table": [
        ("hint.make_table.columns", _columns_first),
        ("hint.make_table.unshifted", _unshifted),
        ("hint.make_table.rng_per_row", _rng_per_row),
        ("hint.make_table.swapped", _swapped),
        (
            "hint.make_table.sign",
            lambda v, d, seed: [[-x for x in r] for r in oracle.make_table(v, d, seed)],
        ),
        (
            "hint.make_table.constant_seed",
            lambda v, d, seed: oracle.make_table(v, d, CONSTANTS["SEED"]),
        ),
    ],
    "shape": [("hint.shape.swapped", lambda m: (len(m[0]) if m else 0, len(m)))],
    "param_count": [("hint.param_count.sum", lambda v, d: v + d)],
    "one_hot_mults": [
        ("hint.one_hot_mults.no_count", lambda v, d, c: v * d),
        ("hint.one_hot_mults.no_dim", lambda v, d, c: v * c),
        ("hint.one_hot_mults.only_one", lambda v, d, c: d * c),
    ],
    "one_hot": [("hint.one_hot.position", _one_hot_elsewhere)],
    "lookup": [("hint.ids.one_based", _one_based)],
    "lookup_via_one_hot": [("hint.ids.one_based", _one_based)],
    "row_times_matrix": [
        ("hint.row_times_matrix.one_hot_only", _one_hot_only),
        ("hint.row_times_matrix.transposed", _transposed),
    ],
    "logits": [
        ("hint.logits.softmax", _softmax),
        ("hint.logits.cosine", _logits_cosine),
        ("hint.logits.new_matrix", _new_table),
        (
            "hint.logits.transposed",
            lambda t, h: [oracle.dot(oracle.column(t, c), h[: len(t)]) for c in range(len(t[0]))],
        ),
    ],
    "tied_params": [("hint.tied.doubled", lambda v, d: 2 * v * d)],
    "untied_params": [
        ("hint.untied.not_doubled", lambda v, d: v * d),
        ("hint.untied.bias", lambda v, d: 2 * v * d + v),
    ],
    "vocab_growth": [
        ("hint.vocab_growth.saved_bigger", _growth_key("saved", lambda v, d, f: v * f * d)),
        ("hint.vocab_growth.bigger_vocab_sum", _growth_key("bigger_vocab", lambda v, d, f: v + f)),
        ("hint.untied.not_doubled", _growth_key("untied", lambda v, d, f: v * d)),
    ],
    "norm": [
        ("hint.norm.squared", _norm_sq),
        ("hint.norm.l1", lambda v: math.fsum(abs(x) for x in v)),
    ],
    "dot": [
        ("hint.dot.last", lambda a, b: oracle.dot(a[:-1], b[:-1])),
        ("hint.dot.squares", lambda a, b: oracle.dot(a, a)),
    ],
    "cosine": [
        # First: where the vectors are short, every model whose answer is as short (the
        # dot product, say) agrees with 0.0 within the absolute tolerance.
        ("hint.cosine.short_zero", _short_zero),
        ("hint.cosine.dot", oracle.dot),
        ("hint.cosine.squared", _cos_squared),
        ("hint.cosine.precedence", lambda a, b: oracle.dot(a, b) / oracle.norm(a) * oracle.norm(b)),
        # Before the absolute value, which gives +1.0 for an opposite pair too.
        ("hint.cosine.clamp_sign", _clamped_cosine),
        ("hint.cosine.absolute", lambda a, b: abs(oracle.cosine(a, b))),
    ],
    "stretch": [
        ("hint.ids.one_based", lambda t, i, f: _stretch_row(t, i - 1, f)),
        (
            "hint.stretch.adds",
            lambda t, i, f: [[x + f for x in r] if j == i else list(r) for j, r in enumerate(t)],
        ),
        ("hint.stretch.all_rows", lambda t, i, f: [[x * f for x in r] for r in t]),
        ("hint.stretch.unchanged", lambda t, i, f: [list(r) for r in t]),
    ],
    "nearest_by_cosine": [
        ("hint.nearest.self", _ranking("cosine", "self")),
        ("hint.nearest.ascending", _ranking("cosine", "ascending")),
        ("hint.nearest.tie_larger", _ranking("cosine", "larger")),
        ("hint.nearest.by_dot", _ranking("dot", "plain")),
        ("hint.nearest.clamp_sign", _clamped("cosine")),
        ("hint.nearest.prefilter_dot", _prefiltered("dot", "cosine")),
    ],
    "nearest_by_dot": [
        ("hint.nearest.self", _ranking("dot", "self")),
        ("hint.nearest.ascending", _ranking("dot", "ascending")),
        ("hint.nearest.tie_larger", _ranking("dot", "larger")),
        ("hint.nearest.by_cosine", _ranking("cosine", "plain")),
        ("hint.nearest.prefilter_cosine", _prefiltered("cosine", "dot")),
    ],
    "rms": [
        ("hint.rms.absolute", lambda v: math.fsum(abs(x) for x in v) / len(v)),
        ("hint.rms.floor", lambda v: math.sqrt(oracle.dot(v, v) // len(v))),
        ("hint.rms.no_mean", oracle.norm),
        ("hint.rms.no_sqrt", lambda v: oracle.dot(v, v) / len(v) if v else 0.0),
    ],
    "scaled_lookup": [
        ("hint.ids.one_based", lambda t, ids, d: oracle.scaled_lookup(t, [i - 1 for i in ids], d)),
        ("hint.scaled.by_d", lambda t, ids, d: [[x * d for x in t[i]] for i in ids]),
        (
            "hint.scaled.width",
            lambda t, ids, d: oracle.scaled_lookup(t, ids, len(t[0]) if t else 0),
        ),
        ("hint.scaled.none", lambda t, ids, d: [list(t[i]) for i in ids]),
        ("hint.scaled.constant", lambda t, ids, d: oracle.scaled_lookup(t, ids, CONSTANTS["DIM"])),
        ("hint.scaled.divides", lambda t, ids, d: [[x / math.sqrt(d) for x in t[i]] for i in ids]),
        ("hint.scaled.rows", lambda t, ids, d: oracle.scaled_lookup(t, ids, len(t))),
    ],
}


# The answers the mistakes give, per case's arguments: the same in every submission.
_WRONG: Memo[Any] = Memo()


def _wrong(mistake: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    try:
        return mistake(*args)
    except (ArithmeticError, IndexError, ValueError, TypeError):
        return NO_ANSWER


def answers(fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
    """What every known mistake of ``fn`` answers for ``args`` (NO_ANSWER: it raises)."""
    return [
        (code, _WRONG.get(args, (fn, code), functools.partial(_wrong, mistake, args)))
        for code, mistake in GUESSES.get(fn, ())
    ]


def _rows(fn: str, args: tuple[Any, ...], shift: int) -> Any:
    """The rows of ids - shift as Python's indexing reads them (scaled for scaled_lookup)."""
    if not in_python_range(fn, args, shift):
        return NO_ANSWER
    table, ids = args[0], args[1]
    rows = [list(table[i - shift]) for i in ids]
    if fn == "scaled_lookup":
        rows = [[x * math.sqrt(args[2]) for x in row] for row in rows]
    return rows


def _no_length_check(vec: list[float], matrix: list[list[float]]) -> Any:
    """row_times_matrix without a length check: the product over the rows in common."""
    if len(vec) == len(matrix) or not rectangular(matrix):
        return NO_ANSWER
    n = min(len(vec), len(matrix))
    cells = len(matrix[0]) if matrix else 0
    return [math.fsum(vec[r] * matrix[r][c] for r in range(n)) for c in range(cells)]


def raise_answers(fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
    """What the known mistakes answer where an exception was due."""
    if fn in WRAPPING:
        # Negative ids counted from the end; ids counted from 1 (table[i - 1]).
        return [
            ("hint.lookup.wraps", _rows(fn, args, 0)),
            ("hint.ids.one_based", _rows(fn, args, 1)),
        ]
    if fn == "row_times_matrix":
        return [("hint.row_times_matrix.no_length_check", _no_length_check(*args))]
    return []


class EmbedHints(MistakeHints):
    """This lab's known mistakes, computed from each case's inputs."""

    def answers(self, fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        return answers(fn, args)

    def raise_answers(self, fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        return raise_answers(fn, args)


HINTS = EmbedHints()
explain = HINTS.explain
explain_raised = HINTS.explain_raised
explain_no_raise = HINTS.explain_no_raise
guess_mutated = HINTS.guess_mutated
