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
for _path in (ROOT, ROOT / "tests"):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from grader.engine.similarity import classpass, shares  # noqa: E402

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
                tokens = tuple(classpass.normalized_tokens(ast.unparse(node)))
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
    head = classpass.normalized_tokens("import math\nimport random\n")
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


def fingerprints(modules: list[tuple[str, list[str]]]) -> list[classpass.Fingerprint]:
    base = classpass.winnow(
        classpass.normalized_tokens((ROOT / "exercises" / "embed.py").read_text(encoding="utf-8"))
    )
    return [classpass.Fingerprint(name, classpass.winnow(t) - base, len(t)) for name, t in modules]


def every_pair(
    prints: list[classpass.Fingerprint],
    threshold: float = classpass.THRESHOLD,
    min_shared: int = classpass.MIN_SHARED,
) -> list[classpass.Match]:
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
                m = shares._match(prints[i], prints[j], n)
                if classpass.flagged(m, threshold, min_shared):
                    found.append(m)
    found.sort(key=lambda m: (-m.score, -m.shared, m.a, m.b))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--calibrate", action="store_true", help="precision and recall on source modules"
    )
    parser.add_argument(
        "--pass", dest="whole", action="store_true", help="time the whole pass on source modules"
    )
    parser.add_argument(
        "--parts",
        action="store_true",
        help="with --pass, also time the fingerprints and the pairs alone",
    )
    parser.add_argument(
        "--every-pair",
        type=int,
        default=2000,
        metavar="N",
        help="also time comparing every pair, up to N modules (default 2000)",
    )
    args = parser.parse_args()
    if args.calibrate:
        calibrate(args.sizes or [60, 200, 1000], args.seed)
        return
    if args.whole:
        for n in args.sizes or [1000, 10000]:
            time_pass(n, args.seed, args.parts)
        return
    print(
        "%8s %8s %8s %8s %10s %10s"
        % ("modules", "fp/mod", "flagged", "seconds", "cpu s", "every pair")
    )
    for n in args.sizes or SIZES:
        prints = fingerprints(make_class(n, args.seed))
        start, cpu = time.perf_counter(), time.process_time()
        pairs = classpass.similar_pairs(prints)
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


# Precision and recall on classes of real source modules, and the time of the whole pass.


def calibration_class(
    n: int, seed: int = 1
) -> tuple[list[tuple[str, str]], set[frozenset[str]], set[str]]:
    """``n`` modules (name, source): honest students, and copies of some of them
    disguised in every way of ``simcorpus``; with the pairs that are copies and the
    modules that hold several classmates' code."""
    import simcorpus

    rng = random.Random(seed)
    p = simcorpus.pool()
    out: list[tuple[str, str]] = []
    copies: set[frozenset[str]] = set()
    collectors: set[str] = set()

    def honest() -> tuple[str, str]:
        name = "s%05d" % len(out)
        out.append((name, simcorpus.honest_module(p, rng)))
        return out[-1]

    for kind, disguise in simcorpus.DISGUISES.items():
        for k in range(2):
            victim = honest()
            name = "copy-%s-%d" % (kind.replace(" ", "-"), k)
            out.append((name, disguise(victim[1], k)))
            copies.add(frozenset((name, victim[0])))
    for k, path in enumerate(p for p in simcorpus.SOLUTIONS if "class " in p.read_text()):
        if k >= 3:
            break
        name = "class-%s" % path.stem
        out.append((name, path.read_text(encoding="utf-8")))
        out.append((name + "-renamed", simcorpus.renamed(path.read_text(encoding="utf-8"), k)))
        copies.add(frozenset((name, name + "-renamed")))
    for k in range(2):
        victim, own = honest(), honest()
        out.pop()  # the copier hands in the copy, not their own module
        name = "copy-5-functions-%d" % k
        out.append((name, simcorpus.some_functions(victim[1], own[1], 5, k)))
        copies.add(frozenset((name, victim[0])))
    sources = [honest() for _ in range(3)]
    out.append(("mosaic", simcorpus.mosaic([s for _, s in sources])))
    copies |= {frozenset(("mosaic", s)) for s, _ in sources}
    collectors.add("mosaic")
    while len(out) < n:
        honest()
    return out, copies, collectors


def write_class(modules: list[tuple[str, str]], folder: Path) -> list[tuple[str, Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    found = []
    for name, source in modules:
        path = folder / ("%s.py" % name)
        path.write_text(source, encoding="utf-8")
        found.append((name, path))
    return found


def calibrate(sizes: list[int], seed: int) -> None:
    import tempfile

    stub = ROOT / "exercises" / "embed.py"
    print(
        "%8s %8s %8s %8s %10s %8s %8s %10s"
        % ("modules", "copies", "found", "flagged", "honest", "precision", "recall", "collector")
    )
    for n in sizes:
        modules, copies, collectors = calibration_class(n, seed)
        with tempfile.TemporaryDirectory() as tmp:
            found = classpass.class_similarity(
                write_class(modules, Path(tmp)), solutions={}, stub=stub
            )
        flagged = {frozenset((p["a"], p["b"])) for p in found["pairs"]}
        hits = flagged & copies
        named = {c["id"] for c in found["collectors"]}
        print(
            "%8d %8d %8d %8d %10d %8.3f %8.3f %10s"
            % (
                len(modules),
                len(copies),
                len(hits),
                len(flagged),
                len(flagged - copies),
                len(hits) / len(flagged) if flagged else 1.0,
                len(hits) / len(copies),
                "yes" if collectors <= named and not named - collectors else "%s" % sorted(named),
            ),
            flush=True,
        )
        for pair in sorted(copies - flagged, key=sorted):
            print("  missed:", " ".join(sorted(pair)))
        for p in found["pairs"]:
            if frozenset((p["a"], p["b"])) not in copies:
                print(
                    "  honest pair flagged: %s %s %.2f/%.2f by %s %s"
                    % (p["a"], p["b"], p["a_in_b"], p["b_in_a"], p["by"], p["a_functions_in_b"][:6])
                )


def time_pass(n: int, seed: int, parts: bool = False) -> None:
    """The CPU seconds of the whole pass (reading, tokenising, pairs) on ``n`` modules
    of real size, written to files first."""
    import gc
    import tempfile

    import simcorpus

    rng = random.Random(seed)
    p = simcorpus.pool()
    stub = ROOT / "exercises" / "embed.py"
    with tempfile.TemporaryDirectory() as tmp:
        modules = [("s%05d" % i, simcorpus.honest_module(p, rng)) for i in range(n)]
        size = sum(len(s) for _, s in modules) / n
        paths = write_class(modules, Path(tmp))
        start, cpu = time.perf_counter(), time.process_time()
        found = classpass.class_similarity(paths, solutions={}, stub=stub)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(
            "%8d modules of %.0f bytes on average: %.2f s CPU (%.2f s wall), %d pairs flagged"
            % (n, size, cpu, seconds, found["pairs_flagged"]),
            flush=True,
        )
        if parts:  # as a batch runs it: with its cache, written, then read by a rerun
            cache = Path(tmp) / "cache.json"
            for run in ("first run, writing the cache", "rerun, reading it"):
                cpu = time.process_time()
                classpass.class_similarity(paths, solutions={}, stub=stub, cache=cache)
                print(
                    "%8d modules, %s: %.2f s CPU" % (n, run, time.process_time() - cpu), flush=True
                )
    if parts:  # without the cycle collector, as the pass runs
        gc.disable()
        try:
            start = time.process_time()
            prints = [classpass.fingerprint(name, source) for name, source in modules]
            middle = time.process_time()
            classpass.similar_pairs(prints)
            end = time.process_time()
        finally:
            gc.enable()
        print(
            "%8d modules: tokens and fingerprints %.2f s CPU, pairs %.2f s CPU"
            % (n, middle - start, end - middle)
        )


if __name__ == "__main__":
    main()
