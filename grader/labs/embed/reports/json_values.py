"""The values of ``embed_report.json``: each field against its recomputed value.

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

When the files come from the module's own writer, a value that agrees with the
recomputed one still fails when the module's functions do not give it
(``report.json.value_not_measured`` / ``report.json.value_unmeasured``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from grader.engine.messages import text
from grader.engine.vocabulary.results import Status
from grader.labs.embed.contract import REPORT_JSON, STRETCH_RANK
from grader.labs.embed.reports.expected import _expected
from grader.labs.embed.reports.findings import (
    CONSISTENCY,
    KEYS,
    KINDS,
    MAX_ABS_DIFF_LIMIT,
    WEIGHTS,
    Finding,
    _allowed,
    _close,
    _is_int,
    _is_int_list,
    _is_number,
    _not_checked,
    _show,
    _type_name,
)
from grader.labs.embed.reports.json_schema import _kind_text, _schema_finding
from grader.labs.embed.reports.reading import _file_finding, _Object, _parse_json, _Read

if TYPE_CHECKING:
    from grader.labs.embed.fromcode import Measured


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
