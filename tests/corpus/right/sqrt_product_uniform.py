# style: uniform(-0.5, 0.5) for the table (the same draws as random() - 0.5),
# cosine as dot / sqrt(dot(a, a) * dot(b, b)), rms through norm, dim ** 0.5
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    return [[rng.uniform(-0.5, 0.5) for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    rows = len(matrix)
    cells = len(matrix[0]) if rows > 0 else 0
    for r in range(1, rows):
        if len(matrix[r]) != cells:
            raise ValueError("row %d: %d cells instead of %d" % (r, len(matrix[r]), cells))
    return (rows, cells)


def param_count(vocab, dim):
    return int(vocab) * int(dim)


def lookup(table, ids):
    result = []
    for i in ids:
        if i < 0:
            raise IndexError("negative id %d" % i)
        if i >= len(table):
            raise IndexError("id %d beyond the vocabulary" % i)
        result.append(list(table[i]))
    return result


def one_hot(token_id, vocab):
    if not 0 <= token_id < vocab:
        raise IndexError("id outside the vocabulary")
    vec = [0.0 for _ in range(vocab)]
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("len(vec) must equal the number of rows")
    out = []
    for c in range(cells):
        acc = 0.0
        for r, weight in enumerate(vec):
            acc = acc + weight * matrix[r][c]
        out.append(acc)
    return out


def lookup_via_one_hot(table, ids):
    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]


def one_hot_mults(vocab, dim, count):
    per_token = vocab * dim
    return per_token * count


def logits(table, hidden):
    if len(hidden) != shape(table)[1]:
        raise ValueError("hidden width differs from the table width")
    return [dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return 2 * tied_params(vocab, dim)


def vocab_growth(vocab, dim, factor):
    growth = {"vocab": vocab, "bigger_vocab": vocab * factor, "dim": dim}
    growth.update(tied=tied_params(vocab, dim), untied=untied_params(vocab, dim))
    growth.update(bigger_tied=tied_params(vocab * factor, dim),
                  bigger_untied=untied_params(vocab * factor, dim))
    growth["saved"] = growth["untied"] - growth["tied"]
    return growth


def dot(a, b):
    s = 0.0
    for i, x in enumerate(a):
        s += x * b[i]
    return s


def norm(vec):
    return dot(vec, vec) ** 0.5


def cosine(a, b):
    squared = dot(a, a) * dot(b, b)
    if squared == 0.0:
        return 0.0
    return dot(a, b) / math.sqrt(squared)


def stretch(table, token_id, factor):
    if not 0 <= token_id < len(table):
        raise IndexError("id outside the table")
    copy = []
    for i, row in enumerate(table):
        copy.append([x * factor for x in row] if i == token_id else [x for x in row])
    return copy


def nearest_by_cosine(table, token_id, k):
    if not 0 <= token_id < len(table):
        raise IndexError("id outside the table")
    probe = table[token_id]
    scores = {i: cosine(probe, row) for i, row in enumerate(table) if i != token_id}
    return sorted(scores, key=lambda i: (-scores[i], i))[:k]


def nearest_by_dot(table, token_id, k):
    if not 0 <= token_id < len(table):
        raise IndexError("id outside the table")
    probe = table[token_id]
    scores = {i: dot(probe, row) for i, row in enumerate(table) if i != token_id}
    return sorted(scores, key=lambda i: (-scores[i], i))[:k]


def rms(vec):
    n = len(vec)
    return norm(vec) / math.sqrt(n) if n else 0.0


def scaled_lookup(table, ids, dim):
    factor = dim ** 0.5
    return [[x * factor for x in row] for row in lookup(table, ids)]
