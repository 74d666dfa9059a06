"""Normalised tokens to fingerprints: winnowed k-gram hashes, per module and per function.

The tokens come from ``tokens.py`` (names the student chose become one placeholder,
comments, docstrings, layout and statements that do nothing are dropped).  Every run of
``K`` tokens is hashed, and of each window of ``W`` consecutive hashes the smallest is
kept (winnowing): a shared stretch of ``K + W - 1`` tokens or more always leaves a
shared fingerprint.  A fingerprint also belongs to the function its run starts in, so
that the functions one module takes from another can be named.  Used by
``classpass.py`` and ``shipped.py``.

The hash of a run is the CRC-32 of its tokens' codes packed one after the other (each
code the CRC-32 of the token, odd).  A CRC is linear: the CRC of a run is the XOR of
what each of its ``K`` codes adds at its place in the run (and a constant).  So each
token's row of ``K`` such parts is looked up once, the rows of a module are laid end
to end, and ``K`` XORs of integers made of every ``K``-th part give the hash of every
run at once; the smallest of every window is taken the same way, with 32-bit values
side by side in one integer.  No Python work is done per run, and the hashes are
those of ``zlib.crc32`` over each run (``tests/test_similar_fast.py`` holds both to
their definitions).
"""

from __future__ import annotations

import sys
import zlib
from array import array
from collections.abc import Sequence

from grader.engine.similarity.tokens import Tokens, normalize

K = 12
W = 8
# Changes whenever the tokens or the hashes change: cached and shipped fingerprints of
# another method are not used.
METHOD = "k=%d w=%d t=3" % (K, W)
_SLOT = array("I").itemsize  # the bytes of one packed code
_ROW = K * _SLOT
# Whether the integers can be laid out as the rows are (else the plain way is taken).
_WIDE = LAID = _SLOT == 4 and sys.byteorder == "little"
# What each token adds to the hash of a run at each of its K places.
_ROWS: dict[str, bytes] = {}
_MAX_ROWS = 100_000  # numbers and attribute names: a class never needs so many
_EMPTY = zlib.crc32(bytes(_ROW))
_LOW = (1 << 32) - 1


def normalized_tokens(source: str) -> list[str]:
    """The module's normalised tokens (see ``tokens.normalize``)."""
    return list(normalize(source).tokens)


def code(token: str) -> int:
    """A token's code: the CRC-32 of its text, odd."""
    return zlib.crc32(token.encode()) | 1


def _row(token: str) -> bytes:
    """What ``token`` adds to the CRC of a run of K codes at each place in it; the
    constant of the CRC goes with the first place."""
    packed = array("I", [code(token)]).tobytes()
    parts = []
    for j in range(K):
        run = bytes(j * _SLOT) + packed + bytes((K - 1 - j) * _SLOT)
        parts.append(zlib.crc32(run) ^ (0 if j == 0 else _EMPTY))
    return array("I", parts).tobytes()


def rows(tokens: Sequence[str]) -> bytes:
    """The rows of ``tokens`` laid end to end (see ``_packed_hashes``)."""
    known = _ROWS
    if len(known) > _MAX_ROWS:
        known.clear()
    found = list(map(known.get, tokens))
    if None in found:
        index = found.index
        i = -1
        try:
            while True:
                i = index(None, i + 1)
                t = tokens[i]
                found[i] = known[t] = known.get(t) or _row(t)
        except ValueError:
            pass
    return b"".join(found)  # type: ignore[arg-type]


def _packed_hashes(tokens: Sequence[str]) -> bytes:
    """The hash of every run of K tokens, as packed unsigned 32-bit integers."""
    return _hashes_of(rows(tokens))


def _hashes_of(laid_rows: bytes) -> bytes:
    """The hash of every run of K tokens from their rows (more than K - 1 of them)."""
    laid = array("I")
    laid.frombytes(laid_rows)
    # Run i's hash: the XOR of the part of place j in the row of token i + j, the
    # codes K * (i + j) + j of the rows laid end to end.
    runs = len(laid) // K - K + 1
    end = K * runs
    read = int.from_bytes
    x = 0
    for j in range(K):
        x ^= read(laid[(K + 1) * j : (K + 1) * j + end : K], "little")
    return x.to_bytes(4 * runs, "little")


def grams(tokens: Sequence[str], k: int = K) -> list[int]:
    """The hash of every run of ``k`` tokens, in order (CRC-32: the same in every
    process and on every interpreter)."""
    if len(tokens) < k:
        return []
    if k == K and _WIDE:
        return memoryview(_packed_hashes(tokens)).cast("I").tolist()
    packed = array("I", map(code, tokens)).tobytes()
    size = _SLOT
    crc = zlib.crc32
    return [crc(packed[i : i + size * k]) for i in range(0, size * (len(tokens) - k + 1), size)]


def _lanes(count: int) -> tuple[int, int]:
    """Masks of ``count`` 64-bit lanes: the low 32 bits of each, and bit 32 of each."""
    low = int.from_bytes(b"\xff\xff\xff\xff\0\0\0\0" * count, "little")
    return low, int.from_bytes(b"\0\0\0\0\x01\0\0\0" * count, "little")


def _smaller(a: int, b: int, guard: int) -> int:
    """Lane by lane, the smaller of two 32-bit values (in 64-bit lanes; ``guard`` has
    bit 32 of each lane: it is left in ``a - b`` where a >= b)."""
    less = ((guard ^ (((a | guard) - b) & guard)) >> 32) * _LOW
    return b ^ ((a ^ b) & less)


def _sliding(x: int, length: int, guard: int) -> int:
    """Lane k: the smallest of lanes k to k + length - 1 (beyond the last lane, 0)."""
    span = 1
    while 2 * span <= length:
        x = _smaller(x, x >> 64 * span, guard)
        span *= 2
    if span < length:
        x = _smaller(x, x >> 64 * (length - span), guard)
    return x


def _winnowed_packed(packed: bytes, w: int) -> frozenset[int]:
    """The smallest of each window of ``w`` hashes (``w`` even, more hashes than
    ``w``): the even and the odd hashes each in their own 64-bit lanes."""
    n = len(packed) // 4
    half = (n + 1) // 2
    low, guard = _lanes(half)
    x = int.from_bytes(packed, "little")
    even = x & low  # lane k: hash 2k
    odd = (x >> 32) & low  # lane k: hash 2k + 1
    h = w // 2
    even_h, odd_h = _sliding(even, h, guard), _sliding(odd, h, guard)
    # A window from 2k holds even hashes k.. and odd ones k..; from 2k + 1, odd ones
    # k.. and even ones k + 1..
    starts_even = _smaller(even_h, odd_h, guard)
    starts_odd = _smaller(odd_h, even_h >> 64, guard)
    windows = n - w + 1
    found = set(
        memoryview(starts_even.to_bytes(8 * half, "little")).cast("Q")[: (windows + 1) // 2]
    )
    found.update(memoryview(starts_odd.to_bytes(8 * half, "little")).cast("Q")[: windows // 2])
    return frozenset(found)


def _winnowed(hashes: list[int], w: int) -> frozenset[int]:
    if not hashes:
        return frozenset()
    if len(hashes) <= w:
        return frozenset({min(hashes)})
    if _WIDE and w % 2 == 0:
        return _winnowed_packed(array("I", hashes).tobytes(), w)
    return frozenset(map(min, zip(*[hashes[j:] for j in range(w)])))


def winnow(tokens: Sequence[str], k: int = K, w: int = W) -> frozenset[int]:
    """The smallest hash of each window of ``w`` consecutive k-gram hashes."""
    return _winnowed(grams(tokens, k), w)


def winnow_units(
    found: Tokens, k: int = K, w: int = W
) -> tuple[frozenset[int], tuple[tuple[str, frozenset[int]], ...]]:
    """The module's fingerprints, and those of each function (by the run's first token)."""
    return units_of(found.tokens, found.units, k, w)


def units_of(
    tokens: Sequence[str], starts: Sequence[tuple[int, str]], k: int = K, w: int = W
) -> tuple[frozenset[int], tuple[tuple[str, frozenset[int]], ...]]:
    """The fingerprints of ``tokens``, and those of each unit (``starts``: its first
    token and its name, in order)."""
    if k == K and _WIDE and w % 2 == 0 and len(tokens) >= k:
        return _units(_hashes_of(rows(tokens)), starts, w)
    hashes = grams(tokens, k)
    return _by_unit(hashes, _winnowed(hashes, w), starts)


def units_of_rows(
    laid_rows: bytes, starts: Sequence[tuple[int, str]]
) -> tuple[frozenset[int], tuple[tuple[str, frozenset[int]], ...]]:
    """``units_of`` the tokens whose rows (``rows``) are ``laid_rows`` (where ``LAID``)."""
    if len(laid_rows) < _ROW * K:
        return frozenset(), ()
    return _units(_hashes_of(laid_rows), starts, W)


def _units(
    packed: bytes, starts: Sequence[tuple[int, str]], w: int
) -> tuple[frozenset[int], tuple[tuple[str, frozenset[int]], ...]]:
    hashes = memoryview(packed).cast("I").tolist()
    kept = _winnowed_packed(packed, w) if len(hashes) > w else frozenset({min(hashes)})
    return _by_unit(hashes, kept, starts)


def _by_unit(
    hashes: list[int], kept: frozenset[int], starts: Sequence[tuple[int, str]]
) -> tuple[frozenset[int], tuple[tuple[str, frozenset[int]], ...]]:
    units: dict[str, set[int]] = {}
    for n, (first, name) in enumerate(starts):
        last = starts[n + 1][0] if n + 1 < len(starts) else len(hashes)
        mine = kept.intersection(hashes[first:last])
        if mine:
            units.setdefault(name, set()).update(mine)
    return kept, tuple((name, frozenset(h)) for name, h in units.items())


def refers_to_grader(source: str) -> str:
    """What in the source points at the grader's files ("" when nothing does)."""
    return normalize(source).refers
