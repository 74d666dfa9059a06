"""What a batch writes about the whole class, from its rows: the gradebooks, the
summary, the similarity pass and the class page; and ``rows.json``, the record from
which ``embed-grader merge`` writes the same for several batches' outputs together.

No submission can stop any of these (see ``faults.py``): a step that fails on one
submission makes that submission's row a grader error, named in ``summary.json``,
and every file is still written for the whole class.

A batch with ``--shard K/N`` grades the submissions whose id falls in share K of N
(:func:`in_shard`: a hash of the id, so a rerun or a late submission lands in the
same shard) and writes everything as usual for them; ``merge`` (``merge.py``) then
reads the shards' ``rows.json`` and writes the class's outputs in one folder.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from pathlib import Path
from typing import Any, TypeVar

from grader.engine.batch import faults, filledroster, lms
from grader.engine.batch.faults import Fault
from grader.engine.batch.rows import BatchOptions, Row, gradebook_csv, write_atomic
from grader.engine.batch.summary import summarize, summary_text
from grader.engine.frozen import frozen
from grader.engine.lab import Lab, find
from grader.engine.similarity.classpass import MIN_SHARED, THRESHOLD, class_similarity
from grader.engine.similarity.winnowing import K, W

RECORD = "rows.json"
SIMILAR_CACHE = ".similar-cache.json"
PAGE = "report.html"
GRADEBOOKS = ("gradebook.csv", lms.CANVAS_FILE, lms.MOODLE_FILE)

T = TypeVar("T")
R = TypeVar("R")


def in_shard(ident: str, shard: tuple[int, int]) -> bool:
    """Whether the submission ``ident`` belongs to share ``K`` of ``N`` (K from 1)."""
    k, n = shard
    digest = hashlib.sha256(ident.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % n == k - 1


@frozen
class ClassOutput:
    """What was written: the rows as the gradebook has them (a row a step failed on
    stands as a grader error), the summary, and every fault of the grader."""

    rows: list[Row]
    summary: dict[str, Any]
    faults: list[Fault]


class _Steps:
    """The faults found so far while writing a class, and the rows that a step must do
    without (those it fails on even as a grader error)."""

    def __init__(self, known: Iterable[Fault], lang: str, lab: Lab) -> None:
        self.lang, self.lab = lang, lab
        self.by_id: dict[str, Fault] = {}
        for f in known:
            self.by_id.setdefault(f.id, f)
        self.without: dict[str, set[str]] = {}
        self.of_class: dict[str, Fault] = {}
        self.changed = False

    def shown(self, row: Row) -> Row:
        fault = self.by_id.get(row.id)
        return row if fault is None else faults.stand_in(row, fault, self.lang, self.lab.max_score)

    def run(
        self,
        stage: str,
        items: Sequence[T],
        ident: Callable[[T], str],
        attempt: Callable[[Sequence[T]], R],
    ) -> R | None:
        """``attempt(items)``; when it raises, the items it fails on by themselves are
        found, recorded, and None is returned (the class is then written again)."""
        usable = [i for i in items if ident(i) not in self.without.get(stage, ())]
        try:
            return attempt(usable)
        except Exception as exc:
            whole = faults.describe(exc)
        bad = faults.culprits(usable, attempt)
        if not bad:
            self.of_class[stage] = Fault("", stage, whole)
            return None
        for item, error in bad:
            key = ident(item)
            if key in self.by_id:  # it fails even as a grader error: left out of this step
                self.without.setdefault(stage, set()).add(key)
            else:
                self.by_id[key] = Fault(key, stage, error)
        self.changed = True
        return None

    def all(self) -> list[Fault]:
        return sorted(self.by_id.values(), key=lambda f: f.id) + list(self.of_class.values())


def write_class(
    out: Path,
    rows: list[Row],
    modules: Iterable[tuple[str, Path]],
    opts: BatchOptions,
    seconds: float,
    isolation: str,
    known: Iterable[Fault] = (),
) -> ClassOutput:
    """Write the class's outputs for ``rows`` into ``out``; ``known`` are faults that
    struck some rows before (their rows stand as grader errors)."""
    lab = find(opts.lab)
    steps = _Steps(known, opts.lang, lab)
    # Advisory: flags of alike submissions never change a grade.
    similar = _similarity(steps, list(modules), out, lab)
    while True:  # once, unless a step fails on some submission: then again without it
        steps.changed = False
        steps.of_class = {k: v for k, v in steps.of_class.items() if k == faults.SIMILARITY}
        current = [steps.shown(r) for r in rows]
        summary = steps.run(
            faults.SUMMARY, current, _id, lambda rs: summarize(rs, opts, seconds)
        ) or summarize([], opts, seconds)
        if steps.changed:
            continue
        summary["sandbox"] = isolation
        summary["similar"] = similar
        summary["faults"] = [f.to_dict() for f in steps.all()]
        texts = _gradebooks(steps, current, lab)
        if steps.changed:
            continue
        filled: dict[Path, str] = {}
        identities = steps.run(faults.ROSTER, current, _id, _roster(out, opts, filled))
        if identities is None:
            filled.clear()  # what an attempt on part of the class left
        if steps.changed:
            continue
        page: dict[Path, str] = {}
        if steps.run(faults.PAGE, current, _id, _pages(out, summary, opts.lang, page)) is None:
            page.clear()
        if not steps.changed:
            break
    found = steps.all()
    summary["faults"] = [f.to_dict() for f in found]
    for name, data in texts.items():
        write_atomic(out / name, data)
    for path, data in filled.items():
        write_atomic(path, data)
    summary["identities"] = identities or {}
    write_atomic(out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    write_atomic(out / "summary.txt", summary_text(summary, opts.lang))
    for path, data in page.items():
        write_atomic(path, data)
    # What a step could not make for the class is not left as an earlier run made it.
    for name in (*GRADEBOOKS, PAGE):
        if name not in texts and out / name not in page:
            with suppress(FileNotFoundError):
                (out / name).unlink()
    return ClassOutput(current, summary, found)


def _gradebooks(steps: _Steps, rows: list[Row], lab: Lab) -> dict[str, str]:
    """The gradebook and the LMS files, by file name: those that could be made."""
    made: dict[str, tuple[str, Callable[[Sequence[Row]], str]]] = {
        "gradebook.csv": (faults.GRADEBOOK, lambda rs: gradebook_csv(rs, lab)),
        lms.CANVAS_FILE: (
            faults.CANVAS,
            lambda rs: lms.canvas_csv(rs, lab.module_file, lab.max_score),
        ),
        lms.MOODLE_FILE: (faults.MOODLE, lambda rs: lms.moodle_csv(rs, lab.module_file)),
    }
    texts = {}
    for name, (stage, make) in made.items():
        got = steps.run(stage, rows, _id, make)
        if got is not None:
            texts[name] = got
    return texts


def _roster(
    out: Path, opts: BatchOptions, kept: dict[Path, str]
) -> Callable[[Sequence[Row]], dict[str, list[str]]]:
    """The roster filled with some rows (``--roster``), kept in ``kept``, and what needs a
    look before the import."""

    def attempt(rows: Sequence[Row]) -> dict[str, list[str]]:
        kept.clear()
        return filledroster.write_platform(out, rows, opts, kept.__setitem__)

    return attempt


def _pages(
    out: Path, summary: dict[str, Any], lang: str, kept: dict[Path, str]
) -> Callable[[Sequence[Row]], Path]:
    """The class page and the students' pages for some rows: the students' pages are
    written as they come, the class page kept in ``kept`` (an attempt on part of the
    class must not leave a page of part of the class)."""
    from grader.engine.batch.pages import write_pages  # Jinja2 and pygal: not in the workers

    def write(path: Path, data: str) -> None:
        if path.name == PAGE and path.parent == out:
            kept[path] = data
        else:
            write_atomic(path, data)

    def attempt(rows: Sequence[Row]) -> Path:
        kept.clear()
        return write_pages(out, rows, summary, lang, write)

    return attempt


def _id(row: Row) -> str:
    return row.id


def _similarity(
    steps: _Steps, modules: list[tuple[str, Path]], out: Path, lab: Lab
) -> dict[str, Any]:
    """The similarity pass; a module it fails on is left out of it, its row a grader error."""

    def attempt(ms: Sequence[tuple[str, Path]], cache: Path | None = None) -> dict[str, Any]:
        where = None if cache is None else out  # the pages and similarity.json: once
        return class_similarity(ms, cache=cache, lab=lab.spec, out=where, lang=steps.lang)

    try:
        return attempt(modules, out / SIMILAR_CACHE)
    except Exception as exc:
        whole = faults.describe(exc)
    bad = faults.culprits(modules, attempt)
    for (name, _), error in bad:
        steps.by_id.setdefault(name, Fault(name, faults.SIMILARITY, error))
    left_out = {name for (name, _), _ in bad}
    try:
        if bad:
            return attempt([m for m in modules if m[0] not in left_out], out / SIMILAR_CACHE)
    except Exception as exc:
        whole = faults.describe(exc)
    steps.of_class[faults.SIMILARITY] = Fault("", faults.SIMILARITY, whole)
    try:  # the pass over no module: every part of it there, and empty
        return {**attempt([]), "error": whole}
    except Exception:
        return _no_similarity(whole)


def _no_similarity(error: str) -> dict[str, Any]:
    """The similarity part of the summary when not even an empty pass can be made."""
    return {
        "method": "winnowed token fingerprints, k=%d, window %d" % (K, W),
        "threshold": THRESHOLD,
        "min_shared": MIN_SHARED,
        "compared": 0,
        "pairs_flagged": 0,
        "pairs": [],
        "close_to_solutions": [],
        "error": error,
    }


def write_record(
    out: Path,
    rows: list[Row],
    positions: dict[str, int],
    modules: dict[str, Path],
    opts: BatchOptions,
    seconds: float,
    isolation: str,
) -> list[Fault]:
    """``rows.json``: the rows with their places in the whole class, each module's path,
    and the options every shard of one batch shares.  A row that cannot be written is
    written as a grader error; its fault is returned."""
    head = {
        "seed": opts.seed,
        "seed_per_student": opts.seed_per_student,
        "lab": opts.lab,
        "lang": opts.lang,
        "shard": list(opts.shard) if opts.shard else None,
        "sandbox": isolation,
        "seconds": round(seconds, 2),
    }
    lab = find(opts.lab)
    found: list[Fault] = []
    entries = []
    for r in rows:
        try:
            entries.append(_entry(r, positions.get(r.id, 0), modules.get(r.id)))
        except Exception as exc:
            fault = Fault(str(r.id), faults.RECORD, faults.describe(exc))
            found.append(fault)
            with suppress(Exception):  # else it is left out: merge finds no row for it
                entries.append(_entry(faults.stand_in(r, fault, opts.lang, lab.max_score), 0, None))
    text = json.dumps(head, ensure_ascii=False)
    record = text[:-1] + ', "rows": [' + ", ".join(entries) + "]}\n"
    write_atomic(out / RECORD, record)
    return found


def _entry(row: Row, position: int, module: Path | None) -> str:
    entry = {
        "row": row.to_dict(),
        "position": position,
        "module": str(module) if module is not None else None,
    }
    return json.dumps(entry, ensure_ascii=False, allow_nan=False)
