"""Python source to fingerprints: normalised tokens, winnowed k-gram hashes.

Each module is cut into Python tokens with comments, docstrings and layout dropped
and every name the student chose replaced by one placeholder (keywords, builtins and
attribute names stay), so renaming variables or reformatting changes nothing.  Every
run of ``K`` tokens is hashed, and of each window of ``W`` consecutive hashes the
smallest is kept (winnowing): a shared stretch of ``K + W - 1`` tokens or more always
leaves a shared fingerprint.  Used by ``similar.py`` and ``prints.py``.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import tokenize
import zlib
from collections.abc import Sequence

K = 12
W = 8
_KEEP_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)
_SKIP = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.ENCODING,
    tokenize.ENDMARKER,
    tokenize.TYPE_COMMENT,
}
# Parts of a string that point at the grader's own files or modules.
_GRADER_WORDS = ("grader/", "grader\\", "grader.", "oracle.py", "site-packages", "dist-packages")


def normalized_tokens(source: str) -> list[str]:
    """The module's tokens with names, strings and layout normalised; [] if it cannot be read."""
    out: list[str] = []
    after_dot = False
    # A string that starts a logical line is a docstring or a bare expression.
    line_start = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            kind, value = tok.type, tok.string
            if kind in _SKIP:
                continue
            if kind == tokenize.NEWLINE:
                out.append(";")
                line_start, after_dot = True, False
                continue
            if kind in (tokenize.INDENT, tokenize.DEDENT):
                out.append(">" if kind == tokenize.INDENT else "<")
                continue
            if kind == tokenize.STRING or tokenize.tok_name[kind].startswith("FSTRING"):
                if not line_start:
                    out.append("S")
                after_dot = False
                continue
            if kind == tokenize.NAME:
                out.append(value if after_dot or value in _KEEP_NAMES else "V")
            elif kind == tokenize.NUMBER:
                out.append(value)
            else:
                out.append(value)
            after_dot = value == "."
            line_start = False
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return out
    # Collapse the empty lines a dropped docstring leaves behind; drop trailing commas.
    collapsed: list[str] = []
    for t in out:
        if t == ";" and collapsed and collapsed[-1] in (";", ">"):
            continue
        if t in (")", "]", "}") and collapsed and collapsed[-1] == ",":
            collapsed.pop()
        collapsed.append(t)
    return collapsed


_TOKEN_IDS: dict[str, int] = {}


def winnow(tokens: Sequence[str], k: int = K, w: int = W) -> frozenset[int]:
    """The smallest hash of each window of ``w`` consecutive k-gram hashes.

    Tokens become stable numbers first: the hash of a tuple of ints is the same in
    every process of one Python version (unlike the hash of a string).
    """
    if len(tokens) < k:
        return frozenset()
    ids = _TOKEN_IDS
    codes = [ids.get(t) or ids.setdefault(t, zlib.crc32(t.encode()) | 1) for t in tokens]
    grams = [hash(tuple(codes[i : i + k])) for i in range(len(codes) - k + 1)]
    if len(grams) <= w:
        return frozenset({min(grams)})
    return frozenset(min(grams[i : i + w]) for i in range(len(grams) - w + 1))


def refers_to_grader(source: str) -> str:
    """What in the source points at the grader's files ("" when nothing does)."""
    low = source.lower()
    if "grader" not in low and "oracle" not in low and "-packages" not in low:
        return ""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ""
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for n in names:
            if n.split(".")[0] == "grader":
                return "import %s" % n
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            low = node.value.lower()
            if len(low) < 300 and any(word in low for word in _GRADER_WORDS):
                return repr(node.value)
    return ""
