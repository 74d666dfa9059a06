"""The exercise as notebooks, ``exercises/embed{,.ko,.zh}.ipynb``, from the stub's source.

Usage::

    python -m grader.labs.embed.stubgen.notebook [--check] [--wheel URL] [--filled DIR]

Each notebook is made of what the file kit already has, so the two never disagree:
the code of the stub (``stubgen.generate`` of the reference ``embed.py``), split at its
``# Step N:`` comments, and the instructions ``exercises/README{,.ko,.zh}.md``, split at
their ``<a id="...">`` anchors.  The notebook opens with the title and the section
"notebook" of the instructions, then a setup cell that installs the grader from
``EMBED_GRADER_WHEEL`` (the course sets it: ``--wheel``) or, while that is empty, from a
student edition's wheel beside the notebook or in ``dist/`` there or one folder up, and
stops with a sentence when there is none; the rules (step 0); then for
each step the step's section as markdown, its code cell (the first one also holds the
imports and constants), one cell per ``python`` block of the section (the course's
examples, called with the student's functions), and ``check(N)``.  Step 8 adds a cell
that runs ``write_report(".")`` before its check.  The module's ``if __name__ ==
"__main__":`` block is left out: in a notebook it would run on every execution.

Cells the notebook owns are marked in their metadata (``embed_grader``: ``setup``,
``example``, ``check``, ``report``) and are not graded; the code cells are marked
``exercise``.  Cell ids are fixed, so that the output depends on the sources only.
``--filled DIR`` writes the notebooks with the reference's code instead of the stub's
(what the tests execute).

The instructions speak to a student with ``embed.py`` in a folder; where a notebook
student does something else, they say both, in HTML comments that a markdown page
does not show: ``<!-- file -->...<!-- /file -->`` holds what the notebook leaves out,
``<!-- notebook: ... -->`` what it says instead (:func:`for_notebook`).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.engine.messages import read
from grader.labs.embed.contract import STEPS
from grader.labs.embed.stubgen.cli import DEFAULT_SRC, ROOT, generate

EXERCISES = ROOT / "exercises"
MESSAGES = Path(__file__).resolve().parents[1] / "messages"
FILES = {"en": "embed.ipynb", "ko": "embed.ko.ipynb", "zh": "embed.zh.ipynb"}
READMES = {"en": "README.md", "ko": "README.ko.md", "zh": "README.zh.md"}
PLACEHOLDER = ""  # no address: the setup cell looks for the wheel beside the notebook
WHEEL_GLOB = "embed_grader_student-*.whl"
WHEEL_FOLDERS = (".", "dist", "../dist")  # where the setup cell looks, from the notebook
KIT_KEY = "embed_grader"  # the metadata key the grader reads (grader.engine.handin.notebook)

_ANCHOR = re.compile(r'^<a id="([^"]+)"></a>\s*$', re.M)
_STEP_COMMENT = re.compile(r"^# Step (\d+):", re.M)
_PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```\n?", re.M | re.S)
_FILE_ONLY = re.compile(r"<!-- file -->.*?<!-- /file -->", re.S)
_NOTEBOOK_ONLY = re.compile(r"<!-- notebook: (.*?) -->", re.S)


def for_notebook(text: str) -> str:
    """The instructions as a notebook student reads them (see the module docstring)."""
    return _NOTEBOOK_ONLY.sub(lambda m: m.group(1), _FILE_ONLY.sub("", text))


def sections(readme: str) -> dict[str, str]:
    """The instructions split at their anchors: anchor id -> the text up to the next."""
    marks = list(_ANCHOR.finditer(readme))
    found = {"title": readme[: marks[0].start()] if marks else readme}
    for mark, after in zip(marks, [*marks[1:], None]):
        end = after.start() if after is not None else len(readme)
        found[mark.group(1)] = readme[mark.start() : end].strip("\n") + "\n"
    return found


def code_parts(module: str) -> dict[int, str]:
    """The module's code by step (``# Step N:`` comments); the imports and constants
    before step 1 go with it, the ``__main__`` block and module docstring nowhere."""
    tree = ast.parse(module)
    lines = module.splitlines()
    drop: set[int] = set()
    for node in tree.body:
        is_doc = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        is_main = isinstance(node, ast.If) and "__name__" in ast.unparse(node.test)
        if (is_doc and node is tree.body[0]) or is_main:
            drop.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    kept = "\n".join(line for n, line in enumerate(lines, 1) if n not in drop)
    marks = list(_STEP_COMMENT.finditer(kept))
    parts: dict[int, str] = {}
    start = 0
    for mark, after in zip(marks, [*marks[1:], None]):
        end = after.start() if after is not None else len(kept)
        parts[int(mark.group(1))] = kept[start:end].strip("\n") + "\n"
        start = end
    return parts


def _cell(kind: str, source: str, ident: str, role: str = "") -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "id": ident, "metadata": {}, "source": source}
    if role:
        cell["metadata"][KIT_KEY] = role
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def build(module: str, readme: str, lang: str, wheel: str = PLACEHOLDER) -> dict[str, Any]:
    """The notebook of ``lang`` as JSON data."""
    import nbformat  # noqa: PLC0415

    text_of = sections(for_notebook(readme))
    parts = code_parts(module)
    title = text_of["title"].strip().splitlines()[0]
    setup = "\n".join(
        [
            *("# " + line for line in read(MESSAGES, lang)["nbcell.setup"].split("\n")),
            "EMBED_GRADER_WHEEL = %s" % json.dumps(wheel),
            "import importlib.util",
            "from pathlib import Path",
            "",
            'if importlib.util.find_spec("grader") is None:',
            "    _found = sorted(",
            "        p for d in %s for p in Path(d).glob(%s)"
            % (json.dumps(list(WHEEL_FOLDERS)), json.dumps(WHEEL_GLOB)),
            "    )",
            "    if not (EMBED_GRADER_WHEEL or _found):",
            # As ruff formats it: the message on a line of its own.
            "        raise FileNotFoundError(",
            "            %s"
            % json.dumps(read(MESSAGES, lang)["nbcell.missing"], ensure_ascii=False),
            "        )",
            "    _wheel = EMBED_GRADER_WHEEL or str(_found[-1])",
            '    %pip install -q "{_wheel}"',
            "from grader.engine.commands.checkcells import checker",
            "",
            "check = checker(%s, %s)" % (json.dumps(FILES[lang]), json.dumps(lang)),
        ]
    )
    cells = [
        _cell("markdown", title + "\n\n" + text_of["notebook"], "intro"),
        _cell("code", setup, "setup", "setup"),
        _cell("markdown", text_of["step-0"], "rules"),
    ]
    for step in sorted(s for s in STEPS if s > 0):
        section = text_of["step-%d" % step]
        examples = [m.group(1).rstrip("\n") for m in _PYTHON_BLOCK.finditer(section)]
        prose = _PYTHON_BLOCK.sub("", section).replace("\n\n\n", "\n\n")
        cells.append(_cell("markdown", prose, "step-%d-text" % step))
        cells.append(_cell("code", parts[step].rstrip("\n"), "step-%d-code" % step, "exercise"))
        for i, example in enumerate(examples, 1):
            cells.append(_cell("code", example, "step-%d-example-%d" % (step, i), "example"))
        if step == max(STEPS):
            cells.append(_cell("code", 'write_report(".")', "report", "report"))
        cells.append(_cell("code", "check(%d)" % step, "step-%d-check" % step, "check"))
    notebook = nbformat.from_dict(
        {
            "cells": cells,
            "metadata": {
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                "language_info": {"name": "python"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )
    nbformat.validate(notebook)
    return dict(notebook)


def render(module: str, readme: str, lang: str, wheel: str = PLACEHOLDER) -> str:
    import nbformat  # noqa: PLC0415

    return nbformat.writes(nbformat.from_dict(build(module, readme, lang, wheel))) + "\n"


def notebooks(source: str, wheel: str = PLACEHOLDER, filled: bool = False) -> dict[str, str]:
    """File name -> text of every notebook, from the reference module's ``source``."""
    module = source if filled else generate(source)
    return {
        FILES[lang]: render(module, (EXERCISES / READMES[lang]).read_text("utf-8"), lang, wheel)
        for lang in FILES
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.labs.embed.stubgen.notebook",
        description="Write the exercise notebooks generated from the stub and the instructions.",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a notebook is stale")
    parser.add_argument("--wheel", default=PLACEHOLDER, help="the grader wheel's address")
    parser.add_argument("--filled", type=Path, help="write notebooks holding the reference here")
    args = parser.parse_args(argv)
    made = notebooks(DEFAULT_SRC.read_text("utf-8"), args.wheel, filled=args.filled is not None)
    folder = args.filled if args.filled is not None else EXERCISES
    stale = []
    for name, body in made.items():
        path = folder / name
        current = path.read_text("utf-8") if path.is_file() else None
        if current == body:
            continue
        stale.append(name)
        if not args.check:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
            print("wrote %s" % path)
    if args.check and stale:
        print(
            "out of date: %s; run python -m grader.labs.embed.stubgen.notebook" % ", ".join(stale),
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
