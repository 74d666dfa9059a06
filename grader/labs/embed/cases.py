"""Inputs for the checks, drawn from one ``random.Random`` per check.

Every generator takes the check's own ``Random`` so that selecting a subset of
checks (``--check``) or changing one check never changes the inputs of another:
a seed replays exactly.  Edge values are made on purpose: empty and 1x1 tables,
boundary ids, zero and empty vectors, duplicate rows and rows scaled by powers of
two (exact ties), and the real constants.
"""

from __future__ import annotations

import functools
import math
import random

from grader.labs.embed import oracle
from grader.labs.embed.contract import CONSTANTS

Table = list[list[float]]

# Table shapes, small to large; the last is the exercise's own.
SHAPES: tuple[tuple[int, int], ...] = (
    (1, 1),
    (1, 4),
    (4, 1),
    (2, 3),
    (3, 2),
    (5, 4),
    (8, 8),
    (13, 6),
    (33, 5),
)
# Magnitudes at which every equivalent formula stays finite: a norm near 1e-10 has a
# square near 1e-20 and a product of two such squares near 1e-40, far above the
# smallest normal float; 1e5 squared and multiplied stays far below the largest.
TINY = 1e-10
SMALL = 1e-6
LARGE = 1e5
REAL = (CONSTANTS["VOCAB"], CONSTANTS["DIM"])


@functools.lru_cache(maxsize=1)
def real_table() -> Table:
    """The exercise's table: make_table(VOCAB, DIM, SEED)."""
    return oracle.make_table(CONSTANTS["VOCAB"], CONSTANTS["DIM"], CONSTANTS["SEED"])


@functools.lru_cache(maxsize=8)
def real_nearest(token_id: int, k: int, by: str) -> tuple[int, ...]:
    """The oracle's neighbours of a row of the exercise's table (the report's figures
    and the calls that measure them need the same ones)."""
    return tuple(oracle.nearest(real_table(), token_id, k, by))


def value(rng: random.Random) -> float:
    """A table cell: mostly like make_table's, sometimes an integer-valued or tiny one."""
    pick = rng.random()
    if pick < 0.85:
        return rng.random() - 0.5
    if pick < 0.95:
        return float(rng.randint(-3, 3))
    return rng.choice((0.0, -0.0, 0.25, -1.5, 1e-3))


def table(rng: random.Random, rows: int, cells: int) -> Table:
    return [[value(rng) for _ in range(cells)] for _ in range(rows)]


def vector(rng: random.Random, n: int, spread: float = 1.0) -> list[float]:
    return [rng.uniform(-spread, spread) for _ in range(n)]


def shapes(rng: random.Random, extra: int = 2) -> list[tuple[int, int]]:
    """The fixed small shapes plus a few random ones, smallest first."""
    more = [(rng.randint(2, 40), rng.randint(1, 16)) for _ in range(extra)]
    return sorted(set(SHAPES) | set(more), key=lambda s: (s[0] * s[1], s))


def ids_for(rng: random.Random, vocab: int, n: int) -> list[int]:
    """Ids with the boundaries and a repeat among them."""
    ids = [rng.randrange(vocab) for _ in range(n)]
    ids += [0, vocab - 1]
    if ids:
        ids.append(ids[0])
    rng.shuffle(ids)
    return ids


def out_of_range_ids(rng: random.Random, vocab: int) -> list[int]:
    """Ids outside the vocabulary, at its ends and far from them: V, V + k, -1, -V,
    -V - 1, and one further out on each side."""
    far = {vocab + rng.randint(1, 5), vocab + rng.randint(6, 10**6), -vocab - rng.randint(2, 10**6)}
    return sorted({vocab, -1, -vocab, -vocab - 1} | far, key=abs)


def far_ids(rng: random.Random, vocab: int) -> list[int]:
    """The out-of-range ids every function taking an id is tried on: V and -1 at the
    ends, V + k and -V - 1 beyond them, and one negative id between (-V..-2)."""
    between = [-rng.randint(2, vocab)] if vocab >= 2 else []
    return [-1, vocab, vocab + rng.randint(1, 5), -vocab - 1] + between


def tie_table(rng: random.Random, rows: int, cells: int) -> tuple[Table, int]:
    """A table with exact ties around a probe row: duplicates, power-of-two
    multiples, a zero row, sometimes a twin of the probe.  Returns the table and the
    probe id."""
    t = table(rng, rows, cells)
    probe = rng.randrange(rows)
    others = [i for i in range(rows) if i != probe]
    rng.shuffle(others)
    if len(others) >= 2:
        src, dup = sorted(others[:2])
        if rng.random() < 0.5:
            src, dup = dup, src  # the duplicate sometimes sits before its source
        t[dup] = list(t[src])
    if len(others) >= 3:
        power = rng.choice((2.0, 4.0, 0.5, 8.0))
        t[others[2]] = [x * power for x in t[others[0]]]
    if len(others) >= 4:
        t[others[3]] = [0.0] * cells
    if len(others) >= 5:
        # A twin of the probe: the best score, not the probe.  Its cosine with the
        # probe rounds above 1 in the usual formula (math.acos of it raises).
        t[probe] = above_one(rng, cells)
        t[others[4]] = list(t[probe])
    if len(others) >= 6:
        # And its opposite, whose cosine rounds below -1 (negation is exact): the worst
        # score, which a clamp that drops the sign turns into the best.
        t[others[5]] = [-x for x in t[probe]]
    return t, probe


def plain_cosine(a: list[float], b: list[float]) -> float:
    """The cosine as a plain loop computes it: dot / (sqrt(a.a) * sqrt(b.b))."""

    def dot(x: list[float], y: list[float]) -> float:
        total = 0.0
        for p, q in zip(x, y):
            total += p * q
        return total

    lengths = math.sqrt(dot(a, a)) * math.sqrt(dot(b, b))
    return dot(a, b) / lengths if lengths else 0.0


def above_one(rng: random.Random, cells: int) -> list[float]:
    """A row whose cosine with a copy of itself rounds above 1 in ``plain_cosine``
    (1.0000000000000002): a near-duplicate of it is the edge a formula through
    math.acos breaks on.  A single cell never does; there any row is returned."""
    row = [rng.random() - 0.5 for _ in range(cells)]
    for _ in range(200 if cells > 1 else 0):
        if plain_cosine(row, row) > 1.0:
            break
        row = [rng.random() - 0.5 for _ in range(cells)]
    return row


def stretched_real(rng: random.Random) -> tuple[Table, int]:
    """The real table with one of the probe's cosine neighbours stretched."""
    base = real_table()
    probe = rng.randrange(len(base))
    target = oracle.nearest_by_cosine(base, probe, 5)[rng.randrange(5)]
    factor = rng.choice((3.0, 4.0, 5.0))
    return oracle.stretch(base, target, factor), probe


def past_float(rng: random.Random) -> int:
    """An odd int above 2**53: a product of such counts is odd and above 2**53 too, so
    no float holds it, and a count that went through a float (``/``, ``2.0 * v``) is off."""
    return rng.randrange(2**53, 2**54) | 1


def sizes(value: object) -> int:
    """How big an input is, to show the smallest failing case."""
    if isinstance(value, (list, tuple)):
        return 1 + sum(sizes(v) for v in value)
    return 1


def ragged_tables(rng: random.Random) -> list[Table]:
    """Tables whose rows differ in length somewhere (first, middle, last, empty row)."""
    a = table(rng, 3, 2)
    a[0].append(0.5)
    b = table(rng, 4, 3)
    b[2].pop()
    c = table(rng, 2, 2)
    c[1] = []
    d = table(rng, 5, 1)
    d[4].append(-0.25)
    return sorted([[[1.0, 2.0], [3.0]], [[], [1.0]], a, b, c, d], key=sizes)


def scaled_vector(rng: random.Random, n: int, scale: float, positive: bool = False) -> list[float]:
    """A vector of magnitude ``scale``; ``positive`` keeps every entry above zero, so
    that a dot product with another positive vector adds without cancellation and its
    rounding stays relative to its value."""
    if positive:
        return [scale * rng.uniform(0.5, 1.5) for _ in range(n)]
    return [scale * rng.uniform(-1.5, 1.5) for _ in range(n)]


def twin_table(rng: random.Random, rows: int, cells: int) -> tuple[Table, int, int]:
    """A table with a row equal to another and a row that is a multiple of it.

    Returns the table, the id of the later of the two equal rows and the id of the
    multiple, so that a function acting on rows equal to the one it is given (instead
    of on the id) is seen."""
    t = table(rng, rows, cells)
    a, b, c = sorted(rng.sample(range(rows), 3))
    t[b] = list(t[a])
    t[c] = [x * rng.choice((2.0, -0.5, 3.0)) for x in t[a]]
    return t, b, c


def near_tie_table(rng: random.Random, rows: int, cells: int, by: str) -> tuple[Table, int]:
    """A table where two rows score a little apart against the probe: clearly more
    than rounding noise (``oracle.close``), far less than a rounded score can see.

    The later row gets the higher score, so that an order that treats the two as a
    tie (and puts the smaller index first) is wrong."""
    while True:
        t = table(rng, rows, cells)
        probe = rng.randrange(rows)
        a, b = sorted(rng.sample([i for i in range(rows) if i != probe], 2))
        c = max(range(cells), key=lambda i: abs(t[probe][i]))
        t[b] = list(t[a])
        step = 3e-8 if t[probe][c] > 0 else -3e-8
        t[b][c] += step
        s = oracle.scores(t, probe, by)
        gap = s[b] - s[a]
        if not oracle.close(s[a], s[b]) and 0 < gap < 1e-6:
            return t, probe


def one_row_object(rng: random.Random, rows: int, cells: int) -> Table:
    """``[row] * rows``: every row is one list object, as ``[[0.0] * d] * v`` makes."""
    return [[value(rng) for _ in range(cells)]] * rows


def shared_rows(rng: random.Random, rows: int, cells: int) -> tuple[Table, int, int]:
    """A table in which one row is the very list object of another (``[row, row]``),
    beside rows of their own.  Returns the table and the two places of the shared
    row, the earlier first."""
    t = table(rng, rows, cells)
    a, b = sorted(rng.sample(range(rows), 2))
    t[b] = t[a]
    return t, a, b


def aliased_tables(rng: random.Random) -> list[Table]:
    """Tables whose rows are shared list objects: all of them, and one pair."""
    return [one_row_object(rng, 3, 2), shared_rows(rng, 5, 3)[0]]


def tall_table(rng: random.Random) -> tuple[Table, list[int]]:
    """A narrow table with more rows than VOCAB, and ids between VOCAB and its height:
    a bound taken from the constant VOCAB instead of the table refuses them."""
    vocab = CONSTANTS["VOCAB"]
    rows = vocab + rng.randint(3, 24)
    t = table(rng, rows, 1)
    ids = [vocab, rows - 1, rng.randrange(vocab + 1, rows - 1), rng.randrange(vocab)]
    rng.shuffle(ids)
    return t, ids


def lengths_apart(rng: random.Random, k: int, least: int) -> tuple[Table, int]:
    """A table of more than ``least`` rows where length and direction part ways: rows
    much shorter than the rest that point almost like the probe (the best cosines),
    rows much longer that point only roughly its way (the best dot products), and
    ordinary rows.  Each group is larger than 4 * k, so a neighbour list that first
    keeps a few times k rows by one score (on long tables, say) and ranks them by the
    other is wrong for either score.  The probe is one of the rows past ``least``: past
    VOCAB, when the table is taller than that."""
    rows = least + rng.randint(2, 24)
    cells = 3
    t = [[rng.random() - 0.5 for _ in range(cells)] for _ in range(rows)]
    probe = rng.randrange(least, rows)  # past VOCAB too, when the table is taller
    p = t[probe]
    places = rng.sample([i for i in range(rows) if i != probe], 2 * (4 * k + 4))
    half = len(places) // 2
    size = math.sqrt(sum(x * x for x in p))
    for i in places[:half]:  # short, almost the probe's direction (cosine above 0.999)
        scale = rng.uniform(0.01, 0.03)
        t[i] = [scale * (x + rng.uniform(-0.01, 0.01) * size) for x in p]
    for i in places[half:]:  # long, only roughly the probe's direction (cosine 0.3 to 0.98)
        row = p
        while not 0.3 < plain_cosine(p, row) < 0.98:
            row = [x + rng.uniform(-0.8, 0.8) * size for x in p]
        t[i] = [rng.uniform(20.0, 40.0) * x for x in row]
    return t, probe
