"""Which modules of a class share much of their code, which way, and in which functions.

Two modules are compared by how much of each one's fingerprints the other holds
(``a_in_b``: the share of a's fingerprints found in b, "b holds 95% of a").  A pair is
flagged when

- **module**: the larger share reaches ``THRESHOLD`` with at least ``MIN_SHARED``
  fingerprints shared, or
- **functions**: at least ``MIN_FUNCTIONS`` functions of one (each of at least
  ``FUNCTION_MIN`` fingerprints) are found in the other, each to ``FUNCTION_SHARE`` or
  more, holding at least ``FUNCTION_TOTAL`` fingerprints between them, through
  fingerprints few modules of the class hold; a partial copy is then named by its
  functions.

A module flagged with several classmates who are not flagged with each other, and
holding more of their code together than any one of them holds of it, is a
*collector*: the module to read first, its partners likely its sources.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from typing import Any

from grader.engine.frozen import frozen

THRESHOLD = 0.6
MIN_SHARED = 25
FUNCTION_MIN = 8
FUNCTION_SHARE = 0.8
MIN_FUNCTIONS = 3
FUNCTION_TOTAL = 80
# A fingerprint more than this share of the class holds (and more than this many
# modules) finds no pair; see similar_pairs.
COMMON_SHARE = 0.005
COMMON_AT_LEAST = 200
COMMON_IN_BIG = 50
# A copy of some functions is looked for through fingerprints held by at most this
# many modules (or this share of the class).
FEW_AT_LEAST = 5
FEW_SHARE = 0.002
# At most this many names of functions are kept for one side of one pair, each of at
# most this many characters.
MAX_FUNCTION_NAMES = 50
MAX_NAME = 100
# A collector holds this much more of its own code in its partners together than in
# any one of them.
COLLECTOR_GAIN = 0.15


@frozen
class Fingerprint:
    """The winnowed hashes of one module, and of each of its functions."""

    name: str
    hashes: frozenset[int]
    tokens: int
    refers_to_grader: str = ""  # what in the source points at the grader, if anything
    units: tuple[tuple[str, frozenset[int]], ...] = ()


@frozen
class Match:
    """Two modules that share much of their code; ``a_in_b``: share of a found in b;
    ``functions_a``: the functions of a found in b."""

    a: str
    b: str
    a_in_b: float
    b_in_a: float
    shared: int
    functions_a: tuple[str, ...] = ()
    functions_b: tuple[str, ...] = ()
    in_functions: int = 0  # the fingerprints of the larger side's functions found

    @property
    def score(self) -> float:
        return max(self.a_in_b, self.b_in_a)

    @property
    def by(self) -> str:
        """ "module" when the shares flag it, "functions" when only its functions do."""
        return "module" if self.score >= THRESHOLD else "functions"

    @property
    def holder(self) -> str:
        """The module that holds more of the other's code than the other holds of it
        ("" when the two are about even)."""
        if self.b_in_a > self.a_in_b + 0.1:
            return self.a
        if self.a_in_b > self.b_in_a + 0.1:
            return self.b
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "similarity": round(self.score, 3),
            "a_in_b": round(self.a_in_b, 3),
            "b_in_a": round(self.b_in_a, 3),
            "shared": self.shared,
            "by": self.by,
            "holder": self.holder,
            "a_functions_in_b": [n[:MAX_NAME] for n in self.functions_a[:MAX_FUNCTION_NAMES]],
            "b_functions_in_a": [n[:MAX_NAME] for n in self.functions_b[:MAX_FUNCTION_NAMES]],
        }


def found_functions(a: Fingerprint, b_hashes: frozenset[int]) -> tuple[tuple[str, ...], int]:
    """The functions of ``a`` (big enough to tell) that ``b`` holds nearly whole, and
    how many fingerprints they hold."""
    out = []
    total = 0
    for name, hashes in a.units:
        if name and len(hashes) >= FUNCTION_MIN:
            if len(hashes & b_hashes) >= FUNCTION_SHARE * len(hashes):
                out.append(name)
                total += len(hashes)
    return tuple(out), total


def compare(a: Fingerprint, b: Fingerprint) -> Match:
    shared = len(a.hashes & b.hashes)
    return _match(a, b, shared)


def _match(a: Fingerprint, b: Fingerprint, shared: int) -> Match:
    in_b, size_a = found_functions(a, b.hashes)
    in_a, size_b = found_functions(b, a.hashes)
    return Match(
        a.name,
        b.name,
        shared / len(a.hashes) if a.hashes else 0.0,
        shared / len(b.hashes) if b.hashes else 0.0,
        shared,
        in_b,
        in_a,
        max(
            size_a if len(in_b) >= MIN_FUNCTIONS else 0, size_b if len(in_a) >= MIN_FUNCTIONS else 0
        ),
    )


def flagged(m: Match, threshold: float = THRESHOLD, min_shared: int = MIN_SHARED) -> bool:
    if m.shared < min_shared:
        return False
    return m.score >= threshold or m.in_functions >= FUNCTION_TOTAL


def similar_pairs(
    prints: Sequence[Fingerprint],
    threshold: float = THRESHOLD,
    min_shared: int = MIN_SHARED,
) -> list[Match]:
    """Every flagged pair, most alike first.

    Pairs are found through an index from each fingerprint to the modules that hold
    it, as MOSS does, so only pairs that share something are counted.  A fingerprint
    held by more than ``common_limit`` modules (the obvious lines a large share of a
    big class writes) finds no pair: listing its holders' pairs would cost the square
    of the class, and sharing it says nothing.  It still counts, like every other, in
    the share of a pair found through a rarer one; so the flags of a class of up to
    ``COMMON_AT_LEAST`` modules are those of comparing every pair, and a bigger class
    loses only pairs that share nothing but what much of the class holds, unless the
    two are identical (many students handing in one module are all flagged).  Pairs
    that may share whole functions are found through the fingerprints few modules
    hold (``few_limit``): two modules that each took a function from a third share them.
    """
    limit = common_limit(len(prints))
    few = few_limit(len(prints))
    held = Counter(itertools.chain.from_iterable(p.hashes for p in prints))
    # A fingerprint only one module holds pairs it with no one.
    rare = {h for h, n in held.items() if 1 < n <= limit}
    everywhere = [h for h, n in held.items() if n > limit]
    index: dict[int, list[int]] = {h: [] for h in rare}
    repeat = itertools.repeat
    for i, p in enumerate(prints):
        any(map(list.append, map(index.__getitem__, p.hashes & rare), repeat(i)))  # index[h] += [i]
    # For each module, the modules after it that share a rare fingerprint with it,
    # once for each (``later``), and those that share one few modules hold.
    later: list[list[int]] = [[] for _ in prints]
    later_few: list[list[int]] = [[] for _ in prints]
    for holders in index.values():
        into = (later, later_few) if len(holders) <= few else (later,)
        for k in range(len(holders) - 1):
            after = holders[k + 1 :]
            for lists in into:
                lists[holders[k]] += after
    # A pair shares at most as many of the fingerprints much of the class holds as
    # the fewer of the two hold, less those only one of them holds: at least the bits
    # of its sketch the other's sketch lacks (each fingerprint, one bit of 2,048).
    counts, sketches = _sketches(prints, everywhere)
    lacking = [_SKETCH_FULL ^ c for c in sketches]
    sizes = [len(p.hashes) for p in prints]
    # The fewest fingerprints a pair shares to be flagged on its shares, by the size
    # of the smaller module (and never fewer than ``min_shared``).
    need = [min_shared] * (max(sizes, default=0) + 1)
    for size in range(1, len(need)):
        t = max(min_shared, int(threshold * size) - 1)
        while t / size < threshold:
            t += 1
        need[size] = t
    needs = [need[size] for size in sizes]
    # A pair flagged on its functions shares this many fingerprints few modules hold.
    least_few = min_shared * FUNCTION_SHARE / 2
    has_units = [sum(1 for n, u in p.units if n and len(u) >= FUNCTION_MIN) for p in prints]
    identical = _identical(prints, min_shared)
    same: list[list[int] | None] = [None] * len(prints)
    for group in identical:
        for i in group:
            same[i] = group
    found: list[Match] = []
    for i, mine_later in enumerate(later):
        if not mine_later:
            continue
        units_too = has_units[i] >= MIN_FUNCTIONS
        by_few = {
            j
            for j, c in Counter(later_few[i]).items()
            if c >= least_few and (units_too or has_units[j] >= MIN_FUNCTIONS)
        }
        shares = Counter(mine_later)
        others = list(shares)
        rares = list(shares.values())
        size, mine_sketch = sizes[i], sketches[i]
        # A pair shares at most the rare ones it shares and this module's common ones
        # but those the other surely lacks: it is looked at when lacks + least <=
        # counts + rares, least being ``need`` of the smaller module (``need`` grows
        # with the size).
        fewest = need[size]
        lacks = map(int.bit_count, map(mine_sketch.__and__, map(lacking.__getitem__, others)))
        least = map(min, itertools.repeat(fewest), map(needs.__getitem__, others))
        room = map(counts[i].__add__, rares)
        hits = itertools.compress(others, map(int.__le__, map(int.__add__, lacks, least), room))
        mine_too = same[i]
        for j in sorted(set(hits) | by_few):
            if mine_too and same[j] is mine_too:
                continue  # an identical module: below
            n = len(prints[i].hashes & prints[j].hashes)
            if n >= min(fewest, needs[j]) or (j in by_few and n >= min_shared):
                m = _match(prints[i], prints[j], n)
                if flagged(m, threshold, min_shared):
                    found.append(m)
    for group in identical:
        for i, j in itertools.combinations(group, 2):
            a, b = prints[i], prints[j]
            found.append(_match(a, b, sizes[i]))
    found.sort(key=lambda m: (-m.score, -m.shared, m.a, m.b))
    return found


def _identical(prints: Sequence[Fingerprint], min_shared: int) -> list[list[int]]:
    """Groups of modules with the same fingerprints (enough of them to be flagged):
    however many hand in one module, each pair of them is flagged."""
    groups: dict[frozenset[int], list[int]] = {}
    for i, p in enumerate(prints):
        if len(p.hashes) >= min_shared:
            groups.setdefault(p.hashes, []).append(i)
    return [g for g in groups.values() if len(g) > 1]


def common_limit(modules: int) -> int:
    """How many modules may hold a fingerprint that is indexed: a large share of the
    class holding one says nothing about any two of them.  Up to ``COMMON_AT_LEAST``
    modules, all of them (every pair is compared)."""
    if modules <= COMMON_AT_LEAST:
        return COMMON_AT_LEAST
    return max(COMMON_IN_BIG, int(COMMON_SHARE * modules))


def few_limit(modules: int) -> int:
    """How many modules may hold a fingerprint through which a copy of some functions
    is looked for."""
    return max(FEW_AT_LEAST, int(FEW_SHARE * modules))


_SKETCH = 2048
_SKETCH_FULL = (1 << _SKETCH) - 1
_ONE = itertools.repeat(ord("1"))


def _sketches(
    prints: Sequence[Fingerprint], everywhere: Sequence[int]
) -> tuple[list[int], list[int]]:
    """How many of ``everywhere`` each module holds, and those as ``_SKETCH`` bits, a
    fingerprint's bit its low bits: a bit that is set in one sketch and not in another
    stands for a fingerprint only the first holds."""
    top = _SKETCH - 1
    # The first digit is the highest bit; one more digit, the lowest, for the
    # fingerprints that are not in ``everywhere``.
    digit = {h: top - (h & top) for h in everywhere}
    zeros = b"0" * (_SKETCH + 1)
    nones = itertools.repeat(_SKETCH)
    counts, out = [], []
    for p in prints:
        digits = bytearray(zeros)
        found = list(map(digit.get, p.hashes, nones))
        counts.append(len(found) - found.count(_SKETCH))
        any(map(digits.__setitem__, found, _ONE))
        out.append(int(digits, 2) >> 1)
    return counts, out


@frozen
class Collector:
    """A module flagged with several classmates who are not flagged with each other,
    that holds more of its code in them together than in any one: read it first."""

    name: str
    sources: tuple[str, ...]
    own_in_sources: float  # share of its fingerprints found in the sources together
    best_single: float  # the most any one source holds of it

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.name,
            "holds_code_of": list(self.sources[:MAX_FUNCTION_NAMES]),
            "share_in_them": round(self.own_in_sources, 3),
            "most_in_one": round(self.best_single, 3),
        }


def collectors(prints: Sequence[Fingerprint], pairs: Sequence[Match]) -> list[Collector]:
    """The modules of ``pairs`` that hold several classmates' code (see ``Collector``)."""
    by_name = {p.name: p for p in prints}
    partners: dict[str, list[str]] = {}
    linked: set[tuple[str, str]] = set()
    for m in pairs:
        partners.setdefault(m.a, []).append(m.b)
        partners.setdefault(m.b, []).append(m.a)
        linked.add((m.a, m.b))
        linked.add((m.b, m.a))
    out = []
    for name, others in sorted(partners.items()):
        if len(others) < 2 or name not in by_name:
            continue
        mine = by_name[name].hashes
        if not mine:
            continue
        # The partners that hold code of this module and not each other's.
        apart = [o for o in others if not any((o, x) in linked for x in others if x != o)]
        if len(apart) < 2:
            continue
        together: set[int] = set()
        best = 0.0
        for o in apart:
            common = mine & by_name[o].hashes
            together |= common
            best = max(best, len(common) / len(mine))
        share = len(together) / len(mine)
        # Each holds another part of it (copies of one module overlap instead).
        apart_parts = sum(len(mine & by_name[o].hashes) for o in apart) <= 1.25 * len(together)
        if share >= best + COLLECTOR_GAIN and apart_parts:
            out.append(Collector(name, tuple(sorted(apart)), share, best))
    return out
