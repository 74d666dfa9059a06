# style: lookup hands out the table's own row objects (nothing ever writes into
# them), stretch copies only the outer list and replaces one row, one_hot gives
# ints, vocab_growth is computed inline, lookup's own bound check is loose at the
# top but the list index still raises IndexError there
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    rows = []
    for _ in range(vocab):
        rows.append([rng.random() - 0.5 for _ in range(dim)])
    return rows


def shape(matrix):
    if not matrix:
        return 0, 0
    lengths = [len(row) for row in matrix]
    if min(lengths) != max(lengths):
        raise ValueError("ragged")
    return len(matrix), lengths[0]


def param_count(vocab, dim):
    return vocab * dim


def lookup(table, ids):
    rows = []
    for token_id in ids:
        if token_id < 0 or token_id > len(table):
            raise IndexError("negative or too large id")
        rows.append(table[token_id])  # IndexError here for token_id == len(table)
    return rows


def one_hot(token_id, vocab):
    return [int(i == token_id) for i in range(vocab)]


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("mismatch")
    out = [0.0] * cells
    for c in range(cells):
        out[c] = sum(vec[r] * matrix[r][c] for r in range(rows))
    return out


def lookup_via_one_hot(table, ids):
    out = []
    for token_id in ids:
        if token_id < 0 or token_id >= len(table):
            raise IndexError("bad id")
        out.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return out


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    rows, cells = shape(table)
    if len(hidden) != cells:
        raise ValueError("width")
    return [dot(table[t], hidden) for t in range(rows)]


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return 2 * vocab * dim


def vocab_growth(vocab, dim, factor):
    return {
        "vocab": vocab,
        "bigger_vocab": vocab * factor,
        "dim": dim,
        "tied": vocab * dim,
        "bigger_tied": vocab * factor * dim,
        "untied": 2 * vocab * dim,
        "bigger_untied": 2 * vocab * factor * dim,
        "saved": vocab * dim,
    }


def dot(a, b):
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    return total


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    n = norm(a) * norm(b)
    if not n:
        return 0.0
    return dot(a, b) / n


def _probe(table, token_id):
    if token_id < 0:
        raise IndexError("negative id")
    return table[token_id]  # past the end the list index raises IndexError itself


def stretch(table, token_id, factor):
    _probe(table, token_id)
    new_table = list(table)  # the other rows are shared and never written
    new_table[token_id] = [x * factor for x in table[token_id]]
    return new_table


def nearest_by_cosine(table, token_id, k):
    probe = _probe(table, token_id)
    order = sorted(range(len(table)), key=lambda i: (-cosine(probe, table[i]), i))
    order.remove(token_id)
    return order[:k]


def nearest_by_dot(table, token_id, k):
    probe = _probe(table, token_id)
    order = sorted(range(len(table)), key=lambda i: (-dot(probe, table[i]), i))
    order.remove(token_id)
    return order[:k]


def rms(vec):
    if not vec:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    return [[x * math.sqrt(dim) for x in row] for row in lookup(table, ids)]
