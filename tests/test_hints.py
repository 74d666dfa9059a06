"""Hints name the mistake behind a wrong answer (and only then)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import grade
from grader.engine.messages import text
from grader.labs.embed import hints

ROOT = Path(__file__).resolve().parents[1]
WRONG = ROOT / "tests" / "corpus" / "wrong"

# sample module -> (the check that fails first, the hint it must carry)
EXPECTED = {
    "make_table_column_order.py": ("make_table.values", "hint.make_table.columns"),
    "make_table_not_shifted.py": ("make_table.values", "hint.make_table.unshifted"),
    "param_count_sum.py": ("param_count.values", "hint.param_count.sum"),
    "lookup_negative_ids_pass.py": ("lookup.out_of_range", "hint.lookup.wraps"),
    "row_times_matrix_one_hot_only.py": ("row_times_matrix.values", None),
    "logits_softmax.py": ("logits.values", "hint.logits.softmax"),
    "untied_not_doubled.py": ("untied_params.values", "hint.untied.not_doubled"),
    "vocab_growth_saved_at_bigger.py": ("vocab_growth.values", "hint.vocab_growth.saved_bigger"),
    "cosine_not_divided.py": ("cosine.values", "hint.cosine.dot"),
    "cosine_zero_division.py": ("cosine.no_direction", "hint.cosine.zero"),
    "norm_no_sqrt.py": ("norm.values", "hint.norm.squared"),
    "nearest_by_cosine_keeps_probe.py": ("nearest_by_cosine.values", "hint.nearest.self"),
    "nearest_by_dot_ties_larger_index.py": ("nearest_by_dot.ties", "hint.nearest.tie_larger"),
    "nearest_by_cosine_ranks_by_dot.py": ("nearest_by_cosine.values", "hint.nearest.by_dot"),
    "rms_no_mean.py": ("rms.values", "hint.rms.no_mean"),
    "scaled_lookup_by_d.py": ("scaled_lookup.values", "hint.scaled.by_d"),
    "scaled_lookup_row_length.py": ("scaled_lookup.dim_argument", "hint.scaled.width"),
    "stretch_shared_row.py": ("stretch.inputs", "hint.stretch.copy"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_known_mistake_is_named(name):
    check_id, code = EXPECTED[name]
    report = grade(WRONG / name, seed=21, check_reports=False, lang="en")
    by_id = {c.id: c for c in report.checks}
    assert not by_id[check_id].ok
    if code is None:
        return
    assert by_id[check_id].hint == text(code, "en"), by_id[check_id].message


def test_a_right_answer_never_carries_a_hint():
    report = grade(ROOT / "embed.py", seed=21, check_reports=False)
    assert all(not c.hint for c in report.checks)


def _check(name, check_id, **options):
    report = grade(WRONG / name, seed=21, check_reports=False, lang="en", **options)
    return {c.id: c for c in report.checks}[check_id]


def test_a_hint_needs_the_type_as_well_as_the_value():
    # saved = untied / 2 is a float; at factor 1 it equals the int that "saved
    # computed at the bigger vocabulary" gives, but that mistake gives an int.
    check = _check("vocab_growth_saved_float.py", "vocab_growth.values")
    assert check.code == "int_type", check.message
    assert check.hint != text("hint.vocab_growth.saved_bigger", "en")
    assert not check.hint


def test_a_listed_probe_is_not_blamed_on_a_wrong_cosine():
    check = _check("nearest_by_cosine_keeps_probe_cosine_absolute.py", "nearest_by_cosine.values")
    assert check.code == "neigh_self", check.message
    assert check.hint == text("hint.nearest.self", "en")
    assert check.caused_by == ()
    assert _check("nearest_by_cosine_keeps_probe_cosine_absolute.py", "cosine.values").hint


def test_a_division_in_the_function_itself_is_not_blamed_on_its_callee():
    check = _check("rms_empty_raises_dot_skips_last.py", "rms.values")
    assert check.message.startswith("rms([]): raised ZeroDivisionError"), check.message
    assert check.caused_by == ()
    # A wrong value that does come from dot still names it.
    assert _check("rms_empty_raises_dot_skips_last.py", "norm.values").caused_by == ("dot",)


def test_a_negative_id_hint_needs_the_rows_it_would_give():
    table = [[0.25, -0.5], [1.5, 2.0]]
    assert hints.guess_raise("lookup", (table, [-1]), [[1.5, 2.0]]) == "hint.lookup.wraps"
    # A row of zeros for an unknown id is not what counting from the end gives.
    assert hints.guess_raise("lookup", (table, [-1]), [[0.0, 0.0]]) is None
    scaled = [[1.5 * 2**0.5, 2.0 * 2**0.5]]
    assert hints.guess_raise("scaled_lookup", (table, [-1], 2), scaled) == "hint.lookup.wraps"
    assert hints.guess_raise("scaled_lookup", (table, [-1], 2), [[1.5, 2.0]]) is None
