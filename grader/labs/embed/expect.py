"""This lab's own expectations: a neighbour ranking, a product that must be computed,
and the course's examples, told in its words.

A ranking is judged against the scores of the case's table; the full grader computes
them with the oracle (imported only then), the student edition reads them from the
data prepared when it was built (``StoredRanks``).
"""

from __future__ import annotations

from typing import Any, Protocol

from grader.engine.frozen import frozen
from grader.engine.lab import Hints
from grader.engine.sandbox import Foreign, Outcome
from grader.engine.vocabulary import show
from grader.engine.vocabulary.compare import Mismatch, diff
from grader.engine.vocabulary.expect import Case, Custom, Returns, Verdict
from grader.engine.vocabulary.memo import Memo
from grader.engine.vocabulary.results import Status


@frozen
class Multiplies(Returns):
    """The call must return ``value``, which only a real product gives.

    The table holds a non-finite value (an infinity or nan) in some columns, each in a
    row that no id selects (``probes``: their (row, column) places).  Multiplying it by
    the one-hot's 0.0 gives nan, so those columns of a real product are nan however it
    is summed, and the other columns are the selected rows' own values; a lookup, or a
    product that skips the zeros, stays finite there.  ``at_least`` is the number of
    multiplications a real product makes; it only shapes the message.
    """

    at_least: int = 0
    probes: tuple[tuple[int, int], ...] = ()

    def mismatch(
        self, case: Case, outcome: Outcome, m: Mismatch, base: dict[str, Any]
    ) -> Verdict | None:
        """A finite value where the product gives nan: the infinity or nan of that column
        was never multiplied into the answer."""
        if m.reason != "nan" or not (m.expected != m.expected) or m.got != m.got:
            return None  # only a number where the product gives nan is told apart
        mults = outcome.mults
        column = int(m.path.rsplit("[", 1)[-1].rstrip("]")) if m.path else 0
        row = next((r for r, c in self.probes if c == column), -1)
        table = case.args[0]
        # The cell's own value: an infinity or nan (0.0 times either is nan).
        cell = table[row][column] if row >= 0 else m.expected
        params = dict(
            base,
            path=m.path,
            got=show.short(m.got),
            row=row,
            column=column,
            value=show.number(cell),
            mults=mults or 0,
            needed=self.at_least,
        )
        # The count cannot fail anyone (a table copied with float() is not counted); it
        # only tells apart a product that is done and then thrown away.
        code = "no_product_counted" if (mults or 0) >= self.at_least else "no_product"
        return Verdict(Status.FAIL, code, params)


@frozen
class Course(Returns):
    """A call of one of the course's own worked examples (``checks/course.py``): a wrong
    answer is told in the course's words, the message ``course.EXAMPLE``."""

    example: str = ""

    def mismatch(
        self, case: Case, outcome: Outcome, m: Mismatch, base: dict[str, Any]
    ) -> Verdict | None:
        got = show.short(outcome.value)
        return Verdict(Status.FAIL, "course." + self.example, dict(base, got=got))


def close(a: float, b: float) -> bool:
    """Two scores too close to order by floating point (the oracle's ``close``)."""
    return abs(a - b) <= 1e-9 * (1.0 + max(abs(a), abs(b)))


class Ranking(Protocol):
    """The scores of every row of a table against a probe, and the order they force."""

    scores: list[float]

    def tied(self, a: int, b: int) -> bool: ...

    def must_precede(self, a: int, b: int) -> bool: ...

    def nearest(self, k: int) -> list[int]: ...


# The scores of a case's table against its probe: the same in every submission.
_RANKINGS: Memo[Ranking] = Memo(1024)


@frozen
class Ranks(Custom):
    """The call must return the k best other rows by ``by``, exact ties by index."""

    by: str
    k: int

    def bound(self) -> Any:
        return [0] * self.k

    def ranking(self, case: Case) -> Ranking:
        """The scores of the case's table against its probe, computed by the oracle."""
        from grader.labs.embed import oracle

        table, probe, _ = case.args
        return _RANKINGS.get(case.args, self.by, lambda: oracle.Ranking(table, probe, self.by))

    def stored(self, case: Case) -> StoredRanks:
        """The same expectation with its ranking as data (the student edition's)."""
        from grader.labs.embed import oracle

        table, probe, _ = case.args
        ranking = self.ranking(case)
        # Rows tie exactly when they share the oracle's tie class; a probe without
        # direction ties every row.
        flat = all(x == 0.0 for x in table[probe])
        keys: dict[tuple[float, ...], int] = {}
        classes = tuple(
            0 if flat else keys.setdefault(oracle.tie_class(row, self.by), len(keys))
            for row in table
        )
        return StoredRanks(
            self.by, self.k, tuple(ranking.scores), classes, tuple(ranking.nearest(self.k))
        )

    def judge(self, case: Case, got: Any, hints: Hints) -> Verdict | None:
        table, probe, k = case.args
        if isinstance(got, Foreign) and got.base in ("list", "tuple"):
            got = got.value
        ranking = self.ranking(case)

        def fail(code: str, own: bool = False, **more: Any) -> Verdict:
            params = {
                "call": case.shown,
                "fn": case.fn,
                "expected": show.short(ranking.nearest(k)),
                "got": show.short(got),
            }
            because = tuple(hints.explain(case.fn, case.args, got))
            return Verdict(Status.FAIL, code, dict(params, **more), because, own)

        # A list that breaks a rule of its form does not follow from a wrong score.
        if not isinstance(got, (list, tuple)) or any(type(i) is not int for i in got):
            return fail("neigh_type", True)
        if len(got) != min(k, len(table) - 1):
            return fail("neigh_len", True, expected=min(k, len(table) - 1), n=len(got))
        for i in got:
            if not 0 <= i < len(table):
                return fail("neigh_range", True, index=i, last=len(table) - 1)
        if probe in got:
            return fail("neigh_self", True, probe=probe)
        if len(set(got)) != len(got):
            return fail("neigh_dup", True, index=next(i for i in got if list(got).count(i) > 1))

        def score(i: int) -> str:
            return show.number(ranking.scores[i])

        for x in range(len(got)):
            for y in range(x + 1, len(got)):
                a, b = got[x], got[y]
                if ranking.must_precede(b, a):
                    code = "neigh_tie" if ranking.tied(a, b) else "neigh_order"
                    return fail(code, a=a, b=b, sa=score(a), sb=score(b))
        # Every row left out must not belong ahead of one listed.  Rows scoring clearly
        # below the lowest listed score need no closer look.  The best row left out is
        # named, against the lowest listed row it must precede: with k = 1 the row
        # that belongs in the list, not merely one that scores above the listed one.
        floor = min((ranking.scores[x] for x in got), default=float("inf"))
        chosen = set(got)
        for z in sorted(range(len(table)), key=lambda i: (-ranking.scores[i], i)):
            if z == probe or z in chosen:
                continue
            if ranking.scores[z] < floor and not close(ranking.scores[z], floor):
                break
            beaten = [x for x in got if ranking.must_precede(z, x)]
            if beaten:
                x = min(beaten, key=lambda i: (ranking.scores[i], -i))
                if ranking.tied(z, x):
                    return fail("neigh_tie", a=z, b=x, sa=score(z), sb=score(x))
                return fail("neigh_missing", z=z, x=x, sz=score(z), sx=score(x))
        return None


class _StoredRanking:
    """A ranking read from data: scores, each row's class of exact ties, the expected list."""

    def __init__(self, stored: StoredRanks) -> None:
        self.scores = list(stored.scores)
        self.classes = stored.classes
        self.expected = list(stored.expected)

    def tied(self, a: int, b: int) -> bool:
        return self.classes[a] == self.classes[b]

    def must_precede(self, a: int, b: int) -> bool:
        sa, sb = self.scores[a], self.scores[b]
        if not close(sa, sb):
            return sa > sb
        return a < b and self.tied(a, b)

    def nearest(self, k: int) -> list[int]:
        return self.expected[:k]


@frozen
class StoredRanks(Ranks):
    """``Ranks`` judged from stored scores: no score is computed here."""

    scores: tuple[float, ...] = ()
    classes: tuple[int, ...] = ()
    expected: tuple[int, ...] = ()

    def ranking(self, case: Case) -> Ranking:
        return _RANKINGS.get(case.args, self.by, lambda: _StoredRanking(self))

    def stored(self, case: Case) -> StoredRanks:
        return self


@frozen
class Again(Returns):
    """The second call of a pair (``Case.before``) must return ``value``; ``earlier``
    is the right answer of the first call, which an answer kept from it gives."""

    earlier: Any = None

    def known(self, got: Any) -> tuple[str, ...]:
        try:
            kept = diff(self.kind, self.earlier, got, count=False) is None
        except (TypeError, ValueError, IndexError):
            kept = False
        return ("hint.again.kept",) if kept else ()
