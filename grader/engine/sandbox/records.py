"""What the sandbox takes and gives: calls, their outcomes, the import and the report
writer's files, all plain data; and the error for the grader's own faults."""

from __future__ import annotations

from typing import Any

from grader.engine.frozen import frozen
from grader.engine.sandbox.decoding import Printed, Raised
from grader.engine.sandbox.limits import MAX_LINE
from grader.engine.sandbox.reportfiles import WrittenFile


class SandboxError(Exception):
    """A fault of the grader or its installation, never of the student's code."""


class MachineFault(Exception):
    """The grading machine ran out of something (``resource``: "disk", "memory",
    "processes" or "files") outside the child's own share: never the student's fault."""

    def __init__(self, resource: str, detail: str = "") -> None:
        super().__init__(
            "the grading machine ran out of %s%s" % (resource, ": " + detail if detail else "")
        )
        self.resource = resource
        self.detail = detail


@frozen
class Loaded:
    """What importing the student module gave."""

    ok: bool
    names: dict[str, Any]
    third_party: tuple[str, ...]
    error: Raised | None
    traceback: str
    output: str
    elapsed: float
    detail: str = ""  # when the import timed out or the child died: a short reason
    timed_out: bool = False  # the import gave no answer in time


@frozen
class Call:
    """One call of a contract function with plain arguments."""

    id: int
    fn: str
    args: tuple[Any, ...]
    count: tuple[int, ...] = ()
    limit: int = MAX_LINE  # bytes its answer may take (see answer_limit)
    before: tuple[Any, ...] | None = None  # a first call on objects then renewed (Case)
    renew: str = ""


@frozen
class Outcome:
    """What one call gave."""

    id: int
    fn: str
    kind: str  # "returned" | "raised" | "timeout" | "crashed" | "skipped"
    value: Any = None
    raised: Raised | None = None
    mutated: str | None = None
    called: tuple[str, ...] = ()
    mults: int | None = None
    elapsed: float = 0.0
    detail: str = ""
    why: str = ""  # "budget": the submission's time ran out; "budget_fn": the function's
    printed: Printed | None = None  # what the call printed, if anything


@frozen
class Written:
    """What running the module's report writer gave."""

    # "written" | "raised" | "timeout" | "budget" | "crashed" | "missing" | "not callable"
    # | "not loaded" | "disk" (it passed the child's share of disk)
    kind: str
    files: dict[str, WrittenFile]
    raised: Raised | None = None
    traceback: str = ""
    called: tuple[str, ...] = ()  # contract functions it entered (its stack, on a timeout)
    elapsed: float = 0.0
    detail: str = ""
