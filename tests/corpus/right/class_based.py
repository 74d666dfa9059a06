# style: small helper classes; the contract functions delegate to them; shape is a named tuple
import collections
import math
import random

VOCAB = 512
DIM = 64
SEED = 20260917


class Vector:
    """Static helpers for plain lists of floats."""

    @staticmethod
    def dot(a, b):
        total = 0.0
        for x, y in zip(a, b):
            total += x * y
        return total

    @classmethod
    def length(cls, v):
        return math.sqrt(cls.dot(v, v))

    @classmethod
    def cosine(cls, a, b):
        la, lb = cls.length(a), cls.length(b)
        if la == 0.0 or lb == 0.0:
            return 0.0
        return cls.dot(a, b) / (la * lb)

    @staticmethod
    def scaled(v, factor):
        return [x * factor for x in v]


Shape = collections.namedtuple("Shape", "rows cells")


class Table:
    """A read-only view of a list of rows."""

    def __init__(self, rows):
        self.rows = rows

    @property
    def shape(self):
        n = len(self.rows)
        d = len(self.rows[0]) if n else 0
        for row in self.rows:
            if len(row) != d:
                raise ValueError("ragged table")
        return Shape(n, d)

    def check(self, token_id):
        if not 0 <= token_id < len(self.rows):
            raise IndexError("token id out of range: %r" % (token_id,))

    def row(self, token_id):
        self.check(token_id)
        return list(self.rows[token_id])

    def times(self, vec):
        n, d = self.shape
        if len(vec) != n:
            raise ValueError("vector length %d, table rows %d" % (len(vec), n))
        return [sum(vec[r] * self.rows[r][c] for r in range(n)) for c in range(d)]

    def ranked(self, token_id, k, score):
        self.check(token_id)
        probe = self.rows[token_id]
        pairs = [(-score(probe, row), i) for i, row in enumerate(self.rows) if i != token_id]
        pairs.sort()
        return [i for _, i in pairs[:k]]


class Counter:
    def __init__(self, vocab, dim):
        self.vocab, self.dim = vocab, dim

    @property
    def tied(self):
        return self.vocab * self.dim

    @property
    def untied(self):
        return 2 * self.vocab * self.dim

    def grown(self, factor):
        return Counter(self.vocab * factor, self.dim)


def make_table(vocab, dim, seed):
    rng = random.Random(seed)
    return [[rng.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    return Table(matrix).shape


def param_count(vocab, dim):
    return Counter(vocab, dim).tied


def lookup(table, ids):
    t = Table(table)
    return [t.row(i) for i in ids]


def one_hot(token_id, vocab):
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    return Table(matrix).times(vec)


def lookup_via_one_hot(table, ids):
    t = Table(table)
    out = []
    for i in ids:
        t.check(i)
        out.append(row_times_matrix(one_hot(i, len(table)), table))
    return out


def one_hot_mults(vocab, dim, count):
    return Counter(vocab, dim).tied * count


def logits(table, hidden):
    _, d = Table(table).shape
    if len(hidden) != d:
        raise ValueError("hidden vector of width %d for a table of width %d" % (len(hidden), d))
    return [Vector.dot(row, hidden) for row in table]


def tied_params(vocab, dim):
    return Counter(vocab, dim).tied


def untied_params(vocab, dim):
    return Counter(vocab, dim).untied


def vocab_growth(vocab, dim, factor):
    now = Counter(vocab, dim)
    later = now.grown(factor)
    return {
        "vocab": now.vocab,
        "bigger_vocab": later.vocab,
        "dim": dim,
        "tied": now.tied,
        "bigger_tied": later.tied,
        "untied": now.untied,
        "bigger_untied": later.untied,
        "saved": now.untied - now.tied,
    }


def dot(a, b):
    return Vector.dot(a, b)


def norm(vec):
    return Vector.length(vec)


def cosine(a, b):
    return Vector.cosine(a, b)


def stretch(table, token_id, factor):
    Table(table).check(token_id)
    return [Vector.scaled(row, factor) if i == token_id else list(row)
            for i, row in enumerate(table)]


def nearest_by_cosine(table, token_id, k):
    return Table(table).ranked(token_id, k, Vector.cosine)


def nearest_by_dot(table, token_id, k):
    return Table(table).ranked(token_id, k, Vector.dot)


def rms(vec):
    if not vec:
        return 0.0
    return Vector.length(vec) / math.sqrt(len(vec))


def scaled_lookup(table, ids, dim):
    return [Vector.scaled(row, math.sqrt(dim)) for row in lookup(table, ids)]
