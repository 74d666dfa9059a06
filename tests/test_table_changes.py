"""After a call the child tells whether the call changed a table it was given: a list
of rows, each a fresh copy of a row of the table the parent sent.  Where the
interpreter keeps a list's items as an array of pointers (CPython 3.8-3.13) the child
compares the rows' items as those arrays, all rows at once; elsewhere item by item.
Both ways must say the same of every change, on every Python the child runs on."""

from __future__ import annotations

import textwrap

import pytest
from test_namespaces import VERSIONS, _drive, _python

# Runs the child's program as a module and asks its `changed` about copies of one
# table, each changed one way (or not at all); prints one line per way.
DRIVER = textwrap.dedent(
    """
    g = {"__name__": "child_program"}
    exec(compile(SOURCE, "<string>", "exec"), g)
    g["_shield"]()
    if BLOCK:
        g["_ITEMS"] = None
    print("reader|" + str(g["_ITEMS"] is not None))
    changed, plan, counted = g["changed"], g["plan"], g["counted"]

    class Liar(float):
        def __eq__(self, other):
            return True

        __hash__ = float.__hash__

    master = [[(r * 7 + c) / 8.0 - 3.0 for c in range(64)] for r in range(40)]
    master[3][5] = 0.0
    master[4][6] = float("nan")
    master[5] = [2.0] * 64
    copy = plan(master)

    def way(name, change, of=master):
        live = plan(of)(of)
        change(live)
        print(name + "|" + str(changed(live, of, "args[0]")))

    ways = [
        ("nothing", lambda t: None),
        ("same values, new objects", lambda t: t.__setitem__(2, [x + 0.0 for x in t[2]])),
        ("a row of its own", lambda t: t.__setitem__(7, list(t[7]))),
        ("grown and shrunk", lambda t: (t[9].append(1.0), t[9].pop())),
        ("an item", lambda t: t[10].__setitem__(3, t[10][3] + 1.0)),
        ("the last item", lambda t: t[-1].__setitem__(-1, -1.5)),
        ("sign of zero", lambda t: t[3].__setitem__(5, -0.0)),
        ("int for float", lambda t: t[5].__setitem__(0, 2)),
        ("a liar", lambda t: t[11].__setitem__(4, Liar(t[11][4]))),
        ("another nan", lambda t: t[4].__setitem__(6, float("nan"))),
        ("rows swapped", lambda t: t.__setitem__(slice(0, 2), [t[1], t[0]])),
        ("items moved across rows", lambda t: (t[12].append(t[13].pop(0)))),
        ("a row appended", lambda t: t.append(list(t[0]))),
        ("a row emptied", lambda t: t[14].clear()),
        ("a row made a tuple", lambda t: t.__setitem__(15, tuple(t[15]))),
        ("a list subclass", lambda t: t.__setitem__(16, type("L", (list,), {})(t[16]))),
        ("sorted in place", lambda t: t[17].sort()),
        ("items made lists", lambda t: t.__setitem__(18, [[x] for x in t[18]])),
    ]
    for name, change in ways:
        way(name, change)
    # The same table as a run message's tail makes it: copied without a plan, and
    # compared with its copies through what the run keeps of it.
    import io, json, struct
    flat = [x for r in master for x in r]
    tail = struct.pack("<%dd" % len(flat), *flat)
    line = '{"op":"run","tail":%d,"values":{"t":{"$":"f64rowsb","n":%d,"cols":64}}}\\n'
    decode = json.JSONDecoder(object_hook=g["_hook"]).decode
    message = (line % (len(tail), len(flat))).encode() + tail
    made = g["read_message"](io.BytesIO(message), decode)["values"]["t"]
    print("made|%s" % (g["_MADE"][id(made)][0] is made and plan(made) is g["_copy_rows"]))
    for name, change in ways:
        way("made, " + name, change, made)
    shared = [master[0]] * 3 + [master[1]]
    way("shared rows, nothing", lambda t: None, shared)
    way("shared rows, one changed", lambda t: t[0].__setitem__(0, 9.5), shared)
    nested = [[list(r[:4]) for r in master[:3]] for _ in range(2)]
    way("three levels, nothing", lambda t: None, nested)
    way("three levels, deep item", lambda t: t[1][2].__setitem__(3, 0.5), nested)
    count = counted(master)
    way("counted, nothing", lambda t: None, count)
    way("counted, an item", lambda t: t[0].__setitem__(0, 1.25), count)
    """
)

CHANGED = {
    "an item": "args[0][10][3]",
    "the last item": "args[0][39][63]",
    "sign of zero": "args[0][3][5]",
    "int for float": "args[0][5][0]",
    "a liar": "args[0][11][4]",
    "rows swapped": "args[0][0][0]",
    "items moved across rows": "args[0][12]",
    "a row appended": "args[0]",
    "a row emptied": "args[0][14]",
    "a row made a tuple": "args[0][15]",
    "a list subclass": "args[0][16]",
    "sorted in place": None,  # a row that was sorted already is left as it was
    "items made lists": "args[0][18][0]",
    "shared rows, one changed": "args[0][0][0]",
    "three levels, deep item": "args[0][1][2][3]",
    "counted, an item": "args[0][0][0]",
}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("block", [False, True], ids=["pointers", "item-by-item"])
def test_every_change_to_a_table_is_seen_both_ways(version: str, block: bool) -> None:
    python = _python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    said = _drive(python, block, DRIVER)
    # On CPython 3.8-3.13 the arrays are read: the fast way is the one tested.
    assert said.pop("reader") == str(not block)
    expected = {k: v for k, v in CHANGED.items() if v is not None}
    assert said.pop("made") == "True"
    made = {k[len("made, ") :]: v for k, v in said.items() if k.startswith("made, ")}
    assert len(made) == 18
    assert {k: v for k, v in made.items() if v != "None"} == {
        k: v for k, v in expected.items() if k in made
    }
    said = {k: v for k, v in said.items() if not k.startswith("made, ")}
    assert {k: v for k, v in said.items() if v != "None"} == expected
    assert said["sorted in place"] == "None"  # every row of the table is ascending
