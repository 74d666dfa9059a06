"""Embedding exercise, written with type hints and a frozen dataclass."""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import List, Sequence

VOCAB: int = 512
DIM: int = 64
SEED: int = 20260917

Row = List[float]


@dataclass(frozen=True)
class Dims:
    rows: int
    cols: int

    def as_tuple(self) -> tuple:
        return (self.rows, self.cols)


def make_table(vocab: int, dim: int, seed: int) -> List[Row]:
    prng = random.Random(seed)
    table: List[Row] = []
    for _ in range(vocab):
        table.append([prng.random() - 0.5 for _ in range(dim)])
    return table


def _dims(matrix: Sequence[Sequence[float]]) -> Dims:
    cols = len(matrix[0]) if len(matrix) else 0
    for r, row in enumerate(matrix):
        if len(row) != cols:
            raise ValueError(f"row {r} is {len(row)} long, expected {cols}")
    return Dims(len(matrix), cols)


def shape(matrix: Sequence[Sequence[float]]) -> tuple:
    return _dims(matrix).as_tuple()


def param_count(vocab: int, dim: int) -> int:
    return vocab * dim


def _require(token_id: int, size: int) -> None:
    if not (0 <= token_id < size):
        raise IndexError(f"token {token_id} outside the table of {size} rows")


def lookup(table: Sequence[Row], ids: Sequence[int]) -> List[Row]:
    out: List[Row] = []
    for tid in ids:
        _require(tid, len(table))
        out.append(list(table[tid]))
    return out


def one_hot(token_id: int, vocab: int) -> Row:
    return [1.0 if j == token_id else 0.0 for j in range(vocab)]


def row_times_matrix(vec: Sequence[float], matrix: Sequence[Row]) -> Row:
    d = _dims(matrix)
    if len(vec) != d.rows:
        raise ValueError(f"vec of {len(vec)} against {d.rows} rows")
    out = [0.0] * d.cols
    for r in range(d.rows):
        w = vec[r]
        row = matrix[r]
        for c in range(d.cols):
            out[c] += w * row[c]
    return out


def lookup_via_one_hot(table: Sequence[Row], ids: Sequence[int]) -> List[Row]:
    vocab = len(table)
    result: List[Row] = []
    for tid in ids:
        _require(tid, vocab)
        result.append(row_times_matrix(one_hot(tid, vocab), table))
    return result


def one_hot_mults(vocab: int, dim: int, count: int) -> int:
    return count * param_count(vocab, dim)


def logits(table: Sequence[Row], hidden: Sequence[float]) -> Row:
    d = _dims(table)
    if d.cols != len(hidden):
        raise ValueError(f"hidden of {len(hidden)} against width {d.cols}")
    return [dot(row, hidden) for row in table]


def tied_params(vocab: int, dim: int) -> int:
    return param_count(vocab, dim)


def untied_params(vocab: int, dim: int) -> int:
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab: int, dim: int, factor: int) -> dict:
    bigger = vocab * factor
    tied, untied = tied_params(vocab, dim), untied_params(vocab, dim)
    return {
        "vocab": vocab,
        "bigger_vocab": bigger,
        "dim": dim,
        "tied": tied,
        "bigger_tied": tied_params(bigger, dim),
        "untied": untied,
        "bigger_untied": untied_params(bigger, dim),
        "saved": untied - tied,
    }


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    return total


def norm(vec: Sequence[float]) -> float:
    return math.hypot(*vec) if vec else 0.0


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    na, nb = norm(a), norm(b)
    if na == 0.0 or nb == 0.0:
        return 0.0
    return max(-1.0, min(1.0, dot(a, b) / na / nb))


def stretch(table: Sequence[Row], token_id: int, factor: float) -> List[Row]:
    _require(token_id, len(table))
    out = [list(row) for row in table]
    out[token_id] = [factor * v for v in out[token_id]]
    return out


def _k_best(table: Sequence[Row], token_id: int, k: int, by) -> List[int]:
    _require(token_id, len(table))
    probe = table[token_id]
    candidates = [j for j in range(len(table)) if j != token_id]
    candidates.sort(key=lambda j: (-by(probe, table[j]), j))
    return candidates[:k]


def nearest_by_cosine(table: Sequence[Row], token_id: int, k: int) -> List[int]:
    return _k_best(table, token_id, k, cosine)


def nearest_by_dot(table: Sequence[Row], token_id: int, k: int) -> List[int]:
    return _k_best(table, token_id, k, dot)


def rms(vec: Sequence[float]) -> float:
    if not vec:
        return 0.0
    return math.sqrt(sum(v * v for v in vec) / len(vec))


def scaled_lookup(table: Sequence[Row], ids: Sequence[int], dim: int) -> List[Row]:
    factor = math.sqrt(dim)
    return [[factor * v for v in row] for row in lookup(table, ids)]
