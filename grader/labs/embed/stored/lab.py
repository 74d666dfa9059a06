"""The lab of the student edition: the embed lab's checks on prepared cases.

Everything but the cases comes from the lab's shared modules (contract, messages,
report step, the matching of known mistakes); each case's inputs, expectation and
the answers of the known mistakes come from the prepared data
(``grader.labs.embed.stored.data``).  A seed picks one of the prepared runs: run
``seed % count``, so a printed seed replays exactly.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from grader.engine.lab import Lab
from grader.engine.vocabulary.expect import Case, Check
from grader.labs.embed import contract, reportstep
from grader.labs.embed.hintmatch import MistakeHints
from grader.labs.embed.stored.data import Prepared, installed

HERE = Path(__file__).resolve().parent
LAB_DIR = HERE.parent


class StoredHints(MistakeHints):
    """The known mistakes' answers as prepared for each case, found by its arguments."""

    def __init__(self) -> None:
        self._cases: dict[int, tuple[tuple[Any, ...], list[tuple[str, Any]]]] = {}

    def remember(self, args: tuple[Any, ...], answers: list[tuple[str, Any]]) -> None:
        self._cases[id(args)] = (args, answers)

    def forget(self) -> None:
        self._cases.clear()

    def _of(self, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        hit = self._cases.get(id(args))
        if hit is None or hit[0] is not args:
            return []
        return hit[1]

    def answers(self, fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        return self._of(args)

    def raise_answers(self, fn: str, args: tuple[Any, ...]) -> list[tuple[str, Any]]:
        return self._of(args)


def _prepared_only(rng: random.Random) -> list[Case]:
    raise RuntimeError("the student edition grades prepared cases only")


class Runs:
    """The cases of the prepared runs, decoded one run at a time."""

    def __init__(self, prepared: Prepared, hints: StoredHints) -> None:
        self.prepared = prepared
        self.hints = hints
        self.checks = tuple(
            Check(cid, fn, step, _prepared_only, weight, advisory)
            for cid, fn, step, weight, advisory in prepared.common["checks"]
        )

        self._decoded: dict[int, dict[str, tuple[Case, ...]]] = {}

    def index(self, seed: int) -> int:
        return seed % self.prepared.count

    def _cases(self, index: int) -> dict[str, tuple[Case, ...]]:
        if index not in self._decoded:
            self.hints.forget()
            self._decoded = {index: self._decode(index)}
        return self._decoded[index]

    def _decode(self, index: int) -> dict[str, tuple[Case, ...]]:
        doc = self.prepared.run(index)
        read = self.prepared.reader.value
        out: dict[str, tuple[Case, ...]] = {}
        for cid, docs in doc["checks"].items():
            cases = []
            for d in docs:
                before = tuple(read(d["before"])) if "before" in d else None
                case = Case(
                    d["fn"],
                    tuple(read(d["args"])),
                    read(d["expect"]),
                    tuple(d["count"]),
                    before,
                    d.get("renew", ""),
                )
                answers = [(code, read(v)) for code, v in d.get("hints", ())]
                if answers:
                    self.hints.remember(case.args, answers)
                cases.append(case)
            out[cid] = tuple(cases)
        return out

    def plan(self, seed: int, ids: tuple[str, ...]) -> tuple[tuple[Check, tuple[Case, ...]], ...]:
        cases = self._cases(self.index(seed))
        wanted = set(ids)
        return tuple((c, cases[c.id]) for c in self.checks if c.id in wanted)


def make(prepared: Prepared, name: str = "embed") -> Lab:
    """The lab that grades with ``prepared``'s runs."""
    hints = StoredHints()
    runs = Runs(prepared, hints)
    return Lab(
        name=name,
        module_file="embed.py",
        names=contract.NAMES,
        constants=contract.CONSTANTS,
        steps=contract.STEP_POINTS,
        checks=runs.checks,
        plan=runs.plan,
        messages=LAB_DIR / "messages",
        hints=hints,
        report=reportstep.STEP,
        mutable_args=tuple(prepared.common["mutable_args"]),
        gate="values",
        stub=LAB_DIR.parents[2] / "exercises" / "embed.py",
        report_groups=reportstep.GROUPS,
    )


def installed_lab() -> Lab:
    return make(installed())
