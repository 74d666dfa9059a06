"""Steps 1 to 3: the table, lookup, and the one-hot product."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from grader.engine.vocabulary.expect import Case, Open, Raises
from grader.labs.embed import cases as gen
from grader.labs.embed import oracle
from grader.labs.embed.checks import again
from grader.labs.embed.checks.registry import check, ret
from grader.labs.embed.contract import CONSTANTS, Answer
from grader.labs.embed.expect import Again, Multiplies

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
    # A shape again with another seed, right after the first: a table is the seed's,
    # not the shape's.  The arguments are ints, so the second call is only a repeat
    # (the lab's own "again.repeated" says so around its message).
    for v, d, first, then in ((2, 3, seeds[1], seeds[2]), (3, 2, seeds[2], seeds[1])):
        earlier = oracle.make_table(v, d, first)
        expect = Again(Answer.MATRIX, oracle.make_table(v, d, then), earlier)
        out.append(Case("make_table", (v, d, then), expect, before=(v, d, first), renew="repeated"))
    out.append(ret("make_table", (gen.REAL[0], gen.REAL[1], CONSTANTS["SEED"]), gen.real_table()))
    return out


@check("shape", "values")
def _shape(rng: random.Random) -> list[Case]:
    tables: list[gen.Table] = [[], [[]], [[], []], [[0.5]]]
    tables += [gen.table(rng, r, c) for r, c in gen.shapes(rng)]
    tables += gen.aliased_tables(rng)
    tables.append(gen.real_table())
    out = [ret("shape", (t,), (len(t), len(t[0]) if t else 0)) for t in tables]
    return out + again.pairs(
        rng,
        "shape",
        lambda r: (gen.table(r, r.randint(2, 5), 3),),
        lambda t: (len(t), len(t[0])),
    )


@check("shape", "ragged")
def _shape_ragged(rng: random.Random) -> list[Case]:
    return [Case("shape", (t,), Raises("ValueError")) for t in gen.ragged_tables(rng)]


@check("param_count", "values")
def _param_count(rng: random.Random) -> list[Case]:
    pairs = [(0, 5), (1, 1), (3, 7), (7, 3), gen.REAL, (50257, 768)]
    pairs.append((rng.randint(2, 10**5), rng.randint(2, 4096)))
    pairs.append((gen.past_float(rng), rng.randrange(3, 4096, 2)))
    return [ret("param_count", p, oracle.param_count(*p)) for p in pairs]


# Step 2 ------------------------------------------------------------------------------


def some_tables(rng: random.Random) -> list[gen.Table]:
    return [gen.table(rng, r, c) for r, c in gen.shapes(rng)]


@check("lookup", "values", weight=2)
def _lookup(rng: random.Random) -> list[Case]:
    out = []
    for t in some_tables(rng):
        ids = gen.ids_for(rng, len(t), rng.randint(0, 4))
        out.append(ret("lookup", (t, ids), oracle.lookup(t, ids)))
    t = some_tables(rng)[3]
    out.insert(0, ret("lookup", (t, []), []))
    for i in (0, len(t) - 1, rng.randrange(len(t))):
        out.insert(1, ret("lookup", (t, [i]), oracle.lookup(t, [i])))
    out.insert(0, ret("lookup", ([], []), []))
    out += by_index_cases(rng, "lookup", oracle.lookup)
    for t in gen.aliased_tables(rng):
        ids = gen.ids_for(rng, len(t), 2)
        out.append(ret("lookup", (t, ids), oracle.lookup(t, ids)))
    real = gen.real_table()
    ids = [137, 137, 0, len(real) - 1, rng.randrange(len(real))]
    out.append(ret("lookup", (real, ids), oracle.lookup(real, ids)))
    tall, ids = gen.tall_table(rng)
    out.append(ret("lookup", (tall, ids), oracle.lookup(tall, ids)))
    return out + again.pairs(rng, "lookup", lambda r: (gen.table(r, 3, 2), [2, 0]), oracle.lookup)


def by_index_cases(
    rng: random.Random, fn: str, answer: Callable[..., Any], extra: tuple[Any, ...] = ()
) -> list[Case]:
    """Ids of a row that equals an earlier one and of a multiple of it: the rows of
    those ids, not of the rows equal to them, must come back."""
    t, twin, multiple = gen.twin_table(rng, 6, 3)
    out = [ret(fn, (t, [twin]) + extra, answer(t, [twin], *extra))]
    ids = [multiple, twin, twin]
    out.append(ret(fn, (t, ids) + extra, answer(t, ids, *extra)))
    return out


def out_of_range_cases(rng: random.Random, fn: str, extra: tuple[Any, ...] = ()) -> list[Case]:
    out = []
    for t in some_tables(rng)[:5]:
        for bad in gen.out_of_range_ids(rng, len(t)):
            ok = rng.randrange(len(t))
            ids = [bad] if rng.random() < 0.5 else [ok, bad]
            out.append(Case(fn, (t, ids) + extra, Raises("IndexError")))
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("lookup", "out_of_range", weight=2)
def _lookup_oor(rng: random.Random) -> list[Case]:
    return out_of_range_cases(rng, "lookup")


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
    for t in some_tables(rng):
        vec = gen.vector(rng, len(t))
        out.append(
            ret(
                "row_times_matrix",
                (vec, t),
                oracle.row_times_matrix(vec, t),
            )
        )
    t = some_tables(rng)[4]
    zero = [0.0] * len(t)
    out.insert(1, ret("row_times_matrix", (zero, t), oracle.row_times_matrix(zero, t)))
    out.insert(0, ret("row_times_matrix", ([], []), []))
    for scale in (gen.TINY, gen.LARGE):
        pos = [[abs(x) + 0.25 for x in row] for row in t]
        vec = gen.scaled_vector(rng, len(pos), scale, positive=True)
        out.append(ret("row_times_matrix", (vec, pos), oracle.row_times_matrix(vec, pos)))
    for t in gen.aliased_tables(rng):
        vec = gen.vector(rng, len(t))
        out.append(ret("row_times_matrix", (vec, t), oracle.row_times_matrix(vec, t)))
    real = gen.real_table()
    vec = gen.vector(rng, len(real), spread=0.5)
    out.append(ret("row_times_matrix", (vec, real), oracle.row_times_matrix(vec, real)))
    return out + again.pairs(
        rng,
        "row_times_matrix",
        lambda r: (gen.vector(r, 3), gen.table(r, 3, 2)),
        oracle.row_times_matrix,
        keep=(0,),
    )


@check("row_times_matrix", "one_hot")
def _rtm_one_hot(rng: random.Random) -> list[Case]:
    out = []
    for t in some_tables(rng):
        vec = oracle.one_hot(rng.randrange(len(t)), len(t))
        out.append(ret("row_times_matrix", (vec, t), oracle.row_times_matrix(vec, t)))
    return out


@check("row_times_matrix", "length")
def _rtm_length(rng: random.Random) -> list[Case]:
    """A vector one entry too long or too short (and further off) for the matrix."""
    out = []
    for t in some_tables(rng)[:5]:
        v = len(t)
        for n in sorted({v - 1, v + 1, v + rng.randint(2, 4)} - {v}):
            if n >= 0:
                out.append(Case("row_times_matrix", (gen.vector(rng, n), t), Raises("ValueError")))
    # The empty matrix has no rows: a vector of any entry is too long for it.
    out.append(
        Case("row_times_matrix", (gen.vector(rng, rng.randint(1, 3)), []), Raises("ValueError"))
    )
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("row_times_matrix", "ragged")
def _rtm_ragged(rng: random.Random) -> list[Case]:
    """A ragged matrix with a vector as long as it has rows: only the rows are wrong."""
    return [
        Case("row_times_matrix", (gen.vector(rng, len(t)), t), Raises("ValueError"))
        for t in gen.ragged_tables(rng)
    ]


# Non-finite values put where a real product multiplies them by 0.0.
SPECIALS = (math.inf, -math.inf, math.nan)
# The most products whose count a case asks for.  A counted table's numbers are a float
# subclass whose every multiplication runs Python code in the child, and the count only
# chooses between two messages for a case that fails; the cases of the `multiplies` check
# and every table but the 512 x 64 one stay under it, so a module that multiplies and
# throws the products away is told so by its smallest failing case.
COUNTED_AT_MOST = 4096


def probed(rng: random.Random, t: gen.Table, ids: list[int], avoid: tuple[int, ...] = ()) -> Case:
    """lookup_via_one_hot on a copy of ``t`` with a non-finite value in a few columns,
    each in a row that no id selects (and not in ``avoid``): a real product gives nan
    there and the row's own values elsewhere.  Every case of the function's value
    checks is such a case, so no case can be told from an ordinary one by the
    presence of an infinity; where no row is left unselected there is none."""
    v, d = len(t), len(t[0]) if t else 0
    chosen = {id(t[i]) for i in ids}  # a row shared with a selected one is selected too
    spare = [r for r in range(v) if r not in ids and r not in avoid and id(t[r]) not in chosen]
    copies: dict[int, list[float]] = {}
    table = [copies.setdefault(id(row), list(row)) for row in t]  # shared rows stay shared
    probes = []
    if spare and d:
        for c in sorted(rng.sample(range(d), max(1, d // 3))):
            r = rng.choice(spare)
            table[r][c] = rng.choice(SPECIALS)
            probes.append((r, c))
    value = [oracle.row_times_matrix(oracle.one_hot(i, v), table) for i in ids]
    mults = oracle.one_hot_mults(v, d, len(ids))
    expect = Multiplies(Answer.MATRIX, value, mults, tuple(probes))
    counted = (0,) if probes and mults <= COUNTED_AT_MOST else ()
    return Case("lookup_via_one_hot", (table, ids), expect, count=counted)


@check("lookup_via_one_hot", "values", weight=2)
def _lvoh(rng: random.Random) -> list[Case]:
    out = []
    for t in some_tables(rng):
        ids = gen.ids_for(rng, len(t), rng.randint(0, 3))
        out.append(probed(rng, t, ids))
    out.insert(0, ret("lookup_via_one_hot", (some_tables(rng)[3], []), []))
    out.insert(0, ret("lookup_via_one_hot", ([], []), []))
    t, twin, multiple = gen.twin_table(rng, 6, 3)
    alike = tuple(r for r in range(6) if t[r] == t[twin]) + (multiple,)  # kept as they are
    out.append(probed(rng, t, [twin], alike))
    out.append(probed(rng, t, [multiple, twin, twin], alike))
    for t in gen.aliased_tables(rng):
        out.append(probed(rng, t, gen.ids_for(rng, len(t), 1)))
    out.append(probed(rng, gen.real_table(), [137]))
    tall, ids = gen.tall_table(rng)
    out.append(probed(rng, tall, ids[:2]))
    return out + again.pairs(
        rng,
        "lookup_via_one_hot",
        lambda r: probed(r, gen.table(r, 4, 3), [1, 3]).args,
        lambda t, ids: [oracle.row_times_matrix(oracle.one_hot(i, len(t)), t) for i in ids],
    )


@check("lookup_via_one_hot", "multiplies")
def _lvoh_mults(rng: random.Random) -> list[Case]:
    """Every product of the one-hot row with the table must reach the answer.

    For each table, one case per other row: case j puts a non-finite value in column
    c of row others[(j + c) % (V - 1)], so over the cases every cell outside the
    chosen row is multiplied by 0.0 once where nothing else in its column can make
    the nan.  Each case also gets one or two columns without such a value, at random
    places, where the answer is the chosen row's own (sometimes itself an infinity or
    nan): an answer of nan wherever the table holds one is wrong too.
    """
    out = []
    for t in some_tables(rng)[2:6]:
        v, d = len(t), len(t[0])
        chosen = rng.randrange(v)
        others = [r for r in range(v) if r != chosen]
        for j in range(len(others)):
            width = d + rng.randint(1, 2)
            free = set(rng.sample(range(width), width - d))
            table: gen.Table = [[] for _ in range(v)]
            probes = []
            c = 0
            for col in range(width):
                for r in range(v):
                    table[r].append(gen.value(rng) if col in free else t[r][c])
                if col in free:
                    if rng.random() < 0.3:
                        table[chosen][col] = rng.choice(SPECIALS)
                    continue
                r = others[(j + c) % len(others)]
                table[r][col] = rng.choice(SPECIALS)
                probes.append((r, col))
                c += 1
            value = [oracle.row_times_matrix(oracle.one_hot(chosen, v), table)]
            expect = Multiplies(
                Answer.MATRIX, value, oracle.one_hot_mults(v, width, 1), tuple(probes)
            )
            out.append(Case("lookup_via_one_hot", (table, [chosen]), expect, count=(0,)))
    return sorted(out, key=lambda c: gen.sizes(c.args))


@check("lookup_via_one_hot", "out_of_range")
def _lvoh_oor(rng: random.Random) -> list[Case]:
    return out_of_range_cases(rng, "lookup_via_one_hot")


@check("one_hot_mults", "values")
def _mults(rng: random.Random) -> list[Case]:
    triples = [(1, 1, 1), (4, 3, 0), (4, 3, 1), (3, 4, 2), (512, 64, 1)]
    triples.append((rng.randint(2, 5000), rng.randint(2, 1024), rng.randint(2, 50)))
    triples.append((gen.past_float(rng), rng.randrange(3, 1024, 2), rng.randrange(3, 50, 2)))
    return [ret("one_hot_mults", t, oracle.one_hot_mults(*t)) for t in triples]
