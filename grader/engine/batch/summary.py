"""The class at a glance: ``summary.json`` (counts, scores, steps, failing checks) and its text."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from grader import __version__
from grader.engine.batch.rows import (
    NOT_GRADED,
    STATUSES,
    UNSCORED,
    BatchOptions,
    Row,
    num,
)
from grader.engine.lab import find
from grader.engine.messages import kind, text
from grader.engine.output import terminal

# Totals are put in ten bins below the full marks, which have a bin of their own.


def summarize(rows: Sequence[Row], opts: BatchOptions, seconds: float) -> dict[str, Any]:
    """The class at a glance.  Rows with a grader error count in ``statuses`` only."""
    lab = find(opts.lab)
    top = lab.max_score
    scored = [r for r in rows if r.status not in UNSCORED]
    totals = [r.total for r in scored]
    statuses = Counter(r.status for r in rows)
    bins: list[dict[str, Any]] = []
    # Ten bins below the full marks (of ten points each for a lab out of 100).
    width = max(1, -(-top // 10))
    for lo, hi in ((lo, min(lo + width, top)) for lo in range(0, top, width)):
        n = sum(1 for t in totals if lo <= t < hi)
        bins.append({"from": lo, "below": hi, "count": n})
    bins.append({"from": top, "below": None, "count": sum(1 for t in totals if t >= top)})
    steps = {
        str(s): {
            "title": text("step.%d" % s, opts.lang),
            "mean": round(statistics.fmean([r.steps.get(s, 0.0) for r in scored]), 2)
            if scored
            else 0.0,
            "max": lab.steps[s],
        }
        for s in sorted(lab.steps)
    }
    students: Counter[str] = Counter()
    codes: dict[str, Counter[str]] = {}
    roots: Counter[str] = Counter()
    follows_from: dict[str, Counter[str]] = {}
    leads_to: dict[str, Counter[str]] = {}
    for r in scored:
        for check_id, code in {(c[0], c[1]) for c in r.failing}:
            students[check_id] += 1
            codes.setdefault(check_id, Counter())[code or "-"] += 1
        found = root_causes(r)
        for check_id, causes in found.items():
            if not causes:
                roots[check_id] += 1
            for cause in causes:
                leads_to.setdefault(cause, Counter())[check_id] += 1
        for check_id, names in r.follows.items():
            if check_id in found:
                follows_from.setdefault(check_id, Counter()).update(set(names))
    # Root causes first: a failure that follows from another counts under that one.
    order = sorted(students, key=lambda c: (-roots[c], -students[c], c))
    failing = [
        {
            "check": check_id,
            "students": students[check_id],
            "share": round(students[check_id] / len(scored), 3),
            "root": roots[check_id],
            "codes": _ranked(codes[check_id]),
            "mistakes": _in_words(codes[check_id], opts.lang),
            "follows_from": _ranked(follows_from.get(check_id, Counter())),
            "leads_to": _ranked(leads_to.get(check_id, Counter())),
        }
        for check_id in order
    ]
    return {
        "grader_version": __version__,
        "seed": opts.seed,
        "seed_per_student": opts.seed_per_student,
        "count": len(rows),
        "scored": len(scored),
        "statuses": {s: statuses[s] for s in STATUSES if statuses[s]},
        "max_score": top,
        "mean": round(statistics.fmean(totals), 2) if totals else None,
        "median": round(statistics.median(totals), 2) if totals else None,
        "lowest": min(totals) if totals else None,
        "highest": max(totals) if totals else None,
        "full_marks": sum(1 for t in totals if t >= top),
        "distribution": bins,
        "steps": steps,
        "failing_checks": failing,
        "seconds": round(seconds, 2),
        "not_graded": sum(1 for r in rows if r.status == NOT_GRADED),
    }


def _ranked(counts: Counter[str]) -> dict[str, int]:
    """Most common first, ties by name: the same order in every process (the counts are
    gathered from sets, whose order changes with each process's hash seed)."""
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def root_causes(row: Row) -> dict[str, set[str]]:
    """Each failing check of ``row`` with the failing checks it follows from at the root
    (an empty set for a root cause itself).

    A check follows from the functions ``row.follows`` names (a caller failing through
    its callee, a report figure measured with a wrong function); a function's failing
    checks that follow from no other are its root causes, and a chain of callers is
    followed down to them.  A check whose functions have no root cause of their own
    (only failures that follow from each other) is its own root.
    """
    ids = list(dict.fromkeys(c[0] for c in row.failing))
    own: dict[str, list[str]] = {}
    for check_id in ids:
        if check_id not in row.follows:
            own.setdefault(check_id.split(".")[0], []).append(check_id)
    through: dict[str, set[str]] = {}  # function -> the functions its followers name
    for check_id, names in row.follows.items():
        through.setdefault(check_id.split(".")[0], set()).update(names)

    def down(names: list[str]) -> set[str]:
        found: set[str] = set()
        seen: set[str] = set()
        todo = list(names)
        while todo:
            fn = todo.pop()
            if fn in seen:
                continue
            seen.add(fn)
            if fn in own:
                found.update(own[fn])
            else:
                todo.extend(through.get(fn, ()))
        return found

    out: dict[str, set[str]] = {}
    for check_id in ids:
        if check_id in row.follows:
            out[check_id] = down(row.follows[check_id]) - {check_id}
        else:
            out[check_id] = set()
    return out


def _in_words(codes: Counter[str], lang: str) -> dict[str, int]:
    """Failure codes as the kinds of mistake they stand for, most frequent first."""
    words: Counter[str] = Counter()
    for code, n in codes.items():
        words[kind(code, lang)] += n
    return _ranked(words)


TOP_FAILING = 15
BAR = 40


def summary_text(
    summary: dict[str, Any], lang: str = "en", width: int = terminal.DEFAULT_WIDTH
) -> str:
    """The class summary as text, no line wider than ``width`` columns."""
    lines = _summary_lines(summary, lang, width)
    if summary.get("not_graded"):  # the machine ran short: said last, to be seen
        lines += ["", text("batch.machine", lang, n=summary["not_graded"])]
    lines += _fault_lines(summary.get("faults") or [], lang)
    lines += identity_lines(summary.get("identities") or {}, lang)
    fitted = [piece for line in lines for piece in terminal.wrap(line, width, " " * 8)]
    return "\n".join(fitted) + "\n"


def _fault_lines(found: list[dict[str, str]], lang: str) -> list[str]:
    """The steps the grader failed in (see ``faults.py``), said last, to be seen."""
    ids = sorted({f["id"] for f in found if f["id"]})
    lines = []
    if ids:
        shown = ", ".join(ids[:TOP_FAILING]) + (
            " (+%d)" % (len(ids) - TOP_FAILING) if len(ids) > TOP_FAILING else ""
        )
        lines.append(text("batch.faults", lang, n=len(ids), ids=shown))
    for f in found:
        if not f["id"]:
            lines.append(text("batch.fault_class", lang, stage=f["stage"], error=f["error"]))
    return [""] + lines if lines else []


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
            mean=num(summary["mean"]),
            median=num(summary["median"]),
            lowest=num(summary["lowest"]),
            highest=num(summary["highest"]),
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
            if terminal.cells(row) > width:  # the kinds of mistake go below, indented
                row = "  %4d  %s\n        %s" % (f["students"], f["check"], codes)
            lines += row.split("\n")
        if len(failing) > TOP_FAILING:
            lines.append("  " + t("batch.more_failing", n=len(failing) - TOP_FAILING))
    return lines


def identity_lines(found: dict[str, list[str]], lang: str) -> list[str]:
    """The summary's lines of what needs a look before the import, and who is absent."""
    lines = [""] + found["absent"] if found.get("absent") else []
    if found.get("look"):
        lines += ["", text("handin.summary_title", lang)] + ["  - " + f for f in found["look"]]
    return lines
