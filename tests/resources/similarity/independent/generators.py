# style: generator pipelines and itertools; helpers yield instead of building lists
import itertools
import math
import operator
import random

VOCAB = 512
DIM = 64
SEED = 20260917


def _cells(seed):
    rnd = random.Random(seed)
    while True:
        yield rnd.random() - 0.5


def make_table(vocab, dim, seed):
    stream = _cells(seed)
    return [list(itertools.islice(stream, dim)) for _ in range(vocab)]


def shape(matrix):
    widths = set(map(len, matrix))
    if len(widths) > 1:
        raise ValueError("rows differ in length")
    return len(matrix), next(iter(widths), 0)


def param_count(vocab, dim):
    return operator.mul(vocab, dim)


def _ids_ok(table, ids):
    for i in ids:
        if not 0 <= i < len(table):
            raise IndexError("bad id %r" % (i,))
        yield i


def lookup(table, ids):
    return [list(table[i]) for i in _ids_ok(table, ids)]


def one_hot(token_id, vocab):
    return [float(i == token_id) for i in range(vocab)]


def _columns(matrix):
    return zip(*matrix)


def row_times_matrix(vec, matrix):
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError("vector does not fit")
    if rows == 0:
        return [0.0] * cells
    return [sum(map(operator.mul, vec, col)) for col in _columns(matrix)]


def lookup_via_one_hot(table, ids):
    size = len(table)
    return [row_times_matrix(one_hot(i, size), table) for i in _ids_ok(table, ids)]


def one_hot_mults(vocab, dim, count):
    return vocab * dim * count


def logits(table, hidden):
    _, cells = shape(table)
    if cells != len(hidden):
        raise ValueError("hidden has the wrong width")
    return list(map(lambda row: dot(row, hidden), table))


def tied_params(vocab, dim):
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    return param_count(vocab, dim) + param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    pairs = (("", vocab), ("bigger_", vocab * factor))
    out = {"vocab": vocab, "bigger_vocab": vocab * factor, "dim": dim}
    for prefix, v in pairs:
        out[prefix + "tied"] = tied_params(v, dim)
        out[prefix + "untied"] = untied_params(v, dim)
    out["saved"] = out["untied"] - out["tied"]
    return out


def dot(a, b):
    return sum(map(operator.mul, a, b), 0.0)


def norm(vec):
    return math.sqrt(sum(x * x for x in vec))


def cosine(a, b):
    denominator = norm(a) * norm(b)
    return 0.0 if not denominator else dot(a, b) / denominator


def stretch(table, token_id, factor):
    list(_ids_ok(table, [token_id]))
    return [
        [v * factor for v in row] if i == token_id else list(row)
        for i, row in enumerate(table)
    ]


def _ranked(table, token_id, k, score):
    (probe,) = (table[i] for i in _ids_ok(table, [token_id]))
    others = ((i, score(probe, row)) for i, row in enumerate(table) if i != token_id)
    ordered = sorted(others, key=lambda pair: (-pair[1], pair[0]))
    return [i for i, _ in itertools.islice(ordered, k)]


def nearest_by_cosine(table, token_id, k):
    return _ranked(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    return _ranked(table, token_id, k, dot)


def rms(vec):
    return math.sqrt(sum(x * x for x in vec) / len(vec)) if vec else 0.0


def scaled_lookup(table, ids, dim):
    root = math.sqrt(dim)
    return [list(map(lambda x: x * root, row)) for row in lookup(table, ids)]
