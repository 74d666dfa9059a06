"""The edges of the legal inputs: which ones each function must be tried on, and
which check tries them.

``required`` derives the edges from a function's parameters (a table, ids, a token
id, a vector, ``k``); ``found`` reads them off the cases the checks actually build.
``tests/test_edges.py`` fails when a required edge has no case, and
``python -m grader.labs.embed.edges`` writes the table of ``docs/edges.md``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from typing import Any

from grader.labs.embed import cases as gen
from grader.labs.embed import oracle
from grader.labs.embed.checks import CHECKS, Case, Raises, Ranks, build
from grader.labs.embed.contract import BY_NAME

TABLES = ("table", "matrix")
VOCAB = gen.REAL[0]  # a table taller than this: ids past it are valid
VECTORS = ("vec", "hidden", "a", "b")
TINY_AT_MOST = 1e-8  # every nonzero entry at most this: a tiny vector
LARGE_AT_LEAST = 1e4  # some entry at least this: a large vector


def required(function: str) -> set[str]:
    """The edges a function must be tried on, by the rule of its parameters."""
    params = BY_NAME[function].params or ()
    need: set[str] = set()
    table = any(p in TABLES for p in params)
    by_index = table and ("ids" in params or "token_id" in params)
    if table:
        need |= {"one row", "one column", "512 x 64", "rows one object"}
        if "token_id" not in params:  # with a token id, an empty table only raises
            need.add("empty table")
    if by_index:
        need |= {"equal rows", "multiple rows"}
    if "ids" in params:
        need |= {"empty ids", "repeated id"}
    if by_index:
        need |= {"id -1 raises", "id V raises", "id past V raises", "id below -V raises"}
        need.add("id past VOCAB")
    if any(p in VECTORS for p in params):
        need |= {"empty vector", "tiny vector", "large vector"}
        if table:
            need |= {"vector one too long raises", "vector one too short raises"}
    if "k" in params:
        need |= {"k = 0", "k = 1", "k = V - 1", "near tie", "copy of the probe"}
        need |= {"probe row shared", "lengths apart"}
    if function in BY_COSINE:
        need |= {"cosine rounds above 1", "cosine rounds below -1"}
    return need


BY_COSINE = ("cosine", "nearest_by_cosine")  # functions whose answer rests on a cosine


def _rectangular(t: Sequence[Sequence[float]]) -> bool:
    return len({len(r) for r in t}) <= 1


def _multiple(a: Sequence[float], b: Sequence[float]) -> bool:
    """b is a multiple of a other than a itself (a is not all zeros)."""
    pivot = next((i for i, x in enumerate(a) if x != 0.0), None)
    if pivot is None or len(a) != len(b) or list(a) == list(b):
        return False
    f = b[pivot] / a[pivot]
    return all(y == x * f for x, y in zip(a, b))


def _alike(t: Sequence[Sequence[float]]) -> set[str]:
    """Whether the table holds two equal rows, and two rows one a multiple of the other."""
    out: set[str] = set()
    rows = [tuple(r) for r in t]
    if len(set(rows)) < len(rows):
        out.add("equal rows")
    groups: dict[tuple[float, ...], list[tuple[float, ...]]] = {}
    for row in set(rows):
        pivot = next((x for x in row if x != 0.0), 0.0)
        if pivot:
            key = tuple(round(x / pivot, 9) for x in row)
            groups.setdefault(key, []).append(row)
    for group in groups.values():
        if any(_multiple(a, b) for a in group for b in group if a is not b):
            out.add("multiple rows")
    return out


def _magnitude(v: Sequence[float]) -> set[str]:
    nonzero = [abs(x) for x in v if x != 0.0]
    if not nonzero:
        return set()
    if max(nonzero) <= TINY_AT_MOST:
        return {"tiny vector"}
    if max(nonzero) >= LARGE_AT_LEAST:
        return {"large vector"}
    return set()


def edges_of(case: Case) -> set[str]:
    """The edges one case reaches."""
    params = BY_NAME[case.fn].params or ()
    args: dict[str, Any] = dict(zip(params, case.args))
    raises = isinstance(case.expect, Raises)
    out: set[str] = set()
    t = next((args[p] for p in TABLES if p in args), None)
    if t is not None and _rectangular(t) and not raises:
        if not t:
            out.add("empty table")
        if len(t) == 1:
            out.add("one row")
        if t and len(t[0]) == 1:
            out.add("one column")
        if (len(t), len(t[0]) if t else 0) == gen.REAL:
            out.add("512 x 64")
        if "ids" in args or "token_id" in args:
            out |= _alike(t)
        if len({id(r) for r in t}) < len(t):
            out.add("rows one object")
    if "ids" in args:
        ids = list(args["ids"])
        if not ids and not raises:
            out.add("empty ids")
        if len(set(ids)) < len(ids) and not raises:
            out.add("repeated id")
    bad = list(args.get("ids", ())) + ([args["token_id"]] if "token_id" in args else [])
    if not raises and t is not None and len(t) > VOCAB and any(i >= VOCAB for i in bad):
        out.add("id past VOCAB")
    if raises and t is not None and _rectangular(t):
        if -1 in bad:
            out.add("id -1 raises")
        if len(t) in bad:
            out.add("id V raises")
        if any(type(i) is int and i > len(t) for i in bad):
            out.add("id past V raises")
        if any(type(i) is int and i < -len(t) for i in bad):
            out.add("id below -V raises")
    for p in VECTORS:
        if p not in args:
            continue
        v = args[p]
        if not raises:
            if not v:
                out.add("empty vector")
            out |= _magnitude(v)
        elif t is not None and _rectangular(t):
            size = len(t) if p == "vec" else (len(t[0]) if t else 0)
            if len(v) == size + 1:
                out.add("vector one too long raises")
            if len(v) == size - 1:
                out.add("vector one too short raises")
    if "k" in args and isinstance(case.expect, Ranks) and t:
        k = args["k"]
        if k == 0:
            out.add("k = 0")
        if k == 1:
            out.add("k = 1")
        if k == len(t) - 1:
            out.add("k = V - 1")
        if _near_tie(t, args["token_id"], case.expect.by):
            out.add("near tie")
        if any(r is t[args["token_id"]] for i, r in enumerate(t) if i != args["token_id"]):
            out.add("probe row shared")
        probe = list(t[args["token_id"]])
        twins = [r for i, r in enumerate(t) if i != args["token_id"] and list(r) == probe]
        if twins:
            out.add("copy of the probe")
            if case.fn in BY_COSINE and gen.plain_cosine(probe, list(twins[0])) > 1.0:
                out.add("cosine rounds above 1")
        opposite = [-x for x in probe]
        if case.fn in BY_COSINE and any(
            list(r) == opposite and gen.plain_cosine(probe, opposite) < -1.0 for r in t
        ):
            out.add("cosine rounds below -1")
        if _lengths_apart(t, args["token_id"], k):
            out.add("lengths apart")
    if case.fn == "cosine" and not raises:
        a, b = list(args["a"]), list(args["b"])
        if a == b and gen.plain_cosine(a, b) > 1.0:
            out.add("cosine rounds above 1")
        if a == [-x for x in b] and gen.plain_cosine(a, b) < -1.0:
            out.add("cosine rounds below -1")
    return out


def _lengths_apart(t: Sequence[Sequence[float]], probe: int, k: int) -> bool:
    """A table of more than 256 rows whose k best rows by cosine are not among the
    4 * k best by dot product, and the other way round."""
    if len(t) <= 256 or not k:
        return False
    others = [i for i in range(len(t)) if i != probe]
    by_cos, by_dot = oracle.scores(t, probe, "cosine"), oracle.scores(t, probe, "dot")
    top_cos = sorted(others, key=lambda i: -by_cos[i])
    top_dot = sorted(others, key=lambda i: -by_dot[i])
    return not set(top_cos[:k]) & set(top_dot[: 4 * k]) and not set(top_dot[:k]) & set(
        top_cos[: 4 * k]
    )


def _near_tie(t: Sequence[Sequence[float]], probe: int, by: str) -> bool:
    """Two other rows whose scores differ clearly more than rounding, by under 1e-6."""
    s = oracle.scores(t, probe, by)
    others = sorted(s[i] for i in range(len(t)) if i != probe)
    return any(not oracle.close(x, y) and y - x < 1e-6 for x, y in zip(others, others[1:]))


def found(seeds: Iterable[int] = (1,)) -> dict[str, dict[str, set[str]]]:
    """function -> edge -> the ids of the checks with a case at that edge."""
    out: dict[str, dict[str, set[str]]] = {}
    for seed in seeds:
        for check in CHECKS:
            if check.advisory:
                continue
            for case in build(check, seed):
                for edge in edges_of(case):
                    out.setdefault(case.fn, {}).setdefault(edge, set()).add(check.id)
    return out


ORDER = (
    "empty table",
    "one row",
    "one column",
    "512 x 64",
    "equal rows",
    "multiple rows",
    "empty ids",
    "repeated id",
    "id -1 raises",
    "id V raises",
    "id past V raises",
    "id below -V raises",
    "empty vector",
    "tiny vector",
    "large vector",
    "vector one too long raises",
    "vector one too short raises",
    "k = 0",
    "k = 1",
    "k = V - 1",
    "near tie",
    "copy of the probe",
    "cosine rounds above 1",
    "cosine rounds below -1",
    "id past VOCAB",
    "lengths apart",
    "rows one object",
    "probe row shared",
)


def table() -> str:
    """The markdown table of docs/edges.md: every required edge and its checks."""
    seen = found()
    lines = ["| function | edge | checks |", "| --- | --- | --- |"]
    for name in BY_NAME:
        need = required(name)
        for edge in (e for e in ORDER if e in need):
            checks = ", ".join("`%s`" % c for c in sorted(seen.get(name, {}).get(edge, ())))
            lines.append("| `%s` | %s | %s |" % (name, edge, checks or "**none**"))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(table())
