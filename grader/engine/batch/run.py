"""Running a batch: grading the submissions in parallel, watching for tampering, writing
every output (see the package's docstring)."""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import (
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
)
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.engine import safefs
from grader.engine.batch import faults, integrity
from grader.engine.batch.cache import CACHE_FILE, Cache, cache_key, grader_fingerprint
from grader.engine.batch.classout import in_shard, write_class, write_record
from grader.engine.batch.faults import Fault
from grader.engine.batch.handins import class_handins
from grader.engine.batch.job import Graded, Job, grade_one, problem_feedback, shown_module
from grader.engine.batch.rows import (
    GRADER_ERROR,
    UNSCORED,
    BatchOptions,
    Row,
    empty_row,
    write_atomic,
)
from grader.engine.grading.grade import UsageError
from grader.engine.grading.stopping import raise_on_term
from grader.engine.handin.submissions import (
    UNREADABLE,
    Submission,
    files_hash,
    os_error,
    student_seed,
    watched_files,
)
from grader.engine.lab import find
from grader.engine.messages import text
from grader.engine.sandbox import strongest, weaker_note


class Tampered(Exception):
    """Grading changed the grader or a submission: the batch stopped."""


@dataclass
class BatchResult:
    out: Path
    seed: int
    rows: list[Row]
    graded: int  # graded in this run, the others came from the cache
    cached: int
    seconds: float
    summary: dict[str, Any]
    isolation: str = "process"
    faults: list[Fault] = field(default_factory=list)  # steps the grader failed in

    @property
    def exit_status(self) -> int:
        return 2 if self.faults or any(r.status in UNSCORED for r in self.rows) else 0


Progress = Callable[[Row, int, int], None]


def run_batch(
    root: str | os.PathLike[str],
    out: str | os.PathLike[str],
    opts: BatchOptions,
    *,
    on_start: Callable[[int, int], None] | None = None,
    on_row: Progress | None = None,
    on_note: Callable[[str], None] | None = None,
) -> BatchResult:
    """Grade every submission in ``root`` into ``out``; see the package's docstring.

    ``on_start(total, to_grade)`` is called once the submissions are known and
    ``on_row(row, done, total)`` after each one, cached ones included;
    ``on_note(message)`` once when the children are not isolated from the grader.
    Raises ``Tampered`` when grading changed the grader or another submission.
    """
    start = time.perf_counter()
    root, out = Path(root), Path(out)
    if not root.is_dir():
        raise UsageError("batch.no_folder", path=root)
    isolation = opts.isolation
    if isolation == "auto":
        isolation = strongest(opts.python)
    why = weaker_note(isolation)
    if why and on_note is not None:
        key = "batch.weak" if isolation == "process" else "batch.readable"
        on_note(text(key, opts.lang, why=why))
    lab = find(opts.lab)
    subs = class_handins(root, out, opts, lab)
    positions = {s.id: i for i, s in enumerate(subs)}
    if opts.shard is not None:
        subs = [s for s in subs if in_shard(s.id, opts.shard)]
    feedback = out / "feedback"
    feedback.mkdir(parents=True, exist_ok=True)
    cache = Cache(out / CACHE_FILE)
    cache.seed = opts.seed
    integrity.load_grader()
    fingerprint = grader_fingerprint()
    # The state of everything grades depend on, before any submission runs.
    watch = integrity.Watch()
    watch.add_all(integrity.grader_files())
    rows: dict[str, Row] = {}
    jobs: list[Job] = []
    found: list[Fault] = []  # the grader's faults, each confined to its submission
    done = 0

    def failed(sub: Submission, seed: int, stage: str, exc: Exception) -> Graded:
        """The row and feedback of a submission that a step of the grader failed on."""
        fault = Fault(sub.id, stage, faults.describe(exc))
        found.append(fault)
        row = faults.stand_in(
            empty_row(sub, GRADER_ERROR, seed, "", lab), fault, opts.lang, lab.max_score
        )
        return problem_feedback(row, opts.lang, lab.module_file)

    def finish(graded: Graded, key: str | None) -> None:
        nonlocal done
        row = graded.row
        try:
            write_atomic(feedback / ("%s.txt" % row.id), graded.feedback_text)
            write_atomic(feedback / ("%s.json" % row.id), graded.feedback_json)
        except Exception as exc:  # its feedback cannot be written: nor kept, nor cached
            key = None
            fault = Fault(row.id, faults.FEEDBACK, faults.describe(exc))
            found.append(fault)
            row = faults.stand_in(row, fault, opts.lang, lab.max_score)
            with suppress(Exception):  # what it says instead, when that can be written
                told = problem_feedback(row, opts.lang, lab.module_file)
                write_atomic(feedback / ("%s.txt" % row.id), told.feedback_text)
                write_atomic(feedback / ("%s.json" % row.id), told.feedback_json)
        rows[row.id] = row
        if key is not None and row.status not in UNSCORED:
            cache.put(row.id, key, row)
        done += 1
        if on_row is not None:
            on_row(row, done, len(subs))

    watching: list[Submission] = []
    # The submissions whose grading the grader failed to prepare, each with its seed.
    pending: list[tuple[Submission, int]] = []
    for sub in subs:
        try:
            watch.add_all(watched_files(sub))
        except Exception as exc:  # a submission that cannot be watched is not graded
            pending.append((_failed(sub, exc, found), opts.seed))
            continue
        watching.append(sub)

    with _scratch("embed-grader-noreports-") as empty:
        hits: list[Row] = []
        for sub in watching:
            seed = opts.seed
            try:
                seed = student_seed(opts.seed, sub.id) if opts.seed_per_student else opts.seed
                prepared = _prepare(sub, seed, fingerprint, cache, feedback, opts)
            except Exception as exc:  # the grader's fault: this submission's alone
                pending.append((_failed(sub, exc, found), seed))
                continue
            if isinstance(prepared, Row):
                hits.append(prepared)
            elif isinstance(prepared, Submission):
                pending.append((prepared, seed))
            else:
                report_dir = sub.report_dir if sub.report_dir is not None else Path(empty)
                jobs.append(
                    Job(
                        sub,
                        seed,
                        prepared,
                        report_dir,
                        opts.timeout,
                        opts.python,
                        opts.lang,
                        isolation,
                        sub.within or root,
                        opts.max_seconds,
                        lab.spec,
                    )
                )
        if on_start is not None:
            on_start(len(subs), len(subs) - len(hits))
        for row in hits:
            rows[row.id] = row
            done += 1
            if on_row is not None:
                on_row(row, done, len(subs))
        for sub, seed in pending:
            try:
                if sub.problem == GRADER_ERROR:
                    fault = Fault(sub.id, faults.GRADING, sub.detail)
                    row = faults.stand_in(
                        empty_row(sub, GRADER_ERROR, seed, "", lab), fault, opts.lang, lab.max_score
                    )
                else:
                    row = empty_row(sub, sub.problem, seed, sub.detail, lab)
                graded = problem_feedback(row, opts.lang, shown_module(sub, lab.module_file))
            except Exception as exc:
                graded = failed(sub, seed, faults.GRADING, exc)
            finish(graded, None)
        with _executor(opts) as pool:
            futures: dict[Future[Graded], Job] = {pool.submit(grade_one, j): j for j in jobs}
            since_check: list[str] = []  # finished since the last check that found nothing
            try:
                for fut in as_completed(futures):
                    job = futures[fut]
                    since_check.append(job.sub.id)
                    changed = watch.changed()
                    if changed:
                        # Nothing graded from now on is kept: the grader itself may have
                        # been changed.  The suspects are those that ran since the last
                        # check that found nothing.
                        running = [futures[f].sub.id for f in futures if f.running()]
                        suspects = list(dict.fromkeys(since_check + running))
                        raise Tampered(
                            text(
                                "batch.tampered",
                                opts.lang,
                                files=", ".join(changed[:5])
                                + (" (+%d)" % (len(changed) - 5) if len(changed) > 5 else ""),
                                suspects=", ".join(suspects),
                            )
                        )
                    since_check = []
                    try:
                        graded = fut.result()
                    except Exception as exc:  # the worker itself died
                        graded = failed(job.sub, job.seed, faults.GRADING, exc)
                    finish(graded, job.key)
                    cache.save_soon()
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
            finally:
                cache.keep(set(s.id for s in subs) | set(rows))
                cache.save()
    ordered = [rows[s.id] for s in subs if s.id in rows]
    _remove_stale(feedback, {s.id for s in subs})
    seconds = time.perf_counter() - start
    modules = {s.id: s.module for s in subs if s.module is not None}
    found += write_record(out, ordered, positions, modules, opts, seconds, isolation)
    written = write_class(out, ordered, list(modules.items()), opts, seconds, isolation, found)
    return BatchResult(
        out,
        opts.seed,
        written.rows,
        len(jobs),
        len(hits),
        seconds,
        written.summary,
        isolation,
        written.faults,
    )


def _failed(sub: Submission, exc: Exception, found: list[Fault]) -> Submission:
    """The submission as one the grader failed to prepare for grading (its fault recorded)."""
    found.append(Fault(sub.id, faults.GRADING, faults.describe(exc)))
    return dataclasses.replace(sub, problem=GRADER_ERROR, detail=found[-1].error)


def _prepare(
    sub: Submission, seed: int, fingerprint: str, cache: Cache, feedback: Path, opts: BatchOptions
) -> Row | Submission | str:
    """A submission before grading: its row from the cache (a ``Row``), the submission
    with the problem that leaves it ungraded (a ``Submission``), else its cache key."""
    if sub.problem:
        return sub
    try:
        content = files_hash(sub)
    except OSError as exc:
        detail = text("batch.unreadable", error=os_error(exc))
        return dataclasses.replace(sub, problem=UNREADABLE, detail=detail)
    key = cache_key(content, fingerprint, seed, opts)
    hit = None if opts.force else cache.get(sub.id, key)
    if hit is not None and _has_feedback(feedback, sub.id):
        return hit
    return key


def _has_feedback(folder: Path, ident: str) -> bool:
    return all((folder / ("%s.%s" % (ident, ext))).is_file() for ext in ("txt", "json"))


def _remove_stale(folder: Path, current: set[str]) -> None:
    """Feedback files of submissions that are gone would be misleading."""
    for path in folder.glob("*"):
        if path.suffix in (".txt", ".json", ".html") and path.stem not in current:
            try:
                path.unlink()
            except OSError:
                pass


@contextmanager
def _scratch(prefix: str) -> Iterator[str]:
    """A temporary folder that student code may have written in: its removal never
    follows a link and never recurses (see grader/engine/safefs.py)."""
    path = tempfile.mkdtemp(prefix=prefix)
    try:
        yield path
    finally:
        safefs.remove_tree(path)


def _preload(lab: str) -> list[str]:
    """The modules a worker grades with: the job, and the lab when it is one of
    ``grader/labs`` (a lab in another folder is loaded by each worker)."""
    names = ["grader.engine.batch.job"]
    if re.fullmatch(r"[a-z_][a-z0-9_]*", lab):
        names.append("grader.labs.%s" % lab)
    return names


@contextmanager
def _executor(opts: BatchOptions) -> Iterator[Executor]:
    pool: Executor
    if opts.pool == "process":
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None
        context = multiprocessing.get_context(method)
        if method == "forkserver":
            # The server imports the grading code once; each worker forked from it
            # starts with that code loaded instead of importing it again.  (A server
            # already running keeps what it has.)
            context.set_forkserver_preload(_preload(opts.lab))
        # A worker told to stop (SIGTERM) stops its grading, whose sandbox then kills
        # the child and removes its folder.
        pool = ProcessPoolExecutor(
            max_workers=opts.workers(),
            mp_context=context,
            initializer=raise_on_term,
        )
    else:
        pool = ThreadPoolExecutor(max_workers=opts.workers(), thread_name_prefix="grade")
    try:
        yield pool
    except BaseException:
        # Stopped (SIGTERM, Ctrl-C): the workers stop too, rather than finish their
        # submissions; each leaves nothing behind.
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            with suppress(OSError, AttributeError):
                process.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
