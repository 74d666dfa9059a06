"""Hints name the mistake behind a wrong answer (and only then)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader import grade
from grader.messages import text

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
