"""The stub written from the reference's syntax tree, its tokens and its marked regions."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Sequence

from grader.labs.embed.stubgen.regions import (
    _BODY,
    StubError,
    _is_docstring,
    _is_private,
    _regions,
    _target_names,
    _uncomment,
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
