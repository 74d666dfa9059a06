# style: defensive checks, try/except around the index, neighbours picked one
# at a time with max() over (score, -index)
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    generator = random.Random(seed)
    table = []
    for token in range(vocab):
        row = [0.0] * dim
        for cell in range(dim):
            row[cell] = generator.random() - 0.5
        table.append(row)
    return table


def shape(matrix):
    count = 0
    width = None
    for row in matrix:
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise ValueError("row %d is %d long, expected %d" % (count, len(row), width))
        count += 1
    return (count, width if width is not None else 0)


def param_count(vocab, dim):
    return vocab * dim


def _row(table, token_id):
    if token_id < 0:
        raise IndexError("negative token id %d" % token_id)
    try:
        return table[token_id]
    except IndexError:
        raise IndexError("token id %d is past the end" % token_id) from None


def lookup(table, ids):
    return [list(_row(table, token_id)) for token_id in ids]


def one_hot(token_id, vocab):
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("a %d-vector cannot multiply %d rows" % (len(vec), rows))
    result = []
    for c in range(cells):
        result.append(sum([vec[r] * matrix[r][c] for r in range(rows)]))
    return result


def lookup_via_one_hot(table, ids):
    out = []
    for token_id in ids:
        _row(table, token_id)
        out.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return out


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    rows, cells = shape(table)
    if len(hidden) < cells or len(hidden) > cells:
        raise ValueError("hidden must have %d values" % cells)
    return [dot(table[t], hidden) for t in range(rows)]


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return tied_params(vocab, dim) * 2


def vocab_growth(vocab, dim, factor):
    grown = vocab * factor
    summary = {}
    for key, value in (("vocab", vocab), ("bigger_vocab", grown), ("dim", dim),
                       ("tied", tied_params(vocab, dim)),
                       ("bigger_tied", tied_params(grown, dim)),
                       ("untied", untied_params(vocab, dim)),
                       ("bigger_untied", untied_params(grown, dim))):
        summary[key] = value
    summary["saved"] = summary["untied"] - summary["tied"]
    return summary


def dot(a, b):
    return sum([x * y for x, y in zip(a, b)])


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    length_a = norm(a)
    length_b = norm(b)
    if length_a == 0.0 or length_b == 0.0:
        return 0.0
    return dot(a, b) / (length_a * length_b)


def stretch(table, token_id, factor):
    source = _row(table, token_id)
    result = [list(row) for row in table]
    result[token_id] = [value * factor for value in source]
    return result


def _pick(table, token_id, k, score):
    probe = _row(table, token_id)
    scores = {i: score(probe, row) for i, row in enumerate(table) if i != token_id}
    picked = []
    while scores and len(picked) < k:
        best = max(scores, key=lambda i: (scores[i], -i))
        picked.append(best)
        del scores[best]
    return picked


def nearest_by_cosine(table, token_id, k):
    return _pick(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _pick(table, token_id, k, dot)


def rms(vec):
    if len(vec) == 0:
        return 0.0
    return math.sqrt(sum([x * x for x in vec]) / len(vec))


def scaled_lookup(table, ids, dim):
    multiplier = math.sqrt(dim)
    return [[x * multiplier for x in row] for row in lookup(table, ids)]
