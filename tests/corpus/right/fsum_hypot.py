# style: math.fsum for every sum, math.hypot for lengths, a shared range check
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    table = []
    for _ in range(vocab):
        table.append([rng.random() - 0.5 for _ in range(dim)])
    return table


def shape(matrix):
    if not matrix:
        return (0, 0)
    cells = len(matrix[0])
    if any(len(row) != cells for row in matrix):
        raise ValueError("not every row has %d cells" % cells)
    return (len(matrix), cells)


def param_count(vocab, dim):
    return vocab * dim


def _require(token_id, size):
    if token_id < 0 or token_id >= size:
        raise IndexError("token %r outside 0..%d" % (token_id, size - 1))


def lookup(table, ids):
    out = []
    for token_id in ids:
        _require(token_id, len(table))
        out.append(table[token_id][:])
    return out


def one_hot(token_id, vocab):
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("expected %d entries, got %d" % (rows, len(vec)))
    return [math.fsum(vec[r] * matrix[r][c] for r in range(rows)) for c in range(cells)]


def lookup_via_one_hot(table, ids):
    for token_id in ids:
        _require(token_id, len(table))
    return [row_times_matrix(one_hot(token_id, len(table)), table) for token_id in ids]


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    _, width = shape(table)
    if len(hidden) != width:
        raise ValueError("hidden has %d values, the table is %d wide" % (len(hidden), width))
    return [dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return param_count(vocab, dim) * 2


def vocab_growth(vocab, dim, factor):
    bigger = vocab * factor
    tied, untied = tied_params(vocab, dim), untied_params(vocab, dim)
    return {"vocab": vocab, "bigger_vocab": bigger, "dim": dim,
            "tied": tied, "bigger_tied": tied_params(bigger, dim),
            "untied": untied, "bigger_untied": untied_params(bigger, dim),
            "saved": untied - tied}


def dot(a, b):
    return math.fsum(x * y for x, y in zip(a, b))


def norm(vec):
    return math.hypot(*vec)


def cosine(a, b):
    na, nb = norm(a), norm(b)
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot(a, b) / (na * nb)


def stretch(table, token_id, factor):
    _require(token_id, len(table))
    out = [row[:] for row in table]
    out[token_id] = [x * factor for x in out[token_id]]
    return out


def _rank(table, token_id, k, score):
    _require(token_id, len(table))
    probe = table[token_id]
    order = sorted((i for i in range(len(table)) if i != token_id),
                   key=lambda i: (-score(probe, table[i]), i))
    return order[:k]


def nearest_by_cosine(table, token_id, k):
    return _rank(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _rank(table, token_id, k, dot)


def rms(vec):
    if len(vec) == 0:
        return 0.0
    return math.sqrt(math.fsum(x * x for x in vec) / len(vec))


def scaled_lookup(table, ids, dim):
    s = math.sqrt(dim)
    return [[x * s for x in row] for row in lookup(table, ids)]
