"""Reading and removing what untrusted code could have replaced (grader/engine/safefs.py)."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from grader.engine import safefs


def test_reads_a_regular_file_up_to_the_limit(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"x" * 100)
    read = safefs.read_regular(str(tmp_path / "a.txt"), 10)
    assert read.data == b"x" * 10 and read.size == 100 and read.cut
    whole = safefs.read_regular(str(tmp_path / "a.txt"), 1000)
    assert whole.data == b"x" * 100 and not whole.cut


def test_refuses_a_link_even_to_a_readable_file(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("token=abc")
    (tmp_path / "out.txt").symlink_to(secret)
    with pytest.raises(safefs.NotRegular, match="symbolic link"):
        safefs.read_regular(str(tmp_path / "out.txt"), 100)


def test_refuses_a_named_pipe_without_blocking(tmp_path):
    fifo = tmp_path / "out.txt"
    os.mkfifo(fifo)
    done: list[BaseException] = []

    def read() -> None:
        try:
            safefs.read_regular(str(fifo), 100)
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            done.append(exc)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(5)
    assert not t.is_alive(), "reading a named pipe blocked"
    assert done and isinstance(done[0], safefs.NotRegular)
    assert "named pipe" in str(done[0])


def test_refuses_a_folder_and_relative_to_a_folder_descriptor(tmp_path):
    (tmp_path / "d").mkdir()
    (tmp_path / "f").write_text("hello")
    with pytest.raises(safefs.NotRegular, match="folder"):
        safefs.read_regular(str(tmp_path / "d"), 100)
    dfd = os.open(tmp_path, os.O_RDONLY)
    try:
        assert safefs.read_regular("f", 100, dir_fd=dfd).data == b"hello"
    finally:
        os.close(dfd)


def test_a_missing_file_is_an_os_error_not_a_kind(tmp_path):
    with pytest.raises(FileNotFoundError):
        safefs.read_regular(str(tmp_path / "nope"), 10)


def test_removal_does_not_follow_links_nor_change_their_targets(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    host = outside / "host.txt"
    host.write_text("keep me")
    host.chmod(0o600)
    tree = tmp_path / "tree"
    (tree / "ro").mkdir(parents=True)
    (tree / "ro" / "link").symlink_to(host)
    (tree / "dirlink").symlink_to(outside)
    (tree / "ro").chmod(0o500)
    assert safefs.remove_tree(str(tree))
    assert not tree.exists()
    assert host.read_text() == "keep me"
    assert stat.S_IMODE(host.stat().st_mode) == 0o600
    assert outside.is_dir()


def test_removal_of_a_very_deep_tree_finishes(tmp_path):
    tree = tmp_path / "tree"
    tree.mkdir()
    fd = os.open(tree, os.O_RDONLY)
    try:
        for _ in range(3000):
            os.mkdir("d", dir_fd=fd)
            nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        with open(os.open("leaf", os.O_WRONLY | os.O_CREAT, dir_fd=fd), "w") as f:
            f.write("x")
    finally:
        os.close(fd)
    assert safefs.remove_tree(str(tree))
    assert not tree.exists()


def test_removal_of_unreadable_folders(tmp_path):
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f").write_text("x")
    (tree / "a" / "b").chmod(0)
    (tree / "a").chmod(0o500)
    assert safefs.remove_tree(str(tree))
    assert not tree.exists()


def test_removing_a_link_removes_only_the_link(tmp_path):
    target = tmp_path / "target"
    target.mkdir()
    (target / "f").write_text("x")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert safefs.remove_tree(str(link))
    assert not os.path.lexists(link)
    assert (target / "f").read_text() == "x"
