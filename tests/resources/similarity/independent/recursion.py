# style: recursive helpers and early returns, tuples inside
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    source = random.Random(seed)

    def row(n):
        return [] if n == 0 else [source.random() - 0.5] + row(n - 1)

    def grow(left, acc):
        if left == 0:
            return acc
        acc.append(_iter_row(source, dim))
        return grow(left - 1, acc)

    return grow(vocab, []) if vocab < 900 else [_iter_row(source, dim) for _ in range(vocab)]


def _iter_row(source, dim):
    return [source.random() - 0.5 for _ in range(dim)]


def shape(matrix):
    if not matrix:
        return (0, 0)
    first = len(matrix[0])
    if any(len(r) != first for r in matrix):
        raise ValueError("not rectangular")
    return (len(matrix), first)


def param_count(vocab, dim):
    return vocab * dim


def _valid(i, n):
    if i < 0 or i >= n:
        raise IndexError("id %s not in 0..%s" % (i, n - 1))
    return i


def lookup(table, ids):
    if not ids:
        return []
    return [list(table[_valid(ids[0], len(table))])] + lookup(table, ids[1:]) if len(ids) < 200 else [
        list(table[_valid(i, len(table))]) for i in ids
    ]


def one_hot(token_id, vocab):
    return [0.0] * token_id + [1.0] + [0.0] * (vocab - token_id - 1)


def _sum(xs):
    total = 0.0
    for x in xs:
        total += x
    return total


def row_times_matrix(vec, matrix):
    n, m = shape(matrix)
    if len(vec) != n:
        raise ValueError("%d != %d" % (len(vec), n))
    return [_sum(vec[r] * matrix[r][c] for r in range(n)) for c in range(m)]


def lookup_via_one_hot(table, ids):
    return [row_times_matrix(one_hot(_valid(i, len(table)), len(table)), table) for i in ids]


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    if shape(table)[1] != len(hidden):
        raise ValueError("hidden width")
    return [dot(r, hidden) for r in table]


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return 2 * tied_params(vocab, dim)


def vocab_growth(vocab, dim, factor):
    def counts(v):
        return tied_params(v, dim), untied_params(v, dim)

    t, u = counts(vocab)
    bt, bu = counts(vocab * factor)
    return {"vocab": vocab, "bigger_vocab": vocab * factor, "dim": dim, "tied": t,
            "bigger_tied": bt, "untied": u, "bigger_untied": bu, "saved": u - t}


def dot(a, b):
    return _sum(x * y for x, y in zip(a, b))


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    if not any(a) or not any(b):
        return 0.0
    value = dot(a, b) / (norm(a) * norm(b))
    return 1.0 if value > 1.0 else -1.0 if value < -1.0 else value


def stretch(table, token_id, factor):
    _valid(token_id, len(table))
    return [list(r) if i != token_id else [v * factor for v in r] for i, r in enumerate(table)]


def _merge(a, b):
    out = []
    while a and b:
        out.append(a.pop(0) if a[0] <= b[0] else b.pop(0))
    return out + a + b


def _sort(items):
    if len(items) <= 1:
        return items
    mid = len(items) // 2
    return _merge(_sort(items[:mid]), _sort(items[mid:]))


def _nearest(table, token_id, k, f):
    p = table[_valid(token_id, len(table))]
    keyed = [(-f(p, r), i) for i, r in enumerate(table) if i != token_id]
    return [i for _, i in _sort(keyed)[:k]]


def nearest_by_cosine(table, token_id, k):
    return _nearest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _nearest(table, token_id, k, dot)


def rms(vec):
    return 0.0 if not vec else math.sqrt(_sum(x * x for x in vec) / len(vec))


def scaled_lookup(table, ids, dim):
    g = math.sqrt(dim)
    return [[g * x for x in r] for r in lookup(table, ids)]
