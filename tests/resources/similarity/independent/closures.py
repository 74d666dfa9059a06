# style: factories that return closures; statistics for the rms
import math
import random
import statistics

VOCAB = 512
DIM = 64
SEED = 20260917


def _bounds(table):
    size = len(table)

    def check(i):
        if not 0 <= i < size:
            raise IndexError("%r is not a row of a %d-row table" % (i, size))
        return i

    return check


def _scaler(factor):
    return lambda row: [v * factor for v in row]


def make_table(vocab, dim, seed):
    r = random.Random(seed)
    nxt = lambda: r.random() - 0.5
    return [[nxt() for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    n = len(matrix)
    m = len(matrix[0]) if n else 0
    if not all(len(row) == m for row in matrix):
        raise ValueError("ragged table")
    return (n, m)


def param_count(vocab, dim):
    return vocab * dim


def lookup(table, ids):
    ok = _bounds(table)
    return [table[ok(i)][:] for i in ids]


def one_hot(token_id, vocab):
    return [1.0 if position == token_id else 0.0 for position in range(vocab)]


def row_times_matrix(vec, matrix):
    n, m = shape(matrix)
    if len(vec) != n:
        raise ValueError("vec length %d, matrix rows %d" % (len(vec), n))

    def column_sum(c):
        total = 0.0
        for r in range(n):
            total += vec[r] * matrix[r][c]
        return total

    return [column_sum(c) for c in range(m)]


def lookup_via_one_hot(table, ids):
    ok = _bounds(table)
    return [row_times_matrix(one_hot(ok(i), len(table)), table) for i in ids]


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    n, m = shape(table)
    if m != len(hidden):
        raise ValueError("hidden length %d, table width %d" % (len(hidden), m))
    score = _against(hidden)
    return [score(row) for row in table]


def _against(hidden):
    def score(row):
        return dot(row, hidden)

    return score


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return 2 * vocab * dim


def vocab_growth(vocab, dim, factor):
    at = lambda v: (tied_params(v, dim), untied_params(v, dim))
    (t1, u1), (t2, u2) = at(vocab), at(vocab * factor)
    return {"vocab": vocab, "bigger_vocab": vocab * factor, "dim": dim, "tied": t1,
            "bigger_tied": t2, "untied": u1, "bigger_untied": u2, "saved": u1 - t1}


def dot(a, b):
    s = 0.0
    for pair in zip(a, b):
        s += pair[0] * pair[1]
    return s


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    la = norm(a)
    lb = norm(b)
    if not la or not lb:
        return 0.0
    return max(-1.0, min(1.0, dot(a, b) / (la * lb)))


def stretch(table, token_id, factor):
    _bounds(table)(token_id)
    grow = _scaler(factor)
    return [grow(row) if i == token_id else row[:] for i, row in enumerate(table)]


def _ranker(score):
    def ranked(table, token_id, k):
        _bounds(table)(token_id)
        p = table[token_id]
        pool = [(score(p, row), -i) for i, row in enumerate(table) if i != token_id]
        pool.sort(reverse=True)
        return [-j for _, j in pool[:k]]

    return ranked


_by_cos = _ranker(cosine)
_by_dot = _ranker(dot)


def nearest_by_cosine(table, token_id, k):
    return _by_cos(table, token_id, k)


def nearest_by_dot(table, token_id, k):
    return _by_dot(table, token_id, k)


def rms(vec):
    if not vec:
        return 0.0
    return math.sqrt(statistics.fmean([v * v for v in vec]))


def scaled_lookup(table, ids, dim):
    return list(map(_scaler(math.sqrt(dim)), lookup(table, ids)))
