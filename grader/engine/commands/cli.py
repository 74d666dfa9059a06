"""Command line: ``embed-grader [PATH] [options]``; ``embed-grader batch ...`` grades a class.

Exit status: 0 when every check passed, 1 when graded with failures, 2 when the
grader could not grade (bad arguments, missing file, a fault of the grader itself).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from grader import __version__
from grader.engine.grading.grade import UsageError, grade
from grader.engine.grading.optioncheck import option_problem
from grader.engine.grading.stopping import Terminated, terminated_raises
from grader.engine.lab import DEFAULT as DEFAULT_LAB
from grader.engine.lab import LabError, find
from grader.engine.messages import LANGUAGES, default_language, text
from grader.engine.output import terminal
from grader.engine.output.byformat import FORMATS, render
from grader.engine.output.render import render_lines
from grader.engine.sandbox import MachineFault
from grader.engine.sandbox.processes import plain
from grader.engine.vocabulary.results import Report


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="embed-grader",
        description="Grade an embed.py of the exercise 'from the embedding table to the "
        "logits': every function is called with fresh random inputs and "
        "compared with values the grader computes itself.",
        epilog="To grade a whole class: embed-grader batch SUBMISSIONS_DIR --out DIR "
        "(see embed-grader batch --help).",
    )
    p.add_argument(
        "path", nargs="?", help="the module to grade (default: the lab's module, ./embed.py)"
    )
    p.add_argument("--seed", type=int, help="replay the inputs of an earlier run")
    p.add_argument(
        "--format", default="text", choices=sorted(FORMATS), help="output format (default: text)"
    )
    p.add_argument("--output", metavar="FILE", help="write the output to FILE")
    p.add_argument(
        "--report-dir",
        metavar="DIR",
        help="where embed_report.json and embed_report.md are (default: beside the module)",
    )
    p.add_argument(
        "--python", metavar="EXE", help="run the module with this interpreter (3.8 or newer)"
    )
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
        help="time for everything done with the module, restarts included "
        "(default: 10 times --timeout)",
    )
    p.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="ID",
        help="grade only this check or function (repeatable)",
    )
    p.add_argument(
        "--upto",
        type=int,
        metavar="N",
        help="grade steps 1..N only (default: every step)",
    )
    p.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="language of the messages (default: from the locale, else English)",
    )
    p.add_argument(
        "--sandbox",
        default="process",
        choices=("process", "user", "bwrap", "auto"),
        help="isolation of the child process: process (the grader's user), user (an "
        "unprivileged user of its own; the grader runs as root), bwrap (bubblewrap, "
        "and an unprivileged user as root), auto (the strongest that works here); "
        "default: process",
    )
    p.add_argument(
        "--within",
        metavar="DIR",
        help="read only regular files inside DIR, never through a symbolic link (the "
        "module and the report files); a link is refused",
    )
    p.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also show what the behaviour the contract leaves open did",
    )
    p.add_argument("--no-report", action="store_true", help="skip the report-file checks")
    p.add_argument(
        "--lab",
        metavar="NAME|DIR",
        help="the lab to grade against: a lab of grader/labs by name, or a lab's folder "
        "(default: embed)",
    )
    p.add_argument(
        "--student-root",
        metavar="DIR",
        help="write paths in the feedback relative to DIR, the student's own folder "
        "(for feedback read elsewhere, such as on Gradescope)",
    )
    p.add_argument("--version", action="version", version="embed-grader %s" % __version__)
    return p


def _fail(message: str) -> int:
    print("embed-grader: %s" % message, file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["batch"]:
        from grader.engine import batch

        return batch.main(argv[1:])
    if argv[:1] == ["merge"]:
        from grader.engine.batch import merge

        return merge.main(argv[1:])
    if argv[:1] == ["gradescope"]:
        from grader.engine.commands import gradescope

        return gradescope.main(argv[1:])
    args = parser().parse_args(argv)
    lang = args.lang or default_language()
    problem = option_problem(args.timeout, args.python, args.sandbox, lang, args.max_seconds)
    if problem:
        return _fail(problem)
    # In process mode the submission runs as the grader's user and could send it
    # SIGTERM: the run then ends as a grader error, never silently.
    try:
        with terminated_raises():
            report = _grade(args, lang)
    except UsageError as exc:
        return _fail(text(exc.code, lang, **exc.params))
    except MachineFault as exc:  # tried twice: the machine, not the submission
        return _grader_error(args, lang, machine_text(exc, lang))
    except Terminated:
        detail = (
            "terminated by SIGTERM while grading (in --sandbox process the submission can send it)"
        )
        return _grader_error(args, lang, detail)
    except Exception as exc:  # a fault of the grader, never of the student
        if os.environ.get("EMBED_GRADER_DEBUG"):
            import traceback

            traceback.print_exc()
        return _grader_error(args, lang, "%s: %s" % (type(exc).__name__, exc))
    if report.grader_error:
        return _grader_error(args, lang, report.grader_error, report)
    if args.output or args.format != "text":
        width = terminal.DEFAULT_WIDTH if args.format == "text" else None
        out = render(report, args.format, lang, args.verbose, width)
    else:
        out = ""  # shown line by line below
    _write(args, out, lambda: _show(report, lang, args.verbose))
    return exit_status(report)


def console() -> None:
    """The ``embed-grader`` command: ``main``, then, for one grading, a quick exit.

    Tearing the interpreter down frees the cases, the answers and two hundred
    modules one object at a time: tens of milliseconds after everything is done.
    One grading has written its output, closed its files and removed its child's
    folder by then, so it flushes its streams and leaves at once.  ``batch`` (which
    owns a process pool), a run with a tracer (coverage, a debugger) and a stream
    that cannot be flushed end the ordinary way.

    One grading also runs without the cyclic garbage collector: it makes few
    reference cycles and ends soon, and the collector would only walk its tables
    again and again (about a tenth of the grading's own CPU).
    """
    argv = sys.argv[1:]
    batch = argv[:1] in (["batch"], ["merge"])
    if not batch:
        gc.disable()
    # A terminal or pipe that cannot encode a character (PYTHONIOENCODING=ascii, a
    # Latin-1 locale) gets an escape for it, never a crash without any output; in
    # JSON the escape \uXXXX is the character itself.
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")
    code = main(argv)
    if batch or sys.gettrace() is not None or "coverage" in sys.modules:
        raise SystemExit(code)
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        raise SystemExit(code) from None
    os._exit(code)


def machine_text(fault: MachineFault, lang: str) -> str:
    """Why a submission was not graded when the machine ran short, in words."""
    resource = text("machine." + fault.resource, lang)
    return text("machine.not_graded", lang, resource=resource)


def _grade(args: argparse.Namespace, lang: str) -> Report:
    try:
        lab = find(args.lab)
    except LabError as exc:
        raise UsageError("cli.no_lab", lab=args.lab or DEFAULT_LAB, problem=str(exc)) from None
    last = max(lab.steps)
    if args.upto is not None and not 1 <= args.upto <= last:
        raise UsageError("cli.upto", upto=args.upto, last=last)
    if plain():
        print(text("cli.plain", lang), file=sys.stderr)
    path = module_path(args.path or lab.module_file, lab.module_file, lang)
    return grade(
        path,
        seed=args.seed,
        report_dir=args.report_dir,
        python=args.python,
        timeout=args.timeout,
        only=args.check,
        upto=args.upto,
        lang=lang,
        check_reports=not args.no_report,
        isolation=args.sandbox,
        student_root=args.student_root,
        within=args.within,
        max_seconds=args.max_seconds,
        lab=lab.spec,
    )


def module_path(path: str, module_file: str, lang: str) -> str:
    """The module to grade for ``path``: a folder's by the rule every grading uses
    (``grader.engine.handin.finding``), a file as it is; a note on standard error
    when a file not named like a module is graded as one, and a ``UsageError`` that
    says what a ``.zip`` is."""
    from grader.engine.handin import is_archive

    given = Path(path)
    if given.is_dir():
        from grader.engine.batch.handins import walk
        from grader.engine.handin.finding import choose
        from grader.engine.handin.submissions import notebook_name, some

        names = [i.name for i in walk(given) if not i.link]
        choice = choose(names, module_file, notebook_name(module_file))
        if choice.name is None:
            if choice.several:
                why = text("handin.several", lang, module=module_file, files=some(choice.several))
            else:
                why = text("batch.missing", lang, found=some(names) or "-")
            raise UsageError("cli.folder_none", path=path, why=why)
        if choice.name != module_file:
            print(text("cli.folder_module", lang, path=path, found=choice.name), file=sys.stderr)
        return str(given / choice.name)
    if is_archive(given.name):
        raise UsageError("cli.archive", path=path, module=module_file)
    if given.is_file() and given.suffix.lower() not in (".py", ".ipynb"):
        print(text("cli.text_module", lang, path=path, module=module_file), file=sys.stderr)
    return path


def _show(report: Report, lang: str, verbose: bool = False) -> None:
    """The text report on standard output: wrapped to its width, coloured on a terminal."""
    terminal.show(render_lines(report, lang, verbose, terminal.width(sys.stdout)), sys.stdout)


def _grader_error(
    args: argparse.Namespace, lang: str, detail: str, report: Report | None = None
) -> int:
    """Exit status 2 and no score: the output says "grader error" in every format."""
    print(text("render.grader_error", lang, error=detail), file=sys.stderr)
    empty = Report(
        path=args.path or "",
        seed=report.seed if report is not None else (args.seed or 0),
        checks=(),
        grader_error=detail,
        meta=dict(report.meta) if report is not None else {},
    )
    try:
        out = render(empty, args.format, lang, width=terminal.DEFAULT_WIDTH)
    except Exception:
        out = render(empty, "text", lang, width=terminal.DEFAULT_WIDTH)
    _write(args, out, lambda: _show(empty, lang), quiet=True)
    return 2


def _write(
    args: argparse.Namespace, out: str, show_text: Callable[[], None], quiet: bool = False
) -> None:
    """``out`` to ``--output`` (with the text report on the terminal), else to stdout."""
    if args.output:
        Path(args.output).write_text(out, encoding="utf-8")
        if args.format != "text" and not quiet:
            show_text()
    elif args.format == "text":
        if not quiet:
            show_text()
    else:
        sys.stdout.write(out)


def exit_status(report: Report) -> int:
    if report.grader_error:
        return 2
    return 0 if report.passed else 1


if __name__ == "__main__":
    raise SystemExit(main())
