"""Time limits for tests that hold on a loaded machine as on an idle one.

A test that grades a module with a time limit per call, or asserts that something
finished in time, must not fail because other work shares the cores: the suite runs
with ``-n auto`` on two cores, often beside other suites.  So such limits are not
plain numbers: ``scaled(seconds)`` is the limit on an idle machine times how much
slower the machine is right now, measured by ``slowness()`` (a short Python process
that does a fixed amount of work, timed against what it takes on an idle two-core
machine).  Every limit should still sit far (ten times) from the expected time;
the scale only keeps that distance when the machine is busy.

``tests/test_timelimits.py`` checks that no test passes a plain number as a time limit
to the grader or compares a measured time with one.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

# What the probe takes on an idle machine of two cores (measured: 0.03 to 0.05 s).
NOMINAL = 0.05
# A machine so busy that limits would grow past this is not worth waiting for.
MOST = 30.0
_PROBE = "sum(i * i for i in range(300000))"


def _probe() -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-S", "-c", _PROBE], check=True, timeout=300)
    return time.perf_counter() - start


# The last measure: (when, factor); a test process measures at most every FRESH seconds.
_last: list[tuple[float, float]] = []
FRESH = 20.0


def slowness(runs: int = 3) -> float:
    """How many times slower than an idle machine this one is now (1 at least)."""
    now = time.monotonic()
    if _last and now - _last[0][0] < FRESH:
        return _last[0][1]
    taken = statistics.median(_probe() for _ in range(runs))
    factor = min(MOST, max(1.0, taken / NOMINAL))
    _last[:] = [(time.monotonic(), factor)]
    return factor


def scaled(seconds: float, factor: float | None = None) -> float:
    """``seconds`` on an idle machine, as long as it takes on this one now (``factor``:
    a slowness measured already)."""
    return seconds * (slowness() if factor is None else factor)
