"""The command line ``embed-grader batch SUBMISSIONS_DIR --out DIR [options]``.

Exit status: 0 when every submission got a row from a working grader, 1 when every
file is written but some hand-ins need a look before the import (two that claim one
student, one that matches no student of ``--roster``: the summary names them), 2 when the arguments are wrong or the grader
failed on at least one submission.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.engine.batch import filledroster
from grader.engine.batch.cache import CACHE_FILE, Cache
from grader.engine.batch.roster import GRADESCOPE_METADATA
from grader.engine.batch.rows import GRADED, GRADER_ERROR, BatchOptions, Row, num
from grader.engine.batch.run import BatchResult, Tampered, run_batch
from grader.engine.batch.summary import summary_text
from grader.engine.grading.grade import UsageError, new_seed
from grader.engine.grading.optioncheck import option_problem
from grader.engine.grading.stopping import Terminated, terminated_raises
from grader.engine.handin.submissions import os_error
from grader.engine.lab import DEFAULT as DEFAULT_LAB
from grader.engine.lab import LabError, find
from grader.engine.messages import LANGUAGES, default_language, text
from grader.engine.output import terminal
from grader.engine.sandbox import CHOICES


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
        "--lab",
        metavar="NAME|DIR",
        help="the lab to grade against: a lab of grader/labs by name, or a lab's folder "
        "(default: embed)",
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
        "--shard",
        metavar="K/N",
        help="grade only share K of N of the submissions (by id: a rerun or a late submission "
        "lands in the same share); embed-grader merge joins the shards' outputs",
    )
    filledroster.add_arguments(p)
    p.add_argument(
        "--sandbox",
        default="auto",
        choices=CHOICES,
        help="isolation of each child process: auto (default: bwrap where it runs, else an "
        "unprivileged user when the grader runs as root, else process), process, user, bwrap",
    )
    return p


def _shard(value: str) -> tuple[int, int] | None:
    """``K/N`` as (K, N), or None when it is not one with 1 <= K <= N."""
    k, _, n = value.partition("/")
    if not (k.isdigit() and n.isdigit()) or not 1 <= int(k) <= int(n):
        return None
    return int(k), int(n)


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
    shard = _shard(args.shard) if args.shard is not None else None
    if args.shard is not None and shard is None:
        return _fail(text("batch.shard", lang))
    try:
        lab = find(args.lab)
    except LabError as exc:
        return _fail(text("cli.no_lab", lang, lab=args.lab or DEFAULT_LAB, problem=str(exc)))
    roster = args.roster
    metadata = Path(args.submissions) / GRADESCOPE_METADATA
    if roster is None and metadata.is_file() and not metadata.is_symlink():
        roster = str(metadata)  # Gradescope's export names its submitters beside them
        print(text("batch.roster_found", lang, path=metadata), file=sys.stderr)
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
        lab=lab.spec,
        shard=shard,
        roster=roster,
        assignment=args.assignment,
        absent=args.absent,
    )
    err = sys.stderr
    seed_line = text("batch.seed_per_student" if per_student else "batch.seed", lang, seed=seed)
    print(seed_line, file=err, flush=True)
    try:
        with terminated_raises():
            result = _run(args, opts, lang)
    except Terminated:
        return _fail(text("batch.terminated", lang))
    except Tampered as exc:
        return _fail(str(exc))
    except UsageError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail("%s: %s" % (exc.filename or args.out, os_error(exc)))
    columns = terminal.width(sys.stdout)
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
    print("\n" + "\n".join(terminal.wrap(outputs, columns, "  ")))
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
    if result.exit_status == 0 and filledroster.needs_look(result.summary):
        return 1  # every file written; some hand-ins need a look before the import
    return result.exit_status


def _run(args: argparse.Namespace, opts: BatchOptions, lang: str) -> BatchResult:
    err = sys.stderr
    if _interactive(err):
        return _with_bar(args.submissions, args.out, opts)
    return run_batch(
        args.submissions,
        args.out,
        opts,
        on_start=lambda total, todo: print(
            found_line(total, todo, opts.workers(), lang), file=err, flush=True
        ),
        on_row=lambda row, done, total: print(
            _progress_line(row, done, total), file=err, flush=True
        ),
        on_note=lambda note: print(note, file=err, flush=True),
    )


def found_line(total: int, todo: int, jobs: int, lang: str) -> str:
    """How many submissions there are and how many get graded: "the others" only when
    some were left as they were."""
    key = "batch.found_all" if todo >= total else "batch.found"
    return text(key, lang, total=total, todo=todo, jobs=jobs)


def _progress_line(row: Row, done: int, total: int) -> str:
    width = len(str(total))
    return "[%*d/%d] %-24s %6s / %s  %-12s %5.2f s" % (
        width,
        done,
        total,
        row.id,
        num(row.total),
        num(row.max),
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
            found = found_line(total, todo, opts.workers(), opts.lang)
            bar.console.print(found, markup=False, highlight=False)

        def advanced(row: Row, done: int, total: int) -> None:
            bar.update(task, completed=done, last="%s %s" % (row.id, num(row.total)))
            if row.status != GRADED:
                bar.console.print(_progress_line(row, done, total), markup=False, highlight=False)

        def noted(note: str) -> None:
            bar.console.print(note, markup=False, highlight=False)

        return run_batch(root, out, opts, on_start=started, on_row=advanced, on_note=noted)


def _fail(message: str) -> int:
    print("embed-grader batch: %s" % message, file=sys.stderr)
    return 2
