"""Benchmark of the similarity pass: ``python tests/bench_similar.py [N ...] [--seed S]``.

Also run by ``nox -s bench``.  Builds classes of N modules (default 1,000, 2,000,
5,000 and 10,000) that overlap as a real class does, fingerprints them, and times
``similar_pairs``, the part whose cost grows with the class.  Each module is put
together from the functions of the sample modules (the reference, the oracle and
``tests/corpus``): for every function one of its versions, the popular ones more
often, with statements of the student's own slipped in (one after about every second
statement), so that two students who chose the same version still differ as two
people's code does.  One student in forty hands in a lightly changed copy of another's
module, and a group of six hands in one module between them.
It prints the seconds (wall clock and CPU) and the pairs flagged, beside the seconds
of comparing every pair for the smaller classes, and asserts nothing about time.
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from grader.engine import similar  # noqa: E402

CORPUS = ROOT / "tests" / "corpus"
SOURCES = (
    [ROOT / "embed.py", ROOT / "grader" / "labs" / "embed" / "oracle.py"]
    + sorted((CORPUS / "right").glob("*.py"))
    + sorted((CORPUS / "wrong").glob("*.py"))
)
SIZES = (1000, 2000, 5000, 10000)
COPIERS = 1 / 40  # share of the class that hands in a renamed copy of another's module
SKEW = 0.5  # how much more often the first versions of a function are chosen
GROUP = 6  # students handing in one module between them


def function_pool() -> dict[str, list[list[str]]]:
    """The normalised tokens of every version of each top-level function the sample
    modules define (docstrings and layout do not count, as in the similarity pass)."""
    pool: dict[str, dict[tuple[str, ...], None]] = {}
    for path in SOURCES:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                tokens = tuple(similar.normalized_tokens(ast.unparse(node)))
                pool.setdefault(node.name, {})[tokens] = None
    return {name: [list(t) for t in v] for name, v in sorted(pool.items()) if len(v) >= 3}


def _own_statement(rng: random.Random) -> list[str]:
    """The tokens of a short statement of the student's own, ending its line."""
    n = str(rng.randrange(1000))
    return [
        ["V", "=", n, ";"],
        ["assert", n, ">=", "0", ";"],
        ["V", "=", "len", "(", "str", "(", n, ")", ")", ";"],
        ["if", n, "<", "0", ":", ">", "raise", "ValueError", "(", "S", ")", ";", "<"],
    ][rng.randrange(4)]


def _personal(tokens: list[str], rng: random.Random, rate: float) -> list[str]:
    """``tokens`` with statements of one's own slipped in after some of its lines."""
    out: list[str] = []
    for t in tokens:
        out.append(t)
        if t == ";" and rng.random() < rate:
            out.extend(_own_statement(rng))
    return out


def make_class(n: int, seed: int = 1, skew: float = SKEW) -> list[tuple[str, list[str]]]:
    """``n`` modules as (name, normalised tokens): mostly each student's own, some copies.

    Built from tokens rather than source text, which would only be tokenised again."""
    rng = random.Random(seed)
    pool = function_pool()
    head = similar.normalized_tokens("import math\nimport random\n")
    # Some versions are chosen more often than others (weights 1, 1/2**skew, 1/3**skew...).
    weights = {name: [(i + 1) ** -skew for i in range(len(v))] for name, v in pool.items()}
    out: list[tuple[str, list[str]]] = []
    for i in range(n):
        name = "s%05d" % i
        if out and rng.random() < COPIERS:
            out.append((name, _personal(rng.choice(out)[1], rng, 0.03)))
            continue
        tokens = list(head)
        for fn, versions in pool.items():
            tokens += _personal(rng.choices(versions, weights[fn])[0], rng, 0.5)
        out.append((name, tokens))
    if n >= 2 * GROUP:
        shared = out[rng.randrange(n)][1]
        for k in rng.sample(range(n), GROUP):
            out[k] = (out[k][0], shared)
    return out


def fingerprints(modules: list[tuple[str, list[str]]]) -> list[similar.Fingerprint]:
    base = similar.winnow(
        similar.normalized_tokens((ROOT / "exercises" / "embed.py").read_text(encoding="utf-8"))
    )
    return [similar.Fingerprint(name, similar.winnow(t) - base, len(t)) for name, t in modules]


def every_pair(
    prints: list[similar.Fingerprint],
    threshold: float = similar.THRESHOLD,
    min_shared: int = similar.MIN_SHARED,
) -> list[similar.Match]:
    """The flagged pairs found by comparing every pair (the way before the index):
    each module's fingerprints are the bits of one integer."""
    bit: dict[int, int] = {}
    masks = []
    for p in prints:
        mask = 0
        for h in p.hashes:
            mask |= 1 << bit.setdefault(h, len(bit))
        masks.append(mask)
    found = []
    for i, a in enumerate(masks):
        for j in range(i + 1, len(masks)):
            n = (a & masks[j]).bit_count()
            if n >= min_shared:
                m = similar.Match(
                    prints[i].name,
                    prints[j].name,
                    n / len(prints[i].hashes),
                    n / len(prints[j].hashes),
                    n,
                )
                if similar.flagged(m, threshold, min_shared):
                    found.append(m)
    found.sort(key=lambda m: (-m.score, -m.shared, m.a, m.b))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=list(SIZES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--every-pair",
        type=int,
        default=2000,
        metavar="N",
        help="also time comparing every pair, up to N modules (default 2000)",
    )
    args = parser.parse_args()
    print(
        "%8s %8s %8s %8s %10s %10s"
        % ("modules", "fp/mod", "flagged", "seconds", "cpu s", "every pair")
    )
    for n in args.sizes:
        prints = fingerprints(make_class(n, args.seed))
        start, cpu = time.perf_counter(), time.process_time()
        pairs = similar.similar_pairs(prints)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        old = ""
        if n <= args.every_pair:
            start = time.perf_counter()
            same = every_pair(prints) == pairs
            old = "%.2f%s" % (time.perf_counter() - start, "" if same else " (other flags)")
        mean = sum(len(p.hashes) for p in prints) / max(1, len(prints))
        print(
            "%8d %8.0f %8d %8.2f %10.2f %10s" % (n, mean, len(pairs), seconds, cpu, old),
            flush=True,
        )


if __name__ == "__main__":
    main()
