"""Screenshots of a check cell's report in the exercise notebook, for the README.

``python tools/notebook_screenshots.py [DOCS]`` writes ``DOCS/notebook-course.png`` (a
cosine divided by the sum of the norms: the course's own example says what is wrong)
and ``DOCS/notebook-cells.png`` (a ``norm`` that forgot ``math.``: the failures name the
cell and its line).  Each takes the reference's code in the English notebook, makes
the one mistake, executes the notebook with nbclient, keeps the cells shown, converts
them to HTML with nbconvert and takes the picture with a headless Chromium.  Needs the
test extras and ``chromium`` on the PATH.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.labs.embed.stubgen import notebook as kit  # noqa: E402

SHOTS = {
    "notebook-course.png": (
        "lengths = norm(a) * norm(b)",
        "lengths = norm(a) + norm(b)",
        ("step-6-example-1", "step-6-check"),
        "check(6)",
        760,
    ),
    "notebook-cells.png": (
        "return math.sqrt(dot(vec, vec))",
        "return sqrt(dot(vec, vec))",
        ("step-6-check",),
        'check(6, "--seed", "2026")',
        1130,
    ),
}


def shoot(docs: Path, name: str) -> None:
    right, wrong, shown, check, height = SHOTS[name]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        kit.main(["--filled", str(folder)])
        nb = nbformat.read(str(folder / "embed.ipynb"), as_version=4)
        for cell in nb.cells:
            if cell.get("id") == "step-6-code":
                assert right in cell.source
                cell.source = cell.source.replace(right, wrong)
            if cell.get("id") == "step-6-check":
                cell.source = check
        nbformat.write(nb, str(folder / "embed.ipynb"))
        NotebookClient(
            nb,
            timeout=600,
            kernel_name="python3",
            resources={"metadata": {"path": tmp}},
            allow_errors=True,
        ).execute()
        part = copy.deepcopy(nb)
        part.cells = [c for c in nb.cells if c.get("id") in shown]
        html, _ = HTMLExporter().from_notebook_node(part)
        page = folder / "shown.html"
        page.write_text(html, encoding="utf-8")
        subprocess.run(
            [
                "chromium",
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1000,%d" % height,
                "--screenshot=%s" % (docs / name),
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    print("wrote %s" % (docs / name))


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs"
    for shot in SHOTS:
        shoot(target, shot)
