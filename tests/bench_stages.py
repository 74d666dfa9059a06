"""What a fault on one student costs the class's outputs: ``python tests/bench_stages.py [N ...]``.

Writes the class's outputs (summary, gradebooks, LMS files, class page, students'
pages) for classes of N made-up students (default 1,000 and 3,000; the grading
itself is not timed) three ways: as usual, with the grader failing on one student's
page, and with it failing on one student's share of the summary.  A step that fails
is retried on halves of the class to find that student, and the class is then
written again with that student's row a grader error.  Prints the seconds of each; asserts nothing
about time.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT, ROOT / "tests"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

from bench_classpage import make_rows  # noqa: E402

from grader.engine.batch import GRADER_ERROR, BatchOptions, Row, classout  # noqa: E402
from grader.engine.batch import pages as classpage  # noqa: E402

SIZES = (1000, 3000)


def _failing_on(ident: str, real: Callable[..., Any], at: int) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if any(r.id == ident and r.status != GRADER_ERROR for r in args[at]):
            raise ZeroDivisionError("a fault of the grader")
        return real(*args, **kwargs)

    return wrapped


@contextmanager
def fault(where: str, ident: str) -> Iterator[None]:
    """The grader failing on ``ident``'s page or share of the summary, meanwhile."""
    module, name, at = {
        "page": (classpage, "write_pages", 1),
        "summary": (classout, "summarize", 0),
    }[where]
    real = getattr(module, name)
    setattr(module, name, _failing_on(ident, real, at))
    try:
        yield
    finally:
        setattr(module, name, real)


def seconds(rows: list[Row], where: str | None) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        (out / "feedback").mkdir()
        start = time.perf_counter()
        if where is None:
            written = classout.write_class(out, rows, [], BatchOptions(seed=1), 0.0, "process")
        else:
            with fault(where, rows[len(rows) // 3].id):
                written = classout.write_class(out, rows, [], BatchOptions(seed=1), 0.0, "process")
        return time.perf_counter() - start, len(written.faults)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("sizes", nargs="*", type=int, default=list(SIZES))
    args = p.parse_args(argv)
    print(
        "%8s  %10s  %22s  %25s"
        % ("students", "as usual", "one student's page", "one student's summary")
    )
    for n in args.sizes:
        rows = make_rows(n)
        usual, _ = seconds(rows, None)
        page, pages = seconds(rows, "page")
        summary, summaries = seconds(rows, "summary")
        assert pages == 1 and summaries == 1, (pages, summaries)
        print("%8d  %8.2f s  %20.2f s  %23.2f s" % (n, usual, page, summary))


if __name__ == "__main__":
    main()
