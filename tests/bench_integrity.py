"""Cost of the integrity check of ``batch``: ``python tests/bench_integrity.py [N]``.

Builds a class of N submissions (default 300, each a folder with embed.py and its
two report files), records the state of the grader's files and of every submission's
files as ``batch`` does, and times one check after a submission (``Watch.changed``),
the recording itself, and the grader fingerprint (a hash of its files) for
comparison.  Prints the figures; asserts nothing about time.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench_batch import make_class  # noqa: E402

from grader.engine.batch import (  # noqa: E402
    discover,
    grader_fingerprint,
    integrity,  # noqa: E402
    watched_files,
)


def main(argv: list[str]) -> None:
    size = int(argv[0]) if argv else 300
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "class"
        make_class(root, size, hanging=0)
        subs = discover(root)
        integrity.load_grader()
        start = time.perf_counter()
        watch = integrity.Watch()
        watch.add_all(integrity.grader_files())
        for sub in subs:
            watch.add_all(watched_files(sub))
        recorded = time.perf_counter() - start
        rounds = 50
        start = time.perf_counter()
        for _ in range(rounds):
            assert watch.changed() == []
        check = (time.perf_counter() - start) / rounds
        start = time.perf_counter()
        grader_fingerprint()
        fingerprint = time.perf_counter() - start
    print("submissions:            %d" % len(subs))
    print("files watched:          %d" % len(watch))
    print("recording them:         %.1f ms" % (recorded * 1000))
    print("one check:              %.2f ms" % (check * 1000))
    print("checks of a whole run:  %.2f s (one per submission)" % (check * len(subs)))
    print("grader fingerprint:     %.1f ms (once per run)" % (fingerprint * 1000))


if __name__ == "__main__":
    main(sys.argv[1:])
