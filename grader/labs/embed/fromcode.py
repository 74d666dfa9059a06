"""Step 8 from the code: what the module's own functions give for the report's inputs.

The report step grades the files that the module's ``write_report`` writes in the
child (``Sandbox.write_report``).  So that a writer cannot type its figures by
hand, each figure must also agree with what the module's functions return for the
fixed constants (VOCAB, DIM, SEED, the probe, K, the stretch and vocabulary
factors).  :func:`calls` lists those calls; :func:`measure` turns their outcomes
into one :class:`Measured` per report key.

A figure that comes from a chain of functions (the probe's neighbours in the
stretched table, say) is measured link by link: every call gets its input from the
oracle (the fixed table, the probe's row, the stretched table, the scaled rows),
and each link whose answer feeds a later one (``make_table``, ``lookup``,
``stretch``, ``scaled_lookup``, the fifth cosine neighbour) must itself give the
oracle's value, or the figures after it are not what the module computes.  Nothing
here runs student code: answers arrive as plain decoded values.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.sandbox import Call, Foreign, Outcome, answer_limit
from grader.engine.vocabulary.compare import diff
from grader.labs.embed import fixed
from grader.labs.embed.contract import (
    ATOL,
    CONSTANTS,
    PROBE,
    RTOL,
    STRETCH_FACTOR,
    STRETCH_RANK,
    VOCAB_FACTOR,
    Answer,
    K,
)

V, D, SEED = CONSTANTS["VOCAB"], CONSTANTS["DIM"], CONSTANTS["SEED"]


@frozen
class Measured:
    """What the module's functions give for one report key.

    ``ok`` is False when they give nothing usable; ``code`` and ``params`` then name
    the message that says why.  ``functions`` are the contract functions the value
    comes from (a failure is attributed to those that fail their own checks).
    """

    key: str
    ok: bool
    value: Any = None
    source: str = ""
    functions: tuple[str, ...] = ()
    code: str = ""
    params: dict[str, Any] = field(default_factory=dict)


@frozen
class _Link:
    name: str
    fn: str
    args: tuple[Any, ...]
    shown: str  # the call as people read it
    check: Callable[[Any], bool] | None = None  # the answer feeds later links: is it right?


@functools.lru_cache(maxsize=1)
def _links() -> tuple[_Link, ...]:
    # The checks' own table, the very object: the child receives it once.
    values = fixed.inputs()  # the expected figures are worked out later
    table = values["table"]
    row = table[PROBE]
    target = values["target"]
    other = table[target]
    stretched = values["stretched"]
    scaled = values["scaled"]
    p, t = PROBE, target

    def matrix(expected: list[list[float]]) -> Callable[[Any], bool]:
        return lambda got: diff(Answer.MATRIX, expected, got, count=False) is None

    def fifth(got: Any) -> bool:
        items = _ints(got)
        return items is not None and len(items) > STRETCH_RANK and items[STRETCH_RANK] == t

    T = "make_table(%d, %d, %d)" % (V, D, SEED)
    S = "stretch(table, %d, %r)" % (t, STRETCH_FACTOR)
    return (
        _Link("table", "make_table", (V, D, SEED), T, matrix(table)),
        _Link("shape", "shape", (table,), "shape(table)"),
        _Link("params", "param_count", (V, D), "param_count(%d, %d)" % (V, D)),
        _Link("tied", "tied_params", (V, D), "tied_params(%d, %d)" % (V, D)),
        _Link("untied", "untied_params", (V, D), "untied_params(%d, %d)" % (V, D)),
        _Link(
            "growth",
            "vocab_growth",
            (V, D, VOCAB_FACTOR),
            "vocab_growth(%d, %d, %d)" % (V, D, VOCAB_FACTOR),
        ),
        _Link("mults", "one_hot_mults", (V, D, 1), "one_hot_mults(%d, %d, 1)" % (V, D)),
        _Link("row", "lookup", (table, [p]), "lookup(table, [%d])" % p, matrix([row])),
        _Link("via", "lookup_via_one_hot", (table, [p]), "lookup_via_one_hot(table, [%d])" % p),
        _Link("twice", "lookup", (table, [p, p]), "lookup(table, [%d, %d])" % (p, p)),
        _Link("logits", "logits", (table, row), "logits(table, table[%d])" % p),
        _Link(
            "cos",
            "nearest_by_cosine",
            (table, p, K),
            "nearest_by_cosine(table, %d, %d)" % (p, K),
            fifth,
        ),
        _Link("dot", "nearest_by_dot", (table, p, K), "nearest_by_dot(table, %d, %d)" % (p, K)),
        _Link("stretched", "stretch", (table, t, STRETCH_FACTOR), S, matrix(stretched)),
        _Link(
            "cos_after",
            "nearest_by_cosine",
            (stretched, p, K),
            "nearest_by_cosine(%s, %d, %d)" % (S, p, K),
        ),
        _Link(
            "dot_after",
            "nearest_by_dot",
            (stretched, p, K),
            "nearest_by_dot(%s, %d, %d)" % (S, p, K),
        ),
        _Link(
            "scaled",
            "scaled_lookup",
            (table, [p, t], D),
            "scaled_lookup(table, [%d, %d], %d)" % (p, t, D),
            matrix(scaled),
        ),
        _Link("other", "lookup", (table, [t]), "lookup(table, [%d])" % t, matrix([other])),
        _Link("cos_self", "cosine", (row, scaled[0]), "cosine(table[%d], scaled[0])" % p),
        _Link("cos_scaled", "cosine", (scaled[0], scaled[1]), "cosine(scaled[0], scaled[1])"),
        _Link("cos_plain", "cosine", (row, other), "cosine(table[%d], table[%d])" % (p, t)),
        _Link("rms_plain", "rms", (row,), "rms(table[%d])" % p),
        _Link("rms_scaled", "rms", (scaled[0],), "rms(scaled[0])"),
    )


# Values from answers -------------------------------------------------------------------


def _plain(value: Any) -> Any:
    if isinstance(value, Foreign) and value.base in ("float", "list", "tuple", "dict"):
        return value.value
    return value


def _number(value: Any) -> float | int:
    value = _plain(value)
    if type(value) not in (int, float):
        raise TypeError("not a number")
    return value


def _seq(value: Any) -> list[Any]:
    value = _plain(value)
    if type(value) not in (list, tuple):
        raise TypeError("not a list")
    return list(value)


def _ints(value: Any) -> list[int] | None:
    try:
        items = _seq(value)
    except TypeError:
        return None
    return items if all(type(i) is int for i in items) else None


def _index_list(value: Any) -> list[int]:
    items = _ints(value)
    if items is None:
        raise TypeError("not a list of ints")
    return items


def _argmax(scores: list[Any]) -> int:
    values = [_number(s) for s in scores]
    if not values:
        raise ValueError("no logits")
    return max(range(len(values)), key=lambda i: (values[i], -i))


def _max_abs_diff(a: Any, b: Any) -> float:
    x, y = _seq(_seq(a)[0]), _seq(_seq(b)[0])
    if len(x) != len(y) or not x:
        raise ValueError("rows of different lengths")
    return max(abs(_number(p) - _number(q)) for p, q in zip(x, y))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= ATOL + RTOL * abs(b)


def _unchanged(a: Mapping[str, Any]) -> bool:
    with_itself = _close(float(_number(a["cos_self"])), 1.0)
    both_rows = _close(float(_number(a["cos_scaled"])), float(_number(a["cos_plain"])))
    return with_itself or both_rows


def _ratio(a: Mapping[str, Any]) -> float:
    plain, scaled = float(_number(a["rms_plain"])), float(_number(a["rms_scaled"]))
    if plain == 0 or not math.isfinite(plain) or not math.isfinite(scaled):
        raise ValueError("no ratio")
    return scaled / plain


def _growth(key: str) -> Callable[[Mapping[str, Any]], Any]:
    def get(a: Mapping[str, Any]) -> Any:
        counts = _plain(a["growth"])
        if not isinstance(counts, dict) or key not in counts:
            raise KeyError(key)
        return _number(counts[key])

    return get


def _rows_equal(a: Mapping[str, Any]) -> bool:
    rows = _seq(a["twice"])
    if len(rows) != 2:
        raise ValueError("not two rows")
    first, second = _seq(rows[0]), _seq(rows[1])
    return [float(_number(x)) for x in first] == [float(_number(x)) for x in second]


Derive = Callable[[Mapping[str, Any]], Any]

# report key -> (the links it needs, how its value follows from their answers)
KEYS: dict[str, tuple[tuple[str, ...], Derive]] = {
    "table_shape": (("table", "shape"), lambda a: [_number(n) for n in _seq(a["shape"])]),
    "params": (("params",), lambda a: _number(a["params"])),
    "tied_params": (("tied",), lambda a: _number(a["tied"])),
    "untied_params": (("untied",), lambda a: _number(a["untied"])),
    "saved": (("growth",), _growth("saved")),
    "bigger_vocab": (("growth",), _growth("bigger_vocab")),
    "bigger_tied": (("growth",), _growth("bigger_tied")),
    "bigger_untied": (("growth",), _growth("bigger_untied")),
    "one_hot_mults": (("mults",), lambda a: _number(a["mults"])),
    "max_abs_diff": (("table", "row", "via"), lambda a: _max_abs_diff(a["row"], a["via"])),
    "repeat_same": (("table", "twice"), _rows_equal),
    "logit_len": (("table", "row", "logits"), lambda a: len(_seq(a["logits"]))),
    "logit_argmax": (("table", "row", "logits"), lambda a: _argmax(_seq(a["logits"]))),
    "logit_argmax_is_self": (
        ("table", "row", "logits"),
        lambda a: _argmax(_seq(a["logits"])) == PROBE,
    ),
    "cos_neighbors": (("table", "cos"), lambda a: _index_list(a["cos"])),
    "dot_neighbors": (("table", "dot"), lambda a: _index_list(a["dot"])),
    "neighbors_differ": (
        ("table", "cos", "dot"),
        lambda a: _index_list(a["cos"]) != _index_list(a["dot"]),
    ),
    "stretch_target": (("table", "cos"), lambda a: _index_list(a["cos"])[STRETCH_RANK]),
    "cos_after_stretch": (
        ("table", "cos", "stretched", "cos_after"),
        lambda a: _index_list(a["cos_after"]),
    ),
    "dot_after_stretch": (
        ("table", "cos", "stretched", "dot_after"),
        lambda a: _index_list(a["dot_after"]),
    ),
    "cos_unchanged_by_scale": (
        ("table", "row", "cos", "scaled", "other", "cos_self", "cos_scaled", "cos_plain"),
        _unchanged,
    ),
    "rms_plain": (("table", "row", "rms_plain"), lambda a: float(_number(a["rms_plain"]))),
    "rms_scaled": (
        ("table", "cos", "scaled", "rms_scaled"),
        lambda a: float(_number(a["rms_scaled"])),
    ),
    "rms_ratio": (("table", "row", "cos", "scaled", "rms_plain", "rms_scaled"), _ratio),
}

# Keys the module states as constants: the figure must equal the module's constant.
CONSTANT_KEYS = {"vocab": "VOCAB", "dim": "DIM", "seed": "SEED"}


def calls(first_id: int) -> list[Call]:
    """The calls that measure the report's values, with ids from ``first_id`` on.

    No right answer among them is larger than the fixed table, so each may take the
    bytes that the table's answer may take.
    """
    limit = _limit()
    return [Call(first_id + i, link.fn, link.args, (), limit) for i, link in enumerate(_links())]


@functools.lru_cache(maxsize=1)
def _limit() -> int:
    return answer_limit(fixed.inputs()["table"])


def measure(outcomes: Sequence[Outcome], constants: Mapping[str, Any]) -> dict[str, Measured]:
    """One Measured per report key that the module's code gives.

    ``outcomes`` answer :func:`calls` in the same order; ``constants`` are the
    module's names as loaded (VOCAB, DIM, SEED).  Keys whose value the contract
    fixes without a function (``probe``, ``lookup_mults``, ``stretch_factor``) are
    left out: only the oracle judges them.
    """
    links = _links()
    by_name = dict(zip((link.name for link in links), zip(links, outcomes)))
    out: dict[str, Measured] = {}
    for key, name in CONSTANT_KEYS.items():
        value = constants.get(name, "missing")
        if type(value) in (int, float):
            out[key] = Measured(key, True, value, name)
        else:
            out[key] = Measured(
                key, False, source=name, code="report.measure.constant", params={"name": name}
            )
    problems = _problems([by_name[link.name] for link in links])
    for key, (needs, derive) in KEYS.items():
        used = [by_name[n] for n in needs]
        # Blame goes to the link that went wrong, else to the links whose answers make
        # the value (the links checked on the way gave the grader's own values).
        functions = tuple(dict.fromkeys(link.fn for link, _ in used if link.check is None))
        source = used[-1][0].shown
        problem = next((problems[n] for n in needs if problems[n] is not None), None)
        if problem is not None:
            code, params = problem
            out[key] = Measured(
                key, False, source=source, functions=(params["fn"],), code=code, params=params
            )
            continue
        try:
            value = derive({link.name: o.value for link, o in used})
        except (TypeError, ValueError, KeyError, IndexError, OverflowError):
            out[key] = Measured(
                key,
                False,
                source=source,
                functions=functions,
                code="report.measure.unusable",
                params={"call": source},
            )
            continue
        out[key] = Measured(key, True, value, source, functions)
    return out


def _problems(
    used: list[tuple[_Link, Outcome]],
) -> dict[str, tuple[str, dict[str, Any]] | None]:
    """For each link: why it gives nothing to build on (None when its answer is usable)."""
    return {link.name: _problem(link, outcome) for link, outcome in used}


def _problem(link: _Link, outcome: Outcome) -> tuple[str, dict[str, Any]] | None:
    """Why a link gives no value: it did not answer, or an answer that feeds others is wrong."""
    if outcome.kind == "returned":
        if link.check is not None and not link.check(outcome.value):
            return "report.measure.wrong_link", {"call": link.shown, "fn": link.fn}
        return None
    if outcome.kind == "raised" and outcome.raised is not None:
        if outcome.raised.type == "NotImplementedError":
            return "report.measure.not_started", {"call": link.shown, "fn": link.fn}
        return "report.measure.raised", {
            "call": link.shown,
            "fn": link.fn,
            "raised": outcome.raised.type,
            "error": outcome.raised.message[:200],
        }
    return "report.measure.no_answer", {
        "call": link.shown,
        "fn": link.fn,
        "detail": outcome.detail or outcome.kind,
    }
