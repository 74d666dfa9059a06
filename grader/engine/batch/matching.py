"""Hand-ins matched with the students of a roster: every student on exactly one.

A hand-in is a student's when the identity read from its name (``identity``) is that
student's on the roster: Canvas's user id, Moodle's participant number,
Gradescope's submission folder (each of its submitters), GitHub Classroom's user
name (``PREFIX-USERNAME``: the prefix that most repositories share is the
assignment's).  A hand-in with no identity of the roster's platform, or one that no
student has, is ``unmatched``; two hand-ins with one student's identity are both
``claimed`` (neither gets it); a student with no hand-in gets a row of their own,
"nothing handed in".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grader.engine.batch.roster import Roster
from grader.engine.handin import identity
from grader.engine.handin.identity import Identity
from grader.engine.handin.submissions import (
    CLAIMED,
    MISSING,
    UNMATCHED,
    Submission,
    safe_id,
    unique_id,
)
from grader.engine.messages import text

if TYPE_CHECKING:
    from grader.engine.batch.handins import _Group


def _classroom(groups: Sequence[_Group], roster: Roster) -> None:
    """Give each repository ``PREFIX-USERNAME`` the roster's student of that user name."""
    logins = {s.key: s for s in roster.students}
    readings: dict[int, list[tuple[str, str]]] = {}
    prefixes: Counter[str] = Counter()
    for n, group in enumerate(groups):
        if group.identity is not None or len(group.entries) != 1:
            continue
        folder = group.entries[0].name.lower()
        found = [
            (folder[: -len(login) - 1], login)
            for login in logins
            if folder.endswith("-" + login) and len(folder) > len(login) + 1
        ]
        if folder in logins:
            found.append(("", folder))
        readings[n] = found
        prefixes.update({prefix for prefix, _ in found})
    for n, found in readings.items():
        if not found:
            continue
        best = max(found, key=lambda f: (prefixes[f[0]], len(f[1])))
        student = logins[best[1]]
        groups[n].identity = Identity(identity.CLASSROOM, student.key, student.login)


def match(groups: Sequence[_Group], roster: Roster) -> None:
    """Mark every group as its roster student's, unmatched or claimed twice (in place)."""
    if roster.platform == identity.CLASSROOM:
        _classroom(groups, roster)
    keys = roster.by_key()
    holders: dict[str, list[_Group]] = {}
    for group in groups:
        if group.problem:
            continue
        who = group.identity
        if who is None or who.platform != roster.platform or who.key not in keys:
            group.problem = UNMATCHED
            continue
        holders.setdefault(who.key, []).append(group)
    for held in holders.values():
        if len(held) > 1:
            for group in held:
                group.problem, group.claimed, group.identity = CLAIMED, group.identity, None


def absent(
    groups: Sequence[_Group], roster: Roster, taken: set[str], lang: str
) -> list[Submission]:
    """A submission "nothing handed in" for every roster student no hand-in is of."""
    had = {g.identity.key for g in groups if g.identity is not None and not g.problem}
    had |= {g.claimed.key for g in groups if g.claimed is not None}
    # A team's one hand-in is every member's (Moodle's group assignments).
    teams = {s.team for s in roster.students if s.team and s.key in had}
    found: list[Submission] = []
    for key, students in roster.by_key().items():
        if key in had or any(s.team in teams for s in students if s.team):
            continue
        name = " + ".join(s.name for s in students if s.name) or key
        ident = unique_id(safe_id("%s_%s" % (name, key)), taken)
        who = Identity(roster.platform, key, name)
        detail = text("handin.nothing", lang)
        found.append(
            Submission(ident, Path(), None, None, MISSING, detail, identity=who, absent=True)
        )
    return found
