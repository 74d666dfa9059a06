# style: a small class hierarchy of scorers; neighbour search with heapq
import heapq
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


class Scorer:
    def score(self, a, b):
        raise NotImplementedError

    def best(self, table, token_id, k):
        check_index(table, token_id)
        probe = table[token_id]
        items = ((-self.score(probe, row), idx) for idx, row in enumerate(table) if idx != token_id)
        return [idx for _, idx in heapq.nsmallest(k, items)]


class DotScorer(Scorer):
    def score(self, a, b):
        return dot(a, b)


class CosineScorer(Scorer):
    def score(self, a, b):
        return cosine(a, b)


def check_index(table, token_id):
    if token_id < 0 or token_id > len(table) - 1:
        raise IndexError("id %d not in table" % token_id)


def make_table(vocab, dim, seed):
    rand = random.Random(seed).random
    return [[rand() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    if len(matrix) == 0:
        return (0, 0)
    width = len(matrix[0])
    for row in matrix[1:]:
        if len(row) != width:
            raise ValueError("inconsistent row lengths")
    return (len(matrix), width)


def param_count(vocab, dim):
    return vocab * dim


def lookup(table, ids):
    for i in ids:
        check_index(table, i)
    return [list(table[i]) for i in ids]


def one_hot(token_id, vocab):
    vector = [0.0] * vocab
    vector[token_id] = 1.0
    return vector


def row_times_matrix(vec, matrix):
    nrows, ncols = shape(matrix)
    if len(vec) != nrows:
        raise ValueError("wrong vector length")
    return [math.fsum(vec[i] * matrix[i][j] for i in range(nrows)) for j in range(ncols)]


def lookup_via_one_hot(table, ids):
    for i in ids:
        check_index(table, i)
    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    if shape(table)[1] != len(hidden):
        raise ValueError("hidden size mismatch")
    scorer = DotScorer()
    return [scorer.score(row, hidden) for row in table]


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return tied_params(vocab, dim) * 2


def vocab_growth(vocab, dim, factor):
    grown = vocab * factor
    info = {}
    info["vocab"] = vocab
    info["bigger_vocab"] = grown
    info["dim"] = dim
    info["tied"] = tied_params(vocab, dim)
    info["untied"] = untied_params(vocab, dim)
    info["bigger_tied"] = tied_params(grown, dim)
    info["bigger_untied"] = untied_params(grown, dim)
    info["saved"] = info["untied"] - info["tied"]
    return info


def dot(a, b):
    return math.fsum(p * q for p, q in zip(a, b))


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    n = norm(a) * norm(b)
    if n == 0:
        return 0.0
    v = dot(a, b) / n
    if v > 1:
        return 1.0
    if v < -1:
        return -1.0
    return v


def stretch(table, token_id, factor):
    check_index(table, token_id)
    result = []
    for idx, row in enumerate(table):
        if idx == token_id:
            result.append([x * factor for x in row])
        else:
            result.append(list(row))
    return result


def nearest_by_cosine(table, token_id, k):
    return CosineScorer().best(table, token_id, k)


def nearest_by_dot(table, token_id, k):
    return DotScorer().best(table, token_id, k)


def rms(vec):
    return math.sqrt(dot(vec, vec) / len(vec)) if len(vec) else 0.0


def scaled_lookup(table, ids, dim):
    mult = math.sqrt(dim)
    rows = lookup(table, ids)
    return [[x * mult for x in r] for r in rows]
