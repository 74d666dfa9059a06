"""The child's program: what runs in the child process next to a student's module.

``grader/engine/sandbox/child.py`` starts it as ``PYTHON -I -S -B -c PROGRAM`` in a
fresh temporary folder that holds the child's own copy of the student's module.  It
imports the module and runs calls on it; every request and every answer is one line
of JSON (see "The child protocol" in docs/architecture.md).  Expected values never
reach the child: it only receives inputs and sends back what the student's code made
of them.

The modules named in ``PARTS`` are parts of that one program, never imported as
modules: the parent (``grader.engine.sandbox.program``) joins them in that order, as
their sources one after another, or as their compiled code run in turn in one
namespace.  So each part uses the names that the parts before it define as globals
of that one program, and must work when the sources are simply joined: no relative
imports, no ``from __future__``.  They import the standard library only (Python 3.8
and newer), all of it at the top of ``base``, before the student's code runs.  What
the parts take from one another is written for the type checker alone in ``names``,
which each part star-imports under ``if TYPE_CHECKING:`` (never run).  Everything in
a part travels to every child, so the parts after ``base`` say what they hold in a
comment rather than a docstring.

Its modules may import, of the grader: none (the standard library only).
"""

PARTS = (
    "base",
    "walls",
    "encoding",
    "copies",
    "imports",
    "tracing",
    "output",
    "watch",
    "protocol",
    "main",
)
