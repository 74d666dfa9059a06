"""What a submission must never do to the grader: stall it, void its grade, read past
its own files or change the host (see tests/hostile/ and tests/test_hostile.py)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from timelimits import scaled, slowness

from grader.engine import safefs, sandbox

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "embed.py"
HOSTILE = ROOT / "tests" / "hostile"
NOBODY = 65534
# The child's interpreter when the grader runs as an unprivileged user: one that user
# can run (the grader's own may live in a private home).
CHILD_PYTHON = shutil.which("python3", path="/usr/bin:/bin") or sys.executable


def attack(name: str, marks: dict[str, str] | None = None) -> str:
    """The reference module with the hostile module ``name`` appended."""
    text = (HOSTILE / (name + ".py")).read_text()
    for old, new in (marks or {}).items():
        text = text.replace(old, new)
    return REFERENCE.read_text() + "\n\n" + text


def as_nobody_works(*cmd: str) -> bool:
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return False
    done = subprocess.run(
        ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", *cmd],
        capture_output=True,
        timeout=30,
    )
    return done.returncode == 0


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder under /tmp that an unprivileged user can use (pytest's tmp_path is 0700)."""
    path = Path(tempfile.mkdtemp(prefix="embed-grader-integrity-", dir="/tmp"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        safefs.remove_tree(str(path))


GRADE_AND_SAY = (
    "import json, sys\n"
    "from grader import grade\n"
    "r = grade(sys.argv[1], seed=11, check_reports=False, timeout=2.0, isolation=sys.argv[2],\n"
    "          python=sys.argv[3])\n"
    "print(json.dumps({'error': r.grader_error, 'blamed': sorted(r.blamed())}))\n"
)


@pytest.mark.parametrize("isolation", ["process", "bwrap"])
def test_cleanup_never_changes_a_linked_host_file_as_a_plain_user(
    isolation: str, open_folder: Path
) -> None:
    """Root may remove anything: as root the old cleanup never chmodded; a plain user
    running the grader had the mode of the link's target changed."""
    if not as_nobody_works(
        sys.executable, "-c", "import grader.engine.grading.grade"
    ) or not as_nobody_works(CHILD_PYTHON, "-c", "pass"):
        pytest.skip("cannot run the grader as an unprivileged user here")
    if isolation == "bwrap" and (
        sandbox.bwrap_problem() or not as_nobody_works("bwrap", "--ro-bind", "/", "/", "true")
    ):
        pytest.skip("bubblewrap cannot run as an unprivileged user here")
    host = open_folder / "host.txt"
    host.write_text("the host's own file")
    host.chmod(0o400)
    work = open_folder / "work"
    (work / "tmp").mkdir(parents=True)
    module = work / "embed.py"
    module.write_text(
        attack("cleanup_link", {"/tmp/embed-grader-hostile-host-987.654321.txt": str(host)})
    )
    for p in (host, work, work / "tmp", module):
        os.chown(p, NOBODY, NOBODY)
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(work / "tmp"), "HOME": str(work)}
    done = subprocess.run(
        ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"]
        + [sys.executable, "-c", GRADE_AND_SAY, str(module), isolation, CHILD_PYTHON],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=str(ROOT),
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    assert said == {"error": "", "blamed": []}, said
    assert stat.S_IMODE(host.stat().st_mode) == 0o400
    assert host.read_text() == "the host's own file"
    assert list((work / "tmp").iterdir()) == []


@pytest.mark.parametrize("isolation", ["process", "bwrap"])
def test_sigterm_ends_the_grader_at_once_and_cleans_up(isolation: str, tmp_path: Path) -> None:
    """A grader stopped while a call hangs (after the module made its output a named
    pipe) says "grader error", exits 2 within seconds and leaves no folder behind."""
    if isolation == "bwrap" and sandbox.bwrap_problem():
        pytest.skip("bubblewrap cannot run here")
    module = tmp_path / "embed.py"
    module.write_text(attack("output_fifo") + "\n\ndef dot(a, b):\n    while True:\n        pass\n")
    private = tmp_path / "tmp"
    private.mkdir()
    env = dict(os.environ, TMPDIR=str(private))
    proc = subprocess.Popen(
        [sys.executable, "-m", "grader", str(module), "--no-report", "--timeout", str(scaled(30))]
        + ["--sandbox", isolation, "--seed", "4"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=str(ROOT),
        env=env,
    )
    try:
        # Wait until the child runs (its folder exists), then a little into the calls.
        deadline = time.monotonic() + 30
        while not list(private.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.5)
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        start = time.monotonic()
        out, err = proc.communicate(timeout=20)
        stopped = time.monotonic() - start
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2, (out, err)
    assert "grader error" in out + err and "SIGTERM" in out + err
    assert stopped < scaled(5), stopped
    assert list(private.iterdir()) == []


def test_batch_reads_no_output_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a class: output made a named pipe, or a link to a classmate's module or to the
    previous gradebook; nothing blocks and nothing of those files reaches the feedback."""
    from grader.engine.batch import BatchOptions, run_batch

    monkeypatch.setenv("EMBED_GRADER_FAKE_TOKEN", "tok-91c2e")
    root = tmp_path / "class"
    out = tmp_path / "out"
    classmate = root / "alice" / "embed.py"
    classmate.parent.mkdir(parents=True)
    classmate.write_text(REFERENCE.read_text() + "\n# alice-secret-77\n")
    for who, target in (
        ("bob", str(classmate)),
        ("carol", str(out / "gradebook.csv")),
        ("dave", "/proc/self/environ"),
    ):
        folder = root / who
        folder.mkdir()
        (folder / "embed.py").write_text(
            attack(
                "output_classmate", {"/tmp/embed-grader-hostile-classmate-987.654321.py": target}
            )
        )
    (root / "erin").mkdir()
    (root / "erin" / "embed.py").write_text(attack("output_fifo"))
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    opts = BatchOptions(seed=5, jobs=2, timeout=scaled(2.0), pool="thread")
    first = run_batch(root, out, opts)
    assert (out / "gradebook.csv").read_text().count("\n") == 6
    again = run_batch(
        root, out, BatchOptions(seed=5, jobs=2, timeout=scaled(2.0), pool="thread", force=True)
    )
    for result in (first, again):
        assert {r.id: r.status for r in result.rows} == dict.fromkeys(
            ["alice", "bob", "carol", "dave", "erin"], "graded"
        )
    gradebook = (out / "gradebook.csv").read_text()
    for who in ("bob", "carol", "dave", "erin"):
        feedback = (out / "feedback" / ("%s.json" % who)).read_text()
        assert "alice-secret-77" not in feedback and "tok-91c2e" not in feedback
        assert gradebook.splitlines()[1] not in feedback
    assert list(private.iterdir()) == []


@pytest.mark.parametrize("isolation", ["process", "bwrap"])
def test_the_graders_environment_never_reaches_the_output(isolation: str, tmp_path: Path) -> None:
    """/proc/self/environ shows a process's environment as it started: the token must be
    in the grader's environment from its start, as a real one would be."""
    if isolation == "bwrap" and sandbox.bwrap_problem():
        pytest.skip("bubblewrap cannot run here")
    module = tmp_path / "embed.py"
    module.write_text(attack("output_environ"))
    token = "tok-%d-c0ffee" % os.getpid()
    env = dict(os.environ, EMBED_GRADER_FAKE_TOKEN=token, TMPDIR=str(tmp_path))
    for fmt in ("json", "text"):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "grader",
                str(module),
                "--no-report",
                "--timeout",
                str(scaled(2)),
            ]
            + ["--sandbox", isolation, "--seed", "4", "--format", fmt],
            capture_output=True,
            text=True,
            cwd=str(ROOT),
            env=env,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert token not in done.stdout + done.stderr
        assert "EMBED_GRADER_FAKE_TOKEN" not in done.stdout + done.stderr


def test_restarts_are_charged_to_the_function_that_forced_them(tmp_path: Path) -> None:
    """dot leaves the child tainted on every call: the restarts (a slow import each)
    use up dot's own time, its later calls are not run, and norm runs every call."""
    factor = slowness()  # the imports and the limit slow down together
    module = tmp_path / "embed.py"
    module.write_text(
        "import math, sys, time\n" + "time.sleep(%r)\n" % (0.2 * factor) + "def dot(a, b):\n"
        "    sys.setrecursionlimit(sys.getrecursionlimit() + 1)\n"
        "    return math.fsum(x * y for x, y in zip(a, b))\n"
        "def norm(v):\n"
        "    return math.sqrt(math.fsum(x * x for x in v))\n"
    )
    calls = []
    for i in range(60):
        calls.append(sandbox.Call(2 * i, "dot", ([1.0, 2.0], [3.0, 4.0])))
        calls.append(sandbox.Call(2 * i + 1, "norm", ([3.0, 4.0],)))
    start = time.monotonic()
    with sandbox.Sandbox(
        module, names=("dot", "norm"), timeout=scaled(0.5, factor), max_seconds=scaled(60, factor)
    ) as box:
        assert box.load().ok
        out = box.run(calls)
        restarts = box.restarts
    elapsed = time.monotonic() - start
    dots = [o for o in out if o.fn == "dot"]
    norms = [o for o in out if o.fn == "norm"]
    assert all(o.kind == "returned" and o.value == 5.0 for o in norms)
    assert dots[0].kind == "returned" and dots[0].value == 11.0
    spent = [o for o in dots if o.kind == "skipped"]
    assert spent and all(o.why == "budget_fn" for o in spent)
    # dot's budget is 4 time limits (2 s): about ten restarts of 0.2 s at most.
    assert restarts <= 20, restarts
    assert elapsed < scaled(15, factor), elapsed


def test_the_time_cap_covers_restarts_and_spares_what_ran(tmp_path: Path) -> None:
    """Every function taints; with a cap of 3 s the rest is "not run: time budget spent"."""
    module = tmp_path / "embed.py"
    module.write_text(attack("slow_reload"))
    start = time.monotonic()
    from grader import grade

    report = grade(
        module, seed=2, check_reports=False, timeout=scaled(1.0), max_seconds=scaled(3.0)
    )
    elapsed = time.monotonic() - start
    assert not report.grader_error
    assert elapsed < scaled(9), elapsed
    spent = [c for c in report.checks if c.code == "budget_spent"]
    assert spent and all(c.status.value == "timeout" for c in spent)
    assert any(c.status.value == "pass" for c in report.checks)  # graded on what ran


def test_max_seconds_option(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "grader", str(REFERENCE), "--no-report", "--max-seconds", "0"],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=60,
    )
    assert done.returncode == 2 and "--max-seconds" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "grader", "batch", str(tmp_path), "--out", str(tmp_path / "o")]
        + ["--max-seconds", "-1"],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=60,
    )
    assert done.returncode == 2 and "--max-seconds" in done.stderr


PEAK = (
    "import json, resource, sys\n"
    "from pathlib import Path\n"
    "if sys.argv[1] == 'batch':\n"
    "    from grader.engine.batch import BatchOptions, run_batch\n"
    "    opts = BatchOptions(seed=3, jobs=2, timeout=2.0, pool='thread')\n"
    "    rows = run_batch(sys.argv[2], sys.argv[3], opts).rows\n"
    "    error = [r.detail for r in rows if r.status == 'grader error']\n"
    "else:\n"
    "    from grader import grade\n"
    "    r = grade(sys.argv[2], seed=3, check_reports=False, timeout=2.0, isolation=sys.argv[1])\n"
    "    error = r.grader_error\n"
    "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024\n"
    "try:\n"
    "    with open('/proc/self/status') as f:\n"
    "        peak = [int(l.split()[1]) * 1024 for l in f if l.startswith('VmHWM:')][0]\n"
    "except (OSError, IndexError, ValueError):\n"
    "    pass\n"
    "print(json.dumps({'peak': peak, 'error': error}))\n"
)
# ru_maxrss of a process started by exec keeps the peak of the process that forked it
# (Linux keeps it across execve): from a test worker grown large, it says nothing of
# the grader.  VmHWM is the peak of this process's own memory since its exec.


@pytest.mark.parametrize("mode", ["process", "bwrap", "batch"])
def test_the_parents_memory_stays_bounded(mode: str, tmp_path: Path) -> None:
    """Every function returns one shared list of 4 million floats (norm also writes a
    20 MB line of its own): the grader's peak memory stays far under 500 MB."""
    if mode == "bwrap" and sandbox.bwrap_problem():
        pytest.skip("bubblewrap cannot run here")
    text = attack("huge_answers")
    if mode == "batch":
        for who in ("ann", "ben"):
            (tmp_path / "class" / who).mkdir(parents=True)
            (tmp_path / "class" / who / "embed.py").write_text(text)
        args = [str(tmp_path / "class"), str(tmp_path / "out")]
    else:
        (tmp_path / "embed.py").write_text(text)
        args = [str(tmp_path / "embed.py")]
    done = subprocess.run(
        [sys.executable, "-c", PEAK, mode, *args],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert not said["error"], said
    assert said["peak"] < 500 << 20, said["peak"] >> 20


def test_a_module_left_behind_by_an_older_install_does_not_stop_a_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Installing again from a checkout can leave the files of an older layout in the
    package (``grader/cli.py`` importing names that moved); the batch's loading of
    every module passes over one that does not import, and loads the others."""
    import importlib
    import pkgutil

    from grader.engine.batch import integrity

    stale = pkgutil.ModuleInfo(None, "grader.left_behind_by_an_older_install", False)  # type: ignore[arg-type]
    walked = list(pkgutil.walk_packages(__import__("grader").__path__, "grader."))
    real = [info for info in walked if info.name == "grader.engine.similarity.classpass"]
    assert real
    monkeypatch.setattr(pkgutil, "walk_packages", lambda *a, **k: iter([stale] + real))
    # The module is imported anew below: afterwards the package must name the one
    # sys.modules holds again, or later tests would meet two classes of each of its
    # dataclasses (``from grader.engine.similarity import classpass`` reads the package's name).
    import grader.engine.similarity

    importlib.import_module(
        "grader.engine.similarity.classpass"
    )  # run alone, nothing loaded it yet
    monkeypatch.setattr(
        grader.engine.similarity, "classpass", sys.modules["grader.engine.similarity.classpass"]
    )
    monkeypatch.delitem(sys.modules, "grader.engine.similarity.classpass", raising=False)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(stale.name)
    integrity.load_grader()  # no error
    assert "grader.engine.similarity.classpass" in sys.modules  # the module after it was loaded
