"""Hostile submissions: only the attacked functions lose points, nothing else is harmed.

Each module of tests/hostile/ is appended to the reference embed.py and graded.
"""

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
from contextlib import contextmanager
from pathlib import Path

import pytest
from timelimits import scaled, slowness

from grader import grade
from grader.engine import safefs, sandbox
from grader.engine.output.byformat import render
from grader.engine.sandbox import processes, procfs
from grader.engine.vocabulary.results import Report, Status
from grader.labs.embed.contract import NAMES, REPORT_FIELDS
from grader.labs.embed.reports.findings import CONSISTENCY

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = Path(__file__).resolve().parent / "hostile"
REFERENCE = ROOT / "embed.py"
MARKS = ("987.654321", "876.54321")
CGROUPS = bool(
    processes.cgroups_usable() and processes.Cgroup.roots()
)  # sleep durations of the processes attacks start

# attack -> (functions that must be blamed, functions that may be blamed too)
ATTACKS: dict[str, tuple[set[str], set[str]]] = {
    "eq_always": ({"cosine"}, set()),
    "float_subclass": ({"norm"}, set()),
    "list_subclass": ({"lookup"}, set()),
    "dunders": ({"param_count"}, set()),
    "nan_and_huge": ({"dot", "tied_params", "rms"}, set()),
    "deep_and_recursive": ({"logits", "shape"}, set()),
    "odd_types": ({"lookup", "one_hot", "untied_params", "norm", "rms", "nearest_by_dot"}, set()),
    "patch_modules": (set(), {"stretch"}),
    "patch_at_import": (set(), set()),
    "patch_with_liars": (set(), {"stretch"}),
    "decoy_modules": (set(), {"stretch"}),
    "module_class": (set(), {"stretch"}),
    "module_replaced": (set(), {"stretch"}),
    "fake_output": ({"norm"}, set()),
    "scavenger": ({"cosine", "rms", "logits"}, set()),
    "import_grader": ({"imports", "norm"}, set()),
    "hang": ({"dot", "norm"}, set()),
    "recursion": ({"rms", "cosine"}, set()),
    "memory": ({"logits", "vocab_growth"}, set()),
    "exits": ({"dot", "norm", "cosine", "rms"}, set()),
    "exit_at_import": ({"imports"}, {"VOCAB", "DIM", "SEED"}),
    "crash_at_import": ({"imports"}, {"VOCAB", "DIM", "SEED"}),
    "output_flood": ({"dot"}, {"norm"}),
    "signals": ({"dot", "norm", "cosine"}, set()),
    "files": (set(), set()),
    "subprocesses": (set(), set()),
    "ghost_thread": (set(), set()),
    "fork_bomb": (set(), {"cosine"}),
    "swap_own_file": ({"imports"}, {"VOCAB", "DIM", "SEED"}),
    "rewrite_grader": (set(), set()),
    "output_fifo": (set(), set()),
    "output_environ": (set(), set()),
    "output_classmate": (set(), set()),
    "cleanup_link": (set(), set()),
    "deep_tree": (set(), set()),
    "forged_lines": (
        {"dot", "norm", "cosine", "rms", "logits", "shape", "lookup", "one_hot"},
        set(),
    ),
    "forged_loaded": ({"imports"}, {"VOCAB", "DIM", "SEED"}),
    "fill_disk": ({"dot", "stretch"}, set()),
    "slow_reload": (set(), {n.name for n in NAMES if not n.is_constant}),
    "huge_answers": (
        {n.name for n in NAMES if not n.is_constant} - {"one_hot_mults", "nearest_by_cosine"},
        {"one_hot_mults", "nearest_by_cosine"},
    ),
    "colliding_keys": ({"dot", "VOCAB"}, set()),
    "spot_the_probe": ({"lookup_via_one_hot"}, set()),
}
FUNCTIONS = {n.name for n in NAMES if not n.is_constant}
JSON_FINDINGS = {
    "report.json.file",
    "report.json.schema",
    *("report.json.values." + key for key, _ in REPORT_FIELDS),
    *("report.json.consistency." + key for key in CONSISTENCY),
}
# Attacks on the parent's reading of the report files (tests/hostile/report_*.py): the
# findings of step 8 that must fail; every other check passes, and the files handed
# in are the ones the module writes.
REPORT_ATTACKS: dict[str, set[str]] = {
    "report_figures": JSON_FINDINGS | {"report.md.figures"},
    "report_deep": JSON_FINDINGS,
    "report_brackets": {"report.md.file", "report.md.headings", "report.md.figures"}
    | {"report.md.prose.%d" % i for i in range(1, 6)},
}
TOKEN = "tok-4f1e9b0c7d"  # in the grader's environment: must never reach any output


def test_every_attack_has_an_expectation() -> None:
    names = {p.stem for p in HOSTILE.glob("*.py")}
    assert names == set(ATTACKS) | set(REPORT_ATTACKS) | {"kill_parent", "read_oracle"}


def _marks() -> tuple[str, ...]:
    # Per test process: tests running at the same time must not see each other's.
    return tuple("%s%d" % (m, os.getpid()) for m in MARKS)


def hostile_module(name: str, where: Path) -> Path:
    path = where / "embed.py"
    attack = (HOSTILE / (name + ".py")).read_text()
    for old, new in zip(MARKS, _marks()):
        attack = attack.replace(old, new)
    # Slow calls meant to use up a function's time slow down with the scaled limit.
    attack = attack.replace("_time.sleep(0.5)", "_time.sleep(%r)" % (0.5 * slowness()))
    path.write_text(REFERENCE.read_text() + "\n\n" + attack)
    return path


def leftovers() -> list[str]:
    """Command lines of processes that attacks (of this test process) started and that run."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        # A process whose first thread ended shows an empty command line: its other
        # threads still show it.
        cmd = ""
        for path in ["/proc/%s/cmdline" % pid] + [
            "/proc/%s/task/%s/cmdline" % (pid, tid) for tid in procfs.threads(pid)
        ]:
            try:
                with open(path, "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
            if cmd:
                break
        if any(m in cmd for m in _marks()):
            found.append("%s: %s" % (pid, cmd))
    return found


def kill_leftovers() -> None:
    for line in leftovers():
        try:
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
        except OSError:
            pass


def failing(report: Report) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for c in report.checks:
        if not c.ok and c.status is not Status.SKIP:
            out.setdefault(c.function, []).append("%s %s" % (c.id, c.status.value))
    return out


def run_attack(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **kw: object) -> Report:
    private = tmp_path / "tmp"
    if name == "deep_tree" and os.access("/dev/shm", os.W_OK):
        # Removing thousands of folders costs a millisecond or more each on some disks.
        private = Path(tempfile.mkdtemp(dir="/dev/shm"))
    else:
        private.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    path = hostile_module(name, tmp_path)
    start = time.monotonic()
    try:
        report = grade(path, seed=11, check_reports=False, timeout=scaled(1.0), **kw)  # type: ignore[arg-type]
    finally:
        elapsed = time.monotonic() - start
        left = leftovers()
        kill_leftovers()
    # slow_reload runs up to its cap of ten time limits, then is judged: on a loaded
    # machine that is most of twenty.  Without the cap it takes minutes.
    assert elapsed < scaled(60 if name == "slow_reload" else 20), elapsed
    if name in ("subprocesses", "ghost_thread") and kw.get("isolation") != "bwrap" and not CGROUPS:
        # A double fork after setsid() with a cleared environment escapes process mode
        # without a cgroup (a documented limit): only that one may remain.
        left = left[1:] if len(left) == 1 else left
    assert not left, left
    try:
        assert list(private.iterdir()) == [], "temporary directories left behind"
    finally:
        if private.parent != tmp_path:
            safefs.remove_tree(str(private))
    assert not report.grader_error
    return report


def check_blame(report: Report, must: set[str], may: set[str]) -> None:
    blamed = report.blamed()
    allowed = must | may
    detail = json.dumps(failing(report), indent=1)
    assert must <= blamed <= allowed, detail
    for c in report.checks:
        if c.function in allowed or c.status is Status.SKIP:
            continue
        # A check of another function fails only through a call of an attacked one.
        assert c.ok or set(c.caused_by) & allowed, (c.id, c.message)
    # Every function that is not attacked and not calling an attacked one still counts.
    passed = {c.function for c in report.checks if c.status is Status.PASS}
    assert len(passed) > 10 or must & {"imports"} or may >= FUNCTIONS, detail


def secret_file() -> Path:
    """The file swap_own_file links to: every line of it is a secret."""
    path = Path("/tmp/embed-grader-secret-%s.txt" % _marks()[0])
    path.write_text("".join("SECRET-LINE-%d = 1\n" % i for i in range(1, 2000)))
    return path


def check_no_secret(report: Report) -> None:
    [load] = [c for c in report.checks if c.id == "imports.load"]
    trace = str(load.details.get("traceback", ""))
    assert "raise RuntimeError" in trace, trace  # the module's own line is shown
    assert "SECRET" not in json.dumps([c.message for c in report.checks]) + trace, trace


def host_files() -> dict[str, Path]:
    """Files of the host that attacks link to, by the attack's name (marked per process)."""
    mark = _marks()[0]
    return {
        "output_classmate": Path("/tmp/embed-grader-hostile-classmate-%s.py" % mark),
        "cleanup_link": Path("/tmp/embed-grader-hostile-host-%s.txt" % mark),
    }


SECRET = "classmate-secret-5e0a"


@pytest.fixture(autouse=True)
def _no_host_file_left() -> Iterator[None]:
    """The host files an attack links to are removed after every test, passed or not."""
    yield
    for path in [*host_files().values(), Path("/tmp/embed-grader-secret-%s.txt" % _marks()[0])]:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def check_host_files(name: str, report: Report, mode: int = 0o640) -> None:
    """Nothing the attack linked to was read into the report or changed."""
    shown = "\n".join(render(report, fmt, "en") for fmt in ("text", "json"))
    assert TOKEN not in shown
    assert SECRET not in shown
    host = host_files().get(name)
    if host is not None:
        assert host.read_text() == SECRET
        assert stat.S_IMODE(host.stat().st_mode) == mode
        host.unlink()
    if name == "output_fifo":
        [load] = [c for c in report.checks if c.id == "imports.load"]
        assert "printed at import" in load.details.get("output", "")


def plant_host_files(name: str, monkeypatch: pytest.MonkeyPatch, mode: int = 0o640) -> None:
    monkeypatch.setenv("EMBED_GRADER_FAKE_TOKEN", TOKEN)
    host = host_files().get(name)
    if host is not None:
        host.write_text(SECRET)
        host.chmod(mode)


def check_time_spent(report: Report) -> None:
    """The whole submission stopped at its cap (10 time limits); what ran is graded.

    The cap is ten time limits; what follows it (judging some 600 calls, on a loaded
    machine) may take as long again, and without the cap the module takes minutes
    (a restart and a 0.6 s import for each call): forty keeps clear of both."""
    assert report.elapsed < scaled(40), report.elapsed
    codes = {c.code for c in report.checks}
    assert "budget_spent" in codes, sorted(codes)
    assert any(c.status is Status.PASS for c in report.checks)


OUTSIDE = Path("/tmp/embed-grader-hostile-outside.txt")  # what tests/hostile/files.py writes


@contextmanager
def outside_file(name: str, tmp_path: Path) -> Iterator[Path]:
    """The file the ``files`` attack writes outside its folder, held by one test at a time.

    Tests run in parallel workers: without the lock, the process-mode run (where the
    write succeeds, a documented limit) could make the bubblewrap run look escaped.
    The lock lives in pytest's folder that the workers of a run share (above each
    worker's own), not among the grader's temporary folders.
    """
    if name != "files":
        yield OUTSIDE
        return
    import fcntl

    with open(tmp_path.parent.parent / "hostile-files.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        OUTSIDE.unlink(missing_ok=True)
        try:
            yield OUTSIDE
        finally:
            OUTSIDE.unlink(missing_ok=True)  # the attack's file is not left behind
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with outside_file(name, tmp_path) as outside:
        attack(name, tmp_path, monkeypatch, outside)


def attack(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outside: Path) -> None:
    secret = secret_file() if name == "swap_own_file" else None
    plant_host_files(name, monkeypatch)
    try:
        report = run_attack(name, tmp_path, monkeypatch)
    finally:
        if secret is not None:
            secret.unlink()
    must, may = ATTACKS[name]
    check_blame(report, must, may)
    check_host_files(name, report)
    if name == "swap_own_file":
        check_no_secret(report)
    if name == "slow_reload":
        check_time_spent(report)
    if name == "import_grader":
        [stdlib] = [c for c in report.checks if c.id == "imports.stdlib"]
        assert stdlib.status is Status.FAIL and "grader" in stdlib.message
    if name == "files":
        assert outside.read_text() == "escaped"  # a documented limit of process mode
        outside.unlink()


@pytest.mark.skipif(sandbox.bwrap_problem() != "", reason="bubblewrap cannot run here")
@pytest.mark.parametrize(
    "name",
    ["files", "subprocesses", "fork_bomb", "signals", "import_grader", "hang", "swap_own_file"]
    + [
        "ghost_thread",
        "output_fifo",
        "output_environ",
        "output_classmate",
        "cleanup_link",
        "deep_tree",
    ]
    + ["forged_lines", "forged_loaded", "slow_reload", "colliding_keys", "fill_disk"],
)
def test_attack_in_bwrap(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with outside_file(name, tmp_path) as outside:
        attack_in_bwrap(name, tmp_path, monkeypatch, outside)


def attack_in_bwrap(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, outside: Path
) -> None:
    secret = secret_file()
    plant_host_files(name, monkeypatch)
    try:
        report = run_attack(name, tmp_path, monkeypatch, isolation="bwrap")
    finally:
        secret.unlink()
    must, may = ATTACKS[name]
    check_blame(report, must, may)
    check_host_files(name, report)
    if name == "slow_reload":
        check_time_spent(report)
    if name == "files":
        assert not outside.exists()  # /tmp of the child is its own
    if name == "swap_own_file":
        check_no_secret(report)


def hand_in_reports(module: Path) -> None:
    """Write the module's report files beside it, as ``python embed.py`` would."""
    code = "import sys; sys.path.insert(0, '.'); import embed; embed.write_report('.')"
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], cwd=module.parent, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr


def report_failures(report: Report) -> set[str]:
    return {c.id for c in report.checks if not c.ok and c.status is not Status.SKIP}


@pytest.mark.parametrize("mode", ["process", "bwrap", "auto"])
@pytest.mark.parametrize("name", sorted(REPORT_ATTACKS))
def test_report_attack(
    name: str, mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Report files a parser cannot read are the submission's fault, never a grader
    error, and cost the grader little time."""
    if mode == "bwrap" and sandbox.bwrap_problem():
        pytest.skip("bubblewrap cannot run here")
    private = tmp_path / "tmp"
    private.mkdir()
    path = hostile_module(name, tmp_path)
    hand_in_reports(path)
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    start = time.monotonic()
    report = grade(path, seed=11, timeout=scaled(1.0), isolation=mode)
    elapsed = time.monotonic() - start
    assert not report.grader_error, report.grader_error
    assert report_failures(report) == REPORT_ATTACKS[name], json.dumps(failing(report), indent=1)
    assert report.max_score == 100
    assert elapsed < scaled(20), elapsed
    assert list(private.iterdir()) == []


def test_report_attacks_in_a_batch(tmp_path: Path) -> None:
    """In a batch, each row is graded out of every step's points, step 8 included."""
    from grader.engine.batch import BatchOptions, run_batch

    for name in REPORT_ATTACKS:
        folder = tmp_path / "class" / name
        folder.mkdir(parents=True)
        hand_in_reports(hostile_module(name, folder))
    opts = BatchOptions(seed=11, jobs=2, timeout=scaled(1.0), pool="thread", force=True)
    rows = run_batch(tmp_path / "class", tmp_path / "out", opts).rows
    assert {r.id: (r.status, r.max) for r in rows} == {
        name: ("graded", 100.0) for name in REPORT_ATTACKS
    }
    assert all(r.steps[8] < 15 for r in rows)


# A Python every user can run: the children of --sandbox user run as nobody in particular.
PUBLIC_PYTHON = "/usr/bin/python3"
USER_MODE = (
    sandbox.user_problem(PUBLIC_PYTHON) if hasattr(sandbox, "user_problem") else "no user mode"
)


@pytest.mark.skipif(USER_MODE != "", reason="no unprivileged user here: %s" % USER_MODE)
@pytest.mark.parametrize(
    "name",
    ["files", "subprocesses", "ghost_thread", "signals", "hang", "swap_own_file", "fill_disk"],
)
def test_attack_as_unprivileged_user(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = secret_file()
    try:
        with outside_file(name, tmp_path):  # a user of its own may still write in /tmp
            report = run_attack(name, tmp_path, monkeypatch, isolation="user", python=PUBLIC_PYTHON)
    finally:
        secret.unlink()
    must, may = ATTACKS[name]
    check_blame(report, must, may)
    if name == "swap_own_file":
        check_no_secret(report)


def public_grader_copy() -> Path:
    """A copy of the grader package in a folder every user can read but only root
    (or the grader's own user) can write, as an installed package is."""
    base = Path(tempfile.mkdtemp(prefix="embed-grader-installed-", dir="/tmp"))
    base.chmod(0o755)
    shutil.copytree(ROOT / "grader", base / "grader", ignore=shutil.ignore_patterns("__pycache__"))
    classmate = base / "classmate"
    classmate.mkdir()
    shutil.copyfile(ROOT / "reference" / "embed_report.json", classmate / "embed_report.json")
    for path in [base, *base.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return base


MODES = [
    pytest.param("process", id="process"),
    pytest.param(
        "user",
        id="user",
        marks=pytest.mark.skipif(USER_MODE != "", reason="no unprivileged user: %s" % USER_MODE),
    ),
    pytest.param(
        "bwrap",
        id="bwrap",
        marks=pytest.mark.skipif(sandbox.bwrap_problem() != "", reason="bubblewrap cannot run"),
    ),
]


@pytest.mark.parametrize("mode", MODES)
def test_a_submission_cannot_rewrite_the_grader(mode: str, tmp_path: Path) -> None:
    """The grader (its child script above all) and a classmate's report stay as they
    were, except in process mode as the grader's own user, where only the checks of
    ``batch`` can see the change (tests/test_batch.py)."""
    base = public_grader_copy()
    try:
        targets = [
            base / "grader" / "engine" / "_child" / "protocol.py",
            base / "grader" / "engine" / "_child" / "main.py",
            base / "grader" / "labs" / "embed" / "oracle.py",
            base / "classmate" / "embed_report.json",
        ]
        before = {t: t.read_bytes() for t in targets}
        attack = (HOSTILE / "rewrite_grader.py").read_text()
        attack = attack.replace("TARGETS = []", "TARGETS = %r" % [str(t) for t in targets])
        attack = attack.replace("ARMED = False", "ARMED = True")
        module = tmp_path / "embed.py"
        module.write_text(REFERENCE.read_text() + "\n\n" + attack)
        module.chmod(0o644)
        tmp_path.chmod(0o755)
        args = [sys.executable, "-m", "grader", str(module), "--seed", "4", "--no-report"]
        args += ["--timeout", str(scaled(2)), "--sandbox", mode]
        if mode == "user":
            args += ["--python", PUBLIC_PYTHON]
        env = dict(os.environ, PYTHONPATH=str(base))
        done = subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=base, env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        after = {t: t.read_bytes() for t in targets}
        rewritten = sorted(t.name for t in targets if after[t] != before[t])
        if mode == "process" and os.geteuid() == 0:
            # The child is root too: it can write anything (a documented limit).
            assert rewritten, "the attack did not even try"
        else:
            assert rewritten == []
    finally:
        shutil.rmtree(base)


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
    )


def test_kill_parent_process_mode(tmp_path: Path) -> None:
    """The child may signal the grader (same user): the grader says so, exit 2, no score."""
    path = hostile_module("kill_parent", tmp_path)
    done = cli(str(path), "--seed", "3", "--no-report", "--timeout", str(scaled(1)))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "grader error" in done.stdout + done.stderr
    assert "score" not in done.stdout
    assert not leftovers()


@pytest.mark.skipif(sandbox.bwrap_problem() != "", reason="bubblewrap cannot run here")
def test_kill_parent_bwrap(tmp_path: Path) -> None:
    """Under bubblewrap the grader's pid is not visible: only rms fails."""
    path = hostile_module("kill_parent", tmp_path)
    done = cli(
        str(path), "--seed", "3", "--no-report", "--timeout", str(scaled(1)), "--sandbox", "bwrap"
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "rms.values" in done.stdout and "grader error" not in done.stdout


def test_one_hanging_function_at_the_default_time_limit(tmp_path: Path) -> None:
    path = tmp_path / "embed.py"
    path.write_text(REFERENCE.read_text() + "\n\ndef dot(a, b):\n    while True:\n        pass\n")
    start = time.monotonic()
    report = grade(path, seed=5, check_reports=False)
    elapsed = time.monotonic() - start
    assert report.blamed() == {"dot"}, failing(report)
    assert elapsed < scaled(15), elapsed


def test_nothing_in_the_child_holds_an_expected_value(tmp_path: Path) -> None:
    """The first call of a batch looks at every float in gc objects, frames and modules."""
    dump = tmp_path / "seen.json"
    probe = (
        "\n\nimport gc as _gc, sys as _sys, json as _json\n"
        "_seen = []\n"
        "_shape = shape\n"
        "def _floats(x, out, depth=0):\n"
        "    if type(x) is float: out.add(x.hex())\n"
        "    elif depth < 6 and type(x) in (list, tuple):\n"
        "        for e in x: _floats(e, out, depth + 1)\n"
        "    elif depth < 6 and type(x) is dict:\n"
        "        for e in list(x.values()): _floats(e, out, depth + 1)\n"
        "def shape(matrix):\n"
        "    if not _seen:\n"
        "        out = set()\n"
        "        for o in _gc.get_objects(): _floats(o, out)\n"
        "        f = _sys._getframe(0)\n"
        "        while f is not None:\n"
        "            _floats(dict(f.f_locals), out); f = f.f_back\n"
        "        for m in list(_sys.modules.values()):\n"
        "            _floats(dict(getattr(m, '__dict__', {})), out)\n"
        "        _seen.append(1)\n"
        "        with open(%r, 'w') as fh: _json.dump(sorted(out), fh)\n"
        "    return _shape(matrix)\n" % str(dump)
    )
    path = tmp_path / "embed.py"
    path.write_text(REFERENCE.read_text() + probe)
    # Walking every object of the child takes a while: its limit is far from that.
    report = grade(path, seed=21, check_reports=False, timeout=scaled(10))
    assert not report.blamed(), failing(report)
    seen = {float.fromhex(h) for h in json.loads(dump.read_text())}

    from grader.labs.embed.checks import CHECKS, Multiplies, Returns, build

    inputs: set[float] = set()
    expected: set[float] = set()

    def floats(x: object, out: set[float]) -> None:
        if type(x) is float:
            out.add(x)
        elif isinstance(x, (list, tuple)):
            for e in x:
                floats(e, out)

    for check in CHECKS:
        for case in build(check, 21):
            floats(case.args, inputs)
            if isinstance(case.expect, (Returns, Multiplies)):
                floats(case.expect.value, expected)
    # Round numbers (0.5, 0.01, ...) are everywhere: only values with many digits count.
    secret = {x for x in expected - inputs if len(repr(x)) > 8}
    assert len(secret) > 100  # the check would see something if there were anything
    assert len(seen & inputs) > 100  # the probe did find the inputs
    assert not secret & seen, sorted(secret & seen)[:10]


def test_environment_carries_no_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMBED_GRADER_SECRET", "xyz")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "abc")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    path = tmp_path / "embed.py"
    path.write_text("import os\n\ndef environ():\n    return sorted(os.environ.items())\n")
    for isolation in ["process"] + (["bwrap"] if not sandbox.bwrap_problem() else []):
        with sandbox.Sandbox(path, names=("environ",), isolation=isolation) as box:
            assert box.load().ok
            [out] = box.run([sandbox.Call(0, "environ", ())])
            env = dict(out.value)
            assert set(env) <= {"PATH", "LANG", "HOME", "PWD", sandbox.MARKER}, env
            assert "xyz" not in str(env) and "abc" not in str(env)
            assert env["HOME"] == box.home() and os.getcwd() != box._tmp
