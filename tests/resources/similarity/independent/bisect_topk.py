# style: keeps a sorted top-k with bisect.insort; deepcopy for copies; asserts
import bisect
import copy
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    assert vocab >= 0 and dim >= 0
    gen = random.Random(seed)
    table = []
    for _ in range(vocab):
        row = []
        for _ in range(dim):
            row.append(gen.random() - 0.5)
        table.append(row)
    return table


def shape(matrix):
    sizes = {len(r) for r in matrix}
    if len(sizes) > 1:
        raise ValueError("table is ragged: widths %s" % sorted(sizes))
    return (len(matrix), sizes.pop() if sizes else 0)


def param_count(vocab, dim):
    return vocab * dim


def _oob(table, token_id):
    return token_id < 0 or token_id >= len(table)


def lookup(table, ids):
    if any(_oob(table, i) for i in ids):
        raise IndexError("an id is out of range")
    return [copy.copy(table[i]) for i in ids]


def one_hot(token_id, vocab):
    out = [0.0] * vocab
    out[token_id] += 1.0
    return out


def row_times_matrix(vec, matrix):
    rows, cols = shape(matrix)
    if len(vec) != rows:
        raise ValueError("mismatch")
    result = []
    for col in range(cols):
        acc = 0.0
        for row in range(rows):
            acc += matrix[row][col] * vec[row]
        result.append(acc)
    return result


def lookup_via_one_hot(table, ids):
    if any(_oob(table, i) for i in ids):
        raise IndexError("an id is out of range")
    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    _, cols = shape(table)
    if len(hidden) != cols:
        raise ValueError("mismatch")
    return [sum(w * h for w, h in zip(row, hidden)) for row in table]


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return param_count(vocab, dim) * 2


def vocab_growth(vocab, dim, factor):
    bigger = factor * vocab
    report = {
        "vocab": vocab,
        "bigger_vocab": bigger,
        "dim": dim,
        "tied": tied_params(vocab, dim),
        "untied": untied_params(vocab, dim),
        "bigger_tied": tied_params(bigger, dim),
        "bigger_untied": untied_params(bigger, dim),
    }
    report["saved"] = report["untied"] - report["tied"]
    return report


def dot(a, b):
    acc = 0.0
    for i in range(len(a)):
        acc += a[i] * b[i]
    return acc


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    denom = norm(a) * norm(b)
    if denom == 0.0:
        return 0.0
    value = dot(a, b) / denom
    return -1.0 if value < -1.0 else (1.0 if value > 1.0 else value)


def stretch(table, token_id, factor):
    if _oob(table, token_id):
        raise IndexError(token_id)
    result = copy.deepcopy(table)
    result[token_id] = [factor * x for x in result[token_id]]
    return result


def _topk(table, token_id, k, measure):
    if _oob(table, token_id):
        raise IndexError(token_id)
    best = []
    probe = table[token_id]
    for index, row in enumerate(table):
        if index == token_id:
            continue
        bisect.insort(best, (-measure(probe, row), index))
        if len(best) > k:
            best.pop()
    return [index for _, index in best]


def nearest_by_cosine(table, token_id, k):
    return _topk(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _topk(table, token_id, k, dot)


def rms(vec):
    if len(vec) == 0:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    factor = math.sqrt(dim)
    return [[value * factor for value in row] for row in lookup(table, ids)]
