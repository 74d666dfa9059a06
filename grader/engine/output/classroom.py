"""GitHub Classroom's results: ``--format classroom``.

Classroom's autograding actions (``autograding-command-grader`` and the others) each
hand their result to ``autograding-grading-reporter`` as base64 of a JSON object:
``version``, ``status``, ``max_score`` and ``tests``, each test with ``name``,
``status``, ``score`` and ``message`` (plus ``test_code``, ``filename``, ``line_no``
and ``duration``); the reporter's ``runners`` input names the results it reads.  It
fails its job when a result's ``status`` is ``fail`` or ``error``, and it counts
points in two ways:

* the notice it posts, ``Points X/Y``, which Classroom records: the scores of all the
  tests over the ``max_score`` of all the results (a result with a ``max_score`` of 0
  left out);
* the log, ``Total points for RUNNER: X/Y`` and its table: for each result, the share
  of its tests that pass times its ``max_score``, whatever their scores.

The two agree only when every counted result's tests pass or fail as a whole and
score equally.  So ``--format classroom`` writes three results, one per runner
(:data:`RUNNERS`), as one JSON object:

``steps``   one test per step, with the step's points and its failures, for the log;
            its ``max_score`` is 0, so that neither count takes it in
``earned``  one passing test that scores the points earned, out of just those points
``missed``  one failing test that scores 0, out of the points missed

Both counts are then the points earned out of the lab's points.  ``status`` is
``pass`` when the module was graded, whatever its points: a student halfway through
sees a green check and the points so far.  A fault of the grader is ``error`` with a
``max_score`` of 0 everywhere, so that no points are reported for it at all.
"""

from __future__ import annotations

import json
from typing import Any

from grader.engine.lab import find
from grader.engine.messages import text
from grader.engine.output.systems import check_text, clean
from grader.engine.vocabulary.results import Report, Status

RUNNERS = ("steps", "earned", "missed")


def _result(status: str, most: float, tests: list[dict[str, Any]]) -> dict[str, Any]:
    return {"version": 1, "status": status, "max_score": most, "tests": tests}


def _test(name: str, status: str, score: float, message: str) -> dict[str, Any]:
    return {"name": name, "status": status, "score": score, "message": message}


def classroom_results(report: Report, lang: str = "en") -> dict[str, dict[str, Any]]:
    """The result of each runner that GitHub Classroom's reporter reads (see the
    module's docstring)."""
    if report.grader_error:
        message = clean(text("render.grader_error", lang, error=report.grader_error))
        names = ("embed-grader", text("classroom.earned", lang), text("classroom.missed", lang))
        return {
            runner: _result("error", 0, [_test(name, "error" if i == 0 else "fail", 0, message)])
            for i, (runner, name) in enumerate(zip(RUNNERS, names))
        }
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
        test = _test(
            clean(text("render.step", lang, step=step, title=text("step.%d" % step, lang))),
            "pass" if states[step] == "pass" else "fail",
            round(got, 2),
            "\n".join(lines),
        )
        test.update(
            test_code="embed-grader %s --seed %d" % (clean(report.path), report.seed),
            filename=clean(report.path or lab.module_file),
            line_no=0,
            duration=0,
        )
        tests.append(test)
    most = report.max_score if report.checks else float(lab.max_score)
    got = report.score
    # Rounded to hundredths, got + missed is most exactly (as JavaScript adds them).
    missed = round(most - got, 2)
    shown = {"score": _num(got), "max_score": _num(most)}
    return {
        "steps": _result("pass", 0, tests),
        "earned": _result(
            "pass",
            got,
            [
                _test(
                    text("classroom.earned", lang), "pass", got, text("classroom.of", lang, **shown)
                )
            ],
        ),
        "missed": _result(
            "pass",
            missed,
            [
                _test(
                    text("classroom.missed", lang),
                    "fail" if missed else "pass",
                    0,
                    text("classroom.of", lang, **shown),
                )
            ],
        ),
    }


def _num(x: float) -> str:
    return ("%.2f" % x).rstrip("0").rstrip(".")


def render_classroom(report: Report, lang: str = "en") -> str:
    return json.dumps(classroom_results(report, lang), ensure_ascii=False) + "\n"
