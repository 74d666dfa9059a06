"""The fast ways of the similarity pass give what the plain ways give.

``similarity.scanning.scan`` against ``similarity.tokens.normalize`` (the tokens, the functions, whether
the source was cut short, what names the grader), the hashes and the winnowing against
their definitions, and the index of ``similar_pairs`` against comparing every pair by
the rules of ``similarity.shares``.
"""

from __future__ import annotations

import itertools
import random
import sys
import zlib
from array import array
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.engine.similarity import classpass, scanning, shares, winnowing
from grader.engine.similarity import tokens as simtokens

ROOT = Path(__file__).resolve().parent.parent


def same_as_normalize(source: str) -> bool:
    """Whether ``scan`` gives what ``normalize`` gives, or leaves it to ``normalize``."""
    found = scanning.scan(source)
    if found is None:
        return False
    plain = simtokens.normalize(source)
    assert found[0] == list(plain.tokens)
    assert found[1] == list(plain.units)
    assert found[2] == plain.truncated
    assert found[3] == plain.refers
    return True


def sources() -> list[str]:
    files = sorted(
        p for p in ROOT.rglob("*.py") if ".venv" not in p.parts and ".nox" not in p.parts
    )
    return [p.read_text(encoding="utf-8", errors="replace") for p in files]


def test_scan_gives_the_tokens_of_normalize_for_every_module_of_the_repository() -> None:
    texts = sources()
    assert len(texts) > 300
    taken = [same_as_normalize(t) for t in texts]
    # Every one of them is scanned (none is left to normalize).
    assert all(taken)


def test_scan_gives_the_tokens_of_normalize_for_a_class_and_its_copies() -> None:
    sys.path.insert(0, str(ROOT / "tests"))
    import bench_similar

    modules, _, _ = bench_similar.calibration_class(60, 3)
    assert all(same_as_normalize(source) for _, source in modules)


# Pieces of Python, valid or not, that the two ways must cut the same: names of every
# kind, brackets, strings (also unterminated and across lines), comments, tabs, line
# continuations, characters beyond ASCII in and out of strings, statements that do
# nothing, definitions, attributes assigned, a reference to the grader.
PIECES = [
    "x", "self", "rows", ".", "=", "==", "+=", "(", ")", "[", "]", "{", "}", ",", ";", ":",
    "\n", "\n    ", "\n\t", "\n        ", "\r\n", " ", "  ", "'s'", '"t"', "'''doc\nmore'''",
    '"""d"""', "# c\n", "#'q\n", "\\\n", "\\", "def", "class", "async", "f", "1", "2.5",
    "1e-5", "None", "True", "pass", "return", "import", "from", "grader", "'oracle.py'",
    "é", "변수", "\xa0", "\u3000", "²x", "S", "V", "_junk", "lambda", "if", "not", "print",
    "len", "'unterminated", '"a\\\nb"', "\x1c", "@", "...", "*", "-", "f'{x}'", "b'\\x00'",
    "math", "sqrt", "append",
]  # fmt: skip


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(PIECES), max_size=120))
def test_scan_gives_the_tokens_of_normalize_for_any_text(pieces: list[str]) -> None:
    source = "".join(pieces)
    if not same_as_normalize(source):
        # Left to normalize only where it keeps a depth of brackets scan cannot.
        assert ")" in source or "]" in source or "}" in source or "\0" in source


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_scan_gives_the_tokens_of_normalize_for_a_module_changed_anywhere(
    data: st.DataObject,
) -> None:
    texts = [
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "tests" / "corpus" / "right").glob("*.py"))
    ]
    text = list(data.draw(st.sampled_from(texts)))
    for _ in range(data.draw(st.integers(1, 6))):
        at = data.draw(st.integers(0, len(text)))
        if data.draw(st.booleans()) and text:
            del text[min(at, len(text) - 1)]
        else:
            text.insert(at, data.draw(st.sampled_from(PIECES)))
    same_as_normalize("".join(text))


def test_scan_of_a_huge_or_deep_module() -> None:
    assert same_as_normalize("x = (" * 300_000)
    assert same_as_normalize("[" * 50_000 + "]" * 50_000 + "\n" + "y = 1\n" * 70_000)
    assert scanning.scan(")" * 1000) is None  # closed at depth 0: normalize's way


def packed(tokens: list[str]) -> bytes:
    return array("I", [zlib.crc32(t.encode()) | 1 for t in tokens]).tobytes()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["V", "=", "(", ")", ";", ">", "<", "1", "S", "x" * 40]), max_size=400)
)
def test_the_hash_of_a_run_is_the_crc_of_its_packed_codes(tokens: list[str]) -> None:
    k, size = winnowing.K, array("I").itemsize
    codes = packed(tokens)
    want = [zlib.crc32(codes[i * size : (i + k) * size]) for i in range(len(tokens) - k + 1)]
    assert winnowing.grams(tokens) == want


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 2**32 - 1) | st.integers(0, 5), max_size=300),
    st.integers(1, 20),
)
def test_winnowing_keeps_the_smallest_of_every_window(hashes: list[int], w: int) -> None:
    want = {min(hashes[i : i + w]) for i in range(max(1, len(hashes) - w + 1))} if hashes else set()
    assert winnowing._winnowed(hashes, w) == want


def test_the_fingerprints_of_a_module_by_function_are_those_of_its_runs() -> None:
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    found = simtokens.normalize(source)
    hashes = winnowing.grams(found.tokens)
    kept = {min(hashes[i : i + winnowing.W]) for i in range(len(hashes) - winnowing.W + 1)}
    module, units = winnowing.winnow_units(found)
    assert module == kept
    for name, mine in units:
        starts = [i for i, (first, n) in enumerate(found.units) if n == name]
        runs = set()
        for i in starts:
            last = found.units[i + 1][0] if i + 1 < len(found.units) else len(hashes)
            runs |= set(hashes[found.units[i][0] : last])
        assert mine == kept & runs
    assert classpass.module_prints(source)[:2] == (module, units)


def every_pair_by_the_rules(prints: list[classpass.Fingerprint]) -> list[classpass.Match]:
    """``similar_pairs`` by its rules, pair by pair: a pair that shares a fingerprint
    held by at most ``common_limit`` modules (and by more than one) is compared; one
    of identical modules is always listed."""
    held = Counter(h for p in prints for h in p.hashes)
    limit = shares.common_limit(len(prints))
    few = shares.few_limit(len(prints))
    units = [sum(1 for n, u in p.units if n and len(u) >= shares.FUNCTION_MIN) for p in prints]
    found = []
    for i, j in itertools.combinations(range(len(prints)), 2):
        a, b = prints[i], prints[j]
        if a.hashes == b.hashes and len(a.hashes) >= shares.MIN_SHARED:
            found.append(shares._match(a, b, len(a.hashes)))
            continue
        shared = a.hashes & b.hashes
        if not any(1 < held[h] <= limit for h in shared):
            continue
        n = len(shared)
        scarce = sum(1 for h in shared if 1 < held[h] <= few)
        by_units = scarce >= shares.MIN_SHARED * shares.FUNCTION_SHARE / 2 and (
            max(units[i], units[j]) >= shares.MIN_FUNCTIONS
        )
        if n < shares.MIN_SHARED:
            continue
        if n / min(len(a.hashes), len(b.hashes)) >= shares.THRESHOLD or by_units:
            m = shares._match(a, b, n)
            if shares.flagged(m):
                found.append(m)
    found.sort(key=lambda m: (-m.score, -m.shared, m.a, m.b))
    return found


@pytest.mark.parametrize("seed", range(6))
def test_the_index_flags_what_the_rules_flag(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # A small class with small limits, so that every way through the index is taken:
    # common fingerprints, rare and scarce ones, copies of functions, identical modules.
    monkeypatch.setattr(shares, "COMMON_AT_LEAST", 6)
    monkeypatch.setattr(shares, "COMMON_IN_BIG", 6)
    monkeypatch.setattr(shares, "FEW_AT_LEAST", 3)
    rng = random.Random(seed)
    blocks = [[rng.getrandbits(32) for _ in range(rng.randrange(8, 40))] for _ in range(30)]
    prints = []
    for i in range(40):
        parts = rng.sample(range(len(blocks)), rng.randrange(3, 9))
        units = tuple(
            ("f%d" % b, frozenset(h for h in blocks[b] if rng.random() < 0.9)) for b in parts
        )
        hashes = frozenset().union(*(u for _, u in units)) | {rng.getrandbits(32) for _ in range(5)}
        prints.append(classpass.Fingerprint("s%02d" % i, hashes, len(hashes), "", units))
    for k in rng.sample(range(40), 3):
        prints[k] = classpass.Fingerprint("t%02d" % k, prints[0].hashes, 1, "", prints[0].units)

    # Copies of a few functions: too little of either module to be flagged on shares.
    def fresh(n: int) -> tuple[str, frozenset[int]]:
        return "g%d" % rng.getrandbits(20), frozenset(rng.getrandbits(32) for _ in range(n))

    for k in range(3):
        taken = [fresh(30) for _ in range(4)]
        for name, own in (("victim%d" % k, 6), ("copier%d" % k, 9)):
            units = tuple(taken) + tuple(fresh(30) for _ in range(own))
            hashes = frozenset().union(*(u for _, u in units))
            prints.append(classpass.Fingerprint(name, hashes, len(hashes), "", units))
    assert len(prints) > shares.common_limit(len(prints))
    found = classpass.similar_pairs(prints)
    assert found == every_pair_by_the_rules(prints)
    assert len(found) >= 6
    assert sum(1 for m in found if m.by == "functions") >= 3
