"""The shape of ``embed_report.json``: its JSON Schema and what the schema lets through.

The file must match ``schemas/report.schema.json`` (draft 2020-12); besides, integers
are written without a decimal point, numbers are finite and no key appears twice.
Every error is listed, in the order of the report's fields.  ``jsonschema`` is
imported, and the validator built, only when a file is validated.
"""

from __future__ import annotations

import difflib
import functools
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.engine.messages import text
from grader.engine.results import Status
from grader.labs.embed.contract import REPORT_FIELDS, REPORT_JSON
from grader.labs.embed.reports.findings import KEYS, KINDS, WEIGHTS, Finding, _show, _type_name
from grader.labs.embed.reports.reading import _Object

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schemas" / "report.schema.json"


@functools.lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of embed_report.json (``grader/labs/embed/schemas/report.schema.json``)."""
    data: dict[str, Any] = json.loads(SCHEMA_PATH.read_text("utf-8"))
    return data


def prepare() -> None:
    """Build the validator ahead (while the child runs, say): loading jsonschema takes a while."""
    _validator()


@functools.lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # about 50 ms: only when a file is validated

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
