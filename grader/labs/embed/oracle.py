"""Expected values, computed by the grader alone.

Nothing here imports the reference ``embed.py``; a test checks that the two agree.
Sums use ``math.fsum`` (correctly rounded), and the neighbour rankings use exact
rational arithmetic so that exact ties are recognised exactly.
"""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fractions import Fraction

Vector = Sequence[float]
Table = Sequence[Sequence[float]]


def make_table(vocab: int, dim: int, seed: int) -> list[list[float]]:
    rng = random.Random(seed)
    table = []
    for _ in range(vocab):
        table.append([rng.random() - 0.5 for _ in range(dim)])
    return table


def shape(matrix: Table) -> tuple[int, int]:
    """(rows, cells); raises ValueError on ragged rows like the contract asks."""
    widths = {len(row) for row in matrix}
    if len(widths) > 1:
        raise ValueError("ragged")
    return (len(matrix), widths.pop() if widths else 0)


def param_count(vocab: int, dim: int) -> int:
    return vocab * dim


def lookup(table: Table, ids: Sequence[int]) -> list[list[float]]:
    return [list(table[i]) for i in ids]


def one_hot(token_id: int, vocab: int) -> list[float]:
    return [1.0 if i == token_id else 0.0 for i in range(vocab)]


def dot(a: Vector, b: Vector) -> float:
    return math.fsum(map(operator.mul, a, b))


def dot_scale(a: Vector, b: Vector) -> float:
    """The sum of |terms| of a dot product: the size of the rounding a sum can pick up."""
    return math.fsum(abs(x * y) for x, y in zip(a, b))


def column(matrix: Table, c: int) -> list[float]:
    return [row[c] for row in matrix]


def row_times_matrix(vec: Vector, matrix: Table) -> list[float]:
    width = len(matrix[0]) if matrix else 0
    return [dot(vec, column(matrix, c)) for c in range(width)]


def one_hot_mults(vocab: int, dim: int, count: int) -> int:
    return vocab * dim * count


def logits(table: Table, hidden: Vector) -> list[float]:
    return [dot(row, hidden) for row in table]


def tied_params(vocab: int, dim: int) -> int:
    return vocab * dim


def untied_params(vocab: int, dim: int) -> int:
    return 2 * vocab * dim


def vocab_growth(vocab: int, dim: int, factor: int) -> dict[str, int]:
    bigger = vocab * factor
    return {
        "vocab": vocab,
        "bigger_vocab": bigger,
        "dim": dim,
        "tied": vocab * dim,
        "bigger_tied": bigger * dim,
        "untied": 2 * vocab * dim,
        "bigger_untied": 2 * bigger * dim,
        "saved": vocab * dim,
    }


def norm(vec: Vector) -> float:
    return math.sqrt(math.fsum(map(operator.mul, vec, vec)))


def cosine(a: Vector, b: Vector) -> float:
    lengths = norm(a) * norm(b)
    if lengths == 0.0:
        return 0.0
    return dot(a, b) / lengths


def stretch(table: Table, token_id: int, factor: float) -> list[list[float]]:
    return [
        [x * factor for x in row] if i == token_id else list(row) for i, row in enumerate(table)
    ]


def rms(vec: Vector) -> float:
    if len(vec) == 0:
        return 0.0
    return math.sqrt(math.fsum(x * x for x in vec) / len(vec))


def scaled_lookup(table: Table, ids: Sequence[int], dim: int) -> list[list[float]]:
    scale = math.sqrt(dim)
    return [[x * scale for x in table[i]] for i in ids]


# Neighbours.  Float scores decide what is clearly better.  Scores too close to call
# may come in either order, except for exact ties that every correct implementation
# computes bit for bit alike: equal rows, rows that are power-of-two multiples of each
# other (for cosine), rows without direction, or a probe without direction.  Those
# must come smallest index first.


def _exact_dot(a: Vector, b: Vector) -> Fraction:
    from fractions import Fraction  # loaded by the rare near-ties only

    return sum((Fraction(x) * Fraction(y) for x, y in zip(a, b)), Fraction(0))


def exact_cosine_key(probe: Vector, row: Vector) -> Fraction:
    """A value ordered exactly like cosine(probe, row) over rows (the probe fixed)."""
    from fractions import Fraction

    d = _exact_dot(probe, row)
    nn = _exact_dot(row, row)
    if nn == 0 or _exact_dot(probe, probe) == 0:
        return Fraction(0)
    key = d * d / nn  # cos^2 * |probe|^2, with the sign of the dot product
    return key if d >= 0 else -key


def exact_dot_key(probe: Vector, row: Vector) -> Fraction:
    return _exact_dot(probe, row)


def scores(table: Table, token_id: int, by: str) -> list[float]:
    """The score of every row against row token_id (cosine or dot product)."""
    probe = table[token_id]
    dots = [dot(probe, row) for row in table]
    if by != "cosine":
        return dots
    probe_norm = norm(probe)
    out = []
    for d, row in zip(dots, table):
        lengths = probe_norm * norm(row)
        out.append(d / lengths if lengths != 0.0 else 0.0)
    return out


def tie_class(row: Vector, by: str) -> tuple[float, ...]:
    """Rows with the same class score bit-for-bit alike against any probe.

    For cosine a row is taken down to its first nonzero entry's binade, so that rows
    that differ by a power-of-two factor (an exact scaling in binary floating point)
    fall into one class.  Zero rows form one class: their cosine is 0.0 by the rule.
    """
    values = tuple(float(x) + 0.0 for x in row)  # -0.0 and 0.0 alike
    if by != "cosine":
        return values
    first = next((x for x in values if x != 0.0), 0.0)
    if first == 0.0:
        return ()
    _, exponent = math.frexp(first)
    return tuple(math.ldexp(x, -exponent) for x in values)


def close(a: float, b: float) -> bool:
    """Two scores too close to order by floating point: ties are then decided exactly."""
    return abs(a - b) <= 1e-9 * (1.0 + max(abs(a), abs(b)))


class Ranking:
    """Scores of every row against one probe, with exact keys computed on demand."""

    def __init__(self, table: Table, token_id: int, by: str) -> None:
        self.table = table
        self.token_id = token_id
        self.by = by
        self.scores = scores(table, token_id, by)
        self._exact: dict[int, Fraction] = {}
        # A probe without direction scores 0.0 against every row: all tie.
        self._flat = all(x == 0.0 for x in table[token_id])

    def exact(self, index: int) -> Fraction:
        if index not in self._exact:
            key = exact_cosine_key if self.by == "cosine" else exact_dot_key
            self._exact[index] = key(self.table[self.token_id], self.table[index])
        return self._exact[index]

    def tied(self, a: int, b: int) -> bool:
        """An exact tie that every correct implementation computes bit for bit alike."""
        if self._flat:
            return True
        return tie_class(self.table[a], self.by) == tie_class(self.table[b], self.by)

    def must_precede(self, a: int, b: int) -> bool:
        """Whether every correct list must put a before b.

        True for a clearly better score, or for an exact tie with a smaller index.
        Scores that differ only by rounding noise may come in either order.
        """
        sa, sb = self.scores[a], self.scores[b]
        if not close(sa, sb):
            return sa > sb
        return a < b and self.tied(a, b)

    def before(self, a: int, b: int) -> bool:
        """Whether a must be listed before b: better score, or an exact tie and smaller."""
        sa, sb = self.scores[a], self.scores[b]
        if not close(sa, sb):
            return sa > sb
        if self.tied(a, b):
            return a < b
        ea, eb = self.exact(a), self.exact(b)
        return ea > eb or (ea == eb and a < b)

    def nearest(self, k: int) -> list[int]:
        others = [i for i in range(len(self.table)) if i != self.token_id]
        others.sort(key=lambda i: (-self.scores[i], i))
        # Settle neighbours whose float scores are too close to call with exact keys.
        changed = True
        while changed:
            changed = False
            for j in range(len(others) - 1):
                a, b = others[j], others[j + 1]
                if close(self.scores[a], self.scores[b]) and self.before(b, a):
                    others[j], others[j + 1] = b, a
                    changed = True
        return others[:k]


def nearest(table: Table, token_id: int, k: int, by: str) -> list[int]:
    """The neighbour list the contract asks for; exact ties go to the smaller index."""
    return Ranking(table, token_id, by).nearest(k)


def nearest_by_cosine(table: Table, token_id: int, k: int) -> list[int]:
    return nearest(table, token_id, k, "cosine")


def nearest_by_dot(table: Table, token_id: int, k: int) -> list[int]:
    return nearest(table, token_id, k, "dot")
