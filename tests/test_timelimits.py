"""No test depends on the machine being idle, and CI runs the suite as a newcomer does.

Time limits in tests go through ``timelimits.scaled`` (see ``tests/timelimits.py``): a
plain number of seconds as a grading's time limit, or as the bound of a measured
time, is refused here.  Numbers of 0 or less are the invalid options that tests of
the command line try, and stay.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from timelimits import slowness

ROOT = Path(__file__).resolve().parent.parent
TESTS = sorted((ROOT / "tests").glob("test_*.py"))
# What grades with a time limit per call, or for the whole submission.
GRADERS = {"grade", "grade_file", "BatchOptions", "Sandbox"}
LIMITS = {"timeout", "max_seconds"}
MEASURED = re.compile(r"elapsed|took|stopped|seconds|monotonic\(\)|perf_counter\(\)")


def _number(node: ast.AST, names: dict[str, float] | None = None) -> float | None:
    """The value of a numeric constant expression (``10 * 2``, ``-1``, a module's
    ``TIMEOUT = 1.0``), else None."""
    if isinstance(node, ast.Name) and names and node.id in names:
        return names[node.id]
    try:
        value = ast.literal_eval(node) if not isinstance(node, ast.BinOp) else None
    except ValueError:
        return None
    if isinstance(node, ast.BinOp) and all(
        isinstance(n, ast.Constant) for n in (node.left, node.right)
    ):
        value = eval(compile(ast.Expression(node), "<limit>", "eval"))  # constants only
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def plain_limits(path: Path) -> list[str]:
    """Where ``path`` uses a plain number of seconds as a time limit."""
    source = path.read_text("utf-8")
    tree = ast.parse(source)
    names: dict[str, float] = {}
    for top in tree.body:
        if isinstance(top, ast.Assign) and len(top.targets) == 1:
            target, value = top.targets[0], _number(top.value)
            if isinstance(target, ast.Name) and value is not None:
                names[target.id] = value
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "attr", getattr(node.func, "id", ""))
            for kw in node.keywords:
                value = _number(kw.value, names)
                if name in GRADERS and kw.arg in LIMITS and value is not None and value > 0:
                    found.append("%s:%d %s=%s" % (path.name, node.lineno, kw.arg, value))
        if isinstance(node, (ast.List, ast.Tuple, ast.Call)):
            items = node.args if isinstance(node, ast.Call) else node.elts
            for flag, value in zip(items, items[1:]):
                if (
                    isinstance(flag, ast.Constant)
                    and flag.value in ("--timeout", "--max-seconds")
                    and isinstance(value, ast.Constant)
                    and re.fullmatch(r"\d+(\.\d+)?", str(value.value))
                    and float(value.value) > 0
                ):
                    found.append("%s:%d %s %s" % (path.name, node.lineno, flag.value, value.value))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            if isinstance(node.ops[0], (ast.Lt, ast.LtE)):
                bound = _number(node.comparators[0])
                left = ast.get_source_segment(source, node.left) or ""
                if bound is not None and MEASURED.search(left):
                    found.append("%s:%d %s < %s" % (path.name, node.lineno, left, bound))
    return found


def test_no_test_holds_a_plain_time_limit() -> None:
    found = [hit for path in TESTS for hit in plain_limits(path)]
    assert found == [], "\n".join(found)


def test_the_check_finds_plain_limits(tmp_path: Path) -> None:
    sample = tmp_path / "test_sample.py"
    sample.write_text(
        "r = grade(p, seed=1, timeout=1.0)\n"
        "o = BatchOptions(seed=1, max_seconds=2 * 5)\n"
        "cli(str(p), '--timeout', '2')\n"
        "assert elapsed < 20, elapsed\n"
        "assert time.monotonic() - start < 3\n"
        "ok = grade(p, timeout=scaled(1.0))\n"
        "assert elapsed < scaled(20)\n"
        "main(['--timeout', '0'])\n"
        "TIMEOUT = 2.0\n"
        "o = BatchOptions(seed=1, timeout=TIMEOUT)\n"
    )
    lines = sorted(int(h.split(" ", 1)[0].split(":")[1]) for h in plain_limits(sample))
    assert ["test_sample.py:%d" % n for n in lines] == [
        "test_sample.py:1",
        "test_sample.py:2",
        "test_sample.py:3",
        "test_sample.py:4",
        "test_sample.py:5",
        "test_sample.py:10",
    ]


def test_slowness_is_measured_and_never_below_one() -> None:
    factor = slowness(runs=1)
    assert 1.0 <= factor <= 30.0


def readme_test_command() -> str:
    """The command the README gives a newcomer to run the test suite."""
    readme = (ROOT / "README.md").read_text("utf-8")
    after = readme.split("Run the test suite:", 1)[1]
    block = re.search(r"```sh\n(.+?)\n```", after, re.S)
    assert block is not None
    return block.group(1).strip()


def test_ci_runs_the_suite_with_the_readmes_command() -> None:
    command = readme_test_command()
    assert "nox -s tests" in command
    lines = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()]
    assert command in lines
