"""A call's copies of its arguments are never put where an earlier call's were.

A module that remembers its answers by ``id(table)`` answers wrongly when a new table
comes at an old address.  The grader makes that happen on purpose, in the pairs of
calls whose second call gets objects "renewed" at the first one's addresses; anywhere
else it must not happen by the chance of the allocator, or the same module with the
same seed would pass a check in one run and fail it in the next.
"""

from __future__ import annotations

from pathlib import Path

from timelimits import scaled

from grader import grade
from grader.engine import sandbox

ROOT = Path(__file__).resolve().parent.parent


def test_every_call_gets_objects_at_addresses_no_earlier_call_had(tmp_path: Path) -> None:
    module = tmp_path / "embed.py"
    module.write_text("def ident(table):\n    return [id(table)] + [id(row) for row in table]\n")
    table = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
    calls = [
        sandbox.Call(i, "ident", (table if i % 2 else [list(r) for r in table],)) for i in range(60)
    ]
    with sandbox.Sandbox(module, names=("ident",), timeout=scaled(5.0)) as box:
        assert box.load().ok
        out = box.run(calls)
    assert all(o.kind == "returned" for o in out), [o.detail for o in out]
    seen = [address for o in out for address in o.value]
    assert len(seen) == len(set(seen)) == 60 * 4


def test_a_module_that_remembers_by_id_gets_one_verdict_run_after_run() -> None:
    module = ROOT / "tests" / "corpus" / "wrong" / "lookup_caches_by_id.py"
    verdicts = set()
    for _ in range(4):
        report = grade(module, seed=7, check_reports=False)
        verdicts.add(tuple((c.id, c.status.value, c.points) for c in report.checks))
    assert len(verdicts) == 1
    [verdict] = verdicts
    assert ("lookup.values", "fail") in {(i, s) for i, s, _ in verdict}  # caught, by the pairs
