"""The mutation run: each operator's change, stable ids, the list of equivalents."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest
from timelimits import scaled

from mutants.operators import OPERATORS, mutants_of
from mutants.run import (
    Equivalent,
    Outcome,
    grade_file,
    load_equivalents,
    reference_mutants,
    summarize,
)

TINY = textwrap.dedent(
    '''
    def f(a, b, xs):
        """A docstring is never mutated."""
        if a < b and b != 0:
            raise ValueError("a is %d" % (a - 1))
        y = -a + 2 * b
        total = sum(x for x in xs if x)
        return xs[a:b], xs[a], y, total

    def g(k):
        return sorted([3, 1], key=lambda v: v)[:k]
    '''
)


def changes(source: str, operator: str, names: tuple[str, ...] = ("f",)) -> list[str]:
    return [m.change for m in mutants_of(source, names) if m.operator == operator]


def test_arith_swap() -> None:
    assert changes(TINY, "ArithSwap") == [
        "y = -a + 2 * b -> y = -a - 2 * b",
        "y = -a + 2 * b -> y = -a + 2 / b",
    ]


def test_unary_drop() -> None:
    assert changes(TINY, "UnaryDrop") == ["y = -a + 2 * b -> y = a + 2 * b"]
    source = "def h(v):\n    if not v:\n        return 1\n"
    assert changes(source, "UnaryDrop", ("h",)) == ["if not v: -> if v:"]
    # A test that starts with `not` is only dropped, never wrapped in another `not`.
    assert changes(source, "NegateCondition", ("h",)) == []


def test_compare_swap() -> None:
    assert changes(TINY, "CompareSwap") == [
        "if a < b and b != 0: -> if a <= b and b != 0:",
        "if a < b and b != 0: -> if a < b and b == 0:",
    ]
    source = "def h(a, b):\n    return a >= b, a in b, a is not b\n"
    assert changes(source, "CompareSwap", ("h",)) == [
        "return (a >= b, a in b, a is not b) -> return (a > b, a in b, a is not b)",
        "return (a >= b, a in b, a is not b) -> return (a >= b, a not in b, a is not b)",
        "return (a >= b, a in b, a is not b) -> return (a >= b, a in b, a is b)",
    ]


def test_const_shift_plus_then_minus() -> None:
    assert changes(TINY, "ConstShift") == [
        "if a < b and b != 0: -> if a < b and b != 1:",
        "if a < b and b != 0: -> if a < b and b != -1:",
        "y = -a + 2 * b -> y = -a + 3 * b",
        "y = -a + 2 * b -> y = -a + 1 * b",
    ]


def test_bool_swap() -> None:
    assert changes(TINY, "BoolSwap") == ["if a < b and b != 0: -> if a < b or b != 0:"]


def test_negate_condition() -> None:
    assert changes(TINY, "NegateCondition") == [
        "if a < b and b != 0: -> if not (a < b and b != 0):",
        "total = sum((x for x in xs if x)) -> total = sum((x for x in xs if not x))",
    ]


def test_return_none() -> None:
    assert changes(TINY, "ReturnNone") == [
        "return (xs[a:b], xs[a], y, total) -> return None",
    ]
    assert changes(TINY, "ReturnNone", ("g",)) == [
        "return sorted([3, 1], key=lambda v: v)[:k] -> return None",
        "return sorted([3, 1], key=lambda v: v)[:k] -> return sorted([3, 1], key=lambda v: None)[:k]",
    ]


def test_index_shift() -> None:
    old = "return (xs[a:b], xs[a], y, total) -> "
    assert changes(TINY, "IndexShift") == [
        old + "return (xs[a + 1:b], xs[a], y, total)",
        old + "return (xs[a - 1:b], xs[a], y, total)",
        old + "return (xs[a:b + 1], xs[a], y, total)",
        old + "return (xs[a:b - 1], xs[a], y, total)",
        old + "return (xs[a:b], xs[a + 1], y, total)",
        old + "return (xs[a:b], xs[a - 1], y, total)",
    ]
    # Constant bounds are ConstShift's.
    assert changes(TINY, "ConstShift", ("g",))[:2] == [
        "return sorted([3, 1], key=lambda v: v)[:k] -> return sorted([4, 1], key=lambda v: v)[:k]",
        "return sorted([3, 1], key=lambda v: v)[:k] -> return sorted([2, 1], key=lambda v: v)[:k]",
    ]


def test_delete_statement() -> None:
    assert changes(TINY, "DeleteStatement") == [
        "if a < b and b != 0: / raise ValueError('a is %d' % (a - 1)) -> pass",
        "raise ValueError('a is %d' % (a - 1)) -> pass",
        "y = -a + 2 * b -> pass",
        "total = sum((x for x in xs if x)) -> pass",
    ]


def test_docstrings_and_error_messages_are_left_alone() -> None:
    for m in mutants_of(TINY, ("f",)):
        assert "A docstring is never mutated." in m.source, m.id
        if m.operator != "DeleteStatement":
            assert "raise ValueError('a is %d' % (a - 1))" in m.source, m.id


def test_every_operator_has_a_case_here() -> None:
    assert {m.operator for m in mutants_of(TINY, ("f", "g"))} == set(OPERATORS)


def test_ids_count_per_function_and_operator() -> None:
    ids = [m.id for m in mutants_of(TINY, ("f", "g"))]
    assert len(ids) == len(set(ids))
    assert ids[:3] == ["f:0:NegateCondition", "f:0:DeleteStatement", "f:0:BoolSwap"]
    # A change to g never renumbers the mutants of f.
    grown = TINY.replace("return sorted", "k = k * 1\n    return sorted")
    assert [m.id for m in mutants_of(grown, ("f",))] == [m.id for m in mutants_of(TINY, ("f",))]


def test_private_helpers_are_mutated_with_their_callers() -> None:
    source = "def _h(x):\n    return x + 1\n\ndef f(x):\n    return _h(x)\n\ndef _unused(x):\n    return x - 1\n"
    functions = {m.function for m in mutants_of(source, ("f",))}
    assert functions == {"_h", "f"}


def test_the_rest_of_the_module_is_kept_as_written() -> None:
    m = mutants_of(TINY, ("f",))[0]
    assert m.source.splitlines()[-2:] == TINY.splitlines()[-2:]


def test_every_reference_mutant_compiles_and_differs() -> None:
    original = ast.dump(ast.parse(Path("embed.py").read_text(encoding="utf-8")))
    mutants = reference_mutants()
    assert len(mutants) > 100
    for m in mutants:
        assert ast.dump(ast.parse(m.source)) != original, m.id
        assert m.removed or m.added, m.id


def test_every_listed_equivalent_exists_with_its_change_and_a_reason() -> None:
    by_id = {m.id: m for m in reference_mutants()}
    for entry in load_equivalents().values():
        assert entry.id in by_id, entry.id
        assert by_id[entry.id].change == entry.change, entry.id
        assert len(entry.reason) > 20


def test_summary_counts_and_flags() -> None:
    mutants = mutants_of(TINY, ("g",))
    a, b, c = mutants[0], mutants[1], mutants[2]
    listed = {
        b.id: Equivalent(b.id, b.change, "why"),
        c.id: Equivalent(c.id, "something else", "why"),
        "g:99:ArithSwap": Equivalent("g:99:ArithSwap", "x", "why"),
    }
    outcomes = [
        Outcome(a.id, killed=False, failing=()),
        Outcome(b.id, killed=True, failing=("g.values",)),
        Outcome(c.id, killed=False, failing=()),
    ]
    s = summarize(mutants, outcomes, listed)
    assert (s.mutants, s.killed, s.equivalent) == (3, 0, 2)
    assert [m.id for m in s.survivors] == [a.id]
    assert [(e.id, why.split(":")[0]) for e, why in s.wrongly_listed] == [
        (b.id, "killed by g.values"),
        (c.id, "the mutant now makes another change"),
        ("g:99:ArithSwap", "no such mutant"),
    ]
    assert not s.ok
    assert s.score == 0.0
    clean = summarize(mutants[:1], [Outcome(a.id, killed=True, failing=("x",))], {})
    assert clean.ok and clean.score == 100.0


def _grade(mutant_id: str, tmp_path: Path) -> Outcome:
    mutant = next(m for m in reference_mutants() if m.id == mutant_id)
    path = tmp_path / "embed.py"
    path.write_text(mutant.source, encoding="utf-8")
    return grade_file(str(path), seed=1, timeout=scaled(3.0), ident=mutant_id)


def test_a_wrong_sum_is_killed(tmp_path: Path) -> None:
    outcome = _grade("dot:0:ArithSwap", tmp_path)  # total -= x * y
    assert outcome.killed and not outcome.error
    assert "dot.values" in outcome.failing


@pytest.mark.parametrize("mutant_id", sorted(load_equivalents()))
def test_a_listed_equivalent_passes_every_check(mutant_id: str, tmp_path: Path) -> None:
    outcome = _grade(mutant_id, tmp_path)
    assert not outcome.killed and not outcome.error, outcome.failing
