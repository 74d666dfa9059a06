"""Packed doubles, both ways: bit-exact for every double (NaN payloads, -0.0,
subnormals, infinities), in the parent's encoder and in the child's."""

from __future__ import annotations

import array
import binascii
import io
import json
import struct
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.engine.sandbox import CHILD, Foreign, encoding
from grader.engine.sandbox.decoding import decode
from grader.engine.sandbox.program import child_program

CHILD_SPACE: dict[str, Any] = {"__name__": "child_program"}
exec(compile(child_program(CHILD), "<string>", "exec"), CHILD_SPACE)

# Any 64 bits are a double: NaNs with every payload and sign among them.
DOUBLES = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
    st.binary(min_size=8, max_size=8).map(lambda b: struct.unpack("<d", b)[0]),
)


def _memory(floats: list[float]) -> bytes:
    """The doubles as they lie in memory, little-endian: what packing must give."""
    a = array.array("d", floats)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _unbase64(packed: dict[str, Any]) -> bytes:
    return binascii.a2b_base64(packed["v"])


@settings(max_examples=200, deadline=None)
@given(st.lists(DOUBLES, min_size=0, max_size=40))
def test_a_list_packs_to_its_bits_on_both_sides(floats: list[float]) -> None:
    for pack in (encoding.pack, CHILD_SPACE["pack"]):
        packed = pack(floats)
        assert packed["$"] == "f64"
        assert _unbase64(packed) == _memory(floats)
    back = decode(json.dumps(encoding.pack(floats)))
    assert _memory(back) == _memory(floats)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6).flatmap(lambda w: st.lists(st.lists(DOUBLES, min_size=w, max_size=w))))
def test_a_table_packs_row_after_row(rows: list[list[float]]) -> None:
    if not rows:
        return
    cols = len(rows[0])
    flat = [x for r in rows for x in r]
    for pack_rows in (encoding.pack_rows, CHILD_SPACE["pack_rows"]):
        packed = pack_rows(rows, cols)
        assert packed["$"] == "f64rows" and packed["cols"] == cols
        assert _unbase64(packed) == _memory(flat)
    back = decode(json.dumps(encoding.pack_rows(rows, cols)))
    assert [_memory(r) for r in back] == [_memory(r) for r in rows]


ROWS = st.integers(1, 4).flatmap(
    lambda w: st.lists(st.lists(DOUBLES, min_size=w, max_size=w), min_size=2, max_size=5)
)
VALUES = st.recursive(
    st.one_of(DOUBLES, st.integers(), st.text(max_size=5), st.lists(DOUBLES, max_size=12), ROWS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
        inner.map(lambda v: [v, v] if type(v) is list else v),  # one object in two places
    ),
    max_leaves=12,
)


def _child_reads(message: bytes) -> Any:
    decode = json.JSONDecoder(object_hook=CHILD_SPACE["_hook"]).decode
    return CHILD_SPACE["read_message"](io.BytesIO(message), decode)


@settings(max_examples=150, deadline=None)
@given(st.lists(VALUES, min_size=1, max_size=4))
def test_packed_values_travel_after_the_line_in_the_order_the_text_names_them(
    values: list[Any],
) -> None:
    texts = []
    blobs: list[bytes] = []
    for v in values:
        text, packed = encoding.encoded(v)
        texts.append(text)
        blobs += packed
    tail = b"".join(blobs)
    line = '{"op":"run","tail":%d,"values":{%s},"calls":[]}\n' % (
        len(tail),
        ",".join('"v%d":%s' % (i, t) for i, t in enumerate(texts)),
    )
    got = _child_reads(line.encode() + tail)
    for i, v in enumerate(values):
        # The same value, bit for bit: encoded without a tail, both are the same text.
        assert encoding.dumps(encoding.encode(got["values"]["v%d" % i])) == encoding.dumps(
            encoding.encode(v)
        )
    if tail:
        with pytest.raises(ValueError):  # a tail longer than the values
            _child_reads(
                line.replace('"tail":%d' % len(tail), '"tail":%d' % (len(tail) + 8)).encode()
                + tail
                + bytes(8)
            )
        # cut short: the input ends, as when the parent is gone
        assert _child_reads(line.encode() + tail[:-1]) is None


class _Sub(float):
    pass


@pytest.mark.parametrize("reader", [True, False], ids=["pointers", "set"])
def test_a_table_is_packed_only_when_every_item_is_a_float(
    reader: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not reader:
        monkeypatch.setitem(CHILD_SPACE, "_ITEMS", None)
    encode = CHILD_SPACE["Encoder"]().encode
    counted = CHILD_SPACE["_Counted"]
    rows = [[r * 4.0 + c for c in range(4)] for r in range(3)]
    assert encode(rows)["$"] == "f64rows"
    for item, packed in ((2, False), (True, False), (_Sub(2.0), False), (counted(2.0), True)):
        changed = [list(r) for r in rows]
        changed[2][3] = item
        got = encode(changed)
        assert (type(got) is dict and got.get("$") == "f64rows") is packed, item
        if not packed:  # the item is told as it is, not as a double
            assert type(got) is list and got[2][3] == encode(item)


@pytest.mark.parametrize("enabled", [True, False])
def test_reading_a_message_leaves_the_collector_as_it_was(enabled: bool) -> None:
    import gc

    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        tail = struct.pack("<4d", 1.0, 2.0, 3.0, 4.0)
        line = b'{"op":"run","tail":32,"values":{"t":{"$":"f64rowsb","n":4,"cols":2}}}\n'
        assert _child_reads(line + tail)["values"]["t"] == [[1.0, 2.0], [3.0, 4.0]]
        assert gc.isenabled() is enabled
        with pytest.raises(ValueError):  # a tail longer than its values
            _child_reads(line.replace(b'"n":4', b'"n":2') + tail)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


# Runs the child's program as a module and makes calls on a Child by hand, writing its
# answers to a pipe; prints the answers' lines.
CALLS = """
import os, sys
g = {"__name__": "child_program"}
exec(compile(SOURCE, "<string>", "exec"), g)
r, w = os.pipe()
child = g["Child"](None, w)
child.globals = {
    "floats": lambda: [i / 8.0 for i in range(100)],
    "table": lambda: [[i / 8.0 + j for i in range(10)] for j in range(10)],
}
for call in CALLS:
    child.call(call, {}, {})
os.close(w)
with os.fdopen(r, "rb") as f:
    sys.stdout.buffer.write(f.read())
"""


def _answers(calls: list[dict[str, Any]]) -> list[bytes]:
    import subprocess

    program = "SOURCE = %r\nCALLS = %r\n%s" % (child_program(CHILD), calls, CALLS)
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-B", "-c", program], capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines(keepends=True)


@pytest.mark.parametrize("fn", ["floats", "table"])
def test_a_packed_answer_is_one_line_and_cut_when_its_line_is_too_long(fn: str) -> None:
    (line,) = _answers([{"id": 1, "fn": fn, "args": []}])
    assert line.endswith(b"}\n") and line.count(b"\n") == 1
    got = decode(line)
    value = [i / 8.0 for i in range(100)]
    if fn == "table":
        value = [[i / 8.0 + j for i in range(10)] for j in range(10)]
    assert got["value"] == value and got["ok"] is True and got["id"] == 1
    assert json.loads(line)["value"]["$"] == ("f64" if fn == "floats" else "f64rows")
    size = len(line) - 1  # the line's own characters, not its newline (its elapsed varies)
    wide, narrow = _answers(
        [
            {"id": 2, "fn": fn, "args": [], "max": size + 40},
            {"id": 3, "fn": fn, "args": [], "max": size - 40},
        ]
    )
    assert decode(wide)["value"] == value
    assert decode(narrow)["value"] == Foreign("?", None, None, "too large")
