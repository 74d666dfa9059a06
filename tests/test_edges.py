"""Every function is tried at every edge of its legal inputs (``grader/labs/embed/edges.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.labs.embed import edges
from grader.labs.embed.checks import Case, Raises, Returns
from grader.labs.embed.contract import NAMES

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = [n.name for n in NAMES if not n.is_constant]


@pytest.mark.parametrize("seed", (1, 77, 906150))
def test_every_function_has_a_case_at_every_edge(seed: int) -> None:
    seen = edges.found((seed,))
    missing = {
        fn: sorted(edges.required(fn) - set(seen.get(fn, {})))
        for fn in FUNCTIONS
        if edges.required(fn) - set(seen.get(fn, {}))
    }
    assert missing == {}


def test_the_rule_asks_for_the_edges_of_each_kind_of_parameter() -> None:
    assert {"empty ids", "id -1 raises", "id V raises", "equal rows"} <= edges.required("lookup")
    assert {"tiny vector", "large vector", "empty vector"} <= edges.required("cosine")
    assert {"vector one too long raises", "empty table"} <= edges.required("logits")
    assert {"k = 0", "k = V - 1", "near tie", "multiple rows"} <= edges.required("nearest_by_dot")
    assert "empty table" not in edges.required("stretch")
    assert edges.required("param_count") == set()


def test_edges_are_read_off_the_cases() -> None:
    def ret(fn: str, args: tuple[object, ...]) -> Case:
        return Case(fn, args, Returns(None, None))  # type: ignore[arg-type]

    assert edges.edges_of(ret("lookup", ([], []))) >= {"empty table", "empty ids"}
    assert "equal rows" in edges.edges_of(ret("lookup", ([[1.0], [1.0]], [1])))
    assert "multiple rows" in edges.edges_of(ret("stretch", ([[1.0, 2.0], [2.0, 4.0]], 1, 3.0)))
    assert "tiny vector" in edges.edges_of(ret("norm", ([3e-10, -1e-10],)))
    assert "large vector" in edges.edges_of(ret("dot", ([2e5], [1.0])))
    raised = Case("stretch", ([[1.0], [2.0]], -1, 2.0), Raises("IndexError"))
    assert edges.edges_of(raised) == {"id -1 raises"}
    short = Case("logits", ([[1.0, 2.0]], [1.0]), Raises("ValueError"))
    assert edges.edges_of(short) == {"vector one too short raises"}


def test_the_documented_table_is_the_generated_one() -> None:
    doc = (ROOT / "docs" / "edges.md").read_text(encoding="utf-8")
    assert doc.endswith(edges.table()), "run: python -m grader.labs.embed.edges (docs/edges.md)"
    assert "**none**" not in doc
