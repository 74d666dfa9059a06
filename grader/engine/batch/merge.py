"""``embed-grader merge OUT... --out CLASS``: one class from the outputs of several
batches, usually the shards of one (``embed-grader batch --shard K/N``).

Each OUT holds ``rows.json`` (``classout.write_record``) and ``feedback/``.  The merge
checks that they were graded alike (one seed, one lab, every shard once, no
submission twice), copies the feedback files, and writes the gradebooks, the summary,
the similarity pass and the class page as one batch over the whole class would.  The
similarity pass reads every module from where its shard found it, or from
``--submissions DIR`` when the shards ran elsewhere.

Exit status: 0 when merged, 2 when the outputs do not belong together.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.engine.batch.classout import RECORD, write_class
from grader.engine.batch.rows import BatchOptions, Row
from grader.engine.batch.submissions import discover
from grader.engine.lab import find
from grader.engine.messages import LANGUAGES, default_language, text


class MergeError(Exception):
    """The outputs cannot be merged; the message says why."""


@dataclasses.dataclass(frozen=True)
class Merged:
    out: Path
    rows: list[Row]
    summary: dict[str, Any]


def _record(out: Path, lang: str) -> dict[str, Any]:
    try:
        data = json.loads((out / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise MergeError(text("merge.no_record", lang, out=out, problem=exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise MergeError(text("merge.no_record", lang, out=out, problem=RECORD))
    return data


def merge(
    outs: Sequence[Path], dest: Path, submissions: Path | None = None, lang: str | None = None
) -> Merged:
    """Write the class's outputs for the batches' outputs ``outs`` into ``dest``."""
    records = [(Path(o), _record(Path(o), lang or "en")) for o in outs]
    first = records[0][1]
    lang = lang or str(first.get("lang") or "en")
    for out, data in records[1:]:
        for key in ("seed", "seed_per_student", "lab"):
            if data.get(key) != first.get(key):
                raise MergeError(
                    text(
                        "merge.mismatch",
                        lang,
                        out=out,
                        what=key,
                        got=data.get(key),
                        want=first.get(key),
                    )
                )
    _check_shards([(out, data.get("shard")) for out, data in records], lang)
    entries: list[tuple[int, Row, str | None, Path]] = []
    seen: dict[str, Path] = {}
    for out, data in records:
        for e in data["rows"]:
            row = Row.from_dict(e["row"])
            if row.id in seen:
                raise MergeError(
                    text("merge.duplicate", lang, id=row.id, first=seen[row.id], second=out)
                )
            seen[row.id] = out
            entries.append((int(e.get("position", 0)), row, e.get("module"), out))
    entries.sort(key=lambda e: (e[0], e[1].id))
    rows = [e[1] for e in entries]
    opts = BatchOptions(
        seed=int(first["seed"]),
        seed_per_student=bool(first.get("seed_per_student")),
        lang=lang,
        lab=str(first.get("lab") or find().spec),
    )
    feedback = dest / "feedback"
    feedback.mkdir(parents=True, exist_ok=True)
    for _, row, _, out in entries:
        for ext in ("txt", "json"):
            name = "%s.%s" % (row.id, ext)
            try:
                shutil.copyfile(out / "feedback" / name, feedback / name)
            except OSError:
                pass  # the class page and the gradebook do without it
    modules: list[tuple[str, Path]] = []
    if submissions is not None:
        lab = find(opts.lab)
        found = {s.id: s.module for s in discover(submissions, skip=[dest], lab=lab)}
        for r in rows:
            module = found.get(r.id)
            if module is not None:
                modules.append((r.id, module))
    else:
        modules = [(e[1].id, Path(e[2])) for e in entries if e[2]]
    seconds = sum(float(data.get("seconds") or 0.0) for _, data in records)
    sandbox = str(first.get("sandbox") or "process")
    summary = write_class(dest, rows, modules, opts, seconds, sandbox)
    return Merged(dest, rows, summary)


def _check_shards(shards: list[tuple[Path, Any]], lang: str) -> None:
    """Every shard of one split once, or outputs that are not shards at all."""
    split = {tuple(s)[1] for _, s in shards if s}
    if not split:
        return
    if len(split) > 1 or any(not s for _, s in shards):
        raise MergeError(text("merge.split", lang))
    n = split.pop()
    have = sorted(tuple(s)[0] for _, s in shards)
    missing = sorted(set(range(1, n + 1)) - set(have))
    if missing or len(have) != n:
        shown = ", ".join("%d/%d" % (k, n) for k in missing) or "-"
        raise MergeError(text("merge.shards", lang, missing=shown, n=n))


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="embed-grader merge",
        description="Build one class's gradebook, summary, similarity pass and class page "
        "from the output folders of several batches (the shards of embed-grader batch "
        "--shard K/N).",
    )
    p.add_argument("outs", nargs="+", metavar="OUT", help="a batch's output folder")
    p.add_argument("--out", required=True, metavar="CLASS", help="where the class's outputs go")
    p.add_argument(
        "--submissions",
        metavar="DIR",
        help="read the modules for the similarity pass from this folder "
        "(default: where each shard found them)",
    )
    p.add_argument("--lang", choices=LANGUAGES, help="language of the outputs")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    lang = args.lang or default_language()
    try:
        merged = merge(
            [Path(o) for o in args.outs],
            Path(args.out),
            Path(args.submissions) if args.submissions else None,
            args.lang,
        )
    except MergeError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print("%s: %s" % (exc.filename or args.out, exc.strerror or exc), file=sys.stderr)
        return 2
    print(text("merge.done", lang, n=len(merged.rows), outs=len(args.outs), out=merged.out))
    return 0
