"""Grading the report files of step 8: ``embed_report.json`` and ``embed_report.md``.

Not a single number in the files is trusted.  Every field is recomputed here with
``grader.labs.embed.oracle`` and the fixed constants of ``grader.labs.embed.contract`` (see
:func:`expected_fields`), and the files are compared with those values.

The grader grades the files that the module's own ``write_report`` writes
(:func:`check_written`, called by ``grader.labs.embed.reportstep``); there, a value or figure
that agrees with the recomputed value still fails when the module's functions do not
give it (``grader.labs.embed.fromcode``), with ``report.json.value_not_measured`` /
``report.json.value_unmeasured`` or, in the markdown, ``report.md.figure_not_measured``
/ ``report.md.figure_unmeasured``.  :func:`check` grades the files in a folder.

Findings
--------
:func:`check` always returns the same 44 findings, in this order (the engine shares
the 15 points of step 8 by weight, 51 in all):

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
``report.md.figures``                  4       the figures stated agree with the recomputed
                                               values, and there is at least one
=====================================  ======  ==============================================

A file that cannot be read fails its ``.file`` finding with the reason (missing, a
directory, not a regular file, unreadable, larger than 1 MiB, not UTF-8, invalid JSON
with line and column, a top level that is not an object); the findings that need its
content then fail with "not checked" so that one root cause is shown.  The markdown
does not need the JSON: its figures are compared with the recomputed values.

JSON values
-----------
Integers, booleans and lists are compared exactly and must have their JSON type (an
integer written ``32768.0`` is a float, ``true`` is not ``1``).  Numbers (``int`` or
``float``) pass when ``abs(got - expected) <= ATOL + RTOL * abs(expected)``.  Decisions:
``max_abs_diff`` passes from 0 up to 1e-12; ``cos_unchanged_by_scale`` is true (both
readings of the contract hold); ``repeat_same`` is true; ``lookup_mults`` is 0;
``one_hot_mults`` counts the single probe token, 512 * 64; ``stretch_factor`` is 4.0
(``4`` is accepted).  Consistency checks within the file: ``stretch_target`` is
``cos_neighbors[4]``, ``neighbors_differ`` is ``cos_neighbors != dot_neighbors``,
``rms_ratio`` is ``rms_scaled / rms_plain`` (within the tolerance) and
``logit_argmax_is_self`` is ``logit_argmax == probe``.

Markdown headings
-----------------
ATX headings outside fenced code blocks are read; a required heading matches when its
level is 2 and its text, stripped of the surrounding spaces (and of closing ``#``) and
in Unicode NFC, equals the contract's heading exactly.  Other headings may come before,
between and after them.  A missing heading is reported with the closest heading-like
line found.  A section runs from its heading to the next heading of level 1 or 2.

Prose minimum
-------------
A section needs at least :data:`PROSE_MIN_LETTERS` (60) letters of prose: alphabetic
characters (Hangul, Latin, ...) in its body, not counting headings, fenced code, inline
code spans, HTML comments, link targets and report key names.  Figures, key names and
code therefore never make up the prose.

Figures in the markdown
-----------------------
A figure is a report key (with or without backticks or quotes, not part of a longer
name) followed right away, on the same line, by its value: optional spaces, an optional separator (``=``,
``==``, ``:``, ``≈``, ``~``, ``->``, ``→``, ``is``, ``was``, ``are``, ``were``, ``equals``
or a Korean particle ``은 는 이 가``), an optional ``(`` or backtick, then the value:
a number (``-``, ``−``, grouping ``,``/``_`` and exponents allowed), a list ``[...]`` or
tuple ``(..., ...)`` of integers, ``512 x 64`` for ``table_shape``, or true/false/True/False.
Not judged: keys inside fenced code or HTML comments, a key directly followed by ``[``,
``(`` or ``.`` (a subscript or call), a key next to an arithmetic operator (a formula such
as ``rms_scaled / rms_plain = 8.0``), a value of the wrong kind for the key, and numbers
that do not follow a key.  Every figure is compared with the recomputed value (so a wrong
JSON and a markdown that repeats it both fail): integers, lists and booleans exactly; a
float agrees when it is within the tolerance, or when rounding the recomputed value to
the number of significant digits written gives the written value, which needs at least
3 significant digits (``0.29783``, ``0.2978`` and ``0.298`` agree with 0.2978265...;
``0.3`` has too few digits and ``0.2979`` is rounded wrongly).  ``max_abs_diff`` agrees
from 0 up to 1e-12.  The report must state at least one figure.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator

from grader.engine import safefs
from grader.engine.messages import text
from grader.engine.results import Status
from grader.engine.sandbox import WrittenFile
from grader.labs.embed import oracle
from grader.labs.embed.contract import (
    ATOL,
    CONSTANTS,
    PROBE,
    REPORT_FIELDS,
    REPORT_HEADINGS,
    REPORT_JSON,
    REPORT_MD,
    RTOL,
    STRETCH_FACTOR,
    STRETCH_RANK,
    VOCAB_FACTOR,
    K,
)

if TYPE_CHECKING:
    from grader.labs.embed.fromcode import Measured

MAX_BYTES = 1 << 20  # a report file is never read past 1 MiB
PROSE_MIN_LETTERS = 60
MIN_SIGNIFICANT = 3
MAX_ABS_DIFF_LIMIT = 1e-12
SCHEMA_PATH = Path(__file__).resolve().parent / "schemas" / "report.schema.json"

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


@dataclass(frozen=True)
class Finding:
    """The verdict on one aspect of the report files."""

    id: str
    status: Status
    message: str
    weight: int = 1
    code: str = ""
    details: dict[str, Any] = field(default_factory=dict)
    called: tuple[str, ...] = ()  # the module's functions a failed figure comes from


# Expected values ---------------------------------------------------------------------


def _close(got: float, expected: float) -> bool:
    return abs(got - expected) <= ATOL + RTOL * abs(expected)


@functools.lru_cache(maxsize=1)
def _expected() -> tuple[tuple[str, Any], ...]:
    vocab, dim, seed = CONSTANTS["VOCAB"], CONSTANTS["DIM"], CONSTANTS["SEED"]
    table = oracle.make_table(vocab, dim, seed)
    plain = oracle.lookup(table, [PROBE])[0]
    via_one_hot = oracle.row_times_matrix(oracle.one_hot(PROBE, vocab), table)
    twice = oracle.lookup(table, [PROBE, PROBE])
    scores = oracle.logits(table, plain)
    best = max(range(len(scores)), key=lambda t: (scores[t], -t))
    growth = oracle.vocab_growth(vocab, dim, VOCAB_FACTOR)
    cos_list = oracle.nearest_by_cosine(table, PROBE, K)
    dot_list = oracle.nearest_by_dot(table, PROBE, K)
    target = cos_list[STRETCH_RANK]
    stretched = oracle.stretch(table, target, STRETCH_FACTOR)
    other = oracle.lookup(table, [target])[0]
    scaled = oracle.scaled_lookup(table, [PROBE, target], dim)
    # Either reading: a row against its scaled self, or two rows before and after.
    with_itself = _close(oracle.cosine(plain, scaled[0]), 1.0)
    cos_before = oracle.cosine(plain, other)
    both_rows = _close(oracle.cosine(scaled[0], scaled[1]), cos_before)
    rms_plain = oracle.rms(plain)
    rms_scaled = oracle.rms(scaled[0])
    values: dict[str, Any] = {
        "vocab": vocab,
        "dim": dim,
        "seed": seed,
        "probe": PROBE,
        "table_shape": list(oracle.shape(table)),
        "params": oracle.param_count(vocab, dim),
        "tied_params": oracle.tied_params(vocab, dim),
        "untied_params": oracle.untied_params(vocab, dim),
        "saved": growth["saved"],
        "bigger_vocab": growth["bigger_vocab"],
        "bigger_tied": growth["bigger_tied"],
        "bigger_untied": growth["bigger_untied"],
        "lookup_mults": 0,
        "one_hot_mults": oracle.one_hot_mults(vocab, dim, 1),
        "max_abs_diff": max(abs(a - b) for a, b in zip(plain, via_one_hot)),
        "repeat_same": twice[0] == twice[1],
        "logit_len": len(scores),
        "logit_argmax": best,
        "logit_argmax_is_self": best == PROBE,
        "cos_neighbors": cos_list,
        "dot_neighbors": dot_list,
        "neighbors_differ": cos_list != dot_list,
        "stretch_target": target,
        "stretch_factor": STRETCH_FACTOR,
        "cos_after_stretch": oracle.nearest_by_cosine(stretched, PROBE, K),
        "dot_after_stretch": oracle.nearest_by_dot(stretched, PROBE, K),
        "cos_unchanged_by_scale": with_itself or both_rows,
        "rms_plain": rms_plain,
        "rms_scaled": rms_scaled,
        "rms_ratio": rms_scaled / rms_plain,
    }
    return tuple((key, values[key]) for key in KEYS)


def expected_fields() -> dict[str, Any]:
    """Every report field recomputed with the oracle and the fixed constants (cached).

    The keys come in the order of ``contract.REPORT_FIELDS``; the caller gets its own copy.
    """
    return {key: list(value) if isinstance(value, list) else value for key, value in _expected()}


# Small helpers -----------------------------------------------------------------------


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
    return (type(value) is int or type(value) is float) and math.isfinite(value)


def _is_int_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_int(v) for v in value)


def _allowed(expected: float) -> str:
    return "%.3g" % (ATOL + RTOL * abs(expected))


# Reading the files -------------------------------------------------------------------


@dataclass(frozen=True)
class _Read:
    text: str | None
    code: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    size: int = 0


def _read(path: Path, where: str | None = None) -> _Read:
    """The text of a report file, or why it cannot be read.  Never raises.

    ``where`` names the folder in messages (default: its path).  Only a regular file
    is read, never through a symbolic link (a link to another student's report, or to
    a file of the grader's machine, is refused) and never a named pipe or a device.
    """
    name = path.name
    try:
        got = safefs.read_regular(str(path), MAX_BYTES + 1)
    except safefs.NotRegular as exc:
        if exc.strerror == "a folder":
            return _Read(None, "report.file.directory", {"file": name})
        if exc.strerror == "a symbolic link":
            return _Read(None, "report.file.link", {"file": name})
        return _Read(None, "report.file.special", {"file": name})
    except (FileNotFoundError, NotADirectoryError):
        shown = where if where is not None else str(path.parent)
        return _Read(None, "report.file.missing", {"file": name, "dir": shown})
    except OSError as exc:
        return _Read(
            None, "report.file.unreadable", {"file": name, "error": exc.strerror or str(exc)}
        )
    raw = got.data
    if got.size > MAX_BYTES:
        return _Read(
            None, "report.file.too_large", {"file": name, "size": got.size, "limit": MAX_BYTES}
        )
    return _decode(name, raw)


def _decode(name: str, raw: bytes, size: int | None = None) -> _Read:
    """The text of at most MAX_BYTES + 1 bytes of a file, or why it is not usable."""
    if len(raw) > MAX_BYTES or (size is not None and size > MAX_BYTES):
        return _Read(
            None,
            "report.file.too_large",
            {
                "file": name,
                "size": size if size is not None else "> %d" % MAX_BYTES,
                "limit": MAX_BYTES,
            },
        )
    try:
        decoded = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        return _Read(
            None,
            "report.file.not_utf8",
            {"file": name, "byte": "0x%02x" % raw[exc.start], "line": line, "column": column},
        )
    return _Read(decoded, size=len(raw))


def written(name: str, file: WrittenFile) -> _Read:
    """A file as the module's writer left it (read by the child, see Sandbox.write_report)."""
    if file.state == "file":
        return _decode(name, file.data, file.size)
    if file.state == "missing":
        return _Read(None, "report.file.not_written", {"file": name})
    if file.state == "directory":
        return _Read(None, "report.file.directory", {"file": name})
    if file.state == "unreadable":
        return _Read(None, "report.file.unreadable", {"file": name, "error": "?"})
    if file.state == "link":
        return _Read(None, "report.file.link", {"file": name})
    return _Read(None, "report.file.special", {"file": name})


class _Object(dict[str, Any]):
    """A JSON object that remembers which keys appeared more than once."""

    duplicates: dict[str, int]


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object()
    counts: dict[str, int] = {}
    for key, value in pairs:
        counts[key] = counts.get(key, 0) + 1
        obj[key] = value
    obj.duplicates = {key: n for key, n in counts.items() if n > 1}
    return obj


def _parse_json(source: str) -> tuple[_Object | None, str, dict[str, Any]]:
    params: dict[str, Any] = {"file": REPORT_JSON}
    try:
        data = json.loads(source, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        params.update(line=exc.lineno, column=exc.colno, error=exc.msg)
        return None, "report.json.invalid", params
    except (ValueError, RecursionError) as exc:
        params.update(error=str(exc) or type(exc).__name__)
        return None, "report.json.unparsable", params
    if not isinstance(data, _Object):
        params.update(found=_type_name(data))
        return None, "report.json.not_object", params
    return data, "", params


# The JSON file -----------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of embed_report.json (``grader/labs/embed/schemas/report.schema.json``)."""
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return data


@functools.lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(schema())


def _json_path(parts: Iterator[Any] | list[Any]) -> str:
    out = "$"
    for part in parts:
        out += "[%d]" % part if isinstance(part, int) else "." + str(part)
    return out


def _kind_text(kind: str, lang: str) -> str:
    return text("report.kind." + kind, lang)


def _schema_errors(data: _Object, lang: str) -> list[tuple[int, str, str, dict[str, Any]]]:
    """(order, path, code, params) of every schema error, the validator's and ours."""
    order = {key: i for i, key in enumerate(KEYS)}
    errors: list[tuple[int, str, str, dict[str, Any]]] = []
    missing_seen: set[str] = set()
    extras = [key for key in data if key not in KINDS]
    for err in _validator().iter_errors(data):
        parts = list(err.absolute_path)
        top = str(parts[0]) if parts else ""
        rank = order.get(top, len(order))
        path = _json_path(parts)
        if err.validator == "required" and isinstance(err.instance, dict):
            for key in err.validator_value:
                if key in err.instance or key in missing_seen:
                    continue
                missing_seen.add(key)
                params = {"path": "$." + key, "expected": _kind_text(KINDS[key], lang)}
                similar = difflib.get_close_matches(key, extras, 1, 0.7)
                if similar:
                    errors.append(
                        (
                            order.get(key, len(order)),
                            params["path"],
                            "report.json.schema_misspelt",
                            {**params, "similar": similar[0]},
                        )
                    )
                else:
                    errors.append(
                        (
                            order.get(key, len(order)),
                            params["path"],
                            "report.json.schema_missing",
                            params,
                        )
                    )
        elif err.validator == "type":
            errors.append(
                (
                    rank,
                    path,
                    "report.json.schema_type",
                    {
                        "path": path,
                        "found": _show(err.instance),
                        "found_type": _type_name(err.instance),
                        "expected": err.validator_value,
                    },
                )
            )
        elif err.validator in ("minItems", "maxItems") and isinstance(err.instance, list):
            errors.append(
                (
                    rank,
                    path,
                    "report.json.schema_items",
                    {
                        "path": path,
                        "expected": err.validator_value,
                        "count": len(err.instance),
                        "found": _show(err.instance),
                    },
                )
            )
        elif err.validator == "uniqueItems":
            errors.append(
                (
                    rank,
                    path,
                    "report.json.schema_unique",
                    {"path": path, "found": _show(err.instance)},
                )
            )
        else:
            errors.append(
                (rank, path, "report.json.schema_other", {"path": path, "detail": err.message})
            )
    # What JSON Schema lets through: 1.0 as an integer, NaN and infinities, repeated keys.
    for key, kind in REPORT_FIELDS:
        if key not in data:
            continue
        value = data[key]
        items: list[tuple[str, Any]] = []
        if kind == "integer":
            items = [("$." + key, value)]
        elif kind in ("shape", "indices") and isinstance(value, list):
            items = [("$.%s[%d]" % (key, i), v) for i, v in enumerate(value)]
        for path, item in items:
            if type(item) is float and item.is_integer():
                errors.append(
                    (
                        order[key],
                        path,
                        "report.json.schema_float_int",
                        {"path": path, "found": _show(item)},
                    )
                )
        if kind == "number" and type(value) is float and not math.isfinite(value):
            errors.append(
                (
                    order[key],
                    "$." + key,
                    "report.json.schema_nonfinite",
                    {"path": "$." + key, "found": _show(value)},
                )
            )
    for key, count in data.duplicates.items():
        errors.append(
            (
                order.get(key, len(order)),
                "$." + key,
                "report.json.schema_duplicate",
                {"path": "$." + key, "count": count},
            )
        )
    errors.sort(key=lambda e: (e[0], e[1]))
    return errors


def _schema_finding(data: _Object, lang: str) -> Finding:
    fid = "report.json.schema"
    errors = _schema_errors(data, lang)
    if not errors:
        return Finding(
            fid,
            Status.PASS,
            text("report.json.schema_ok", lang, n=len(KEYS)),
            WEIGHTS[fid],
            "report.json.schema_ok",
        )
    lines = [text(code, lang, **params) for _, _, code, params in errors]
    message = text(
        "report.json.schema_fail", lang, file=REPORT_JSON, n=len(errors), errors="; ".join(lines)
    )
    details = {
        "errors": [
            {"path": path, "code": code, "message": line}
            for (_, path, code, _), line in zip(errors, lines)
        ]
    }
    return Finding(fid, Status.FAIL, message, WEIGHTS[fid], "report.json.schema_fail", details)


def _value_ok(key: str, got: Any, expected: Any) -> bool:
    kind = KINDS[key]
    if kind == "integer":
        return _is_int(got) and got == expected
    if kind == "boolean":
        return type(got) is bool and got == expected
    if kind in ("shape", "indices"):
        return _is_int_list(got) and got == expected
    if not _is_number(got):
        return False
    if key == "max_abs_diff":
        return 0 <= got <= MAX_ABS_DIFF_LIMIT
    return _close(got, expected)


def _type_ok(kind: str, got: Any) -> bool:
    if kind == "integer":
        return _is_int(got)
    if kind == "boolean":
        return type(got) is bool
    if kind in ("shape", "indices"):
        return _is_int_list(got)
    return type(got) is int or type(got) is float


def _value_finding(key: str, data: _Object, expected: Any, lang: str) -> Finding:
    fid = "report.json.values." + key
    weight = WEIGHTS[fid]
    kind = KINDS[key]
    details: dict[str, Any] = {"key": key, "expected": expected}
    if key not in data:
        code = "report.json.value_missing"
        return Finding(
            fid,
            Status.FAIL,
            text(code, lang, key=key, expected=_show(expected)),
            weight,
            code,
            details,
        )
    got = data[key]
    details["found"] = _show(got)
    if _value_ok(key, got, expected):
        code = "report.json.value_ok"
        return Finding(
            fid, Status.PASS, text(code, lang, key=key, found=_show(got)), weight, code, details
        )
    params: dict[str, Any] = {"key": key, "expected": _show(expected), "found": _show(got)}
    if not _type_ok(kind, got):
        code = "report.json.value_type"
        params.update(kind=_kind_text(kind, lang), found_type=_type_name(got))
    elif key == "max_abs_diff":
        code = "report.json.value_max_abs_diff"
        params.update(limit=MAX_ABS_DIFF_LIMIT)
    elif kind == "number":
        code = "report.json.value_float"
        params.update(allowed=_allowed(expected))
    else:
        code = "report.json.value_wrong"
    return Finding(fid, Status.FAIL, text(code, lang, **params), weight, code, details)


def _agreement(finding: Finding, data: _Object, measured: Measured, lang: str) -> Finding:
    """A value finding, failed as well when the module's functions do not give the value."""
    if finding.status is not Status.PASS:
        return replace(finding, called=measured.functions)
    got = data[measured.key]
    if not measured.ok:
        code = "report.json.value_unmeasured"
        params = {"key": measured.key, "why": text(measured.code, lang, **measured.params)}
    elif not _value_ok(measured.key, got, measured.value):
        code = "report.json.value_not_measured"
        params = {
            "key": measured.key,
            "found": _show(got),
            "measured": _show(measured.value),
            "call": measured.source,
        }
    else:
        return finding
    details = dict(finding.details, measured=code)
    return Finding(
        finding.id,
        Status.FAIL,
        text(code, lang, **params),
        finding.weight,
        code,
        details,
        measured.functions,
    )


def _consistency_finding(name: str, data: _Object, lang: str) -> Finding:
    fid = "report.json.consistency." + name
    weight = WEIGHTS[fid]
    fields = CONSISTENCY[name]
    values: list[Any] = [data.get(key) for key in fields]
    details: dict[str, Any] = {"fields": list(fields)}
    params: dict[str, Any] = {"name": name, "fields": ", ".join(fields[1:])}
    ok: bool | None = None
    if name == "stretch_target":
        target, cos = values
        if _is_int(target) and _is_int_list(cos) and len(cos) > STRETCH_RANK:
            ok = target == cos[STRETCH_RANK]
            params.update(target=_show(target), fifth=_show(cos[STRETCH_RANK]))
    elif name == "neighbors_differ":
        differ, cos, dot = values
        if type(differ) is bool and _is_int_list(cos) and _is_int_list(dot):
            want = cos != dot
            ok = differ == want
            params.update(got=_show(differ), want=_show(want), cos=_show(cos), dot=_show(dot))
    elif name == "rms_ratio":
        ratio, scaled, plain = values
        if _is_number(ratio) and _is_number(scaled) and _is_number(plain) and plain != 0:
            computed = scaled / plain
            ok = _close(ratio, computed)
            params.update(ratio=_show(ratio), computed=_show(computed), allowed=_allowed(computed))
    elif name == "logit_argmax_is_self":
        is_self, argmax, probe = values
        if type(is_self) is bool and _is_int(argmax) and _is_int(probe):
            want = argmax == probe
            ok = is_self == want
            params.update(got=_show(is_self), want=_show(want), argmax=argmax, probe=probe)
    if ok is None:
        code = "report.json.consistency_unchecked"
        return Finding(fid, Status.FAIL, text(code, lang, **params), weight, code, details)
    if ok:
        code = "report.json.consistency_ok"
        return Finding(fid, Status.PASS, text(code, lang, **params), weight, code, details)
    code = "report.json.consistency." + name
    return Finding(fid, Status.FAIL, text(code, lang, **params), weight, code, details)


def _json_ids() -> list[str]:
    return (
        ["report.json.schema"]
        + ["report.json.values." + key for key in KEYS]
        + ["report.json.consistency." + name for name in CONSISTENCY]
    )


def _file_finding(fid: str, read: _Read, lang: str, name: str) -> Finding:
    if read.code:
        return Finding(
            fid,
            Status.FAIL,
            text(read.code, lang, **read.params),
            WEIGHTS[fid],
            read.code,
            dict(read.params),
        )
    code = "report.file.ok"
    return Finding(
        fid,
        Status.PASS,
        text(code, lang, file=name, size=read.size),
        WEIGHTS[fid],
        code,
        {"file": name, "size": read.size},
    )


def _not_checked(ids: list[str], code: str, lang: str) -> list[Finding]:
    message = text(code, lang)
    return [Finding(fid, Status.FAIL, message, WEIGHTS[fid], code) for fid in ids]


def _check_json(
    read: _Read, lang: str, measured: Mapping[str, Measured] | None
) -> tuple[list[Finding], _Object | None]:
    data: _Object | None = None
    if read.text is not None:
        data, code, params = _parse_json(read.text)
        if data is None:
            read = _Read(None, code, params, read.size)
    findings = [_file_finding("report.json.file", read, lang, REPORT_JSON)]
    if data is None:
        return findings + _not_checked(_json_ids(), "report.json.not_read", lang), None
    findings.append(_schema_finding(data, lang))
    for key, expected in _expected():
        finding = _value_finding(key, data, expected, lang)
        if measured is not None and key in measured:
            finding = _agreement(finding, data, measured[key], lang)
        findings.append(finding)
    for name in CONSISTENCY:
        findings.append(_consistency_finding(name, data, lang))
    return findings, data


# The markdown file -------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HASHES = re.compile(r"^\s{0,3}#{1,6}\S")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINKS = re.compile(r"\]\([^)]*\)|<?https?://\S+")
_KEY = re.compile(
    r"(?<![A-Za-z0-9_])(%s)(?![A-Za-z0-9_])" % "|".join(sorted(KEYS, key=len, reverse=True))
)
_SEPARATOR = re.compile(
    r"[ \t]*(?:(?:==|=|:|≈|~|->|→|is|was|are|were|equals|은|는|이|가)"
    r"(?![A-Za-z])[ \t]*)?"
)
_NUMBER = re.compile(
    r"[-−+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*)(?:\.\d+)?|\.\d+)"
    r"(?:[eE][-−+]?\d+)?"
)
_BOOL = re.compile(r"(true|false|True|False)(?![A-Za-z0-9_])")
_BY = re.compile(r"(\d+)[ \t]*[x×X][ \t]*(\d+)(?![\d.])")
_OPERATORS = "×*/÷·+−-^"


@dataclass(frozen=True)
class _Line:
    number: int
    text: str
    code: bool  # a fence line or inside a fenced code block


@dataclass(frozen=True)
class _Heading:
    line: int
    level: int
    text: str  # stripped, NFC
    raw: str


def _lines(source: str) -> list[_Line]:
    source = source.replace("\r\n", "\n").replace("\r", "\n")
    # HTML comments become spaces (line numbers stay right).
    source = _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), source)
    out: list[_Line] = []
    fence = ""
    for number, line in enumerate(source.split("\n"), start=1):
        if fence:
            closing = _FENCE.match(line)
            if (
                closing
                and closing.group(1)[0] == fence[0]
                and len(closing.group(1)) >= len(fence)
                and not line.strip().strip(fence[0])
            ):
                fence = ""
            out.append(_Line(number, line, True))
            continue
        opening = _FENCE.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in line[opening.end() :]):
            fence = opening.group(1)
            out.append(_Line(number, line, True))
            continue
        out.append(_Line(number, line, False))
    return out


def _headings(lines: list[_Line]) -> list[_Heading]:
    out = []
    for line in lines:
        if line.code:
            continue
        match = _ATX.match(line.text)
        if match:
            content = unicodedata.normalize("NFC", (match.group(2) or "").strip())
            out.append(_Heading(line.number, len(match.group(1)), content, line.text.strip()))
    return out


def _closest(wanted: str, lines: list[_Line], taken: set[int]) -> tuple[str, int] | None:
    """The heading-like line most similar to ``## wanted`` (not one matched already)."""
    target = "## " + wanted
    best: tuple[float, str, int] | None = None
    for line in lines:
        if line.code or line.number in taken or not _HASHES.match(line.text):
            continue
        raw = unicodedata.normalize("NFC", line.text.strip())
        ratio = difflib.SequenceMatcher(None, target, raw).ratio()
        if ratio >= 0.5 and (best is None or ratio > best[0]):
            best = (ratio, line.text.strip(), line.number)
    return (best[1], best[2]) if best else None


def _heading_finding(lines: list[_Line], found: list[_Heading | None], lang: str) -> Finding:
    fid = "report.md.headings"
    problems: list[tuple[str, dict[str, Any]]] = []
    taken = {h.line for h in found if h is not None}
    for wanted, heading in zip(REPORT_HEADINGS, found):
        if heading is not None:
            continue
        near = _closest(wanted, lines, taken)
        if near:
            problems.append(
                (
                    "report.md.heading_missing",
                    {"heading": "## " + wanted, "closest": near[0], "line": near[1]},
                )
            )
        else:
            problems.append(("report.md.heading_missing_none", {"heading": "## " + wanted}))
    present = sorted((h.line, i) for i, h in enumerate(found) if h is not None)
    if [i for _, i in present] != sorted(i for _, i in present):
        problems.append(
            (
                "report.md.heading_order",
                {
                    "found": " / ".join(
                        text(
                            "report.md.heading_at",
                            lang,
                            heading="## " + REPORT_HEADINGS[i],
                            line=line,
                        )
                        for line, i in present
                    ),
                    "expected": " / ".join(
                        "## " + REPORT_HEADINGS[i] for _, i in sorted(present, key=lambda p: p[1])
                    ),
                },
            )
        )
    details: dict[str, Any] = {
        "lines": {REPORT_HEADINGS[i]: (h.line if h else None) for i, h in enumerate(found)}
    }
    if not problems:
        code = "report.md.headings_ok"
        return Finding(
            fid, Status.PASS, text(code, lang, n=len(REPORT_HEADINGS)), WEIGHTS[fid], code, details
        )
    message = "; ".join(text(code, lang, **params) for code, params in problems)
    details["problems"] = [code for code, _ in problems]
    return Finding(fid, Status.FAIL, message, WEIGHTS[fid], problems[0][0], details)


def prose_letters(body: list[str]) -> int:
    """Letters of prose in section lines: no code spans, links or report key names."""
    count = 0
    for line in body:
        line = _CODE_SPAN.sub(" ", line)
        line = _LINKS.sub(" ", line)
        line = _KEY.sub(" ", line)
        count += sum(1 for ch in line if ch.isalpha())
    return count


def _prose_findings(
    lines: list[_Line], headings: list[_Heading], found: list[_Heading | None], lang: str
) -> list[Finding]:
    findings = []
    for i, (wanted, heading) in enumerate(zip(REPORT_HEADINGS, found)):
        fid = "report.md.prose.%d" % (i + 1)
        if heading is None:
            code = "report.md.prose_unchecked"
            findings.append(
                Finding(
                    fid,
                    Status.FAIL,
                    text(code, lang, heading=wanted),
                    WEIGHTS[fid],
                    code,
                    {"heading": wanted},
                )
            )
            continue
        end = min(
            (h.line for h in headings if h.line > heading.line and h.level <= 2),
            default=len(lines) + 1,
        )
        heading_lines = {h.line for h in headings}
        body = [
            line.text
            for line in lines
            if heading.line < line.number < end
            and not line.code
            and line.number not in heading_lines
        ]
        letters = prose_letters(body)
        details = {
            "heading": wanted,
            "line": heading.line,
            "letters": letters,
            "minimum": PROSE_MIN_LETTERS,
        }
        if letters >= PROSE_MIN_LETTERS:
            code = "report.md.prose_ok"
            status = Status.PASS
        else:
            code = "report.md.prose_short"
            status = Status.FAIL
        findings.append(
            Finding(
                fid,
                status,
                text(code, lang, heading=wanted, letters=letters, minimum=PROSE_MIN_LETTERS),
                WEIGHTS[fid],
                code,
                details,
            )
        )
    return findings


@dataclass(frozen=True)
class Figure:
    """A figure stated in the markdown: a report key and the value written after it."""

    line: int
    key: str
    written: str
    value: Any  # int | float | bool | list[int]
    start: int
    end: int


def _number(written: str) -> int | float | None:
    clean = written.replace("−", "-").replace(",", "").replace("_", "")
    try:
        if re.fullmatch(r"[-+]?\d+", clean):
            return int(clean)
        return float(clean)
    except ValueError:
        return None


def _int_items(inner: str) -> list[int] | None:
    items = [item.strip() for item in inner.split(",")]
    if not items or not all(re.fullmatch(r"[-−+]?\d+", item) for item in items):
        return None
    return [int(item.replace("−", "-")) for item in items]


def _formula_before(line: str, start: int) -> bool:
    j = start - 1
    while j >= 0 and line[j] in " \t`\"'":
        j -= 1
    if j < 0 or line[j] not in _OPERATORS:
        return False
    return bool(line[:j].strip())  # a "-" or "*" that opens the line is a list bullet


def _value_at(line: str, pos: int) -> tuple[str, Any, str, int] | None:
    """(written, value, kind, end) of the value starting at pos, if there is one."""
    if line[pos : pos + 1] in ("[", "("):
        close = "]" if line[pos] == "[" else ")"
        end = line.find(close, pos + 1)
        if end > pos:
            inner = line[pos + 1 : end]
            items = _int_items(inner) if "," in inner or close == "]" else None
            if items is not None:
                return line[pos : end + 1], items, "list", end + 1
            if close == "]":
                return None
    if line[pos : pos + 1] in ("(", "`"):
        pos += 1
        while line[pos : pos + 1] in (" ", "\t"):
            pos += 1
    by = _BY.match(line, pos)
    if by:
        return by.group(0), [int(by.group(1)), int(by.group(2))], "by", by.end()
    flag = _BOOL.match(line, pos)
    if flag:
        return flag.group(1), flag.group(1).lower() == "true", "bool", flag.end()
    num = _NUMBER.match(line, pos)
    if num:
        value = _number(num.group(0))
        if value is not None:
            return num.group(0), value, "number", num.end()
    return None


def figures_in(line: str, number: int = 0) -> list[Figure]:
    """The figures stated on one line of markdown (see the module docstring)."""
    found = []
    for match in _KEY.finditer(line):
        key, start, end = match.group(1), match.start(), match.end()
        if line[end : end + 1] in ("[", "(", "."):
            continue  # a subscript, a call or an attribute
        j = end
        if line[j : j + 1] in ("`", '"', "'"):
            j += 1
            if line[j : j + 1] == "[":
                continue
        if _formula_before(line, start):
            continue
        rest = line[j:].lstrip(" \t")
        if rest[:1] and rest[0] in _OPERATORS and not rest.startswith("->"):
            continue
        sep = _SEPARATOR.match(line, j)
        pos = sep.end() if sep else j
        value = _value_at(line, pos)
        if value is None:
            continue
        written, parsed, kind, stop = value
        wanted = KINDS[key]
        if wanted in ("integer", "number") and kind != "number":
            continue
        if wanted == "boolean" and kind != "bool":
            continue
        if wanted == "indices" and kind != "list":
            continue
        if wanted == "shape" and kind not in ("list", "by"):
            continue
        found.append(Figure(number, key, written, parsed, start, stop))
    return found


def significant_digits(written: str) -> int:
    mantissa = re.split(r"[eE]", written)[0]
    digits = re.sub(r"\D", "", mantissa.replace(",", "").replace("_", ""))
    return len(digits.lstrip("0"))


def _figure_problem(fig: Figure, expected: Any) -> tuple[str, dict[str, Any]] | None:
    """None when the figure agrees with the expected value, else (code, params)."""
    kind = KINDS[fig.key]
    if kind == "integer":
        ok = fig.value == expected
    elif kind == "boolean":
        ok = fig.value is expected
    elif kind in ("shape", "indices"):
        ok = fig.value == expected
    elif fig.key == "max_abs_diff":
        ok = 0 <= fig.value <= MAX_ABS_DIFF_LIMIT
    elif _close(float(fig.value), expected):
        ok = True
    else:
        digits = significant_digits(fig.written)
        if digits < MIN_SIGNIFICANT:
            return "report.md.figure_digits", {"digits": digits, "minimum": MIN_SIGNIFICANT}
        rounded = float("%.*e" % (digits - 1, expected))
        ok = rounded == float(fig.value)
    return None if ok else ("report.md.figure_wrong", {})


def _quote(line: str, fig: Figure, room: int = 40) -> str:
    left = max(0, fig.start - room)
    right = min(len(line), fig.end + room)
    quoted = line[left:right].strip()
    return ("…" if left > 0 else "") + quoted + ("…" if right < len(line) else "")


def _figures_finding(
    lines: list[_Line], json_data: _Object | None, lang: str, measured: Mapping[str, Measured]
) -> Finding:
    fid = "report.md.figures"
    expected = dict(_expected())
    count = 0
    problems: list[str] = []
    listed: list[dict[str, Any]] = []
    called: dict[str, None] = {}
    for line in lines:
        if line.code:
            continue
        for fig in figures_in(line.text, line.number):
            count += 1
            problem = _figure_problem(fig, expected[fig.key])
            from_code = measured.get(fig.key)
            if from_code is not None and problem is not None:
                called.update(dict.fromkeys(from_code.functions))
            if problem is None and from_code is not None:
                if not from_code.ok:
                    reason = text(from_code.code, lang, **from_code.params)
                    problem = "report.md.figure_unmeasured", {"why": reason}
                elif _figure_problem(fig, from_code.value) is not None:
                    problem = (
                        "report.md.figure_not_measured",
                        {
                            "measured": _show(from_code.value),
                            "call": from_code.source,
                        },
                    )
                if problem is not None:
                    called.update(dict.fromkeys(from_code.functions))
            if problem is None:
                continue
            code, params = problem
            params.update(
                line=fig.line,
                quote=_quote(line.text, fig),
                key=fig.key,
                written=fig.written,
                expected=_show(expected[fig.key]),
            )
            if (
                code == "report.md.figure_wrong"
                and json_data is not None
                and fig.key in json_data
                and not _value_ok(fig.key, json_data[fig.key], expected[fig.key])
            ):
                code = "report.md.figure_wrong_json"
                params["json"] = _show(json_data[fig.key])
            problems.append(text(code, lang, **params))
            listed.append(
                {
                    "line": fig.line,
                    "key": fig.key,
                    "written": fig.written,
                    "expected": expected[fig.key],
                    "code": code,
                }
            )
    details: dict[str, Any] = {"figures": count, "problems": listed}
    blame = tuple(called)
    if count == 0:
        code = "report.md.figures_none"
        return Finding(fid, Status.FAIL, text(code, lang), WEIGHTS[fid], code, details)
    if not problems:
        code = "report.md.figures_ok"
        return Finding(fid, Status.PASS, text(code, lang, n=count), WEIGHTS[fid], code, details)
    code = "report.md.figures_fail"
    message = text(
        code,
        lang,
        n=len(problems),
        total=count,
        problems="; ".join(problems),
        minimum=MIN_SIGNIFICANT,
    )
    return Finding(fid, Status.FAIL, message, WEIGHTS[fid], code, details, blame)


def _md_ids() -> list[str]:
    return (
        ["report.md.headings"]
        + ["report.md.prose.%d" % (i + 1) for i in range(len(REPORT_HEADINGS))]
        + ["report.md.figures"]
    )


def _check_md(
    read: _Read, json_data: _Object | None, lang: str, measured: Mapping[str, Measured] | None
) -> list[Finding]:
    findings = [_file_finding("report.md.file", read, lang, REPORT_MD)]
    if read.text is None:
        return findings + _not_checked(_md_ids(), "report.md.not_read", lang)
    lines = _lines(read.text)
    headings = _headings(lines)
    found: list[_Heading | None] = []
    for wanted in REPORT_HEADINGS:
        target = unicodedata.normalize("NFC", wanted)
        found.append(next((h for h in headings if h.level == 2 and h.text == target), None))
    findings.append(_heading_finding(lines, found, lang))
    findings += _prose_findings(lines, headings, found, lang)
    findings.append(_figures_finding(lines, json_data, lang, measured or {}))
    return findings


# Entry point -------------------------------------------------------------------------


def _guarded(ids: list[str], lang: str, run: Callable[[], list[Finding]]) -> list[Finding]:
    try:
        return run()
    except Exception as exc:  # a fault of the grader must not stop the grading
        message = text("report.grader_fault", lang, error="%s: %s" % (type(exc).__name__, exc))
        return [
            Finding(fid, Status.FAIL, message, WEIGHTS[fid], "report.grader_fault") for fid in ids
        ]


def check(
    report_dir: Path | str,
    lang: str = "en",
    *,
    where: str | None = None,
    single_file: bool = False,
) -> list[Finding]:
    """Grade ``embed_report.json`` and ``embed_report.md`` in ``report_dir``.

    Returns the same 44 findings every time, in the same order (see the module
    docstring); a broken or missing file gives failed findings, never an exception.
    ``where`` names the folder in messages instead of its path; with ``single_file``
    (a submission of the module alone) nothing is read and both files fail as absent.
    """
    folder = Path(report_dir)

    def reading(name: str) -> _Read:
        if single_file:
            return _Read(None, "report.file.single", {"file": name})
        return _read(folder / name, where)

    return check_reads(lambda: reading(REPORT_JSON), lambda: reading(REPORT_MD), lang)


def check_written(
    files: Mapping[str, WrittenFile], measured: Mapping[str, Measured], lang: str = "en"
) -> list[Finding]:
    """Grade the files the module's writer wrote, as the child sent them.

    The same 44 findings as :func:`check`; besides the recomputed values, every
    figure must agree with what the module's functions give (``measured``, see
    ``grader.labs.embed.fromcode``).
    """
    missing = WrittenFile("missing")
    return check_reads(
        lambda: written(REPORT_JSON, files.get(REPORT_JSON, missing)),
        lambda: written(REPORT_MD, files.get(REPORT_MD, missing)),
        lang,
        measured,
    )


def check_reads(
    read_json: Callable[[], _Read],
    read_md: Callable[[], _Read],
    lang: str,
    measured: Mapping[str, Measured] | None = None,
) -> list[Finding]:
    parsed: list[_Object | None] = [None]

    def run_json() -> list[Finding]:
        findings, parsed[0] = _check_json(read_json(), lang, measured)
        return findings

    def run_md() -> list[Finding]:
        return _check_md(read_md(), parsed[0], lang, measured)

    findings = _guarded(["report.json.file"] + _json_ids(), lang, run_json)
    findings += _guarded(["report.md.file"] + _md_ids(), lang, run_md)
    return findings
