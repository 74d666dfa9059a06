"""The text and JSON reports (every format by name: ``grader.engine.output.byformat``)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable
from typing import Any, NamedTuple

from grader.engine import messages
from grader.engine.grading import printed
from grader.engine.handin import is_notebook
from grader.engine.lab import find
from grader.engine.messages import text
from grader.engine.output.terminal import cells, escape, wrap, wrap_command
from grader.engine.vocabulary import show
from grader.engine.vocabulary.contract import REPORT
from grader.engine.vocabulary.results import Report, Status


def step_pointer(step: int, lang: str, lab: str | None = None) -> str:
    """Where the lab's instructions explain ``step`` ("" when they do not say)."""
    folder = find(lab).messages
    if folder is None:
        return ""
    anchors = messages.anchors(folder)
    where = (anchors.get(lang) or anchors.get("en") or {}).get(str(step))
    return "exercises/%s" % where if where else ""


Line = tuple[str, str]  # (style, text): one line of the text report and how to colour it

# How each kind of line is broken when it is too wide: "prose" at spaces with a
# hanging indent, "command" so that it still pastes into a shell, "row" (a step's
# columns, then its state) only in the state, kept under its column, "fixed" never.
_FIXED, _PROSE, _COMMAND, _ROW = "fixed", "prose", "command", "row"


def render_text(
    report: Report, lang: str = "en", verbose: bool = False, width: int | None = None
) -> str:
    """The report as plain text; with ``width``, no line is wider than that many columns."""
    return "\n".join(text for _, text in render_lines(report, lang, verbose, width)).rstrip() + "\n"


def render_lines(
    report: Report, lang: str = "en", verbose: bool = False, width: int | None = None
) -> list[Line]:
    """The text report line by line, each with its style (see ``grader.engine.output.terminal.STYLES``).

    Everything is escaped (no control character of a student's string reaches a
    terminal) and, with ``width``, wrapped to that many columns.
    """
    out: list[Line] = []
    for e in _entries(report, lang, verbose):
        if e.how == _COMMAND:
            head, command = escape(e.head), escape(e.text)
            if width is None:
                out.append((e.style, head + command))
            else:
                indent = " " * (len(head) - len(head.lstrip(" ")) + 4)
                out += [(e.style, line) for line in wrap_command(head, command, width, indent)]
            continue
        if e.how == _ROW:
            title, _, points = e.head.partition("\t")
            rows = _row(escape(title), escape(points), escape(e.text), width)
            out += [(e.style, line) for line in rows]
            continue
        for piece in escape(e.text).split("\n"):
            if width is None or e.how == _FIXED:
                out.append((e.style, piece))
            else:
                lead = " " * (len(piece) - len(piece.lstrip(" ")))
                out += [(e.style, line) for line in wrap(piece, width, lead + "  ")]
    return out


def _row(title: str, points: str, state: str, width: int | None) -> list[str]:
    """A step's row: the state wrapped in the room left after the title and the points,
    under its column.  Where they leave no room for a column of states, the title takes
    a line of its own and the points and the state go on the next, indented.
    """
    if width is None:
        return [title + points + state]
    room = width - cells(title + points)
    if room >= 12:
        pieces = wrap(state, room)
        return [title + points + pieces[0]] + [" " * cells(title + points) + p for p in pieces[1:]]
    below = "    " + points.lstrip(" ")
    return wrap(title.rstrip(" "), width, "    ") + wrap(below + state, width, " " * cells(below))


class _Entry(NamedTuple):
    style: str
    how: str
    text: str
    head: str = ""  # a command's label, before the command itself


def _entries(report: Report, lang: str, verbose: bool) -> list[_Entry]:
    """(style, how to wrap, text) of every line of the text report."""

    def t(code: str, **params: Any) -> str:
        return text(code, lang, **params)

    lines: list[_Entry] = [
        _Entry(
            "title",
            _PROSE,
            "embed-grader · %s · %s" % (report.path, t("render.seed", seed=report.seed)),
        ),
        _Entry("plain", _FIXED, ""),
    ]
    if report.grader_error:
        lines.append(_Entry("error", _PROSE, t("render.grader_error", error=report.grader_error)))
        return lines
    states = report.step_states()
    steps = report.by_step()
    titles = {step: t("render.step", step=step, title=t("step.%d" % step)) for step in steps}
    column = max((cells(title) for title in titles.values()), default=0)
    digits = max((len("%.2f" % most) for _, most in steps.values()), default=4)
    for step, (got, most) in steps.items():
        checks = [c for c in report.checks if c.step == step]
        if states[step] == "fail":
            style = "fail"
            failing = [c for c in checks if not c.ok and c.status is not Status.SKIP]
            state = "%s %d/%d" % (
                t("status.fail"),
                len(failing),
                len([c for c in checks if c.status is not Status.ADVISORY]),
            )
        else:
            style = "pass" if states[step] == "pass" else "skip"
            state = t("status." + states[step])
        points = "%*.2f / %*.2f  " % (digits, got, digits, most)
        lines.append(_Entry(style, _ROW, state, "%s \t%s" % (_pad(titles[step], column), points)))
    lines.append(_Entry("plain", _FIXED, ""))
    total = t("render.total", score=_num(report.score), max_score=_num(report.max_score))
    lines.append(_Entry("total", _PROSE, total))
    failures = [c for c in report.checks if not c.ok and c.status is not Status.SKIP]
    if failures:
        lines += [
            _Entry("plain", _FIXED, ""),
            _Entry("heading", _PROSE, t("render.label", label=t("render.failures")).rstrip()),
        ]
        # Failures that follow from another failing function come last.
        # Checks that could not run because a file is unreadable say so once.
        unread = [c for c in failures if c.code.endswith(".not_read")]
        failures = [c for c in failures if not c.code.endswith(".not_read")]
        for c in sorted(failures, key=lambda c: (bool(c.caused_by), c.step)):
            lines.append(_Entry("plain", _FIXED, ""))
            lines.append(
                _Entry(
                    "failure",
                    _PROSE,
                    "✗ %s  [%s, %s, %s/%s]"
                    % (
                        c.id,
                        c.function,
                        t("status." + c.status.value),
                        _num(c.points),
                        _num(c.max_points),
                    ),
                )
            )
            lines.append(_Entry("plain", _PROSE, "  " + c.message))
            if c.hint:
                pointer = step_pointer(c.step, lang, report.meta.get("lab"))
                hint = c.hint + (" (%s)" % pointer if pointer else "")
                lines.append(
                    _Entry("hint", _PROSE, "  " + t("render.label", label=t("render.hint")) + hint)
                )
            if c.details.get("snippet"):
                head, _, tail = t("snippet", snippet="\0").partition("\0")
                if tail:  # the command is not at the end: leave it whole
                    line = "  " + t("snippet", snippet=c.details["snippet"])
                    lines.append(_Entry("command", _FIXED, line))
                else:
                    lines.append(_Entry("command", _COMMAND, c.details["snippet"], "  " + head))
            if c.details.get("traceback"):
                lines += [
                    _Entry("dim", _PROSE, "    " + line)
                    for line in show.traceback_tail(str(c.details["traceback"]))
                ]
            if c.reproduce:
                head = "  " + t("render.label", label=t("render.replay"))
                lines.append(_Entry("command", _COMMAND, c.reproduce, head))
        for code in sorted({c.code for c in unread}):
            same = [c for c in unread if c.code == code]
            message = t("render.not_read", n=len(same), message=same[0].message)
            lines += [_Entry("plain", _FIXED, ""), _Entry("failure", _PROSE, "✗ " + message)]
    elif report.passed:
        lines += [_Entry("plain", _FIXED, ""), _Entry("pass", _PROSE, t("render.all_passed"))]
    lines += _notes(report, t, verbose)
    return lines


def _notes(report: Report, t: Callable[..., str], verbose: bool) -> list[_Entry]:
    """Functions not started yet (one line for all of them), and what the open
    behaviour did (with verbose; a function that only raises NotImplementedError
    tried nothing)."""
    lines: list[_Entry] = []
    idle: dict[str, str] = {}  # function -> its note, in the report's order
    for c in report.checks:
        if c.status is Status.SKIP and c.code == "not_started":
            idle.setdefault(c.function, c.message)
    own = [fn for fn in idle if fn != REPORT]
    if len(own) > 1:
        names = ", ".join(own)
        lines.append(
            _Entry("note", _PROSE, "  · " + t("render.not_started", n=len(own), names=names))
        )
    lines += [
        _Entry("note", _PROSE, "  · %s" % message)
        for fn, message in idle.items()
        if fn == REPORT or len(own) == 1
    ]
    for fn, entry in (report.meta.get("printed") or {}).items():
        lines.append(_Entry("note", _PROSE, "  · " + printed.note(fn, entry, t)))
    if report.meta.get("notebook") is not None:
        from grader.engine.handin import notebook

        for line in notebook.notes(report.meta.get("notebook"), t):
            lines.append(_Entry("note", _PROSE, "  · " + line))
    if report.meta.get("exposed"):
        lines.append(_Entry("note", _PROSE, "  · " + t("render.unwalled")))
    advisory = [c for c in report.checks if c.status is Status.ADVISORY and c.code != "not_started"]
    if verbose:
        lines += [_Entry("note", _PROSE, "  · %s" % c.message) for c in advisory]
    elif advisory:
        lines.append(_Entry("note", _PROSE, "  · " + _open_count(report, len(advisory), t)))
    if not lines:
        return []
    return [
        _Entry("plain", _FIXED, ""),
        _Entry("heading", _PROSE, t("render.label", label=t("render.notes")).rstrip()),
    ] + lines


def _open_count(report: Report, n: int, t: Callable[..., str]) -> str:
    """How many open behaviours were tried, and what shows them: for a notebook, what
    to type in a cell as well."""
    if not is_notebook(report.path):
        return t("render.open_count", n=n)
    upto = report.meta.get("upto")
    steps = find(report.meta.get("lab") or None).steps
    return t("render.open_count.notebook", n=n, upto=upto if upto else max(steps))


def _pad(s: str, width: int) -> str:
    """``s`` padded to ``width`` terminal columns (Hangul and Han take two)."""
    used = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)
    return s + " " * max(0, width - used)


def _num(x: float) -> str:
    return ("%.2f" % x).rstrip("0").rstrip(".")


def render_json(report: Report, lang: str = "en") -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
