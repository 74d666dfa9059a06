"""Who the child runs as and what it can reach, per isolation; links the single-file
command and the Gradescope runner refuse or follow."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from timelimits import scaled

from grader.engine import sandbox
from grader.engine.commands.cli import main
from grader.engine.sandbox import Call, Sandbox, processes, users

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"
PUBLIC_PYTHON = "/usr/bin/python3"
USER_MODE = sandbox.user_problem(PUBLIC_PYTHON)
BWRAP = sandbox.bwrap_problem()

PROBE = """
import os, sys

def who():
    with open("/proc/self/status") as f:
        caps = [l.split()[1] for l in f if l.startswith("CapEff")]
    return [os.getuid(), os.getgid(), os.getgroups(), caps[0], sys.argv[0]]

def write(path):
    try:
        with open(path, "a") as f:
            f.write("x")
        return "written"
    except OSError as exc:
        return type(exc).__name__

def linger():
    import subprocess
    subprocess.Popen(["sleep", "600"], start_new_session=True, env={})
    return 1
"""

MODES = [
    pytest.param("process", None, id="process"),
    pytest.param(
        "user",
        PUBLIC_PYTHON,
        id="user",
        marks=pytest.mark.skipif(USER_MODE != "", reason="no unprivileged user: %s" % USER_MODE),
    ),
    pytest.param(
        "bwrap",
        None,
        id="bwrap",
        marks=pytest.mark.skipif(BWRAP != "", reason="bubblewrap cannot run: %s" % BWRAP),
    ),
]


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    tmp_path.chmod(0o755)
    path = tmp_path / "embed.py"
    path.write_text(PROBE)
    path.chmod(0o644)
    return path


@pytest.mark.parametrize("mode,python", MODES)
def test_the_child_script_is_no_file(probe: Path, mode: str, python: str | None) -> None:
    """The child's program comes with -c: sys.argv[0] names no file a child could change."""
    with Sandbox(probe, names=("who",), isolation=mode, python=python) as box:
        assert box.load().ok
        [out] = box.run([Call(0, "who", ())])
    assert out.value[4] == "-c"


@pytest.mark.skipif(os.geteuid() != 0, reason="the grader does not run as root")
@pytest.mark.parametrize("mode,python", MODES[1:])
def test_as_root_the_child_is_an_unprivileged_user(
    probe: Path, tmp_path: Path, mode: str, python: str | None
) -> None:
    owned = tmp_path / "owned-by-root.txt"
    owned.write_text("root's\n")
    owned.chmod(0o644)
    with Sandbox(probe, names=("who", "write"), isolation=mode, python=python) as box:
        assert box.load().ok
        who, wrote = box.run([Call(0, "who", ()), Call(1, "write", (str(owned),))])
    uid, gid, groups, caps, _ = who.value
    assert users.FIRST_UID <= uid < users.FIRST_UID + users.COUNT and gid == uid
    assert groups == [] and int(caps, 16) == 0
    assert wrote.value in ("PermissionError", "FileNotFoundError")  # unseen under bwrap
    assert owned.read_text() == "root's\n"


@pytest.mark.skipif(USER_MODE != "", reason="no unprivileged user: %s" % USER_MODE)
def test_children_at_once_have_users_of_their_own_and_leave_nothing(probe: Path) -> None:
    """Two children graded at the same time never share a user (neither can signal
    the other), and nothing running as a child's user survives it."""
    seen: list[int] = []

    def one() -> None:
        with Sandbox(probe, names=("who", "linger"), isolation="user", python=PUBLIC_PYTHON) as b:
            assert b.load().ok
            who, _ = b.run([Call(0, "who", ()), Call(1, "linger", ())])
            seen.append(who.value[0])
            assert users.processes_of(who.value[0])  # the sleep still runs here

    threads = [threading.Thread(target=one) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(seen)) == 3
    assert all(users.processes_of(uid) == [] for uid in seen)


def test_strongest_prefers_bubblewrap_then_a_user() -> None:
    best = sandbox.strongest()
    if not BWRAP:
        assert best == "bwrap"
    elif os.geteuid() == 0 and not sandbox.user_problem(sys.executable):
        assert best == "user"
    else:
        assert best == "process" and sandbox.weaker_note(best)
    assert sandbox.weaker_note("bwrap") == ""
    # user mode is exposed only where the child cannot wall itself off
    from grader.engine.sandbox import walls

    assert (sandbox.weaker_note("user") == "") == bool(walls.landlock_abi())


# The single-file command and the Gradescope runner ----------------------------------


def linked_reports(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    os.symlink(REFERENCE / "embed_report.json", folder / "embed_report.json")
    os.symlink("/etc/passwd", folder / "embed_report.md")


def test_a_linked_module_named_by_the_user_is_graded_but_linked_reports_are_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = tmp_path / "work"
    linked_reports(work)
    os.symlink(ROOT / "embed.py", work / "embed.py")
    args = [str(work / "embed.py"), "--seed", "2", "--format", "json", "--report-dir", str(work)]
    status = main(args)
    data = json.loads(capsys.readouterr().out)
    assert status == 1
    codes = {c["id"]: c.get("code") for c in data["checks"]}
    # The code writes its own reports; the linked ones handed in are not read.
    assert codes["report.json.file"] == codes["report.md.file"] == "report.file.ok"
    assert codes["report.same"] == "report.same.differs"
    assert 85 < data["score"] < 100
    assert "root:" not in json.dumps(data)


@pytest.mark.parametrize("lang,word", [("en", "symbolic link"), ("ko", "링크"), ("zh", "链接")])
def test_within_refuses_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lang: str, word: str
) -> None:
    sub = tmp_path / "submission"
    sub.mkdir()
    os.symlink(ROOT / "embed.py", sub / "embed.py")
    status = main([str(sub / "embed.py"), "--within", str(sub), "--lang", lang])
    assert status == 2 and word in capsys.readouterr().err
    (sub / "embed.py").unlink()
    shutil.copyfile(ROOT / "embed.py", sub / "embed.py")
    os.symlink(REFERENCE, sub / "reports")  # a report folder reached through a link
    status = main(
        [str(sub / "embed.py"), "--within", str(sub), "--report-dir", str(sub / "reports")]
    )
    assert status == 2 and "reports" in capsys.readouterr().err
    status = main([str(sub / "embed.py"), "--within", str(sub), "--report-dir", str(REFERENCE)])
    assert status == 0, capsys.readouterr()


RUNNER = ROOT / "ci-templates" / "gradescope" / "run_autograder"


def run_autograder(tmp_path: Path, fill: object) -> dict[str, object]:
    root = tmp_path / "autograder"
    (root / "submission").mkdir(parents=True)
    fill(root / "submission")  # type: ignore[operator]
    env = dict(os.environ, AUTOGRADER_ROOT=str(root), EMBED_GRADER_SEED="5")
    env["EMBED_GRADER"] = "%s -m grader" % sys.executable
    done = subprocess.run(
        ["bash", str(RUNNER)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads((root / "results" / "results.json").read_text())
    return data


def test_the_gradescope_runner_refuses_a_linked_module(tmp_path: Path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_text("raise RuntimeError('SECRET-LINE')\n")
    data = run_autograder(tmp_path, lambda d: os.symlink(secret, d / "embed.py"))
    assert data["score"] == 0
    assert "symbolic link" in str(data["output"]) and "SECRET" not in json.dumps(data)


def test_the_gradescope_runner_does_not_read_linked_reports(tmp_path: Path) -> None:
    def fill(d: Path) -> None:
        shutil.copyfile(ROOT / "embed.py", d / "embed.py")
        linked_reports(d)

    data = run_autograder(tmp_path, fill)
    assert 85 < data["score"] < 100 and "root:" not in json.dumps(data)


PY38 = "/root/.pyenv/versions/3.8.18/bin/python3.8"


@pytest.mark.skipif(not os.path.exists(PY38), reason="no Python 3.8 here")
@pytest.mark.skipif(BWRAP != "", reason="bubblewrap cannot run: %s" % BWRAP)
def test_python38_under_bubblewrap(probe: Path) -> None:
    """The child's program runs on 3.8 too, from an installation only root may enter
    when the grader is root (the folders above it are opened inside the sandbox only)."""
    with Sandbox(probe, names=("who",), isolation="bwrap", python=PY38) as box:
        assert box.load().ok
        [out] = box.run([Call(0, "who", ())])
        assert box.python_version.startswith("3.8.")
    assert out.value[4] == "-c"
    if os.geteuid() == 0:
        assert out.value[0] >= users.FIRST_UID


@pytest.mark.parametrize("mode,python", MODES)
def test_the_parent_never_reads_through_a_link_the_child_made(
    tmp_path: Path, mode: str, python: str | None
) -> None:
    """The child swaps its output file for a link to a file only root may read; the
    grader (root, here) must not read it into the student's feedback."""
    secret = tmp_path / "root-only.txt"
    secret.write_text("SECRET-OF-THE-GRADER\n")
    secret.chmod(0o600)
    tmp_path.chmod(0o755)
    module = tmp_path / "embed.py"
    module.write_text(
        "import os\ntry:\n    os.unlink('output.txt')\nexcept OSError:\n    pass\n"
        "os.symlink(%r, 'output.txt')\n" % str(secret)
    )
    module.chmod(0o644)
    with Sandbox(module, names=(), isolation=mode, python=python) as box:
        loaded = box.load()
    assert loaded.ok and "SECRET" not in loaded.output


CGROUPS = bool(processes.cgroups_usable() and processes.Cgroup.roots())


@pytest.mark.skipif(not CGROUPS, reason="no pids cgroup can be made here (Linux, as root)")
@pytest.mark.parametrize("mode,python", MODES)
def test_every_process_of_the_child_is_in_its_cgroup_once_loaded(
    probe: Path, mode: str, python: str | None
) -> None:
    # bubblewrap forks the child's processes as soon as it starts: moving only the
    # process the grader started would leave them (and all they fork) outside.
    with Sandbox(probe, names=("who",), isolation=mode, python=python) as box:
        assert box.load().ok
        group, proc = box._cgroup, box._proc
        assert group is not None and proc is not None
        family = {proc.pid, *processes.descendants(proc.pid)}
        if mode == "bwrap":
            assert len(family) >= 2
        assert family <= set(group.pids())


ORACLE = ROOT / "grader" / "labs" / "embed" / "oracle.py"
HOSTILE = Path(__file__).resolve().parent / "hostile"
AUTO = pytest.param(
    "auto",
    PUBLIC_PYTHON,
    id="auto",
    marks=pytest.mark.skipif(
        BWRAP != "" and USER_MODE != "", reason="auto is process mode here: %s" % BWRAP
    ),
)


@pytest.mark.parametrize("mode,python", MODES + [AUTO])
def test_the_child_reads_no_file_of_the_grader(
    tmp_path: Path, mode: str, python: str | None
) -> None:
    """The child cannot read the grader's installation, the lab's oracle, a checkout's
    answers or the grader's /proc entry, by any route it can find, even when it knows
    the paths: in every mode that claims isolation.  In process mode it can, and a
    batch says so."""
    import grader
    from grader.engine.sandbox import walls

    if mode == "user" and not walls.landlock_abi():
        pytest.skip("the kernel has no Landlock: a batch says so (%s)" % sandbox.weaker_note(mode))
    known = [str(ORACLE.resolve()), str(ROOT / "embed.py"), str(REFERENCE / "embed_report.json")]
    known.append(str(Path(grader.__file__).resolve()))
    assert all(Path(k).is_file() for k in known)
    tmp_path.chmod(0o755)
    module = tmp_path / "embed.py"
    module.write_text((HOSTILE / "read_oracle.py").read_text() + "\nKNOWN[:] = %r\n" % known)
    module.chmod(0o644)
    limit = scaled(30)
    with Sandbox(module, names=("steal",), isolation=mode, python=python, timeout=limit) as box:
        assert box.load().ok
        [out] = box.run([Call(0, "steal", ())])
    assert out.kind == "returned", out
    if mode == "process":
        assert out.value["known"] == known[0] and "proc-cmdline" in out.value
        assert box.walled is None and sandbox.weaker_note("process")
        return
    assert out.value == {}
    # Walled off by Landlock where there is one (bwrap hides the folders without it).
    assert box.walled is bool(walls.landlock_abi())


def test_without_landlock_user_mode_says_the_grader_can_be_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from grader.engine.sandbox import walls

    monkeypatch.setattr(walls, "landlock_abi", lambda: 0)
    assert "Landlock" in sandbox.weaker_note("user")
    assert sandbox.weaker_note("bwrap") == ""  # bubblewrap hides the installation itself
    monkeypatch.setattr(walls, "landlock_abi", lambda: 1)
    assert sandbox.weaker_note("user") == ""


READER = """
def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError as exc:
        return type(exc).__name__
"""


@pytest.mark.skipif(BWRAP != "", reason="bubblewrap cannot run: %s" % BWRAP)
def test_bubblewrap_hides_an_installation_in_a_system_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grader installed under /usr (as pip does for the system's Python) is out of
    sight in bubblewrap even where the child has no Landlock walls."""
    import tempfile

    from grader.engine.sandbox import walls

    shared = Path("/usr/local/share")
    if not os.access(shared, os.W_OK):
        pytest.skip("cannot write in %s" % shared)
    installed = Path(tempfile.mkdtemp(prefix="embed-grader-installed-", dir=shared))
    try:
        installed.chmod(0o755)
        oracle = installed / "oracle.py"
        oracle.write_text("ANSWER = 42\n")
        oracle.chmod(0o644)
        monkeypatch.setattr(walls, "kept_out", lambda: (str(installed),))
        monkeypatch.setattr(walls, "child_variable", lambda: "[]")  # no Landlock walls
        tmp_path.chmod(0o755)
        module = tmp_path / "embed.py"
        module.write_text(READER)
        module.chmod(0o644)
        with Sandbox(module, names=("read",), isolation="bwrap") as box:
            assert box.load().ok
            [out] = box.run([Call(0, "read", (str(oracle),))])
        assert out.value == "FileNotFoundError", out
    finally:
        shutil.rmtree(installed)


@pytest.mark.skipif(USER_MODE != "", reason="no unprivileged user: %s" % USER_MODE)
def test_landlock_keeps_out_an_installation_inside_a_system_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The walls let the child read /usr but not the grader installed in it: the folder
    that holds it is let in entry by entry, the installation left out."""
    import tempfile

    from grader.engine.sandbox import walls

    if not walls.landlock_abi():
        pytest.skip("the kernel has no Landlock")
    shared = Path("/usr/local/share")
    if not os.access(shared, os.W_OK):
        pytest.skip("cannot write in %s" % shared)
    installed = Path(tempfile.mkdtemp(prefix="embed-grader-installed-", dir=shared))
    beside = Path(tempfile.mkdtemp(prefix="embed-grader-beside-", dir=shared))
    try:
        for folder in (installed, beside):
            folder.chmod(0o755)
            (folder / "oracle.py").write_text("ANSWER = 42\n")
            (folder / "oracle.py").chmod(0o644)
        monkeypatch.setattr(walls, "kept_out", lambda: (str(installed),))
        tmp_path.chmod(0o755)
        module = tmp_path / "embed.py"
        module.write_text(READER)
        module.chmod(0o644)
        with Sandbox(module, names=("read",), isolation="user", python=PUBLIC_PYTHON) as box:
            assert box.load().ok
            calls = [
                Call(i, "read", (str(f / "oracle.py"),)) for i, f in enumerate((installed, beside))
            ]
            hidden, seen = box.run(calls)
            assert box.walled is True
        assert hidden.value == "PermissionError" and seen.value == "ANSWER = 42\n"
    finally:
        shutil.rmtree(installed)
        shutil.rmtree(beside)


def _walled_report(tmp_path: Path, isolation: str, python: str | None = None) -> Any:
    from grader.engine.grading.grade import grade

    reference = Path(__file__).resolve().parent.parent / "embed.py"
    tmp_path.chmod(0o755)
    module = tmp_path / "embed.py"
    module.write_bytes(reference.read_bytes())
    module.chmod(0o644)
    return grade(
        module,
        seed=3,
        upto=2,
        check_reports=False,
        isolation=isolation,
        python=python,
        timeout=scaled(3),
    )


def test_a_single_grading_says_when_its_child_could_read_the_grader(tmp_path: Path) -> None:
    """The result of one grading records whether its child, run as a user of its own,
    could still read the grader's files (never in process mode, where the batch's warning
    says it, nor in bwrap, which hides them), and its text says so when it could."""
    import dataclasses

    from grader.engine.output.render import render_json, render_text

    report = _walled_report(tmp_path, "process")
    assert report.meta["exposed"] is False
    assert "Landlock" not in render_text(report)
    bare = dataclasses.replace(report, meta={**report.meta, "exposed": True})
    for lang in ("en", "ko", "zh"):
        assert "Landlock" in render_text(bare, lang=lang), lang
    assert json.loads(render_json(bare))["meta"]["exposed"] is True


@pytest.mark.skipif(USER_MODE != "", reason="no unprivileged user: %s" % USER_MODE)
def test_user_mode_records_its_walls(tmp_path: Path) -> None:
    from grader.engine.output.render import render_text
    from grader.engine.sandbox import walls

    report = _walled_report(tmp_path, "user", PUBLIC_PYTHON)
    assert report.meta["exposed"] is (not walls.landlock_abi())
    assert ("Landlock" in render_text(report)) is (not walls.landlock_abi())


@pytest.mark.skipif(BWRAP != "", reason="bubblewrap cannot run: %s" % BWRAP)
def test_bubblewrap_is_never_said_to_expose_the_grader(tmp_path: Path) -> None:
    from grader.engine.output.render import render_text

    report = _walled_report(tmp_path, "bwrap")
    assert report.meta["exposed"] is False
    assert "Landlock" not in render_text(report)
