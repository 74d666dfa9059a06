"""Telling whether a wrong answer is the one a known mistake gives.

The mistakes themselves (``hints.py``) compute what each one answers for a case's
inputs; here an answer is matched against those, in value and in type.  Matching
needs no mistake model and no right answer, so the student edition, which holds the
mistakes' answers as data prepared when it was built, matches with the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from grader.engine.lab import Hints
from grader.engine.vocabulary.compare import diff
from grader.labs.embed.contract import BY_NAME, CONSTANTS, Answer


class _NoAnswer:
    def __repr__(self) -> str:
        return "NO_ANSWER"


NO_ANSWER: Any = _NoAnswer()  # the mistake raises on these inputs


def _one_hot_elsewhere(got: Any, token_id: int, vocab: int) -> bool:
    if not isinstance(got, (list, tuple)) or len(got) != vocab:
        return False
    ones = [i for i, x in enumerate(got) if x == 1]
    return len(ones) == 1 and ones[0] != token_id and sum(x == 0 for x in got) == vocab - 1


def _one_of(got: Any, lists: list[list[int]]) -> bool:
    """A neighbour list that is one of ``lists`` (ints only)."""
    if not isinstance(got, (list, tuple)) or not all(type(i) is int for i in got):
        return False
    return list(got) in [list(x) for x in lists]


# Mistakes recognised by a test on the answer itself, by name: tests, not answers.
TESTS: dict[str, Callable[..., bool]] = {
    "one_hot_elsewhere": _one_hot_elsewhere,
    "one_of": _one_of,
}


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


def _no_direction(a: list[float], b: list[float]) -> bool:
    return not any(a) or not any(b)


def _ids_inside(args: tuple[Any, ...]) -> bool:
    table, ids = args[0], args[1]
    return all(0 <= i < len(table) for i in ids)


def _zero_id(args: tuple[Any, ...]) -> bool:
    """Ids counted from 1 with their own bound (1..V) refuse the valid id 0."""
    return 0 in args[1] and _ids_inside(args)


def rectangular(matrix: list[list[float]]) -> bool:
    return len({len(row) for row in matrix}) <= 1


def _lengths_differ(vec: list[float], matrix: list[list[float]]) -> bool:
    return len(vec) != len(matrix) and rectangular(matrix)


# The exceptions known mistakes raise, each with the inputs on which it raises: a
# mistake explains an exception only on those.
RAISED: dict[tuple[str, str], list[tuple[str, Callable[..., bool]]]] = {
    ("cosine", "ZeroDivisionError"): [("hint.cosine.zero", _no_direction)],
    ("rms", "ZeroDivisionError"): [("hint.rms.empty", lambda v: len(v) == 0)],
    ("shape", "IndexError"): [("hint.shape.empty", lambda m: len(m) == 0)],
    ("row_times_matrix", "IndexError"): [
        ("hint.row_times_matrix.no_length_check", _lengths_differ)
    ],
}
VOCAB = CONSTANTS["VOCAB"]


def _past_vocab(args: tuple[Any, ...]) -> bool:
    """Every id inside a table taller than VOCAB, and one of them VOCAB or more."""
    return _ids_inside(args) and any(i >= VOCAB for i in args[1])


def _probe_past_vocab(table: list[list[float]], token_id: int, *rest: Any) -> bool:
    return VOCAB <= token_id < len(table)


for _fn in ("lookup", "lookup_via_one_hot", "scaled_lookup"):
    RAISED[(_fn, "IndexError")] = [
        ("hint.ids.vocab", lambda *args: _past_vocab(args)),
        ("hint.ids.one_based", lambda *args: _zero_id(args)),
        ("hint.lookup.rejects", lambda *args: _ids_inside(args)),
    ]
for _fn in ("stretch", "nearest_by_cosine", "nearest_by_dot"):
    RAISED[(_fn, "IndexError")] = [("hint.ids.vocab", _probe_past_vocab)]

MUTATED: dict[str, str] = {
    "stretch": "hint.stretch.copy",
    "scaled_lookup": "hint.scaled.copy",
}

# Functions that must raise IndexError for an id out of range, and whose answer for
# ids Python's own indexing accepts (a negative id) tells a known mistake.
WRAPPING = ("lookup", "scaled_lookup", "lookup_via_one_hot")


def in_python_range(fn: str, args: tuple[Any, ...], shift: int = 0) -> bool:
    """Whether Python's own indexing accepts every id of the call (less ``shift``)."""
    table, ids = args[0], args[1]
    return all(-len(table) <= i - shift < len(table) for i in ids)


class MistakeHints(Hints):
    """Hints from the answers that known mistakes give, however those are found.

    A subclass says what each mistake answers for a case's arguments (``answers``)
    and, where an exception was due, what the mistakes that let it pass answer
    (``raise_answers``); the matching is the same for both editions.
    """

    def answers(self, fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        """(message code, the mistake's answer or NO_ANSWER) per known mistake, in order."""
        return []

    def raise_answers(self, fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        """The same, for a call that should raise: what each mistake answers instead."""
        return []

    def explain(self, fn: str, args: tuple[Any, ...], got: Any) -> list[str]:
        """The message codes of every known mistake that answers ``got``, in table order."""
        found: list[str] = []
        for code, wrong in self.answers(fn, args):
            if code not in found and matches(fn, wrong, got):
                found.append(code)
        return found

    def explain_raised(self, fn: str, args: tuple[Any, ...], exc: str) -> list[str]:
        found = []
        for code, raises in RAISED.get((fn, exc), ()):
            try:
                if raises(*args):
                    found.append(code)
            except (ArithmeticError, LookupError, ValueError, TypeError):
                continue
        return found

    def explain_no_raise(self, fn: str, args: tuple[Any, ...], got: Any) -> list[str]:
        if fn == "shape":
            return ["hint.shape.ragged"]
        found: list[str] = []
        for code, wrong in self.raise_answers(fn, args):
            if code not in found and matches(fn, wrong, got):
                found.append(code)
        if fn in WRAPPING:
            table, ids = args[0], list(args[1])
            if len(table) in ids and all(-1 < i <= len(table) for i in ids):
                found.append("hint.lookup.off_by_one")
        return found

    def guess_mutated(self, fn: str) -> str | None:
        return MUTATED.get(fn, "hint.inputs")
