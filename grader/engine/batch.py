"""Grading a class: ``embed-grader batch SUBMISSIONS_DIR --out DIR [options]``.

A submission is a folder holding ``embed.py`` (its report files beside it; an
``embed.py`` further down the folder is found too when it is the only one at its
depth) or a single ``NAME.py`` file (no report files: their checks fail).  Names
starting with ``.`` or ``_`` are ignored, and so is the output folder.

Every submission is graded with one seed, printed and recorded, so that every
student faces the same cases; ``--seed-per-student`` derives each submission's
seed from the batch seed and the submission's id instead.  Submissions are graded
in parallel (``--jobs``); each grading runs the student's module in its own child
process, so a crash or a hang costs that submission its points and nothing more.

The output folder gets ``gradebook.csv``, ``feedback/ID.txt``, ``feedback/ID.json`` and
``feedback/ID.html``, ``summary.txt`` and ``summary.json`` (with the similar submissions
flagged, see ``grader.engine.similar``), ``report.html`` (the class on one page, see
``grader.engine.classpage``) and ``.cache.json``: a submission whose files,
seed and options are unchanged, graded by the same grader, is not graded again
(``--force`` regrades everything).

Exit status: 0 when every submission got a row from a working grader, 2 when the
arguments are wrong or the grader failed on at least one submission.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import hashlib
import io
import json
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import (
    Executor,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    as_completed,
)
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader import __version__
from grader.engine import integrity, layout, safefs
from grader.engine.cli import option_problem
from grader.engine.grading import UsageError, grade, new_seed
from grader.engine.messages import LANGUAGES, default_language, kind, text
from grader.engine.render import render
from grader.engine.results import Report, Status
from grader.engine.sandbox import CHOICES, MAX_MODULE, strongest, weaker_note
from grader.engine.similar import class_similarity
from grader.labs.embed.contract import MAX_SCORE, REPORT_JSON, REPORT_MD, STEP_POINTS

MODULE_NAME = "embed.py"
GRADED = "graded"
TIMEOUT = "timeout"
CRASHED = "crashed"
IMPORT_ERROR = "import error"
MISSING = "missing"
UNREADABLE = "unreadable"
REFUSED = "refused"  # a symbolic link (or not a regular file) where the module should be
GRADER_ERROR = "grader error"
# Every status a row can have, the usual first.
STATUSES = (GRADED, TIMEOUT, CRASHED, IMPORT_ERROR, MISSING, UNREADABLE, REFUSED, GRADER_ERROR)

STEP_NUMBERS = tuple(sorted(STEP_POINTS))
GRADEBOOK_FIELDS = (
    ["id", "total", "max"]
    + ["step%d" % s for s in STEP_NUMBERS]
    + ["status", "seed", "seconds", "detail"]
)
CACHE_FILE = ".cache.json"
CACHE_FORMAT = 1
SIMILAR_CACHE = ".similar-cache.json"
# How deep inside a submission's folder embed.py is looked for.
SEARCH_DEPTH = 3
FAILING = (Status.FAIL, Status.ERROR, Status.TIMEOUT)


# Submissions -------------------------------------------------------------------------


@dataclass(frozen=True)
class Submission:
    """One student's work: the module to grade and where its report files are."""

    id: str
    source: Path  # the folder or the file as found in the submissions folder
    module: Path | None  # None when there is nothing to grade
    report_dir: Path | None  # None for a single file: no report files
    problem: str = ""  # MISSING or UNREADABLE when it cannot be graded
    detail: str = ""


def discover(root: Path, skip: Sequence[Path] = (), lang: str = "en") -> list[Submission]:
    """The submissions in ``root``, sorted by id, with unique ids.

    Nothing is found through a symbolic link: an entry of ``root`` that is a link,
    or an ``embed.py`` that is one, is refused (status ``refused``), and folders
    that are links are not searched.
    """
    skipped = {p.resolve() for p in skip}
    found: list[Submission] = []
    taken: set[str] = set()
    for entry in sorted(root.iterdir(), key=lambda p: p.name):
        if entry.name.startswith((".", "_")) or entry.resolve() in skipped:
            continue
        if entry.is_symlink():
            if entry.suffix == ".py" or entry.is_dir():
                ident = _unique(_ident(entry.stem if entry.suffix == ".py" else entry.name), taken)
                detail = text("submission.link", lang, path=entry.name)
                found.append(Submission(ident, entry, None, None, REFUSED, detail))
            continue
        if entry.is_dir():
            ident = _unique(_ident(entry.name), taken)
            module = find_module(entry)
            if module is None:
                found.append(
                    Submission(ident, entry, None, None, MISSING, _missing_detail(entry, lang))
                )
            elif module.is_symlink():
                detail = text("submission.link", lang, path=module.relative_to(root))
                found.append(Submission(ident, entry, None, None, REFUSED, detail))
            else:
                found.append(Submission(ident, entry, module, module.parent))
        elif entry.suffix == ".py":
            ident = _unique(_ident(entry.stem), taken)
            found.append(Submission(ident, entry, entry, None))
    return found


def _exists(path: Path) -> bool:
    """A file or a link (never followed) named ``path``."""
    return path.is_symlink() or path.is_file()


def find_module(folder: Path) -> Path | None:
    """``folder/embed.py``, else the only ``embed.py`` at the shallowest depth below it.

    Folders that are symbolic links are not searched; an ``embed.py`` that is a link
    is returned (to be refused)."""
    if _exists(folder / MODULE_NAME):
        return folder / MODULE_NAME
    level = [folder]
    for _ in range(SEARCH_DEPTH):
        below = []
        for d in level:
            try:
                below += sorted(
                    p
                    for p in d.iterdir()
                    if p.is_dir() and not p.is_symlink() and not p.name.startswith((".", "_"))
                )
            except OSError:
                continue
        hits = [d / MODULE_NAME for d in below if _exists(d / MODULE_NAME)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None  # several: which one is meant is not ours to guess
        level = below
    return None


def _missing_detail(folder: Path, lang: str = "en") -> str:
    try:
        others = sorted(p.name for p in folder.iterdir() if p.suffix == ".py")
    except OSError as exc:
        return text("batch.unreadable", lang, error=_os_error(exc))
    return text("batch.missing", lang, found=", ".join(others[:5]) or "-")


def _ident(name: str) -> str:
    """A name that is safe as a file name and as a CSV cell."""
    ident = re.sub(r"[^\w.@+-]+", "_", name).strip("._")
    return ident[:100] or "submission"


def _unique(ident: str, taken: set[str]) -> str:
    candidate, n = ident, 1
    while candidate.lower() in taken:
        n += 1
        candidate = "%s-%d" % (ident, n)
    taken.add(candidate.lower())
    return candidate


def _os_error(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def files_hash(sub: Submission) -> str:
    """A hash of every file that grading reads: the module and the report files.

    Raises OSError when the module cannot be read.
    """
    h = hashlib.sha256()
    assert sub.module is not None
    h.update(b"module\0" + _read(sub.module) + b"\0")
    if sub.report_dir is not None:
        for name in (REPORT_JSON, REPORT_MD):
            try:
                data = _read(sub.report_dir / name)
            except OSError:
                data = b"\0absent"
            h.update(name.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def _read(path: Path) -> bytes:
    """A regular file's bytes, never through a link (OSError otherwise)."""
    return safefs.read_regular(str(path), MAX_MODULE + 1).data


def watched_files(sub: Submission) -> list[tuple[Path, str]]:
    """The files of a submission that grading reads, each with a label."""
    if sub.module is None:
        return []
    files = [(sub.module, "%s: %s" % (sub.id, sub.module.name))]
    if sub.report_dir is not None:
        files += [(sub.report_dir / n, "%s: %s" % (sub.id, n)) for n in (REPORT_JSON, REPORT_MD)]
    return files


def grader_fingerprint() -> str:
    """The version and a hash of the grader's own files: any change regrades."""
    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def student_seed(batch_seed: int, ident: str) -> int:
    """The seed of one submission under ``--seed-per-student``: fixed by the batch seed and id."""
    digest = hashlib.sha256(("%d:%s" % (batch_seed, ident)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % (10**9 - 1) + 1


# Rows ----------------------------------------------------------------------------------


@dataclass
class Row:
    """One line of the gradebook, with what the summary needs."""

    id: str
    status: str
    total: float
    max: float
    steps: dict[int, float]
    seed: int
    seconds: float
    detail: str = ""
    failing: list[list[str]] = field(default_factory=list)  # [check id, message code]

    def csv(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "id": self.id,
            "total": _num(self.total),
            "max": _num(self.max),
            "status": self.status,
            "seed": self.seed,
            "seconds": "%.2f" % self.seconds,
            "detail": " ".join(self.detail.split())[:300],
        }
        for s in STEP_NUMBERS:
            row["step%d" % s] = _num(self.steps.get(s, 0.0))
        return row

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["steps"] = {str(k): v for k, v in self.steps.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Row:
        values = dict(data)
        values["steps"] = {int(k): float(v) for k, v in data["steps"].items()}
        return cls(**values)


def _num(x: float) -> str:
    return ("%.2f" % x).rstrip("0").rstrip(".")


def status_of(report: Report) -> tuple[str, str]:
    """The row status of a finished grading and a short reason."""
    if report.grader_error:
        return GRADER_ERROR, report.grader_error
    load = next((c for c in report.checks if c.id == "imports.load"), None)
    if load is not None and load.status is Status.ERROR:
        if load.details.get("traceback"):
            return IMPORT_ERROR, load.message
        return CRASHED, load.message
    for status, code in ((CRASHED, "crashed"), (TIMEOUT, "timeout"), (TIMEOUT, "budget_spent")):
        hit = next((c for c in report.checks if c.code == code), None)
        if hit is not None:
            return status, "%s: %s" % (hit.id, hit.message)
    return GRADED, ""


def row_of(sub: Submission, report: Report, seconds: float) -> Row:
    status, detail = status_of(report)
    steps = {s: got for s, (got, _) in report.by_step().items()}
    # Checks that could not run because a report file is unreadable follow from that
    # file's own check: the class summary counts the cause once.
    failing = [
        [c.id, c.code]
        for c in report.checks
        if c.status in FAILING and not c.code.endswith(".not_read")
    ]
    return Row(
        sub.id,
        status,
        report.score,
        report.max_score or float(MAX_SCORE),
        steps,
        report.seed,
        seconds,
        detail,
        failing,
    )


def empty_row(sub: Submission, status: str, seed: int, detail: str, seconds: float = 0.0) -> Row:
    return Row(sub.id, status, 0.0, float(MAX_SCORE), {}, seed, seconds, detail)


# Grading one submission ------------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    sub: Submission
    seed: int
    key: str
    report_dir: Path  # an empty folder for single files
    timeout: float
    python: str | None
    lang: str
    isolation: str = "process"
    within: Path | None = None  # the submissions folder: nothing is read through a link
    max_seconds: float | None = None


@dataclass(frozen=True)
class Graded:
    row: Row
    feedback_text: str
    feedback_json: str


def grade_one(job: Job) -> Graded:
    """Grade one submission; never raises: a fault of the grader becomes the row's status."""
    start = time.perf_counter()
    sub = job.sub
    assert sub.module is not None
    try:
        report = grade(
            sub.module,
            seed=job.seed,
            report_dir=job.report_dir,
            python=job.python,
            timeout=job.timeout,
            lang=job.lang,
            isolation=job.isolation,
            # The feedback is read in the student's own folder.
            student_root=sub.source if sub.report_dir is not None else None,
            single_file=sub.report_dir is None,
            within=job.within,
            max_seconds=job.max_seconds,
        )
        row = row_of(sub, report, time.perf_counter() - start)
        feedback = render(report, "text", job.lang, width=layout.DEFAULT_WIDTH)
        return Graded(row, feedback, render(report, "json", job.lang))
    except UsageError as exc:
        status = REFUSED if exc.code.startswith("submission.") else UNREADABLE
        detail = text(exc.code, job.lang, **exc.params)
        row = empty_row(sub, status, job.seed, detail, time.perf_counter() - start)
    except Exception as exc:  # a fault of the grader, never of the student
        detail = "%s: %s" % (type(exc).__name__, exc)
        row = empty_row(sub, GRADER_ERROR, job.seed, detail, time.perf_counter() - start)
        row.detail += "\n" + traceback.format_exc(limit=8)
    return problem_feedback(row, job.lang)


def problem_feedback(row: Row, lang: str) -> Graded:
    """Feedback for a submission that has no grading report."""
    lines = [
        "embed-grader · %s · %s" % (row.id, text("render.seed", lang, seed=row.seed)),
        "",
        text("batch.not_graded", lang, status=row.status),
        "",
        row.detail,
        "",
        text("render.total", lang, score=_num(row.total), max_score=_num(row.max)),
    ]
    data = {
        "id": row.id,
        "seed": row.seed,
        "score": row.total,
        "max_score": row.max,
        "passed": False,
        "status": row.status,
        "detail": row.detail,
        "checks": [],
    }
    return Graded(
        row,
        "\n".join(lines).rstrip() + "\n",
        json.dumps(data, indent=2, ensure_ascii=False) + "\n",
    )


# The batch -----------------------------------------------------------------------------


@dataclass(frozen=True)
class BatchOptions:
    seed: int
    seed_per_student: bool = False
    jobs: int = 0  # 0: one per core
    force: bool = False
    timeout: float = 3.0
    python: str | None = None
    lang: str = "en"
    pool: str = "process"  # or "thread"
    # The child's sandbox (see grader.engine.sandbox.CHOICES); auto: the strongest here.
    isolation: str = "auto"
    max_seconds: float | None = None  # each submission's time cap (None: 10 time limits)

    def workers(self) -> int:
        # One more than the cores: while a child waits out a time limit, the others
        # keep every core busy.
        return self.jobs if self.jobs > 0 else (os.cpu_count() or 1) + 1


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

    @property
    def exit_status(self) -> int:
        return 2 if any(r.status == GRADER_ERROR for r in self.rows) else 0


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
    """Grade every submission in ``root`` into ``out``; see the module's docstring.

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
        on_note(text("batch.weak", opts.lang, why=why))
    subs = discover(root, skip=[out], lang=opts.lang)
    feedback = out / "feedback"
    feedback.mkdir(parents=True, exist_ok=True)
    cache = Cache(out / CACHE_FILE)
    cache.seed = opts.seed
    integrity.load_grader()
    fingerprint = grader_fingerprint()
    # The state of everything grades depend on, before any submission runs.
    watch = integrity.Watch()
    watch.add_all(integrity.grader_files())
    for sub in subs:
        watch.add_all(watched_files(sub))
    rows: dict[str, Row] = {}
    jobs: list[Job] = []
    done = 0

    def finish(graded: Graded, key: str | None) -> None:
        nonlocal done
        row = graded.row
        _write(feedback / ("%s.txt" % row.id), graded.feedback_text)
        _write(feedback / ("%s.json" % row.id), graded.feedback_json)
        rows[row.id] = row
        if key is not None and row.status != GRADER_ERROR:
            cache.put(row.id, key, row)
        done += 1
        if on_row is not None:
            on_row(row, done, len(subs))

    with _scratch("embed-grader-noreports-") as empty:
        pending: list[tuple[Submission, int, str | None]] = []
        for sub in subs:
            seed = student_seed(opts.seed, sub.id) if opts.seed_per_student else opts.seed
            if sub.problem:
                pending.append((sub, seed, None))
                continue
            try:
                content = files_hash(sub)
            except OSError as exc:
                sub = dataclasses.replace(
                    sub, problem=UNREADABLE, detail=text("batch.unreadable", error=_os_error(exc))
                )
                pending.append((sub, seed, None))
                continue
            key = _key(content, fingerprint, seed, opts)
            hit = None if opts.force else cache.get(sub.id, key)
            if hit is not None and _has_feedback(feedback, sub.id):
                rows[sub.id] = hit
                continue
            report_dir = sub.report_dir if sub.report_dir is not None else Path(empty)
            jobs.append(
                Job(
                    sub,
                    seed,
                    key,
                    report_dir,
                    opts.timeout,
                    opts.python,
                    opts.lang,
                    isolation,
                    root,
                    opts.max_seconds,
                )
            )
        cached = len(rows)
        if on_start is not None:
            on_start(len(subs), len(subs) - cached)
        for row in list(rows.values()):
            done += 1
            if on_row is not None:
                on_row(row, done, len(subs))
        for sub, seed, _ in pending:
            row = empty_row(sub, sub.problem, seed, sub.detail)
            finish(problem_feedback(row, opts.lang), None)
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
                        detail = "%s: %s" % (type(exc).__name__, exc)
                        graded = problem_feedback(
                            empty_row(job.sub, GRADER_ERROR, job.seed, detail), opts.lang
                        )
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
    summary = summarize(ordered, opts, seconds)
    summary["sandbox"] = isolation
    # Advisory: flags of alike submissions never change a row.
    summary["similar"] = class_similarity(
        ((s.id, s.module) for s in subs if s.module is not None), cache=out / SIMILAR_CACHE
    )
    write_gradebook(out / "gradebook.csv", ordered)
    _write(out / "summary.json", json.dumps(summary, indent=2, ensure_ascii=False) + "\n")
    _write(out / "summary.txt", summary_text(summary, opts.lang))
    from grader.engine.classpage import write_pages  # Jinja2 and pygal: not in the workers

    write_pages(out, ordered, summary, opts.lang, _write)
    return BatchResult(out, opts.seed, ordered, len(jobs), cached, seconds, summary, isolation)


def _key(content: str, fingerprint: str, seed: int, opts: BatchOptions) -> str:
    what = {
        "files": content,
        "grader": fingerprint,
        "seed": seed,
        "timeout": opts.timeout,
        "max_seconds": opts.max_seconds,
        "python": opts.python,
        "lang": opts.lang,
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


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


def _write(path: Path, data: str) -> None:
    """Write atomically, so an interrupted batch never leaves half a file."""
    tmp = path.with_name(".%s.tmp" % path.name)
    tmp.write_text(data, encoding="utf-8", errors="backslashreplace")
    os.replace(tmp, path)


@contextmanager
def _scratch(prefix: str) -> Iterator[str]:
    """A temporary folder that student code may have written in: its removal never
    follows a link and never recurses (see grader/engine/safefs.py)."""
    path = tempfile.mkdtemp(prefix=prefix)
    try:
        yield path
    finally:
        safefs.remove_tree(path)


@contextmanager
def _executor(opts: BatchOptions) -> Iterator[Executor]:
    pool: Executor
    if opts.pool == "process":
        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None
        pool = ProcessPoolExecutor(
            max_workers=opts.workers(), mp_context=multiprocessing.get_context(method)
        )
    else:
        pool = ThreadPoolExecutor(max_workers=opts.workers(), thread_name_prefix="grade")
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class Cache:
    """``.cache.json``: per submission id, the key of its last grading and its row."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.seed: int | None = None  # the batch seed of the last run
        self.dirty = False
        self.saved = time.monotonic()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") == CACHE_FORMAT and isinstance(data.get("entries"), dict):
                self.entries = data["entries"]
                if type(data.get("seed")) is int:
                    self.seed = data["seed"]
        except (OSError, ValueError, AttributeError):
            pass

    def get(self, ident: str, key: str) -> Row | None:
        entry = self.entries.get(ident)
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        try:
            return Row.from_dict(entry["row"])
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, ident: str, key: str, row: Row) -> None:
        self.entries[ident] = {"key": key, "row": row.to_dict()}
        self.dirty = True

    def keep(self, idents: set[str]) -> None:
        for ident in set(self.entries) - idents:
            del self.entries[ident]
            self.dirty = True

    def save_soon(self) -> None:
        """Save at most once a second: an interrupted batch keeps most of its work."""
        if self.dirty and time.monotonic() - self.saved > 1.0:
            self.save()

    def save(self) -> None:
        data = {"format": CACHE_FORMAT, "seed": self.seed, "entries": self.entries}
        _write(self.path, json.dumps(data, ensure_ascii=False) + "\n")
        self.dirty = False
        self.saved = time.monotonic()


# Outputs -------------------------------------------------------------------------------


def write_gradebook(path: Path, rows: Sequence[Row]) -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=GRADEBOOK_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow(row.csv())
    _write(path, buf.getvalue())


# Totals are put in bins of ten points; full marks have a bin of their own.
BINS = tuple((lo, lo + 10) for lo in range(0, MAX_SCORE, 10))


def summarize(rows: Sequence[Row], opts: BatchOptions, seconds: float) -> dict[str, Any]:
    """The class at a glance.  Rows with a grader error count in ``statuses`` only."""
    scored = [r for r in rows if r.status != GRADER_ERROR]
    totals = [r.total for r in scored]
    statuses = Counter(r.status for r in rows)
    bins: list[dict[str, Any]] = []
    for lo, hi in BINS:
        n = sum(1 for t in totals if lo <= t < hi)
        bins.append({"from": lo, "below": hi, "count": n})
    bins.append(
        {"from": MAX_SCORE, "below": None, "count": sum(1 for t in totals if t >= MAX_SCORE)}
    )
    steps = {
        str(s): {
            "title": text("step.%d" % s, opts.lang),
            "mean": round(statistics.fmean([r.steps.get(s, 0.0) for r in scored]), 2)
            if scored
            else 0.0,
            "max": STEP_POINTS[s],
        }
        for s in STEP_NUMBERS
    }
    students: Counter[str] = Counter()
    codes: dict[str, Counter[str]] = {}
    for r in scored:
        for check_id, code in {(c[0], c[1]) for c in r.failing}:
            students[check_id] += 1
            codes.setdefault(check_id, Counter())[code or "-"] += 1
    failing = [
        {
            "check": check_id,
            "students": n,
            "share": round(n / len(scored), 3),
            "codes": dict(codes[check_id].most_common()),
            "mistakes": _in_words(codes[check_id], opts.lang),
        }
        for check_id, n in sorted(students.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    return {
        "grader_version": __version__,
        "seed": opts.seed,
        "seed_per_student": opts.seed_per_student,
        "count": len(rows),
        "scored": len(scored),
        "statuses": {s: statuses[s] for s in STATUSES if statuses[s]},
        "max_score": MAX_SCORE,
        "mean": round(statistics.fmean(totals), 2) if totals else None,
        "median": round(statistics.median(totals), 2) if totals else None,
        "lowest": min(totals) if totals else None,
        "highest": max(totals) if totals else None,
        "full_marks": sum(1 for t in totals if t >= MAX_SCORE),
        "distribution": bins,
        "steps": steps,
        "failing_checks": failing,
        "seconds": round(seconds, 2),
    }


def _in_words(codes: Counter[str], lang: str) -> dict[str, int]:
    """Failure codes as the kinds of mistake they stand for, most frequent first."""
    words: Counter[str] = Counter()
    for code, n in codes.items():
        words[kind(code, lang)] += n
    return dict(words.most_common())


TOP_FAILING = 15
BAR = 40


def summary_text(
    summary: dict[str, Any], lang: str = "en", width: int = layout.DEFAULT_WIDTH
) -> str:
    """The class summary as text, no line wider than ``width`` columns."""
    lines = _summary_lines(summary, lang, width)
    fitted = [piece for line in lines for piece in layout.wrap(line, width, " " * 8)]
    return "\n".join(fitted) + "\n"


def _summary_lines(summary: dict[str, Any], lang: str, width: int) -> list[str]:
    def t(code: str, **params: Any) -> str:
        return text(code, lang, **params)

    count = summary["count"]
    lines = [t("batch.title", count=count)]
    if summary["seed_per_student"]:
        lines.append(t("batch.seed_per_student", seed=summary["seed"]))
    else:
        lines.append(t("batch.seed", seed=summary["seed"]))
    statuses = ", ".join(
        "%s %d" % (t("batch.status." + s.replace(" ", "_")), n)
        for s, n in summary["statuses"].items()
    )
    lines.append(t("batch.statuses", statuses=statuses or "-"))
    if summary["mean"] is None:
        return lines
    lines.append(
        t(
            "batch.scores",
            mean=_num(summary["mean"]),
            median=_num(summary["median"]),
            lowest=_num(summary["lowest"]),
            highest=_num(summary["highest"]),
            max_score=summary["max_score"],
            full=summary["full_marks"],
        )
    )
    lines += ["", t("batch.distribution")]
    most = max(b["count"] for b in summary["distribution"]) or 1
    for b in summary["distribution"]:
        label = (
            "%3d-%-3d" % (b["from"], b["below"] - 1)
            if b["below"] is not None
            else "%3d    " % b["from"]
        )
        bar = "█" * round(BAR * b["count"] / most)
        lines.append("  %s %4d %s" % (label, b["count"], bar))
    lines += ["", t("batch.steps")]
    for step, s in summary["steps"].items():
        title = t("render.step", step=step, title=s["title"])
        lines.append("  %-46s %6.2f / %6.2f" % (title, s["mean"], s["max"]))
    lines.append("")
    failing = summary["failing_checks"]
    if not failing:
        lines.append(t("batch.none_failing"))
    else:
        lines.append(t("batch.failing", scored=summary["scored"]))
        for f in failing[:TOP_FAILING]:
            mistakes = f.get("mistakes") or _in_words(Counter(f["codes"]), lang)
            codes = "; ".join("%s %d" % kv for kv in mistakes.items())
            row = "  %4d  %-36s %s" % (f["students"], f["check"], codes)
            if layout.cells(row) > width:  # the kinds of mistake go below, indented
                row = "  %4d  %s\n        %s" % (f["students"], f["check"], codes)
            lines += row.split("\n")
        if len(failing) > TOP_FAILING:
            lines.append("  " + t("batch.more_failing", n=len(failing) - TOP_FAILING))
    return lines


# Command line --------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="embed-grader batch",
        description="Grade every submission in a folder: a folder holding embed.py "
        "(and its report files) or a single NAME.py file per student.",
    )
    p.add_argument("submissions", metavar="SUBMISSIONS_DIR", help="the folder of submissions")
    p.add_argument("--out", required=True, metavar="DIR", help="where the gradebook goes")
    p.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="gradings at once (default: one more than the cores)",
    )
    p.add_argument(
        "--seed",
        type=int,
        help="the seed of the batch (default: the one of the last run into --out, else random)",
    )
    p.add_argument(
        "--seed-per-student",
        action="store_true",
        help="give each submission its own seed, derived from the batch seed and its id",
    )
    p.add_argument("--force", action="store_true", help="regrade submissions that did not change")
    p.add_argument(
        "--timeout",
        type=float,
        default=3.0,
        metavar="SECONDS",
        help="time limit of one call (default: 3)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        metavar="SECONDS",
        help="time for everything done with one submission, restarts included "
        "(default: 10 times --timeout)",
    )
    p.add_argument(
        "--python", metavar="EXE", help="run the modules with this interpreter (3.8 or newer)"
    )
    p.add_argument(
        "--lang", choices=LANGUAGES, help="language of the feedback (default: from the locale)"
    )
    p.add_argument(
        "--pool",
        default="process",
        choices=("thread", "process"),
        help="run the gradings in worker processes (default) or in threads",
    )
    p.add_argument(
        "--sandbox",
        default="auto",
        choices=CHOICES,
        help="isolation of each child process: auto (default: bwrap where it runs, else an "
        "unprivileged user when the grader runs as root, else process), process, user, bwrap",
    )
    return p


def _interactive(stream: Any) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("CI")


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    lang = args.lang or default_language()
    if args.jobs < 0:
        return _fail(text("batch.jobs", lang))
    problem = option_problem(args.timeout, args.python, args.sandbox, lang, args.max_seconds)
    if problem:
        return _fail(problem)
    per_student = args.seed_per_student
    seed = args.seed
    if seed is None:
        seed = Cache(Path(args.out) / CACHE_FILE).seed
    if seed is None:
        seed = new_seed()
    opts = BatchOptions(
        seed=seed,
        seed_per_student=per_student,
        jobs=args.jobs,
        force=args.force,
        timeout=args.timeout,
        python=args.python,
        lang=lang,
        pool=args.pool,
        isolation=args.sandbox,
        max_seconds=args.max_seconds,
    )
    err = sys.stderr
    seed_line = text("batch.seed_per_student" if per_student else "batch.seed", lang, seed=seed)
    print(seed_line, file=err, flush=True)
    try:
        if _interactive(err):
            result = _with_bar(args.submissions, args.out, opts)
        else:
            result = run_batch(
                args.submissions,
                args.out,
                opts,
                on_start=lambda total, todo: print(
                    text("batch.found", lang, total=total, todo=todo, jobs=opts.workers()),
                    file=err,
                    flush=True,
                ),
                on_row=lambda row, done, total: print(
                    _progress_line(row, done, total), file=err, flush=True
                ),
                on_note=lambda note: print(note, file=err, flush=True),
            )
    except Tampered as exc:
        return _fail(str(exc))
    except UsageError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail("%s: %s" % (exc.filename or args.out, _os_error(exc)))
    columns = layout.width(sys.stdout)
    sys.stdout.write(summary_text(result.summary, lang, columns))
    out = Path(args.out)
    outputs = text(
        "batch.outputs",
        lang,
        gradebook=out / "gradebook.csv",
        feedback=out / "feedback",
        summary=out / "summary.txt",
        graded=result.graded,
        cached=result.cached,
        seconds="%.1f" % result.seconds,
    )
    print("\n" + "\n".join(layout.wrap(outputs, columns, "  ")))
    print(text("batch.page", lang, path=out / "report.html", feedback=out / "feedback"))
    alike = result.summary.get("similar") or {}
    close = {c["id"] for c in alike.get("close_to_solutions", [])}
    if alike.get("pairs_flagged") or close:
        print(text("batch.similar", lang, pairs=alike.get("pairs_flagged", 0), close=len(close)))
    errors = sum(1 for r in result.rows if r.status == GRADER_ERROR)
    if errors:
        print(text("batch.grader_errors", lang, n=errors), file=err)
    if not result.rows:
        print(text("batch.empty", lang, root=args.submissions), file=err)
        return 2
    return result.exit_status


def _progress_line(row: Row, done: int, total: int) -> str:
    width = len(str(total))
    return "[%*d/%d] %-24s %6s / %s  %-12s %5.2f s" % (
        width,
        done,
        total,
        row.id,
        _num(row.total),
        _num(row.max),
        row.status,
        row.seconds,
    )


def _with_bar(root: str, out: str, opts: BatchOptions) -> BatchResult:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    console = Console(stderr=True)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[last]}"),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task(text("batch.grading", opts.lang), total=None, last="")

        def started(total: int, todo: int) -> None:
            bar.update(task, total=total)
            found = text("batch.found", opts.lang, total=total, todo=todo, jobs=opts.workers())
            bar.console.print(found, markup=False, highlight=False)

        def advanced(row: Row, done: int, total: int) -> None:
            bar.update(task, completed=done, last="%s %s" % (row.id, _num(row.total)))
            if row.status != GRADED:
                bar.console.print(_progress_line(row, done, total), markup=False, highlight=False)

        def noted(note: str) -> None:
            bar.console.print(note, markup=False, highlight=False)

        return run_batch(root, out, opts, on_start=started, on_row=advanced, on_note=noted)


def _fail(message: str) -> int:
    print("embed-grader batch: %s" % message, file=sys.stderr)
    return 2
