"""How long reading a notebook takes, by size, for the shapes a hostile notebook takes.

Usage::

    python tests/bench_notebook.py [--sizes 1,4,16] [--repeat 3]

For each size (MB) and each shape, the notebook is built in memory, written to a
temporary file and read the way grading reads it (``notebook.load``); the figure is the
best of ``--repeat`` readings, in CPU seconds, with what the reading ended in (the
module, or the message that refused the notebook).  The shapes:

* ``plain``: cells of ordinary code, each with a stream output (what a worked notebook
  looks like), padded with outputs to the size;
* ``blank line``: code cells whose one line is blanks (the rewrite of IPython escapes
  once took time quadratic in such a line), 3 MB of them at most (the module's code is
  at most 4 MB), the rest of the size in outputs;
* ``many tags``: one cell with as many tags as fit, the last one not a string (checking
  that tags are unique once took time quadratic in them);
* ``many outputs``: one code cell with as many outputs as fit, the last one invalid
  (checking every output once took minutes).

Linear reading shows as a figure that grows about fourfold from each size to the next.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from grader.engine.handin import notebook  # noqa: E402

MB = 1 << 20
CODE = "".join(
    "value_%d = lookup(table, [%d, %d])  # a comment\n" % (i, i, i + 1) for i in range(12)
)


def _notebook(cells: list[dict[str, Any]]) -> dict[str, Any]:
    return {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _code(source: str | list[str], **more: Any) -> dict[str, Any]:
    cell = {"cell_type": "code", "metadata": {}, "source": source, "outputs": []}
    cell["execution_count"] = None
    cell.update(more)
    return cell


def _stream(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _sized(size: int, build: Callable[[int], dict[str, Any]]) -> bytes:
    """``build(n)`` as JSON, with the ``n`` that makes it about ``size`` bytes."""
    n = 1000
    data = json.dumps(build(n)).encode()
    while not size * 0.97 <= len(data) <= size:
        n = max(1, int(n * size * 0.985 / len(data)))
        data = json.dumps(build(n)).encode()
    return data


def plain(size: int) -> bytes:
    cells = min(notebook.MAX_CELLS - 10, size // 2000)
    pad = max(0, size - cells * (len(CODE) + 200)) // max(1, cells)
    return json.dumps(
        _notebook(
            [_code(CODE.splitlines(True), outputs=[_stream("y" * pad)]) for _ in range(cells)]
        )
    ).encode()


def blank_line(size: int) -> bytes:
    """Code cells of one line of blanks each, under the module's limit in all; the
    rest of the size in outputs."""
    line = min(size, notebook.MAX_MODULE - MB) // 4
    cells = [_code(" " * line) for _ in range(4)]
    pad = max(0, size - 4 * line)
    cells.append(_code("x = 1\n", outputs=[_stream("y" * pad)]))
    return json.dumps(_notebook(cells)).encode()


def many_tags(size: int) -> bytes:
    def build(n: int) -> dict[str, Any]:
        tags: list[Any] = ["t%d" % i for i in range(n)] + [1]
        return _notebook([_code("x = 1\n", metadata={"tags": tags})])

    return _sized(size, build)


def many_outputs(size: int) -> bytes:
    def build(n: int) -> dict[str, Any]:
        outputs: list[Any] = [_stream("x") for _ in range(n)] + [{"output_type": 1}]
        return _notebook([_code("x = 1\n", outputs=outputs)])

    return _sized(size, build)


SHAPES: dict[str, Callable[[int], bytes]] = {
    "plain": plain,
    "blank line": blank_line,
    "many tags": many_tags,
    "many outputs": many_outputs,
}


def reading(path: Path) -> tuple[float, str]:
    """CPU seconds of reading ``path`` as grading does, and what it ended in."""
    start = time.process_time()
    try:
        cells = notebook.load(path)
        outcome = "graded (cells kept: %d)" % len(cells.cells)
    except notebook.NotebookError as exc:
        outcome = "refused: " + exc.code
    return time.process_time() - start, outcome


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1,4,16", help="sizes in MB, comma separated")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    sizes = [float(s) for s in args.sizes.split(",")]
    print("| shape | " + " | ".join("%g MB" % s for s in sizes) + " | ends in |")
    print("|---|" + "---:|" * len(sizes) + "---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, build in SHAPES.items():
            figures = []
            outcome = ""
            for size in sizes:
                path = Path(folder) / "embed.ipynb"
                data = build(min(int(size * MB), notebook.MAX_NOTEBOOK - 64 * 1024))
                assert len(data) <= notebook.MAX_NOTEBOOK, (name, len(data))
                path.write_bytes(data)
                best = min(reading(path) for _ in range(args.repeat))
                figures.append("%.3f s" % best[0])
                outcome = best[1]
            print("| %s | %s | %s |" % (name, " | ".join(figures), outcome))
    return 0


if __name__ == "__main__":
    sys.exit(main())
