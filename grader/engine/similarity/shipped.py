"""Fingerprints of a lab's reference solution and stub, shipped with the grader.

The similarity pass subtracts the stub's fingerprints (the code every student starts
from) and compares each module with the reference solution.  Both files sit beside the
package in the course's repository, not in an installed grader; so the lab keeps their
winnowed fingerprints in a JSON file of the package (``Lab.prints``), numbers from
which no line of either file can be read back.  The files themselves win when they are
at hand, so flags do not depend on how the grader was installed.

``python -m grader.engine.similarity.shipped [--lab LAB] [--check]`` writes (or compares) that file
from the course's files; ``nox -s exercises`` runs it after regenerating the stub.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from grader.engine.lab import Lab, find

SHIPPED_STUB = "stub"
SHIPPED_REFERENCE = "reference"
# The file keeps the hash of one fixed run of tokens, to tell whether it applies.
_PROBE = tuple("t%d" % i for i in range(1, 13))


def _probe() -> int:
    from grader.engine.similarity.winnowing import grams

    return grams(_PROBE)[0]


def _hashes(path: Path) -> list[int]:
    from grader.engine.similarity.winnowing import normalized_tokens, winnow

    return sorted(winnow(normalized_tokens(path.read_text(encoding="utf-8", errors="replace"))))


def computed(lab: Lab) -> dict[str, object]:
    """The file's content computed from the lab's stub and reference."""
    from grader.engine.similarity.winnowing import METHOD

    found: dict[str, list[int]] = {}
    for key, path in ((SHIPPED_STUB, lab.stub), (SHIPPED_REFERENCE, lab.reference)):
        if path is not None and path.is_file():
            found[key] = _hashes(path)
    return {"method": METHOD, "probe": _probe(), "prints": found}


@functools.lru_cache(maxsize=8)
def _load(path: Path) -> dict[str, frozenset[int]]:
    from grader.engine.similarity.winnowing import METHOD

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["method"] != METHOD or data["probe"] != _probe():
            return {}
        return {str(k): frozenset(int(h) for h in v) for k, v in data["prints"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def shipped(lab: Lab) -> dict[str, frozenset[int]]:
    """The shipped fingerprints by ``SHIPPED_STUB`` and ``SHIPPED_REFERENCE``; {} when the lab ships
    none, or when they were computed another way than this grader computes them."""
    return _load(lab.prints) if lab.prints is not None else {}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m grader.engine.similarity.shipped", description=__doc__
    )
    parser.add_argument("--lab", default=None)
    parser.add_argument("--check", action="store_true", help="only say whether the file is current")
    args = parser.parse_args(argv)
    lab = find(args.lab)
    if lab.prints is None:
        print("the lab %s ships no fingerprints" % lab.name, file=sys.stderr)
        return 2
    text = json.dumps(computed(lab), separators=(",", ":")) + "\n"
    if args.check:
        current = lab.prints.is_file() and lab.prints.read_text(encoding="utf-8") == text
        print("%s is %s" % (lab.prints, "current" if current else "stale"))
        return 0 if current else 1
    lab.prints.write_text(text, encoding="utf-8")
    print("wrote %s" % lab.prints)
    return 0


if __name__ == "__main__":
    sys.exit(main())
