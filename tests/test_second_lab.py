"""A second lab, in a folder of its own (tests/labs/tiny), graded by the same engine
through the same command line: the engine knows a lab only through its ``LAB``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "tests" / "labs" / "tiny"
# The grader's folders stay as they are: a batch running beside these tests watches
# them for changes, and a compiled file written into them is one.
NO_BYTECODE = {"PYTHONDONTWRITEBYTECODE": "1"}

RIGHT = """\
import math

WIDTH = 4


def mean(xs):
    if len(xs) == 0:
        raise ValueError("no numbers")
    total = 0.0
    for x in reversed(xs):
        total += x
    return total / len(xs)


def scale(xs, k):
    return tuple(k * x for x in xs)
"""

WRONG = """\
WIDTH = 4.0


def mean(xs):
    if not xs:
        raise ValueError("no numbers")
    return sum(xs) / max(1, len(xs) - 1)


def scale(xs, k):
    for i in range(len(xs)):
        xs[i] = xs[i] * k
    return xs
"""


def grade(tmp_path: Path, source: str, *args: str) -> tuple[int, dict, str]:
    module = tmp_path / "stats.py"
    module.write_text(source, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "--lab", str(TINY), "--format", "json", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", **NO_BYTECODE},
    )
    data = json.loads(done.stdout) if done.stdout.strip() else {}
    return done.returncode, data, done.stderr


def by_id(data: dict) -> dict[str, dict]:
    return {c["id"]: c for c in data["checks"]}


def test_a_right_module_earns_the_tiny_labs_full_marks(tmp_path: Path) -> None:
    code, data, err = grade(tmp_path, RIGHT, "--seed", "5")
    assert code == 0, err
    assert data["score"] == data["max_score"] == 10
    assert set(by_id(data)) == {
        "imports.load",
        "imports.stdlib",
        "WIDTH.value",
        "mean.values",
        "mean.empty",
        "mean.inputs",
        "scale.values",
        "scale.inputs",
    }
    assert {k: v["max_points"] for k, v in data["steps"].items()} == {"0": 2, "1": 4, "2": 4}


def test_a_wrong_module_fails_with_the_labs_own_words(tmp_path: Path) -> None:
    code, data, _ = grade(tmp_path, WRONG, "--seed", "5")
    assert code == 1
    checks = by_id(data)
    assert checks["WIDTH.value"]["status"] == "fail"
    assert checks["mean.values"]["status"] == "fail"
    assert checks["mean.values"]["hint"].startswith("the answer is the sum divided by one less")
    assert checks["mean.empty"]["status"] == "pass"
    assert checks["scale.values"]["status"] == "pass"
    assert checks["scale.inputs"]["status"] == "fail"
    # The replay command names the lab, so that it grades against the same one.
    assert "--lab %s" % TINY in checks["mean.values"]["reproduce"]
    assert 0 < data["score"] < 10


def test_the_module_is_imported_under_the_labs_own_name(tmp_path: Path) -> None:
    """The child imports stats.py as ``stats``: its own name, which it may import."""
    source = RIGHT + "\nimport stats as _me\nassert __name__ == 'stats' and _me.mean is mean\n"
    code, data, err = grade(tmp_path, source, "--seed", "2")
    assert code == 0, (err, data)
    assert by_id(data)["imports.stdlib"]["status"] == "pass"


def test_the_labs_texts_come_in_every_language(tmp_path: Path) -> None:
    _, data, _ = grade(tmp_path, WRONG, "--seed", "5", "--lang", "ko")
    assert by_id(data)["mean.values"]["hint"].startswith("합을 길이보다")


@pytest.mark.parametrize("lab", ["no_such_lab", "/nonexistent/folder"])
def test_an_unknown_lab_is_a_usage_error(tmp_path: Path, lab: str) -> None:
    (tmp_path / "stats.py").write_text(RIGHT, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "--lab", lab, str(tmp_path / "stats.py")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        env=dict(os.environ, **NO_BYTECODE),
    )
    assert done.returncode == 2
    assert "no lab" in done.stderr


def test_the_tiny_lab_has_the_same_codes_in_every_language() -> None:
    texts = {
        lang: json.loads((TINY / "messages" / ("%s.json" % lang)).read_text("utf-8"))
        for lang in ("en", "ko", "zh")
    }
    assert set(texts["ko"]) == set(texts["en"]) == set(texts["zh"])


def test_a_class_is_graded_against_the_tiny_lab(tmp_path: Path) -> None:
    root = tmp_path / "class"
    for name, source in (("ann", RIGHT), ("bob", WRONG)):
        (root / name).mkdir(parents=True)
        (root / name / "stats.py").write_text(source, encoding="utf-8")
    (root / "cid").mkdir()
    (root / "cid" / "embed.py").write_text(RIGHT, encoding="utf-8")  # not this lab's module
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "grader", "batch", str(root), "--out", str(out)]
        + ["--lab", str(TINY), "--seed", "3", "--jobs", "2", "--sandbox", "process"],
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", **NO_BYTECODE},
    )
    assert done.returncode in (0, 1), done.stderr
    lines = (out / "gradebook.csv").read_text("utf-8").splitlines()
    assert lines[0].split(",")[:6] == ["id", "total", "max", "step0", "step1", "step2"]
    rows = {line.split(",")[0]: line.split(",") for line in lines[1:]}
    assert rows["ann"][1:3] == ["10", "10"]
    assert 0 < float(rows["bob"][1]) < 10
    assert "missing" in rows["cid"]
    summary = json.loads((out / "summary.json").read_text("utf-8"))
    assert summary["max_score"] == 10
    assert set(summary["steps"]) == {"0", "1", "2"}


@pytest.mark.parametrize("inside", ["", "__init__.py"])
def test_a_folder_named_like_a_lab_does_not_change_the_default(tmp_path: Path, inside: str) -> None:
    """A folder called ``embed`` where the grader runs (a student's, say) is not a lab:
    the default lab is the package's, whatever the working folder holds."""
    (tmp_path / "embed").mkdir()
    if inside:
        (tmp_path / "embed" / inside).write_text("LAB = None\n", encoding="utf-8")
    shutil.copyfile(ROOT / "embed.py", tmp_path / "embed.py")
    done = subprocess.run(
        [sys.executable, "-m", "grader", "embed.py", "--no-report", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "LANG": "C.UTF-8", **NO_BYTECODE},
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["score"] == data["max_score"] == 85
