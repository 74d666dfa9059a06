# style: the neighbour functions take the probe's row out of the table with pop() and
# put it back with insert() before they return (a change undone before the return is
# not seen; the instructions say so); while loops and accumulators elsewhere
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    gen = random.Random(seed)
    out = []
    while len(out) < vocab:
        row = []
        while len(row) < dim:
            row.append(gen.random() - 0.5)
        out.append(row)
    return out


def shape(matrix):
    count = len(matrix)
    width = len(matrix[0]) if count else 0
    n = 0
    while n < count:
        if len(matrix[n]) != width:
            raise ValueError("row %d has %d cells, row 0 has %d" % (n, len(matrix[n]), width))
        n += 1
    return (count, width)


def param_count(vocab, dim):
    return vocab * dim


def _inside(token_id, size):
    if not (0 <= token_id < size):
        raise IndexError("id %s is not in 0..%d" % (token_id, size - 1))


def lookup(table, ids):
    picked = []
    for token_id in ids:
        _inside(token_id, len(table))
        picked.append(list(table[token_id]))
    return picked


def one_hot(token_id, vocab):
    return [1.0 if n == token_id else 0.0 for n in range(vocab)]


def row_times_matrix(vec, matrix):
    height, width = shape(matrix)
    if len(vec) != height:
        raise ValueError("%d weights for %d rows" % (len(vec), height))
    acc = [0.0] * width
    r = 0
    while r < height:
        weight = vec[r]
        row = matrix[r]
        c = 0
        while c < width:
            acc[c] += weight * row[c]
            c += 1
        r += 1
    return acc


def lookup_via_one_hot(table, ids):
    picked = []
    for token_id in ids:
        _inside(token_id, len(table))
        picked.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return picked


def one_hot_mults(vocab, dim, count):
    return count * vocab * dim


def logits(table, hidden):
    width = shape(table)[1]
    if len(hidden) != width:
        raise ValueError("hidden is %d long, rows are %d wide" % (len(hidden), width))
    return [dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return vocab * dim + vocab * dim


def vocab_growth(vocab, dim, factor):
    grown = vocab * factor
    counts = {"vocab": vocab, "bigger_vocab": grown, "dim": dim}
    counts["tied"] = tied_params(vocab, dim)
    counts["bigger_tied"] = tied_params(grown, dim)
    counts["untied"] = untied_params(vocab, dim)
    counts["bigger_untied"] = untied_params(grown, dim)
    counts["saved"] = counts["untied"] - counts["tied"]
    return counts


def dot(a, b):
    total = 0.0
    n = 0
    while n < len(a):
        total += a[n] * b[n]
        n += 1
    return total


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    both = norm(a) * norm(b)
    return dot(a, b) / both if both else 0.0


def stretch(table, token_id, factor):
    _inside(token_id, len(table))
    grown = []
    for n, row in enumerate(table):
        grown.append([x * factor for x in row] if n == token_id else list(row))
    return grown


def _rank_without_probe(table, token_id, k, score):
    _inside(token_id, len(table))
    probe = table.pop(token_id)
    try:
        marks = [(score(probe, row), n) for n, row in enumerate(table)]
    finally:
        table.insert(token_id, probe)
    marks.sort(key=lambda pair: (-pair[0], pair[1]))
    # Indices at or after the probe moved up by one while it was out.
    return [n if n < token_id else n + 1 for _, n in marks[:k]]


def nearest_by_cosine(table, token_id, k):
    return _rank_without_probe(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _rank_without_probe(table, token_id, k, dot)


def rms(vec):
    if len(vec) == 0:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    factor = math.sqrt(dim)
    return [[x * factor for x in row] for row in lookup(table, ids)]
