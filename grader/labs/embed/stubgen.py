"""Turn the reference ``embed.py`` into the student stub ``exercises/embed.py``.

Usage::

    python -m grader.labs.embed.stubgen [SRC] [DEST]          # write the stub
    python -m grader.labs.embed.stubgen [SRC] [DEST] --check  # exit 1 when DEST is stale

What the stub keeps and drops
-----------------------------

* imports and public module-level assignments (the constants) are kept as they are;
* every public function keeps its decorators, signature and docstring, and its body
  becomes ``raise NotImplementedError``: a function body is always a solution
  region, no marker is needed there;
* private names (``_helper``, ``_CACHE``) are dropped, together with the comment
  lines directly above them;
* public classes are kept with the same rules applied to their bodies;
* the module docstring is replaced by a text for students (see ``student_docstring``);
* any other statement (``if __name__ == "__main__":`` for example) is kept.

Markers, for module-level code that the rules above would keep
--------------------------------------------------------------

``# BEGIN SOLUTION`` and ``# END SOLUTION`` (whole lines, any number of ``#``)
enclose lines that are left out of the stub.  A region must cover whole
statements; inside a function body it changes nothing, since the body goes anyway.

``# BEGIN STUB`` and ``# END STUB`` enclose commented lines that appear in the stub
uncommented (the first ``#`` and one space after it are removed).  Such a block may
stand between module-level statements or inside a function body, where its lines go
between the docstring and the ``raise NotImplementedError``.  Write ``# # text`` to
get a comment ``# text`` in the stub.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import io
import re
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.labs.embed.contract import NAMES, STEPS

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SRC = ROOT / "embed.py"
DEFAULT_DEST = ROOT / "exercises" / "embed.py"

_MARKER = re.compile(r"^\s*#+\s*(BEGIN|END)\s+(SOLUTION|STUB)\s*$")
_BODY = "raise NotImplementedError"


class StubError(ValueError):
    """The reference source cannot be turned into a stub."""


@dataclass(frozen=True)
class _Region:
    kind: str  # "SOLUTION" or "STUB"
    begin: int  # line number of the BEGIN marker (1-based)
    end: int  # line number of the END marker


def _regions(lines: Sequence[str]) -> list[_Region]:
    regions: list[_Region] = []
    open_kind = ""
    open_line = 0
    for number, line in enumerate(lines, start=1):
        match = _MARKER.match(line)
        if not match:
            continue
        edge, kind = match.groups()
        if edge == "BEGIN":
            if open_kind:
                raise StubError(
                    f"line {number}: BEGIN {kind} inside the {open_kind} region "
                    f"opened on line {open_line}"
                )
            open_kind, open_line = kind, number
        else:
            if open_kind != kind:
                raise StubError(f"line {number}: END {kind} without BEGIN {kind}")
            regions.append(_Region(kind, open_line, number))
            open_kind = ""
    if open_kind:
        raise StubError(f"line {open_line}: BEGIN {open_kind} is never closed")
    return regions


def _uncomment(line: str) -> str:
    stripped = line.lstrip()
    if not stripped:
        return ""
    if not stripped.startswith("#"):
        raise StubError(f"a STUB block holds commented lines only, not {line.strip()!r}")
    indent = line[: len(line) - len(stripped)]
    text = stripped[1:].removeprefix(" ")
    return (indent + text).rstrip()


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _target_names(node: ast.AST) -> list[str]:
    return [n.id for n in ast.walk(node) if isinstance(n, ast.Name)]


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


class _Generator:
    def __init__(self, source: str, docstring: str | None) -> None:
        self.lines = source.splitlines()
        self.tree = ast.parse(source)
        self.tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
        self.docstring = docstring
        regions = _regions(self.lines)
        self.solution: set[int] = set()
        self.stub: dict[int, str] = {}  # line number -> uncommented text
        self.markers: set[int] = set()
        for region in regions:
            self.markers.update((region.begin, region.end))
            inner = range(region.begin + 1, region.end)
            if region.kind == "SOLUTION":
                self.solution.update(inner)
            else:
                self.stub.update((n, _uncomment(self.lines[n - 1])) for n in inner)
        self.dropped: set[str] = set()

    # -- helpers -------------------------------------------------------------------

    def _start(self, node: ast.stmt) -> int:
        decorators: list[ast.expr] = getattr(node, "decorator_list", [])
        return min([node.lineno] + [d.lineno for d in decorators])

    def _end(self, node: ast.stmt) -> int:
        end = node.end_lineno
        assert end is not None
        return end

    def _header_end(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> int:
        """Line number of the colon that ends a def or class header."""
        depth = 0
        seen = False
        for tok in self.tokens:
            if not seen:
                seen = tok.start >= (node.lineno, node.col_offset)
                if not seen:
                    continue
            if tok.type != tokenize.OP:
                continue
            if tok.string in "([{":
                depth += 1
            elif tok.string in ")]}":
                depth -= 1
            elif tok.string == ":" and depth == 0:
                return tok.start[0]
        raise StubError(f"line {node.lineno}: no end of the header found")

    def _gap(self, first: int, last: int, out: list[str]) -> None:
        """Copy lines first..last (comments and blank lines) that the stub keeps."""
        for number in range(first, last + 1):
            if number in self.markers or number in self.solution:
                continue
            out.append(self.stub.get(number, self.lines[number - 1]))

    def _drop_attached_comments(self, out: list[str], floor: int) -> None:
        """Remove the comment lines directly above a dropped statement."""
        while len(out) > floor and out[-1].lstrip().startswith("#"):
            out.pop()

    # -- statements ----------------------------------------------------------------

    def block(self, body: Sequence[ast.stmt], first: int, last: int, out: list[str]) -> None:
        """Emit the statements of body, with the lines between them, from line first to last."""
        cursor = first
        for node in body:
            start, end = self._start(node), self._end(node)
            floor = len(out)
            self._gap(cursor, start - 1, out)
            cursor = end + 1
            lines = range(start, end + 1)
            if all(n in self.solution for n in lines):
                self._drop_attached_comments(out, floor)
                continue
            if any(n in self.solution for n in lines) and not self._inside_body(node):
                raise StubError(
                    f"lines {start}-{end}: a SOLUTION region must cover whole statements"
                )
            if self.keep(node):
                self.emit(node, out)
            else:
                self._drop_attached_comments(out, floor)
        self._gap(cursor, last, out)

    def _inside_body(self, node: ast.stmt) -> bool:
        """Whether every SOLUTION line within node lies in the body of a def or class."""
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return False
        header = range(self._start(node), self._header_end(node) + 1)
        return not any(n in self.solution for n in header)

    def keep(self, node: ast.stmt) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if _is_private(node.name):
                self.dropped.add(node.name)
                return False
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [name for t in targets for name in _target_names(t)]
            private = [name for name in names if _is_private(name)]
            if private and len(private) < len(names):
                raise StubError(
                    f"line {node.lineno}: an assignment of private and public names together"
                )
            if private:
                self.dropped.update(private)
                return False
        return True

    def emit(self, node: ast.stmt, out: list[str]) -> None:
        start, end = self._start(node), self._end(node)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(node, out)
        elif isinstance(node, ast.ClassDef):
            self.klass(node, out)
        else:
            self._gap(start, end, out)

    def _header(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, out: list[str]
    ) -> tuple[int, str]:
        """Emit decorators and header; return the header's last line and the body indent."""
        start = self._start(node)
        header_end = self._header_end(node)
        body_line = node.body[0].lineno
        if body_line == header_end:
            raise StubError(f"line {node.lineno}: put the body of {node.name} on its own lines")
        out.extend(self.lines[start - 1 : header_end])
        indent = re.match(r"\s*", self.lines[body_line - 1])
        assert indent is not None
        return header_end, indent.group(0)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, out: list[str]) -> None:
        header_end, indent = self._header(node, out)
        body = node.body
        if _is_docstring(body[0]):
            out.extend(self.lines[body[0].lineno - 1 : self._end(body[0])])
        end = self._end(node)
        out.extend(self.stub[n] for n in range(header_end + 1, end + 1) if n in self.stub)
        out.append(indent + _BODY)

    def klass(self, node: ast.ClassDef, out: list[str]) -> None:
        header_end, indent = self._header(node, out)
        size = len(out)
        self.block(node.body, header_end + 1, self._end(node), out)
        while len(out) > size and not out[-1].strip():
            out.pop()
        kept = [line for line in out[size:] if line.strip() and not line.lstrip().startswith("#")]
        if not kept:
            out.append(indent + "pass")

    # -- module --------------------------------------------------------------------

    def module(self) -> str:
        out: list[str] = []
        body = list(self.tree.body)
        first = 1
        if body and _is_docstring(body[0]) and self.docstring is not None:
            out.extend(('"""' + self.docstring.strip("\n") + '\n"""').splitlines())
            first = self._end(body[0]) + 1
            body = body[1:]
        self.block(body, first, len(self.lines), out)
        text = _tidy(out)
        self._check(text)
        return text

    def _check(self, text: str) -> None:
        try:
            tree = ast.parse(text)
        except SyntaxError as exc:  # pragma: no cover - a bug of the rules above
            raise StubError(f"the stub does not parse: {exc}") from exc
        defined = {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        defined |= {
            n.name
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        }
        used = {
            n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
        }
        missing = sorted((used & self.dropped) - defined)
        if missing:
            raise StubError(
                f"the stub still uses {', '.join(missing)}, which it leaves out; "
                "put the code that uses it between # BEGIN SOLUTION and "
                "# END SOLUTION"
            )


def _tidy(lines: list[str]) -> str:
    """Strip trailing spaces, and keep at most two blank lines in a row."""
    out: list[str] = []
    blank = 0
    for line in lines:
        line = line.rstrip()
        if not line:
            blank += 1
            if blank > 2 or not out:
                continue
        else:
            blank = 0
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


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


if __name__ == "__main__":
    sys.exit(main())
