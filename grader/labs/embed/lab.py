"""This lab as the engine sees it: the ``LAB`` object of ``grader.labs.embed``."""

from __future__ import annotations

from pathlib import Path

from grader.engine.lab import Lab
from grader.labs.embed import checks, contract, hints, reportstep

HERE = Path(__file__).resolve().parent

LAB = Lab(
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
    solutions=(HERE / "oracle.py",),
    reference=HERE.parents[2] / "embed.py",
    stub=HERE.parents[2] / "exercises" / "embed.py",
    prints=HERE / "fingerprints.json",
    report_groups=(
        ("code.files", ("report.write", "report.same")),
        ("json.file", ("report.json.file", "report.json.schema")),
        ("json.values", ("report.json.values.",)),
        ("json.consistency", ("report.json.consistency.",)),
        ("md.file", ("report.md.file", "report.md.headings")),
        ("md.prose", ("report.md.prose.",)),
        ("md.figures", ("report.md.figures",)),
    ),
)
