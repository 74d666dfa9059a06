"""Settings shared by the whole suite."""

from __future__ import annotations

import compileall
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile the grader package once, before any test worker starts.

    ``batch`` records the state of the grader's files, compiled ones included, and
    stops when they change.  In a fresh checkout every worker would otherwise write
    the compiled files of the modules it imports first, while another worker's batch
    is watching them.
    """
    if not hasattr(session.config, "workerinput"):
        compileall.compile_dir(str(ROOT / "grader"), quiet=1)
