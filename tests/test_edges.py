"""Every function is tried at every edge of its legal inputs (``grader/labs/embed/edges.py``)."""

from __future__ import annotations

from pathlib import Path

from grader.labs.embed import cases as gen
from grader.labs.embed import edges
from grader.labs.embed.checks import Case, Raises, Ranks, Returns
from grader.labs.embed.contract import NAMES

ROOT = Path(__file__).resolve().parent.parent
FUNCTIONS = [n.name for n in NAMES if not n.is_constant]


# Every edge in every run: not drawn on some seeds only.
SEEDS = (1, 77, 906150, 2**31 - 1) + tuple(range(2, 26))


def test_every_function_has_a_case_at_every_edge_on_every_seed() -> None:
    missing = {}
    for seed in SEEDS:
        seen = edges.found((seed,))
        for fn in FUNCTIONS:
            lacking = edges.required(fn) - set(seen.get(fn, {}))
            if lacking:
                missing["%s (seed %d)" % (fn, seed)] = sorted(lacking)
    assert missing == {}


def test_the_rule_asks_for_the_edges_of_each_kind_of_parameter() -> None:
    assert {"empty ids", "id -1 raises", "id V raises", "equal rows"} <= edges.required("lookup")
    assert {"tiny vector", "large vector", "empty vector"} <= edges.required("cosine")
    assert {"vector one too long raises", "empty table"} <= edges.required("logits")
    assert {"k = 0", "k = V - 1", "near tie", "multiple rows"} <= edges.required("nearest_by_dot")
    assert {"id past V raises", "id below -V raises"} <= edges.required("stretch")
    assert "copy of the probe" in edges.required("nearest_by_dot")
    assert "cosine rounds above 1" in edges.required("nearest_by_cosine")
    assert {"cosine rounds below -1", "lengths apart"} <= edges.required("nearest_by_cosine")
    assert "cosine rounds below -1" in edges.required("cosine")
    assert "lengths apart" in edges.required("nearest_by_dot")
    assert "id past VOCAB" in edges.required("stretch") & edges.required("scaled_lookup")
    assert "cosine rounds above 1" not in edges.required("nearest_by_dot")
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
    far = Case("stretch", ([[1.0], [2.0]], 3, 2.0), Raises("IndexError"))
    assert edges.edges_of(far) == {"id past V raises"}
    below = Case("lookup", ([[1.0], [2.0]], [0, -3]), Raises("IndexError"))
    assert edges.edges_of(below) == {"id below -V raises"}
    row = [0.1, 0.13, -0.43]
    assert gen.plain_cosine(row, list(row)) > 1.0
    assert "cosine rounds above 1" in edges.edges_of(ret("cosine", (row, list(row))))
    twin = Case("nearest_by_cosine", ([row, [1.0] * 3, list(row)], 0, 2), Ranks("cosine", 2))
    assert {"copy of the probe", "cosine rounds above 1"} <= edges.edges_of(twin)
    opposite = [-x for x in row]
    assert gen.plain_cosine(row, opposite) < -1.0
    assert "cosine rounds below -1" in edges.edges_of(ret("cosine", (row, opposite)))
    apart = Case("nearest_by_cosine", ([row, [1.0] * 3, opposite], 0, 2), Ranks("cosine", 2))
    assert "cosine rounds below -1" in edges.edges_of(apart)
    tall = [[float(i)] for i in range(600)]
    assert "id past VOCAB" in edges.edges_of(ret("lookup", (tall, [0, 599])))
    assert "id past VOCAB" not in edges.edges_of(ret("lookup", (tall, [0, 511])))
    short = Case("logits", ([[1.0, 2.0]], [1.0]), Raises("ValueError"))
    assert edges.edges_of(short) == {"vector one too short raises"}


def test_the_documented_table_is_the_generated_one() -> None:
    doc = (ROOT / "docs" / "edges.md").read_text(encoding="utf-8")
    assert doc.endswith(edges.table()), "run: python -m grader.labs.embed.edges (docs/edges.md)"
    assert "**none**" not in doc
