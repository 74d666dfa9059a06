"""Each child's share of disk, and a grading machine that runs short of something.

A submission that fills the disk pays for it alone; a classmate graded meanwhile is
graded as if it were not there.  A shortage of the machine itself is never charged
to a submission: the grading is tried once more, then the submission is "not
graded" (exit status 2, a row that is not cached, a line at the end of the batch).
The file systems these tests fill are small tmpfs mounts of their own (root only).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from timelimits import scaled, slowness

from grader import grade
from grader.engine import sandbox
from grader.engine.batch import BatchOptions, run_batch
from grader.engine.batch.cache import CACHE_FILE
from grader.engine.commands.cli import main
from grader.engine.sandbox import MachineFault, disk, twice
from grader.engine.sandbox.loading import Loading
from grader.labs.embed.contract import MAX_SCORE

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
REPORTS = ("embed_report.json", "embed_report.md")

BWRAP = pytest.mark.skipif(sandbox.bwrap_problem() != "", reason="bubblewrap cannot run here")
# process as root: a tmpfs of its own; walked: process mode where none can be mounted
MODES = [
    pytest.param("process", id="process"),
    pytest.param("walked", id="walked"),
    pytest.param("bwrap", id="bwrap", marks=BWRAP),
    pytest.param("auto", id="auto"),
]


def _mount(folder: Path, options: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system to fill needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: %s" % done.stderr.strip())


@contextmanager
def small_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, options: str) -> Iterator[Path]:
    """A tmpfs of its own as the grader's temporary folder, unmounted afterwards."""
    folder = tmp_path / "tmpfs"
    folder.mkdir()
    _mount(folder, options)
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def use_mode(mode: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The isolation to grade with; ``walked``: process mode with no tmpfs to mount."""
    if mode == "walked":
        monkeypatch.setattr(disk, "can_mount", lambda: False)
        return "process"
    return mode


def fill_inodes(folder: Path, leave: int = 0) -> None:
    """Use every inode of the file system at ``folder`` but ``leave`` of them."""
    made = []
    for i in range(1 << 20):
        try:
            (folder / ("f%d" % i)).touch()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc
            break
        made.append(i)
    for i in made[len(made) - leave :] if leave else []:
        (folder / ("f%d" % i)).unlink()


def fill_bytes(folder: Path) -> None:
    """Use every byte of the file system at ``folder``."""
    with open(folder / "filler.bin", "wb") as f:
        block = b"\0" * (1 << 20)
        try:
            while True:
                f.write(block)
                f.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC, exc


def mounts_below(folder: Path) -> list[str]:
    with open("/proc/self/mountinfo") as f:
        return [line for line in f if " %s/" % folder in line]


def submission(root: Path, name: str, attack: str | None = None) -> None:
    d = root / name
    d.mkdir(parents=True)
    source = (ROOT / "embed.py").read_text()
    if attack is not None:
        source += "\n\n" + (HOSTILE / ("%s.py" % attack)).read_text()
    (d / "embed.py").write_text(source)
    for n in REPORTS:
        shutil.copyfile(ROOT / "reference" / n, d / n)


# A submission that fills the disk ------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_a_classmate_does_not_pay_for_the_disk_another_fills(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``fill_disk`` writes files just under the per-file limit until the disk is full,
    then keeps its child alive with slow calls while its classmates are graded: it
    loses the points of its own two functions, and every classmate gets full marks
    (before each child had a share of its own, they lost the report's 15 points)."""
    isolation = use_mode(mode, monkeypatch)
    root = tmp_path / "class"
    submission(root, "a_filler", "fill_disk")
    # stretch's slow calls must use up its time on a busy machine too: they slow down
    # with the limit.
    factor = slowness()
    filler = root / "a_filler" / "embed.py"
    slow = filler.read_text().replace("_time.sleep(0.5)", "_time.sleep(%r)" % (0.5 * factor))
    filler.write_text(slow)
    for name in ("b", "c", "d"):
        submission(root, name)
    with small_tmpdir(tmp_path, monkeypatch, "size=320m") as tmp:
        limit = scaled(1.0, factor)
        opts = BatchOptions(seed=5, jobs=2, pool="thread", timeout=limit, isolation=isolation)
        result = run_batch(root, tmp_path / "out", opts)
        left = list(tmp.iterdir())
        mounted = mounts_below(tmp)
    rows = {r.id: r for r in result.rows}
    for name in ("b", "c", "d"):
        assert (rows[name].status, rows[name].total) == ("graded", MAX_SCORE), rows[name]
    failing = {(c.split(".")[0], code) for c, code in rows["a_filler"].failing}
    assert {code for _, code in failing} >= {"disk_spent"}, failing
    assert "stretch" in {fn for fn, _ in failing}, failing
    if mode != "walked":  # a tmpfs is measured after every answer: the call is named
        assert ("dot", "disk_spent") in failing, failing
    assert left == [] and mounted == []


def test_the_share_is_the_submissions_own_fault_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The function that passed the share is named, in every language."""
    module = tmp_path / "embed.py"
    module.write_text((ROOT / "embed.py").read_text() + (HOSTILE / "fill_disk.py").read_text())
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    report = grade(
        module, seed=3, timeout=scaled(1.0), max_seconds=scaled(3.0), check_reports=False
    )
    [first] = [c for c in report.checks if c.code == "disk_spent"][:1]
    assert first.function == "dot"
    assert "64 MiB" in first.message and "share of disk" in first.message
    from grader.engine.messages import text

    for lang, word in (("ko", "디스크"), ("zh", "磁盘份额")):
        assert word in text("disk_spent", lang, call="dot(a, b)", mb=64, files=4096)


# A walked folder is measured at most once in ten times the last walk (disk.py): on a
# busy machine the answer after fill() may fall inside that wait, so only the modes
# that measure a tmpfs after every answer are held to naming the call.
@pytest.mark.parametrize("mode", [m for m in MODES if m.id != "walked"])
def test_the_call_that_passed_the_share_pays_though_the_child_ran_ahead(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The child runs the calls of a message ahead of the answers read: while the
    grader decodes ``big``'s long answer, ``fill`` has already passed the share.  The
    calls run again, one at a time, and ``fill`` pays, not ``big`` nor ``after``."""
    isolation = use_mode(mode, monkeypatch)
    module = tmp_path / "embed.py"
    module.write_text(
        "def big():\n"
        "    return ['ab'] * 2000000\n"
        "def fill():\n"  # 75 MiB in files under the limit of one file (64 MiB)
        "    for n in range(5):\n"
        "        with open('fill-%d.bin' % n, 'wb') as f:\n"
        "            for _ in range(15):\n"
        "                f.write(bytes(1 << 20))\n"
        "    return 1\n"
        "def after():\n"
        "    return 2\n"
    )
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    calls = [sandbox.Call(0, "big", ()), sandbox.Call(1, "fill", ()), sandbox.Call(2, "after", ())]
    names = ("big", "fill", "after")
    with sandbox.Sandbox(
        module, names=names, isolation=isolation, timeout=scaled(5.0), max_seconds=scaled(60)
    ) as box:
        assert box.load().ok
        out = box.run(calls)
    kinds = [(o.fn, o.kind, o.why) for o in out]
    assert kinds == [
        ("big", "returned", ""),
        ("fill", "crashed", "disk"),
        ("after", "returned", ""),
    ], kinds
    assert out[0].value == ["ab"] * 2000000


def test_a_writer_that_passes_its_share_is_stopped(tmp_path: Path) -> None:
    """The report writer's own share: ``report.write`` names the cause."""
    module = tmp_path / "embed.py"
    module.write_text(
        (ROOT / "embed.py").read_text()
        + "\n\n_write = write_report\n\n"
        + "def write_report(outdir='.'):\n"
        + "    for n in range(3):\n"
        + "        with open('big%d' % n, 'wb') as f:\n"
        + "            f.write(b'x' * (40 << 20))\n"
        + "    _write(outdir)\n"
    )
    for n in REPORTS:
        shutil.copyfile(ROOT / "reference" / n, tmp_path / n)
    report = grade(module, seed=3, timeout=scaled(2.0))
    [write] = [c for c in report.checks if c.id == "report.write"]
    assert write.code == "report.write.disk", write.message
    assert not report.grader_error


# The grading machine runs short -----------------------------------------------------------


def test_twice_tries_once_more_and_then_names_the_shortage() -> None:
    tries: list[int] = []

    def short_once() -> str:
        tries.append(1)
        if len(tries) == 1:
            raise OSError(errno.EAGAIN, "Resource temporarily unavailable")
        return "graded"

    assert twice(short_once) == "graded" and len(tries) == 2

    def always_short() -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(MachineFault) as caught:
        twice(always_short)
    assert caught.value.resource == "disk"

    def wrong() -> str:
        raise OSError(errno.ENOENT, "a fault of the grader")

    with pytest.raises(FileNotFoundError):
        twice(wrong)


@pytest.mark.parametrize("mode", MODES)
def test_a_full_temporary_file_system_is_not_the_submissions_fault(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The single-file command: "not graded", exit status 2, no score.  (In-process:
    a command started with a full TMPDIR would quietly pick another folder.)"""
    isolation = use_mode(mode, monkeypatch)
    args = [str(ROOT / "embed.py"), "--seed", "3", "--sandbox", isolation]
    args += ["--report-dir", str(ROOT / "reference"), "--format", "json"]
    with small_tmpdir(tmp_path, monkeypatch, "size=4m,nr_inodes=64") as tmp:
        fill_inodes(tmp)
        status = main(args)
    out, err = capsys.readouterr()
    assert status == 2, out + err
    assert "the grading machine ran out of disk space" in err
    data = json.loads(out)
    assert data["grader_error"].startswith("not graded: the grading machine ran out of disk")
    assert data["checks"] == [] and data["score"] == 0


def test_a_batch_keeps_no_row_the_machine_spoiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rows "not graded", not cached, said at the end; the next run grades them."""
    root = tmp_path / "class"
    for name in ("a", "b"):
        submission(root, name)
    out = tmp_path / "out"
    opts = BatchOptions(seed=5, jobs=2, pool="thread", timeout=scaled(2.0), isolation="process")
    with small_tmpdir(tmp_path, monkeypatch, "size=4m,nr_inodes=64") as tmp:
        fill_inodes(tmp, leave=1)  # the batch's own scratch folder takes the last one
        result = run_batch(root, out, opts)
        summary = (out / "summary.txt").read_text()
        cached = json.loads((out / CACHE_FILE).read_text())["entries"]
        for f in tmp.iterdir():
            f.unlink()
        again = run_batch(root, out, opts)
    assert [r.status for r in result.rows] == ["not graded", "not graded"], result.rows
    assert "ran out of disk space" in result.rows[0].detail
    assert result.exit_status == 2
    assert result.summary["not_graded"] == 2 and result.summary["scored"] == 0
    assert cached == {}
    last = " ".join(summary.split("\n\n")[-1].split())  # the last paragraph, unwrapped
    assert last.startswith("2 submissions were not graded: the grading machine ran out"), last
    assert [(r.status, r.total) for r in again.rows] == [("graded", MAX_SCORE)] * 2
    assert again.graded == 2 and again.cached == 0
    assert json.loads((out / CACHE_FILE).read_text())["entries"].keys() == {"a", "b"}


def test_a_disk_filled_from_outside_while_grading_is_not_charged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The disk fills up once the module has loaded: the report writer cannot write,
    through no fault of the submission's (its child's folder lies on that disk, as in
    process mode run by an ordinary user).  Before, the correct module got 85/100."""
    use_mode("walked", monkeypatch)
    load = Loading.load
    filled: list[Path] = []

    def load_then_fill(self: Loading) -> sandbox.Loaded:
        loaded = load(self)
        if not filled:
            filled.append(Path(tempfile.gettempdir()))
            fill_bytes(filled[0])
        return loaded

    monkeypatch.setattr(Loading, "load", load_then_fill)
    for n in REPORTS:
        shutil.copyfile(ROOT / "reference" / n, tmp_path / n)
    module = tmp_path / "embed.py"
    shutil.copyfile(ROOT / "embed.py", module)
    with small_tmpdir(tmp_path, monkeypatch, "size=80m"):
        with pytest.raises(MachineFault) as caught:
            grade(module, seed=3, timeout=scaled(2.0))
    assert caught.value.resource == "disk" and filled


def test_no_process_slot_is_not_the_submissions_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spawn that fails for want of process slots: tried again, then not graded."""
    import subprocess as sp

    real = sp.Popen
    starts: list[int] = []

    def no_slot(*args: object, **kw: object) -> object:
        if kw.get("start_new_session"):  # the child, not anything else
            starts.append(1)
            raise BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable")
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(sp, "Popen", no_slot)
    with pytest.raises(MachineFault) as caught:
        grade(ROOT / "embed.py", seed=3, check_reports=False)
    assert caught.value.resource == "processes" and len(starts) == 2
