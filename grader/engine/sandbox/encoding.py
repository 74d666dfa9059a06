"""Values on their way to the child: the protocol's JSON encoding of plain data,
packed doubles, and how many bytes an answer may take."""

from __future__ import annotations

import binascii
import functools
import itertools
import json
import math
import struct
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from grader.engine.sandbox.limits import MAX_LINE, MIN_ANSWER


def answer_limit(expected: Any) -> int:
    """The bytes an answer may take when ``expected`` is the right one: far more than
    it needs (8 times 32 bytes per number), so that only an answer far larger than
    the right one is cut, by the child before it is sent and by the parent before it
    is decoded."""
    leaves = 0
    stack = [expected]
    while stack and leaves < MAX_LINE:
        x = stack.pop()
        t = type(x)
        if t is list or t is tuple:
            if set(map(type, x)) <= _NUMBERS:
                leaves += len(x)
            else:
                stack.extend(x)
        elif t is dict:
            stack.extend(x)
            stack.extend(x.values())
        elif t is str:
            leaves += 1 + len(x) // 16
        else:
            leaves += 1
    return min(MAX_LINE, MIN_ANSWER + 8 * 32 * leaves)


_NUMBERS = frozenset((float, int, bool))
_FLOATS = {float}
_LISTS = {list}
PACK_FROM = 8  # lists of at least this many floats travel as packed doubles


@functools.lru_cache(maxsize=256)
def _packer(n: int) -> Callable[..., bytes]:
    """struct's packing of n little-endian doubles: several times faster than an
    array made from a list, which converts each item as an argument."""
    return struct.Struct("<%dd" % n).pack


def _base64(data: bytes) -> str:
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def pack(floats: Sequence[float], blobs: list[bytes] | None = None) -> dict[str, Any]:
    """A list of floats as little-endian IEEE doubles: fast and bit-exact.  In base64,
    or, given ``blobs``, as raw bytes added to them for the message's tail."""
    data = _packer(len(floats))(*floats)
    if blobs is not None:
        blobs.append(data)
        return {"$": "f64b", "n": len(floats)}
    return {"$": "f64", "v": _base64(data)}


def pack_rows(
    rows: list[list[float]], cols: int, blobs: list[bytes] | None = None
) -> dict[str, Any]:
    """A table of floats (rows of one width) as one run of packed doubles."""
    row = _packer(cols)
    data = b"".join([row(*r) for r in rows])
    if blobs is not None:
        blobs.append(data)
        return {"$": "f64rowsb", "n": len(rows) * cols, "cols": cols}
    return {"$": "f64rows", "v": _base64(data), "cols": cols}


def _finite(values: list[Any]) -> bool:
    try:
        return all(map(math.isfinite, values))
    except (OverflowError, TypeError):
        return False


def _aliased(value: list[Any]) -> bool:
    """Whether two items of the list are one list object (``[row, row]``)."""
    rows = [id(v) for v in value if type(v) is list]
    return len(set(rows)) < len(rows)


def _shared(value: list[Any], blobs: list[bytes] | None) -> dict[str, Any]:
    """A list some of whose items are one list object: its distinct items once, and
    for each place the index of the item there, so the child builds the same sharing."""
    first: dict[int, int] = {}
    distinct: list[Any] = []
    of: list[int] = []
    for v in value:
        if type(v) is list:
            known = first.get(id(v))
            if known is not None:
                of.append(known)
                continue
            first[id(v)] = len(distinct)
        of.append(len(distinct))
        distinct.append(v)
    return {"$": "alias", "of": of, "v": encode(distinct, blobs)}


def encode(value: Any, blobs: list[bytes] | None = None) -> Any:
    """Plain Python data to the protocol's JSON data (the input is left as it is).

    Given ``blobs``, packed doubles are added to it as raw bytes, in the order of
    their places in the JSON text, for the tail of a run message."""
    t = type(value)
    if t is float:
        if math.isfinite(value):
            return value
        return {"$": "float", "v": "nan" if value != value else ("inf" if value > 0 else "-inf")}
    if t is int or t is str or t is bool or value is None:
        return value
    if t is list:
        if len(value) > 1 and _aliased(value):
            return _shared(value, blobs)
        kinds = set(map(type, value))
        if len(value) >= PACK_FROM and kinds == _FLOATS:
            return pack(value, blobs)
        if kinds == _LISTS:
            widths = set(map(len, value))
            cols = widths.pop() if len(widths) == 1 else 0
            if (
                cols
                and cols * len(value) >= PACK_FROM
                and set(map(type, itertools.chain.from_iterable(value))) == _FLOATS
            ):
                return pack_rows(value, cols, blobs)
        if kinds <= _NUMBERS and _finite(value):
            return value
        return [encode(v, blobs) for v in value]
    if t is tuple:
        return {"$": "tuple", "v": [encode(v, blobs) for v in value]}
    if t is dict:
        return {"$": "dict", "v": [[encode(k, blobs), encode(v, blobs)] for k, v in value.items()]}
    raise ValueError("cannot send a %s to the child" % t.__name__)


# An argument on its way: its JSON text, and the packed doubles of the message's tail
# that the text refers to, in order.
Encoded = tuple[str, tuple[bytes, ...]]
_ENCODED: OrderedDict[int, tuple[Any, Encoded]] = OrderedDict()
_ENCODED_MAX = 4096
_NO_BLOBS: tuple[bytes, ...] = ()


def encoded(value: Any) -> Encoded:
    """The JSON text of an argument and its packed doubles, remembered for the very
    same object.

    A class graded with one seed sends the same inputs to every child; encoding
    them once saves most of the parent's work per submission.  The entry keeps the
    object alive, so its id cannot be reused while it is remembered.
    """
    t = type(value)
    if t is int:
        return int.__repr__(value), _NO_BLOBS  # the text the JSON encoder writes
    if t is float and math.isfinite(value):
        return float.__repr__(value), _NO_BLOBS
    if t not in (list, tuple, dict):
        return dumps(encode(value)), _NO_BLOBS
    hit = _ENCODED.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    blobs: list[bytes] = []
    out = (dumps(encode(value, blobs)), tuple(blobs))
    _ENCODED[id(value)] = (value, out)
    while len(_ENCODED) > _ENCODED_MAX:
        try:
            _ENCODED.popitem(last=False)
        except KeyError:
            break
    return out


def prepare(arguments: Iterable[Sequence[Any]]) -> None:
    """Encode these calls' arguments ahead (while a child starts, say): a run then
    finds their text remembered.  Values that cannot be sent are left to the run."""
    for args in arguments:
        for a in args:
            if type(a) in (list, tuple, dict) and a:
                try:
                    encoded(a)
                except ValueError:
                    pass


# One encoder for every message: json.dumps with these options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def dumps(data: Any) -> str:
    return _ENCODER.encode(data)
