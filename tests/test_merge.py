"""A class graded in shards and merged is the class graded in one batch."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from timelimits import scaled

from grader.engine.batch import BatchOptions, run_batch
from grader.engine.batch.classout import in_shard
from grader.engine.batch.merge import MergeError, merge
from grader.engine.commands.cli import main

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
SEED = 7


def make_class(root: Path) -> None:
    modules = {
        "ann": ROOT / "embed.py",
        "ben": ROOT / "embed.py",  # a copy: a pair of the similarity pass
        "cat": CORPUS / "right" / "plain_loops.py",
        "dan": CORPUS / "wrong" / "cosine_not_divided.py",
        "eve": CORPUS / "wrong" / "dot_skips_last.py",
        "fay": ROOT / "exercises" / "embed.py",
        "gus": CORPUS / "wrong" / "logits_softmax.py",
    }
    for name, path in modules.items():
        (root / name).mkdir(parents=True)
        shutil.copyfile(path, root / name / "embed.py")
        for n in ("embed_report.json", "embed_report.md"):
            shutil.copyfile(ROOT / "reference" / n, root / name / n)
    (root / "hal").mkdir()  # no module
    shutil.copyfile(CORPUS / "right" / "comprehensions.py", root / "ida.py")


def without_seconds(gradebook: str) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in r.items() if k != "seconds"}
        for r in csv.DictReader(io.StringIO(gradebook))
    ]


def test_shards_are_stable_and_share_the_class() -> None:
    ids = ["s%03d" % i for i in range(400)]
    parts = [[i for i in ids if in_shard(i, (k, 4))] for k in range(1, 5)]
    assert sorted(i for p in parts for i in p) == ids
    assert all(60 < len(p) < 140 for p in parts)
    # A new submission does not move the others.
    assert [i for i in ids + ["late"] if in_shard(i, (2, 4)) and i != "late"] == parts[1]


def test_four_shards_merged_are_one_batch(tmp_path: Path) -> None:
    root = tmp_path / "class"
    make_class(root)
    one = run_batch(root, tmp_path / "one", BatchOptions(seed=SEED, jobs=2))
    outs = []
    for k in range(1, 5):
        out = tmp_path / ("shard%d" % k)
        part = run_batch(root, out, BatchOptions(seed=SEED, jobs=2, shard=(k, 4)))
        assert all(in_shard(r.id, (k, 4)) for r in part.rows)
        outs.append(out)
    code = main(["merge", *map(str, outs), "--out", str(tmp_path / "merged"), "--lang", "en"])
    assert code == 0
    merged, single = tmp_path / "merged", tmp_path / "one"

    def read(folder: Path, name: str) -> str:
        return (folder / name).read_text(encoding="utf-8")

    assert without_seconds(read(merged, "gradebook.csv")) == without_seconds(
        read(single, "gradebook.csv")
    )

    a = json.loads(read(merged, "summary.json"))
    b = json.loads(read(single, "summary.json"))
    assert {k: v for k, v in a.items() if k != "seconds"} == {
        k: v for k, v in b.items() if k != "seconds"
    }
    assert a["similar"]["pairs"] and a["similar"]["close_to_solutions"]
    assert a["count"] == len(one.rows) == 9
    ids = [r.id for r in one.rows]
    for ident in ids:
        assert (merged / "feedback" / ("%s.html" % ident)).is_file()
        fa, fb = (json.loads(read(f, "feedback/%s.json" % ident)) for f in (merged, single))
        assert [(c["id"], c["status"], c["points"], c["code"]) for c in fa["checks"]] == [
            (c["id"], c["status"], c["points"], c["code"]) for c in fb["checks"]
        ]
    assert "ann" in read(merged, "report.html")


def test_shards_that_do_not_belong_together_are_refused(tmp_path: Path) -> None:
    root = tmp_path / "class"
    root.mkdir()
    shutil.copyfile(CORPUS / "wrong" / "dot_skips_last.py", root / "amy.py")
    shutil.copyfile(CORPUS / "wrong" / "cosine_not_divided.py", root / "bo.py")
    opts = BatchOptions(seed=SEED, pool="thread", jobs=2)
    for k in (1, 2):
        run_batch(root, tmp_path / ("a%d" % k), BatchOptions(**{**vars(opts), "shard": (k, 3)}))
    with pytest.raises(MergeError, match="3/3"):
        merge([tmp_path / "a1", tmp_path / "a2"], tmp_path / "m")
    run_batch(root, tmp_path / "other", BatchOptions(**{**vars(opts), "seed": SEED + 1}))
    run_batch(root, tmp_path / "same", opts)
    with pytest.raises(MergeError, match="seed"):
        merge([tmp_path / "same", tmp_path / "other"], tmp_path / "m")
    with pytest.raises(MergeError, match="amy"):
        merge([tmp_path / "same", tmp_path / "same"], tmp_path / "m")
    with pytest.raises(MergeError, match="not the output"):
        merge([root], tmp_path / "m")
    assert main(["batch", str(root), "--out", str(tmp_path / "x"), "--shard", "5/4"]) == 2


SUMMARY_IN_A_PROCESS = """
import json
from grader.engine.batch.rows import BatchOptions, Row
from grader.engine.batch.summary import summarize

failing = [["cosine.values", "a"], ["norm.values", "b"], ["dot.values", "b"], ["dot.values", "c"]]
row = Row("amy", "graded", 50.0, 100.0, {}, 1, 0.1, "", failing, {"cosine.values": ["norm", "dot"]})
print(json.dumps(summarize([row], BatchOptions(seed=1, lang="en"), 0.0)))
"""


def test_the_summary_is_the_same_text_in_every_process() -> None:
    # The counts behind follows_from, leads_to and codes are gathered from sets, whose
    # order changes with the hash seed of each process: shards merged in one process
    # and a batch in another must still write the same summary.json, and the class
    # page the same lines.
    texts = set()
    for hash_seed in range(6):
        env = {**os.environ, "PYTHONHASHSEED": str(hash_seed)}
        done = subprocess.run(
            [sys.executable, "-c", SUMMARY_IN_A_PROCESS],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=scaled(120),
        )
        texts.add(done.stdout)
    assert len(texts) == 1
    [cosine] = [
        c for c in json.loads(texts.pop())["failing_checks"] if c["check"] == "cosine.values"
    ]
    assert list(cosine["follows_from"]) == ["dot", "norm"]
