# style: copy.deepcopy, math.prod, statistics.fmean and bisect.insort for a
# bounded list of the best neighbours
import bisect
import copy
import math
import random
import statistics

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    return [[rng.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    if not matrix:
        return (0, 0)
    if len(set(map(len, matrix))) != 1:
        raise ValueError("ragged table")
    return (len(matrix), len(matrix[0]))


def param_count(vocab, dim):
    return math.prod((vocab, dim))


def lookup(table, ids):
    if any(not 0 <= i < len(table) for i in ids):
        raise IndexError("an id is outside 0..%d" % (len(table) - 1))
    return copy.deepcopy([table[i] for i in ids])


def one_hot(token_id, vocab):
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("shape mismatch")
    return [math.fsum(vec[r] * matrix[r][c] for r in range(rows)) for c in range(cells)]


def lookup_via_one_hot(table, ids):
    if any(not 0 <= i < len(table) for i in ids):
        raise IndexError("an id is outside the vocabulary")
    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]


def one_hot_mults(vocab, dim, count):
    return math.prod((vocab, dim, count))


def logits(table, hidden):
    if shape(table)[1] != len(hidden):
        raise ValueError("hidden width mismatch")
    return [dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return math.prod((vocab, dim))


def untied_params(vocab, dim):
    return math.prod((2, vocab, dim))


def vocab_growth(vocab, dim, factor):
    bigger = vocab * factor
    tied, untied = tied_params(vocab, dim), untied_params(vocab, dim)
    return {"vocab": vocab, "bigger_vocab": bigger, "dim": dim, "tied": tied,
            "bigger_tied": tied_params(bigger, dim), "untied": untied,
            "bigger_untied": untied_params(bigger, dim), "saved": untied - tied}


def dot(a, b):
    return math.fsum(x * y for x, y in zip(a, b))


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    if norm(a) == 0.0 or norm(b) == 0.0:
        return 0.0
    return dot(a, b) / (norm(a) * norm(b))


def stretch(table, token_id, factor):
    if token_id not in range(len(table)):
        raise IndexError("an id is outside the vocabulary")
    new = copy.deepcopy(table)
    new[token_id] = [x * factor for x in new[token_id]]
    return new


def _best(table, token_id, k, score):
    if token_id not in range(len(table)):
        raise IndexError("an id is outside the vocabulary")
    probe = table[token_id]
    kept = []  # sorted (-score, index) pairs, at most k of them
    for i, row in enumerate(table):
        if i == token_id:
            continue
        bisect.insort(kept, (-score(probe, row), i))
        if len(kept) > k:
            kept.pop()
    return [i for _, i in kept]


def nearest_by_cosine(table, token_id, k):
    return _best(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _best(table, token_id, k, dot)


def rms(vec):
    if not vec:
        return 0.0
    return math.sqrt(statistics.fmean(x * x for x in vec))


def scaled_lookup(table, ids, dim):
    scale = math.sqrt(dim)
    return [[x * scale for x in row] for row in lookup(table, ids)]
