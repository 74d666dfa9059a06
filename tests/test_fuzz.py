"""No line from the child can make a grader error: random and mutated protocol lines.

Student code can write to the protocol pipe itself, so every field of every message
may be forged.  Whatever arrives, the grading finishes, blames the submission and
renders in every format.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from timelimits import scaled

from grader import grade
from grader.engine import sandbox
from grader.engine.grading import grade as engine
from grader.engine.output.byformat import FORMATS, render
from grader.engine.sandbox import Call, Loaded, Outcome, Raised, decoding
from grader.labs.embed.contract import NAMES

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = [n.name for n in NAMES if not n.is_constant]
CONSTANTS = [n.name for n in NAMES if n.is_constant]
ALL = [n.name for n in NAMES]

leaves = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**90), max_value=2**90)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12)
    | st.sampled_from(["function", "missing", "nan", "inf", "-inf", "list", "AAAAAAAAAAA="])
)


def _tagged(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {
            "$": st.sampled_from(
                ["f64", "f64rows", "tuple", "float", "dict", "sub", "obj", "cut", 5]
            )
        },
        optional={
            "v": children | st.sampled_from(["AAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAA==", "!"]),
            "cols": children,
            "type": children,
            "base": children | st.sampled_from(["float", "list", "dict"]),
            "why": children,
        },
    )


values = st.recursive(
    leaves,
    lambda children: (
        st.lists(children, max_size=5)
        | st.dictionaries(st.text(max_size=4), children, max_size=4)
        | _tagged(children)
    ),
    max_leaves=25,
)

ANSWER: dict[str, Any] = {
    "id": 0,
    "ok": True,
    "value": 1.0,
    "elapsed": 0.001,
    "mutated": None,
    "called": [],
    "mults": None,
}
RAISED = {"type": "ValueError", "builtin": ["ValueError"], "message": "no", "line": 3}


@st.composite
def answers(draw: st.DrawFn) -> dict[str, Any]:
    """A well-formed answer with some fields replaced, removed or added."""
    msg = dict(ANSWER)
    if draw(st.booleans()):
        msg["ok"] = False
        msg["raised"] = dict(RAISED)
        if draw(st.booleans()):
            msg["raised"][draw(st.sampled_from(sorted(RAISED) + ["in"]))] = draw(values)
    for key in draw(st.lists(st.sampled_from(sorted(msg) + ["tainted", "op"]), max_size=3)):
        if draw(st.booleans()):
            msg.pop(key, None)
        else:
            msg[key] = draw(values)
    return msg


def read_answer(line: bytes | str, call: Call) -> Outcome:
    """What the parent makes of one answer line (as Sandbox._exchange does)."""
    try:
        data = decoding.decode(line)
        if type(data) is not dict or type(data.get("id")) is not int or data["id"] != call.id:
            raise decoding.OffProtocol("not the answer")
        got = decoding.answer(data, ALL)
    except decoding.OffProtocol:
        return Outcome(call.id, call.fn, "crashed", detail="the answer did not follow the protocol")
    return sandbox.Sandbox._outcome(None, call, got)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answers())
def test_an_answer_is_typed_or_off_protocol(msg: dict[str, Any]) -> None:
    out = read_answer(json.dumps(msg), Call(0, "dot", ()))
    assert out.kind in ("returned", "raised", "crashed")
    assert isinstance(out.elapsed, float) and math.isfinite(out.elapsed)
    assert out.mutated is None or isinstance(out.mutated, str)
    assert all(isinstance(n, str) and n in ALL for n in out.called)
    assert out.mults is None or type(out.mults) is int
    if out.kind == "raised":
        assert isinstance(out.raised, Raised) and isinstance(out.raised.type, str)
        assert all(isinstance(n, str) for n in out.raised.builtin)
    if out.kind == "returned":
        decoding.value(out.value)


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=200)
    | st.sampled_from([b"[" * 100000, b"1" * 100000, b'{"$": "f64", "v": "AAA"}', b"\xff"])
)
def test_any_bytes_are_typed_or_off_protocol(line: bytes) -> None:
    out = read_answer(line, Call(0, "dot", ()))
    assert out.kind in ("returned", "raised", "crashed")


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from(["names", "third_party", "error", "elapsed", "ok", "traceback"]))
def test_a_loaded_message_is_typed_or_off_protocol(junk: Any, field: str) -> None:
    msg: dict[str, Any] = {"op": "loaded", "ok": True, "names": {n: "function" for n in FUNCTIONS}}
    msg.update(third_party=[], error=None, traceback="", elapsed=0.0)
    msg[field] = junk
    try:
        got = decoding.loaded(decoding.decode(json.dumps(msg)), FUNCTIONS, CONSTANTS)
    except decoding.OffProtocol:
        return
    assert type(got.ok) is bool and type(got.traceback) is str
    assert all(type(n) is str for n in got.third_party)
    assert all(got.names[n] in decoding.STATES for n in FUNCTIONS if n in got.names)


def test_keys_that_share_a_hash_make_no_dict() -> None:
    """Inserting n keys of one hash costs n * n comparisons: such a dict stays pairs."""
    same = 2**61 - 1  # ints that differ by a multiple of it share a hash
    colliding = [[k * same, k] for k in range(1, 2000)]
    got = decoding.decode(json.dumps({"$": "dict", "v": colliding}))
    assert isinstance(got, decoding.Foreign) and got.why == "keys that share a hash"
    assert got.value[:2] == [(same, 1), (2 * same, 2)]
    tuples = [[{"$": "tuple", "v": [k * same, "x"]}, k] for k in range(1, 2000)]
    assert isinstance(decoding.decode(json.dumps({"$": "dict", "v": tuples})), decoding.Foreign)
    plain = decoding.decode(json.dumps({"$": "dict", "v": [[k, -k] for k in range(2000)]}))
    assert plain == {k: -k for k in range(2000)}
    few = [[k * same, k] for k in range(decoding.MAX_SAME_HASH)]
    assert decoding.decode(json.dumps({"$": "dict", "v": few})) == dict(few)


class Scripted:
    """Stands for Sandbox: answers every call with the next of some drawn lines."""

    lines: list[str] = []
    constants: dict[str, Any] = {}

    def __init__(self, path: Any, **kw: Any) -> None:
        self.calls = 0
        self.child_seconds = 0.0
        self.exposed = False  # as a child of process mode

    def __enter__(self) -> Scripted:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def abort(self) -> None:
        pass

    def close(self) -> None:
        pass

    def spawn(self) -> None:
        pass

    def load(self) -> Loaded:
        names: dict[str, Any] = {n: "function" for n in FUNCTIONS}
        names.update(self.constants)
        return Loaded(True, names, (), None, "", "", 0.0)

    def run(self, calls: list[Call], listen: Any = None, sent: Any = None) -> list[Outcome]:
        out = []
        for i, c in enumerate(calls):
            line = self.lines[i % len(self.lines)]
            out.append(read_answer(line.replace('"id": 0', '"id": %d' % c.id, 1), c))
            if listen is not None and out[-1].kind in ("returned", "raised"):
                listen(out[-1])
        return out


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    msgs=st.lists(answers(), min_size=1, max_size=12),
    constants=st.dictionaries(st.sampled_from(CONSTANTS), values, max_size=3),
)
def test_grading_any_answers_is_never_a_grader_error(
    msgs: list[dict[str, Any]], constants: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = {}
    for name, v in constants.items():
        try:
            checked[name] = decoding.value(decoding.decode(json.dumps(v)))
        except decoding.OffProtocol:
            pass
    Scripted.lines = [json.dumps(m) for m in msgs]
    Scripted.constants = checked
    monkeypatch.setattr(engine, "Sandbox", Scripted)
    report = grade(ROOT / "embed.py", seed=3, check_reports=False)
    assert not report.grader_error
    for fmt in FORMATS:
        assert render(report, fmt, "en")


FAKE = """#!{python}
import sys
sys.path.insert(0, {tests!r})
import fake_child
fake_child.main({seed})
"""


@pytest.mark.parametrize("seed", range(6))
def test_a_child_sending_random_lines_never_makes_a_grader_error(seed: int, tmp_path: Path) -> None:
    python = tmp_path / "python3"
    python.write_text(FAKE.format(python=sys.executable, tests=str(ROOT / "tests"), seed=seed))
    python.chmod(0o755)
    start = time.monotonic()
    report = grade(
        ROOT / "embed.py", seed=seed, check_reports=False, timeout=scaled(1.0), python=str(python)
    )
    assert time.monotonic() - start < scaled(60)
    assert not report.grader_error, report.grader_error
    assert report.calls > 0 or any(c.id == "imports.load" and not c.ok for c in report.checks)
    for fmt in FORMATS:
        assert render(report, fmt, "en")
