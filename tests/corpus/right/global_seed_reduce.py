# style: the module-level generator seeded with the seed argument on every call
# (it yields the same draws as random.Random(seed)), functools.reduce for the sums,
# heapq.nlargest with (score, -index) keys
import functools
import heapq
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    random.seed(seed)
    return [[random.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    if len(matrix) == 0:
        return (0, 0)
    first = len(matrix[0])
    if any(len(row) - first for row in matrix):
        raise ValueError("the rows are not all %d long" % first)
    return (len(matrix), first)


def param_count(vocab, dim):
    return vocab * dim


def _in_vocab(token_id, table):
    if token_id < 0 or token_id >= len(table):
        raise IndexError("%r is not a token of this table" % (token_id,))
    return token_id


def lookup(table, ids):
    return [list(table[_in_vocab(t, table)]) for t in ids]


def one_hot(token_id, vocab):
    return [float(i == token_id) for i in range(vocab)]


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("vec has %d values for %d rows" % (len(vec), rows))
    return [functools.reduce(lambda acc, r: acc + vec[r] * matrix[r][c], range(rows), 0.0)
            for c in range(cells)]


def lookup_via_one_hot(table, ids):
    return [row_times_matrix(one_hot(_in_vocab(t, table), len(table)), table) for t in ids]


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    width = shape(table)[1]
    if len(hidden) != width:
        raise ValueError("expected a hidden vector of %d values" % width)
    return [dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    bigger = vocab * factor
    return {
        "vocab": vocab, "bigger_vocab": bigger, "dim": dim,
        "tied": tied_params(vocab, dim), "bigger_tied": tied_params(bigger, dim),
        "untied": untied_params(vocab, dim), "bigger_untied": untied_params(bigger, dim),
        "saved": untied_params(vocab, dim) - tied_params(vocab, dim),
    }


def dot(a, b):
    return functools.reduce(lambda acc, pair: acc + pair[0] * pair[1], zip(a, b), 0.0)


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    na, nb = norm(a), norm(b)
    return dot(a, b) / (na * nb) if na and nb else 0.0


def stretch(table, token_id, factor):
    _in_vocab(token_id, table)
    return [list(row) if i != token_id else [factor * x for x in row]
            for i, row in enumerate(table)]


def _top(table, token_id, k, score):
    probe = table[_in_vocab(token_id, table)]
    keyed = ((score(probe, row), -i) for i, row in enumerate(table) if i != token_id)
    return [-neg for _, neg in heapq.nlargest(k, keyed)]


def nearest_by_cosine(table, token_id, k):
    return _top(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _top(table, token_id, k, dot)


def rms(vec):
    if not vec:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    root = math.sqrt(dim)
    return [[x * root for x in row] for row in lookup(table, ids)]
