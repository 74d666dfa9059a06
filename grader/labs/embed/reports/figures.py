"""Figures stated in the markdown report: a report key and the value written after it.

A figure is a report key (with or without backticks or quotes, not part of a longer
name) followed right away, on the same line, by its value: optional spaces, an
optional separator (``=``, ``==``, ``:``, ``≈``, ``~``, ``->``, ``→``, ``is``, ``was``,
``are``, ``were``, ``equals``, a Korean particle ``은 는 이 가``, or the ``|`` between
the cells of a table row such as ``| `rms_plain` | 0.2978 |``), an optional ``(``
or backtick, then the value: a number (``-``, ``−``, grouping ``,``/``_`` and exponents
allowed), a list ``[...]`` or tuple ``(..., ...)`` of integers, ``512 x 64`` for
``table_shape``, or true/false/True/False.

A number of more than :data:`MAX_NUMBER` characters is not read: it fails with a
message that says so (``report.md.figure_long``).  A list or tuple is looked for
within :data:`MAX_LIST` characters of its opening bracket.  Only the first
:data:`SHOWN` problems are listed.

Not judged: keys inside code blocks or HTML comments, a key directly followed by
``[``, ``(`` or ``.`` (a subscript or call), a key next to an arithmetic operator (a
formula such as ``rms_scaled / rms_plain = 8.0``), a number that an operator follows
(the first term of a formula such as ``params = 512 * 64 = 32768``), a value of the
wrong kind for the key, and numbers that do not follow a key.

Every figure is compared with the recomputed value (so a wrong JSON and a markdown
that repeats it both fail): integers, lists and booleans exactly; a float agrees when
it is within the tolerance, or when rounding the recomputed value to the number of
significant digits written gives the written value, which needs at least 3
significant digits (``0.29783``, ``0.2978`` and ``0.298`` agree with 0.2978265...;
``0.3`` has too few digits and ``0.2979`` is rounded wrongly).  ``max_abs_diff`` agrees
from 0 up to 1e-12.  The claims about known quantities without a key (a constant with
its value, a square root, a product: ``claims``) are checked in the same finding.  The
report must state at least one figure.  From the module's own
writer, a figure must also agree with what the module's functions give
(``report.md.figure_not_measured`` / ``report.md.figure_unmeasured``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from grader.engine.frozen import frozen
from grader.engine.messages import text
from grader.engine.vocabulary.results import Status
from grader.labs.embed.reports.claims import claims_in
from grader.labs.embed.reports.expected import _expected
from grader.labs.embed.reports.findings import (
    _KEY,
    KINDS,
    MAX_ABS_DIFF_LIMIT,
    MAX_NUMBER,
    MIN_SIGNIFICANT,
    SHOWN,
    WEIGHTS,
    Finding,
    _close,
    _show,
)
from grader.labs.embed.reports.json_values import _value_ok
from grader.labs.embed.reports.reading import _Object

if TYPE_CHECKING:
    from grader.labs.embed.fromcode import Measured
    from grader.labs.embed.reports.markdown import Document

_SEPARATOR = re.compile(
    r"[ \t]*(?:(?:==|=|:|≈|~|->|→|\||is|was|are|were|equals|은|는|이|가)"
    r"(?![A-Za-z])[ \t]*)?"
)
_NUMBER = re.compile(
    r"[-−+]?(?:(?:\d{1,3}(?:,\d{3})+|\d+(?:_\d+)*)(?:\.\d+)?|\.\d+)"
    r"(?:[eE][-−+]?\d+)?"
)
_BOOL = re.compile(r"(true|false|True|False)(?![A-Za-z0-9_])")
_BY = re.compile(r"(\d+)[ \t]*[x×X][ \t]*(\d+)(?![\d.])")
_OPERATORS = "×*/÷·+−-^"
_BLANKS = re.compile(r"[ \t]*")
MAX_LIST = 1_000  # characters between a list's brackets (the longest figure needs 30)


@frozen
class Figure:
    """A figure stated in the markdown: a report key and the value written after it."""

    line: int
    key: str
    written: str
    value: Any  # int | float | bool | list[int]; None when too long to read
    start: int
    end: int
    length: int = 0  # characters of a number too long to read


def _cut(written: str) -> str:
    return written if len(written) <= 40 else written[:39] + "…"


def _as_float(value: Any) -> float:
    """A number as a float; an int too large for one is an infinity of its sign."""
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


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


def _formula_before(line: str, start: int, lead: int) -> bool:
    """Is the key at start the right side of an operator?  ``lead`` is the index of
    the line's first character that is not a space."""
    j = start - 1
    while j >= 0 and line[j] in " \t`\"'":
        j -= 1
    if j < 0 or line[j] not in _OPERATORS:
        return False
    return lead < j  # a "-" or "*" that opens the line is a list bullet


def _formula_after(line: str, end: int) -> bool:
    """Does an operator follow the number that ends at ``end``?  A minus only before
    another term (a digit, a bracket or a key in backticks): after a figure, a dash
    may start a clause of prose."""
    j = _BLANKS.match(line, end)
    after = j.end() if j else end
    mark = line[after : after + 1]
    if not mark or mark not in _OPERATORS or line[after : after + 2] == "->":
        return False
    if mark not in "-−":
        return True
    k = _BLANKS.match(line, after + 1)
    term = line[k.end() if k else after + 1 :][:1]
    return term.isdigit() or term in ("(", "`", ".")


def _value_at(line: str, pos: int) -> tuple[str, Any, str, int] | None:
    """(written, value, kind, end) of the value starting at pos, if there is one; for
    a number too long to read, kind "long number" or "long list" and its length."""
    if line[pos : pos + 1] in ("[", "("):
        close = "]" if line[pos] == "[" else ")"
        end = line.find(close, pos + 1, pos + 2 + MAX_LIST)
        if end > pos:
            inner = line[pos + 1 : end]
            items = _int_items(inner) if "," in inner or close == "]" else None
            if items is not None:
                if max(map(len, inner.split(","))) > MAX_NUMBER:
                    return _cut(line[pos : end + 1]), end + 1 - pos, "long list", end + 1
                return line[pos : end + 1], items, "list", end + 1
            if close == "]":
                return None
    if line[pos : pos + 1] in ("(", "`"):
        pos += 1
        while line[pos : pos + 1] in (" ", "\t"):
            pos += 1
    by = _BY.match(line, pos)
    if by and len(by.group(0)) <= MAX_NUMBER:
        return by.group(0), [int(by.group(1)), int(by.group(2))], "by", by.end()
    flag = _BOOL.match(line, pos)
    if flag:
        return flag.group(1), flag.group(1).lower() == "true", "bool", flag.end()
    num = _NUMBER.match(line, pos)
    if num and len(num.group(0)) > MAX_NUMBER:
        return _cut(num.group(0)), len(num.group(0)), "long number", num.end()
    if num:
        value = _number(num.group(0))
        if value is not None:
            return num.group(0), value, "number", num.end()
    return None


def figures_in(line: str, number: int = 0) -> list[Figure]:
    """The figures stated on one line of markdown (see the module docstring)."""
    found = []
    lead = len(line) - len(line.lstrip())
    for match in _KEY.finditer(line):
        key, start, end = match.group(1), match.start(), match.end()
        if line[end : end + 1] in ("[", "(", "."):
            continue  # a subscript, a call or an attribute
        j = end
        if line[j : j + 1] in ("`", '"', "'"):
            j += 1
            if line[j : j + 1] == "[":
                continue
        if _formula_before(line, start, lead):
            continue
        blank = _BLANKS.match(line, j)
        after = blank.end() if blank else j
        if line[after : after + 1] in _OPERATORS and line[after : after + 2] != "->":
            continue
        sep = _SEPARATOR.match(line, j)
        pos = sep.end() if sep else j
        value = _value_at(line, pos)
        if value is None:
            continue
        written, parsed, kind, stop = value
        if kind == "number" and _formula_after(line, stop):
            continue  # the first term of a formula, such as 512 * 64 = 32768
        wanted = KINDS[key]
        if kind.startswith("long"):
            if (kind == "long number") == (wanted in ("integer", "number")):
                found.append(Figure(number, key, written, None, start, stop, parsed))
            continue
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
    if fig.length:
        return "report.md.figure_long", {"length": fig.length, "limit": MAX_NUMBER}
    if kind == "integer":
        ok = fig.value == expected
    elif kind == "boolean":
        ok = fig.value is expected
    elif kind in ("shape", "indices"):
        ok = fig.value == expected
    elif fig.key == "max_abs_diff":
        ok = 0 <= fig.value <= MAX_ABS_DIFF_LIMIT
    elif _close(_as_float(fig.value), _as_float(expected)):
        ok = True
    else:
        digits = significant_digits(fig.written)
        if digits < MIN_SIGNIFICANT:
            return "report.md.figure_digits", {"digits": digits, "minimum": MIN_SIGNIFICANT}
        rounded = float("%.*e" % (digits - 1, _as_float(expected)))
        ok = rounded == _as_float(fig.value)
    return None if ok else ("report.md.figure_wrong", {})


def _quote(line: str, fig: Figure, room: int = 40) -> str:
    left = max(0, fig.start - room)
    right = min(len(line), fig.end + room, fig.start + 3 * room)
    quoted = line[left:right].strip()
    return ("…" if left > 0 else "") + quoted + ("…" if right < len(line) else "")


def _figures_finding(
    doc: Document, json_data: _Object | None, lang: str, measured: Mapping[str, Measured]
) -> Finding:
    fid = "report.md.figures"
    expected = dict(_expected())
    count = failed = keyed = 0  # keyed: figures next to a key (claims are not)
    problems: list[str] = []
    listed: list[dict[str, Any]] = []
    called: dict[str, None] = {}
    for line in doc.lines:
        for claim in claims_in(line.text):
            count += 1
            if claim.ok:
                continue
            failed += 1
            if failed <= SHOWN:
                quote = _quote(line.text, Figure(line.number, "", "", None, claim.start, claim.end))
                problems.append(
                    text(
                        "report.md.claim_wrong",
                        lang,
                        line=line.number,
                        quote=quote,
                        written=claim.written,
                        truth=claim.truth,
                    )
                )
                listed.append(
                    {
                        "line": line.number,
                        "key": claim.kind,
                        "written": claim.written,
                        "expected": claim.truth,
                        "code": "report.md.claim_wrong",
                    }
                )
        for fig in figures_in(line.text, line.number):
            count += 1
            keyed += 1
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
            failed += 1
            if failed > SHOWN:
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
    details: dict[str, Any] = {"figures": count, "failed": failed, "problems": listed}
    blame = tuple(called)
    if keyed == 0:
        code = "report.md.figures_none"
        return Finding(fid, Status.FAIL, text(code, lang), WEIGHTS[fid], code, details)
    if not problems:
        code = "report.md.figures_ok"
        return Finding(fid, Status.PASS, text(code, lang, n=count), WEIGHTS[fid], code, details)
    code = "report.md.figures_fail"
    message = text(
        code,
        lang,
        n=failed,
        total=count,
        problems="; ".join(problems) + ("; …" if failed > SHOWN else ""),
        minimum=MIN_SIGNIFICANT,
    )
    return Finding(fid, Status.FAIL, message, WEIGHTS[fid], code, details, blame)
