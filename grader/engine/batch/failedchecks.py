"""The checks a class failed, one entry per function, for the class page.

A wrong ``dot`` fails ``dot.values`` and ``dot.course`` for the same students, and a
list with a line per check says the same thing twice.  Here every student counts once
per function: under its root causes when one of the function's failing checks follows
from no other failing function (``grader.engine.batch.summary.root_causes``), else
under the functions it fails through.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from grader.engine.frozen import frozen
from grader.engine.messages import kind

if TYPE_CHECKING:
    from grader.engine.batch.rows import Row


@frozen
class FailedFunction:
    """The failing checks of one function (or constant, or report file) across a class.

    ``students`` fail at least one of its checks, ``root`` of them at least one that
    follows from no other failing function.  ``checks`` and ``kinds`` count students
    per check (the part of its id after the function) and per kind of mistake;
    ``leads_to`` the students whose checks of another function fail through this one,
    ``follows_from`` the students for whom a check of this one fails through another.
    """

    function: str
    students: int
    root: int
    checks: dict[str, int]
    kinds: dict[str, int]
    leads_to: dict[str, int]
    follows_from: dict[str, int]


def function_of(check_id: str) -> str:
    return check_id.split(".", 1)[0]


def failed_functions(rows: Sequence[Row], lang: str) -> list[FailedFunction]:
    """Every function with a failing check in ``rows``, root causes first."""
    from grader.engine.batch.rows import UNSCORED
    from grader.engine.batch.summary import root_causes

    students: Counter[str] = Counter()
    roots: Counter[str] = Counter()
    checks: dict[str, Counter[str]] = {}
    kinds: dict[str, Counter[str]] = {}
    leads_to: dict[str, Counter[str]] = {}
    follows_from: dict[str, Counter[str]] = {}
    for r in rows:
        if r.status in UNSCORED:
            continue
        failing = {(c[0], c[1] if len(c) > 1 else "") for c in r.failing}
        own: dict[str, set[str]] = {}
        for check_id, code in failing:
            fn = function_of(check_id)
            own.setdefault(fn, set()).add(kind(code or "-", lang))
        for fn, found in own.items():
            students[fn] += 1
            kinds.setdefault(fn, Counter()).update(found)
        for check_id in {c for c, _ in failing}:
            checks.setdefault(function_of(check_id), Counter())[_part(check_id)] += 1
        causes = root_causes(r)
        rooted: set[str] = set()
        led: set[tuple[str, str]] = set()
        followed: set[tuple[str, str]] = set()
        for check_id, found_causes in causes.items():
            fn = function_of(check_id)
            if not found_causes:
                rooted.add(fn)
            for cause in found_causes:
                if function_of(cause) != fn:
                    led.add((function_of(cause), fn))
            if check_id in r.follows:
                followed.update((fn, name) for name in r.follows[check_id] if name != fn)
        roots.update(rooted)
        for cause, fn in led:
            leads_to.setdefault(cause, Counter())[fn] += 1
        for fn, name in followed:
            follows_from.setdefault(fn, Counter())[name] += 1
    order = sorted(students, key=lambda fn: (-roots[fn], -students[fn], fn))
    return [
        FailedFunction(
            fn,
            students[fn],
            roots[fn],
            _ranked(checks[fn]),
            _ranked(kinds[fn]),
            _ranked(leads_to.get(fn, Counter())),
            _ranked(follows_from.get(fn, Counter())),
        )
        for fn in order
    ]


def _part(check_id: str) -> str:
    """The check's id without its function: ``values`` of ``dot.values``."""
    return check_id.split(".", 1)[1] if "." in check_id else check_id


def _ranked(counts: Counter[str]) -> dict[str, int]:
    """Most first, ties by name: the same order whatever the order of the rows' sets."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
