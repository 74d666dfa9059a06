"""Checks, their cases, and what a case expects of the call it makes.

A lab's check builds its ``Case``s from its own ``random.Random``.  Each case holds the
arguments (sent to the child) and an expectation (kept in the parent).  The engine
judges ``Returns``, ``Raises`` and ``Open`` itself; a lab with a rule of its own (a
ranking, a product that must really be computed) subclasses ``Returns`` or ``Custom``.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from grader.engine.frozen import frozen
from grader.engine.vocabulary.contract import Answer
from grader.engine.vocabulary.results import Status

if TYPE_CHECKING:
    from grader.engine.sandbox import Outcome
    from grader.engine.vocabulary.compare import Mismatch
    from grader.engine.vocabulary.hints import Hints


@frozen
class Verdict:
    """Why one case failed: a status, a message code and its parameters.

    ``hints``: the message codes of every known mistake that gives this very outcome
    on this case's inputs (value and type, or the exception); a check shows one only
    when it explains every failing case.  ``own``: the function broke a rule of its
    own answer's form, which no wrong answer of a function it called can explain.
    """

    status: Status
    code: str
    params: dict[str, Any] = field(default_factory=dict)
    hints: tuple[str, ...] = ()
    own: bool = False


class Expectation:
    """What a case expects; ``bound`` is a value as large as the right answer."""

    def bound(self) -> Any:
        return None


@frozen
class Returns(Expectation):
    """The call must return this value (compared by its answer kind)."""

    kind: Answer
    value: Any

    def bound(self) -> Any:
        return self.value

    def mismatch(
        self, case: Case, outcome: Outcome, m: Mismatch, base: dict[str, Any]
    ) -> Verdict | None:
        """A lab's own reading of a wrong value; None: the engine's message."""
        return None

    def known(self, got: Any) -> tuple[str, ...]:
        """Message codes of mistakes this expectation itself tells from ``got``."""
        return ()


@frozen
class Raises(Expectation):
    """The call must raise this builtin exception (or a subclass of it)."""

    exc: str


@frozen
class Open(Expectation):
    """Behaviour the contract leaves open: whatever happens is only noted."""

    about: str  # message code naming the behaviour


class Custom(Expectation):
    """An expectation judged by the lab's own rule when the call returns."""

    def judge(self, case: Case, got: Any, hints: Hints) -> Verdict | None:
        raise NotImplementedError


@frozen
class Case:
    """One call and what it expects.  Nothing changes a case once it is built, so what
    follows from it alone is computed once (a class graded with one seed shares its
    cases between submissions)."""

    fn: str
    args: tuple[Any, ...]
    expect: Expectation
    count: tuple[int, ...] = ()  # argument positions whose floats the child counts
    # A call made first, in the same child, with ``before``; then its argument objects
    # are changed in place into ``args`` (renew "changed"), or dropped and ``args`` made
    # anew at their addresses where the interpreter gives them again ("renewed").  Only
    # the second call is judged: an answer kept from the first is wrong.
    before: tuple[Any, ...] | None = None
    renew: str = ""

    @functools.cached_property
    def size(self) -> int:
        """How big the inputs are (see ``sizes``)."""
        return sizes(self.args)

    @functools.cached_property
    def shown(self) -> str:
        """The call as people read it (``show.call``)."""
        from grader.engine.vocabulary import show

        return show.call(self.fn, self.args)


@frozen
class Check:
    id: str
    function: str
    step: int
    build: Callable[[random.Random], list[Case]]
    weight: int = 1
    advisory: bool = False


def build(check: Check, seed: int) -> list[Case]:
    """The cases of one check for one seed (independent of every other check)."""
    return check.build(random.Random("%d:%s" % (seed, check.id)))


def plan(
    checks: Sequence[Check], seed: int, ids: Sequence[str]
) -> tuple[tuple[Check, tuple[Case, ...]], ...]:
    """The cases of the selected checks for one seed."""
    wanted = set(ids)
    return tuple((c, tuple(build(c, seed))) for c in checks if c.id in wanted)


def sizes(value: object) -> int:
    """How big an input is, to show the smallest failing case."""
    if isinstance(value, (list, tuple)):
        return 1 + sum(sizes(v) for v in value)
    return 1
