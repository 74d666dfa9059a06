"""The values the report fields must have, recomputed with the oracle.

Not a single number in the report files is trusted: every field is recomputed
(``grader.labs.embed.fixed``: with ``grader.labs.embed.oracle`` and the fixed
constants of ``grader.labs.embed.contract``, or in the student edition read from the
data prepared with them), and the files are compared with those values.
"""

from __future__ import annotations

from typing import Any

from grader.labs.embed import fixed


def _expected() -> tuple[tuple[str, Any], ...]:
    return tuple(fixed.values()["expected"])


def expected_fields() -> dict[str, Any]:
    """Every report field recomputed with the oracle and the fixed constants (cached).

    The keys come in the order of ``contract.REPORT_FIELDS``; the caller gets its own copy.
    """
    return {key: list(value) if isinstance(value, list) else value for key, value in _expected()}
