"""The folders (and, as root, the tmpfs mounts) of a grader killed outright are
removed by the next grader that starts a child in the same temporary folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from timelimits import scaled

from grader.engine import safefs
from grader.engine.sandbox import disk, leftovers

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(leftovers.fcntl is None, reason="no flock here")

# A grader that starts a child, says where the child's folder is, and waits.
GRADER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from grader.engine.sandbox import Sandbox
    box = Sandbox(Path(sys.argv[1]), names=("dot",), isolation="process")
    box.load()
    print(box.home(), box._proc.pid, flush=True)
    time.sleep(600)
    """
)


def _old(path: Path) -> None:
    then = time.time() - 10 * leftovers.STALE_AFTER
    os.utime(path, (then, then), follow_symlinks=False)


def test_a_killed_graders_folder_is_removed_by_the_next_one(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    module = tmp_path / "embed.py"
    module.write_text("def dot(a, b):\n    return 0.0\n")
    env = dict(os.environ, TMPDIR=str(temp), PYTHONPATH=str(ROOT))
    grader = subprocess.Popen(
        [sys.executable, "-c", GRADER, str(module)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert grader.stdout is not None
        folder, child = grader.stdout.readline().split()
        path = Path(folder)
        assert path.parent == temp and (path / "embed.py").exists()
        _old(path)
        assert leftovers.sweep(str(temp), disk.unmount_share) == []  # held while it lives
        assert path.exists()
    finally:
        grader.kill()
        grader.wait(scaled(60))
    try:
        os.kill(int(child), signal.SIGKILL)  # its child outlives it; it is not the point here
    except OSError:
        pass
    assert path.exists()  # a grader killed outright removes nothing
    _old(path)
    assert leftovers.sweep(str(temp), disk.unmount_share) == [str(path)]
    assert not path.exists() and not os.path.ismount(path)
    with open("/proc/self/mounts") as f:
        assert str(path) not in f.read()


def test_only_old_unheld_folders_of_children_are_removed(tmp_path: Path) -> None:
    stale = tmp_path / "embed-grader-abcd_123"
    young = tmp_path / "embed-grader-young123"
    held = tmp_path / "embed-grader-held1234"
    other = tmp_path / "embed-grader-users-0"
    target = tmp_path / "elsewhere"
    link = tmp_path / "embed-grader-linkto12"
    plain = tmp_path / "embed-grader-filefile"
    for folder in (stale, young, held, other, target):
        folder.mkdir()
        (folder / "embed.py").write_text("x = 1\n")
    link.symlink_to(target)
    plain.write_text("not a folder")
    for path in (stale, held, other, target, link, plain):
        _old(path)
    fd = leftovers.hold(str(held))
    assert fd is not None
    try:
        assert leftovers.hold(str(held)) is None  # one holder at a time
        assert leftovers.sweep(str(tmp_path), disk.unmount_share) == [str(stale)]
    finally:
        os.close(fd)
    assert not stale.exists()
    for kept in (young, held, other, target, link, plain):
        assert os.path.lexists(kept), kept
    assert (target / "embed.py").exists()


@pytest.mark.skipif(not disk.can_mount(), reason="only root can mount a tmpfs")
def test_a_tmpfs_left_mounted_is_unmounted_and_removed(tmp_path: Path) -> None:
    folder = tmp_path / "embed-grader-mounted1"
    folder.mkdir()
    if not disk.mount_share(str(folder), os.getuid(), os.getgid()):
        pytest.skip("the kernel refuses the mount")
    (folder / "written").write_text("the child's")
    _old(folder)
    assert os.path.ismount(folder)
    assert leftovers.sweep(str(tmp_path), disk.unmount_share) == [str(folder)]
    assert not folder.exists() and not os.path.ismount(folder)


def test_the_first_child_a_process_starts_sweeps_its_temporary_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    from grader.engine.sandbox import Sandbox

    temp = tmp_path / "tmp"
    temp.mkdir()
    stale = temp / "embed-grader-left1234"
    stale.mkdir()
    (stale / "embed.py").write_text("x = 1\n")
    _old(stale)
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setattr(leftovers, "_swept", set())
    module = tmp_path / "embed.py"
    module.write_text("def dot(a, b):\n    return 0.0\n")
    with Sandbox(module, names=("dot",), isolation="process") as box:
        box.load()
        deadline = time.monotonic() + scaled(30)
        while stale.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not stale.exists()
        assert Path(box.home()).exists()  # its own folder, held, stays


# A child (its own unprivileged user) plants stale-looking folders where it may write
# and swaps them for links to a mount of the grader's machine while sweeps look at them.
SWAPPER = textwrap.dedent(
    """
    import os, sys, time
    where, bait, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    names = [os.path.join(where, "embed-grader-bait%04d" % i) for i in range(2)]
    then = time.time() - 3600
    for name in names:
        os.mkdir(name)
        os.utime(name, (then, then))
    print("ready", flush=True)
    end = time.time() + seconds
    while time.time() < end:
        for name in names:
            try:
                if not os.path.lexists(name):  # a sweep removed it: plant it again
                    os.mkdir(name)
                    os.utime(name, (then, then))
                os.rename(name, name + ".x")
                os.symlink(bait, name)
                os.unlink(name)
                os.rename(name + ".x", name)
                os.utime(name, (then, then))
            except OSError:
                pass
    """
)


@pytest.mark.skipif(not disk.can_mount(), reason="only root can mount a tmpfs")
def test_a_child_cannot_turn_the_sweep_on_a_mount_of_its_choice() -> None:
    from grader.engine.sandbox import users

    base = Path(tempfile.mkdtemp(prefix="eg-sweep-", dir="/tmp"))
    try:
        base.chmod(0o755)
        # Deep: a sweep that resolves the path takes long enough for the race to be won
        # within a few tries (on a shallow /tmp it takes thousands).
        temp = base.joinpath(*["d"] * 40, "tmp")
        temp.mkdir(parents=True)
        temp.chmod(0o1777)  # as /tmp: every child may write there
        # The bait is a mount inside another: its parent is on a device of its own, as
        # /dev/shm's or /proc's is, and a sweep that follows a link takes it for a mount.
        outer = base / "outer"
        outer.mkdir()
        if not disk.mount_share(str(outer), 0, 0):
            pytest.skip("the kernel refuses the mount")
        bait = outer / "bait"
        bait.mkdir()
        assert disk.mount_share(str(bait), 0, 0)
        (bait / "kept").write_text("the machine's")
        uid = users.FIRST_UID + users.COUNT - 1
        swapper = subprocess.Popen(
            ["/usr/bin/python3", "-I", "-S", "-c", SWAPPER, str(temp), str(bait), str(scaled(20))],
            stdout=subprocess.PIPE,
            text=True,
            user=uid,
            group=uid,
            extra_groups=[],
        )
        try:
            assert swapper.stdout is not None and swapper.stdout.readline() == "ready\n"
            tries = swept = 0
            errors: list[BaseException] = []
            while swapper.poll() is None and tries < 20000 and os.path.ismount(bait):
                try:
                    swept += len(leftovers.sweep(str(temp), disk.unmount_share))
                except OSError as exc:  # a sweep a child can stop is a defect too
                    errors.append(exc)
                tries += 1
            assert os.path.ismount(bait), "a sweep detached the bait after %d sweeps" % tries
            assert os.path.ismount(outer)
            assert (bait / "kept").read_text() == "the machine's"
            assert errors == []
            assert swept > 0  # the planted folders were taken for leftovers, and removed
        finally:
            swapper.kill()
            swapper.wait()
    finally:
        for mount in (base / "outer" / "bait", base / "outer"):
            while os.path.ismount(mount):
                disk.unmount_share(str(mount))
        safefs.remove_tree(str(base))
