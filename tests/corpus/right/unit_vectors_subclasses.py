# style: the cosine as the dot product of the two unit vectors, math.dist for lengths,
# tuples everywhere the contract allows them, errors raised as subclasses of the
# builtin ones (one of both IndexError and ValueError), lookup memoised by value with
# functools.lru_cache, heapq.nlargest over (score, -index, index)
import functools
import heapq
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


class TokenOutOfRange(IndexError, ValueError):
    pass


class Ragged(ValueError):
    pass


def make_table(vocab, dim, seed):
    rng = random.Random()
    rng.seed(seed)
    draw = rng.random
    return [[-0.5 + draw() for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    widths = set(map(len, matrix))
    if len(widths) > 1:
        raise Ragged("ragged: widths %s" % sorted(widths))
    return len(matrix), (widths.pop() if widths else 0)


def param_count(vocab, dim):
    return math.prod((vocab, dim))


def _check(token_id, size):
    if token_id not in range(size):
        raise TokenOutOfRange(token_id)


@functools.lru_cache(maxsize=None)
def _rows(table_key, ids_key):
    return tuple(tuple(table_key[i]) for i in ids_key)


def lookup(table, ids):
    for i in ids:
        _check(i, len(table))
    key = tuple(map(tuple, table))
    return [list(r) for r in _rows(key, tuple(ids))]


def one_hot(token_id, vocab):
    return tuple(float(i == token_id) for i in range(vocab))


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("length")
    return tuple(sum(v * x for v, x in zip(vec, col)) for col in zip(*matrix))


def lookup_via_one_hot(table, ids):
    v = len(table)
    out = []
    for i in ids:
        _check(i, v)
        out.append(row_times_matrix(one_hot(i, v), table))
    return tuple(out)


def one_hot_mults(vocab, dim, count):
    return functools.reduce(lambda a, b: a * b, (vocab, dim, count), 1)


def logits(table, hidden):
    rows, cells = shape(table)
    if len(hidden) != cells:
        raise Ragged("width")
    return tuple(dot(row, hidden) for row in table)


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return vocab * dim << 1


def vocab_growth(vocab, dim, factor):
    big = vocab * factor
    return dict(
        saved=untied_params(vocab, dim) - tied_params(vocab, dim),
        bigger_untied=untied_params(big, dim),
        untied=untied_params(vocab, dim),
        bigger_tied=tied_params(big, dim),
        tied=tied_params(vocab, dim),
        dim=dim,
        bigger_vocab=big,
        vocab=vocab,
    )


def dot(a, b):
    total = 0.0
    for i in range(len(a) - 1, -1, -1):
        total += a[i] * b[i]
    return total


def norm(vec):
    return math.dist(vec, [0.0] * len(vec)) if vec else 0.0


def cosine(a, b):
    na, nb = norm(a), norm(b)
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot([x / na for x in a], [y / nb for y in b])


def stretch(table, token_id, factor):
    _check(token_id, len(table))
    return tuple(
        tuple(x * factor for x in row) if i == token_id else tuple(row)
        for i, row in enumerate(table)
    )


def _nearest(table, token_id, k, score):
    _check(token_id, len(table))
    probe = table[token_id]
    cands = ((score(probe, row), -i, i) for i, row in enumerate(table) if i != token_id)
    return tuple(i for _, _, i in heapq.nlargest(k, cands))


def nearest_by_cosine(table, token_id, k):
    return _nearest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _nearest(table, token_id, k, dot)


def rms(vec):
    return norm(vec) / math.sqrt(len(vec)) if vec else 0.0


def scaled_lookup(table, ids, dim):
    s = dim ** 0.5
    return [[x * s for x in row] for row in lookup(table, ids)]
