"""The rules the student's texts state about errors and open behaviour, in one list.

Each rule is one sentence, kept in the message catalogues under its code in every
language.  The exercise instructions (``exercises/README*.md``) and the docstrings of
the functions it names (``embed.py``, and so the generated stub) state it in exactly
those words.  A graded rule names the checks that grade it; an open rule names the
advisory checks (if any) that only note what happens.  ``tests/test_rules.py``
keeps this list, the checks and the texts in step.
"""

from __future__ import annotations

from grader.engine.frozen import frozen


@frozen
class Rule:
    code: str  # message code of the sentence that states the rule
    functions: tuple[str, ...]  # whose docstrings state it (none: a general rule)
    checks: tuple[str, ...]  # the checks that grade it (or, when open, note it)
    graded: bool
    raises: str = ""  # the exception a graded error rule asks for


RULES: tuple[Rule, ...] = (
    Rule(
        "rule.ragged",
        ("shape", "row_times_matrix", "logits"),
        ("shape.ragged", "row_times_matrix.ragged", "logits.ragged"),
        graded=True,
        raises="ValueError",
    ),
    Rule(
        "rule.ids.out_of_range",
        ("lookup", "lookup_via_one_hot", "scaled_lookup"),
        ("lookup.out_of_range", "lookup_via_one_hot.out_of_range", "scaled_lookup.out_of_range"),
        graded=True,
        raises="IndexError",
    ),
    Rule(
        "rule.row_times_matrix.length",
        ("row_times_matrix",),
        ("row_times_matrix.length",),
        graded=True,
        raises="ValueError",
    ),
    Rule(
        "rule.logits.width",
        ("logits",),
        ("logits.width",),
        graded=True,
        raises="ValueError",
    ),
    Rule(
        "rule.token.out_of_range",
        ("stretch", "nearest_by_cosine", "nearest_by_dot"),
        ("stretch.out_of_range", "nearest_by_cosine.out_of_range", "nearest_by_dot.out_of_range"),
        graded=True,
        raises="IndexError",
    ),
    Rule("rule.one_hot.open", ("one_hot",), ("one_hot.out_of_range",), graded=False),
    Rule("rule.dot.open", ("dot",), (), graded=False),
    Rule(
        "rule.k.open",
        ("nearest_by_cosine", "nearest_by_dot"),
        ("nearest_by_cosine.k_large", "nearest_by_dot.k_large"),
        graded=False,
    ),
    Rule("rule.lookup.open_rows", ("lookup",), (), graded=False),
    Rule("rule.ids.open_type", (), (), graded=False),
    Rule("rule.report.folder.open", ("write_report",), (), graded=False),
    Rule("rule.measure.open", ("measure",), (), graded=False),
)
