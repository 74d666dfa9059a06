# style: functools.reduce, partial and map everywhere
from functools import partial, reduce
import math
import operator as op
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    draw = lambda _: rng.random() - 0.5
    return list(map(lambda _: list(map(draw, range(dim))), range(vocab)))


def shape(matrix):
    def step(width, row):
        if width is not None and len(row) != width:
            raise ValueError("ragged")
        return len(row)

    width = reduce(step, matrix, None)
    return (len(matrix), 0 if width is None else width)


def param_count(vocab, dim):
    return reduce(op.mul, (vocab, dim), 1)


def _in_range(n, i):
    if not 0 <= i < n:
        raise IndexError(i)
    return i


def lookup(table, ids):
    check = partial(_in_range, len(table))
    return [list(table[i]) for i in map(check, ids)]


def one_hot(token_id, vocab):
    return list(map(lambda i: 1.0 if i == token_id else 0.0, range(vocab)))


def dot(a, b):
    return reduce(op.add, map(op.mul, a, b), 0.0)


def row_times_matrix(vec, matrix):
    rows, cols = shape(matrix)
    if rows != len(vec):
        raise ValueError("vector length differs from the number of rows")
    return [dot(vec, [matrix[r][c] for r in range(rows)]) for c in range(cols)]


def lookup_via_one_hot(table, ids):
    check = partial(_in_range, len(table))
    return [row_times_matrix(one_hot(i, len(table)), table) for i in map(check, ids)]


def one_hot_mults(vocab, dim, count):
    return reduce(op.mul, (vocab, dim, count), 1)


def logits(table, hidden):
    if shape(table)[1] != len(hidden):
        raise ValueError("hidden")
    return list(map(partial(dot, b=hidden), table))


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    names = ["tied", "untied"]
    funcs = [tied_params, untied_params]
    big = vocab * factor
    res = dict(vocab=vocab, bigger_vocab=big, dim=dim)
    res.update({n: f(vocab, dim) for n, f in zip(names, funcs)})
    res.update({"bigger_" + n: f(big, dim) for n, f in zip(names, funcs)})
    res["saved"] = res["untied"] - res["tied"]
    return res


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    length = norm(a) * norm(b)
    return dot(a, b) / length if length > 0.0 else 0.0


def stretch(table, token_id, factor):
    _in_range(len(table), token_id)
    scale = partial(op.mul, factor)
    return [list(map(scale, row)) if i == token_id else list(row) for i, row in enumerate(table)]


def _nearest(score, table, token_id, k):
    probe = table[_in_range(len(table), token_id)]
    others = filter(lambda i: i != token_id, range(len(table)))
    return sorted(others, key=lambda i: (-score(probe, table[i]), i))[:k]


nearest_by_cosine_impl = partial(_nearest, cosine)


def nearest_by_cosine(table, token_id, k):
    return nearest_by_cosine_impl(table, token_id, k)


def nearest_by_dot(table, token_id, k):
    return _nearest(dot, table, token_id, k)


def rms(vec):
    return math.sqrt(dot(vec, vec) / len(vec)) if vec else 0.0


def scaled_lookup(table, ids, dim):
    s = partial(op.mul, math.sqrt(dim))
    return [list(map(s, row)) for row in lookup(table, ids)]
