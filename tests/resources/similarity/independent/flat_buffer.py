# style: the table is kept flat internally; index arithmetic; array module
from array import array
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    g = random.Random(seed)
    flat = array("d", (g.random() - 0.5 for _ in range(vocab * dim)))
    return [flat[r * dim:(r + 1) * dim].tolist() for r in range(vocab)]


def shape(matrix):
    rows = len(matrix)
    cols = len(matrix[0]) if rows else 0
    bad = [i for i in range(rows) if len(matrix[i]) != cols]
    if bad:
        raise ValueError("row %d has another length" % bad[0])
    return rows, cols


def param_count(vocab, dim):
    return vocab * dim


def _flatten(matrix):
    rows, cols = shape(matrix)
    buf = array("d")
    for row in matrix:
        buf.extend(row)
    return buf, rows, cols


def _id(token_id, rows):
    if token_id < 0 or token_id >= rows:
        raise IndexError("token %d, rows %d" % (token_id, rows))


def lookup(table, ids):
    out = []
    for t in ids:
        _id(t, len(table))
        out.append(list(table[t]))
    return out


def one_hot(token_id, vocab):
    buf = array("d", bytes(8 * vocab))
    buf[token_id] = 1.0
    return buf.tolist()


def row_times_matrix(vec, matrix):
    buf, rows, cols = _flatten(matrix)
    if len(vec) != rows:
        raise ValueError("length of vec is not the number of rows")
    out = [0.0] * cols
    for c in range(cols):
        s = 0.0
        for r in range(rows):
            s += vec[r] * buf[r * cols + c]
        out[c] = s
    return out


def lookup_via_one_hot(table, ids):
    out = []
    for t in ids:
        _id(t, len(table))
        out.append(row_times_matrix(one_hot(t, len(table)), table))
    return out


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    buf, rows, cols = _flatten(table)
    if cols != len(hidden):
        raise ValueError("hidden length is not the width")
    res = []
    for r in range(rows):
        base = r * cols
        s = 0.0
        for c in range(cols):
            s += buf[base + c] * hidden[c]
        res.append(s)
    return res


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return 2 * vocab * dim


def vocab_growth(vocab, dim, factor):
    v2 = vocab * factor
    return {"vocab": vocab, "bigger_vocab": v2, "dim": dim,
            "tied": vocab * dim, "bigger_tied": v2 * dim,
            "untied": 2 * vocab * dim, "bigger_untied": 2 * v2 * dim,
            "saved": vocab * dim}


def dot(a, b):
    s = 0.0
    for i, x in enumerate(a):
        s += x * b[i]
    return s


def norm(vec):
    return math.sqrt(sum(x * x for x in vec))


def cosine(a, b):
    d = norm(a) * norm(b)
    if d == 0.0:
        return 0.0
    c = dot(a, b) / d
    return min(max(c, -1.0), 1.0)


def stretch(table, token_id, factor):
    _id(token_id, len(table))
    copy = [list(r) for r in table]
    for c in range(len(copy[token_id])):
        copy[token_id][c] *= factor
    return copy


def _select(table, token_id, k, fn):
    _id(token_id, len(table))
    p = table[token_id]
    vals = [(fn(p, table[i]), i) for i in range(len(table)) if i != token_id]
    vals.sort(key=lambda t: t[1])
    vals.sort(key=lambda t: t[0], reverse=True)
    return [i for _, i in vals[:k]]


def nearest_by_cosine(table, token_id, k):
    return _select(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _select(table, token_id, k, dot)


def rms(vec):
    if not vec:
        return 0.0
    return math.sqrt(sum(x * x for x in vec) / len(vec))


def scaled_lookup(table, ids, dim):
    k = math.sqrt(dim)
    res = lookup(table, ids)
    for row in res:
        for c in range(len(row)):
            row[c] *= k
    return res
