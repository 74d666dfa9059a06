"""The student edition's wheel itself: what it holds, and that it grades anywhere.

The wheel is built as ``nox -s student-wheel`` builds it (with one prepared run) and
unpacked; the grader in it runs in a separate interpreter that sees only the
unpacked wheel (and the grader's dependencies), never this source tree.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import math
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from timelimits import scaled

from grader.engine.vocabulary.expect import Returns
from grader.labs.embed.contract import NAMES
from grader.labs.embed.expect import Ranks
from grader.labs.embed.lab import full
from grader.labs.embed.stored import LEFT_OUT

ROOT = Path(__file__).resolve().parent.parent
BLOCKER = ROOT / "tests" / "resources" / "no_posix"
FUNCTIONS = {n.name for n in NAMES if n.params is not None}
# Graded functions of lists (tables, vectors): what a helper computing answers takes.
OF_LISTS = sorted(
    n.name
    for n in NAMES
    if n.params is not None and {"table", "vec", "a", "matrix"} & set(n.params)
)


def _tools() -> Any:
    spec = importlib.util.spec_from_file_location(
        "student_wheel", ROOT / "tools" / "student_wheel.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(_tools().build_student_wheel(tmp_path_factory.mktemp("dist"), runs=1))


@pytest.fixture(scope="module")
def site(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(folder)
    return folder


# Only the unpacked wheel's grader: an editable install of this tree, whose finder
# would otherwise answer for the modules the wheel leaves out, is dropped first.
BOOT = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
sys.path_hooks[:] = [h for h in sys.path_hooks if "editable" not in repr(h).lower()]
sys.path.insert(0, %(site)r)
for name in [m for m in sys.modules if m == "grader" or m.startswith("grader.")]:
    del sys.modules[name]
import grader
assert grader.__file__.startswith(%(site)r), grader.__file__
"""


def _python(site: Path, code: str, *args: str, blocked: bool = False, **kw: Any) -> Any:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if blocked:
        env["PYTHONPATH"] = str(BLOCKER)
    boot = BOOT % {"site": str(site)}
    return subprocess.run(
        [sys.executable, "-c", boot + code, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        **kw,
    )


GRADE = """
from grader.engine.commands.cli import main
raise SystemExit(main(sys.argv[1:]))
"""


def _grade(site: Path, tmp: Path, module: Path, *more: str, blocked: bool = False) -> Any:
    out = tmp / ("result-%s.json" % module.stem)
    done = _python(
        site,
        GRADE,
        str(module),
        "--format",
        "json",
        "--output",
        str(out),
        *more,
        blocked=blocked,
        cwd=str(tmp),
    )
    assert out.is_file(), done.stderr[-3000:]
    return done, json.loads(out.read_text(encoding="utf-8"))


# What the wheel holds ----------------------------------------------------------------


def test_the_wheel_holds_every_part_of_the_childs_program(wheel: Path) -> None:
    from grader.engine._child import PARTS

    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    for part in ("__init__",) + PARTS:
        assert "grader/engine/_child/%s.py" % part in names, part


def test_the_wheel_holds_no_answer_key(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        sources = {n: z.read(n).decode("utf-8") for n in names if n.endswith(".py")}
    assert wheel.name.startswith("embed_grader_student-")
    assert not _tools().forbidden(names)
    lab = "grader/labs/embed/"
    for left in LEFT_OUT:
        assert not [n for n in names if n.startswith(lab + left)], left
    assert not [n for n in names if n.endswith("/embed.py") or n == "embed.py"]
    assert not [n for n in names if "oracle" in n or "reference/" in n]
    assert lab + "stored/runs/common.json.gz" in names
    assert lab + "stored/runs/run-0000.json.gz" in names
    # No module defines a function, or names a lambda, after a graded function.
    for name, source in sources.items():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.name not in FUNCTIONS, "%s defines %s" % (name, node.name)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
                for target in node.targets:
                    assert getattr(target, "id", None) not in FUNCTIONS, name


PROBE = """
import importlib, inspect, json, math, pkgutil

def same(got, want):
    if isinstance(want, float):
        return isinstance(got, (int, float)) and not isinstance(got, bool) and (
            math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9))
    if isinstance(want, list):
        return isinstance(got, (list, tuple)) and len(got) == len(want) and all(
            same(g, w) for g, w in zip(got, want))
    return type(got) is type(want) and got == want

callables = {}
for info in pkgutil.walk_packages(grader.__path__, "grader."):
    if info.name.endswith("__main__"):
        continue  # a command line, run when imported
    try:
        module = importlib.import_module(info.name)
    except Exception:
        continue
    for key, obj in list(vars(module).items()):
        found = [obj]
        if isinstance(obj, (dict, list, tuple)):
            found = list(obj.values()) if isinstance(obj, dict) else list(obj)
            found = [x[-1] if isinstance(x, tuple) and x else x for x in found]
        if inspect.isclass(obj) and obj.__module__ == module.__name__:
            found = [v.__func__ if isinstance(v, (staticmethod, classmethod)) else v
                     for v in vars(obj).values()]
        for f in found:
            if inspect.isfunction(f) and f.__module__.startswith("grader"):
                callables["%s.%s:%s" % (info.name, key, f.__qualname__)] = f

cases = json.load(open(sys.argv[1]))
matches = []
for fn, calls in cases.items():
    for name, f in callables.items():
        try:
            inspect.signature(f).bind(*calls[0][0])
        except (TypeError, ValueError):
            continue
        ok = True
        for args, want in calls:
            try:
                ok = same(f(*args), want)
            except BaseException:
                ok = False
            if not ok:
                break
        if ok:
            matches.append([fn, name])
print(json.dumps({"callables": len(callables), "matches": matches}))
"""


def _plain_json(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return all(_plain_json(v) for v in value)
    return isinstance(value, (int, str))


def test_nothing_in_the_wheel_computes_a_graded_function(site: Path, tmp_path: Path) -> None:
    """Every function of the wheel's modules (and every function held in a module's
    tables) is called with fresh inputs of each graded function of lists: none gives
    the right answers."""
    lab = full()
    ids = tuple(c.id for c in lab.checks)
    cases: dict[str, list[Any]] = {}
    for _check, drawn in lab.cases(4_000_000_001, ids):
        for case in drawn:
            if case.fn not in OF_LISTS or len(cases.get(case.fn, [])) >= 4:
                continue
            if isinstance(case.expect, Ranks):
                want: Any = case.expect.ranking(case).nearest(case.expect.k)
            elif isinstance(case.expect, Returns):
                want = case.expect.value
            else:
                continue
            if case.size < 6 or not _plain_json(list(case.args)) or not _plain_json(want):
                continue
            cases.setdefault(case.fn, []).append([list(case.args), want])
    assert set(cases) == set(OF_LISTS)
    given = tmp_path / "cases.json"
    given.write_text(json.dumps(cases), encoding="utf-8")
    done = _python(site, PROBE, str(given), cwd=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["callables"] > 500  # the probe did reach the wheel's code
    assert found["matches"] == []


# Grading with the wheel ------------------------------------------------------------


def test_the_wheel_gives_the_reference_full_marks(site: Path, tmp_path: Path) -> None:
    done, result = _grade(
        site, tmp_path, ROOT / "embed.py", "--report-dir", str(ROOT / "reference")
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert result["score"] == result["max_score"] == 100
    check = _python(
        site, "import importlib.util as u; print(u.find_spec('grader.labs.embed.oracle'))"
    )
    assert check.stdout.strip() == "None"


def test_the_wheel_grades_without_fcntl_resource_pwd_or_proc(site: Path, tmp_path: Path) -> None:
    blocked = _python(
        site,
        "import importlib.util as u, os\n"
        "for m in ('fcntl', 'resource', 'pwd'):\n"
        "    try:\n        __import__(m)\n        print('imported', m)\n"
        "    except ImportError:\n        pass\n"
        "print(os.path.exists('/proc/self'), hasattr(os, 'pread'))\n",
        blocked=True,
    )
    assert blocked.stdout.split() == ["False", "False"], blocked.stdout + blocked.stderr
    done, result = _grade(
        site, tmp_path, ROOT / "embed.py", "--report-dir", str(ROOT / "reference"), blocked=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert result["score"] == 100
    assert done.stderr.count("plain child process") == 1
    # A wrong module is blamed as the full grader blames it, and a hanging function
    # costs its time limit.
    wrong = ROOT / "tests" / "corpus" / "wrong" / "lookup_negative_ids_pass.py"
    done, result = _grade(site, tmp_path, wrong, "--no-report", blocked=True)
    assert done.returncode == 1
    failed = {
        c["function"] for c in result["checks"] if c["status"] != "pass" and not c.get("caused_by")
    }
    assert "lookup" in failed
    hang = tmp_path / "hang" / "embed.py"
    hang.parent.mkdir()
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    hang.write_text(
        source.replace("def dot(a, b):", "def dot(a, b):\n    while True:\n        pass\n", 1),
        encoding="utf-8",
    )
    done, result = _grade(
        site, tmp_path, hang, "--no-report", "--timeout", str(scaled(2)), blocked=True
    )
    dot = [c for c in result["checks"] if c["id"] == "dot.values"]
    assert dot and dot[0]["status"] == "timeout", done.stderr[-2000:]
