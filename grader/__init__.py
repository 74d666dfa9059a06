"""embed-grader: grades a student's embed.py against values it computes itself.

Public API::

    from grader import grade
    report = grade("embed.py", seed=1234)
    report.score, report.max_score, report.passed, report.checks

Two packages: ``grader.engine`` (what every lab reuses) and ``grader.labs`` (one
folder per lab).  This module imports the engine only, and only when a name of the
API is first used.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["CheckResult", "Report", "Status", "UsageError", "__version__", "grade"]


def __getattr__(name: str) -> Any:
    # Imported on first use, so that `grader.labs.embed.oracle` and friends load on their own.
    if name in ("grade", "UsageError"):
        from grader.engine.grading import grade as engine

        return getattr(engine, name)
    if name in ("CheckResult", "Report", "Status"):
        from grader.engine.vocabulary import results

        return getattr(results, name)
    raise AttributeError("module 'grader' has no attribute %r" % name)
