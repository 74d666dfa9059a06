"""What a batch writes about the whole class, from its rows: the gradebooks, the
summary, the similarity pass and the class page; and ``rows.json``, the record from
which ``embed-grader merge`` writes the same for several batches' outputs together.

A batch with ``--shard K/N`` grades the submissions whose id falls in share K of N
(:func:`in_shard`: a hash of the id, so a rerun or a late submission lands in the
same shard) and writes everything as usual for them; ``merge`` (``merge.py``) then
reads the shards' ``rows.json`` and writes the class's outputs in one folder.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from grader.engine.batch import lms
from grader.engine.batch.rows import BatchOptions, Row, write_atomic, write_gradebook
from grader.engine.batch.summary import summarize, summary_text
from grader.engine.lab import find
from grader.engine.similar import class_similarity

RECORD = "rows.json"
SIMILAR_CACHE = ".similar-cache.json"


def in_shard(ident: str, shard: tuple[int, int]) -> bool:
    """Whether the submission ``ident`` belongs to share ``K`` of ``N`` (K from 1)."""
    k, n = shard
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % n == k - 1


def write_class(
    out: Path,
    rows: list[Row],
    modules: Iterable[tuple[str, Path]],
    opts: BatchOptions,
    seconds: float,
    isolation: str,
) -> dict[str, Any]:
    """Write the class's outputs for ``rows`` into ``out``; returns the summary."""
    lab = find(opts.lab)
    summary = summarize(rows, opts, seconds)
    summary["sandbox"] = isolation
    # Advisory: flags of alike submissions never change a row.
    summary["similar"] = class_similarity(modules, cache=out / SIMILAR_CACHE, lab=lab.spec)
    write_gradebook(out / "gradebook.csv", rows, lab)
    write_atomic(out / lms.CANVAS_FILE, lms.canvas_csv(rows, lab.module_file, lab.max_score))
    write_atomic(out / lms.MOODLE_FILE, lms.moodle_csv(rows, lab.module_file))
    write_atomic(out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    write_atomic(out / "summary.txt", summary_text(summary, opts.lang))
    from grader.engine.classpage import write_pages  # Jinja2 and pygal: not in the workers

    write_pages(out, rows, summary, opts.lang, write_atomic)
    return summary


def write_record(
    out: Path,
    rows: list[Row],
    positions: dict[str, int],
    modules: dict[str, Path],
    opts: BatchOptions,
    seconds: float,
    isolation: str,
) -> None:
    """``rows.json``: the rows with their places in the whole class, each module's path,
    and the options every shard of one batch shares."""
    record = {
        "seed": opts.seed,
        "seed_per_student": opts.seed_per_student,
        "lab": opts.lab,
        "lang": opts.lang,
        "shard": list(opts.shard) if opts.shard else None,
        "sandbox": isolation,
        "seconds": round(seconds, 2),
        "rows": [
            {
                "row": r.to_dict(),
                "position": positions.get(r.id, 0),
                "module": str(modules[r.id]) if r.id in modules else None,
            }
            for r in rows
        ],
    }
    write_atomic(out / RECORD, json.dumps(record, ensure_ascii=False) + "\n")
