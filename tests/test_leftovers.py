"""The folders (and, as root, the tmpfs mounts) of a grader killed outright are
removed by the next grader that starts a child in the same temporary folder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from timelimits import scaled

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
