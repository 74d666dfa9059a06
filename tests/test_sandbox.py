"""The sandbox: a child process that runs a student module and answers in plain JSON."""

from __future__ import annotations

import math
import os
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from timelimits import scaled, slowness

from grader.engine.sandbox import (
    CHILD,
    Call,
    Foreign,
    Loaded,
    Outcome,
    Raised,
    Sandbox,
    SandboxError,
    decode,
    encode,
    processes,
    procfs,
)
from grader.engine.sandbox.program import child_program
from grader.labs.embed import contract

PY38 = "/root/.pyenv/versions/3.8.18/bin/python3.8"

BASIC = """
import math

VOCAB = 512
DIM = 64
SEED = 20260917


class MyFloat(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__

    def __repr__(self):
        raise RuntimeError("repr must not be called")


class MyList(list):
    def __iter__(self):
        raise RuntimeError("iter must not be called")

    def __len__(self):
        raise RuntimeError("len must not be called")


class MyTuple(tuple):
    pass


class Thing:
    def __repr__(self):
        raise RuntimeError("repr must not be called")


class TokenError(IndexError):
    pass


def shape(matrix):
    return (len(matrix), len(matrix[0]) if matrix else 0)


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def norm(vec):
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    return dot(a, b) / (norm(a) * norm(b))


def one_hot(token_id, vocab):
    v = [0.0] * vocab
    v[token_id] = 1.0
    return v


def row_times_matrix(vec, matrix):
    return [sum(vec[r] * matrix[r][c] for r in range(len(matrix)))
            for c in range(len(matrix[0]))]


def lookup(table, ids):
    for i in ids:
        if not 0 <= i < len(table):
            raise TokenError("token %d is not in the table" % i)
    return [table[i] for i in ids]


def lookup_via_one_hot(table, ids):
    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]


def stretch(table, token_id, factor):
    table[token_id][1] = table[token_id][1] * factor
    return table


def echo(x):
    return x


def special(which):
    return {
        "tuple": (1, 2.5, "x"),
        "nan": float("nan"),
        "inf": [float("inf"), float("-inf")],
        "negzero": -0.0,
        "dict": {"a": 1, (1, 2): [3]},
        "myfloat": MyFloat(1.5),
        "mylist": MyList([1, 2]),
        "thing": Thing(),
        "deep": [[[[[[[[[[1]]]]]]]]]],
        "bool": [True, False, None],
        "big": 10 ** 5000,
        "gen": (i for i in range(3)),
        "mytuple": MyTuple([0.5] * 10),
    }[which]


def exit_now():
    raise SystemExit(3)


def die():
    import os
    os._exit(7)


def hang():
    while True:
        pass


def hog():
    return [0] * 10 ** 10


def hog_bytes():
    return len(bytearray(600 * 2 ** 20))


def bad_message():
    class Weird(Exception):
        def __str__(self):
            raise ValueError("no")
    raise Weird()


def noisy():
    print('{"id": 0, "ok": true, "value": 42}')
    import sys
    sys.stdout.flush()
    sys.stderr.write('{"op": "loaded"}\\n')
    return 1


def keep(x):
    x.append(99)
    return len(x)


def shared(t):
    return [[i for i, r in enumerate(t) if r is row] for row in t]


_kept = {}


def kept(table):
    if id(table) not in _kept:
        _kept[id(table)] = [list(r) for r in table]
    return _kept[id(table)]


_ids = []


def same_address(t):
    _ids.append(id(t))
    return len(_ids) > 1 and _ids[-1] == _ids[-2]
"""

FUNCS = (
    "shape",
    "dot",
    "norm",
    "cosine",
    "one_hot",
    "row_times_matrix",
    "lookup",
    "lookup_via_one_hot",
    "stretch",
    "echo",
    "special",
    "exit_now",
    "die",
    "hang",
    "hog",
    "hog_bytes",
    "bad_message",
    "noisy",
    "keep",
    "shared",
    "kept",
    "same_address",
)
NAMES = ("VOCAB", "DIM", "SEED", *FUNCS, "missing_fn")
CONSTANTS = ("VOCAB", "DIM", "SEED")
# The lab's own names, for the modules written like a student's.
LAB = {"names": tuple(n.name for n in contract.NAMES), "constants": tuple(contract.CONSTANTS)}


def write(tmp_path: Path, source: str, name: str = "embed.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


@pytest.fixture(scope="module")
def basic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("basic"), BASIC)


@pytest.fixture(scope="module")
def box(basic: Path):
    with Sandbox(basic, names=NAMES, constants=CONSTANTS, timeout=scaled(2.0)) as sb:
        loaded = sb.load()
        assert loaded.ok, loaded.traceback
        yield sb


def one(sb: Sandbox, fn: str, *args: object, count: tuple[int, ...] = ()) -> Outcome:
    [out] = sb.run([Call(0, fn, tuple(args), count)])
    return out


# ---------------------------------------------------------------- loading


def test_load_reports_names_and_constants(box: Sandbox) -> None:
    loaded = box.loaded
    assert isinstance(loaded, Loaded)
    assert loaded.names["VOCAB"] == 512 and loaded.names["SEED"] == 20260917
    assert loaded.names["dot"] == "function"
    assert loaded.names["missing_fn"] == "missing"
    assert loaded.third_party == ()
    assert loaded.error is None and loaded.elapsed >= 0


def test_missing_and_not_callable(tmp_path: Path) -> None:
    path = write(tmp_path, "VOCAB = 512\nDIM = 'sixty-four'\ndot = 3\n")
    with Sandbox(path, names=("VOCAB", "DIM", "SEED", "dot", "norm"), constants=CONSTANTS) as sb:
        loaded = sb.load()
        assert loaded.ok
        assert loaded.names == {
            "VOCAB": 512,
            "DIM": "sixty-four",
            "SEED": "missing",
            "dot": "not callable",
            "norm": "missing",
        }
        out = sb.run([Call(1, "norm", ([1.0],)), Call(2, "dot", ([1.0], [1.0]))])
        assert [o.kind for o in out] == ["skipped", "skipped"]
        assert "missing" in out[0].detail and "not callable" in out[1].detail


def test_import_crash(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        def dot(a, b):
            return 0.0

        print("starting")
        x = 1 / 0
    """,
    )
    with Sandbox(path, **LAB) as sb:
        loaded = sb.load()
        assert not loaded.ok
        assert loaded.error is not None and loaded.error.type == "ZeroDivisionError"
        assert loaded.error.is_a("ArithmeticError")
        assert "x = 1 / 0" in loaded.traceback and "_child" not in loaded.traceback
        assert loaded.output.strip() == "starting"
        [out] = sb.run([Call(1, "dot", ([1.0], [1.0]))])
        assert out.kind == "skipped"


def test_syntax_error(tmp_path: Path) -> None:
    path = write(tmp_path, "def dot(a, b)\n    return 0\n")
    with Sandbox(path, **LAB) as sb:
        loaded = sb.load()
        assert not loaded.ok and loaded.error is not None
        assert loaded.error.type == "SyntaxError"
        assert "SyntaxError" in loaded.traceback


def test_import_time_exit_and_hang(tmp_path: Path) -> None:
    path = write(tmp_path, "import sys\nsys.exit(2)\n")
    with Sandbox(path, **LAB) as sb:
        loaded = sb.load()
        assert not loaded.ok and loaded.error is not None and loaded.error.type == "SystemExit"
    path = write(tmp_path, "import os\nos._exit(0)\n", "dies.py")
    with Sandbox(path, **LAB) as sb:
        loaded = sb.load()
        assert not loaded.ok and "exited with status 0" in loaded.detail
    path = write(tmp_path, "while True:\n    pass\n", "hangs.py")
    start = time.monotonic()
    with Sandbox(path, timeout=scaled(0.5), **LAB) as sb:
        loaded = sb.load()
        assert not loaded.ok and "did not finish" in loaded.detail
    assert time.monotonic() - start < scaled(3)


def test_third_party_placeholder(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        import json
        import numpy as np
        from grader.engine import sandbox
        import numpy.linalg

        def dot(a, b):
            return float(np.dot(a, b))

        def norm(vec):
            return json.dumps(vec)
    """,
    )
    with Sandbox(path, **LAB) as sb:
        loaded = sb.load()
        assert loaded.ok, loaded.traceback
        assert loaded.third_party == ("numpy", "grader")
        dot, norm = sb.run([Call(1, "dot", ([1.0], [2.0])), Call(2, "norm", ([1.0],))])
        assert dot.kind == "raised" and dot.raised is not None
        assert dot.raised.type == "ImportError"
        assert dot.raised.message == (
            "numpy is not available: the exercise allows the standard library only"
        )
        assert norm.kind == "returned" and norm.value == "[1.0]"


def test_third_party_used_at_import(tmp_path: Path) -> None:
    path = write(tmp_path, "import numpy as np\nPI = np.pi * 2\n")
    with Sandbox(path, **LAB) as sb:
        loaded = sb.load()
        assert not loaded.ok and loaded.error is not None
        assert loaded.error.type == "ImportError" and loaded.third_party == ("numpy",)


# ---------------------------------------------------------------- answers


def test_plain_values(box: Sandbox) -> None:
    out = box.run(
        [
            Call(1, "dot", ([1.0, 2.0], [3.0, 4.0])),
            Call(2, "shape", ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],)),
            Call(3, "special", ("tuple",)),
            Call(4, "special", ("nan",)),
            Call(5, "special", ("inf",)),
            Call(6, "special", ("negzero",)),
            Call(7, "special", ("dict",)),
            Call(8, "special", ("bool",)),
            Call(9, "echo", ([0.1 * i for i in range(20)] + [float("nan"), -0.0],)),
        ]
    )
    assert [o.id for o in out] == list(range(1, 10))
    assert all(o.kind == "returned" for o in out), out
    assert out[0].value == 11.0
    assert out[1].value == (3, 2) and type(out[1].value) is tuple
    assert out[2].value == (1, 2.5, "x")
    assert math.isnan(out[3].value)
    assert out[4].value == [math.inf, -math.inf]
    assert out[5].value == 0.0 and math.copysign(1.0, out[5].value) == -1.0
    assert out[6].value == {"a": 1, (1, 2): [3]}
    assert out[7].value == [True, False, None] and type(out[7].value[0]) is bool
    packed = out[8].value
    assert packed[:20] == [0.1 * i for i in range(20)] and math.isnan(packed[20])
    assert math.copysign(1.0, packed[21]) == -1.0
    table = [[0.5, -0.0, float("nan")], [1e300, float("-inf"), 2.0**-1074]] * 3
    [back] = box.run([Call(10, "echo", (table,))])
    assert back.value[1::2] == [table[1]] * 3
    assert [math.copysign(1.0, r[1]) for r in back.value[::2]] == [-1.0] * 3
    assert all(math.isnan(r[2]) for r in back.value[::2])
    ragged = [[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0], [0.5] * 9, [1, 2.0]]
    assert box.run([Call(11, "echo", (ragged,))])[0].value == ragged


def test_foreign_values_never_touch_student_methods(box: Sandbox) -> None:
    out = box.run(
        [
            Call(i, "special", (w,))
            for i, w in enumerate(["myfloat", "mylist", "thing", "deep", "big", "gen", "mytuple"])
        ]
    )
    assert all(o.kind == "returned" for o in out), out
    myfloat, mylist, thing, deep, big, gen, mytuple = (o.value for o in out)
    assert myfloat == Foreign("MyFloat", "float", 1.5)
    assert type(myfloat.value) is float
    assert myfloat != Foreign("MyFloat", "float", 2.5)  # the student's __eq__ is not here
    assert mylist == Foreign("MyList", "list", [1, 2])
    assert thing == Foreign("Thing", None, None)
    assert isinstance(deep[0][0][0][0][0][0][0][0], Foreign)
    assert deep[0][0][0][0][0][0][0][0].why == "too deep"
    assert big == Foreign("int", None, None, "too large")
    assert gen == Foreign("generator", None, None)
    assert mytuple == Foreign("MyTuple", "tuple", (0.5,) * 10)


def test_raised(box: Sandbox) -> None:
    lookup, exit_now, weird = box.run(
        [
            Call(1, "lookup", ([[1.0], [2.0]], [0, 5])),
            Call(2, "exit_now", ()),
            Call(3, "bad_message", ()),
        ]
    )
    assert lookup.kind == "raised" and lookup.raised is not None
    assert lookup.raised == Raised(
        "TokenError",
        ("IndexError", "LookupError", "Exception", "BaseException"),
        "token 5 is not in the table",
        line=lookup.raised.line,
        function="lookup",
    )
    assert isinstance(lookup.raised.line, int) and lookup.raised.line > 1
    assert lookup.raised.is_a("IndexError") and not lookup.raised.is_a("ValueError")
    assert exit_now.kind == "raised" and exit_now.raised is not None
    assert exit_now.raised.type == "SystemExit" and exit_now.raised.message == "3"
    assert weird.kind == "raised" and weird.raised is not None
    assert weird.raised.type == "Weird" and weird.raised.message == ""


def test_printing_cannot_reach_the_protocol(box: Sandbox) -> None:
    noisy, dot = box.run([Call(1, "noisy", ()), Call(2, "dot", ([1.0], [2.0]))])
    assert noisy.kind == "returned" and noisy.value == 1
    assert dot.value == 2.0


def test_mutation_is_found(box: Sandbox) -> None:
    table = [[1.0, 2.0], [3.0, 4.0]]
    stretch, keep, lookup = box.run(
        [
            Call(1, "stretch", (table, 1, 3.0)),
            Call(2, "keep", ([1, 2],)),
            Call(3, "lookup", (table, [1])),
        ]
    )
    assert stretch.mutated == "args[0][1][1]"
    assert stretch.value == [[1.0, 2.0], [3.0, 12.0]]
    assert table == [[1.0, 2.0], [3.0, 4.0]]  # the parent's value is never touched
    assert keep.mutated == "args[0]"
    assert lookup.mutated is None and lookup.value == [[3.0, 4.0]]
    negzero = box.run([Call(4, "stretch", ([[0.0, 0.0]], 0, -1.0))])[0]
    assert negzero.mutated == "args[0][0][1]"  # 0.0 became -0.0: equal, yet changed


def test_rows_that_are_one_object_arrive_as_one(box: Sandbox) -> None:
    row = [1.0, 2.0]
    small = [row, [5.0, 6.0], row]
    zeros = [[0.0] * 4] * 3  # enough floats to travel packed
    wide = [[float(c) for c in range(10)]] * 2 + [[0.5] * 10]
    equal = [[1.0, 2.0], [1.0, 2.0]]  # equal values, two objects
    calls = [Call(i, "shared", (t,)) for i, t in enumerate((small, zeros, wide, equal))]
    calls.append(Call(9, "shared", (small,), count=(0,)))
    a, b, c, d, counted = box.run(calls)
    assert a.value == [[0, 2], [1], [0, 2]] == counted.value
    assert b.value == [[0, 1, 2]] * 3
    assert c.value == [[0, 1], [0, 1], [2]]
    assert d.value == [[0], [1]]
    # Writing into a shared row changes every place of it, and is found.
    out = box.run([Call(10, "stretch", (small, 2, 3.0)), Call(11, "shared", (small,))])
    assert out[0].mutated == "args[0][0][1]"
    assert out[0].value == [[1.0, 6.0], [5.0, 6.0], [1.0, 6.0]]
    assert small == [[1.0, 2.0], [5.0, 6.0], [1.0, 2.0]] and out[1].mutated is None


def test_a_second_call_meets_the_first_ones_objects_changed_or_renewed(box: Sandbox) -> None:
    first, second = [[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0], [9.0, 0.5]]
    changed, renewed, plain, where = box.run(
        [
            Call(1, "kept", (second,), before=(first,), renew="changed"),
            Call(2, "kept", ([[0.25]],), before=([[0.75]],), renew="renewed"),
            Call(3, "kept", (second,)),
            Call(4, "same_address", ([[0.25]],), before=([[0.75]],), renew="renewed"),
        ]
    )
    # An answer kept by the table's id is the first call's, on the same object...
    assert changed.value == [[1.0, 2.0], [3.0, 4.0]] and changed.mutated is None
    # ... and on a new table made where the dropped one was: never this table's.
    assert renewed.value != [[0.25]] and renewed.mutated is None
    assert plain.value in (second, [[1.0, 2.0], [3.0, 4.0]], [[0.75]])  # by chance
    assert where.value is True


def test_a_first_call_that_changes_its_arguments_is_found(box: Sandbox) -> None:
    [out] = box.run(
        [Call(1, "stretch", ([[1.0, 2.0]], 0, 2.0), before=([[3.0, 4.0]], 0, 2.0), renew="changed")]
    )
    assert out.mutated == "args[0][0][1]"


def test_shared_values_are_fresh_per_call(box: Sandbox) -> None:
    table = [[float(r * 10 + c) for c in range(10)] for r in range(20)]
    calls = [
        Call(1, "stretch", (table, 2, 2.0)),
        Call(2, "lookup", (table, [2])),
        Call(3, "stretch", (table, 2, 2.0)),
    ]
    first, second, third = box.run(calls)
    assert first.mutated == "args[0][2][1]"
    assert second.value == [table[2]] and second.mutated is None
    assert third.value == first.value


def test_mults_count_real_multiplications(box: Sandbox) -> None:
    table = [[0.5 * (r + c) for c in range(4)] for r in range(6)]
    via, plain, unc = box.run(
        [
            Call(1, "lookup_via_one_hot", (table, [1, 2]), count=(0,)),
            Call(2, "lookup", (table, [1, 2]), count=(0,)),
            Call(3, "lookup", (table, [1, 2])),
        ]
    )
    assert via.mults == 2 * 6 * 4  # 0.0 * counted goes through __rmul__ too
    assert via.value == [table[1], table[2]] and via.mutated is None
    assert via.called == ("one_hot", "row_times_matrix")
    assert plain.mults == 0 and plain.value == [table[1], table[2]]
    assert all(type(x) is float for row in plain.value for x in row)
    assert unc.mults is None


def test_called_is_traced(box: Sandbox) -> None:
    [cos] = box.run([Call(1, "cosine", ([1.0, 0.0], [1.0, 1.0]))])
    assert cos.called == ("dot", "norm")
    assert abs(cos.value - math.sqrt(0.5)) < 1e-12


def test_memory_exhaustion_is_an_exception(basic: Path) -> None:
    with Sandbox(basic, names=NAMES, constants=CONSTANTS, memory_mb=256) as sb:
        sb.load()
        hog, hog_bytes, dot = sb.run(
            [Call(1, "hog", ()), Call(2, "hog_bytes", ()), Call(3, "dot", ([1.0], [1.0]))]
        )
        assert hog.kind == "raised" and hog.raised is not None
        assert hog.raised.type == "MemoryError"
        assert hog_bytes.kind == "raised" and hog_bytes.raised is not None
        assert hog_bytes.raised.type == "MemoryError"
        assert dot.value == 1.0 and sb.restarts == 0


# ---------------------------------------------------------------- failures and restarts


def test_crash_and_hang_cost_one_call_each(basic: Path) -> None:
    start = time.monotonic()
    limit = scaled(0.5)
    with Sandbox(basic, names=NAMES, constants=CONSTANTS, timeout=limit) as sb:
        sb.load()
        calls = [
            Call(1, "dot", ([1.0], [2.0])),
            Call(2, "die", ()),
            Call(3, "die", ()),
            Call(4, "norm", ([3.0, 4.0],)),
            Call(5, "hang", ()),
            Call(6, "hang", ()),
            Call(7, "dot", ([2.0], [2.0])),
        ]
        out = sb.run(calls)
        assert [o.id for o in out] == [1, 2, 3, 4, 5, 6, 7]
        assert [o.kind for o in out] == [
            "returned",
            "crashed",
            "skipped",
            "returned",
            "timeout",
            "skipped",
            "returned",
        ]
        assert "exited with status 7" in out[1].detail
        assert "die" in out[2].detail and "crashed" in out[2].detail
        assert out[3].value == 5.0 and out[6].value == 4.0
        assert "%g s" % limit in out[4].detail
        assert sb.restarts == 2 and sb.calls == 5
        later = sb.run([Call(8, "hang", ()), Call(9, "dot", ([1.0], [1.0]))])
        assert [o.kind for o in later] == ["skipped", "returned"]
    assert time.monotonic() - start < 8 * limit


def test_a_hang_in_a_nested_call_names_it_and_stops_it_in_the_next_child(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        """
        def norm(vec):
            while True:
                pass
        def dot(a, b):
            return sum(x * y for x, y in zip(a, b))
        def cosine(a, b):
            return dot(a, b) / (norm(a) * norm(b))
        def shape(vec):
            return norm(vec=vec)
    """,
    )
    calls = [
        Call(1, "cosine", ([1.0], [1.0])),
        Call(2, "shape", ([1.0],)),
        Call(3, "dot", ([2.0], [3.0])),
    ]
    with Sandbox(path, names=NAMES, constants=CONSTANTS, timeout=scaled(0.5)) as sb:
        assert sb.load().ok
        out = sb.run(calls)
    # The stack the child reports at the time limit names the function it was in.
    assert out[0].kind == "timeout" and "(while running norm)" in out[0].detail
    assert out[0].called == ("norm",)
    # In the new child norm is not run again, also when called by another function
    # (here with a keyword argument): the call raises instead of hanging.
    assert out[1].kind == "raised" and out[1].called == ("norm",)
    assert out[1].raised is not None and "not run again" in out[1].raised.message
    assert out[2].kind == "returned" and out[2].value == 6.0


def test_a_function_slow_on_every_call_has_a_budget(tmp_path: Path) -> None:
    factor = slowness()  # the calls and the limit slow down together
    path = write(
        tmp_path,
        """
        import time
        def norm(vec):
            time.sleep(%r)
            return 0.0
        def dot(a, b):
            return 0.0
    """
        % (0.3 * factor),
    )
    calls = [Call(i, "norm", ([1.0],)) for i in range(12)] + [Call(12, "dot", ([], []))]
    start = time.monotonic()
    with Sandbox(path, names=NAMES, constants=CONSTANTS, timeout=scaled(0.5, factor)) as sb:
        assert sb.load().ok
        out = sb.run(calls)
    took = time.monotonic() - start
    kinds = [o.kind for o in out[:12]]
    # 4 limits of 0.5 s: about six calls of 0.3 s answer, then the budget stops norm.
    assert 4 <= kinds.count("returned") <= 7, kinds
    assert "timeout" in kinds and kinds[-1] == "skipped"
    assert out[12].kind == "returned"  # other functions are still graded
    assert took < scaled(4.0, factor)


def test_answer_protocol_helpers() -> None:
    value = [1.5, (2, [3.0]), {"k": float("nan")}, None, True, "s", [0.25] * 9]
    text = __import__("json").dumps(encode(value), allow_nan=False)
    back = decode(text)
    assert back[:2] == [1.5, (2, [3.0])] and math.isnan(back[2]["k"])
    assert back[3:] == [None, True, "s", [0.25] * 9]
    table = [[float(r * c) for c in range(3)] for r in range(4)]
    packed = encode(table)
    assert packed["$"] == "f64rows" and decode(__import__("json").dumps(packed)) == table
    with pytest.raises(ValueError):
        encode({1, 2})


def test_grader_faults(basic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.engine.sandbox import child, isolation

    monkeypatch.setattr(isolation, "bwrap_path", lambda: None)
    isolation.bwrap_problem.cache_clear()
    try:
        with pytest.raises(SandboxError, match="not installed"):
            Sandbox(basic, isolation="bwrap", **LAB)
    finally:
        isolation.bwrap_problem.cache_clear()
    monkeypatch.setattr(child, "CHILD", Path("/nonexistent/_child"))
    with pytest.raises(SandboxError, match="missing"):
        Sandbox(basic, **LAB)
    monkeypatch.undo()
    with pytest.raises(SandboxError):
        Sandbox(basic, python="/nonexistent/python3", **LAB).load()
    assert CHILD.is_dir()


def test_temporary_directory_is_removed(basic: Path) -> None:
    with Sandbox(basic, names=NAMES, constants=CONSTANTS) as sb:
        sb.load()
        tmp = sb._tmp
        assert tmp is not None and os.path.isdir(tmp)
        pid = sb._proc.pid if sb._proc else 0
    assert not os.path.exists(tmp)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.skipif(not os.path.exists(PY38), reason="no Python 3.8 here")
def test_python38(basic: Path) -> None:
    with Sandbox(basic, python=PY38, names=NAMES, constants=CONSTANTS, timeout=scaled(1.0)) as sb:
        loaded = sb.load()
        assert loaded.ok, loaded.traceback
        assert sb.python_version.startswith("3.8.")
        out = sb.run(
            [
                Call(1, "special", ("myfloat",)),
                Call(2, "cosine", ([1.0], [2.0])),
                Call(3, "lookup_via_one_hot", ([[1.0, 2.0], [3.0, 4.0]], [1]), (0,)),
                Call(4, "hog", ()),
            ]
        )
        assert out[0].value == Foreign("MyFloat", "float", 1.5)
        assert out[1].value == 1.0 and out[1].called == ("dot", "norm")
        assert out[2].mults == 4 and out[2].value == [[3.0, 4.0]]
        assert out[3].raised is not None and out[3].raised.type == "MemoryError"


@pytest.mark.skipif(not os.path.exists(PY38), reason="no Python 3.8 here")
def test_python38_open_without_encoding(tmp_path: Path) -> None:
    """open() without an encoding imports _bootlocale on 3.8, a module of its library
    that newer Pythons lack: the watcher must not replace it, or the file is ASCII."""
    path = write(
        tmp_path,
        """
        def norm(vec):
            with open("written.md", "w") as out:
                out.write("## \\ubb34\\uc5c7\\uc744 \\uc7ac\\ub098\\n")
                return out.encoding
    """,
    )
    with Sandbox(path, python=PY38, timeout=scaled(1.0), **LAB) as sb:
        loaded = sb.load()
        assert loaded.ok and loaded.third_party == (), loaded.traceback
        (out,) = sb.run([Call(1, "norm", ([1.0],))])
        assert out.kind == "returned", out.raised
        assert out.value.lower().replace("-", "") == "utf8"


def test_speed(box: Sandbox) -> None:
    start = time.perf_counter()
    out = box.run([Call(i, "dot", ([1.0, 2.0], [3.0, 4.0])) for i in range(300)])
    elapsed = time.perf_counter() - start
    assert all(o.value == 11.0 for o in out)
    assert elapsed < scaled(0.5), elapsed
    assert sys.version_info >= (3, 10)


def test_a_start_that_fails_before_the_child_runs_leaves_no_folder(
    basic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start stopped between making the child's folder and starting the child (here
    no cgroup can be made) removes that folder at once, without a close."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def broken(_pids_max: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(processes.Cgroup, "make", broken)
    sb = Sandbox(basic, names=NAMES, constants=CONSTANTS)
    with pytest.raises(KeyboardInterrupt):
        sb.load()
    assert list(tmp_path.iterdir()) == []
    sb.close()


def test_the_sandbox_imports_no_lab() -> None:
    """The sandbox is the engine's: what a lab's module is asked for comes from its caller."""
    import ast

    import grader.engine.sandbox as package

    folder = Path(package.__file__).parent
    modules = sorted(folder.glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                imported = [node.module or ""]
            elif isinstance(node, ast.Import):
                imported = [alias.name for alias in node.names]
            else:
                continue
            for name in imported:
                assert name.split(".")[:2] != ["grader", "labs"], (path.name, name)


def test_a_spawned_child_is_taken_over_once_and_not_after_an_abort(basic: Path) -> None:
    with Sandbox(basic, names=NAMES, constants=CONSTANTS, timeout=scaled(2.0)) as sb:
        sb.spawn()
        first = sb._proc
        assert first is not None
        sb.spawn()  # a second spawn keeps the child it has
        assert sb._proc is first
        assert sb.load().ok
        assert sb._proc is first  # the load took the spawned child over
    with Sandbox(basic, names=NAMES, constants=CONSTANTS, timeout=scaled(2.0)) as sb:
        sb.spawn()
        pid = sb._proc.pid if sb._proc is not None else -1
        sb.abort()  # the grader is stopping
        with pytest.raises(SandboxError, match="closed"):
            sb.load()
        assert sb._proc is None and sb._tmp is None
        assert (procfs.stat(str(pid)) or (b"gone",))[0] in (b"Z", b"gone")


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.booleans()))
def test_a_number_is_written_as_the_json_encoder_writes_it(x: object) -> None:
    from grader.engine.sandbox import encoding

    assert encoding.encoded(x) == (encoding.dumps(encoding.encode(x)), ())


def test_float_rows_are_not_searched_for_shared_rows() -> None:
    # Only a list holding lists can have items that are one object: the rows of a
    # table are copied without a per-item pass over their numbers.
    space: dict = {"__name__": "child_under_test"}
    exec(compile(child_program(CHILD), "<child>", "exec", dont_inherit=True), space)
    searched = []
    first_places = space["_first_places"]

    def counting(m: list) -> object:
        searched.append(len(m))
        return first_places(m)

    space["_first_places"] = counting
    row = [0.5, -0.0, 2.0]
    table = [row, [1.0, 2.0, 3.0], row]
    copy = space["plan"](table)(table)
    assert searched == [3]
    assert copy == table and copy[0] is copy[2] and copy[0] is not row
    assert math.copysign(1.0, copy[0][1]) == -1.0


def test_a_table_of_plain_rows_is_planned_in_one_pass() -> None:
    # Rows that are lists of plain values are each copied with a slice: the plan of
    # the table says so at once, without a plan made for each row; rows that are one
    # object, or that hold more than plain values, are still planned one by one.
    space: dict = {"__name__": "child_under_test"}
    exec(compile(child_program(CHILD), "<child>", "exec", dont_inherit=True), space)
    planned = []
    plan = space["plan"]

    def counting(m: object) -> object:
        planned.append(m)
        return plan(m)

    space["plan"] = counting
    table = [[0.5, -0.0, 2.0], [1.0, 2.0, 3.0], [], [4.0, 5.0, 6.0]]
    copy = counting(table)(table)
    assert len(planned) == 1
    assert copy == table and all(a is not b for a, b in zip(copy, table))
    assert math.copysign(1.0, copy[0][1]) == -1.0
    planned.clear()
    row = [1.0, 2.0]
    nested = [[row, row], [[3.0], [4.0]]]
    copy = counting(nested)(nested)
    assert len(planned) > 1
    assert copy == nested and copy[0][0] is copy[0][1] and copy[0][0] is not row
