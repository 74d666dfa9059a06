"""Every check of a full run, and what ``--check`` and ``--upto`` select from them.

The catalogue lists the checks a full run grades, with their steps and weights, so a
run of one check can give it the share of points it has in the full run, and a
``--check`` that selects nothing is refused with the closest ids that exist.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.lab import Lab
from grader.engine.vocabulary.contract import MODULE, REPORT


@frozen
class Entry:
    """One check of a full run."""

    id: str
    step: int
    function: str
    weight: int = 1
    advisory: bool = False


@functools.lru_cache(maxsize=8)
def catalogue(lab: Lab) -> tuple[Entry, ...]:
    """Every check a full run of ``lab`` grades (the report checks included)."""
    entries = [Entry("imports.load", 0, MODULE), Entry("imports.stdlib", 0, MODULE)]
    entries += [Entry("%s.value" % name, lab.by_name[name].step, name) for name in lab.constants]
    entries += [Entry(c.id, c.step, c.function, c.weight, c.advisory) for c in lab.checks]
    entries += [Entry("%s.inputs" % f, lab.by_name[f].step, f) for f in lab.mutable_args]
    if lab.report is not None:
        step = lab.report.step
        entries += [Entry(cid, step, REPORT, weight) for cid, weight in lab.report.weights()]
    return tuple(entries)


def matches(selector: str, check_id: str, function: str) -> bool:
    """``--check SELECTOR`` takes a check id, a function name or the start of an id."""
    return check_id == selector or function == selector or check_id.startswith(selector + ".")


def _names(lab: Lab) -> list[str]:
    """Everything a selector may name: ids, functions and the leading parts of ids."""
    names: set[str] = set()
    for e in catalogue(lab):
        names.update((e.id, e.function))
        parts = e.id.split(".")
        names.update(".".join(parts[:n]) for n in range(1, len(parts)))
    return sorted(names)


def closest(lab: Lab, selector: str, n: int = 4) -> list[str]:
    """The valid selectors nearest to ``selector`` (case is ignored first)."""
    names = _names(lab)
    same = [name for name in names if name.lower() == selector.lower()]
    import difflib  # only for a selector that names nothing

    near = difflib.get_close_matches(selector, names, n=n, cutoff=0.6)
    lowered = {name.lower(): name for name in names}
    near += [lowered[x] for x in difflib.get_close_matches(selector.lower(), lowered, n=n)]
    return list(dict.fromkeys(same + near))[:n]


def problem(
    lab: Lab, only: Sequence[str], upto: int = 8, check_reports: bool = True
) -> tuple[str, dict[str, Any]] | None:
    """The message (code, parameters) for the first selector that selects nothing."""
    for selector in only:
        chosen = [e for e in catalogue(lab) if matches(selector, e.id, e.function)]
        if not chosen:
            near = closest(lab, selector)
            if near:
                return "cli.check_unknown", {"id": selector, "close": ", ".join(near)}
            return "cli.check_unknown_far", {"id": selector}
        if all(e.step > upto for e in chosen):
            steps = ", ".join(str(s) for s in sorted({e.step for e in chosen}))
            return "cli.check_upto", {"id": selector, "upto": upto, "steps": steps}
        if not check_reports and all(e.function == REPORT for e in chosen):
            return "cli.check_no_report", {"id": selector}
    return None


def step_weights(lab: Lab, step: int) -> list[tuple[str, str, int]]:
    """(function, id, weight) of the graded checks of a step in a full run."""
    return [
        (e.function, e.id, e.weight) for e in catalogue(lab) if e.step == step and not e.advisory
    ]
