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

from grader import safefs, sandbox

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
    if not as_nobody_works(sys.executable, "-c", "import grader") or not as_nobody_works(
        CHILD_PYTHON, "-c", "pass"
    ):
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
        [sys.executable, "-m", "grader", str(module), "--no-report", "--timeout", "30"]
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
    assert stopped < 5, stopped
    assert list(private.iterdir()) == []


def test_batch_reads_no_output_by_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a class: output made a named pipe, or a link to a classmate's module or to the
    previous gradebook; nothing blocks and nothing of those files reaches the feedback."""
    from grader.batch import BatchOptions, run_batch

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
    opts = BatchOptions(seed=5, jobs=2, timeout=2.0, pool="thread")
    first = run_batch(root, out, opts)
    assert (out / "gradebook.csv").read_text().count("\n") == 6
    again = run_batch(
        root, out, BatchOptions(seed=5, jobs=2, timeout=2.0, pool="thread", force=True)
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
            [sys.executable, "-m", "grader", str(module), "--no-report", "--timeout", "2"]
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
