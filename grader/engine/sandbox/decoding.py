"""What the parent accepts from the child: strict decoding and a check of every field.

The student's code runs in the child and can write to the protocol pipe itself (it
finds it through ``/proc/self/fd``), so any line may be forged: well-formed JSON with
fields of the wrong type, unknown tags, huge numbers, deep nesting.  Every message
the parent reads goes through one of the checks below, which return plain, typed
values or raise ``OffProtocol``.  The caller blames the submission for it, like a
crash of the call that was running: no line from the child can make the grader fail.
"""

from __future__ import annotations

import array
import binascii
import json
import operator
import sys
from collections.abc import Collection
from typing import Any

from grader.engine.frozen import frozen

MAX_DEPTH = 16  # containers in one decoded value (the child cuts at 8)
MAX_INT_BITS = 10_064  # the child cuts ints of more than 10,000 bits
MAX_INT_DIGITS = 3_100  # decimal digits of the largest such int, and a little more
MAX_TEXT = 4_000  # characters kept of a message, a traceback, a name
MAX_NAMES = 64  # third-party names kept
MAX_SAME_HASH = 8  # keys of one decoded dict that may share a hash
MAX_MULTS = 1 << 62
MAX_ELAPSED = 1e6
BASES = frozenset(("float", "int", "str", "list", "tuple", "dict"))
STATES = frozenset(("function", "missing", "not callable"))
_BIG_ENDIAN = sys.byteorder == "big"
_LEAVES = frozenset((float, bool, str, type(None)))


class OffProtocol(ValueError):
    """A line from the child that the parent cannot use."""


@frozen
class Foreign:
    """A decoded value that is not plain: a subclass of a builtin or an unknown object."""

    type: str
    base: str | None
    value: Any
    why: str = ""


@frozen
class Raised:
    """An exception raised by the student's code."""

    type: str
    builtin: tuple[str, ...]
    message: str
    line: int | None = None  # where in the student's file it was raised
    function: str = ""
    cell: tuple[int, str] | None = None  # a notebook's cell and its first line (and line its)

    def is_a(self, name: str) -> bool:
        return name == self.type or name in self.builtin


# ---------------------------------------------------------------- decoding


def unpack(text: str) -> list[float]:
    a = array.array("d")
    a.frombytes(binascii.a2b_base64(text))
    if _BIG_ENDIAN:
        a.byteswap()
    return a.tolist()


def unpack_rows(text: str, cols: int) -> list[list[float]]:
    flat = unpack(text)
    return [flat[i : i + cols] for i in range(0, len(flat), cols)]


def _str(obj: dict[str, Any], key: str) -> str:
    v = obj.get(key)
    if type(v) is not str:
        raise OffProtocol("%s is not a string" % key)
    return v[:MAX_TEXT]


def _packed(obj: dict[str, Any]) -> str:
    v = obj.get("v")
    if type(v) is not str or len(v) % 4:
        raise OffProtocol("packed floats are not base64")
    return v


def _tag(obj: dict[str, Any]) -> Any:
    tag = obj.get("$")
    if tag is None:
        return obj
    try:
        if tag == "f64":
            return unpack(_packed(obj))
        if tag == "f64rows":
            cols = obj.get("cols")
            if type(cols) is not int or cols < 1:
                raise OffProtocol("bad cols")
            return unpack_rows(_packed(obj), cols)
        if tag == "tuple":
            v = obj.get("v")
            if type(v) is not list:
                raise OffProtocol("a tuple is not a list")
            return tuple(v)
        if tag == "float":
            v = obj.get("v")
            if v not in ("nan", "inf", "-inf"):
                raise OffProtocol("bad float")
            return float(v)
        if tag == "dict":
            pairs = obj.get("v")
            if type(pairs) is not list or not all(type(p) is list and len(p) == 2 for p in pairs):
                raise OffProtocol("a dict is not a list of pairs")
            return _dict(pairs)
        if tag == "sub":
            base = obj.get("base")
            if type(base) is not str or base not in BASES or "v" not in obj:
                raise OffProtocol("bad subclass")
            return Foreign(_str(obj, "type"), base, obj["v"])
        if tag == "obj":
            return Foreign(_str(obj, "type"), None, None)
        if tag == "cut":
            return Foreign(_str(obj, "type"), None, None, _str(obj, "why")[:100])
    except (ValueError, TypeError, binascii.Error) as exc:
        raise OffProtocol("bad %s: %s" % (tag, exc)) from None
    raise OffProtocol("unknown tag")


def _dict(pairs: list[list[Any]]) -> Any:
    """The pairs as a dict, unless more than MAX_SAME_HASH keys share a hash (ints that
    differ by multiples of 2**61 - 1, say): each such key is compared with all the
    others as it goes in.  The hashes are sorted first, in n log n whatever they are."""
    try:
        hashes = sorted(map(hash, [p[0] for p in pairs]))
    except TypeError:
        return Foreign("dict", "dict", [tuple(p) for p in pairs], "unhashable keys")
    if any(map(operator.eq, hashes, hashes[MAX_SAME_HASH:])):
        return Foreign("dict", "dict", [tuple(p) for p in pairs], "keys that share a hash")
    return {k: v for k, v in pairs}


def _int(text: str) -> int:
    # Long digit strings take quadratic time to convert (Python 3.10 has no limit of
    # its own): past what MAX_INT_BITS allows they are refused unread.
    if len(text) > MAX_INT_DIGITS:
        raise OffProtocol("an int too large")
    return int(text)


def decode(line: bytes | str) -> Any:
    """One protocol line to plain Python data; OffProtocol when it is not JSON of the protocol."""
    try:
        return json.loads(line, object_hook=_tag, parse_int=_int)
    except RecursionError:
        raise OffProtocol("nested too deeply") from None
    except OffProtocol:
        raise
    except (ValueError, TypeError) as exc:
        raise OffProtocol("not JSON: %s" % exc) from None


# ---------------------------------------------------------------- checking values


def value(v: Any) -> Any:
    """v itself when it is data the judge can take (what decode makes), else OffProtocol."""
    stack = [(v, 0)]
    while stack:
        x, depth = stack.pop()
        t = type(x)
        if t in _LEAVES:
            continue
        if t is int:
            if x.bit_length() > MAX_INT_BITS:
                raise OffProtocol("an int too large")
            continue
        if depth >= MAX_DEPTH:
            raise OffProtocol("a value nested too deeply")
        if t is list or t is tuple:
            kinds = set(map(type, x))
            if kinds <= _LEAVES:
                continue
            stack.extend((e, depth + 1) for e in x)
        elif t is dict:
            stack.extend((e, depth + 1) for e in x)
            stack.extend((e, depth + 1) for e in x.values())
        elif t is Foreign:
            stack.append((x.value, depth + 1))
        else:
            raise OffProtocol("not a value: %s" % t.__name__)
    return v


# ---------------------------------------------------------------- checking messages


def _message(data: Any) -> dict[str, Any]:
    if type(data) is not dict:
        raise OffProtocol("not an object")
    return data


def _number(x: Any, what: str) -> float:
    if type(x) not in (int, float) or not 0 <= x <= MAX_ELAPSED:
        raise OffProtocol("%s is not a number of seconds" % what)
    return float(x)


def _text(x: Any, what: str, limit: int = MAX_TEXT) -> str:
    if type(x) is not str:
        raise OffProtocol("%s is not a string" % what)
    return x[:limit]


def _texts(x: Any, what: str) -> list[str]:
    if type(x) is not list or not all(type(n) is str for n in x):
        raise OffProtocol("%s is not a list of strings" % what)
    return x


def ready(data: Any) -> str:
    """The child's first line: its Python version."""
    data = _message(data)
    if data.get("op") != "ready":
        raise OffProtocol("not ready")
    return _text(data.get("python"), "python", 40)


def raised(data: Any) -> Raised:
    data = _message(data)
    line = data.get("line")
    if line is not None and (type(line) is not int or not 0 < line < 1 << 31):
        raise OffProtocol("line is not a line number")
    return Raised(
        _text(data.get("type"), "type", 100),
        tuple(n[:100] for n in _texts(data.get("builtin", []), "builtin")[:64]),
        _text(data.get("message", ""), "message", 1000),
        line,
        _text(data.get("in", ""), "in", 100),
    )


@frozen
class LoadedFields:
    ok: bool
    names: dict[str, Any]
    third_party: tuple[str, ...]
    error: Raised | None
    traceback: str
    elapsed: float


def loaded(data: Any, functions: Collection[str], constants: Collection[str]) -> LoadedFields:
    """The answer to "load"; names only of the ones asked for."""
    data = _message(data)
    if data.get("op") != "loaded" or type(data.get("ok")) is not bool:
        raise OffProtocol("not an answer to load")
    got = data.get("names")
    if type(got) is not dict:
        raise OffProtocol("names is not an object")
    names: dict[str, Any] = {}
    for name in functions:
        if name in got:
            if type(got[name]) is not str or got[name] not in STATES:
                raise OffProtocol("a function's state is unknown")
            names[name] = got[name]
    for name in constants:
        if name in got:
            names[name] = value(got[name])
    error = data.get("error")
    return LoadedFields(
        data["ok"],
        names,
        tuple(n[:100] for n in _texts(data.get("third_party", []), "third_party")[:MAX_NAMES]),
        raised(error) if error is not None else None,
        _text(data.get("traceback", ""), "traceback", MAX_TEXT + 100),
        _number(data.get("elapsed", 0.0), "elapsed"),
    )


@frozen
class AnswerFields:
    ok: bool
    value: Any
    raised: Raised | None
    elapsed: float
    mutated: str | None
    called: tuple[str, ...]
    mults: int | None
    tainted: str | None
    printed: Printed | None = None


@frozen
class Printed:
    """What one call printed: its size in bytes, its lines (counted in its first 64 KiB),
    and, for the first call of a function that printed, its first characters."""

    size: int
    lines: int
    head: str = ""


def printed(data: Any) -> Printed | None:
    if data is None:
        return None
    if type(data) is not dict:
        raise OffProtocol("printed is not an object")
    size, lines = _count(data.get("size")), _count(data.get("lines"))
    return Printed(size, lines, _text(data.get("head", ""), "printed", 400))


def _count(x: Any) -> int:
    if type(x) is not int or not 0 <= x <= 1 << 62:
        raise OffProtocol("printed is not a count")
    return int(x)


def answer(data: dict[str, Any], names: Collection[str]) -> AnswerFields:
    """The answer to one call (its id already matched); ``called`` keeps only ``names``."""
    ok = data.get("ok")
    if type(ok) is not bool:
        raise OffProtocol("ok is not true or false")
    mutated = data.get("mutated")
    if mutated is not None:
        mutated = _text(mutated, "mutated", 200)
    called = tuple(dict.fromkeys(n for n in _texts(data.get("called", []), "called") if n in names))
    mults = data.get("mults")
    if mults is not None and (type(mults) is not int or not 0 <= mults <= MAX_MULTS):
        raise OffProtocol("mults is not a count")
    tainted = data.get("tainted")
    if tainted is not None:
        tainted = _text(tainted, "tainted", 200)
    if ok:
        if "value" not in data:
            raise OffProtocol("no value")
        got, exc = value(data["value"]), None
    else:
        got, exc = None, raised(data.get("raised"))
    return AnswerFields(
        ok,
        got,
        exc,
        _number(data.get("elapsed", 0.0), "elapsed"),
        mutated,
        called,
        mults,
        tainted,
        printed(data.get("printed")),
    )


def where(data: dict[str, Any], names: Collection[str]) -> list[str]:
    """The contract functions a stuck call is in, outermost first."""
    stack = data.get("stack")
    if type(stack) is not list:
        raise OffProtocol("stack is not a list")
    return [n for n in stack if type(n) is str and n in names]
