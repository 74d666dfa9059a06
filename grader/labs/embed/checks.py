"""The checks: for each contract function, which inputs it is given and what must come back.

A ``Check`` builds its ``Case``s from its own ``random.Random``.  Each case holds the
arguments (sent to the child) and an expectation (kept in the parent).  Cases are
listed smallest first, so the first failing case is the smallest input that shows
the mistake.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Callable
from typing import Any

from grader.engine.expect import Case, Check, Open, Raises, Returns, build
from grader.engine.expect import plan as plan_cases
from grader.labs.embed import cases as gen
from grader.labs.embed import oracle
from grader.labs.embed.contract import BY_NAME, CONSTANTS, Answer
from grader.labs.embed.expect import Multiplies, Ranks

__all__ = ["Case", "Check", "Multiplies", "Open", "Raises", "Ranks", "Returns", "build"]


Expect = Returns | Raises | Ranks | Multiplies | Open


CHECKS: list[Check] = []


def check(
    function: str, name: str, weight: int = 1, advisory: bool = False
) -> Callable[[Callable[[random.Random], list[Case]]], Callable[[random.Random], list[Case]]]:
    """Register the decorated case builder as the check ``function.name``."""

    def register(
        build: Callable[[random.Random], list[Case]],
    ) -> Callable[[random.Random], list[Case]]:
        cid = "%s.%s" % (function, name)
        CHECKS.append(Check(cid, function, BY_NAME[function].step, build, weight, advisory))
        return build

    return register


def ret(fn: str, args: tuple[Any, ...], value: Any) -> Case:
    return Case(fn, args, Returns(BY_NAME[fn].answer, value))


# Step 1 ------------------------------------------------------------------------------


@check("make_table", "values", weight=2)
def _make_table(rng: random.Random) -> list[Case]:
    seeds = [0, rng.randrange(10**6), rng.randrange(10**9), -rng.randrange(1, 10**4)]
    shapes = [(1, 1), (2, 3), (3, 2), (0, 4), (3, 0), (rng.randint(4, 9), rng.randint(2, 7))]
    out = [
        ret(
            "make_table",
            (v, d, seeds[i % len(seeds)]),
            oracle.make_table(v, d, seeds[i % len(seeds)]),
        )
        for i, (v, d) in enumerate(shapes)
    ]
    out.append(ret("make_table", (gen.REAL[0], gen.REAL[1], CONSTANTS["SEED"]), gen.real_table()))
    return out


@check("shape", "values")
def _shape(rng: random.Random) -> list[Case]:
    tables: list[gen.Table] = [[], [[]], [[], []], [[0.5]]]
    tables += [gen.table(rng, r, c) for r, c in gen.shapes(rng)]
    tables.append(gen.real_table())
    return [ret("shape", (t,), (len(t), len(t[0]) if t else 0)) for t in tables]


@check("shape", "ragged")
def _shape_ragged(rng: random.Random) -> list[Case]:
    return [Case("shape", (t,), Raises("ValueError")) for t in gen.ragged_tables(rng)]


@check("param_count", "values")
def _param_count(rng: random.Random) -> list[Case]:
    pairs = [(0, 5), (1, 1), (3, 7), (7, 3), gen.REAL, (50257, 768)]
    pairs.append((rng.randint(2, 10**5), rng.randint(2, 4096)))
    return [ret("param_count", p, oracle.param_count(*p)) for p in pairs]


# Step 2 ------------------------------------------------------------------------------


def _tables(rng: random.Random) -> list[gen.Table]:
    return [gen.table(rng, r, c) for r, c in gen.shapes(rng)]


@check("lookup", "values", weight=2)
def _lookup(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng):
        ids = gen.ids_for(rng, len(t), rng.randint(0, 4))
        out.append(ret("lookup", (t, ids), oracle.lookup(t, ids)))
    t = _tables(rng)[3]
    out.insert(0, ret("lookup", (t, []), []))
    for i in (0, len(t) - 1, rng.randrange(len(t))):
        out.insert(1, ret("lookup", (t, [i]), oracle.lookup(t, [i])))
    out.insert(0, ret("lookup", ([], []), []))
    out += _by_index_cases(rng, "lookup", oracle.lookup)
    real = gen.real_table()
    ids = [137, 137, 0, len(real) - 1, rng.randrange(len(real))]
    out.append(ret("lookup", (real, ids), oracle.lookup(real, ids)))
    return out


def _by_index_cases(
    rng: random.Random, fn: str, answer: Callable[..., Any], extra: tuple[Any, ...] = ()
) -> list[Case]:
    """Ids of a row that equals an earlier one and of a multiple of it: the rows of
    those ids, not of the rows equal to them, must come back."""
    t, twin, multiple = gen.twin_table(rng, 6, 3)
    out = [ret(fn, (t, [twin]) + extra, answer(t, [twin], *extra))]
    ids = [multiple, twin, twin]
    out.append(ret(fn, (t, ids) + extra, answer(t, ids, *extra)))
    return out


def _out_of_range(rng: random.Random, fn: str, extra: tuple[Any, ...] = ()) -> list[Case]:
    out = []
    for t in _tables(rng)[:5]:
        for bad in gen.out_of_range_ids(rng, len(t)):
            ok = rng.randrange(len(t))
            ids = [bad] if rng.random() < 0.5 else [ok, bad]
            out.append(Case(fn, (t, ids) + extra, Raises("IndexError")))
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("lookup", "out_of_range", weight=2)
def _lookup_oor(rng: random.Random) -> list[Case]:
    return _out_of_range(rng, "lookup")


# Step 3 ------------------------------------------------------------------------------


@check("one_hot", "values")
def _one_hot(rng: random.Random) -> list[Case]:
    pairs = [(0, 1), (0, 3), (2, 3), (1, 4)]
    for _ in range(3):
        v = rng.randint(2, 600)
        pairs.append((rng.randrange(v), v))
    pairs.append((137, 512))
    return [ret("one_hot", p, oracle.one_hot(*p)) for p in pairs]


@check("one_hot", "out_of_range", advisory=True)
def _one_hot_oor(rng: random.Random) -> list[Case]:
    return [Case("one_hot", (v, 4), Open("open.out_of_range")) for v in (4, -1)]


@check("row_times_matrix", "values", weight=2)
def _rtm(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng):
        vec = gen.vector(rng, len(t))
        out.append(
            ret(
                "row_times_matrix",
                (vec, t),
                oracle.row_times_matrix(vec, t),
            )
        )
    t = _tables(rng)[4]
    zero = [0.0] * len(t)
    out.insert(1, ret("row_times_matrix", (zero, t), oracle.row_times_matrix(zero, t)))
    out.insert(0, ret("row_times_matrix", ([], []), []))
    for scale in (gen.TINY, gen.LARGE):
        pos = [[abs(x) + 0.25 for x in row] for row in t]
        vec = gen.scaled_vector(rng, len(pos), scale, positive=True)
        out.append(ret("row_times_matrix", (vec, pos), oracle.row_times_matrix(vec, pos)))
    real = gen.real_table()
    vec = gen.vector(rng, len(real), spread=0.5)
    out.append(ret("row_times_matrix", (vec, real), oracle.row_times_matrix(vec, real)))
    return out


@check("row_times_matrix", "one_hot")
def _rtm_one_hot(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng):
        vec = oracle.one_hot(rng.randrange(len(t)), len(t))
        out.append(ret("row_times_matrix", (vec, t), oracle.row_times_matrix(vec, t)))
    return out


@check("row_times_matrix", "length")
def _rtm_length(rng: random.Random) -> list[Case]:
    """A vector one entry too long or too short (and further off) for the matrix."""
    out = []
    for t in _tables(rng)[:5]:
        v = len(t)
        for n in sorted({v - 1, v + 1, v + rng.randint(2, 4)} - {v}):
            if n >= 0:
                out.append(Case("row_times_matrix", (gen.vector(rng, n), t), Raises("ValueError")))
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("row_times_matrix", "ragged")
def _rtm_ragged(rng: random.Random) -> list[Case]:
    """A ragged matrix with a vector as long as it has rows: only the rows are wrong."""
    return [
        Case("row_times_matrix", (gen.vector(rng, len(t)), t), Raises("ValueError"))
        for t in gen.ragged_tables(rng)
    ]


@check("lookup_via_one_hot", "values", weight=2)
def _lvoh(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng):
        ids = gen.ids_for(rng, len(t), rng.randint(0, 3))
        out.append(ret("lookup_via_one_hot", (t, ids), oracle.lookup(t, ids)))
    out.insert(0, ret("lookup_via_one_hot", (_tables(rng)[3], []), []))
    out.insert(0, ret("lookup_via_one_hot", ([], []), []))
    out += _by_index_cases(rng, "lookup_via_one_hot", oracle.lookup)
    real = gen.real_table()
    out.append(ret("lookup_via_one_hot", (real, [137]), oracle.lookup(real, [137])))
    return out


@check("lookup_via_one_hot", "multiplies")
def _lvoh_mults(rng: random.Random) -> list[Case]:
    """Every product of the one-hot row with the table must reach the answer.

    For each table, one case per other row: case j puts an infinity in column c of
    row others[(j + c) % (V - 1)], so over the cases every cell outside the chosen
    row is multiplied by 0.0 once where nothing else in its column can make the nan.
    """
    out = []
    for t in _tables(rng)[2:6]:
        v, d = len(t), len(t[0])
        chosen = rng.randrange(v)
        others = [r for r in range(v) if r != chosen]
        for j in range(len(others)):
            probed = [list(row) for row in t]
            probes = []
            for c in range(d):
                r = others[(j + c) % len(others)]
                probed[r][c] = rng.choice((math.inf, -math.inf))
                probes.append((r, c))
            value = [oracle.row_times_matrix(oracle.one_hot(chosen, v), probed)]
            expect = Multiplies(Answer.MATRIX, value, oracle.one_hot_mults(v, d, 1), tuple(probes))
            out.append(Case("lookup_via_one_hot", (probed, [chosen]), expect, count=(0,)))
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("lookup_via_one_hot", "out_of_range")
def _lvoh_oor(rng: random.Random) -> list[Case]:
    return _out_of_range(rng, "lookup_via_one_hot")


@check("one_hot_mults", "values")
def _mults(rng: random.Random) -> list[Case]:
    triples = [(1, 1, 1), (4, 3, 0), (4, 3, 1), (3, 4, 2), (512, 64, 1)]
    triples.append((rng.randint(2, 5000), rng.randint(2, 1024), rng.randint(2, 50)))
    return [ret("one_hot_mults", t, oracle.one_hot_mults(*t)) for t in triples]


# Step 4 ------------------------------------------------------------------------------


@check("logits", "values", weight=3)
def _logits(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng):
        hidden = gen.vector(rng, len(t[0]))
        out.append(ret("logits", (t, hidden), oracle.logits(t, hidden)))
    t = _tables(rng)[4]
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
    real = gen.real_table()
    probe = list(real[137])
    out.append(ret("logits", (real, probe), oracle.logits(real, probe)))
    return out


@check("logits", "width", weight=2)
def _logits_width(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng)[1:6]:
        d = len(t[0])
        for n in sorted({d + 1, d - 1, 0, d + rng.randint(2, 4)} - {d}):
            if n >= 0:
                out.append(Case("logits", (t, gen.vector(rng, n)), Raises("ValueError")))
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
    return out


def _magnitudes(rng: random.Random) -> list[list[float]]:
    """Vectors near 1e-10, 1e-6 and 1e5 (signs mixed): small norms are not zero."""
    return [
        gen.scaled_vector(rng, n, s) for n, s in ((3, gen.TINY), (5, gen.SMALL), (4, gen.LARGE))
    ]


@check("norm", "values")
def _norm(rng: random.Random) -> list[Case]:
    vecs = [[], [0.0, 0.0], [3.0, 4.0], [-2.0]] + [a for a, _ in _vector_pairs(rng)]
    vecs += _magnitudes(rng)
    return [ret("norm", (v,), oracle.norm(v)) for v in vecs]


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
    tea, coffee = [0.9, 0.2, -0.1], [0.8, 0.3, 0.0]
    out.insert(0, ret("cosine", (tea, coffee), oracle.cosine(tea, coffee)))
    return out


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
    real = gen.real_table()
    out.append(ret("stretch", (real, 137, 4.0), oracle.stretch(real, 137, 4.0)))
    return out


def _token_out_of_range(
    rng: random.Random, fn: str, extra: Callable[[gen.Table], tuple[Any, ...]]
) -> list[Case]:
    """A token_id just outside the table: -1 and V.

    Few cases on purpose: stretch is called once per case, and a module that leaves
    something behind after each call costs a restart of its child for every one.
    """
    one = gen.table(rng, 1, 1)
    out = [Case(fn, (one, -1) + extra(one), Raises("IndexError"))]
    t = gen.table(rng, 3, 2)
    for token_id in (-1, len(t)):
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
    else:
        t, probe = gen.tie_table(rng, 6, 3)
        t[probe] = [0.0, 0.0, 0.0]  # a probe without direction: every score ties
        out.insert(0, Case(fn, (t, probe, 5), Ranks(by, 5)))
        out.insert(0, Case(fn, ([[1.0], [2.0]], 0, 0), Ranks(by, 0)))
        out.insert(0, Case(fn, ([[rng.uniform(-1, 1)]], 0, 0), Ranks(by, 0)))
        for r, c in ((3, 2), (5, 4), (8, 8)):
            t, probe = gen.near_tie_table(rng, r, c, by)
            out.append(Case(fn, (t, probe, len(t) - 1), Ranks(by, len(t) - 1)))
    return out


@check("nearest_by_cosine", "values", weight=2)
def _ncos(rng: random.Random) -> list[Case]:
    return _ranking_cases(rng, "nearest_by_cosine", "cosine", ties=False)


@check("nearest_by_cosine", "ties")
def _ncos_ties(rng: random.Random) -> list[Case]:
    return _ranking_cases(rng, "nearest_by_cosine", "cosine", ties=True)


@check("nearest_by_dot", "values", weight=2)
def _ndot(rng: random.Random) -> list[Case]:
    return _ranking_cases(rng, "nearest_by_dot", "dot", ties=False)


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
    return [ret("rms", (v,), oracle.rms(v)) for v in vecs]


@check("scaled_lookup", "values", weight=2)
def _scaled(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng):
        ids = gen.ids_for(rng, len(t), rng.randint(0, 3))
        d = len(t[0])
        out.append(ret("scaled_lookup", (t, ids, d), oracle.scaled_lookup(t, ids, d)))
    out.insert(0, ret("scaled_lookup", (_tables(rng)[3], [], 4), []))
    out.insert(0, ret("scaled_lookup", ([], [], 4), []))
    out += _by_index_cases(rng, "scaled_lookup", oracle.scaled_lookup, (9,))
    real = gen.real_table()
    ids = [137, 0]
    out.append(ret("scaled_lookup", (real, ids, 64), oracle.scaled_lookup(real, ids, 64)))
    return out


@check("scaled_lookup", "dim_argument")
def _scaled_dim(rng: random.Random) -> list[Case]:
    out = []
    for t in _tables(rng)[1:5]:
        d = len(t[0]) + rng.randint(1, 60)
        ids = [rng.randrange(len(t))]
        out.append(ret("scaled_lookup", (t, ids, d), oracle.scaled_lookup(t, ids, d)))
    return out


@check("scaled_lookup", "out_of_range")
def _scaled_oor(rng: random.Random) -> list[Case]:
    return _out_of_range(rng, "scaled_lookup", (4,))


# Every function whose arguments include a list gets an "inputs" check (built by the
# engine from the calls of all its other checks): nothing may change its arguments.
LIST_PARAMS = ("table", "matrix", "ids", "vec", "hidden", "a", "b")
MUTABLE_ARGS = tuple(
    n.name for n in BY_NAME.values() if n.params and any(p in LIST_PARAMS for p in n.params)
)


@functools.lru_cache(maxsize=4)
def plan(seed: int, ids: tuple[str, ...]) -> tuple[tuple[Check, tuple[Case, ...]], ...]:
    """The cases of the selected checks for one seed, drawn once and shared.

    A class graded with one seed faces the same cases: they are drawn once, not once
    per submission.  Nothing downstream changes a case (the child gets copies).
    """
    return plan_cases(CHECKS, seed, ids)
