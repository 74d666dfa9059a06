# style: while loops over indexes, no helpers from the standard library beyond math/random
import json
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    gen = random.Random(seed)
    out = []
    r = 0
    while r < vocab:
        row = []
        c = 0
        while c < dim:
            row.append(gen.random() - 0.5)
            c += 1
        out.append(row)
        r += 1
    return out


def shape(matrix):
    n = len(matrix)
    if n == 0:
        return (0, 0)
    w = len(matrix[0])
    i = 1
    while i < n:
        if len(matrix[i]) != w:
            raise ValueError("ragged")
        i += 1
    return (n, w)


def param_count(vocab, dim):
    return vocab * dim


def lookup(table, ids):
    res = []
    k = 0
    while k < len(ids):
        t = ids[k]
        if t < 0 or t >= len(table):
            raise IndexError(t)
        res.append(table[t][:])
        k += 1
    return res


def one_hot(token_id, vocab):
    v = []
    i = 0
    while i < vocab:
        v.append(1.0 if i == token_id else 0.0)
        i += 1
    return v


def row_times_matrix(vec, matrix):
    n, w = shape(matrix)
    if len(vec) != n:
        raise ValueError("length")
    acc = [0.0] * w
    c = 0
    while c < w:
        s = 0.0
        r = 0
        while r < n:
            s += vec[r] * matrix[r][c]
            r += 1
        acc[c] = s
        c += 1
    return acc


def lookup_via_one_hot(table, ids):
    res = []
    for t in ids:
        if t < 0 or t >= len(table):
            raise IndexError(t)
        res.append(row_times_matrix(one_hot(t, len(table)), table))
    return res


def one_hot_mults(vocab, dim, count):
    return count * vocab * dim


def logits(table, hidden):
    n, w = shape(table)
    if len(hidden) != w:
        raise ValueError("width")
    scores = []
    r = 0
    while r < n:
        scores.append(dot(table[r], hidden))
        r += 1
    return scores


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return vocab * dim * 2


def vocab_growth(vocab, dim, factor):
    big = factor * vocab
    d = {"vocab": vocab, "bigger_vocab": big, "dim": dim}
    d["tied"] = tied_params(vocab, dim)
    d["bigger_tied"] = tied_params(big, dim)
    d["untied"] = untied_params(vocab, dim)
    d["bigger_untied"] = untied_params(big, dim)
    d["saved"] = d["untied"] - d["tied"]
    return d


def dot(a, b):
    s = 0.0
    i = 0
    while i < len(a):
        s += a[i] * b[i]
        i += 1
    return s


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    na = norm(a)
    nb = norm(b)
    if na == 0.0 or nb == 0.0:
        return 0.0
    c = dot(a, b) / (na * nb)
    return max(-1.0, min(1.0, c))


def stretch(table, token_id, factor):
    if token_id < 0 or token_id >= len(table):
        raise IndexError(token_id)
    out = []
    i = 0
    while i < len(table):
        row = table[i]
        out.append([x * factor for x in row] if i == token_id else row[:])
        i += 1
    return out


def _top(table, token_id, k, fn):
    if token_id < 0 or token_id >= len(table):
        raise IndexError(token_id)
    chosen = []
    used = {token_id}
    while len(chosen) < k and len(used) < len(table):
        best = None
        best_score = None
        i = 0
        while i < len(table):
            if i not in used:
                s = fn(table[token_id], table[i])
                if best is None or s > best_score:
                    best, best_score = i, s
            i += 1
        chosen.append(best)
        used.add(best)
    return chosen


def nearest_by_cosine(table, token_id, k):
    return _top(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _top(table, token_id, k, dot)


def rms(vec):
    if len(vec) == 0:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    f = math.sqrt(dim)
    return [[x * f for x in row] for row in lookup(table, ids)]
