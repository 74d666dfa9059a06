"""Normalised tokens to fingerprints: winnowed k-gram hashes, per module and per function.

The tokens come from ``simtokens.py`` (names the student chose become one placeholder,
comments, docstrings, layout and statements that do nothing are dropped).  Every run of
``K`` tokens is hashed, and of each window of ``W`` consecutive hashes the smallest is
kept (winnowing): a shared stretch of ``K + W - 1`` tokens or more always leaves a
shared fingerprint.  A fingerprint also belongs to the function its run starts in, so
that the functions one module takes from another can be named.  Used by
``similar.py`` and ``prints.py``.
"""

from __future__ import annotations

import zlib
from array import array
from collections.abc import Sequence

from grader.engine.simtokens import Tokens, normalize

K = 12
W = 8
# Changes whenever the tokens or the hashes change: cached and shipped fingerprints of
# another method are not used.
METHOD = "k=%d w=%d t=3" % (K, W)
_TOKEN_IDS: dict[str, int] = {}


def normalized_tokens(source: str) -> list[str]:
    """The module's normalised tokens (see ``simtokens.normalize``)."""
    return list(normalize(source).tokens)


def grams(tokens: Sequence[str], k: int = K) -> list[int]:
    """The hash of every run of ``k`` tokens, in order (CRC-32: the same in every
    process and on every interpreter)."""
    if len(tokens) < k:
        return []
    ids = _TOKEN_IDS
    if len(ids) > 200_000:  # numbers and attribute names: a class never needs so many
        ids.clear()
    codes = array(
        "I", [ids.get(t) or ids.setdefault(t, zlib.crc32(t.encode()) | 1) for t in tokens]
    )
    packed = codes.tobytes()
    size = codes.itemsize
    crc = zlib.crc32
    return [crc(packed[i : i + size * k]) for i in range(0, size * (len(tokens) - k + 1), size)]


def _winnowed(hashes: list[int], w: int) -> frozenset[int]:
    if not hashes:
        return frozenset()
    if len(hashes) <= w:
        return frozenset({min(hashes)})
    return frozenset(map(min, zip(*[hashes[j:] for j in range(w)])))


def winnow(tokens: Sequence[str], k: int = K, w: int = W) -> frozenset[int]:
    """The smallest hash of each window of ``w`` consecutive k-gram hashes."""
    return _winnowed(grams(tokens, k), w)


def winnow_units(
    found: Tokens, k: int = K, w: int = W
) -> tuple[frozenset[int], tuple[tuple[str, frozenset[int]], ...]]:
    """The module's fingerprints, and those of each function (by the run's first token)."""
    hashes = grams(found.tokens, k)
    kept = _winnowed(hashes, w)
    units: dict[str, set[int]] = {}
    starts = found.units
    for n, (first, name) in enumerate(starts):
        last = starts[n + 1][0] if n + 1 < len(starts) else len(hashes)
        mine = kept.intersection(hashes[first:last])
        if mine:
            units.setdefault(name, set()).update(mine)
    return kept, tuple((name, frozenset(h)) for name, h in units.items())


def refers_to_grader(source: str) -> str:
    """What in the source points at the grader's files ("" when nothing does)."""
    return normalize(source).refers
