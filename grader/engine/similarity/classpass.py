"""Submissions that look alike: winnowed token fingerprints, as MOSS computes them.

Advisory only: nothing here changes a score.  Each module becomes a set of
winnowed hashes of its normalised tokens (``tokens.py``, read sooner by
``scanning.py``, and ``winnowing.py``):
renaming variables, methods or attributes, reformatting or slipping in statements
that do nothing changes nothing.  Pairs are flagged on their shares, or on the
functions one takes from the other (``shares.py``); fingerprints of the exercise's
own stub (the code every student starts from) are left out; when the stub's file is
not at hand (an installed grader), the fingerprints the lab ships stand in for it.

Besides the pairs, every submission is compared with the grader's oracle
(``grader/labs/embed/oracle.py``, a complete solution the student has when the grader is
installed) and with the reference solution, from its file or from its shipped
fingerprints (``grader/engine/similarity/shipped.py``); a module whose
source refers to the grader's files (an import of ``grader``, a path naming
``oracle.py``) is flagged as well, since it can load the oracle at run time.

A submission that cannot be read or fingerprinted is listed (``unread``) and the pass
goes on with the others.  ``write_similarity`` writes every flagged pair to
``similarity.json`` and a side-by-side page for each (``pairpage.py``).
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from grader.engine import safefs
from grader.engine.handin import notebook
from grader.engine.lab import find
from grader.engine.similarity.scanning import scan_rows
from grader.engine.similarity.shares import (
    COMMON_AT_LEAST,
    FUNCTION_MIN,
    FUNCTION_SHARE,
    MIN_FUNCTIONS,
    MIN_SHARED,
    THRESHOLD,
    Fingerprint,
    Match,
    collectors,
    common_limit,
    compare,
    flagged,
    similar_pairs,
)
from grader.engine.similarity.shipped import SHIPPED_REFERENCE, SHIPPED_STUB, shipped
from grader.engine.similarity.tokens import normalize
from grader.engine.similarity.winnowing import (
    LAID,
    METHOD,
    K,
    W,
    normalized_tokens,
    refers_to_grader,
    units_of_rows,
    winnow,
    winnow_units,
)

__all__ = [
    "COMMON_AT_LEAST",
    "Fingerprint",
    "Match",
    "common_limit",
    "compare",
    "flagged",
    "normalized_tokens",
    "refers_to_grader",
    "similar_pairs",
    "winnow",
]

# Only the start of a larger module is compared.
MAX_BYTES = 1 << 20
# At most this many pairs are listed in ``summary.json``; ``similarity.json`` lists all.
MAX_PAIRS = 100
PAIRS_FILE = "similarity.json"
# At most this many submissions that could not be read are named.
MAX_UNREAD = 1000

ORACLE = "grader oracle"
REFERENCE = "reference solution"


def module_prints(
    source: str,
) -> tuple[frozenset[int], tuple[tuple[str, frozenset[int]], ...], int, str]:
    """A module's fingerprints, those of each function, how many normalised tokens it
    has and what in it points at the grader's files: from ``scanning`` (the tokens of
    ``normalize``, sooner), else from ``normalize``."""
    found = scan_rows(source) if LAID else None
    if found is None:
        tokens = normalize(source)
        hashes, units = winnow_units(tokens)
        return hashes, units, len(tokens.tokens), tokens.refers
    laid, count, starts, _, refers = found
    hashes, units = units_of_rows(laid, starts)
    return hashes, units, count, refers


def fingerprint(name: str, source: str, base: frozenset[int] = frozenset()) -> Fingerprint:
    hashes, units, tokens, refers = module_prints(source)
    return Fingerprint(name, hashes - base, tokens, refers, tuple((n, u - base) for n, u in units))


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
    out: Path | None = None,
    lang: str = "en",
) -> dict[str, Any]:
    """The advisory part of ``summary.json``: every flagged pair (``pairs``, most alike
    first), the collectors, closeness to known solutions and what could not be read.

    ``solutions`` defaults to :func:`known_solutions` and ``stub`` to the exercise's
    stub when it is at hand.  ``cache`` is a file that keeps each module's fingerprints
    by the hash of its source, so that a rerun reads only what changed.  With ``out``
    (a batch's output folder), every pair is written to ``similarity.json`` there with
    its side-by-side page, and only the first ``MAX_PAIRS`` are returned.
    """
    # Hundreds of thousands of sets and tuples that hold no cycle: the collector's
    # passes over them would only cost time (a fifth of the pass for 10,000 modules).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _pass(list(modules), solutions, stub, cache, lab, out, lang)
    finally:
        if collecting:
            gc.enable()


def _pass(
    modules: list[tuple[str, Path]],
    solutions: dict[str, Path] | None,
    stub: Path | None,
    cache: Path | None,
    lab: str | None,
    out: Path | None,
    lang: str,
) -> dict[str, Any]:
    base = _stub_prints(stub, lab)
    known = _Cache(cache)
    prints = []
    unread: list[dict[str, str]] = []
    for name, path in modules:
        try:
            source = _read_submission(path)
            if source is None:
                unread.append({"id": name, "why": "not a regular file that can be read"})
                continue
            prints.append(known.fingerprint(name, source, base))
        except Exception as exc:  # one submission never stops the pass
            unread.append({"id": name, "why": "%s: %s" % (type(exc).__name__, str(exc)[:200])})
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
    found = {
        "method": "winnowed token fingerprints, k=%d, window %d" % (K, W),
        "threshold": THRESHOLD,
        "min_shared": MIN_SHARED,
        "function_rule": {
            "functions": MIN_FUNCTIONS,
            "share": FUNCTION_SHARE,
            "fingerprints_each": FUNCTION_MIN,
        },
        "compared": len(prints),
        "pairs_flagged": len(pairs),
        "pairs": [m.to_dict() for m in pairs],
        "partners": partners(pairs),
        "collectors": [c.to_dict() for c in collectors(prints, pairs)],
        "close_to_solutions": close,
        "unread": unread[:MAX_UNREAD],
        "unread_count": len(unread),
    }
    return found if out is None else _written(out, found, dict(modules), lang)


def partners(pairs: Sequence[Any], shown: int = 3) -> dict[str, dict[str, Any]]:
    """For every module flagged with others: how many, and the first ``shown`` of them
    (most alike first), over every pair, not only those the summary lists."""
    found: dict[str, dict[str, Any]] = {}
    for m in pairs:
        for one, other in ((m.a, m.b), (m.b, m.a)):
            entry = found.setdefault(one, {"n": 0, "some": []})
            entry["n"] += 1
            if len(entry["some"]) < shown:
                entry["some"].append(other)
    return found


def _written(out: Path, found: dict[str, Any], paths: dict[str, Path], lang: str) -> dict[str, Any]:
    """Write ``similarity.json`` (every pair, with its page) and the pairs' pages into
    ``out``; returns the part of ``summary.json``, which lists the first ``MAX_PAIRS``."""
    from grader.engine.similarity.pairpage import write_pair_pages

    pages = write_pair_pages(out, found["pairs"], paths, _read_submission, _write, lang)
    for pair, page in zip(found["pairs"], pages):
        pair["page"] = page
    _write(out / PAIRS_FILE, json.dumps(found, indent=1, ensure_ascii=False) + "\n")
    summary = dict(found)
    summary["pairs"] = found["pairs"][:MAX_PAIRS]
    summary["pairs_file"] = PAIRS_FILE
    return summary


def _write(path: Path, data: str) -> None:
    """Write atomically, so an interrupted batch never leaves half a file."""
    tmp = path.with_name(".%s.tmp" % path.name)
    tmp.write_text(data, encoding="utf-8", errors="backslashreplace")
    os.replace(tmp, path)


class _Cache:
    """Fingerprints by the hash of a module's source, in a JSON file."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.version = "%s:%d.%d" % (METHOD, *sys.version_info[:2])
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
        if self.path is None:  # nothing to read and nothing kept
            return fingerprint(name, source, base)
        key = hashlib.sha256(source.encode("utf-8", "replace")).hexdigest()
        entry = self.old.get(key) or self.new.get(key)
        try:
            if isinstance(entry, dict):
                found = Fingerprint(
                    name,
                    frozenset(int(h) for h in entry["hashes"]) - base,
                    int(entry["tokens"]),
                    str(entry["refers"]),
                    tuple((str(n), frozenset(int(h) for h in u) - base) for n, u in entry["units"]),
                )
                self.new[key] = entry
                return found
        except (KeyError, TypeError, ValueError):
            pass
        hashes, units, tokens, refers = module_prints(source)
        self.new[key] = {
            "hashes": sorted(hashes),
            "tokens": tokens,
            "refers": refers,
            "units": [[n, sorted(u)] for n, u in units],
        }
        return Fingerprint(
            name, hashes - base, tokens, refers, tuple((n, u - base) for n, u in units)
        )

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
