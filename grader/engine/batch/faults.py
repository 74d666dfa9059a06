"""A fault of the grader confined to the submission it struck.

Every step a class takes once per submission (grading it, its fingerprints for the
similarity pass, its feedback page, its line of the gradebook and of the LMS files, its
share of the summary, ``rows.json``, merge's reading of its row) runs so that an
exception on one submission stays with that submission: it is recorded as a
:class:`Fault` on that student's row, which then stands as a ``grader error`` (the
grader's fault, costing no points: the LMS files leave that grade as it was), and every
output is still written for everybody else.  The batch's and merge's exit status then
say that something went wrong, and ``summary.json`` lists each fault.

A step that takes the whole class at once (the similarity pass, the summary, the class
page) is retried on halves of the class when it raises (:func:`culprits`): the
submissions on which it fails by themselves are found with a few retries each, and
only a fault that no single submission makes is the class's (its step's output is then
left out, and said so).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from grader.engine.batch.rows import GRADER_ERROR, Row
from grader.engine.frozen import frozen
from grader.engine.messages import text

# The steps a fault can strike, as summary.json names them.
GRADING = "grading"
FEEDBACK = "feedback"
SIMILARITY = "similarity"
SUMMARY = "summary"
GRADEBOOK = "gradebook"
CANVAS = "canvas"
MOODLE = "moodle"
PAGE = "page"
ROSTER = "roster"
RECORD = "record"
MERGE = "merge"
STAGES = (
    GRADING,
    FEEDBACK,
    SIMILARITY,
    SUMMARY,
    GRADEBOOK,
    CANVAS,
    MOODLE,
    ROSTER,
    PAGE,
    RECORD,
    MERGE,
)
MAX_ERROR = 300  # characters of an exception's text kept


@frozen
class Fault:
    """An exception of the grader in one step, for one submission (``id``) or, when
    no single submission makes it, for the class (``id`` empty)."""

    id: str
    stage: str
    error: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "stage": self.stage, "error": self.error}


def describe(exc: BaseException) -> str:
    """The exception's type and text on one line, shortened."""
    try:
        said = str(exc)
    except Exception:  # a text that cannot be made says nothing
        said = ""
    line = " ".join(("%s: %s" % (type(exc).__name__, said)).split())
    return line[:MAX_ERROR]


def detail(fault: Fault, lang: str) -> str:
    """What the row of a submission struck by ``fault`` says."""
    stage = text("batch.stage." + fault.stage, lang)
    return text("batch.fault", lang, stage=stage, error=fault.error)


def stand_in(row: Row, fault: Fault, lang: str, max_score: float) -> Row:
    """The row of a submission on which a step of the grader failed: a grader error,
    with no points (the LMS files leave its grade as it was) and the fault as its detail."""
    seed = row.seed if isinstance(row.seed, int) and not isinstance(row.seed, bool) else 0
    who = getattr(row, "who", None)
    return Row(
        str(row.id),
        GRADER_ERROR,
        0.0,
        float(max_score),
        {},
        seed,
        0.0,
        detail(fault, lang),
        who=dict(who) if isinstance(who, dict) else {},
    )


T = TypeVar("T")


def culprits(items: Sequence[T], attempt: Callable[[Sequence[T]], object]) -> list[tuple[T, str]]:
    """The items on which ``attempt`` raises by themselves, each with its exception,
    in the order of ``items``; ``attempt`` has already raised on all of them.

    The items are halved until each part passes or is one item: with ``k`` culprits
    among ``n`` items, ``attempt`` runs about ``2 k log2(n)`` times, on ever smaller
    parts.  Empty when no single item makes ``attempt`` raise.
    """
    found: list[tuple[int, T, str]] = []
    todo: list[tuple[int, Sequence[T]]] = [(0, items)]
    first = True
    while todo:
        start, part = todo.pop()
        if not part:
            continue
        if not first:
            try:
                attempt(part)
                continue
            except Exception as exc:
                if len(part) == 1:
                    found.append((start, part[0], describe(exc)))
                    continue
        first = False
        if len(part) == 1:  # the whole was one item: that one is the culprit
            try:
                attempt(part)
            except Exception as exc:
                found.append((start, part[0], describe(exc)))
            continue
        mid = len(part) // 2
        todo += [(start + mid, part[mid:]), (start, part[:mid])]
    return [(item, error) for _, item, error in sorted(found, key=lambda f: f[0])]
