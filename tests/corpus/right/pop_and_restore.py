# style: the neighbour functions take the probe's row out of the table with pop() and
# put it back with insert() before they return (a change undone before the return is
# not seen; the instructions say so), otherwise as right/comprehensions.py
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    return [[rng.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    widths = {len(row) for row in matrix}
    if len(widths) > 1:
        raise ValueError("ragged table: row lengths %s" % sorted(widths))
    return (len(matrix), widths.pop() if widths else 0)


def param_count(vocab, dim):
    return vocab * dim


def _valid(table, ids):
    bad = [i for i in ids if i not in range(len(table))]
    if bad:
        raise IndexError("ids outside the vocabulary: %s" % bad)


def lookup(table, ids):
    _valid(table, ids)
    return [[x for x in table[i]] for i in ids]


def one_hot(token_id, vocab):
    return [1.0 if i == token_id else 0.0 for i in range(vocab)]


def row_times_matrix(vec, matrix):
    if len(vec) != shape(matrix)[0]:
        raise ValueError("the vector needs one entry per row of the matrix")
    return [sum(v * x for v, x in zip(vec, column)) for column in zip(*matrix)]


def lookup_via_one_hot(table, ids):
    _valid(table, ids)
    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]


def one_hot_mults(vocab, dim, count):
    return count * vocab * dim


def logits(table, hidden):
    if len(hidden) != shape(table)[1]:
        raise ValueError("hidden vector and table width differ")
    return [sum(x * h for x, h in zip(row, hidden)) for row in table]


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    big = vocab * factor
    return dict(
        vocab=vocab,
        bigger_vocab=big,
        dim=dim,
        tied=tied_params(vocab, dim),
        bigger_tied=tied_params(big, dim),
        untied=untied_params(vocab, dim),
        bigger_untied=untied_params(big, dim),
        saved=untied_params(vocab, dim) - tied_params(vocab, dim),
    )


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def norm(vec):
    return math.sqrt(sum(x * x for x in vec))


def cosine(a, b):
    denominator = norm(a) * norm(b)
    return dot(a, b) / denominator if denominator else 0.0


def stretch(table, token_id, factor):
    _valid(table, [token_id])
    return [[x * factor for x in row] if i == token_id else list(row)
            for i, row in enumerate(table)]


def _without_probe(table, token_id, k, score):
    _valid(table, [token_id])
    probe = table.pop(token_id)  # put back below, before anything returns
    try:
        scored = sorted((-score(probe, row), i) for i, row in enumerate(table))
    finally:
        table.insert(token_id, probe)
    return [i + (i >= token_id) for _, i in scored[:k]]


def nearest_by_cosine(table, token_id, k):
    return _without_probe(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _without_probe(table, token_id, k, dot)


def rms(vec):
    return math.sqrt(sum(x * x for x in vec) / len(vec)) if vec else 0.0


def scaled_lookup(table, ids, dim):
    root = math.sqrt(dim)
    return [[x * root for x in row] for row in lookup(table, ids)]
