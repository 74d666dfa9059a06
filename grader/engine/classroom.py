"""GitHub Classroom's result: ``--format classroom``.

Classroom's autograding actions (``autograding-command-grader`` and the others) each
hand their result to ``autograding-grading-reporter`` as base64 of a JSON object:
``version``, ``status``, ``max_score`` and ``tests``, each test with ``name``,
``status``, ``score`` and ``message`` (plus ``test_code``, ``filename``, ``line_no``
and ``duration``).  The reporter prints every test, adds up the tests' scores against
the ``max_score`` of every result, and reports ``Points X/Y`` to Classroom; it fails
its job when a result's ``status`` is ``fail`` or ``error``.

Here every step of the lab is a test, with the step's points.  ``status`` is ``pass``
when the module was graded, whatever its points: a student halfway through sees a
green check and the points so far, with a failing test per unfinished step.  A fault
of the grader is ``error`` with a ``max_score`` of 0, so that no points are reported
for it at all.
"""

from __future__ import annotations

import json
from typing import Any

from grader.engine.formats import check_text, clean
from grader.engine.lab import find
from grader.engine.messages import text
from grader.engine.results import Report, Status


def classroom_result(report: Report, lang: str = "en") -> dict[str, Any]:
    """The result that GitHub Classroom's reporter reads (see the module's docstring)."""
    if report.grader_error:
        message = clean(text("render.grader_error", lang, error=report.grader_error))
        test = {"name": "embed-grader", "status": "error", "score": 0, "message": message}
        return {"version": 1, "status": "error", "max_score": 0, "tests": [test]}
    lab = find(report.meta.get("lab"))
    points = report.by_step()
    states = report.step_states()
    tests = []
    for step in sorted(points):
        got, _ = points[step]
        checks = [c for c in report.checks if c.step == step]
        failing = [c for c in checks if not c.ok and c.status is not Status.SKIP]
        lines = [text("status." + states[step], lang)]
        lines += ["✗ %s\n%s" % (clean(c.id), check_text(c, lang)) for c in failing[:3]]
        if len(failing) > 3:
            lines.append("… (+%d)" % (len(failing) - 3))
        tests.append(
            {
                "name": clean(
                    text("render.step", lang, step=step, title=text("step.%d" % step, lang))
                ),
                "status": "pass" if states[step] == "pass" else "fail",
                "score": round(got, 2),
                "message": "\n".join(lines),
                "test_code": "embed-grader %s --seed %d" % (clean(report.path), report.seed),
                "filename": clean(report.path or lab.module_file),
                "line_no": 0,
                "duration": 0,
            }
        )
    most = report.max_score if report.checks else float(lab.max_score)
    return {"version": 1, "status": "pass", "max_score": most, "tests": tests}


def render_classroom(report: Report, lang: str = "en") -> str:
    return json.dumps(classroom_result(report, lang), ensure_ascii=False) + "\n"
