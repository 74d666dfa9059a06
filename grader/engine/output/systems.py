"""Formats for other systems: JUnit XML (CI test reports) and Gradescope's results.json.

``grader.engine.output.byformat`` offers both as ``--format junit`` and ``--format gradescope``
and imports this module only when one of them is asked for.

Messages can hold anything the student's code produced, so every string goes
through ``clean`` first: characters that XML 1.0 does not allow (control
characters, lone surrogates, U+FFFE and U+FFFF) become visible escapes such as
``\\x07``, and ElementTree escapes the rest (``&``, ``<``, quotes).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from grader.engine.lab import Lab, find
from grader.engine.messages import text
from grader.engine.output.render import render_text
from grader.engine.vocabulary import show
from grader.engine.vocabulary.contract import REPORT
from grader.engine.vocabulary.results import CheckResult, Report, Status

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

# Everything outside XML 1.0's Char production, plus the other C0/C1 controls
# that are legal but unreadable; tab, newline and carriage return stay.
_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")

# A failure's message attribute is a one-line summary; the full text is the body.
MESSAGE_LIMIT = 1000
# Gradescope shows the text report as it is: wrapped for a narrow window.
OUTPUT_WIDTH = 80


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def clean(value: object) -> str:
    """``value`` as text that is safe in XML and in UTF-8 JSON."""
    return _INVALID.sub(_escape, str(value))


def _one_line(value: str, limit: int = MESSAGE_LIMIT) -> str:
    line = " ".join(value.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def check_text(check: CheckResult, lang: str) -> str:
    """The message of a check with its hint, example and replay command, one per line."""
    lines = [check.message]
    if check.hint:
        lines.append(text("render.label", lang, label=text("render.hint", lang)) + check.hint)
    snippet = check.details.get("snippet")
    if snippet:
        lines.append(text("snippet", lang, snippet=snippet))
    traceback = check.details.get("traceback")
    if traceback:
        lines += show.traceback_tail(str(traceback))
    if check.reproduce:
        lines.append(
            text("render.label", lang, label=text("render.replay", lang)) + check.reproduce
        )
    return "\n".join(clean(line) for line in lines)


def _seconds(x: float) -> str:
    return "%.3f" % max(0.0, x)


# JUnit XML -----------------------------------------------------------------------------


def render_junit(report: Report, lang: str = "en") -> str:
    """JUnit XML: one ``testsuite`` per step, one ``testcase`` per check.

    A wrong answer is a ``failure``; an exception, a crash or a call that did not
    return in time is an ``error``; a check not graded is ``skipped``.  The seed and
    the score are ``properties`` of every suite.  What behaviour the contract leaves
    open did is no test (it is never graded, and the text report does not count it):
    it is the suite's ``system-out``.  The tests are the same whether or not the
    module imports: an open behaviour's check is left out even when it is skipped.
    """
    import xml.etree.ElementTree as ET  # only this format needs it

    open_ids = {c.id for c in find(report.meta.get("lab")).checks if c.advisory}

    root = ET.Element("testsuites", name="embed-grader")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    properties = {
        "path": report.path,
        "seed": str(report.seed),
        "score": "%g" % report.score,
        "max_score": "%g" % report.max_score,
    }
    suites: list[tuple[str, list[CheckResult]]] = []
    for step in sorted({c.step for c in report.checks}):
        title = text("render.step", lang, step=step, title=text("step.%d" % step, lang))
        suites.append((title, [c for c in report.checks if c.step == step]))
    share = report.child_time / max(1, len(report.checks))
    states = report.step_states()
    for (title, checks), step in zip(suites, sorted(states)):
        suite = ET.SubElement(root, "testsuite", name=clean(title))
        _properties(suite, dict(properties, state=text("status." + states[step], lang)))
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        notes = [clean(c.message) for c in checks if c.status is Status.ADVISORY]
        checks = [c for c in checks if c.status is not Status.ADVISORY and c.id not in open_ids]
        for c in checks:
            case = ET.SubElement(
                suite,
                "testcase",
                name=clean(c.id),
                classname=clean("embed.%s" % c.function),
                time=_seconds(share),
            )
            counts["tests"] += 1
            body = check_text(c, lang)
            points = "%s/%s" % (_num(c.points), _num(c.max_points))
            if c.status is Status.FAIL:
                counts["failures"] += 1
                el = ET.SubElement(case, "failure", type=c.code or "fail")
            elif c.status in (Status.ERROR, Status.TIMEOUT):
                counts["errors"] += 1
                el = ET.SubElement(case, "error", type=c.code or c.status.value)
            elif c.status is Status.SKIP:
                counts["skipped"] += 1
                el = ET.SubElement(case, "skipped")
            else:
                ET.SubElement(case, "system-out").text = "%s (%s)" % (clean(c.message), points)
                continue
            el.set("message", _one_line("%s (%s)" % (clean(c.message), points)))
            if c.status is not Status.SKIP:
                el.text = body
        if notes:
            ET.SubElement(suite, "system-out").text = "\n".join(notes)
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", _seconds(share * len(checks)))
    if report.grader_error:
        suite = ET.SubElement(root, "testsuite", name="embed-grader")
        _properties(suite, properties)
        case = ET.SubElement(suite, "testcase", name="grading", classname="embed", time="0.000")
        message = clean(text("render.grader_error", lang, error=report.grader_error))
        el = ET.SubElement(case, "error", type="grader_error", message=_one_line(message))
        el.text = message
        for key, value in {"tests": 1, "failures": 0, "errors": 1, "skipped": 0}.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("time", "0.000")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", _seconds(report.elapsed))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _properties(suite: ET.Element, values: dict[str, str]) -> None:
    import xml.etree.ElementTree as ET

    props = ET.SubElement(suite, "properties")
    for name, value in values.items():
        ET.SubElement(props, "property", name=name, value=clean(value))


def _num(x: float) -> str:
    return ("%.2f" % x).rstrip("0").rstrip(".")


# Gradescope ----------------------------------------------------------------------------

# The report checks become a few tests (the lab's ``report_groups``): whether the code
# writes the files as handed in, then per file its reading and layout, then each kind of
# content.  A file that cannot be read is one test on its own.


def _report_group(lab: Lab, check_id: str) -> str:
    for name, prefixes in lab.report_groups:
        if any(check_id == p or (p.endswith(".") and check_id.startswith(p)) for p in prefixes):
            return name
    return check_id


def _grouped(lab: Lab, checks: Sequence[CheckResult]) -> list[tuple[str, list[CheckResult]]]:
    """The checks in order, each report check joined with the others of its group."""
    unread = {
        c.id.split(".")[1]
        for c in checks
        if c.id in ("report.json.file", "report.md.file") and not c.ok
    }
    groups: dict[str, list[CheckResult]] = {}
    order: list[str] = []
    for c in checks:
        if c.function != REPORT:
            key = "check:" + c.id
        else:
            name = _report_group(lab, c.id)
            kind = name.split(".")[0]
            key = "report." + (kind + ".file" if kind in unread else name)
        if key not in groups:
            groups[key] = []
            order.append(key)
        groups[key].append(c)
    return [(key, groups[key]) for key in order]


VISIBILITIES = ("visible", "after_due_date", "after_published", "hidden")


def gradescope_results(
    report: Report, lang: str = "en", visibility: Mapping[int, str] | None = None
) -> dict[str, Any]:
    """Gradescope's results.json as a dict: the total, one test per check of the code,
    and a few tests for the report files (the lab's ``report_groups``).

    A module that does not import is one failing test that shows why, not one per
    check.  ``visibility`` gives a step's tests another visibility than ``visible``
    (one of ``VISIBILITIES``); while any step is not visible, the text report on top
    is left out, as it would tell what those tests hold.
    """
    lab = find(report.meta.get("lab"))
    visibility = visibility or {}
    tests: list[dict[str, Any]] = []
    numbers: dict[int, int] = {}
    checks_shown = report.checks
    load = next((c for c in report.checks if c.id == "imports.load"), None)
    if load is not None and not load.ok:
        checks_shown = (load,)
    for key, checks in _grouped(lab, checks_shown):
        first = checks[0]
        numbers[first.step] = numbers.get(first.step, 0) + 1
        if key.startswith("check:"):
            name = "%s · %s" % (text("step.%d" % first.step, lang), first.id)
            output = check_text(first, lang)
        else:
            name = "%s · %s" % (
                text("step.%d" % first.step, lang),
                text("gradescope." + key, lang),
            )
            output = _group_text(checks, lang)
        tests.append(
            {
                "name": clean(name),
                "number": "%d.%d" % (first.step, numbers[first.step]),
                "score": round(sum(c.points for c in checks), 2),
                "max_score": round(sum(c.max_points for c in checks), 2),
                "status": "passed" if all(c.ok for c in checks) else "failed",
                "output": output,
                "visibility": visibility.get(first.step, "visible"),
            }
        )
    if any(v != "visible" for v in visibility.values()):
        summary = text("gradescope.later", lang, seed=report.seed)
    else:
        summary = render_text(report, lang, width=OUTPUT_WIDTH)
    # Gradescope's specification has no total for the score to count out of: the
    # assignment's points are set on Gradescope, and each test has its max_score.
    return {
        "score": report.score,
        "execution_time": int(math.ceil(max(0.0, report.elapsed))),
        "output": clean(summary),
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    }


def _group_text(checks: Sequence[CheckResult], lang: str) -> str:
    """What a group of report checks found: the failures in full, checks that could not
    run once, then how many passed."""
    parts: list[str] = []
    unread: dict[str, list[CheckResult]] = {}
    for c in checks:
        if c.ok:
            continue
        if c.code.endswith(".not_read"):
            unread.setdefault(c.code, []).append(c)
        else:
            parts.append("✗ %s\n%s" % (clean(c.id), check_text(c, lang)))
    for same in unread.values():
        parts.append(
            clean("✗ " + text("render.not_read", lang, n=len(same), message=same[0].message))
        )
    passed = sum(1 for c in checks if c.ok)
    parts.append(text("gradescope.passed", lang, n=passed, total=len(checks)))
    return "\n\n".join(parts)


def render_gradescope(
    report: Report, lang: str = "en", visibility: Mapping[int, str] | None = None
) -> str:
    data = gradescope_results(report, lang, visibility)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
