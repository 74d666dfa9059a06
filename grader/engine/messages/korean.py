"""Korean particles chosen by the sound of the word they follow.

A Korean particle changes with the last sound of the word before it: ``norm`` ends in
a consonant (``norm은``, ``norm을``, ``norm으로``), ``shape`` in a vowel (``shape는``,
``shape를``, ``shape로``), and ``로`` follows an ``ㄹ`` too (``table로``).  A catalogue
writes a particle that follows a value it does not know as both forms, the way Korean
software does (``{fn}을(를)``, ``{seed}(으)로``); :func:`resolve` picks the one that
fits the text before it.  Latin words are read the way Korean reads loanwords,
numbers the way they are spoken; what cannot be read keeps both forms.

This module imports the standard library only (the child never needs it, but the
messages package stays stdlib-only).
"""

from __future__ import annotations

import re

# Both forms as catalogues write them: (after a consonant, after a vowel).
PAIRS = {
    "은(는)": ("은", "는"),
    "이(가)": ("이", "가"),
    "을(를)": ("을", "를"),
    "과(와)": ("과", "와"),
    "(으)로": ("으로", "로"),
    "(이)다": ("이다", "다"),
}
MARKER = re.compile("|".join(re.escape(m) for m in PAIRS))

NONE, CONSONANT, RIEUL = "none", "consonant", "rieul"  # what a word ends with

# How the last digit of a number is read (이천이십육: 육), and a final 0 (십, 백, 천, 만, 영).
_DIGITS = {
    "0": CONSONANT,
    "1": RIEUL,
    "2": NONE,
    "3": CONSONANT,
    "4": NONE,
    "5": NONE,
    "6": CONSONANT,
    "7": RIEUL,
    "8": RIEUL,
    "9": NONE,
}
# Letters read by their names (an acronym, a single letter): 엘, 엠, 엔, 알 end in a consonant.
_LETTER_NAMES = {"l": RIEUL, "m": CONSONANT, "n": CONSONANT, "r": RIEUL}
# Words whose reading the rules below get wrong.
_WORDS = {
    "json": CONSONANT,  # 제이슨
    "type": CONSONANT,  # 타입
    "id": NONE,  # 아이디
    "ids": NONE,
    "rms": NONE,  # 알엠에스
    "nan": CONSONANT,  # 난
    "inf": NONE,  # 인프
    "md": NONE,
    "py": NONE,
    "csv": NONE,
    "html": RIEUL,
    "utf": NONE,
    "sqrt": NONE,  # 스퀘어루트
    "gpt": NONE,
}
_VOWELS = "aeiouy"


def ending(text: str) -> str | None:
    """What the last word of ``text`` ends with when read aloud, or None if unknown.

    Closing brackets, quotes and backticks are looked through: ``random()`` is read
    as ``random``, ``(0, 0)`` as its last 0.
    """
    stripped = text.rstrip(" `'\"()[]{}<>.,:;!?…*_")
    if not stripped:
        return None
    last = stripped[-1]
    if "가" <= last <= "힣":
        final = (ord(last) - ord("가")) % 28
        return NONE if final == 0 else RIEUL if final == 8 else CONSONANT
    if last.isdigit():
        return _DIGITS.get(last)
    match = re.search(r"[A-Za-z]+$", stripped)
    if match is None:
        return None
    return _latin(match.group())


def _latin(word: str) -> str:
    lower = word.lower()
    if lower in _WORDS:
        return _WORDS[lower]
    if len(word) == 1 or (word.isupper() and not any(c in "AEIOU" for c in word)):
        return _LETTER_NAMES.get(lower[-1], NONE)  # read letter by letter
    if lower.endswith(("m", "n", "ng")):
        return CONSONANT
    if lower.endswith(("l", "le")):
        return RIEUL  # table, bool
    if lower.endswith(("me", "ne")):
        return CONSONANT  # time, cosine
    if lower.endswith("ck"):
        return CONSONANT  # stack
    # A short vowel before a final p, t, k (c) or b is read as a final consonant (dot,
    # lookup, vec, vocab); after a long vowel or another consonant it is not (float, int).
    if (
        len(lower) >= 2
        and lower[-1] in "ptkcb"
        and lower[-2] in _VOWELS
        and (len(lower) == 2 or lower[-3] not in _VOWELS)
    ):
        return CONSONANT
    return NONE


def particle(before: str, marker: str) -> str:
    """The form of ``marker`` (``을(를)``, ...) that fits after ``before``."""
    end = ending(before)
    if end is None:
        return marker
    after_consonant, after_vowel = PAIRS[marker]
    if marker == "(으)로":
        return after_consonant if end == CONSONANT else after_vowel
    return after_vowel if end == NONE else after_consonant


def resolve(text: str, before: str = "") -> str:
    """``text`` with each particle written in both forms replaced by the one that fits
    the words before it (``before`` is what precedes ``text``)."""
    out: list[str] = []
    at = 0
    for match in MARKER.finditer(text):
        out.append(text[at : match.start()])
        out.append(particle(before + "".join(out), match.group()))
        at = match.end()
    out.append(text[at:])
    return "".join(out)
