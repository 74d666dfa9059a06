# style: sum(map(operator.mul, a, b)), functools.reduce for the counts,
# heapq.nsmallest with (-score, index) keys for the neighbours
import functools
import heapq
import math
import operator
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    draw = random.Random(seed).random
    return [[draw() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    rows = len(matrix)
    cells = len(matrix[0]) if rows else 0
    if not all(len(row) == cells for row in matrix):
        raise ValueError("ragged table")
    return rows, cells


def param_count(vocab, dim):
    return functools.reduce(operator.mul, (vocab, dim), 1)


def lookup(table, ids):
    size = len(table)
    for token_id in ids:
        if not 0 <= token_id < size:
            raise IndexError(token_id)
    return [list(table[token_id]) for token_id in ids]


def one_hot(token_id, vocab):
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("length mismatch")
    columns = [[row[c] for row in matrix] for c in range(cells)]
    return [sum(map(operator.mul, vec, column)) for column in columns]


def lookup_via_one_hot(table, ids):
    lookup(table, ids)  # only for the range check; its rows are not used
    return [row_times_matrix(one_hot(token_id, len(table)), table) for token_id in ids]


def one_hot_mults(vocab, dim, count):
    return functools.reduce(operator.mul, (vocab, dim, count), 1)


def logits(table, hidden):
    if len(hidden) != shape(table)[1]:
        raise ValueError("width mismatch")
    return [dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    bigger = vocab * factor
    counts = {"vocab": vocab, "bigger_vocab": bigger, "dim": dim}
    for key, fn in (("tied", tied_params), ("untied", untied_params)):
        counts[key] = fn(vocab, dim)
        counts["bigger_" + key] = fn(bigger, dim)
    counts["saved"] = counts["untied"] - counts["tied"]
    return counts


def dot(a, b):
    return sum(map(operator.mul, a, b))


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    lengths = norm(a) * norm(b)
    return 0.0 if lengths == 0 else dot(a, b) / lengths


def stretch(table, token_id, factor):
    lookup(table, [token_id])  # only for the range check
    new = [list(row) for row in table]
    new[token_id] = list(map(functools.partial(operator.mul, factor), table[token_id]))
    return new


def _nearest(table, token_id, k, score):
    (probe,) = lookup(table, [token_id])
    candidates = (i for i in range(len(table)) if i != token_id)
    return heapq.nsmallest(k, candidates, key=lambda i: (-score(probe, table[i]), i))


def nearest_by_cosine(table, token_id, k):
    return _nearest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _nearest(table, token_id, k, dot)


def rms(vec):
    if not vec:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    scale = math.sqrt(dim)
    return [[scale * x for x in row] for row in lookup(table, ids)]
