"""The Slurm template (``ci-templates/shards/slurm-array.sh``) grades a class.

The first tests run the script with bash alone, a stand-in ``sbatch`` and a stand-in
grader recording what they are given, so they run everywhere.  The last one submits
the template with the command written at its top to a real Slurm and compares the
merged class with one ``embed-grader batch`` of the same class and seed.  It runs
only where a cluster answers from this machine (``sinfo``, ``sbatch`` and ``squeue``
on the PATH, every node of the cluster this machine, one of them idle with the two
CPUs and 2 GiB that the template asks for), and skips with the reason elsewhere.  CI
starts such a cluster before the suite with ``.ci/slurm start`` (Debian's slurmctld,
slurmd, slurm-client and munge, a minimal slurm.conf, the daemons) and stops it at
the end; ``docs/shards.md`` explains each of its steps for a course's own cluster.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from test_merge import make_class, without_seconds
from timelimits import scaled

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "ci-templates" / "shards" / "slurm-array.sh"
SEED = "7"
SHARDS = 3
# A job in any other state has not ended yet.
ENDED = {
    "COMPLETED",
    "FAILED",
    "CANCELLED",
    "TIMEOUT",
    "NODE_FAIL",
    "OUT_OF_MEMORY",
    "BOOT_FAIL",
    "DEADLINE",
    "PREEMPTED",
}


def recorder(path: Path, log: Path) -> Path:
    """A program that appends its arguments, one line per call, to ``log``."""
    path.write_text(
        '#!/bin/sh\nfor a in "$@"; do printf "%%s\\t" "$a"; done >> "%s"\necho >> "%s"\n'
        % (log, log),
        encoding="utf-8",
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [line.rstrip("\t").split("\t") for line in log.read_text("utf-8").splitlines()]


def run_task(tmp_path: Path, k: int, n: int, first: int = 1) -> subprocess.CompletedProcess[str]:
    """The script as array task ``k`` of ``first..n`` runs it, with stand-ins."""
    bin_dir = tmp_path / "bin with space"
    bin_dir.mkdir(exist_ok=True)
    recorder(bin_dir / "sbatch", tmp_path / "sbatch.log")
    grader = recorder(bin_dir / "embed-grader", tmp_path / "grader.log")
    env = {
        **os.environ,
        "PATH": "%s:%s" % (bin_dir, os.environ.get("PATH", "")),
        "EMBED_GRADER": str(grader),
        "SLURM_ARRAY_JOB_ID": "41",
        "SLURM_ARRAY_TASK_ID": str(k),
        "SLURM_ARRAY_TASK_COUNT": str(n - first + 1),
        "SLURM_ARRAY_TASK_MIN": str(first),
        "SLURM_ARRAY_TASK_MAX": str(n),
        "SLURM_CPUS_PER_TASK": "2",
    }
    return subprocess.run(
        ["bash", str(TEMPLATE), "subs"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(60),
    )


def test_logs_go_where_slurm_can_open_them() -> None:
    # Slurm opens a job's log before the job runs: a log in a folder that the job
    # makes (out/) fails every task of a first run, without a line of log.
    source = TEMPLATE.read_text("utf-8")
    logs = re.findall(r"--output=(\S+)", source)
    assert len(logs) == 2, logs
    assert all("/" not in log for log in logs), logs


def test_a_task_grades_its_shard_and_the_last_one_submits_the_merge(tmp_path: Path) -> None:
    done = run_task(tmp_path, 2, 3)
    assert done.returncode == 0, done.stderr
    assert calls(tmp_path / "sbatch.log") == []
    batch = calls(tmp_path / "grader.log")
    assert batch == [
        ["batch", "subs", "--seed", "2026", "--shard", "2/3", "--jobs", "2", "--out", "out/shard-2"]
    ]
    done = run_task(tmp_path, 3, 3)
    assert done.returncode == 0, done.stderr
    [sbatch] = calls(tmp_path / "sbatch.log")
    assert "--dependency=afterany:41" in sbatch
    wrap = [a for a in sbatch if a.startswith("--wrap=")][0][len("--wrap=") :]
    # The merge command as the job runs it (sbatch --wrap runs it with /bin/sh), from
    # a grader whose path holds a space.
    subprocess.run(["sh", "-c", wrap], cwd=tmp_path, check=True, timeout=scaled(60))
    merge = calls(tmp_path / "grader.log")[-1]
    assert merge == ["merge", "out/shard-1", "out/shard-2", "out/shard-3", "--out", "out/class"]


def test_an_array_not_numbered_from_one_is_refused(tmp_path: Path) -> None:
    done = run_task(tmp_path, 0, 2, first=0)
    assert done.returncode == 2
    assert "--array=1-N" in done.stderr
    assert calls(tmp_path / "grader.log") == []


def _slurm_here() -> str | None:
    """Why a real Slurm cannot run the template here, or None when it can."""
    missing = [p for p in ("sinfo", "sbatch", "squeue", "scancel") if shutil.which(p) is None]
    if missing:
        return "no Slurm client here (%s not on the PATH)" % ", ".join(missing)
    try:
        nodes = subprocess.run(
            ["sinfo", "-h", "-N", "-o", "%n %t %c %m"],
            capture_output=True,
            text=True,
            timeout=scaled(30),
        )
    except subprocess.TimeoutExpired:
        return "sinfo did not answer"
    if nodes.returncode != 0:
        return "no Slurm controller answers: %s" % nodes.stderr.strip()[:200]
    rows = [line.split() for line in nodes.stdout.splitlines() if line.strip()]
    me = {socket.gethostname(), socket.gethostname().split(".")[0], "localhost"}
    if not rows or any(r[0] not in me for r in rows):
        return "the Slurm cluster has nodes other than this machine"
    fit = [r for r in rows if r[1] == "idle" and int(r[2]) >= 2 and int(r[3].rstrip("+")) >= 2048]
    if not fit:
        return "no idle Slurm node with 2 CPUs and 2 GiB (sinfo: %s)" % nodes.stdout.strip()
    return None


def _states(job: str) -> list[str]:
    """The states of a job's tasks; empty once Slurm has forgotten the job."""
    out = subprocess.run(
        ["squeue", "-h", "-t", "all", "-j", job, "-o", "%T"],
        capture_output=True,
        text=True,
        timeout=scaled(30),
    )
    return out.stdout.split() if out.returncode == 0 else []


def _wait(job: str, limit: float) -> list[str]:
    """The states in which the tasks of ``job`` ended (empty if Slurm forgot them)."""
    deadline = time.monotonic() + limit
    seen: list[str] = []
    while True:
        states = _states(job)
        seen = states or seen
        if all(s in ENDED for s in states):
            return seen
        if time.monotonic() > deadline:
            pytest.fail("Slurm job %s had not ended in %.0f s: %s" % (job, limit, states))
        time.sleep(1)


def without(table: str, column: str) -> list[dict[str, Any]]:
    """The rows of a CSV file, without ``column`` (which must be there)."""
    rows = list(csv.DictReader(io.StringIO(table)))
    assert rows and all(column in r for r in rows)
    return [{k: v for k, v in r.items() if k != column} for r in rows]


def _logs(folder: Path) -> str:
    return "\n".join("== %s\n%s" % (p.name, p.read_text("utf-8")) for p in folder.glob("*.log"))


def test_a_real_slurm_grades_the_class_as_one_batch(tmp_path: Path) -> None:
    why = _slurm_here()
    if why:
        pytest.skip(why)
    grader = Path(sys.executable).with_name("embed-grader")
    if not grader.exists():
        pytest.skip("no embed-grader command beside %s" % sys.executable)
    course = tmp_path / "course"
    (course / "ci-templates" / "shards").mkdir(parents=True)
    shutil.copyfile(TEMPLATE, course / "ci-templates" / "shards" / "slurm-array.sh")
    make_class(course / "submissions")
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_MESSAGES")}
    env.update(EMBED_GRADER=str(grader), SEED=SEED, LC_ALL="C.UTF-8", LANG="C.UTF-8")
    # The command at the top of the template (with its 3 shards), and --parsable to
    # learn the array's job id.
    command = ["sbatch", "--parsable", "--array=1-%d" % SHARDS]
    command += ["ci-templates/shards/slurm-array.sh", "submissions"]
    done = subprocess.run(
        command, cwd=course, env=env, capture_output=True, text=True, timeout=scaled(60)
    )
    assert done.returncode == 0, done.stderr
    array = done.stdout.strip().split(";")[0]
    merge = ""
    try:
        states = _wait(array, scaled(600))
        assert states == ["COMPLETED"] * SHARDS, (states, _logs(course))
        last = course / ("embed-grade-%s_%d.log" % (array, SHARDS))
        found = re.search(r"Submitted batch job (\d+)", last.read_text("utf-8"))
        assert found, _logs(course)
        merge = found.group(1)
        assert _wait(merge, scaled(300)) in ([], ["COMPLETED"]), _logs(course)
    finally:
        subprocess.run(
            ["scancel", array, *([merge] if merge else [])],
            capture_output=True,
            timeout=scaled(30),
        )
    assert (course / "out" / "class" / "gradebook.csv").is_file(), _logs(course)
    for k in range(1, SHARDS + 1):
        assert (course / "out" / ("shard-%d" % k) / "rows.json").is_file(), _logs(course)

    single = tmp_path / "single"
    one = subprocess.run(
        [str(grader), "batch", "submissions", "--seed", SEED, "--out", str(single)],
        cwd=course,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(600),
    )
    assert one.returncode == 0, one.stderr
    merged = course / "out" / "class"

    def read(folder: Path, name: str) -> str:
        return (folder / name).read_text(encoding="utf-8")

    def summary(folder: Path) -> str:
        data: dict[str, Any] = json.loads(read(folder, "summary.json"))
        return json.dumps({k: v for k, v in data.items() if k != "seconds"}, indent=1)

    assert without_seconds(read(merged, "gradebook.csv")) == without_seconds(
        read(single, "gradebook.csv")
    )
    assert len(list(csv.DictReader(io.StringIO(read(single, "gradebook.csv"))))) == 9
    for name in ("gradebook-canvas.csv", "summary.txt"):
        assert read(merged, name) == read(single, name), name
    # Moodle's worksheet says when it was written, to the minute: the two runs may
    # fall on either side of one.
    for name in ("gradebook-moodle.csv",):
        stamp = "Last modified (grade)"
        rows = [without(read(f, name), stamp) for f in (merged, single)]
        assert rows[0] == rows[1] and len(rows[0]) == 9, name
    # The same text, keys in the same order: only the timing differs.
    assert summary(merged) == summary(single)
    assert json.loads(read(merged, "summary.json"))["similar"]["pairs"]
    for path in sorted(single.glob("feedback/*.json")):
        fa, fb = (json.loads(read(f, "feedback/" + path.name)) for f in (merged, single))
        assert [(c["id"], c["status"], c["points"], c["code"]) for c in fa["checks"]] == [
            (c["id"], c["status"], c["points"], c["code"]) for c in fb["checks"]
        ]
