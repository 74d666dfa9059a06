"""Claims the markdown report makes about known quantities without a report key.

Besides the figures written next to a report key (``figures``), three kinds of
statement are checked, on every line outside code, with or without backticks:

``constant``  a constant of the module named with its value: ``DIM = 64``,
              ``VOCAB: 512`` (``VOCAB``, ``DIM``, ``SEED``, ``PROBE``, ``K``,
              ``STRETCH_FACTOR``, ``VOCAB_FACTOR``; the separator ``=``, ``==``, ``:``
              or ``≈``), compared with the fixed constants of step 8;
``root``      a square root with its value: ``√64 = 8``, ``√d = 8``, ``√DIM ≈ 8.0``,
              ``sqrt(3) = 1.732`` (``d``, ``dim`` and ``DIM`` are 64); the value agrees
              when it is within the tolerance, or is the root rounded to the decimals
              written;
``product``   a product of whole numbers or constants with its result:
              ``512 × 64 = 32768``, ``VOCAB * DIM = 32,768``, ``5 · 3 = 15``.

A statement that is part of a longer formula (an operator right before it, or after
its value) is not read, and no other number in the prose is: "the table has 777
rows" is not checked.  Numbers longer than ``MAX_NUMBER`` characters and products of
more than :data:`MAX_TERMS` terms are not read, so reading stays linear in the line.
"""

from __future__ import annotations

import math
import re

from grader.engine.frozen import frozen
from grader.labs.embed.contract import CONSTANTS, PROBE, STRETCH_FACTOR, VOCAB_FACTOR, K
from grader.labs.embed.reports.findings import MAX_NUMBER, _close

KNOWN: dict[str, float] = {
    **CONSTANTS,
    "PROBE": PROBE,
    "K": K,
    "STRETCH_FACTOR": STRETCH_FACTOR,
    "VOCAB_FACTOR": VOCAB_FACTOR,
}
DIM_NAMES = ("d", "dim", "DIM")
MAX_TERMS = 8
_NAME = "|".join(sorted(KNOWN, key=len, reverse=True))
_NUM = r"[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_INT = r"(?:\d{1,3}(?:,\d{3})+|\d+)"
_EQ = r"[ \t]*(?:==|=|≈|:)[ \t]*"
_TIMES = r"[ \t]*[×*·][ \t]*"
_CONSTANT = re.compile(r"(?<![A-Za-z0-9_.])(%s)(?![A-Za-z0-9_])%s(%s)" % (_NAME, _EQ, _NUM))
_ROOT = re.compile(
    r"(?:√[ \t]*\(?|sqrt\()[ \t]*(\d+(?:\.\d+)?|%s)[ \t]*\)?%s(%s)"
    % ("|".join(DIM_NAMES), r"[ \t]*(?:==|=|≈)[ \t]*", _NUM)
)
_TERM = r"(?:%s|%s)" % (_INT, _NAME)
_PRODUCT = re.compile(
    r"(?<![A-Za-z0-9_.,])(%s(?:%s%s){1,%d})[ \t]*=[ \t]*(%s)"
    % (_TERM, _TIMES, _TERM, MAX_TERMS - 1, _INT)
)
_BULLET = re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+")
_OPERATOR_BEFORE = re.compile(r"[×*/÷·+−\-^][ \t]*$")
_OPERATOR_AFTER = re.compile(r"^[ \t]*[×*/÷·+−^]|^[ \t]*-[ \t]*[\d(]")


@frozen
class Claim:
    """A statement about a known quantity: what it says and what is true."""

    kind: str  # "constant", "root" or "product"
    written: str  # the statement as written
    truth: str  # the statement as it is true
    ok: bool
    start: int
    end: int


def _number(text: str) -> float:
    return float(text.replace("−", "-").replace(",", ""))


def _show(x: float) -> str:
    if float(x).is_integer():
        return "%d" % x
    return "%.6g" % x


def _decimals(written: str) -> int:
    return len(written.split(".")[1]) if "." in written else 0


def _in_formula(line: str, start: int, end: int) -> bool:
    return bool(_OPERATOR_BEFORE.search(line[:start]) or _OPERATOR_AFTER.match(line[end:]))


def claims_in(line: str) -> list[Claim]:
    """The claims stated on one line (see the module docstring)."""
    shown = line
    line = line.replace("`", " ")  # `DIM` = 64 says what DIM = 64 says
    line = _BULLET.sub(lambda m: " " * len(m.group(0)), line)  # a list's "-" is no minus
    found: list[Claim] = []
    taken: list[tuple[int, int]] = []
    for match in _PRODUCT.finditer(line):
        terms_text, result = match.group(1), match.group(2)
        if _in_formula(line, match.start(), match.end()) or len(result) > MAX_NUMBER:
            continue
        terms = [t.strip() for t in re.split(_TIMES, terms_text)]
        if any(len(t) > MAX_NUMBER for t in terms):
            continue
        values = [KNOWN[t] if t in KNOWN else _number(t) for t in terms]
        if any(not float(v).is_integer() for v in values):
            continue
        product = math.prod(int(v) for v in values)
        truth = "%s = %d" % (" × ".join(terms), product)
        ok = product == int(_number(result))
        found.append(
            Claim(
                "product", shown[match.start() : match.end()], truth, ok, match.start(), match.end()
            )
        )
        taken.append((match.start(), match.end()))
    for match in _ROOT.finditer(line):
        of, value = match.group(1), match.group(2)
        if _in_formula(line, match.start(), match.end()) or len(value) > MAX_NUMBER:
            continue
        radicand = float(CONSTANTS["DIM"]) if of in DIM_NAMES else float(of)
        root = math.sqrt(radicand)
        got = _number(value)
        ok = _close(got, root) or round(root, _decimals(value)) == got
        truth = "√%s = %s" % (of, _show(root))
        found.append(
            Claim("root", shown[match.start() : match.end()], truth, ok, match.start(), match.end())
        )
        taken.append((match.start(), match.end()))
    for match in _CONSTANT.finditer(line):
        if any(a <= match.start() < b for a, b in taken):
            continue
        name, value = match.group(1), match.group(2)
        if _in_formula(line, match.start(), match.end()) or len(value) > MAX_NUMBER:
            continue
        truth = "%s = %s" % (name, _show(KNOWN[name]))
        ok = _number(value) == KNOWN[name]
        found.append(
            Claim(
                "constant",
                shown[match.start() : match.end()],
                truth,
                ok,
                match.start(),
                match.end(),
            )
        )
    return sorted(found, key=lambda c: c.start)
