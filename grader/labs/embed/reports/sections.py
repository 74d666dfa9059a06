"""The sections of the markdown report: the five required headings and their prose.

A required heading matches when its level is 2 and its text equals the contract's
heading exactly (after NFC), or as Korean spacing writes it: the contract's
``√d 를 곱하면`` puts a space between a symbol and its particle, and ``√d를 곱하면``
(:func:`natural`) is accepted too; no other spelling is.  Other headings may come before, between and after them.
A missing heading is reported with the closest heading-like line found (among the
first :data:`MAX_LOOKALIKES` lines that start with ``#``).  A section
runs from its heading to the next heading of level 1 or 2, and needs at least
:data:`PROSE_MIN_LETTERS` (60) letters of prose: alphabetic characters in its body,
not counting headings, code, HTML comments, link targets and report key names.
Figures, key names and code therefore never make up the prose.  A Hangul syllable
counts as 2.5 letters and a Chinese character as 3 (:data:`WIDE_LETTERS`): the same
sentences take about that many times fewer characters in Korean and in Chinese than
in English, so the same sentences pass in every language the kit speaks.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from typing import Any

from grader.engine.messages import text
from grader.engine.vocabulary.results import Status
from grader.labs.embed.contract import REPORT_HEADINGS
from grader.labs.embed.reports.findings import (
    _KEY,
    PROSE_MIN_LETTERS,
    WEIGHTS,
    WIDE_LETTERS,
    Finding,
)
from grader.labs.embed.reports.markdown import Document, Heading

_URL = re.compile(r"https?://\S+")  # a bare address is no prose
# A space between a letter or symbol that is not Hangul and a one-syllable particle.
_PARTICLE_SPACE = re.compile(
    r"(?<=[^\s가-힣]) (?=[을를이가은는의에와과도][\s]|[을를이가은는의에와과도]$)"
)
MAX_LOOKALIKES = 200  # heading-like lines compared with a missing heading (a report has ~10)


def _closest(wanted: str, doc: Document, taken: set[int]) -> tuple[str, int] | None:
    """The heading-like line most similar to ``## wanted`` (not one matched already)."""
    target = "## " + wanted
    best: tuple[float, str, int] | None = None
    for number, line in doc.lookalikes[:MAX_LOOKALIKES]:
        # A line over three times as long cannot be half alike: never compared.
        if number in taken or len(line) > 3 * len(target):
            continue
        same = difflib.SequenceMatcher(None, target, unicodedata.normalize("NFC", line))
        if same.quick_ratio() < 0.5:
            continue
        ratio = same.ratio()
        if ratio >= 0.5 and (best is None or ratio > best[0]):
            best = (ratio, line, number)
    return (best[1], best[2]) if best else None


def natural(heading: str) -> str:
    """The heading as Korean spacing writes it: no space before a particle that
    follows a symbol or a Latin letter (``√d 를`` is ``√d를``)."""
    return _PARTICLE_SPACE.sub("", heading)


def find_headings(doc: Document) -> list[Heading | None]:
    """The heading of each required section, or None when it is missing."""
    found: list[Heading | None] = []
    for wanted in REPORT_HEADINGS:
        target = unicodedata.normalize("NFC", wanted)
        spellings = {target, natural(target)}
        found.append(next((h for h in doc.headings if h.level == 2 and h.text in spellings), None))
    return found


def _heading_finding(doc: Document, found: list[Heading | None], lang: str) -> Finding:
    fid = "report.md.headings"
    problems: list[tuple[str, dict[str, Any]]] = []
    taken = {h.line for h in found if h is not None}
    for wanted, heading in zip(REPORT_HEADINGS, found):
        if heading is not None:
            continue
        near = _closest(wanted, doc, taken)
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
    """Letters in the prose of section lines, without web addresses or report key names;
    Hangul syllables and Chinese characters count as WIDE_LETTERS says (rounded down)."""
    count = 0.0
    for line in body:
        line = _URL.sub(" ", line)
        line = _KEY.sub(" ", line)
        count += sum(_letters(ch) for ch in line if ch.isalpha())
    return int(count)


def _letters(ch: str) -> float:
    """The letters one alphabetic character counts as."""
    code = ord(ch)
    if 0xAC00 <= code <= 0xD7A3:
        return WIDE_LETTERS["hangul"]
    if 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x3FFFF:
        return WIDE_LETTERS["han"]
    return 1.0


def _prose_findings(doc: Document, found: list[Heading | None], lang: str) -> list[Finding]:
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
            (h.line for h in doc.headings if h.line > heading.line and h.level <= 2),
            default=doc.length + 1,
        )
        body = [
            line.prose
            for line in doc.lines
            if heading.line < line.number < end and not line.heading
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
