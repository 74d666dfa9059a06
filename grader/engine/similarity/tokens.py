"""Python source to the normalised tokens the similarity pass compares, by function.

One regular expression cuts the source into tokens (no ``tokenize``, no ``ast``: a
class of 10,000 modules is read in seconds, and a module that is not valid Python is
still read).  Comments, docstrings and layout are dropped, and every name the student
chose becomes one placeholder ``V``: keywords, builtins and the attributes of imported
modules (``math.sqrt``) stay.  A name after a dot becomes ``V`` too when the module
itself defines it (a ``def`` or ``class`` name, an attribute it assigns, ``self.rows =``),
so renaming methods and attributes hides nothing either.

Statements that do nothing are dropped: a line that is only names, constants or
strings (``x``, ``0``, ``...``, a docstring), ``pass``, and an assignment of a
constant to a name used nowhere else (``_junk = 1``).  Each token is counted in the
function (``def``) it is written in, or in the module's own lines: ``units`` lists
where each one starts, so that a copy of a few functions can be told apart.

The same pass finds what in the source points at the grader's own files (an import
of ``grader``, a short string naming ``oracle.py`` or ``site-packages``): ``refers``.

Bounded: only the first ``MAX_TOKENS`` tokens are read; the work is linear in them.
"""

from __future__ import annotations

import bisect
import builtins
import keyword
import re
from collections import Counter

from grader.engine.frozen import frozen

MAX_TOKENS = 200_000
MODULE_UNIT = ""  # the unit of the lines outside every function

_TOKEN = re.compile(
    r"\n[ \t\f]*"
    r"|\w+"
    r"|\\\r?\n"
    r"|[^\w\s'\"#]"
    r"|#[^\n]*"
    r"|'''.*?(?:'''|\Z)"
    r'|""".*?(?:"""|\Z)'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'?"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?',
    re.DOTALL,
)
# What may follow a dot and be the module's own: what it defines and assigns.
_DEFINES = re.compile(
    r"\b(?:def|class)\s+(\w+)"
    r"|\.[ \t]*(\w+)[ \t]*(?:[-+*/%&|^@]|//|\*\*|>>|<<)?=(?!=)"
    r"|^[ \t]*(\w+)[ \t]*(?::|=(?!=))",
    re.MULTILINE,
)
_KEYWORDS = frozenset(keyword.kwlist) - {"None", "True", "False"}
_KEEP = frozenset(dir(builtins)) | frozenset(keyword.kwlist) | {"match", "case"}
# A statement of only these (and names, numbers, strings) does nothing.
_INERT = frozenset({"None", "True", "False", "pass", "...", ",", "V", "S", "."})
_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")
_QUOTES = frozenset("'\"")
# Normalised forms of the tokens seen so far (not strings): names, numbers, operators.
_NORMAL: dict[str, str] = {}


@frozen
class Tokens:
    """A module's normalised tokens; ``starts``: (first token, source line) of each
    line, in order (``line``: the source line of a token); ``units``: (first token,
    qualified function name) in order, ``""`` for module lines."""

    tokens: tuple[str, ...]
    starts: tuple[tuple[int, int], ...]
    units: tuple[tuple[int, str], ...]
    truncated: bool = False
    refers: str = ""  # what in the source points at the grader's files ("" when nothing does)

    def line(self, token: int) -> int:
        """The source line token ``token`` is on."""
        k = bisect.bisect_right(self.starts, (token, 1 << 62)) - 1
        return self.starts[k][1] if k >= 0 else 1


def _normal(t: str) -> str:
    """The normalised form of a token: a line break with its indentation is ``"\\n"``,
    a comment ``"#"``, a string ``"S"``, a name the student chose ``"V"``."""
    found = _NORMAL.get(t)
    if found is not None:
        return found
    c = t[0]
    if c in _QUOTES or (len(t) > 1 and t[1] in _QUOTES):
        return "S"  # strings are not kept: each is new
    if c == "\n":
        found = "\n"
    elif c == "#":
        return "#"
    elif c == "\\" and len(t) > 1:
        found = "\\"
    elif c.isalpha() or c == "_" or ord(c) > 127:
        found = "V" if t not in _KEEP else t
    else:
        found = t
    if len(_NORMAL) < 100_000:
        _NORMAL[t] = found
    return found


_ASSIGN_HEAD = frozenset("=+-*/%&|^@<>:")
# The first characters of the tokens that are more than a token of a line.
_SPECIAL = frozenset("\n'\"([{)]}#\\;")


def _logical_lines(raw: list[str]) -> list[tuple[int, int, list[str]]]:
    """(indentation, first source line, tokens) of each logical line, strings as
    they are, comments and line breaks left out."""
    out: list[tuple[int, int, list[str]]] = []
    line = start = 1
    indent = depth = 0
    current: list[str] = []
    add = current.append
    special = _SPECIAL
    for t in raw:
        c = t[0]
        if c not in special:
            add(t)
        elif c == "\n":
            line += 1
            if depth:
                continue
            if current:
                out.append((indent, start, current))
                current = []
                add = current.append
            indent = len(t) - 1 if "\t" not in t else len(t[1:].expandtabs(8))
            start = line
        elif c in _QUOTES:
            add(t)
            if len(t) > 5 and "\n" in t:
                line += t.count("\n")
        elif c in _OPEN:
            depth += 1
            add(t)
        elif c in _CLOSE:
            if depth:
                depth -= 1
            add(t)
        elif c == "#":
            continue
        elif c == "\\":
            if len(t) > 1:
                line += 1
        elif c == ";" and not depth:
            if current:
                out.append((indent, start, current))
                current = []
                add = current.append
        else:
            add(t)
    if current:
        out.append((indent, start, current))
    return out


def _own_names(lines: list[tuple[int, int, list[str]]]) -> dict[str, str]:
    """What the module defines that may follow a dot (``def``/``class`` names, names and
    attributes it assigns at the start of a line), each mapped to ``"V"``."""
    own: dict[str, str] = {}
    for _, _, toks in lines:
        if len(toks) < 2:
            continue
        head, nxt = toks[0], toks[1]
        if head == "def" or head == "class":
            own[nxt] = "V"
        elif nxt == "=" or nxt == ":":
            own[head] = "V"
        elif head not in _KEEP and "=" in toks:
            # Attributes assigned: self.rows = ..., self.a, self.b = ...
            lhs = toks[: toks.index("=")]
            for j in range(len(lhs) - 1):
                if lhs[j] == ".":
                    own[lhs[j + 1]] = "V"
    for name in _KEEP.intersection(own):
        del own[name]
    return own


def normalize(source: str) -> Tokens:
    """The module's normalised tokens, their lines and its functions."""
    raw = _TOKEN.findall(source)
    truncated = len(raw) > MAX_TOKENS
    if truncated:
        raw = raw[:MAX_TOKENS]
    lines = _logical_lines(raw)
    used = Counter(raw)
    own = _own_names(lines)
    out: list[str] = []
    where: list[tuple[int, int]] = []
    units: list[tuple[int, str]] = [(0, MODULE_UNIT)]
    levels = [0]
    # (indentation, qualified name, the function its lines are in) of each open block
    scope: list[tuple[int, str, str]] = []
    unit = MODULE_UNIT
    normal = _NORMAL.get
    for indent, start, toks in lines:
        seg = [normal(t) or _normal(t) for t in toks]
        if "." in seg:
            _after_dots(seg, toks, own)
        if "S" in seg and seg.count("S") > 1:
            seg = _one_string(seg)
        if "(" in seg and _groups(seg):
            seg = _no_grouping(seg)
        if "," in seg and _trailing_comma(seg):
            seg = _no_trailing_commas(seg)
        if _INERT.issuperset(seg) or _does_nothing(seg, toks[0], used):
            continue
        while scope and scope[-1][0] >= indent:
            scope.pop()
        where.append((len(out), start))
        if indent > levels[-1]:
            levels.append(indent)
            out.append(">")
        else:
            while len(levels) > 1 and indent < levels[-1]:
                levels.pop()
                out.append("<")
        head = seg[0]
        if head == "async" and len(seg) > 1:
            head = seg[1]
        if head == "def" or head == "class":
            at = 2 if toks[0] == "async" else 1
            name = toks[at] if at < len(toks) else ""
            qualified = scope[-1][1] + "." + name if scope else name
            inner = qualified if head == "def" else (scope[-1][2] if scope else MODULE_UNIT)
            scope.append((indent, qualified, inner))
        name = scope[-1][2] if scope else MODULE_UNIT
        if name != unit:
            unit = name
            units.append((len(out), unit))
        out += seg
        out.append(";")
    # A unit that holds no token is no unit.
    ends = [u[0] for u in units[1:]] + [len(out)]
    kept = [u for u, e in zip(units, ends) if e > u[0]]
    refers = _refers(source, raw, lines)
    return Tokens(tuple(out), tuple(where), tuple(kept), truncated, refers)


# Parts of a string that point at the grader's own files or modules.
_GRADER_WORDS = ("grader/", "grader\\", "grader.", "oracle.py", "site-packages", "dist-packages")


def _refers(source: str, raw: list[str], lines: list[tuple[int, int, list[str]]]) -> str:
    """What in the source points at the grader: an import of ``grader``, or a short
    string naming its files ("" when nothing does)."""
    low = source.lower()
    if "grader" not in low and "oracle" not in low and "-packages" not in low:
        return ""
    if "import" in source:
        for _, _, toks in lines:
            head = toks[0]
            if head != "import" and head != "from":
                continue
            names = toks[1:]
            for j, t in enumerate(names):
                if t == "grader" and (j == 0 or names[j - 1] == ","):
                    if head == "from":
                        return "import grader"
                    dotted = [t]
                    k = j + 1
                    while k + 1 < len(names) and names[k] == ".":
                        dotted.append(names[k + 1])
                        k += 2
                    return "import " + ".".join(dotted)
                if head == "from":
                    break
    if not any(word in low for word in _GRADER_WORDS):
        return ""
    for t in raw:
        if t[0] in _QUOTES and len(t) < 300:
            text = t.lower()
            if any(word in text for word in _GRADER_WORDS):
                return t
    return ""


def _one_string(seg: list[str]) -> list[str]:
    """Strings written one after the other (``"a" "b"``) are one string."""
    return [t for j, t in enumerate(seg) if t != "S" or j == 0 or seg[j - 1] != "S"]


def _no_grouping(seg: list[str]) -> list[str]:
    """The line without the parentheses that only group (``(a + b) * c``, ``x = (1, 2)``):
    how many a layout adds or drops changes nothing.  Those of a call stay."""
    out: list[str] = []
    kept: list[bool] = []
    for t in seg:
        if t == "(":
            prev = out[-1] if out else ""
            call = (
                prev == ")"
                or prev == "]"
                or (prev[:1].isalpha() or prev[:1] == "_")
                and (prev not in _KEYWORDS)
            )
            kept.append(call)
            if not call:
                continue
        elif t == ")" and kept:
            if not kept.pop():
                continue
        out.append(t)
    return out


def _no_trailing_commas(seg: list[str]) -> list[str]:
    out: list[str] = []
    for t in seg:
        if out and out[-1] == "," and (t == ")" or t == "]" or t == "}"):
            out[-1] = t
        else:
            out.append(t)
    return out


def _does_nothing(seg: list[str], first: str, used: Counter[str]) -> bool:
    """A constant given to a name nothing else uses, or a line of constants alone."""
    if len(seg) > 2 and seg[0] == "V" and seg[1] == "=" and seg[2] != "=":
        if used[first] == 1:
            return all(t in _INERT or t[0].isdigit() for t in seg[2:])
        return False
    return seg[0][0].isdigit() and all(t in _INERT or t[0].isdigit() for t in seg)


def _after_dots(seg: list[str], toks: list[str], own: dict[str, str]) -> None:
    """Names after a dot stay, but those the module defines (``own``)."""
    j = -1
    last = len(seg) - 1
    index = seg.index
    try:
        while True:
            j = index(".", j + 1)
            if j < last and seg[j + 1] == "V":
                name = toks[j + 1]
                seg[j + 1] = own.get(name, name)
    except ValueError:
        return


def _groups(seg: list[str]) -> bool:
    """Whether a parenthesis of the line only groups."""
    j = -1
    index = seg.index
    try:
        while True:
            j = index("(", j + 1)
            prev = seg[j - 1] if j else ""
            if not (
                prev == ")"
                or prev == "]"
                or ((prev[:1].isalpha() or prev[:1] == "_") and prev not in _KEYWORDS)
            ):
                return True
    except ValueError:
        return False


def _trailing_comma(seg: list[str]) -> bool:
    j = -1
    last = len(seg) - 1
    index = seg.index
    try:
        while True:
            j = index(",", j + 1)
            if j < last and seg[j + 1] in _CLOSE:
                return True
    except ValueError:
        return False
