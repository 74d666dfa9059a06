"""Output formats.  Every renderer takes a Report and returns text."""

from __future__ import annotations

import functools
import json
import unicodedata
from collections.abc import Callable
from importlib import resources
from typing import Any

from grader.messages import text
from grader.results import Report, Status

Renderer = Callable[[Report, str], str]


@functools.lru_cache(maxsize=1)
def _anchors() -> dict[str, dict[str, str]]:
    try:
        raw = resources.files("grader.messages").joinpath("steps.json").read_text("utf-8")
    except FileNotFoundError:
        return {}
    data: dict[str, dict[str, str]] = json.loads(raw)
    return data


def step_pointer(step: int, lang: str) -> str:
    anchors = _anchors().get(lang) or _anchors().get("en") or {}
    where = anchors.get(str(step))
    return "exercises/%s" % where if where else ""


def render_text(report: Report, lang: str = "en", verbose: bool = False) -> str:
    def t(code: str, **params: Any) -> str:
        return text(code, lang, **params)

    lines = ["embed-grader · %s · %s" % (report.path, t("render.seed", seed=report.seed)), ""]
    if report.grader_error:
        lines.append(t("render.grader_error", error=report.grader_error))
        return "\n".join(lines) + "\n"
    states = report.step_states()
    for step, (got, most) in report.by_step().items():
        checks = [c for c in report.checks if c.step == step]
        if states[step] == "fail":
            failing = [c for c in checks if not c.ok and c.status is not Status.SKIP]
            state = "%s %d/%d" % (
                t("status.fail"),
                len(failing),
                len([c for c in checks if c.status is not Status.ADVISORY]),
            )
        else:
            state = t("status." + states[step])
        title = t("step.%d" % step)
        lines.append(
            "%s %6.2f / %6.2f  %s"
            % (_pad(t("render.step", step=step, title=title), 46), got, most, state)
        )
    lines.append("")
    lines.append(t("render.total", score=_num(report.score), max_score=_num(report.max_score)))
    failures = [c for c in report.checks if not c.ok and c.status is not Status.SKIP]
    if failures:
        lines += ["", t("render.failures") + ":"]
        # Failures that follow from another failing function come last.
        # Checks that could not run because a file is unreadable say so once.
        unread = [c for c in failures if c.code.endswith(".not_read")]
        failures = [c for c in failures if not c.code.endswith(".not_read")]
        for c in sorted(failures, key=lambda c: (bool(c.caused_by), c.step)):
            lines.append("")
            lines.append(
                "✗ %s  [%s, %s, %s/%s]"
                % (
                    c.id,
                    c.function,
                    t("status." + c.status.value),
                    _num(c.points),
                    _num(c.max_points),
                )
            )
            lines.append("  " + c.message)
            if c.hint:
                pointer = step_pointer(c.step, lang)
                hint = c.hint + (" (%s)" % pointer if pointer else "")
                lines.append("  %s: %s" % (t("render.hint"), hint))
            if c.details.get("snippet"):
                lines.append("  " + t("snippet", snippet=c.details["snippet"]))
            if c.details.get("traceback"):
                lines += ["    " + line for line in str(c.details["traceback"]).splitlines()[-8:]]
            if c.reproduce:
                lines.append("  %s: %s" % (t("render.replay"), c.reproduce))
        for code in sorted({c.code for c in unread}):
            same = [c for c in unread if c.code == code]
            lines += ["", "✗ " + t("render.not_read", n=len(same), message=same[0].message)]
    elif report.passed:
        lines += ["", t("render.all_passed")]
    lines += _notes(report, t, verbose)
    return "\n".join(lines).rstrip() + "\n"


def _notes(report: Report, t: Callable[..., str], verbose: bool) -> list[str]:
    """Functions not started yet, and (with verbose) what the open behaviour did."""
    lines: list[str] = []
    seen: set[str] = set()
    for c in report.checks:
        if c.status is Status.SKIP and c.code == "not_started" and c.message not in seen:
            seen.add(c.message)
            lines.append("  · %s" % c.message)
    advisory = [c for c in report.checks if c.status is Status.ADVISORY]
    if verbose:
        lines += ["  · %s" % c.message for c in advisory]
    elif advisory:
        lines.append("  · " + t("render.open_count", n=len(advisory)))
    return (["", t("render.notes") + ":"] + lines) if lines else []


def _pad(s: str, width: int) -> str:
    """``s`` padded to ``width`` terminal columns (Hangul and Han take two)."""
    used = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)
    return s + " " * max(0, width - used)


def _num(x: float) -> str:
    return ("%.2f" % x).rstrip("0").rstrip(".")


def render_json(report: Report, lang: str = "en") -> str:
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"


RENDERERS: dict[str, Renderer] = {"text": render_text, "json": render_json}


def register(name: str, renderer: Renderer) -> None:
    RENDERERS[name] = renderer


def render(report: Report, fmt: str = "text", lang: str = "en", verbose: bool = False) -> str:
    if fmt == "text":
        return render_text(report, lang, verbose)
    return RENDERERS[fmt](report, lang)


# JUnit XML and Gradescope's results.json register themselves.
from grader import formats as _formats  # noqa: E402, F401
