"""From the embedding table to the logits: your module.

Every function below still raises NotImplementedError.  Replace that line with
your own code, one step at a time.  Keep the names, the parameters and the
constants exactly as they are: the grader imports this file and calls the
functions directly, with tables and ids of its own.  Use the standard library
only (math and random are enough), and never change a table, list or vector
that a function receives.  The docstring of each function says what it must
return; exercises/README.md explains every step, its error cases and the
report files in detail.

The steps, each with the names it adds:

  1. the table, its shape and size: VOCAB, DIM, SEED, make_table, shape, param_count
  2. lookup: lookup
  3. one-hot product: one_hot, row_times_matrix, lookup_via_one_hot, one_hot_mults
  4. tied logits: logits
  5. parameter counts: tied_params, untied_params, vocab_growth
  6. cosine against dot product: dot, norm, cosine, stretch, nearest_by_cosine,
     nearest_by_dot
  7. scaling by sqrt(d): rms, scaled_lookup
  8. report files: measure, write_report

Grade the steps you have finished so far: --upto 1 grades step 1 only, and
--upto N grades steps 1 to N.  Raise the number as you go on:

    embed-grader embed.py --upto 1

Without --upto the grader checks all eight steps.  Each failure shows the
input, the expected value and yours, and a command that replays it.

This module needs Python 3.8 or newer and nothing else.  The grader is a
separate program that needs Python 3.10 or newer and is installed once
from the wheel your course hands out: exercises/README.md, Getting started.
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
    """Return a new vocab x dim table (a list of vocab lists of dim floats).

    One random.Random(seed) fills the table row by row, starting with cell 0
    of token 0; every cell is one draw of random() minus 0.5, so each value
    lies in [-0.5, 0.5).  The same arguments always give the same table.
    make_table(0, dim, seed) is []; make_table(vocab, 0, seed) is vocab
    empty rows.
    """
    raise NotImplementedError


def shape(matrix):
    """Return the tuple (rows, cells) of a table given as a list of rows.

    cells is the length of every row.  [] gives (0, 0) and [[]] gives (1, 0).
    A ragged table (rows of different lengths) raises ValueError.  The table
    is not changed.
    """
    raise NotImplementedError


def param_count(vocab, dim):
    """Return how many numbers a vocab x dim table holds: the int vocab * dim."""
    raise NotImplementedError


# Step 2: looking rows up


def lookup(table, ids):
    """Return a list with the row of each id in ids, in order.

    The same id always gives the same values, wherever it appears; [] gives [].
    An id outside 0..len(table)-1 raises IndexError, negative ids too.
    (Python's own indexing would count them from the end.)  The table is
    not changed; returning copies (list(row)) keeps it safe.  Whether
    lookup returns copies or the table's own row objects is left open and
    not graded.
    """
    raise NotImplementedError


# Step 3: the same rows through a one-hot product


def one_hot(token_id, vocab):
    """Return a list of vocab floats: 1.0 at index token_id, 0.0 elsewhere.

    What one_hot does with a token_id outside 0..vocab-1 is left open and
    not graded.
    """
    raise NotImplementedError


def row_times_matrix(vec, matrix):
    """Return the row vector vec (length V) times the V x d matrix (length d).

    out[c] = sum(vec[r] * matrix[r][c] for r in range(V)), for any vec, not
    only one-hots.  A ragged table (rows of different lengths) raises
    ValueError.  A vec whose length is not the number of rows raises
    ValueError.  Neither argument is changed.
    """
    raise NotImplementedError


def lookup_via_one_hot(table, ids):
    """Return the rows of ids, each computed as one_hot(id) times the table.

    The values equal lookup(table, ids) exactly, but every row really comes
    from row_times_matrix, at vocab * dim multiplications per id; [] gives [].
    An id outside 0..len(table)-1 raises IndexError, negative ids too.
    """
    raise NotImplementedError


def one_hot_mults(vocab, dim, count):
    """Return the multiplications that count one-hot lookups cost.

    Each one-hot row times a vocab x dim table multiplies vocab * dim times,
    so the result is the int vocab * dim * count (a plain lookup costs 0).
    """
    raise NotImplementedError


# Step 4: scores over the vocabulary with the same table


def logits(table, hidden):
    """Return one score per row of the table: out[t] = sum of table[t][c] * hidden[c].

    The input table itself scores the vocabulary (weight tying): the result
    has len(table) floats.  A hidden vector whose length is not the width of
    the table raises ValueError.  A ragged table (rows of different lengths)
    raises ValueError.
    """
    raise NotImplementedError


# Step 5: what tying saves


def tied_params(vocab, dim):
    """Return the parameters of one table shared by input and output.

    The int vocab * dim: a tied model stores the table once.
    """
    raise NotImplementedError


def untied_params(vocab, dim):
    """Return the parameters of separate input and output tables.

    The int 2 * vocab * dim: an untied model stores two tables of one shape.
    """
    raise NotImplementedError


def vocab_growth(vocab, dim, factor):
    """Return parameter counts before and after multiplying the vocabulary.

    A dict of ints with the keys vocab, bigger_vocab (vocab * factor), dim,
    tied, bigger_tied, untied, bigger_untied (tied and untied counts at the
    original and the bigger vocabulary) and saved (untied - tied at the
    original vocabulary).  factor is an int.
    """
    raise NotImplementedError


# Step 6: direction against length


def dot(a, b):
    """Return the dot product of two vectors: the sum of a[i] * b[i].

    a and b have the same length; dot([], []) is 0.0.  What dot does with
    vectors of different lengths is left open and not graded.
    """
    raise NotImplementedError


def norm(vec):
    """Return the Euclidean length of vec, sqrt(dot(vec, vec)); norm([]) is 0.0."""
    raise NotImplementedError


def cosine(a, b):
    """Return the cosine of the angle between a and b: dot / (norm * norm).

    The result lies in [-1, 1].  When a or b has no length (all zeros, or
    empty) there is no direction, and the result is 0.0.
    """
    raise NotImplementedError


def stretch(table, token_id, factor):
    """Return a new table whose row token_id is multiplied by factor.

    Every other row is copied unchanged; the given table is never modified.
    A token_id outside 0..len(table)-1 raises IndexError, negative too.
    """
    raise NotImplementedError


def nearest_by_cosine(table, token_id, k):
    """Return the indices of the k rows most similar to row token_id by cosine.

    Best first; token_id itself is left out, and exactly equal scores put
    the smaller index first.  A token_id outside 0..len(table)-1 raises
    IndexError, negative too.  What happens when k is larger than
    len(table) - 1 is left open and not graded.  The table is not changed.
    """
    raise NotImplementedError


def nearest_by_dot(table, token_id, k):
    """Return the indices of the k rows whose dot product with row token_id is largest.

    Best first; token_id itself is left out, and exactly equal scores put
    the smaller index first.  A token_id outside 0..len(table)-1 raises
    IndexError, negative too.  What happens when k is larger than
    len(table) - 1 is left open and not graded.  The table is not changed.
    """
    raise NotImplementedError


# Step 7: scaling by the square root of the width


def rms(vec):
    """Return the root mean square of vec, sqrt(dot(vec, vec) / len(vec)).

    rms([]) is 0.0.
    """
    raise NotImplementedError


def scaled_lookup(table, ids, dim):
    """Return lookup(table, ids) with every value multiplied by math.sqrt(dim).

    Lengths and rms grow by sqrt(dim), cosines stay the same.  An id outside
    0..len(table)-1 raises IndexError, negative ids too.  The table is not
    changed.
    """
    raise NotImplementedError


# Step 8: measure everything with the fixed constants

PROBE = 137
K = 5
STRETCH_FACTOR = 4.0
VOCAB_FACTOR = 2


def measure():
    """Run every step on the fixed table and return the report fields.

    A dict with the 30 keys of embed_report.json in the report's order,
    measured on make_table(VOCAB, DIM, SEED) with probe token PROBE, for
    write_report to write out.  measure is not graded by itself: only the
    files that write_report writes are.
    """
    raise NotImplementedError


# The report files


def write_report(outdir="."):
    """Measure everything and write embed_report.json and embed_report.md.

    Both files go into outdir: create it when it is missing and replace files
    already there.  Whether write_report creates a missing outdir and replaces
    files already there is not graded: the grader always gives it a fresh,
    empty folder.  The JSON holds the fields of measure() in their order; the
    markdown has five sections whose prose states each figure next to its key.
    The grader grades the two files it writes, not what it returns; every
    figure must be what the functions above return, and the files must come
    out the same on every run (hand in the ones that `python embed.py`
    writes; in a notebook, its write_report(".") cell).  Each section needs
    at least 60 letters of prose besides headings, figures, key names and
    code: 60 Latin letters, 24 Hangul syllables or 20 Chinese characters.
    Open both files with encoding="utf-8": the headings are Korean and hold
    the sign √, which a plain open(path, "w") cannot write on Windows.
    """
    raise NotImplementedError


if __name__ == "__main__":
    write_report(sys.argv[1] if len(sys.argv) > 1 else ".")
