"""The parent side of the child process that runs a student module.

The child (``grader/engine/_child/``, stdlib-only parts of one program) receives
only inputs and sends back only plain JSON; expected values never exist in it.  See
"The child protocol" in docs/architecture.md.  Nothing the student's code made is ever an
object in this process: answers are decoded to plain values, with ``Foreign``
standing for subclasses and unknown objects and ``Raised`` for exceptions.

What lives here, from the bottom up: ``limits`` (sizes and times), ``walls`` (what
the child must not read, and whether the kernel lets it wall itself off),
``decoding`` (what the parent accepts from the child: strict decoding and a check of
every field) and ``reportfiles`` (the same for the files the report writer left),
``records`` (the plain data in and out), ``encoding`` (values on the wire), ``pipe``
(lines from the child), ``procfs`` (what /proc says of a process), ``users`` (an
unprivileged user for each child when the grader runs as root), ``processes``
(finding and killing them, cgroups), ``program`` (the child's parts joined into one
program as handed over), ``isolation`` (process, user or bubblewrap), ``budget`` (the
time a submission may take), ``leftovers`` (the folders of children whose grader was
killed) and ``disk`` (each child's share of disk, and what the machine itself lacks),
and the ``Sandbox`` itself in layers: ``child`` (start and stop one child),
``loading`` (import the module, restart), ``running`` (calls) and ``box`` (the report
writer).

Modules here may import the standard library and each other (a layer only those
below it); never a lab: the names to ask for come from the caller.

Its modules may import, of the grader: ``_child`` (its list of parts, which are read as
files and never imported here), ``safefs`` and ``frozen``.
"""

from grader.engine.sandbox.box import Sandbox
from grader.engine.sandbox.child import CHILD, CHILD_TAG, MODULE_FILE
from grader.engine.sandbox.decoding import (
    Foreign,
    OffProtocol,
    Raised,
    decode,
    unpack,
    unpack_rows,
)
from grader.engine.sandbox.disk import DISK_DETAIL, machine_fault, twice
from grader.engine.sandbox.encoding import (
    PACK_FROM,
    answer_limit,
    encode,
    pack,
    pack_rows,
    prepare,
)
from grader.engine.sandbox.isolation import (
    CHOICES,
    HOME_AS_ROOT,
    ISOLATIONS,
    UID_VARIABLE,
    bwrap_command,
    bwrap_path,
    bwrap_problem,
    isolation_problem,
    strongest,
    user_problem,
    weaker_note,
)
from grader.engine.sandbox.limits import (
    ANSWER_SLACK,
    BUDGET,
    DISK_FILES,
    DISK_MB,
    MARKER,
    MAX_LINE,
    MAX_MODULE,
    MAX_RESTARTS,
    MAX_SECONDS_FACTOR,
    MIN_ANSWER,
    SPENT,
    STDLIB,
)
from grader.engine.sandbox.records import (
    Call,
    Loaded,
    MachineFault,
    Outcome,
    SandboxError,
    Written,
)
from grader.engine.sandbox.reportfiles import WrittenFile

__all__ = [
    "ANSWER_SLACK",
    "BUDGET",
    "CHILD",
    "CHILD_TAG",
    "CHOICES",
    "DISK_DETAIL",
    "DISK_FILES",
    "DISK_MB",
    "HOME_AS_ROOT",
    "ISOLATIONS",
    "MARKER",
    "MAX_LINE",
    "MAX_MODULE",
    "MAX_RESTARTS",
    "MAX_SECONDS_FACTOR",
    "MIN_ANSWER",
    "MODULE_FILE",
    "PACK_FROM",
    "SPENT",
    "STDLIB",
    "UID_VARIABLE",
    "Call",
    "Foreign",
    "Loaded",
    "MachineFault",
    "OffProtocol",
    "Outcome",
    "Raised",
    "Sandbox",
    "SandboxError",
    "Written",
    "WrittenFile",
    "answer_limit",
    "bwrap_command",
    "bwrap_path",
    "bwrap_problem",
    "decode",
    "encode",
    "isolation_problem",
    "machine_fault",
    "pack",
    "pack_rows",
    "prepare",
    "strongest",
    "twice",
    "unpack",
    "unpack_rows",
    "user_problem",
    "weaker_note",
]
