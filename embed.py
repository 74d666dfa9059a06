"""From the embedding table to the logits: the model answer.

A token id becomes a vector by looking up one row of a table; a vector becomes
scores over the whole vocabulary by taking its dot product with every row of
that same table (weight tying).  Everything here uses the standard library
only and runs on Python 3.8 and newer.

Run ``python embed.py [OUTDIR]`` to measure everything with the fixed
constants and write ``embed_report.json`` and ``embed_report.md``.
"""

import json
import math
import os
import random
import sys

VOCAB = 512
DIM = 64
SEED = 20260917


# Step 1: the table, its shape and its size


def make_table(vocab, dim, seed):
    """Return a vocab x dim table drawn from one random.Random(seed).

    Rows are filled in order, cell 0 of token 0 first; each cell is
    ``random() - 0.5``.  The same arguments always give the same table.
    """
    rng = random.Random(seed)
    return [[rng.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    """Return (rows, cells) of a table; a ragged table raises ValueError."""
    rows = len(matrix)
    cells = len(matrix[0]) if rows else 0
    for index, row in enumerate(matrix):
        if len(row) != cells:
            raise ValueError(
                "row %d has %d cells, row 0 has %d" % (index, len(row), cells)
            )
    return (rows, cells)


def param_count(vocab, dim):
    """Return how many numbers a vocab x dim table holds."""
    return vocab * dim


# Step 2: looking rows up


def _check_id(token_id, vocab):
    if not 0 <= token_id < vocab:
        raise IndexError(
            "token id %d is outside 0..%d" % (token_id, vocab - 1)
        )


def lookup(table, ids):
    """Return a copy of the row of each id, in order.

    An id outside 0..len(table)-1 raises IndexError; negative ids are not
    counted from the end.
    """
    rows = []
    for token_id in ids:
        _check_id(token_id, len(table))
        rows.append(list(table[token_id]))
    return rows


# Step 3: the same rows through a one-hot product


def one_hot(token_id, vocab):
    """Return a list of vocab floats: 1.0 at token_id, 0.0 elsewhere."""
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    """Return the row vector vec (length V) times the V x d matrix."""
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError(
            "vector has %d entries, the matrix has %d rows" % (len(vec), rows)
        )
    return [sum(vec[r] * matrix[r][c] for r in range(rows)) for c in range(cells)]


def lookup_via_one_hot(table, ids):
    """Return the rows of ids computed as one_hot(id) times the table."""
    rows = []
    for token_id in ids:
        _check_id(token_id, len(table))
        rows.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return rows


def one_hot_mults(vocab, dim, count):
    """Return the multiplications that count one-hot lookups cost."""
    return vocab * dim * count


# Step 4: scores over the vocabulary with the same table


def logits(table, hidden):
    """Return one score per row: the dot product of that row with hidden."""
    rows, cells = shape(table)
    if len(hidden) != cells:
        raise ValueError(
            "hidden vector has %d entries, the table is %d wide"
            % (len(hidden), cells)
        )
    return [dot(row, hidden) for row in table]


# Step 5: what tying saves


def tied_params(vocab, dim):
    """Return the parameters of one table shared by input and output."""
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    """Return the parameters of separate input and output tables."""
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    """Return the parameter counts before and after multiplying the vocabulary."""
    bigger = vocab * factor
    return {
        "vocab": vocab,
        "bigger_vocab": bigger,
        "dim": dim,
        "tied": tied_params(vocab, dim),
        "bigger_tied": tied_params(bigger, dim),
        "untied": untied_params(vocab, dim),
        "bigger_untied": untied_params(bigger, dim),
        "saved": untied_params(vocab, dim) - tied_params(vocab, dim),
    }


# Step 6: direction against length


def dot(a, b):
    """Return the dot product of two vectors of equal length."""
    return sum(x * y for x, y in zip(a, b))


def norm(vec):
    """Return the Euclidean length of vec."""
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    """Return the cosine of the angle between a and b; 0.0 without a direction."""
    lengths = norm(a) * norm(b)
    if lengths == 0.0:
        return 0.0
    return dot(a, b) / lengths


def stretch(table, token_id, factor):
    """Return a new table whose row token_id is multiplied by factor."""
    _check_id(token_id, len(table))
    new_table = [list(row) for row in table]
    new_table[token_id] = [x * factor for x in table[token_id]]
    return new_table


def _nearest(table, token_id, k, score):
    _check_id(token_id, len(table))
    probe = table[token_id]
    ranked = sorted(
        (index for index in range(len(table)) if index != token_id),
        key=lambda index: (-score(probe, table[index]), index),
    )
    return ranked[:k]


def nearest_by_cosine(table, token_id, k):
    """Return the k other rows closest in cosine, best first, ties by index."""
    return _nearest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    """Return the k other rows with the largest dot product, ties by index."""
    return _nearest(table, token_id, k, dot)


# Step 7: scaling by the square root of the width


def rms(vec):
    """Return the root mean square of vec; 0.0 for an empty vector."""
    if not vec:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    """Return lookup(table, ids) with every value multiplied by sqrt(dim)."""
    scale = math.sqrt(dim)
    return [[x * scale for x in row] for row in lookup(table, ids)]


# Step 8: measure everything with the fixed constants

PROBE = 137
K = 5
STRETCH_FACTOR = 4.0
VOCAB_FACTOR = 2


def measure():
    """Run every step on the fixed table and return the report fields."""
    table = make_table(VOCAB, DIM, SEED)
    plain = lookup(table, [PROBE])[0]
    via_one_hot = lookup_via_one_hot(table, [PROBE])[0]
    twice = lookup(table, [PROBE, PROBE])
    scores = logits(table, plain)
    best = max(range(len(scores)), key=lambda t: (scores[t], -t))
    growth = vocab_growth(VOCAB, DIM, VOCAB_FACTOR)
    cos_list = nearest_by_cosine(table, PROBE, K)
    dot_list = nearest_by_dot(table, PROBE, K)
    target = cos_list[4]
    stretched = stretch(table, target, STRETCH_FACTOR)
    scaled = scaled_lookup(table, [PROBE, target], DIM)
    other = lookup(table, [target])[0]
    cos_before = cosine(plain, other)
    cos_after = cosine(scaled[0], scaled[1])
    rms_plain = rms(plain)
    rms_scaled = rms(scaled[0])
    return {
        "vocab": VOCAB,
        "dim": DIM,
        "seed": SEED,
        "probe": PROBE,
        "table_shape": list(shape(table)),
        "params": param_count(VOCAB, DIM),
        "tied_params": tied_params(VOCAB, DIM),
        "untied_params": untied_params(VOCAB, DIM),
        "saved": growth["saved"],
        "bigger_vocab": growth["bigger_vocab"],
        "bigger_tied": growth["bigger_tied"],
        "bigger_untied": growth["bigger_untied"],
        "lookup_mults": 0,
        "one_hot_mults": one_hot_mults(VOCAB, DIM, 1),
        "max_abs_diff": max(abs(a - b) for a, b in zip(plain, via_one_hot)),
        "repeat_same": twice[0] == twice[1],
        "logit_len": len(scores),
        "logit_argmax": best,
        "logit_argmax_is_self": best == PROBE,
        "cos_neighbors": cos_list,
        "dot_neighbors": dot_list,
        "neighbors_differ": cos_list != dot_list,
        "stretch_target": target,
        "stretch_factor": STRETCH_FACTOR,
        "cos_after_stretch": nearest_by_cosine(stretched, PROBE, K),
        "dot_after_stretch": nearest_by_dot(stretched, PROBE, K),
        "cos_unchanged_by_scale": abs(cos_after - cos_before)
        <= 1e-9 + 1e-9 * abs(cos_before),
        "rms_plain": rms_plain,
        "rms_scaled": rms_scaled,
        "rms_ratio": rms_scaled / rms_plain,
    }
