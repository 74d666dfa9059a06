"""The student docstring, :func:`generate` and the command line."""

from __future__ import annotations

import argparse
import ast
import difflib
import sys
from collections.abc import Sequence
from pathlib import Path

from grader.labs.embed.contract import NAMES, STEPS
from grader.labs.embed.stubgen.generator import _Generator
from grader.labs.embed.stubgen.regions import StubError, _is_private

ROOT = Path(__file__).resolve().parents[4]  # the project, above grader/
DEFAULT_SRC = ROOT / "embed.py"
DEFAULT_DEST = ROOT / "exercises" / "embed.py"


def student_docstring(source: str) -> str:
    """The module docstring of the stub: what to do, the steps, how to grade."""
    tree = ast.parse(source)
    contract = {n.name for n in NAMES}
    extra = [
        node.name
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not _is_private(node.name)
        and node.name not in contract
    ]
    steps = []
    for step in sorted(s for s in STEPS if s > 0):
        names = [n.name for n in NAMES if n.step == step]
        if step == max(STEPS):
            names += extra
        title = STEPS[step]
        steps.append(_wrap(f"{step}. {title}: {', '.join(names)}", "  ", "     "))
    return "\n".join(
        [
            "From the embedding table to the logits: your module.",
            "",
            "Every function below still raises NotImplementedError.  Replace that line with",
            "your own code, one step at a time.  Keep the names, the parameters and the",
            "constants exactly as they are: the grader imports this file and calls the",
            "functions directly, with tables and ids of its own.  Use the standard library",
            "only (math and random are enough), and never change a table, list or vector",
            "that a function receives.  The docstring of each function says what it must",
            "return; exercises/README.md explains every step, its error cases and the",
            "report files in detail.",
            "",
            "The steps, each with the names it adds:",
            "",
            *steps,
            "",
            "Grade the steps you have finished so far: --upto 1 grades step 1 only, and",
            "--upto N grades steps 1 to N.  Raise the number as you go on:",
            "",
            "    embed-grader embed.py --upto 1",
            "",
            "Without --upto the grader checks all eight steps.  Each failure shows the",
            "input, the expected value and yours, and a command that replays it.",
            "",
            "This module needs Python 3.8 or newer and nothing else.  The grader is a",
            "separate program that needs Python 3.10 or newer and is installed once",
            "from the wheel your course hands out: exercises/README.md, Getting started.",
        ]
    )


def _wrap(text: str, first: str, rest: str, width: int = 88) -> str:
    words = text.split()
    lines: list[str] = []
    line = first
    for word in words:
        if line.strip() and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = rest + word
        else:
            line = line + (" " if line.strip() else "") + word
    lines.append(line)
    return "\n".join(lines)


def generate(source: str, *, docstring: str | None = "") -> str:
    """Return the student stub for the reference module ``source``.

    ``docstring`` replaces the module docstring: ``""`` (the default) means
    ``student_docstring(source)``, ``None`` keeps the reference's own.
    """
    if docstring == "":
        docstring = student_docstring(source)
    return _Generator(source, docstring).module()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.labs.embed.stubgen",
        description="Write the student stub generated from the reference solution.",
    )
    parser.add_argument(
        "src",
        nargs="?",
        type=Path,
        default=DEFAULT_SRC,
        help="the reference module (default: embed.py of the project)",
    )
    parser.add_argument(
        "dest",
        nargs="?",
        type=Path,
        default=DEFAULT_DEST,
        help="where the stub goes (default: exercises/embed.py)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when DEST differs from the generated stub",
    )
    args = parser.parse_args(argv)
    try:
        stub = generate(args.src.read_text(encoding="utf-8"))
    except (OSError, StubError, SyntaxError) as exc:
        print(f"stubgen: {exc}", file=sys.stderr)
        return 2
    try:
        current = args.dest.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    if args.check:
        if current == stub:
            print(f"{args.dest} is up to date")
            return 0
        diff = difflib.unified_diff(
            (current or "").splitlines(keepends=True),
            stub.splitlines(keepends=True),
            str(args.dest),
            f"generated from {args.src}",
        )
        sys.stdout.writelines(diff)
        print(
            f"{args.dest} is out of date: run python -m grader.labs.embed.stubgen {args.src} {args.dest}",
            file=sys.stderr,
        )
        return 1
    if current == stub:
        print(f"{args.dest} is up to date")
        return 0
    args.dest.parent.mkdir(parents=True, exist_ok=True)
    args.dest.write_text(stub, encoding="utf-8")
    print(f"wrote {args.dest}")
    return 0
