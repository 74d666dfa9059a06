# style: map and lambda; the one-hot product as a running sum of scaled rows
import functools
import itertools
import math
import operator
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    flat = [rng.random() - 0.5 for _ in range(vocab * dim)]
    return [flat[r * dim:(r + 1) * dim] for r in range(vocab)]


def shape(matrix):
    lengths = list(map(len, matrix))
    if lengths and lengths.count(lengths[0]) != len(lengths):
        raise ValueError("rows of unequal length")
    return (len(lengths), lengths[0] if lengths else 0)


def param_count(vocab, dim):
    return operator.mul(vocab, dim)


def _checked(table, ids):
    for token_id in ids:
        if token_id not in range(len(table)):
            raise IndexError("token id %r out of range" % (token_id,))
    return ids


def lookup(table, ids):
    return list(map(lambda i: list(table[i]), _checked(table, ids)))


def one_hot(token_id, vocab):
    return [0.0] * token_id + [1.0] + [0.0] * (vocab - token_id - 1)


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("vector length must equal the number of rows")
    # out = vec[0] * row 0 + vec[1] * row 1 + ... , added in row order
    return functools.reduce(
        lambda acc, pair: [a + pair[0] * x for a, x in zip(acc, pair[1])],
        zip(vec, matrix),
        [0.0] * cells,
    )


def lookup_via_one_hot(table, ids):
    return [row_times_matrix(one_hot(i, len(table)), table) for i in _checked(table, ids)]


def one_hot_mults(vocab, dim, count):
    return functools.reduce(operator.mul, [vocab, dim, count])


def logits(table, hidden):
    if shape(table)[1] != len(hidden):
        raise ValueError("hidden vector does not fit the table")
    return list(map(lambda row: dot(row, hidden), table))


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return sum([param_count(vocab, dim)] * 2)


def vocab_growth(vocab, dim, factor):
    keys = ("vocab", "bigger_vocab", "dim", "tied", "bigger_tied", "untied",
            "bigger_untied", "saved")
    values = (vocab, vocab * factor, dim, tied_params(vocab, dim),
              tied_params(vocab * factor, dim), untied_params(vocab, dim),
              untied_params(vocab * factor, dim),
              untied_params(vocab, dim) - tied_params(vocab, dim))
    return dict(zip(keys, values))


def dot(a, b):
    return sum(itertools.starmap(operator.mul, zip(a, b)), 0.0)


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    denominator = norm(a) * norm(b)
    if denominator == 0:
        return 0.0
    return dot(a, b) / denominator


def stretch(table, token_id, factor):
    _checked(table, [token_id])
    return [list(map(lambda x: x * factor, row)) if i == token_id else list(row)
            for i, row in enumerate(table)]


def _nearest(table, token_id, k, score):
    _checked(table, [token_id])
    probe = table[token_id]
    others = filter(lambda i: i != token_id, range(len(table)))
    return list(itertools.islice(
        sorted(others, key=lambda i: (-score(probe, table[i]), i)), k))


def nearest_by_cosine(table, token_id, k):
    return _nearest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _nearest(table, token_id, k, dot)


def rms(vec):
    return math.sqrt(dot(vec, vec) / len(vec)) if len(vec) else 0.0


def scaled_lookup(table, ids, dim):
    return [list(map(lambda x: x * math.sqrt(dim), row)) for row in lookup(table, ids)]
