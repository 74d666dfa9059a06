"""Benchmark of the class page in a browser: ``python tests/bench_classpage.py [N ...]``.

Also run by ``nox -s bench`` (it needs chromium, chromedriver and selenium, else it
says so and stops).  Writes ``report.html`` for classes of N students (default 1,000 and 10,000)
from rows made up here, as a batch would write it (the grading itself is not timed),
opens it in headless chromium and prints the page's size, the time from the request
to the end of its load event, and how long a search and a sort take until the next
frame is drawn (the median of four of each).  It asserts nothing about time.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from grader.engine.batch import BatchOptions, Row, summarize, write_atomic  # noqa: E402
from grader.engine.batch.pages import write_pages  # noqa: E402
from grader.engine.lab import find  # noqa: E402

SIZES = (1000, 10000)
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000")
CHECKS = [c.id for c in find().checks]


def make_rows(n: int, seed: int = 1) -> list[Row]:
    """``n`` students: most pass most steps, some fail checks, a few were not graded."""
    rng = random.Random(seed)
    lab = find()
    rows = []
    for i in range(n):
        steps = {}
        failing = []
        for s, most in lab.steps.items():
            got = most if rng.random() < 0.8 else round(rng.random() * most, 2)
            steps[s] = float(got)
        for check in rng.sample(CHECKS, rng.randrange(4)):
            failing.append([check, rng.choice(["value_scalar", "raised_at", "timeout"])])
        status = rng.choices(["graded", "timeout", "missing"], [96, 3, 1])[0]
        total = round(sum(steps.values()), 2) if status != "missing" else 0.0
        rows.append(
            Row(
                "student-%05d" % i,
                status,
                total,
                float(lab.max_score),
                steps,
                seed,
                rng.random() * 3,
                "" if status == "graded" else "not graded normally",
                failing,
            )
        )
    return rows


def write_page(out: Path, n: int) -> Path:
    rows = make_rows(n)
    summary = summarize(rows, BatchOptions(seed=1), 0.0)
    summary["sandbox"] = "process"
    summary["similar"] = {}
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    return write_pages(out, rows, summary, "en", write_atomic)


def browser() -> Any:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:  # the test extra is not installed
        return None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        return None
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in FLAGS + ("--user-data-dir=%s" % tempfile.mkdtemp(prefix="bench-chromium-"),):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


# Runs ``action`` and answers how long it took until the frame after it was drawn.
UNTIL_DRAWN = """
const done = arguments[arguments.length - 1];
const start = performance.now();
%s;
requestAnimationFrame(() => setTimeout(() => done(performance.now() - start), 0));
"""


def measure(driver: Any, page: Path) -> dict[str, float]:
    driver.get(page.resolve().as_uri())
    load = 0.0
    while not load:  # the load event may end just after get() returns
        load = driver.execute_script(
            "const e = performance.getEntriesByType('navigation')[0]; return e.loadEventEnd;"
        )
    searches, sorts = [], []
    for word in ("student-0999", "timeout", "student-1", ""):
        action = "const s = document.getElementById('search'); s.value = %r;" % word
        action += " s.dispatchEvent(new Event('input'))"
        searches.append(driver.execute_async_script(UNTIL_DRAWN % action))
    # Total twice (up, then down), step 0's points, the id.
    for column in (2, 2, 5, 1):
        sorts.append(
            driver.execute_async_script(
                UNTIL_DRAWN
                % ("document.querySelector('#roster th:nth-child(%d) button').click()" % column)
            )
        )
    rows = driver.execute_script("return document.querySelectorAll('#roster tbody tr').length")
    return {"load": load, "search": median(searches), "sort": median(sorts), "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=list(SIZES))
    args = parser.parse_args()
    driver = browser()
    if driver is None:
        print("no chromium, chromedriver or selenium here: nothing measured")
        return
    try:
        print(
            "%8s %10s %10s %10s %10s %8s"
            % ("students", "page kB", "load ms", "search ms", "sort ms", "rows")
        )
        for n in args.sizes:
            with tempfile.TemporaryDirectory(prefix="bench-classpage-") as tmp:
                page = write_page(Path(tmp), n)
                size = page.stat().st_size / 1000
                m = measure(driver, page)
                print(
                    "%8d %10.0f %10.0f %10.1f %10.1f %8d"
                    % (n, size, m["load"], m["search"], m["sort"], m["rows"]),
                    flush=True,
                )
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
