"""Submissions that look alike: winnowed token fingerprints, as MOSS computes them.

Advisory only: nothing here changes a score.  Each module becomes a set of
winnowed hashes of its normalised tokens (``winnowing.py``): renaming variables or
reformatting changes nothing.

Two modules are compared by how much of each one's fingerprints the other
holds.  A pair is flagged when the larger share reaches ``THRESHOLD`` and at least
``MIN_SHARED`` fingerprints are shared, so that two short, obvious solutions are
not flagged for saying the same few lines.  Fingerprints of the exercise's own
stub (the code every student starts from) are left out; when the stub's file is not
at hand (an installed grader), the fingerprints the lab ships stand in for it.

Besides the pairs, every submission is compared with the grader's oracle
(``grader/labs/embed/oracle.py``, a complete solution the student has when the grader is
installed) and with the reference solution, from its file or from its shipped
fingerprints (``grader/engine/prints.py``); a module whose
source refers to the grader's files (an import of ``grader``, a path naming
``oracle.py``) is flagged as well, since it can load the oracle at run time.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import os
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.engine import notebook, safefs
from grader.engine.lab import find
from grader.engine.prints import SHIPPED_REFERENCE, SHIPPED_STUB, shipped
from grader.engine.winnowing import K, W, normalized_tokens, refers_to_grader, winnow

THRESHOLD = 0.6
MIN_SHARED = 25
# Only the start of a larger module is compared.
MAX_BYTES = 1 << 20
# A fingerprint more than this share of the class holds (and more than this many
# modules) is not indexed; see similar_pairs.
COMMON_SHARE = 0.02
COMMON_AT_LEAST = 200
# At most this many pairs are listed; the count of all flagged pairs is kept.
MAX_PAIRS = 100

ORACLE = "grader oracle"
REFERENCE = "reference solution"


@dataclass(frozen=True)
class Fingerprint:
    """The winnowed hashes of one module."""

    name: str
    hashes: frozenset[int]
    tokens: int
    refers_to_grader: str = ""  # what in the source points at the grader, if anything


@dataclass(frozen=True)
class Match:
    """Two modules that share much of their code; ``a_in_b``: share of a found in b."""

    a: str
    b: str
    a_in_b: float
    b_in_a: float
    shared: int

    @property
    def score(self) -> float:
        return max(self.a_in_b, self.b_in_a)

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "similarity": round(self.score, 3),
            "a_in_b": round(self.a_in_b, 3),
            "b_in_a": round(self.b_in_a, 3),
            "shared": self.shared,
        }


def fingerprint(name: str, source: str, base: frozenset[int] = frozenset()) -> Fingerprint:
    tokens = normalized_tokens(source)
    return Fingerprint(name, winnow(tokens) - base, len(tokens), refers_to_grader(source))


def compare(a: Fingerprint, b: Fingerprint) -> Match:
    shared = len(a.hashes & b.hashes)
    return Match(
        a.name,
        b.name,
        shared / len(a.hashes) if a.hashes else 0.0,
        shared / len(b.hashes) if b.hashes else 0.0,
        shared,
    )


def flagged(m: Match, threshold: float = THRESHOLD, min_shared: int = MIN_SHARED) -> bool:
    return m.score >= threshold and m.shared >= min_shared


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
    two are identical (many students handing in one module are all flagged).
    """
    limit = common_limit(len(prints))
    held = Counter(itertools.chain.from_iterable(p.hashes for p in prints))
    # A fingerprint only one module holds pairs it with no one.
    rare = {h for h, n in held.items() if 1 < n <= limit}
    bit = {h: b for b, h in enumerate(h for h, n in held.items() if n > limit)}
    index: dict[int, list[int]] = {}
    own_rare = []
    for i, p in enumerate(prints):
        mine = p.hashes & rare
        own_rare.append(mine)
        for h in mine:
            index.setdefault(h, []).append(i)
    common = [_mask(p.hashes & bit.keys(), bit) for p in prints]
    sizes = [len(p.hashes) for p in prints]
    counts = [c.bit_count() for c in common]
    # The smaller module of a flagged pair holds at least ``threshold`` of its own
    # fingerprints in the other; at most ``counts`` of them are common ones.
    least = [threshold * size - 1 for size in sizes]  # less one, for rounding
    identical = _identical(prints, min_shared)
    same: list[list[int] | None] = [None] * len(prints)
    for group in identical:
        for i in group:
            same[i] = group
    found: list[Match] = []
    for i, mine in enumerate(own_rare):
        later: list[int] = []
        for h in mine:
            holders = index[h]
            if holders[-1] > i:
                later.extend(holders[bisect.bisect_right(holders, i) :])
        size, need, own, mine_too = sizes[i], least[i], counts[i], same[i]
        for j, n in Counter(later).items():
            if mine_too and same[j] is mine_too:
                continue  # an identical module: below
            if n + (own if own < counts[j] else counts[j]) < (
                need if size <= sizes[j] else least[j]
            ):
                continue
            n += (common[i] & common[j]).bit_count()
            if n >= min_shared and max(n / sizes[i], n / sizes[j]) >= threshold:  # flagged()
                found.append(Match(prints[i].name, prints[j].name, n / sizes[i], n / sizes[j], n))
    for group in identical:
        for i, j in itertools.combinations(group, 2):
            n = sizes[i]
            found.append(Match(prints[i].name, prints[j].name, 1.0, 1.0, n))
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
    class holding one says nothing about any two of them."""
    return max(COMMON_AT_LEAST, int(COMMON_SHARE * modules))


def _mask(hashes: Iterable[int], bit: dict[int, int]) -> int:
    mask = 0
    for h in hashes:
        mask |= 1 << bit[h]
    return mask


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _read_submission(path: Path) -> str | None:
    """A student's module: a regular file only (never a link or a pipe), its first MiB;
    a notebook's graded cells."""
    if notebook.is_notebook(path):
        try:
            return notebook.load(path, path.parent).source[:MAX_BYTES]
        except (OSError, ValueError):
            return None
    try:
        return safefs.read_regular(str(path), MAX_BYTES).data.decode("utf-8", "replace")
    except OSError:
        return None


def known_solutions(lab: str | None = None) -> dict[str, Path]:
    """The complete solutions at hand: the lab's oracle always, its reference solution
    when it is there."""
    chosen = find(lab)
    found = {ORACLE: chosen.solutions[0]} if chosen.solutions else {}
    if chosen.reference is not None and chosen.reference.is_file():
        found[REFERENCE] = chosen.reference
    return found


def stub_path(lab: str | None = None) -> Path | None:
    """The lab's student stub, when it is at hand (its text is no one's own work)."""
    stub = find(lab).stub
    return stub if stub is not None and stub.is_file() else None


def _stub_prints(stub: Path | None, lab: str | None) -> frozenset[int]:
    """The stub's fingerprints: from its file, else from those the lab ships."""
    stub = stub if stub is not None else stub_path(lab)
    source = _read(stub) if stub is not None else None
    if source is not None:
        return winnow(normalized_tokens(source))
    return shipped(find(lab)).get(SHIPPED_STUB, frozenset()) if stub is None else frozenset()


def _solution_prints(
    solutions: dict[str, Path] | None, base: frozenset[int], lab: str | None
) -> list[Fingerprint]:
    """The known solutions' fingerprints; without ``solutions``, the lab's, with the
    reference's shipped fingerprints when its file is not at hand."""
    found = []
    for label, path in (known_solutions(lab) if solutions is None else solutions).items():
        source = _read(path)
        if source is not None:
            found.append(fingerprint(label, source, base))
    if solutions is None and not any(f.name == REFERENCE for f in found):
        reference = shipped(find(lab)).get(SHIPPED_REFERENCE)
        if reference:
            found.append(Fingerprint(REFERENCE, reference - base, 0))
    return found


def class_similarity(
    modules: Iterable[tuple[str, Path]],
    solutions: dict[str, Path] | None = None,
    stub: Path | None = None,
    cache: Path | None = None,
    lab: str | None = None,
) -> dict[str, Any]:
    """The advisory part of ``summary.json``: flagged pairs and closeness to known solutions.

    ``solutions`` defaults to :func:`known_solutions` and ``stub`` to the exercise's
    stub when it is at hand.  ``cache`` is a file that keeps each module's fingerprints
    by the hash of its source, so that a rerun reads only what changed.
    """
    base = _stub_prints(stub, lab)
    known = _Cache(cache)
    prints = []
    for name, path in modules:
        source = _read_submission(path)
        if source is not None:
            prints.append(known.fingerprint(name, source, base))
    known.save()
    pairs = similar_pairs(prints)
    close: list[dict[str, Any]] = []
    for solution in _solution_prints(solutions, base, lab):
        for p in prints:
            m = compare(p, solution)
            # How much of the submission is found in the solution is what counts here.
            if m.a_in_b >= THRESHOLD and m.shared >= MIN_SHARED:
                close.append(
                    {
                        "id": p.name,
                        "solution": solution.name,
                        "similarity": round(m.a_in_b, 3),
                        "why": "",
                    }
                )
    for p in prints:
        if p.refers_to_grader:
            close.append(
                {"id": p.name, "solution": ORACLE, "similarity": None, "why": p.refers_to_grader}
            )
    close.sort(key=lambda c: (c["id"], c["solution"]))
    return {
        "method": "winnowed token fingerprints, k=%d, window %d" % (K, W),
        "threshold": THRESHOLD,
        "min_shared": MIN_SHARED,
        "compared": len(prints),
        "pairs_flagged": len(pairs),
        "pairs": [m.to_dict() for m in pairs[:MAX_PAIRS]],
        "close_to_solutions": close,
    }


class _Cache:
    """Fingerprints by the hash of a module's source, in a JSON file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.version = "%d:%d:%d.%d" % (K, W, *sys.version_info[:2])
        self.old: dict[str, Any] = {}
        self.new: dict[str, Any] = {}
        if path is None:
            return
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") == self.version and isinstance(data.get("entries"), dict):
                self.old = data["entries"]
        except (OSError, ValueError, AttributeError):
            pass

    def fingerprint(self, name: str, source: str, base: frozenset[int]) -> Fingerprint:
        key = hashlib.sha256(source.encode("utf-8", "replace")).hexdigest()
        entry = self.old.get(key) or self.new.get(key)
        try:
            if isinstance(entry, dict):
                found = Fingerprint(
                    name,
                    frozenset(int(h) for h in entry["hashes"]) - base,
                    int(entry["tokens"]),
                    str(entry["refers"]),
                )
                self.new[key] = entry
                return found
        except (KeyError, TypeError, ValueError):
            pass
        tokens = normalized_tokens(source)
        hashes = winnow(tokens)
        refers = refers_to_grader(source)
        self.new[key] = {"hashes": sorted(hashes), "tokens": len(tokens), "refers": refers}
        return Fingerprint(name, hashes - base, len(tokens), refers)

    def save(self) -> None:
        if self.path is None or self.new.keys() == self.old.keys():
            return
        data = {"version": self.version, "entries": self.new}
        tmp = self.path.with_name(".%s.tmp" % self.path.name)
        try:
            tmp.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError:
            pass  # only a rerun is slower
