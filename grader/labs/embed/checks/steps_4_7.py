"""Steps 4 to 7: logits, parameter counts, cosine against dot product, scaling."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from grader.engine.vocabulary.expect import Case, Open, Raises
from grader.labs.embed import cases as gen
from grader.labs.embed import oracle
from grader.labs.embed.checks import again
from grader.labs.embed.checks.registry import check, ret
from grader.labs.embed.checks.steps_1_3 import by_index_cases, out_of_range_cases, some_tables
from grader.labs.embed.expect import Ranks

# Step 4 ------------------------------------------------------------------------------


@check("logits", "values", weight=3)
def _logits(rng: random.Random) -> list[Case]:
    out = []
    for t in some_tables(rng):
        hidden = gen.vector(rng, len(t[0]))
        out.append(ret("logits", (t, hidden), oracle.logits(t, hidden)))
    t = some_tables(rng)[4]
    own = list(t[rng.randrange(len(t))])
    out.insert(2, ret("logits", (t, own), oracle.logits(t, own)))
    zero = [0.0] * len(t[0])
    out.insert(3, ret("logits", (t, zero), oracle.logits(t, zero)))
    out.insert(0, ret("logits", ([[], []], []), [0.0, 0.0]))
    out.insert(0, ret("logits", ([], []), []))
    for scale in (gen.TINY, gen.LARGE):
        pos = [[abs(x) + 0.25 for x in row] for row in t]
        hidden = gen.scaled_vector(rng, len(pos[0]), scale, positive=True)
        out.append(ret("logits", (pos, hidden), oracle.logits(pos, hidden)))
    for t in gen.aliased_tables(rng):
        hidden = gen.vector(rng, len(t[0]))
        out.append(ret("logits", (t, hidden), oracle.logits(t, hidden)))
    real = gen.real_table()
    probe = list(real[137])
    out.append(ret("logits", (real, probe), oracle.logits(real, probe)))
    return out + again.pairs(
        rng, "logits", lambda r: (gen.table(r, 3, 2), gen.vector(r, 2)), oracle.logits, keep=(1,)
    )


@check("logits", "width", weight=2)
def _logits_width(rng: random.Random) -> list[Case]:
    out = []
    for t in some_tables(rng)[1:6]:
        d = len(t[0])
        for n in sorted({d + 1, d - 1, 0, d + rng.randint(2, 4)} - {d}):
            if n >= 0:
                out.append(Case("logits", (t, gen.vector(rng, n)), Raises("ValueError")))
    # No rows, or rows of no cells: the table is 0 wide, and any hidden entry is too many.
    empty: list[gen.Table] = [[], [[], []]]
    for t in empty:
        out.append(Case("logits", (t, gen.vector(rng, rng.randint(1, 3))), Raises("ValueError")))
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("logits", "ragged")
def _logits_ragged(rng: random.Random) -> list[Case]:
    """A ragged table with a hidden vector as wide as its first row."""
    return [
        Case("logits", (t, gen.vector(rng, len(t[0]))), Raises("ValueError"))
        for t in gen.ragged_tables(rng)
    ]


# Step 5 ------------------------------------------------------------------------------


def _count_pairs(rng: random.Random) -> list[tuple[int, int]]:
    return [
        (1, 1),
        (2, 3),
        (3, 2),
        gen.REAL,
        (50257, 768),
        (rng.randint(2, 10**5), rng.randint(2, 4096)),
        (gen.past_float(rng), rng.randrange(3, 4096, 2)),
    ]


@check("tied_params", "values")
def _tied(rng: random.Random) -> list[Case]:
    return [ret("tied_params", p, oracle.tied_params(*p)) for p in _count_pairs(rng)]


@check("untied_params", "values")
def _untied(rng: random.Random) -> list[Case]:
    return [ret("untied_params", p, oracle.untied_params(*p)) for p in _count_pairs(rng)]


@check("vocab_growth", "values", weight=2)
def _growth(rng: random.Random) -> list[Case]:
    triples = [(1, 1, 1), (2, 3, 2), (3, 2, 3), (512, 64, 2), (50257, 768, 2)]
    triples.append((rng.randint(2, 10**5), rng.randint(2, 4096), rng.randint(2, 8)))
    triples.append((gen.past_float(rng), rng.randrange(3, 4096, 2), rng.randrange(3, 9, 2)))
    return [ret("vocab_growth", t, oracle.vocab_growth(*t)) for t in triples]


# Step 6 ------------------------------------------------------------------------------


def _vector_pairs(rng: random.Random) -> list[tuple[list[float], list[float]]]:
    pairs = []
    for n in (1, 2, 3, 7, 64):
        pairs.append((gen.vector(rng, n), gen.vector(rng, n, spread=rng.choice((0.5, 3.0)))))
    return pairs


@check("dot", "values")
def _dot(rng: random.Random) -> list[Case]:
    out = [ret("dot", ([], []), 0.0), ret("dot", ([2.0, -1.0], [0.5, 4.0]), -3.0)]
    for a, b in _vector_pairs(rng):
        out.append(ret("dot", (a, b), oracle.dot(a, b)))
    for scale in (gen.TINY, gen.SMALL, gen.LARGE):
        a, b = (gen.scaled_vector(rng, 6, scale, positive=True) for _ in range(2))
        out.append(ret("dot", (a, b), oracle.dot(a, b)))
    return (
        out
        + again.pairs(rng, "dot", _two_vectors, oracle.dot, keep=(1,))
        + again.pairs(rng, "dot", _two_vectors, oracle.dot, keep=(0,))
    )


def _two_vectors(rng: random.Random) -> tuple[list[float], list[float]]:
    """The arguments of a pair of dot or cosine calls: two vectors of three."""
    return gen.vector(rng, 3), gen.vector(rng, 3)


def _magnitudes(rng: random.Random) -> list[list[float]]:
    """Vectors near 1e-10, 1e-6 and 1e5 (signs mixed): small norms are not zero."""
    return [
        gen.scaled_vector(rng, n, s) for n, s in ((3, gen.TINY), (5, gen.SMALL), (4, gen.LARGE))
    ]


@check("norm", "values")
def _norm(rng: random.Random) -> list[Case]:
    vecs = [[], [0.0, 0.0], [3.0, 4.0], [-2.0]] + [a for a, _ in _vector_pairs(rng)]
    vecs += _magnitudes(rng)
    out = [ret("norm", (v,), oracle.norm(v)) for v in vecs]
    return out + again.pairs(rng, "norm", lambda r: (gen.vector(r, 4),), oracle.norm)


@check("cosine", "values", weight=2)
def _cosine(rng: random.Random) -> list[Case]:
    out = []
    for a, b in _vector_pairs(rng):
        out.append(ret("cosine", (a, b), oracle.cosine(a, b)))
    a = gen.vector(rng, 5)
    for b in ([x * 2.5 for x in a], [-x for x in a]):
        out.append(ret("cosine", (a, b), oracle.cosine(a, b)))
    for a in _magnitudes(rng):
        for scale in (gen.TINY, 1.0, gen.LARGE):
            b = gen.scaled_vector(rng, len(a), scale)
            out.append(ret("cosine", (a, b), oracle.cosine(a, b)))
    # Two lengths under 1e-10 each: their product is under 1e-20, and not zero.
    a, b = (gen.scaled_vector(rng, 3, gen.TINY / 4) for _ in range(2))
    out.append(ret("cosine", (a, b), oracle.cosine(a, b)))
    a = gen.above_one(rng, 6)  # the cosine of a with its copy rounds above 1
    out.append(ret("cosine", (a, list(a)), oracle.cosine(a, list(a))))
    opposite = [-x for x in a]  # and with its opposite below -1
    out.append(ret("cosine", (a, opposite), oracle.cosine(a, opposite)))
    tea, coffee = [0.9, 0.2, -0.1], [0.8, 0.3, 0.0]
    out.insert(0, ret("cosine", (tea, coffee), oracle.cosine(tea, coffee)))
    return (
        out
        + again.pairs(rng, "cosine", _two_vectors, oracle.cosine, keep=(1,))
        + again.pairs(rng, "cosine", _two_vectors, oracle.cosine, keep=(0,))
    )


@check("cosine", "no_direction")
def _cosine_zero(rng: random.Random) -> list[Case]:
    a = gen.vector(rng, 4)
    pairs = [([], []), ([0.0] * 4, a), (a, [0.0] * 4), ([0.0, 0.0], [0.0, 0.0])]
    return [ret("cosine", p, 0.0) for p in pairs]


@check("stretch", "values", weight=2)
def _stretch(rng: random.Random) -> list[Case]:
    out = []
    factors = [4.0, 0.0, -1.5, 1.0, 2.5, 0.5, 3.0, 10.0]
    # The fixed shapes only: every stretch call of a module that leaves something
    # behind costs a restart of its child.
    shapes = ((1, 1), (1, 4), (4, 1), (3, 2), (8, 8))
    for i, t in enumerate(gen.table(rng, r, c) for r, c in shapes):
        token = rng.choice((0, len(t) - 1, rng.randrange(len(t))))
        f = factors[i % len(factors)]
        out.append(ret("stretch", (t, token, f), oracle.stretch(t, token, f)))
    t, twin, _ = gen.twin_table(rng, 6, 3)
    out.append(ret("stretch", (t, twin, 4.0), oracle.stretch(t, twin, 4.0)))
    # Rows that are one list object: only the row of token_id changes.
    t = gen.one_row_object(rng, 3, 2)
    token = rng.randrange(3)
    out.append(ret("stretch", (t, token, 3.0), oracle.stretch(t, token, 3.0)))
    t, a, b = gen.shared_rows(rng, 5, 3)
    token = rng.choice((a, b))
    out.append(ret("stretch", (t, token, -2.0), oracle.stretch(t, token, -2.0)))
    real = gen.real_table()
    out.append(ret("stretch", (real, 137, 4.0), oracle.stretch(real, 137, 4.0)))
    tall, ids = gen.tall_table(rng)
    token = max(ids)  # a row past VOCAB
    out.append(ret("stretch", (tall, token, 2.0), oracle.stretch(tall, token, 2.0)))
    return out + again.pairs(rng, "stretch", lambda r: (gen.table(r, 3, 2), 1, 2.0), oracle.stretch)


def _token_out_of_range(
    rng: random.Random, fn: str, extra: Callable[[gen.Table], tuple[Any, ...]]
) -> list[Case]:
    """A token_id outside the table: -1 and V at its ends, V + k and -V - 1 beyond.

    Few cases on purpose: stretch is called once per case, and a module that leaves
    something behind after each call costs a restart of its child for every one.
    """
    one = gen.table(rng, 1, 1)
    out = [Case(fn, (one, -1) + extra(one), Raises("IndexError"))]
    t = gen.table(rng, 3, 2)
    for token_id in gen.far_ids(rng, len(t)):
        out.append(Case(fn, (t, token_id) + extra(t), Raises("IndexError")))
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("stretch", "out_of_range")
def _stretch_oor(rng: random.Random) -> list[Case]:
    return _token_out_of_range(rng, "stretch", lambda t: (rng.choice((2.0, 0.5, -3.0)),))


def _legal_k(t: gen.Table) -> tuple[int]:
    return (min(1, len(t) - 1),)


@check("nearest_by_cosine", "out_of_range")
def _ncos_oor(rng: random.Random) -> list[Case]:
    return _token_out_of_range(rng, "nearest_by_cosine", _legal_k)


@check("nearest_by_dot", "out_of_range")
def _ndot_oor(rng: random.Random) -> list[Case]:
    return _token_out_of_range(rng, "nearest_by_dot", _legal_k)


def _ranking_cases(rng: random.Random, fn: str, by: str, ties: bool) -> list[Case]:
    out = []
    for r, c in gen.shapes(rng):
        if r < 2 or (c == 1 and not ties):
            continue  # one column: every cosine is 1, -1 or 0, so it belongs to the ties
        if ties:
            t, probe = gen.tie_table(rng, max(r, 5), c)
        else:
            t = gen.table(rng, r, c)
            probe = rng.randrange(r)
        for k in sorted({1, min(3, len(t) - 1), len(t) - 1}):
            out.append(Case(fn, (t, probe, k), Ranks(by, k)))
    if not ties:
        real = gen.real_table()
        out.append(Case(fn, (real, 137, 5), Ranks(by, 5)))
        stretched, probe = gen.stretched_real(rng)
        out.append(Case(fn, (stretched, probe, 5), Ranks(by, 5)))
        # Short rows like the probe, long rows that are not: past 256 rows, and past
        # VOCAB with the probe past it too.
        for k, least in ((5, 256), (3, gen.REAL[0])):
            t, probe = gen.lengths_apart(rng, k, least)
            out.append(Case(fn, (t, probe, k), Ranks(by, k)))
    else:
        t, probe = gen.tie_table(rng, 6, 3)
        t[probe] = [0.0, 0.0, 0.0]  # a probe without direction: every score ties
        out.insert(0, Case(fn, (t, probe, 5), Ranks(by, 5)))
        out.insert(0, Case(fn, ([[1.0], [2.0]], 0, 0), Ranks(by, 0)))
        out.insert(0, Case(fn, ([[rng.uniform(-1, 1)]], 0, 0), Ranks(by, 0)))
        for r, c in ((3, 2), (5, 4), (8, 8)):
            t, probe = gen.near_tie_table(rng, r, c, by)
            out.append(Case(fn, (t, probe, len(t) - 1), Ranks(by, len(t) - 1)))
        # The probe's row is the very list object of another row, and every row one.
        t, a, b = gen.shared_rows(rng, 6, 3)
        for probe in (a, b):
            out.append(Case(fn, (t, probe, 5), Ranks(by, 5)))
        t = gen.one_row_object(rng, 4, 3)
        out.append(Case(fn, (t, rng.randrange(4), 3), Ranks(by, 3)))
    return out


@check("nearest_by_cosine", "values", weight=2)
def _ncos(rng: random.Random) -> list[Case]:
    out = _ranking_cases(rng, "nearest_by_cosine", "cosine", ties=False)
    return out + again.ranking_pairs(rng, "nearest_by_cosine", "cosine", oracle.nearest_by_cosine)


@check("nearest_by_cosine", "ties")
def _ncos_ties(rng: random.Random) -> list[Case]:
    return _ranking_cases(rng, "nearest_by_cosine", "cosine", ties=True)


@check("nearest_by_dot", "values", weight=2)
def _ndot(rng: random.Random) -> list[Case]:
    out = _ranking_cases(rng, "nearest_by_dot", "dot", ties=False)
    return out + again.ranking_pairs(rng, "nearest_by_dot", "dot", oracle.nearest_by_dot)


@check("nearest_by_dot", "ties")
def _ndot_ties(rng: random.Random) -> list[Case]:
    return _ranking_cases(rng, "nearest_by_dot", "dot", ties=True)


@check("nearest_by_cosine", "k_large", advisory=True)
def _ncos_k(rng: random.Random) -> list[Case]:
    t = gen.table(rng, 3, 2)
    return [Case("nearest_by_cosine", (t, 0, 5), Open("open.k_large"))]


@check("nearest_by_dot", "k_large", advisory=True)
def _ndot_k(rng: random.Random) -> list[Case]:
    t = gen.table(rng, 3, 2)
    return [Case("nearest_by_dot", (t, 0, 5), Open("open.k_large"))]


# Step 7 ------------------------------------------------------------------------------


@check("rms", "values")
def _rms(rng: random.Random) -> list[Case]:
    vecs = [[], [2.0], [3.0, -4.0], [0.0, 0.0, 0.0]] + [a for a, _ in _vector_pairs(rng)]
    vecs += _magnitudes(rng)
    out = [ret("rms", (v,), oracle.rms(v)) for v in vecs]
    return out + again.pairs(rng, "rms", lambda r: (gen.vector(r, 4),), oracle.rms)


@check("scaled_lookup", "values", weight=2)
def _scaled(rng: random.Random) -> list[Case]:
    out = []
    for t in some_tables(rng):
        ids = gen.ids_for(rng, len(t), rng.randint(0, 3))
        d = len(t[0])
        out.append(ret("scaled_lookup", (t, ids, d), oracle.scaled_lookup(t, ids, d)))
    out.insert(0, ret("scaled_lookup", (some_tables(rng)[3], [], 4), []))
    out.insert(0, ret("scaled_lookup", ([], [], 4), []))
    out += by_index_cases(rng, "scaled_lookup", oracle.scaled_lookup, (9,))
    for t in gen.aliased_tables(rng):
        ids = gen.ids_for(rng, len(t), 2)
        out.append(ret("scaled_lookup", (t, ids, 4), oracle.scaled_lookup(t, ids, 4)))
    real = gen.real_table()
    ids = [137, 0]
    out.append(ret("scaled_lookup", (real, ids, 64), oracle.scaled_lookup(real, ids, 64)))
    tall, ids = gen.tall_table(rng)
    d = len(tall[0])
    out.append(ret("scaled_lookup", (tall, ids, d), oracle.scaled_lookup(tall, ids, d)))
    return out + again.pairs(
        rng, "scaled_lookup", lambda r: (gen.table(r, 3, 2), [1, 0], 4), oracle.scaled_lookup
    )


@check("scaled_lookup", "dim_argument")
def _scaled_dim(rng: random.Random) -> list[Case]:
    out = []
    for t in some_tables(rng)[1:5]:
        d = len(t[0]) + rng.randint(1, 60)
        ids = [rng.randrange(len(t))]
        out.append(ret("scaled_lookup", (t, ids, d), oracle.scaled_lookup(t, ids, d)))
    return out


@check("scaled_lookup", "out_of_range")
def _scaled_oor(rng: random.Random) -> list[Case]:
    return out_of_range_cases(rng, "scaled_lookup", (4,))


# Every function whose arguments include a list gets an "inputs" check (built by the
# engine from the calls of all its other checks): nothing may change its arguments.
