"""The entry points: grading both report files, from a folder or as the module wrote them.

The markdown does not need the JSON: its figures are compared with the recomputed
values; the JSON only makes a wrong figure's message say when the JSON repeats it.
A fault of the grader while checking one file fails that file's findings with
``report.grader_fault`` and never stops the grading.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from grader.engine.messages import text
from grader.engine.sandbox import WrittenFile
from grader.engine.vocabulary.results import Status
from grader.labs.embed.contract import REPORT_HEADINGS, REPORT_JSON, REPORT_MD
from grader.labs.embed.reports.figures import _figures_finding
from grader.labs.embed.reports.findings import WEIGHTS, Finding, _not_checked
from grader.labs.embed.reports.json_values import _check_json, _json_ids
from grader.labs.embed.reports.markdown import MAX_WORK, TooComplex, parse
from grader.labs.embed.reports.reading import (
    _file_finding,
    _Object,
    _Read,
    _read,
    bounded_markdown,
    written,
)
from grader.labs.embed.reports.sections import _heading_finding, _prose_findings, find_headings

if TYPE_CHECKING:
    from grader.labs.embed.fromcode import Measured


def _md_ids() -> list[str]:
    return (
        ["report.md.headings"]
        + ["report.md.prose.%d" % (i + 1) for i in range(len(REPORT_HEADINGS))]
        + ["report.md.figures"]
    )


def _check_md(
    read: _Read, json_data: _Object | None, lang: str, measured: Mapping[str, Measured] | None
) -> list[Finding]:
    read = bounded_markdown(REPORT_MD, read)
    doc = None
    if read.text is not None:
        try:
            doc = parse(read.text)
        except TooComplex:
            read = _Read(None, "report.md.too_complex", {"file": REPORT_MD, "limit": MAX_WORK})
    findings = [_file_finding("report.md.file", read, lang, REPORT_MD)]
    if doc is None:
        return findings + _not_checked(_md_ids(), "report.md.not_read", lang)
    found = find_headings(doc)
    findings.append(_heading_finding(doc, found, lang))
    findings += _prose_findings(doc, found, lang)
    findings.append(_figures_finding(doc, json_data, lang, measured or {}))
    return findings


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
