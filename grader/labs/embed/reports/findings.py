"""The findings on the report files, their weights, and the helpers they share.

:func:`grader.labs.embed.reports.check` always returns the same 44 findings, in this
order (the engine shares the 15 points of step 8 by weight, 51 in all):

=====================================  ======  ==============================================
id                                     weight  passes when
=====================================  ======  ==============================================
``report.json.file``                   1       the JSON file exists, is a regular file of at
                                               most 1 MiB, is UTF-8, parses, and its top
                                               level is an object
``report.json.schema``                 3       it matches ``schemas/report.schema.json``
                                               (draft 2020-12), integers are written without
                                               a decimal point, numbers are finite, no key
                                               appears twice; every error is listed
``report.json.values.<key>`` (x30)     1       the field equals the recomputed value
``report.json.consistency.<key>`` (x4) 1       the field agrees with other fields of the file
``report.md.file``                     1       the markdown file can be read (as above)
``report.md.headings``                 3       the five ``##`` headings, exactly, in order
``report.md.prose.<n>`` (n = 1..5)     1       section n holds at least 60 letters of prose
                                               (a Hangul syllable counts as 2.5, a
                                               Chinese character as 3)
``report.md.figures``                  4       the figures stated agree with the recomputed
                                               values, and there is at least one
=====================================  ======  ==============================================

A file that cannot be read fails its ``.file`` finding with the reason; the findings
that need its content then fail with "not checked" so that one root cause is shown.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import field
from typing import Any

from grader.engine.frozen import frozen
from grader.engine.messages import text
from grader.engine.vocabulary.results import Status
from grader.labs.embed.contract import ATOL, REPORT_FIELDS, REPORT_HEADINGS, RTOL

MAX_BYTES = 1 << 20  # a report file is never read past 1 MiB
# Bounds that keep reading a report linear in its size (any more is the report's fault):
MAX_NUMBER = 300  # characters of one number, in either file (10**300 is still a float)
MAX_NESTING = 32  # arrays and objects within each other in the JSON (the report needs 2)
MAX_MD_LINES = 4_000  # lines of the markdown (the reference writes about 40)
MAX_MARKUP = 5_000  # markup characters of the markdown (the reference's: about 200)
MAX_KEY_NAMES = 2_000  # report keys named in the markdown (the reference names 30)
MAX_ITEMS = 64  # items of a JSON list that are checked one by one (a report list has 5)
SHOWN = 20  # problems listed in a message (all are counted)
PROSE_MIN_LETTERS = 60
# The letters a Hangul syllable and a Chinese character count as in the prose: the same
# sentences hold about that many times fewer of them than of Latin letters.
WIDE_LETTERS = {"hangul": 2.5, "han": 3.0}
MIN_SIGNIFICANT = 3
MAX_ABS_DIFF_LIMIT = 1e-12

KINDS: dict[str, str] = dict(REPORT_FIELDS)
KEYS: tuple[str, ...] = tuple(key for key, _ in REPORT_FIELDS)

# Consistency checks: the finding's key and the other fields of the file it uses.
CONSISTENCY: dict[str, tuple[str, ...]] = {
    "stretch_target": ("stretch_target", "cos_neighbors"),
    "neighbors_differ": ("neighbors_differ", "cos_neighbors", "dot_neighbors"),
    "rms_ratio": ("rms_ratio", "rms_scaled", "rms_plain"),
    "logit_argmax_is_self": ("logit_argmax_is_self", "logit_argmax", "probe"),
}

WEIGHTS: dict[str, int] = {
    "report.json.file": 1,
    "report.json.schema": 3,
    **{"report.json.values." + key: 1 for key in KEYS},
    **{"report.json.consistency." + key: 1 for key in CONSISTENCY},
    "report.md.file": 1,
    "report.md.headings": 3,
    **{"report.md.prose.%d" % (i + 1): 1 for i in range(len(REPORT_HEADINGS))},
    "report.md.figures": 4,
}


@frozen
class Finding:
    """The verdict on one aspect of the report files."""

    id: str
    status: Status
    message: str
    weight: int = 1
    code: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    called: tuple[str, ...] = ()  # the module's functions a failed figure comes from


def _close(got: float, expected: float) -> bool:
    return abs(got - expected) <= ATOL + RTOL * abs(expected)


def _show(value: Any, limit: int = 80) -> str:
    """A value as JSON text, shortened for messages."""
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        shown = repr(value)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    return shown


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _is_int(value: Any) -> bool:
    return type(value) is int


def _is_number(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


def _is_int_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _allowed(expected: float) -> str:
    return "%.3g" % (ATOL + RTOL * abs(expected))


def _not_checked(ids: list[str], code: str, lang: str) -> list[Finding]:
    message = text(code, lang)
    return [Finding(fid, Status.FAIL, message, WEIGHTS[fid], code) for fid in ids]


# A report key, not part of a longer name.
_KEY = re.compile(
    r"(?<![A-Za-z0-9_])(%s)(?![A-Za-z0-9_])" % "|".join(sorted(KEYS, key=len, reverse=True))
)
