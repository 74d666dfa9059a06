"""Submissions that look alike: winnowed token fingerprints, as MOSS computes them.

Advisory only: nothing here changes a score.  Each module is cut into Python
tokens with comments, docstrings and layout dropped and every name the student
chose replaced by one placeholder (keywords, builtins and attribute names
stay), so renaming variables or reformatting changes nothing.  Every run of
``K`` tokens is hashed, and of each window of ``W`` consecutive hashes the
smallest is kept (winnowing): a shared stretch of ``K + W - 1`` tokens or more
always leaves a shared fingerprint.

Two modules are compared by how much of each one's fingerprints the other
holds.  A pair is flagged when the larger share reaches ``THRESHOLD`` and at least
``MIN_SHARED`` fingerprints are shared, so that two short, obvious solutions are
not flagged for saying the same few lines.  Fingerprints of the exercise's own
stub (the code every student starts from) are left out when it is at hand.

Besides the pairs, every submission is compared with the grader's oracle
(``grader/labs/embed/oracle.py``, a complete solution the student has when the grader is
installed) and with the reference solution when it is available; a module whose
source refers to the grader's files (an import of ``grader``, a path naming
``oracle.py``) is flagged as well, since it can load the oracle at run time.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import io
import json
import keyword
import os
import sys
import tokenize
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.engine import safefs
from grader.engine.lab import find

K = 12
W = 8
THRESHOLD = 0.6
MIN_SHARED = 25
# Only the start of a larger module is compared.
MAX_BYTES = 1 << 20
# At most this many pairs are listed; the count of all flagged pairs is kept.
MAX_PAIRS = 100

ORACLE = "grader oracle"
REFERENCE = "reference solution"

_KEEP_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)
_SKIP = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
    tokenize.TYPE_COMMENT,
}
# Parts of a string that point at the grader's own files or modules.
_GRADER_WORDS = ("grader/", "grader\\", "grader.", "oracle.py", "site-packages", "dist-packages")


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


def normalized_tokens(source: str) -> list[str]:
    """The module's tokens with names, strings and layout normalised; [] if it cannot be read."""
    out: list[str] = []
    after_dot = False
    # A string that starts a logical line is a docstring or a bare expression.
    line_start = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, value = tok.type, tok.string
            if kind in _SKIP:
                continue
            if kind == tokenize.NEWLINE:
                out.append(";")
                line_start, after_dot = True, False
                continue
            if kind in (tokenize.INDENT, tokenize.DEDENT):
                out.append(">" if kind == tokenize.INDENT else "<")
                continue
            if kind == tokenize.STRING or tokenize.tok_name[kind].startswith("FSTRING"):
                if not line_start:
                    out.append("S")
                after_dot = False
                continue
            if kind == tokenize.NAME:
                out.append(value if after_dot or value in _KEEP_NAMES else "V")
            elif kind == tokenize.NUMBER:
                out.append(value)
            else:
                out.append(value)
            after_dot = value == "."
            line_start = False
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return out
    # Collapse the empty lines a dropped docstring leaves behind; drop trailing commas.
    collapsed: list[str] = []
    for t in out:
        if t == ";" and collapsed and collapsed[-1] in (";", ">"):
            continue
        if t in (")", "]", "}") and collapsed and collapsed[-1] == ",":
            collapsed.pop()
        collapsed.append(t)
    return collapsed


_TOKEN_IDS: dict[str, int] = {}


def winnow(tokens: Sequence[str], k: int = K, w: int = W) -> frozenset[int]:
    """The smallest hash of each window of ``w`` consecutive k-gram hashes.

    Tokens become stable numbers first: the hash of a tuple of ints is the same in
    every process of one Python version (unlike the hash of a string).
    """
    if len(tokens) < k:
        return frozenset()
    ids = _TOKEN_IDS
    codes = [ids.get(t) or ids.setdefault(t, zlib.crc32(t.encode()) | 1) for t in tokens]
    grams = [hash(tuple(codes[i : i + k])) for i in range(len(codes) - k + 1)]
    if len(grams) <= w:
        return frozenset({min(grams)})
    return frozenset(min(grams[i : i + w]) for i in range(len(grams) - w + 1))


def refers_to_grader(source: str) -> str:
    """What in the source points at the grader's files ("" when nothing does)."""
    low = source.lower()
    if "grader" not in low and "oracle" not in low and "-packages" not in low:
        return ""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ""
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for n in names:
            if n.split(".")[0] == "grader":
                return "import %s" % n
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            low = node.value.lower()
            if len(low) < 300 and any(word in low for word in _GRADER_WORDS):
                return repr(node.value)
    return ""


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

    Each module's fingerprints become the bits of one integer, so the shared ones of a
    pair are counted with one ``&``: a class of 200 takes a few milliseconds even when
    most of it is one copied module.
    """
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
            if n < min_shared:
                continue
            m = Match(
                prints[i].name,
                prints[j].name,
                n / len(prints[i].hashes),
                n / len(prints[j].hashes),
                n,
            )
            if flagged(m, threshold, min_shared):
                found.append(m)
    found.sort(key=lambda m: (-m.score, -m.shared, m.a, m.b))
    return found


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _read_submission(path: Path) -> str | None:
    """A student's module: a regular file only (never a link or a pipe), its first MiB."""
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
    stub = stub if stub is not None else stub_path(lab)
    stub_source = _read(stub) if stub is not None else None
    base = winnow(normalized_tokens(stub_source)) if stub_source else frozenset()
    known = _Cache(cache)
    prints = []
    for name, path in modules:
        source = _read_submission(path)
        if source is not None:
            prints.append(known.fingerprint(name, source, base))
    known.save()
    pairs = similar_pairs(prints)
    close: list[dict[str, Any]] = []
    for label, path in (known_solutions(lab) if solutions is None else solutions).items():
        source = _read(path)
        if source is None:
            continue
        solution = fingerprint(label, source, base)
        for p in prints:
            m = compare(p, solution)
            # How much of the submission is found in the solution is what counts here.
            if m.a_in_b >= THRESHOLD and m.shared >= MIN_SHARED:
                close.append(
                    {"id": p.name, "solution": label, "similarity": round(m.a_in_b, 3), "why": ""}
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
