"""Grading the report files of step 8: ``embed_report.json`` and ``embed_report.md``.

``checking`` holds the entry points (:func:`check` for the files in a folder,
:func:`check_written` for the files the module's own writer wrote); ``findings`` the
44 findings and their weights; ``expected`` the values recomputed with the oracle;
``reading`` how a file is read; ``json_schema`` and ``json_values`` the JSON report;
``markdown``, ``sections`` and ``figures`` the markdown report.  The modules here
import the engine's messages, results and file reading, and this lab's contract and
oracle; nothing else in the lab imports them but through this package.
"""

from grader.labs.embed.reports.checking import check, check_reads, check_written
from grader.labs.embed.reports.expected import expected_fields
from grader.labs.embed.reports.figures import Figure, figures_in, significant_digits
from grader.labs.embed.reports.findings import (
    MAX_BYTES,
    PROSE_MIN_LETTERS,
    WEIGHTS,
    Finding,
)
from grader.labs.embed.reports.json_schema import schema
from grader.labs.embed.reports.reading import Refused, _Read, load_json, written
from grader.labs.embed.reports.sections import prose_letters

__all__ = [
    "MAX_BYTES",
    "PROSE_MIN_LETTERS",
    "WEIGHTS",
    "Refused",
    "Figure",
    "Finding",
    "_Read",
    "check",
    "check_reads",
    "check_written",
    "expected_fields",
    "figures_in",
    "load_json",
    "prose_letters",
    "schema",
    "significant_digits",
    "written",
]
