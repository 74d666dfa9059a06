"""``embed-grader merge OUT... --out CLASS``: one class from the outputs of several
batches, usually the shards of one (``embed-grader batch --shard K/N``).

Each OUT holds ``rows.json`` (``classout.write_record``) and ``feedback/``.  The merge
checks that they were graded alike (one seed, one lab, every shard once), copies the
feedback files, and writes the gradebooks, the summary, the similarity pass and the
class page as one batch over the whole class would.  The similarity pass reads every
module from where its shard found it, or from ``--submissions DIR`` when the shards
ran elsewhere.

The outputs are not trusted (``shardfile``): a shard that ran next to student code may
hold anything.  An output whose ``rows.json`` cannot be taken, or a row that cannot
(an id that is no submission's name, or that ``--submissions`` does not hold, points
that are not those of its checks, an id in two outputs), is refused and named; the
rest is merged, and a refused row with a submission's id stands in the gradebook as a
grader error (no points, to be graded again).  With ``--submissions``, every
submission found there has exactly one row.

Exit status: 0 when everything was merged; 2 when the outputs do not belong together
(nothing is written), or when something was refused or the grader failed on a row
(everything else is written).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.engine.batch import faults, filledroster, shardfile
from grader.engine.batch.classout import write_class
from grader.engine.batch.faults import Fault
from grader.engine.batch.handins import discover
from grader.engine.batch.job import problem_feedback
from grader.engine.batch.rows import GRADER_ERROR, UNSCORED, BatchOptions, Row, write_atomic
from grader.engine.batch.shardfile import Entry, Record, Refused
from grader.engine.frozen import frozen
from grader.engine.grading.runoptions import UsageError
from grader.engine.lab import DEFAULT as DEFAULT_LAB
from grader.engine.lab import Lab, LabError, find
from grader.engine.messages import LANGUAGES, default_language, text


class MergeError(Exception):
    """The outputs cannot be merged; the message says why."""


@frozen
class Refusal:
    """An output (``shard``) or a row (of the id ``id`` when it is one) that merge did
    not take, and why."""

    out: Path
    id: str | None
    why: str
    shard: bool = False


@frozen
class Merged:
    out: Path
    rows: list[Row]
    summary: dict[str, Any]
    refused: list[Refusal] = dataclasses.field(default_factory=list)
    faults: list[Fault] = dataclasses.field(default_factory=list)

    @property
    def exit_status(self) -> int:
        bad = self.refused or self.faults or any(r.status in UNSCORED for r in self.rows)
        return 2 if bad else 0


def merge(
    outs: Sequence[Path],
    dest: Path,
    submissions: Path | None = None,
    lang: str | None = None,
    lab: str | None = None,
    roster: str | None = None,
    assignment: str | None = None,
) -> Merged:
    """Write the class's outputs for the batches' outputs ``outs`` into ``dest``.

    With ``submissions``, the rows are those of the submissions found there, with
    ``roster`` (and its ``assignment``) as the batches found them: one per student."""
    shown = lang or "en"
    refused: list[Refusal] = []
    records: list[Record] = []
    for out in map(Path, outs):
        try:
            records.append(shardfile.record(out))
        except FileNotFoundError as exc:
            problem = exc.strerror or exc
            raise MergeError(text("merge.no_record", shown, out=out, problem=problem)) from None
        except Refused as exc:
            refused.append(Refusal(out, None, exc.message(shown), shard=True))
    if not records:
        raise MergeError(text("merge.no_record", shown, out=refused[0].out, problem=refused[0].why))
    first = records[0]
    lang = lang or first.lang or "en"
    chosen = find(lab or DEFAULT_LAB)
    _check_alike(records, chosen, lab or DEFAULT_LAB, lang)
    _check_shards([(r.out, r.shard) for r in records], len(refused), lang)
    opts = BatchOptions(
        seed=first.seed, seed_per_student=first.seed_per_student, lang=lang, lab=chosen.spec
    )
    found = None
    if submissions is not None:
        from grader.engine.batch.handins import load_roster

        asked = BatchOptions(seed=0, roster=roster, assignment=assignment)
        listed = load_roster(asked, chosen)
        found = {s.id: s for s in discover(submissions, skip=[dest], lab=chosen, roster=listed)}
    taken, stand, refused_rows, struck = _entries(records, chosen, found, submissions, lang)
    refused += refused_rows
    rows: list[tuple[int, Row]] = [(e.position, e.row) for e in taken.values()]
    for ident, (position, why) in stand.items():
        rows.append((position, _stand_in(ident, why, opts, found)))
    if found is not None:
        order = {ident: i for i, ident in enumerate(found)}
        rows = [(order.get(r.id, len(order)), r) for _, r in rows]
        have = {r.id for _, r in rows}
        for ident in found:
            if ident not in have:
                why = text("merge.no_row", lang)
                rows.append((order[ident], _stand_in(ident, why, opts, found)))
    rows.sort(key=lambda pr: (pr[0], pr[1].id))
    feedback = dest / "feedback"
    feedback.mkdir(parents=True, exist_ok=True)
    for _, row in rows:
        try:
            _write_feedback(feedback, row, taken.get(row.id), lang, chosen)
        except Exception as exc:  # the grader's fault, on this row alone
            struck.append(Fault(row.id, faults.MERGE, faults.describe(exc)))
    modules: list[tuple[str, Path]] = []
    if found is not None:
        for _, r in rows:
            module = found[r.id].module if r.id in found else None
            if module is not None:
                modules.append((r.id, module))
    else:
        for _, r in rows:
            entry = taken.get(r.id)
            if entry is not None and entry.module:
                modules.append((r.id, Path(entry.module)))
    seconds = sum(r.seconds for r in records)
    written = write_class(dest, [r for _, r in rows], modules, opts, seconds, first.sandbox, struck)
    return Merged(dest, written.rows, written.summary, refused, written.faults)


def _check_alike(records: list[Record], lab: Lab, spec: str, lang: str) -> None:
    """One seed and one lab: the merge's own."""
    first = records[0]
    for r in records:
        if r.lab != spec and r.lab != lab.spec:
            raise MergeError(text("merge.lab", lang, out=r.out, got=r.lab, want=spec))
        for key in ("seed", "seed_per_student"):
            if getattr(r, key) != getattr(first, key):
                raise MergeError(
                    text(
                        "merge.mismatch",
                        lang,
                        out=r.out,
                        what=key,
                        got=getattr(r, key),
                        want=getattr(first, key),
                    )
                )
    where: dict[Path, Record] = {}
    for r in records:
        try:
            place = r.out.resolve()
        except OSError:
            place = r.out
        if place in where:  # one output given twice
            ident = next(filter(None, map(shardfile.ident_of, r.entries)), r.out.name)
            raise MergeError(text("merge.duplicate", lang, id=ident, first=r.out, second=r.out))
        where[place] = r


def _entries(
    records: list[Record],
    lab: Lab,
    found: dict[str, Any] | None,
    submissions: Path | None,
    lang: str,
) -> tuple[dict[str, Entry], dict[str, tuple[int, str]], list[Refusal], list[Fault]]:
    """The rows taken (by id), the ids whose rows were refused (each with a place and
    why), the refusals, and the faults of the grader in reading a row."""
    struck: list[Fault] = []
    taken: dict[str, Entry] = {}
    stand: dict[str, tuple[int, str]] = {}
    refused: list[Refusal] = []
    seen: dict[str, tuple[str, Path]] = {}  # lowercase id -> the id, where it was first
    for rec in records:
        for raw in rec.entries:
            ident = shardfile.ident_of(raw)
            try:
                if ident is None:
                    shardfile.entry(rec.out, raw, lab)  # raises: says why
                if found is not None and ident not in found:
                    raise Refused("not_submission", folder=submissions, id=ident)
            except Refused as exc:
                refused.append(Refusal(rec.out, ident, exc.message(lang)))
                continue
            assert ident is not None
            position = _position(raw)
            if ident.lower() in seen:
                earlier, where = seen[ident.lower()]
                why = Refused("twice", id=ident, first=where, second=rec.out).message(lang)
                refused.append(Refusal(rec.out, ident, why))
                taken.pop(earlier, None)
                stand[earlier] = (
                    position,
                    text("merge.refused_detail", lang, out=rec.out, why=why),
                )
                continue
            seen[ident.lower()] = (ident, rec.out)
            try:
                taken[ident] = shardfile.entry(rec.out, raw, lab)
                if found is not None:  # whose it is as its submission says, not its shard
                    taken[ident].row.who = found[ident].who()
            except Refused as exc:
                refused.append(Refusal(rec.out, ident, exc.message(lang)))
                why = text("merge.refused_detail", lang, out=rec.out, why=exc.message(lang))
                stand[ident] = (position, why)
            except Exception as exc:  # the grader's fault, on this row alone
                struck.append(Fault(ident, faults.MERGE, faults.describe(exc)))
                stand[ident] = (position, faults.detail(struck[-1], lang))
    return taken, stand, refused, struck


def _position(raw: Any) -> int:
    value = raw.get("position") if isinstance(raw, dict) else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 31:
        return value
    return 1 << 31


def _stand_in(ident: str, why: str, opts: BatchOptions, found: dict[str, Any] | None) -> Row:
    """The row of a submission whose row was refused: a grader error with no points,
    whose it is as its submission says (``--submissions``), never as a refused row does."""
    who = found[ident].who() if found is not None and ident in found else {}
    top = float(find(opts.lab).max_score)
    return Row(ident, GRADER_ERROR, 0.0, top, {}, opts.seed, 0.0, why, who=who)


def _write_feedback(folder: Path, row: Row, entry: Entry | None, lang: str, lab: Lab) -> None:
    """The row's feedback files: those of its shard as read and checked, else the
    feedback of a submission that has no grading."""
    if entry is None:
        made = problem_feedback(row, lang, lab.module_file)
        files = {"txt": made.feedback_text, "json": made.feedback_json}
    else:
        files = entry.feedback
    for ext in ("txt", "json"):
        path = folder / ("%s.%s" % (row.id, ext))  # the id is a checked name
        if ext in files:
            write_atomic(path, files[ext])
        else:
            try:
                path.unlink()  # a file of an earlier merge is not this one's
            except FileNotFoundError:
                pass


def _check_shards(shards: list[tuple[Path, Any]], refused: int, lang: str) -> None:
    """Every shard of one split once, or outputs that are not shards at all; as many
    shards may be missing as outputs were refused (whose shard is unknown)."""
    split = {tuple(s)[1] for _, s in shards if s}
    if not split:
        return
    if len(split) > 1 or any(not s for _, s in shards):
        raise MergeError(text("merge.split", lang))
    n = split.pop()
    have = sorted(tuple(s)[0] for _, s in shards)
    missing = sorted(set(range(1, n + 1)) - set(have))
    if len(missing) > refused or len(have) != len(set(have)):
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
        help="read the modules for the similarity pass from this folder, and take only "
        "rows of the submissions found there (default: where each shard found them)",
    )
    p.add_argument(
        "--lab",
        metavar="NAME|DIR",
        help="the lab the outputs were graded against (default: embed)",
    )
    p.add_argument("--lang", choices=LANGUAGES, help="language of the outputs")
    filledroster.add_arguments(p)
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
            args.lab,
            args.roster,
            args.assignment,
        )
    except UsageError as exc:
        print(text(exc.code, lang, **exc.params), file=sys.stderr)
        return 2
    except MergeError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except LabError as exc:
        problem = str(exc)
        print(
            text("cli.no_lab", lang, lab=args.lab or DEFAULT_LAB, problem=problem), file=sys.stderr
        )
        return 2
    except OSError as exc:
        print("%s: %s" % (exc.filename or args.out, exc.strerror or exc), file=sys.stderr)
        return 2
    for r in merged.refused:
        if r.shard:
            print(text("merge.refused_shard", lang, out=r.out, why=r.why), file=sys.stderr)
        else:
            print(text("merge.refused_row", lang, out=r.out, why=r.why), file=sys.stderr)
    ids = sorted({f.id for f in merged.faults if f.id})
    if ids:
        print(text("batch.faults", lang, n=len(ids), ids=", ".join(ids)), file=sys.stderr)
    looked = filledroster.after_merge(merged.out, merged.rows, merged.summary, args, lang)
    print(text("merge.done", lang, n=len(merged.rows), outs=len(args.outs), out=merged.out))
    if looked and getattr(merged, "exit_status", 0) == 0:
        return 1  # every file written; some hand-ins need a look
    return merged.exit_status
