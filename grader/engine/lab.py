"""The interface a lab implements, and how the engine finds a lab.

A lab is a package (a folder with ``__init__.py``) whose ``LAB`` attribute is a
``Lab``.  The engine grades any module against any lab through this object alone: it
never imports a lab by name.  ``find("embed")`` loads ``grader.labs.embed``;
``find("path/to/folder")`` loads the lab in that folder.

It may import, of the grader: ``vocabulary``, ``sandbox``, ``messages`` and ``frozen``.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from grader.engine.frozen import frozen
from grader.engine.vocabulary.contract import Name
from grader.engine.vocabulary.expect import Case, Check
from grader.engine.vocabulary.hints import Hints

if TYPE_CHECKING:
    from grader.engine.sandbox import Call, Outcome, Written
    from grader.engine.vocabulary.results import Status

DEFAULT = "embed"


class Finding(Protocol):
    """One graded finding of a report step (see ``ReportStep.grade``)."""

    @property
    def id(self) -> str: ...

    @property
    def status(self) -> Status: ...

    @property
    def message(self) -> str: ...

    @property
    def weight(self) -> int: ...

    @property
    def code(self) -> str: ...

    @property
    def called(self) -> tuple[str, ...]: ...

    @property
    def details(self) -> Mapping[str, Any]: ...


class ReportStep(Protocol):
    """A step graded from files the module's own writer makes (optional).

    The engine calls ``calls`` (extra calls run with the module's functions), runs
    the writer in the child with ``files`` as its output, and hands what came back to
    ``grade``.  A finding with code ``report.grader_fault`` is the grader's own fault.
    """

    step: int
    files: tuple[str, ...]
    writer: str  # the module's function that writes them, called with a folder
    writer_timeouts: int  # the writer may take this many per-call time limits

    def weights(self) -> list[tuple[str, int]]: ...

    def prepare(self) -> None:
        """Load what ``grade`` will need; called while the child runs the calls."""

    def calls(self, first_id: int) -> list[Call]: ...

    def measure(self, outcomes: Sequence[Outcome], names: Mapping[str, Any]) -> Any: ...

    def grade(
        self,
        written: Written,
        measured: Any,
        report_dir: Path,
        lang: str,
        timeout: float,
        where: str | None,
        single_file: bool,
        notebook: bool = False,  # the submission is a notebook: say what its student runs
    ) -> Sequence[Finding]: ...


@frozen(eq=False)
class Lab:
    """Everything the engine needs to know of one lab."""

    name: str  # how the command line names it (--lab)
    module_file: str  # what the student's module is called
    names: tuple[Name, ...]  # the contract: constants and functions
    constants: Mapping[str, int]  # each constant's required value
    steps: Mapping[int, int]  # points of each step
    checks: Sequence[Check]
    messages: Path | None = None  # folder of the lab's catalogues, LANG.json
    hints: Hints = field(default_factory=Hints)
    report: ReportStep | None = None
    mutable_args: tuple[str, ...] = ()  # functions whose list arguments must stay as given
    # The check (``FUNCTION.<gate>``) whose pass a function's other checks that any
    # answer-free code can pass wait for: its inputs check and each check whose every
    # case expects an exception earn points only once that check passes.
    gate: str = ""
    solutions: tuple[Path, ...] = ()  # complete solutions (the oracle): similarity flags
    reference: Path | None = None  # the model answer, when the course keeps it at hand
    stub: Path | None = None  # the module students start from
    prints: Path | None = (
        None  # fingerprints of the stub and the reference (grader/engine/similarity/shipped.py)
    )
    report_groups: tuple[tuple[str, tuple[str, ...]], ...] = ()  # Gradescope's report tests
    spec: str = ""  # what find() was given; set by find()
    plan: Callable[[int, tuple[str, ...]], tuple[tuple[Check, tuple[Case, ...]], ...]] | None = None

    @functools.cached_property
    def by_name(self) -> dict[str, Name]:
        return {n.name: n for n in self.names}

    @property
    def max_score(self) -> int:
        return sum(self.steps.values())

    @property
    def report_files(self) -> tuple[str, ...]:
        return self.report.files if self.report is not None else ()

    @functools.cached_property
    def function_steps(self) -> frozenset[int]:
        """The steps that grade functions (not the module's import, not a report)."""
        return frozenset(n.step for n in self.names if not n.is_constant)

    def cases(self, seed: int, ids: tuple[str, ...]) -> tuple[tuple[Check, tuple[Case, ...]], ...]:
        if self.plan is not None:
            return self.plan(seed, ids)
        from grader.engine.vocabulary.expect import plan

        return plan(self.checks, seed, ids)


class LabError(Exception):
    """No lab by that name or in that folder."""


_LOADED: dict[str, Lab] = {}


def find(spec: str | None = None) -> Lab:
    """The lab named ``spec``: a lab of ``grader/labs`` by name first, else the lab in
    the folder ``spec``.  No spec is the default lab, whatever the working folder holds."""
    spec = spec or DEFAULT
    if spec in _LOADED:
        return _LOADED[spec]
    module = _by_name(spec) if re.fullmatch(r"[a-z_][a-z0-9_]*", spec) else None
    if module is None:
        if not Path(spec).is_dir():
            raise LabError("no lab named %r, and no folder %s" % (spec, spec))
        module = _from_folder(Path(spec))
    lab = getattr(module, "LAB", None)
    if not isinstance(lab, Lab):
        raise LabError("%s has no LAB" % spec)
    object.__setattr__(lab, "spec", spec)
    _LOADED[spec] = lab
    if lab.messages is not None:
        from grader.engine import messages

        messages.add(lab.messages)
    return lab


def register(spec: str, lab: Lab) -> Lab:
    """Make ``find(spec)`` give ``lab`` (a lab built in the process, such as one
    grading from prepared cases kept elsewhere)."""
    object.__setattr__(lab, "spec", spec)
    _LOADED[spec] = lab
    if lab.messages is not None:
        from grader.engine import messages

        messages.add(lab.messages)
    return lab


def _by_name(name: str) -> Any:
    """The package ``grader.labs.NAME``, or None when there is none."""
    try:
        return importlib.import_module("grader.labs." + name)
    except ModuleNotFoundError as exc:
        if exc.name not in ("grader.labs." + name, "grader.labs"):
            raise
        return None


def _from_folder(folder: Path) -> Any:
    init = folder / "__init__.py"
    if not init.is_file():
        raise LabError("%s is not a lab's folder (no __init__.py)" % folder)
    name = "embed_grader_lab_%s" % re.sub(r"\W", "_", str(folder.resolve()))
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, init, submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
