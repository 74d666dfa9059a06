"""Grading a class: ``embed-grader batch SUBMISSIONS_DIR --out DIR [options]``.

Every submission is graded with one seed, printed and recorded, so that every
student faces the same cases; ``--seed-per-student`` derives each submission's
seed from the batch seed and the submission's id instead.  Submissions are graded
in parallel (``--jobs``); each grading runs the student's module in its own child
process, so a crash or a hang costs that submission its points and nothing more.

The output folder gets ``gradebook.csv`` (and the same grades for Canvas and Moodle,
``gradebook-canvas.csv`` and ``gradebook-moodle.csv``), ``feedback/ID.txt``, ``feedback/ID.json`` and
``feedback/ID.html``, ``summary.txt`` and ``summary.json`` (with the similar submissions
flagged, see ``grader.engine.similarity``), ``report.html`` (the class on one page, see
``grader.engine.batch.pages``), ``rows.json`` (what ``embed-grader merge`` reads) and
``.cache.json``: a submission whose files,
seed and options are unchanged, graded by the same grader, is not graded again
(``--force`` regrades everything).

What lives here, each module importing only those above it (one hand-in, and which
of its files is the module, is ``grader.engine.handin``'s):

- ``roster``: the platform's own list of students (``--roster``), read within bounds;
- ``rows``: the batch's options, one row per submission, the gradebook;
- ``copies``, ``matching``, ``handins``: a class folder's hand-ins, one per student;
- ``summary``: the class at a glance (``summary.json`` and ``summary.txt``);
- ``lms``: the gradebook in the CSV import formats of Canvas and Moodle;
- ``filledroster``: the roster filled with the grades, as the platform imports it;
- ``cache``: ``.cache.json`` and the fingerprint of the grader;
- ``faults``: a fault of the grader confined to the submission it struck;
- ``failedchecks``: the checks the class failed, one entry per function;
- ``pages``: the class on one page (``report.html``) and each student's feedback page;
- ``classout``: what is written about the whole class, ``rows.json`` and the shards;
- ``integrity``: noticing that grading one submission changed the grader or another
  submission;
- ``job``: grading one submission in a worker;
- ``run``: the whole batch, in parallel, stopped when grading changes a watched file;
- ``command``: the command line;
- ``shardfile``: a batch's output as ``merge`` reads it, untrusted;
- ``merge``: ``embed-grader merge``, one class from several batches' outputs (shards).

Its modules may import, of the grader: ``similarity``, ``output``, ``grading``,
``handin``, ``lab``, ``vocabulary``, ``sandbox``, ``messages``, ``safefs`` and
``frozen``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from grader.engine.batch.cache import CACHE_FILE, Cache, grader_fingerprint
    from grader.engine.batch.command import main, parser
    from grader.engine.batch.handins import discover
    from grader.engine.batch.job import Graded, Job, grade_one
    from grader.engine.batch.rows import (
        GRADED,
        GRADER_ERROR,
        STATUSES,
        BatchOptions,
        Row,
        status_of,
        write_atomic,
        write_gradebook,
    )
    from grader.engine.batch.run import BatchResult, Tampered, run_batch
    from grader.engine.batch.summary import summarize, summary_text
    from grader.engine.handin.submissions import (
        Submission,
        find_module,
        student_seed,
        watched_files,
    )

__all__ = [
    "CACHE_FILE",
    "GRADED",
    "GRADER_ERROR",
    "STATUSES",
    "BatchOptions",
    "BatchResult",
    "Cache",
    "Graded",
    "Job",
    "Row",
    "Submission",
    "Tampered",
    "discover",
    "find_module",
    "grade_one",
    "grader_fingerprint",
    "main",
    "parser",
    "run_batch",
    "status_of",
    "student_seed",
    "summarize",
    "summary_text",
    "watched_files",
    "write_atomic",
    "write_gradebook",
]

# Where each name above lives.  A grading from the command line imports one of these
# modules (``handins``, say) without the rest: the package loads a module only when
# one of its names is asked for.
_HOMES = {
    "CACHE_FILE": "cache",
    "Cache": "cache",
    "grader_fingerprint": "cache",
    "main": "command",
    "parser": "command",
    "Graded": "job",
    "Job": "job",
    "grade_one": "job",
    "GRADED": "rows",
    "GRADER_ERROR": "rows",
    "STATUSES": "rows",
    "BatchOptions": "rows",
    "Row": "rows",
    "status_of": "rows",
    "write_atomic": "rows",
    "write_gradebook": "rows",
    "BatchResult": "run",
    "Tampered": "run",
    "run_batch": "run",
    "Submission": "grader.engine.handin.submissions",
    "discover": "handins",
    "find_module": "grader.engine.handin.submissions",
    "student_seed": "grader.engine.handin.submissions",
    "watched_files": "grader.engine.handin.submissions",
    "summarize": "summary",
    "summary_text": "summary",
}


def __getattr__(name: str) -> Any:
    """A name of ``__all__`` from its module, imported now; a submodule as usual."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(importlib.import_module(home if "." in home else __name__ + "." + home), name)
    globals()[name] = value
    return value
