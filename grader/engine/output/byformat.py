"""Every output format by name: ``text`` and ``json`` from ``grader.engine.output.render``,
``junit`` and ``gradescope`` from ``grader.engine.output.systems`` and ``classroom`` (GitHub
Classroom's result) from ``grader.engine.output.classroom``, imported only when one of them is
asked for.  Both modules are imported from here, never the other way round."""

from __future__ import annotations

from grader.engine.output.render import render_json, render_text
from grader.engine.vocabulary.results import Report

FORMATS = ("text", "json", "junit", "gradescope", "classroom")


def render(
    report: Report,
    fmt: str = "text",
    lang: str = "en",
    verbose: bool = False,
    width: int | None = None,
) -> str:
    """``report`` in format ``fmt``; ``width`` wraps the text format."""
    if fmt == "text":
        return render_text(report, lang, verbose, width)
    if fmt == "json":
        return render_json(report, lang)
    if fmt == "junit":
        from grader.engine.output.systems import render_junit

        return render_junit(report, lang)
    if fmt == "gradescope":
        from grader.engine.output.systems import render_gradescope

        return render_gradescope(report, lang)
    if fmt == "classroom":
        from grader.engine.output.classroom import render_classroom

        return render_classroom(report, lang)
    raise KeyError(fmt)
