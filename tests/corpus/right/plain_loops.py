# style: explicit index loops everywhere, a float() copy of the table before the one-hot product, a hand-written ordered insertion for the neighbours
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    table = []
    for _ in range(vocab):
        row = []
        for _ in range(dim):
            row.append(rng.random() - 0.5)
        table.append(row)
    return table


def shape(matrix):
    if len(matrix) == 0:
        return (0, 0)
    width = len(matrix[0])
    for i in range(len(matrix)):
        if len(matrix[i]) != width:
            raise ValueError("row %d has a different length" % i)
    return (len(matrix), width)


def param_count(vocab, dim):
    return vocab * dim


def lookup(table, ids):
    out = []
    for token_id in ids:
        if token_id < 0 or token_id >= len(table):
            raise IndexError("id %r is not in the vocabulary" % (token_id,))
        row = []
        for x in table[token_id]:
            row.append(x)
        out.append(row)
    return out


def one_hot(token_id, vocab):
    vec = []
    for i in range(vocab):
        if i == token_id:
            vec.append(1.0)
        else:
            vec.append(0.0)
    return vec


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("the vector needs one entry per row")
    out = []
    for c in range(cells):
        total = 0.0
        for r in range(rows):
            total += vec[r] * matrix[r][c]
        out.append(total)
    return out


def lookup_via_one_hot(table, ids):
    numbers = []  # a plain float copy of the table first
    for row in table:
        numbers.append([float(x) for x in row])
    rows, cells = shape(numbers)
    out = []
    for token_id in ids:
        if token_id < 0 or token_id >= rows:
            raise IndexError("id %r is not in the vocabulary" % (token_id,))
        weights = one_hot(token_id, rows)
        result = [0.0] * cells
        for r in range(rows):
            for c in range(cells):
                result[c] += weights[r] * numbers[r][c]
        out.append(result)
    return out


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    rows, cells = shape(table)
    if len(hidden) != cells:
        raise ValueError("hidden has the wrong width")
    out = []
    for t in range(rows):
        total = 0.0
        for c in range(cells):
            total += table[t][c] * hidden[c]
        out.append(total)
    return out


def tied_params(vocab, dim):
    return vocab * dim


def untied_params(vocab, dim):
    return vocab * dim + vocab * dim


def vocab_growth(vocab, dim, factor):
    result = {}
    result["vocab"] = vocab
    result["bigger_vocab"] = vocab * factor
    result["dim"] = dim
    result["tied"] = tied_params(vocab, dim)
    result["bigger_tied"] = tied_params(vocab * factor, dim)
    result["untied"] = untied_params(vocab, dim)
    result["bigger_untied"] = untied_params(vocab * factor, dim)
    result["saved"] = result["untied"] - result["tied"]
    return result


def dot(a, b):
    total = 0.0
    for i in range(len(a)):
        total += a[i] * b[i]
    return total


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    na = norm(a)
    nb = norm(b)
    if na == 0.0 or nb == 0.0:
        return 0.0
    return dot(a, b) / (na * nb)


def stretch(table, token_id, factor):
    if token_id < 0 or token_id >= len(table):
        raise IndexError("id %r is not in the table" % (token_id,))
    new_table = []
    for i in range(len(table)):
        row = []
        for x in table[i]:
            if i == token_id:
                row.append(x * factor)
            else:
                row.append(x)
        new_table.append(row)
    return new_table


def _best(table, token_id, k, score):
    if token_id < 0 or token_id >= len(table):
        raise IndexError("id %r is not in the table" % (token_id,))
    chosen = []  # (index, value), best first
    probe = table[token_id]
    for index in range(len(table)):
        if index == token_id:
            continue
        value = score(probe, table[index])
        pos = 0
        # earlier entries have smaller indices, so an equal score goes after them
        while pos < len(chosen) and chosen[pos][1] >= value:
            pos += 1
        chosen.insert(pos, (index, value))
    result = []
    for index, _ in chosen[:k]:
        result.append(index)
    return result


def nearest_by_cosine(table, token_id, k):
    return _best(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _best(table, token_id, k, dot)


def rms(vec):
    if len(vec) == 0:
        return 0.0
    total = 0.0
    for x in vec:
        total += x * x
    return math.sqrt(total / len(vec))


def scaled_lookup(table, ids, dim):
    factor = math.sqrt(dim)
    out = []
    for row in lookup(table, ids):
        new_row = []
        for x in row:
            new_row.append(x * factor)
        out.append(new_row)
    return out
