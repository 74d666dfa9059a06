"""Telling whether a wrong answer is the one a known mistake gives.

The mistakes themselves (``hints.py``) compute what each one answers for a case's
inputs; here an answer is matched against those, in value and in type.  Matching
needs no mistake model and no right answer, so the student edition, which holds the
mistakes' answers as data prepared when it was built, matches with the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.engine.compare import diff
from grader.engine.lab import Hints
from grader.labs.embed.contract import BY_NAME, Answer


class _NoAnswer:
    def __repr__(self) -> str:
        return "NO_ANSWER"


NO_ANSWER: Any = _NoAnswer()  # the mistake raises on these inputs


def _one_hot_elsewhere(got: Any, token_id: int, vocab: int) -> bool:
    if not isinstance(got, (list, tuple)) or len(got) != vocab:
        return False
    ones = [i for i, x in enumerate(got) if x == 1]
    return len(ones) == 1 and ones[0] != token_id and sum(x == 0 for x in got) == vocab - 1


# Mistakes recognised by a test on the answer itself, by name: tests, not answers.
TESTS: dict[str, Callable[..., bool]] = {"one_hot_elsewhere": _one_hot_elsewhere}


class When:
    """A mistake recognised by the named test of ``TESTS`` with these parameters."""

    def __init__(self, test: str, params: tuple[Any, ...]) -> None:
        self.test, self.params = test, tuple(params)

    def __call__(self, got: Any) -> bool:
        return TESTS[self.test](got, *self.params)


class OnlyKey:
    """A mistake in one key of a dict: the answer is taken as right elsewhere."""

    def __init__(self, key: str, value: Any) -> None:
        self.key, self.value = key, value


def matches(fn: str, wrong: Any, got: Any) -> bool:
    """Whether ``got`` is the answer ``wrong`` that a mistake gives."""
    if wrong is NO_ANSWER:
        return False
    if isinstance(wrong, When):
        return wrong(got)
    if isinstance(wrong, OnlyKey):
        # The value and its type: a float that equals the mistake's int is another mistake.
        if not isinstance(got, dict) or wrong.key not in got:
            return False
        value = got[wrong.key]
        return type(value) is type(wrong.value) and value == wrong.value
    kind = BY_NAME[fn].answer
    if kind is Answer.INDICES:
        return (
            isinstance(got, (list, tuple))
            and all(type(i) is int for i in got)
            and list(got) == list(wrong)
        )
    try:
        return diff(kind, wrong, got, count=False) is None
    except (TypeError, ValueError, IndexError):
        return False


RAISED: dict[tuple[str, str], str] = {
    ("cosine", "ZeroDivisionError"): "hint.cosine.zero",
    ("rms", "ZeroDivisionError"): "hint.rms.empty",
    ("shape", "IndexError"): "hint.shape.empty",
    ("lookup", "IndexError"): "hint.lookup.rejects",
    ("scaled_lookup", "IndexError"): "hint.lookup.rejects",
}

MUTATED: dict[str, str] = {
    "stretch": "hint.stretch.copy",
    "scaled_lookup": "hint.scaled.copy",
}

# Functions that must raise IndexError for an id out of range, and whose answer for
# ids Python's own indexing accepts (a negative id) tells a known mistake.
WRAPPING = ("lookup", "scaled_lookup", "lookup_via_one_hot")


def in_python_range(fn: str, args: tuple[Any, ...]) -> bool:
    """Whether Python's own indexing accepts every id of the call."""
    table, ids = args[0], args[1]
    return all(-len(table) <= i < len(table) for i in ids)


class MistakeHints(Hints):
    """Hints from the answers that known mistakes give, however those are found.

    A subclass says what each mistake answers for a case's arguments
    (``answers``) and what Python's own indexing would give for ids out of range
    (``wrapped``); the matching is the same for both editions.
    """

    def answers(self, fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        """(message code, the mistake's answer or NO_ANSWER) per known mistake, in order."""
        return []

    def wrapped(self, fn: str, args: tuple[Any, ...]) -> Any:
        """The answer when negative ids count from the end of the table."""
        return NO_ANSWER

    def guesses(self, fn: str, args: tuple[Any, ...], got: Any) -> list[str]:
        """The message codes of every known mistake that explains ``got``, in table order."""
        found: list[str] = []
        for code, wrong in self.answers(fn, args):
            if code not in found and matches(fn, wrong, got):
                found.append(code)
        return found

    def guess(self, fn: str, args: tuple[Any, ...], got: Any) -> str | None:
        found = self.guesses(fn, args, got)
        return found[0] if found else None

    def common(self, answers: list[tuple[str, tuple[Any, ...], Any]]) -> str | None:
        """The first mistake that explains every one of several wrong answers.

        One small input can fit two mistakes (ascending order and ranking by the other
        score agree on a 3-row table); the failing cases together tell them apart.
        """
        codes: list[str] | None = None
        for fn, args, got in answers:
            found = self.guesses(fn, args, got)
            codes = found if codes is None else [c for c in codes if c in found]
        return codes[0] if codes else None

    def guess_raised(self, fn: str, exc: str) -> str | None:
        return RAISED.get((fn, exc))

    def guess_raise(self, fn: str, args: tuple[Any, ...], got: Any) -> str | None:
        """For a call that should have raised: does ``got`` show a known mistake?"""
        if fn == "shape":
            return "hint.shape.ragged"
        if fn not in WRAPPING:
            return None
        if in_python_range(fn, args):
            # Python's own indexing counts a negative id from the end: is that the answer?
            return "hint.lookup.wraps" if matches(fn, self.wrapped(fn, args), got) else None
        if any(i == len(args[0]) for i in args[1]):
            return "hint.lookup.off_by_one"
        return None

    def guess_mutated(self, fn: str) -> str | None:
        return MUTATED.get(fn, "hint.inputs")
