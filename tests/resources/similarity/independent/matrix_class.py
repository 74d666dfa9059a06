# style: one Matrix class with dunder methods; module functions wrap it
import json
import math
import os
import random

VOCAB = 512
DIM = 64
SEED = 20260917


class Matrix:
    def __init__(self, rows):
        self.data = rows
        self.height = len(rows)
        self.width = len(rows[0]) if rows else 0
        for r in rows:
            if len(r) != self.width:
                raise ValueError("ragged matrix")

    def __len__(self):
        return self.height

    def __getitem__(self, i):
        if isinstance(i, int) and not 0 <= i < self.height:
            raise IndexError("row %d out of range" % i)
        return self.data[i]

    def __rmatmul__(self, vec):
        if len(vec) != self.height:
            raise ValueError("vector length")
        out = [0.0] * self.width
        for weight, row in zip(vec, self.data):
            for c in range(self.width):
                out[c] += weight * row[c]
        return out

    def __matmul__(self, vec):
        if len(vec) != self.width:
            raise ValueError("vector width")
        return [dot(row, vec) for row in self.data]


def make_table(vocab, dim, seed):
    g = random.Random(seed)
    return [[g.random() - 0.5 for c in range(dim)] for r in range(vocab)]


def shape(matrix):
    m = Matrix(matrix)
    return (m.height, m.width)


def param_count(vocab, dim):
    return vocab * dim


def lookup(table, ids):
    m = Matrix.__new__(Matrix)
    m.data, m.height = table, len(table)
    return [list(m[i]) for i in ids]


def one_hot(token_id, vocab):
    e = [0.0 for _ in range(vocab)]
    e[token_id] = 1.0
    return e


def row_times_matrix(vec, matrix):
    return vec @ Matrix(matrix) if False else Matrix(matrix).__rmatmul__(vec)


def lookup_via_one_hot(table, ids):
    m = Matrix(table)
    rows = []
    for i in ids:
        m[i]
        rows.append(m.__rmatmul__(one_hot(i, m.height)))
    return rows


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    return Matrix(table) @ hidden


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return 2 * vocab * dim


def vocab_growth(vocab, dim, factor):
    nv = vocab * factor
    return dict(
        vocab=vocab,
        bigger_vocab=nv,
        dim=dim,
        tied=tied_params(vocab, dim),
        bigger_tied=tied_params(nv, dim),
        untied=untied_params(vocab, dim),
        bigger_untied=untied_params(nv, dim),
        saved=untied_params(vocab, dim) - tied_params(vocab, dim),
    )


def dot(a, b):
    acc = 0.0
    for i in range(len(a)):
        acc = acc + a[i] * b[i]
    return acc


def norm(vec):
    return dot(vec, vec) ** 0.5


def cosine(a, b):
    la, lb = norm(a), norm(b)
    if la * lb == 0:
        return 0.0
    return dot(a, b) / (la * lb)


def stretch(table, token_id, factor):
    m = Matrix(table)
    target = m[token_id]
    copy = [list(r) for r in table]
    copy[token_id] = [factor * x for x in target]
    return copy


def _order(table, token_id, k, measure):
    probe = Matrix(table)[token_id]
    scored = []
    for i in range(len(table)):
        if i == token_id:
            continue
        scored.append((measure(probe, table[i]), -i))
    scored.sort(reverse=True)
    return [-neg for _, neg in scored[:k]]


def nearest_by_cosine(table, token_id, k):
    return _order(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _order(table, token_id, k, dot)


def rms(vec):
    if not vec:
        return 0.0
    return (dot(vec, vec) / len(vec)) ** 0.5


def scaled_lookup(table, ids, dim):
    s = dim ** 0.5
    return [[s * x for x in row] for row in lookup(table, ids)]


def measure():
    table = make_table(VOCAB, DIM, SEED)
    probe = 137
    cos5 = nearest_by_cosine(table, probe, 5)
    dot5 = nearest_by_dot(table, probe, 5)
    target = cos5[4]
    wide = stretch(table, target, 4.0)
    plain = rms(table[probe])
    scaled = rms(scaled_lookup(table, [probe], DIM)[0])
    a = lookup(table, [probe])[0]
    b = lookup_via_one_hot(table, [probe])[0]
    scores = logits(table, a)
    return {
        "table_shape": list(shape(table)),
        "params": param_count(VOCAB, DIM),
        "one_hot_mults": one_hot_mults(VOCAB, DIM, 1),
        "lookup_mults": 0,
        "max_abs_diff": max(abs(x - y) for x, y in zip(a, b)),
        "logit_argmax": max(range(VOCAB), key=lambda i: (scores[i], -i)),
        "tied": tied_params(VOCAB, DIM),
        "untied": untied_params(VOCAB, DIM),
        "growth": vocab_growth(VOCAB, DIM, 2),
        "cos_neighbors": cos5,
        "dot_neighbors": dot5,
        "neighbors_differ": cos5 != dot5,
        "cos_after_stretch": nearest_by_cosine(wide, probe, 5),
        "dot_after_stretch": nearest_by_dot(wide, probe, 5),
        "rms_plain": plain,
        "rms_scaled": scaled,
        "rms_ratio": scaled / plain,
        "cos_unchanged_by_scale": True,
    }


def write_report(outdir="."):
    found = measure()
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "embed_report.json"), "w") as fh:
        json.dump(found, fh, indent=1)
    return found
