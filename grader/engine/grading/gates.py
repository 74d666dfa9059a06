"""Checks whose points wait for another check of their function to pass.

A function's inputs check, and each of its checks whose every case expects an
exception, pass for code that answers nothing (``return None``, ``raise IndexError``).
Their points count only once the function's gate check (``Lab.gate``, the lab's
``FUNCTION.values``) passes; until then they pass and say what they wait for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from grader.engine.grading.scoring import Draft
from grader.engine.vocabulary.expect import Case, Check, Raises
from grader.engine.vocabulary.results import Status


def waiting(
    drafts: Sequence[Draft],
    plan: Sequence[tuple[Check, Sequence[Case]]],
    gate: str,
    mutable_args: Sequence[str],
) -> list[tuple[Draft, str]]:
    """Each passing draft that waits, with the id of the check it waits for."""
    if not gate:
        return []
    ids = {"%s.inputs" % f for f in mutable_args}
    ids |= {c.id for c, cases in plan if cases and all(isinstance(x.expect, Raises) for x in cases)}
    return [
        (d, "%s.%s" % (d.function, gate))
        for d in drafts
        if d.id in ids and d.status is Status.PASS and not d.advisory
    ]


def passes(
    gate: str,
    drafts: Sequence[Draft],
    plan: Sequence[tuple[Check, Sequence[Case]]],
    judge: Callable[[Check, Sequence[Case]], Draft],
) -> bool:
    """Whether the gate check passes: its draft, or (not selected, so not shown) its
    verdict judged now.  A function without such a check waits for nothing."""
    for d in drafts:
        if d.id == gate:
            return d.status is Status.PASS
    for check, cases in plan:
        if check.id == gate:
            return judge(check, cases).status is Status.PASS
    return True
