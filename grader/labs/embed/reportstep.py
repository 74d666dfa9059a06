"""Step 8 as a whole: the module writes its reports, the grader grades what it wrote.

``write_report(outdir)`` runs in the child with a fresh folder
(``Sandbox.write_report``), within :data:`WRITER_TIMEOUTS` per-call time limits.
The files it wrote are graded by ``grader.labs.embed.reports`` against the recomputed values
and against what the module's functions give (``grader.labs.embed.fromcode``).  Two findings
come before and after those 44:

``report.write``   the writer ran, finished and wrote at least one of the two files (its
                   traceback and line when it raised)
``report.same``    the files handed in (beside the module, or ``--report-dir``) are
                   the ones the code writes: JSON with the same parsed values, markdown
                   with the same text up to line endings and trailing spaces

A module that cannot write its reports (it does not import, has no writer, the
writer raises, hangs or crashes) earns nothing on step 8: every finding fails, or
is "not started" for the stub's writer.  Handed-in files that are missing or
differ fail ``report.same`` only; the written files still earn their points.

The file checks (``grader.labs.embed.reports`` with markdown-it-py) are imported by
``prepare``, while the child runs the calls, not when the lab is loaded.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from grader.engine.frozen import frozen
from grader.engine.messages import catalogue, text
from grader.engine.sandbox import DISK_FILES, DISK_MB, Call, Outcome, Written
from grader.engine.vocabulary.results import Status
from grader.labs.embed import fromcode
from grader.labs.embed.contract import BY_NAME, REPORT_JSON, REPORT_MD
from grader.labs.embed.fromcode import Measured
from grader.labs.embed.handedin import _handed_in, _json_differs, _md_differs

if TYPE_CHECKING:
    from grader.labs.embed.reports import _Read

WRITER = "write_report"
WRITER_TIMEOUTS = 5  # the writer may take this many per-call time limits
FILES = (REPORT_JSON, REPORT_MD)
WEIGHTS = {"report.write": 2, "report.same": 2}
# Gradescope's tests of the report files: each groups the findings starting so.
GROUPS = (
    ("code.files", ("report.write", "report.same")),
    ("json.file", ("report.json.file", "report.json.schema")),
    ("json.values", ("report.json.values.",)),
    ("json.consistency", ("report.json.consistency.",)),
    ("md.file", ("report.md.file", "report.md.headings")),
    ("md.prose", ("report.md.prose.",)),
    ("md.figures", ("report.md.figures",)),
)


@frozen
class Finding:
    """A verdict of step 8 (the engine turns each into a check)."""

    id: str
    status: Status
    message: str
    weight: int
    code: str
    details: dict[str, Any] = field(default_factory=dict)
    called: tuple[str, ...] = ()


@functools.lru_cache(maxsize=1)
def _ids() -> tuple[str, ...]:
    from grader.labs.embed import reports

    inner = [f.id for f in reports.check_reads(_nothing, _nothing, "en")]
    return tuple(["report.write"] + inner + ["report.same"])


def ids() -> list[str]:
    """The ids of every finding of step 8, in order."""
    return list(_ids())


def weights() -> list[tuple[str, int]]:
    """(id, weight) of every finding of step 8, in order."""
    return [(fid, _weight(fid)) for fid in ids()]


def _nothing() -> _Read:
    from grader.labs.embed import reports

    return reports._Read(None, "report.file.not_written", {"file": "?"})


def grade(
    written: Written,
    measured: Mapping[str, Measured],
    handed_in: Path,
    lang: str,
    timeout: float,
    *,
    where: str | None = None,
    single_file: bool = False,
    notebook: bool = False,
) -> list[Finding]:
    """Every finding of step 8 (see the module docstring); never raises for student input.

    ``where`` names the handed-in folder in messages instead of its path;
    ``single_file`` marks a submission of the module alone (nothing handed in beside it);
    ``notebook`` one made as a notebook, whose messages say what its student runs.
    """
    write = _write_finding(written, lang, timeout, notebook)
    if write.status is not Status.PASS:
        return _all_unchecked(write, lang)
    from grader.labs.embed import reports

    inner = reports.check_written(written.files, measured, lang)
    out = [write]
    out += [
        Finding(f.id, f.status, f.message, f.weight, f.code, dict(f.details), f.called)
        for f in inner
    ]
    out.append(_same_finding(written, handed_in, lang, where, single_file, notebook))
    return out


# The writer ---------------------------------------------------------------------------


def _say(code: str, lang: str, notebook: bool, **params: Any) -> str:
    """The text of ``code``; for a notebook, its ``.notebook`` text where there is one."""
    special = code + ".notebook"
    return text(special if notebook and special in catalogue("en") else code, lang, **params)


def _write_finding(written: Written, lang: str, timeout: float, notebook: bool = False) -> Finding:
    fid, weight = "report.write", WEIGHTS["report.write"]
    kind = written.kind
    details: dict[str, Any] = {}
    called = written.called
    if kind == "written":
        wrote = [n for n in FILES if n in written.files and written.files[n].state != "missing"]
        if not wrote:  # a writer that finishes without writing earns nothing
            code = "report.write.nothing"
            return Finding(fid, Status.FAIL, text(code, lang), weight, code, details, called)
        code = "report.write.ok"
        if len(wrote) < len(FILES):
            missing = next(name for name in FILES if name not in wrote)
            message = text("report.write.one_ok", lang, file=wrote[0], missing=missing)
            return Finding(fid, Status.PASS, message, weight, code)
        return Finding(fid, Status.PASS, text(code, lang), weight, code)
    if kind == "not loaded":
        return Finding(
            fid, Status.SKIP, _say("report.write.not_loaded", lang, notebook), weight, "not_loaded"
        )
    status = Status.FAIL
    params: dict[str, Any] = {}
    if kind in ("missing", "not callable"):
        code = "report.write." + kind.replace(" ", "_")
    elif kind == "timeout":
        code = "report.write.timeout"
        status = Status.TIMEOUT
        inner = [n for n in called if n in BY_NAME]
        params = {
            "limit": "%g" % (WRITER_TIMEOUTS * timeout),
            "where": text("report.write.while", lang, fn=inner[-1]) if inner else "",
        }
    elif kind == "budget":
        code = "report.write.budget"
        status = Status.TIMEOUT
    elif kind == "disk":  # it passed the child's share of disk
        code = "report.write.disk"
        params = {"mb": DISK_MB, "files": DISK_FILES}
        status = Status.ERROR
    elif kind == "raised" and written.raised is not None:
        raised = written.raised
        details["traceback"] = written.traceback
        stopped = raised.type == "_Stopped" and raised.message.split(" ")[0] in BY_NAME
        if raised.type == "NotImplementedError" and not called and raised.function in ("", WRITER):
            code, status = "not_started", Status.SKIP
            return Finding(
                fid, status, text("report.write.not_started", lang), weight, code, details
            )
        if stopped:
            code = "report.write.stopped"
            params = {"fn": raised.message.split(" ")[0]}
            called = (params["fn"],)
        else:
            code = "report.write.raised" if raised.line is None else "report.write.raised_at"
            if raised.cell is not None:
                code = "report.write.raised_in_cell"
            params = {
                "raised": raised.type,
                "error": raised.message[:300],
                "line": raised.line,
                "func": raised.function,
                "cell": raised.cell[0] if raised.cell else None,
                "first": raised.cell[1] if raised.cell else "",
            }
            status = Status.ERROR
    else:
        code = "report.write.crashed"
        params = {"detail": written.detail or kind}
        status = Status.ERROR
    message = _say(code, lang, notebook, **params)
    if written.raised is not None and written.raised.type == "UnicodeEncodeError":
        message += "; " + text("report.write.encoding", lang)
    return Finding(fid, status, message, weight, code, details, called)


def _all_unchecked(write: Finding, lang: str) -> list[Finding]:
    """The writer did not write: every other finding fails (or is skipped) with it."""
    skip = write.status is Status.SKIP
    code = write.code if skip else "report.code.not_read"
    message = text("not_loaded" if code == "not_loaded" else "report.code.not_read", lang)
    if skip and code == "not_started":
        message = write.message
    status = Status.SKIP if skip else Status.FAIL
    rest = [
        Finding(fid, status, message, _weight(fid), code, called=write.called) for fid in ids()[1:]
    ]
    return [write] + rest


def _weight(fid: str) -> int:
    from grader.labs.embed import reports

    return WEIGHTS.get(fid) or reports.WEIGHTS[fid]


# The handed-in files ------------------------------------------------------------------


def _same_finding(
    written: Written,
    folder: Path,
    lang: str,
    where: str | None,
    single_file: bool,
    notebook: bool = False,
) -> Finding:
    fid, weight = "report.same", WEIGHTS["report.same"]
    from grader.labs.embed import reports

    mine = {name: reports.written(name, written.files[name]) for name in FILES}
    if any(read.text is None for read in mine.values()):
        code = "report.same.unchecked"
        return Finding(fid, Status.FAIL, text(code, lang), weight, code)
    if single_file:
        code = "report.same.single"
        return Finding(fid, Status.FAIL, _say(code, lang, notebook), weight, code)
    shown = where if where is not None else str(folder)
    missing: list[str] = []
    problems: list[str] = []
    for name in FILES:
        handed, why = _handed_in(folder / name)
        if handed is None:
            if why == "":
                missing.append(name)
            else:
                problems.append(text("report.same.unreadable", lang, file=name, why=why))
            continue
        own = mine[name].text
        assert own is not None
        if name == REPORT_JSON:
            differs = _json_differs(handed, own, lang)
        else:
            differs = _md_differs(handed, own)
        if differs is not None:
            problems.append(text(differs[0], lang, file=name, **differs[1]))
    if missing:
        code = "report.same.missing"
        message = _say(code, lang, notebook, files=" / ".join(missing), dir=shown)
        if problems:
            message += "; " + "; ".join(problems)
        return Finding(fid, Status.FAIL, message, weight, code, {"missing": missing})
    if problems:
        code = "report.same.differs"
        message = _say(code, lang, notebook, problems="; ".join(problems))
        return Finding(fid, Status.FAIL, message, weight, code)
    code = "report.same.ok"
    return Finding(fid, Status.PASS, text(code, lang, dir=shown), weight, code)


class EmbedReport:
    """Step 8 as the engine sees it (``grader.engine.lab.ReportStep``)."""

    step = 8
    files: tuple[str, ...] = FILES
    writer = WRITER
    writer_timeouts = WRITER_TIMEOUTS

    def weights(self) -> list[tuple[str, int]]:
        return weights()

    def prepare(self) -> None:
        # Both file readers are loaded while the child runs the calls.
        from grader.labs.embed.reports import expected, json_schema, markdown

        json_schema.prepare()
        markdown.prepare()
        expected.expected_fields()  # the fixed constants' figures, computed once

    def calls(self, first_id: int) -> list[Call]:
        return fromcode.calls(first_id)

    def measure(
        self, outcomes: Sequence[Outcome], names: Mapping[str, Any]
    ) -> dict[str, fromcode.Measured]:
        return fromcode.measure(outcomes, names)

    def grade(
        self,
        written: Written,
        measured: Any,
        report_dir: Path,
        lang: str,
        timeout: float,
        where: str | None,
        single_file: bool,
        notebook: bool = False,
    ) -> list[Finding]:
        return grade(
            written,
            measured,
            report_dir,
            lang,
            timeout,
            where=where,
            single_file=single_file,
            notebook=notebook,
        )


STEP = EmbedReport()
