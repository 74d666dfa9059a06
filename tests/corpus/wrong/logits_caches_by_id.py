# blame: logits
# mistake: Keeps each answer in a dict keyed by id(table) and the values of hidden, and gives it again for a table at that identity, changed or new.
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    return [[rng.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    rows = len(matrix)
    cells = len(matrix[0]) if rows else 0
    for row in matrix:
        if len(row) != cells:
            raise ValueError("rows have different lengths")
    return (rows, cells)


def param_count(vocab, dim):
    return vocab * dim


def _check_id(token_id, vocab):
    if not 0 <= token_id < vocab:
        raise IndexError("token id %d is outside the vocabulary" % token_id)


def lookup(table, ids):
    rows = []
    for token_id in ids:
        if not 0 <= token_id < len(table):
            raise IndexError("token id %d is outside the vocabulary" % token_id)
        rows.append(list(table[token_id]))
    return rows


def one_hot(token_id, vocab):
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("vector length does not match the number of rows")
    return [sum(vec[r] * matrix[r][c] for r in range(rows)) for c in range(cells)]


def lookup_via_one_hot(table, ids):
    rows = []
    for token_id in ids:
        _check_id(token_id, len(table))
        rows.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return rows


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    rows, cells = shape(table)
    if len(hidden) != cells:
        raise ValueError("hidden vector does not match the table width")
    return [dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    bigger = vocab * factor
    return {
        "vocab": vocab,
        "bigger_vocab": bigger,
        "dim": dim,
        "tied": tied_params(vocab, dim),
        "bigger_tied": tied_params(bigger, dim),
        "untied": untied_params(vocab, dim),
        "bigger_untied": untied_params(bigger, dim),
        "saved": untied_params(vocab, dim) - tied_params(vocab, dim),
    }


def dot(a, b):
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    return total


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    lengths = norm(a) * norm(b)
    if lengths == 0.0:
        return 0.0
    return dot(a, b) / lengths


def stretch(table, token_id, factor):
    _check_id(token_id, len(table))
    new_table = [list(row) for row in table]
    new_table[token_id] = [x * factor for x in table[token_id]]
    return new_table


def nearest_by_cosine(table, token_id, k):
    _check_id(token_id, len(table))
    probe = table[token_id]
    others = [i for i in range(len(table)) if i != token_id]
    ranked = sorted(others, key=lambda i: (-cosine(probe, table[i]), i))
    return ranked[:k]


def nearest_by_dot(table, token_id, k):
    _check_id(token_id, len(table))
    probe = table[token_id]
    others = [i for i in range(len(table)) if i != token_id]
    ranked = sorted(others, key=lambda i: (-dot(probe, table[i]), i))
    return ranked[:k]


def rms(vec):
    if not vec:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    scale = math.sqrt(dim)
    return [[x * scale for x in row] for row in lookup(table, ids)]


# The answers, by the identity of a list: wrong once that list changes.
_LOGITS_KEPT = {}
_logits_computed = logits


def logits(table, hidden):
    key = (id(table), tuple(hidden))
    if key not in _LOGITS_KEPT:
        _LOGITS_KEPT[key] = _logits_computed(table, hidden)
    return _LOGITS_KEPT[key]
