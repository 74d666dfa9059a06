"""The tokens of ``tokens.normalize`` for the similarity pass of a class, sooner.

``normalize`` goes through a module token by token and line by line, and says on which
line each token is (the pair pages need that).  The pass over a class needs only the
normalised tokens and the functions they are in, for thousands of modules: ``scan``
gives exactly those of ``normalize`` (``tests/test_similar_fast.py`` holds it to that
on every module of the repository, on generated ones and on any text made of pieces
of Python) and leaves the work on each token to ``str``, ``bytes`` and ``list``
methods:

- the regular expression takes ASCII classes of characters (faster than Unicode ones);
  a character beyond ASCII outside strings and comments sends the module back to the
  Unicode expression;
- the depth of brackets at each line break comes from the brackets alone, as bytes;
- what a logical line becomes (strings that follow each other, parentheses that only
  group, trailing commas, whether it does nothing, the rows its tokens add to the
  hashes, ``winnowing.rows``) is kept by its normalised tokens, which the lines of a
  class share a great deal (names are all ``V``), so that each is worked out once.

``scan`` returns None where ``normalize``'s own way is needed: a bracket closed at
depth 0 (``normalize`` keeps the depth at 0 there), a NUL character.  Linear in the
source, as ``normalize`` is; the kept lines are bounded (``_MAX_LINES``).
"""

from __future__ import annotations

import re
from array import array
from itertools import accumulate, chain, compress

from grader.engine.similarity import tokens as st
from grader.engine.similarity.winnowing import rows

_WORD = "A-Za-z0-9_"
_SPACE = r" \t\n\r\f\v\x1c-\x1f"  # what Unicode counts as space among ASCII characters
# ``tokens._TOKEN`` with ASCII classes: the same tokens as long as every character
# beyond ASCII is in a string or a comment.
_TOKEN = re.compile(
    r"\n[ \t\f]*"
    r"|[%s]+"
    r"|\\\r?\n"
    r"|[^%s%s'\"#]"
    r"|#[^\n]*"
    r"|'''.*?(?:'''|\Z)"
    r'|""".*?(?:"""|\Z)'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?' % (_WORD, _WORD, _SPACE),
    re.DOTALL,
)
_NOT_STRUCTURE = bytes(c for c in range(256) if chr(c) not in "()[]{}\n;")
_DEPTH = bytes.maketrans(b"([{)]}\n;", bytes([1, 1, 1, 255, 255, 255, 0, 0]))
_BREAK = bytes.maketrans(b"([{)]}\n;", bytes([0, 0, 0, 0, 0, 0, 1, 1]))
_DROP = frozenset({"\n", "#", "\\"})  # line breaks within brackets, comments, backslashes
_DEF = frozenset({"def", "class"})
_IMPORT = frozenset({"import", "from"})
# What a line of normalised tokens becomes: its tokens, and whether it is kept
# (_KEPT), dropped (()), or dropped when its first name is used nowhere else (_ONCE).
_KEPT, _ONCE = 1, 2
_LINES: dict[tuple[str, ...], tuple[tuple[str, ...], int, str, bytes]] = {}
_MAX_LINES = 200_000
_INDENT: dict[str, int] = {}


def _indent(t: str) -> int:
    found = _INDENT.get(t)
    if found is None:
        found = len(t) - 1 if "\t" not in t else len(t[1:].expandtabs(8))
        if len(_INDENT) < 10_000:
            _INDENT[t] = found
    return found


def _positions(items: list[str], value: str) -> list[int]:
    """Where ``value`` is in ``items``, in order."""
    found: list[int] = []
    add = found.append
    index = items.index
    i = -1
    try:
        while True:
            i = index(value, i + 1)
            add(i)
    except ValueError:
        return found


def _normalised(raw: list[str]) -> tuple[list[str], int]:
    """The normal form of each token (comments "#", line breaks "\\n"), and how many
    bytes more than characters the strings and comments take in UTF-8."""
    norm: list[str | None] = list(map(st._NORMAL.get, raw))
    wide = 0
    if None in norm:
        index = norm.index
        i = -1
        try:
            while True:
                i = index(None, i + 1)
                t = raw[i]
                c = t[0]
                if c == "#" or c == "'" or c == '"':
                    norm[i] = "#" if c == "#" else "S"
                    if not t.isascii():
                        wide += len(t.encode("utf-8", "surrogatepass")) - len(t)
                else:
                    norm[i] = st._normal(t)
        except ValueError:
            pass
    return norm, wide  # type: ignore[return-value]


def _line(seg: tuple[str, ...]) -> tuple[tuple[str, ...], int, str, bytes]:
    """What a logical line of normalised tokens becomes (see ``tokens.normalize``):
    its tokens and the ";" that ends it, whether it is kept, "def" or "class" when it
    opens one, and the rows of its tokens (``winnowing.rows``)."""
    out = list(seg)
    if "S" in out and out.count("S") > 1:
        out = st._one_string(out)
    if "(" in out and st._groups(out):
        out = st._no_grouping(out)
    if "," in out and st._trailing_comma(out):
        out = st._no_trailing_commas(out)
    if st._INERT.issuperset(out):
        return (), 0, "", b""
    kind = _KEPT
    if len(out) > 2 and out[0] == "V" and out[1] == "=" and out[2] != "=":
        if all(t in st._INERT or t[0].isdigit() for t in out[2:]):
            kind = _ONCE
    elif out[0][0].isdigit() and all(t in st._INERT or t[0].isdigit() for t in out):
        return (), 0, "", b""
    head = out[1] if out[0] == "async" and len(out) > 1 else out[0]
    body = (*out, ";")
    return body, kind, head if head in _DEF else "", rows(body)


def _once(source: str, raw: list[str], name: str, at: int) -> bool:
    """Whether ``name`` (at ``at``) is in ``raw`` once only (surely when the source
    holds its text once)."""
    if source.count(name) == 1:
        return True
    try:
        raw.index(name, at + 1)
    except ValueError:
        try:
            raw.index(name, 0, at)
        except ValueError:
            return True
    return False


def scan(source: str) -> tuple[list[str], list[tuple[int, str]], bool, str] | None:
    """The normalised tokens of ``source``, where each function starts (``units``),
    whether the source was cut short and what names the grader's files: those of
    ``tokens.normalize``; None when ``normalize`` is needed."""
    found = _scan(source)
    if found is None:
        return None
    parts, _, units, truncated, refers = found
    return list(chain.from_iterable(parts)), units, truncated, refers


def scan_rows(source: str) -> tuple[bytes, int, list[tuple[int, str]], bool, str] | None:
    """As ``scan``, the rows of the tokens (``winnowing.rows``) instead of the tokens,
    and how many tokens there are."""
    found = _scan(source)
    if found is None:
        return None
    parts, laid, units, truncated, refers = found
    return b"".join(laid), sum(map(len, parts)), units, truncated, refers


def _scan(
    source: str,
) -> tuple[list[tuple[str, ...]], list[bytes], list[tuple[int, str]], bool, str] | None:
    if "\0" in source:
        return None
    raw = _TOKEN.findall(source)
    norm, wide = _normalised(raw[: st.MAX_TOKENS])
    if not source.isascii() and wide != len(source.encode("utf-8", "surrogatepass")) - len(source):
        # A character beyond ASCII outside strings and comments: Unicode classes.
        raw = st._TOKEN.findall(source)
        norm = _normalised(raw[: st.MAX_TOKENS])[0]
    truncated = len(raw) > st.MAX_TOKENS
    if truncated:
        raw = raw[: st.MAX_TOKENS]
    joined = "".join(norm)
    structure = joined.encode("utf-8", "surrogatepass").translate(None, _NOT_STRUCTURE)
    steps = array("b")
    steps.frombytes(structure.translate(_DEPTH))
    depth = list(accumulate(steps))
    if depth and min(depth) < 0:
        return None  # a bracket closed at depth 0: normalize keeps the depth at 0
    breaks = _positions(norm, "\n")
    if ";" in joined:
        breaks = sorted(breaks + _positions(norm, ";"))
    # Logical lines: (indentation, first token, end, whether tokens are left out).
    lines: list[tuple[int, int, int, bool]] = []
    add = lines.append
    first = indent = 0
    left_out = (
        sorted(_positions(norm, "#") + _positions(norm, "\\"))
        if ("#" in joined or "\\" in joined)
        else []
    )
    left_out.append(len(norm))
    k = 0
    inner = False
    for p, d in zip(breaks, compress(depth, structure.translate(_BREAK))):
        if d:
            if norm[p] == "\n":
                inner = True
            continue
        if first < p:
            if left_out[k] < p:
                inner = True
                while left_out[k] < p:
                    k += 1
            add((indent, first, p, inner))
        inner = False
        first = p + 1
        if norm[p] == "\n":
            indent = _indent(raw[p])
    if first < len(norm):
        add((indent, first, len(norm), inner or left_out[k] < len(norm)))
    own = _own(lines, norm, raw) if "." in joined else {}
    parts, laid, units = _tokens(source, lines, norm, raw, own)
    refers = ""
    low = source.lower()
    if "grader" in low or "oracle" in low or "-packages" in low:
        heads = [_toks(x, norm, raw) if x[3] else raw[x[1] : x[1] + 1] for x in lines]
        imports = [
            (0, 0, _toks(x, norm, raw)) for x, h in zip(lines, heads) if h and h[0] in _IMPORT
        ]
        refers = st._refers(source, raw, imports)
    return parts, laid, units, truncated, refers


def _toks(line: tuple[int, int, int, bool], norm: list[str], raw: list[str]) -> list[str]:
    """The raw tokens of a logical line."""
    _, first, end, left_out = line
    if not left_out:
        return raw[first:end]
    return [r for r, t in zip(raw[first:end], norm[first:end]) if t not in _DROP]


def _own(
    lines: list[tuple[int, int, int, bool]], norm: list[str], raw: list[str]
) -> dict[str, str]:
    """What the module defines that may follow a dot (``tokens._own_names``)."""
    own: dict[str, str] = {}
    dots = _positions(norm, ".")
    dots.append(len(norm))
    k = 0
    keep = st._KEEP
    for line in lines:
        _, first, end, left_out = line
        dotted = dots[k] < end
        if dotted:
            while dots[k] < end:
                k += 1
        if left_out:
            toks = _toks(line, norm, raw)
            if len(toks) < 2:
                continue
            head, nxt = toks[0], toks[1]
        else:
            if end - first < 2:
                continue
            head, nxt = raw[first], raw[first + 1]
        if head == "def" or head == "class":
            own[nxt] = "V"
        elif nxt == "=" or nxt == ":":
            own[head] = "V"
        elif dotted and head not in keep:
            toks = _toks(line, norm, raw)
            if "=" in toks:
                lhs = toks[: toks.index("=")]
                for j in range(len(lhs) - 1):
                    if lhs[j] == ".":
                        own[lhs[j + 1]] = "V"
    for name in keep.intersection(own):
        del own[name]
    return own


def _tokens(
    source: str,
    lines: list[tuple[int, int, int, bool]],
    norm: list[str],
    raw: list[str],
    own: dict[str, str],
) -> tuple[list[tuple[str, ...]], list[bytes], list[tuple[int, str]]]:
    """The module's tokens from its logical lines, as ``tokens.normalize`` puts them
    together, in parts, with their rows; and the units (first token, function) that
    hold any."""
    known = _LINES
    if len(known) > _MAX_LINES:
        known.clear()
    parts: list[tuple[str, ...]] = []
    laid: list[bytes] = []
    count = 0
    units: list[tuple[int, str]] = [(0, st.MODULE_UNIT)]
    levels = [0]
    level = 0
    # (indentation, qualified name, the function its lines are in) of each open block
    scope: list[tuple[int, str, str]] = []
    top = -1  # the indentation of the innermost open block
    unit = st.MODULE_UNIT
    for line in lines:
        indent, first, end, left_out = line
        seg = [t for t in norm[first:end] if t not in _DROP] if left_out else norm[first:end]
        toks = None
        if "." in seg:
            toks = _toks(line, norm, raw)
            st._after_dots(seg, toks, own)
        key = tuple(seg)
        found = known.get(key)
        if found is None:
            found = known[key] = _line(key)
        body, kind, head, laid_body = found
        if kind != _KEPT:
            if not kind:
                continue
            if toks is None:
                toks = _toks(line, norm, raw)
            if _once(source, raw, toks[0], first if not left_out else raw.index(toks[0], first)):
                continue
        moved = False
        if indent <= top:
            while scope and scope[-1][0] >= indent:
                scope.pop()
            top = scope[-1][0] if scope else -1
            moved = True
        if indent != level:
            if indent > level:
                levels.append(indent)
                parts.append(_IN)
                laid.append(_IN_ROWS)
                count += 1
            else:
                while len(levels) > 1 and indent < levels[-1]:
                    levels.pop()
                    parts.append(_OUT)
                    laid.append(_OUT_ROWS)
                    count += 1
            level = levels[-1]
        if head:
            if toks is None:
                toks = _toks(line, norm, raw)
            at = 2 if toks[0] == "async" else 1
            name = toks[at] if at < len(toks) else ""
            qualified = scope[-1][1] + "." + name if scope else name
            inner = qualified if head == "def" else (scope[-1][2] if scope else st.MODULE_UNIT)
            scope.append((indent, qualified, inner))
            top = indent
            moved = True
        if moved:
            name = scope[-1][2] if scope else st.MODULE_UNIT
            if name != unit:
                unit = name
                units.append((count, unit))
        parts.append(body)
        laid.append(laid_body)
        count += len(body)
    # A unit that holds no token is no unit.
    ends = [u[0] for u in units[1:]] + [count]
    return parts, laid, [u for u, e in zip(units, ends) if e > u[0]]


_IN, _OUT = (">",), ("<",)
_IN_ROWS, _OUT_ROWS = rows(_IN), rows(_OUT)
