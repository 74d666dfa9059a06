"""This lab as the engine sees it: the ``LAB`` object of ``grader.labs.embed``.

The full grader's lab draws fresh cases and judges them with the oracle.  The student
edition, which holds no oracle, grades the same checks on prepared cases
(``grader.labs.embed.stored``).
"""

from __future__ import annotations

from pathlib import Path

from grader.engine.lab import Lab
from grader.labs.embed import contract, fixed, reportstep

HERE = Path(__file__).resolve().parent


def full() -> Lab:
    """The lab with its oracle, case generators and mistake models."""
    from grader.labs.embed import checks, hints

    return Lab(
        name="embed",
        module_file="embed.py",
        names=contract.NAMES,
        constants=contract.CONSTANTS,
        steps=contract.STEP_POINTS,
        checks=tuple(checks.CHECKS),
        plan=checks.plan,
        messages=HERE / "messages",
        hints=hints.HINTS,
        report=reportstep.STEP,
        mutable_args=checks.MUTABLE_ARGS,
        gate="values",
        solutions=(HERE / "oracle.py",),
        reference=HERE.parents[2] / "embed.py",
        stub=HERE.parents[2] / "exercises" / "embed.py",
        prints=HERE / "fingerprints.json",
        report_groups=reportstep.GROUPS,
    )


def student() -> Lab:
    """The student edition's lab: the same checks on the prepared runs it holds."""
    from grader.labs.embed.stored import lab

    return lab.installed_lab()


LAB = student() if fixed.student_edition() else full()
