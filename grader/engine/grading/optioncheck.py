"""Checks of the options that every grading shares, for both command lines
(``grader.engine.commands.cli`` and ``grader.engine.batch.command``)."""

from __future__ import annotations

import os
import shutil

from grader.engine.messages import text


def option_problem(
    timeout: float, python: str | None, sandbox: str, lang: str, max_seconds: float | None = None
) -> str:
    """What is wrong with the options every grading shares ("" when nothing is)."""
    if timeout <= 0:
        return text("cli.timeout", lang)
    if max_seconds is not None and not max_seconds > 0:
        return text("cli.max_seconds", lang)
    if python and not (os.path.isfile(python) or shutil.which(python)):
        return text("cli.no_interpreter", lang, exe=python)
    if sandbox in ("bwrap", "user"):
        from grader.engine.sandbox import isolation_problem

        problem = isolation_problem(sandbox, python)
        if problem and sandbox == "bwrap":
            return text("cli.bwrap", lang, problem=problem)
        if problem:
            return text("cli.sandbox", lang, isolation=sandbox, problem=problem)
    return ""
