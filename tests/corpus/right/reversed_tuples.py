# style: sums run from the last term to the first; rows and neighbour lists are
# tuples; the neighbours come from a stable sort with reverse=True
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    table = []
    while len(table) < vocab:
        table.append([rng.random() - 0.5 for _ in range(dim)])
    return table


def shape(matrix):
    n = len(matrix)
    if n == 0:
        return (0, 0)
    d = len(matrix[0])
    for row in reversed(matrix):
        if len(row) != d:
            raise ValueError("rows differ in length")
    return (n, d)


def param_count(vocab, dim):
    return dim * vocab


def _check(table, token_id):
    if not (0 <= token_id < len(table)):
        raise IndexError("no row %r" % (token_id,))


def lookup(table, ids):
    rows = []
    for token_id in ids:
        _check(table, token_id)
        rows.append(tuple(table[token_id]))
    return rows


def one_hot(token_id, vocab):
    return tuple(1.0 if i == token_id else 0.0 for i in range(vocab))


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("vector and matrix do not fit")
    out = []
    for c in range(cells):
        total = 0.0
        for r in reversed(range(rows)):
            total += vec[r] * matrix[r][c]
        out.append(total)
    return tuple(out)


def lookup_via_one_hot(table, ids):
    rows = []
    for token_id in ids:
        _check(table, token_id)
        rows.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return rows


def one_hot_mults(vocab, dim, count):
    return count * dim * vocab


def logits(table, hidden):
    _, cells = shape(table)
    if len(hidden) != cells:
        raise ValueError("hidden does not match the table")
    return tuple(dot(row, hidden) for row in table)


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return param_count(vocab, dim) + param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    out = {"vocab": vocab, "dim": dim, "bigger_vocab": vocab * factor}
    out["tied"] = tied_params(vocab, dim)
    out["untied"] = untied_params(vocab, dim)
    out["bigger_tied"] = tied_params(out["bigger_vocab"], dim)
    out["bigger_untied"] = untied_params(out["bigger_vocab"], dim)
    out["saved"] = out["untied"] - out["tied"]
    return out


def dot(a, b):
    total = 0.0
    for i in range(len(a) - 1, -1, -1):
        total += a[i] * b[i]
    return total


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    na = norm(a)
    nb = norm(b)
    if na * nb == 0.0:
        return 0.0
    return dot(a, b) / (na * nb)


def stretch(table, token_id, factor):
    _check(table, token_id)
    return [[x * factor for x in row] if i == token_id else list(row)
            for i, row in enumerate(table)]


def _nearest(table, token_id, k, score):
    _check(table, token_id)
    probe = table[token_id]
    others = [i for i in range(len(table)) if i != token_id]
    # sorted() is stable also with reverse=True: equal scores keep index order
    others.sort(key=lambda i: score(probe, table[i]), reverse=True)
    return tuple(others[:k])


def nearest_by_cosine(table, token_id, k):
    return _nearest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _nearest(table, token_id, k, dot)


def rms(vec):
    if len(vec) == 0:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    scale = math.sqrt(dim)
    return [tuple(x * scale for x in row) for row in lookup(table, ids)]
