# style: transposes the table once and works with columns; lists of tuples
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    stream = random.Random(seed)
    rows = []
    for token in range(vocab):
        rows.append([stream.random() - 0.5 for cell in range(dim)])
    return rows


def _transpose(matrix):
    return [list(col) for col in zip(*matrix)]


def shape(matrix):
    if not matrix:
        return 0, 0
    n_cols = len(matrix[0])
    for position, row in enumerate(matrix):
        if len(row) != n_cols:
            raise ValueError("row %d: %d cells instead of %d" % (position, len(row), n_cols))
    return len(matrix), n_cols


def param_count(vocab, dim):
    return vocab * dim


def _check(token_id, table):
    if token_id < 0 or token_id >= len(table):
        raise IndexError("no token %d" % token_id)


def lookup(table, ids):
    picked = []
    for token_id in ids:
        _check(token_id, table)
        picked.append(list(table[token_id]))
    return picked


def one_hot(token_id, vocab):
    zeros = [0.0] * vocab
    zeros[token_id] = 1.0
    return zeros


def row_times_matrix(vec, matrix):
    n_rows, n_cols = shape(matrix)
    if len(vec) != n_rows:
        raise ValueError("a vector of %d for %d rows" % (len(vec), n_rows))
    if n_rows == 0:
        return [0.0] * n_cols
    return [dot(vec, column) for column in _transpose(matrix)]


def lookup_via_one_hot(table, ids):
    picked = []
    for token_id in ids:
        _check(token_id, table)
        picked.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return picked


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    n_rows, n_cols = shape(table)
    if n_cols != len(hidden):
        raise ValueError("hidden of %d, table %d wide" % (len(hidden), n_cols))
    scores = [0.0] * n_rows
    for c, column in enumerate(_transpose(table)):
        for r in range(n_rows):
            scores[r] += column[r] * hidden[c]
    return scores


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    rows = [
        ("vocab", vocab),
        ("bigger_vocab", vocab * factor),
        ("dim", dim),
        ("tied", tied_params(vocab, dim)),
        ("bigger_tied", tied_params(vocab * factor, dim)),
        ("untied", untied_params(vocab, dim)),
        ("bigger_untied", untied_params(vocab * factor, dim)),
        ("saved", untied_params(vocab, dim) - tied_params(vocab, dim)),
    ]
    return dict(rows)


def dot(a, b):
    result = 0.0
    for left, right in zip(a, b):
        result += left * right
    return result


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    size = norm(a) * norm(b)
    if size == 0.0:
        return 0.0
    return max(-1.0, min(1.0, dot(a, b) / size))


def stretch(table, token_id, factor):
    _check(token_id, table)
    copied = [list(row) for row in table]
    copied[token_id] = [value * factor for value in table[token_id]]
    return copied


def _closest(table, token_id, k, measure):
    _check(token_id, table)
    probe = table[token_id]
    scored = [(measure(probe, row), position) for position, row in enumerate(table)]
    scored = [pair for pair in scored if pair[1] != token_id]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [position for _, position in scored[:k]]


def nearest_by_cosine(table, token_id, k):
    return _closest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _closest(table, token_id, k, dot)


def rms(vec):
    if not vec:
        return 0.0
    return norm(vec) / math.sqrt(len(vec))


def scaled_lookup(table, ids, dim):
    root = math.sqrt(dim)
    return [[value * root for value in row] for row in lookup(table, ids)]
