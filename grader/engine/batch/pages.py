"""The class on one page: ``report.html`` and ``feedback/ID.html`` in the batch's output folder.

Both are single files that open offline: the charts are SVG drawn by pygal and
inlined, the table's sorting and search are a few lines of inline script, and a
Content-Security-Policy lets nothing else run or load.  Jinja2 escapes every value
(autoescape), so the names and messages a student controls stay text.

The page is built from what the batch already wrote: its rows, ``summary.json``
and each submission's ``feedback/ID.json`` and ``feedback/ID.txt``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import urllib.parse
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

import jinja2
import pygal
from markupsafe import Markup
from pygal.style import Style

from grader import __version__
from grader.engine.batch.failedchecks import failed_functions
from grader.engine.frozen import frozen
from grader.engine.messages import text

if TYPE_CHECKING:
    from grader.engine.batch.rows import Row

PAGE = "report.html"
# Examples of students shown for one mistake; the count covers them all.
EXAMPLES = 6
TOP_MISTAKES = 20
# Rows of the students' table on one page; the script pages through the rest.
PAGE_SIZE = 50
# Entries of the lists that can grow with the class (problems, copies of a solution).
LISTED = 100
# Flagged pairs shown on the class page; similarity.json lists every one.
PAIRS_SHOWN = 25
FAILING_STATES = ("fail", "error", "timeout")


def _style(*colors: str) -> Style:
    """pygal's style for the page: its own colours at full opacity, so that the value
    printed in a bar has the contrast it is measured with (4.5:1 or more)."""
    return Style(
        background="white",
        plot_background="white",
        foreground="#1d2733",
        foreground_strong="#1d2733",
        foreground_subtle="#56626e",
        opacity="1",
        opacity_hover="1",
        font_family="system-ui, sans-serif",
        label_font_size=12,
        major_label_font_size=12,
        value_font_size=11,
        title_font_size=14,
        legend_font_size=12,
        colors=colors,
    )


# The histogram prints its counts in its bars: dark text on a light blue (8:1).
_HISTOGRAM = _style("#9cc5e6")
# The steps: all, some or none of a step's points (no text on them).
_STEPS = _style("#2f6f9f", "#e0a030", "#c0504d")


@frozen
class Mistake:
    """One hint given to several students."""

    function: str
    hint: str
    students: tuple[str, ...]


# Charts -----------------------------------------------------------------------------


def _svg(chart: Any, title: str) -> str:
    """The chart as inline SVG, without the configuration script pygal adds."""
    tree = chart.render_tree()
    for parent in list(tree.iter()):
        for child in list(parent):
            if isinstance(child.tag, str) and child.tag.rsplit("}", 1)[-1] == "script":
                parent.remove(child)
    tree.set("role", "img")
    tree.set("aria-label", title)
    ElementTree.register_namespace("", "http://www.w3.org/2000/svg")
    ElementTree.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    return ElementTree.tostring(tree, encoding="unicode")


def _chart_options(style: Style, width: int = 500) -> dict[str, Any]:
    return {
        "style": style,
        "js": [],
        "disable_xml_declaration": True,
        "width": width,
        "truncate_label": -1,
        "height": 300,
        "explicit_size": True,
    }


def histogram(distribution: Sequence[dict[str, Any]], t: Callable[..., str]) -> str:
    chart = pygal.Bar(
        show_legend=False,
        print_values=True,
        y_title=t("page.students_axis"),
        x_title=t("page.points_axis"),
        # Eleven labels such as "10-19": wide enough that they stand apart.
        **_chart_options(_HISTOGRAM, width=660),
    )
    chart.x_labels = [
        "%d-%d" % (b["from"], b["below"] - 1) if b["below"] is not None else "%d" % b["from"]
        for b in distribution
    ]
    chart.add(t("page.students_axis"), [b["count"] for b in distribution])
    return _svg(chart, t("page.distribution"))


def step_chart(rows: Sequence[Row], t: Callable[..., str], points: dict[int, float]) -> str:
    """Per step, how many students got all, some or none of its points."""
    chart = pygal.StackedBar(
        legend_at_bottom=True,
        x_title=t("page.step_axis"),
        y_title=t("page.students_axis"),
        print_values=False,
        **_chart_options(_STEPS),
    )
    steps = sorted(points)
    chart.x_labels = [str(s) for s in steps]
    full, some, none = [], [], []
    for s in steps:
        got = [r.steps.get(s, 0.0) for r in rows]
        full.append(sum(1 for g in got if g >= points[s] - 1e-9))
        none.append(sum(1 for g in got if g <= 0))
        some.append(len(got) - full[-1] - none[-1])
    chart.add(t("page.full"), full)
    chart.add(t("page.some"), some)
    chart.add(t("page.none"), none)
    return _svg(chart, t("page.steps_chart"))


# Data from the feedback files ---------------------------------------------------------


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def mistakes(feedback: dict[str, dict[str, Any]]) -> list[Mistake]:
    """The hints given for failing checks, each with the students who got it, most first."""
    seen: dict[tuple[str, str], list[str]] = {}
    for ident, data in feedback.items():
        given: set[tuple[str, str]] = set()
        for c in data.get("checks") or []:
            if not isinstance(c, dict) or not c.get("hint"):
                continue
            if c.get("status") in FAILING_STATES and not c.get("caused_by"):
                given.add((str(c.get("function", "")), str(c["hint"])))
        for key in given:
            seen.setdefault(key, []).append(ident)
    found = [Mistake(f, h, tuple(sorted(ids))) for (f, h), ids in seen.items()]
    found.sort(key=lambda m: (-len(m.students), m.function, m.hint))
    return found


# Rendering ------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("grader.engine", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["href"] = feedback_href
    env.filters["num"] = _num
    env.filters["counts"] = _counts
    env.globals["step_state"] = step_state
    return env


def feedback_href(ident: str) -> str:
    return "feedback/%s.html" % urllib.parse.quote(ident, safe="")


def _num(x: Any) -> str:
    if x is None:
        return "-"
    return ("%.2f" % float(x)).rstrip("0").rstrip(".")


def _counts(counts: dict[str, int], most: int = 4) -> str:
    """``name n, name n`` for the first ``most`` entries, "…" for the rest."""
    shown = ", ".join("%s %d" % kv for kv in list(counts.items())[:most])
    return shown + (", …" if len(counts) > most else "")


@functools.lru_cache(maxsize=1)
def _script() -> tuple[str, str]:
    """The page's own script and its CSP hash."""
    source = (
        resources.files("grader.engine")
        .joinpath("templates")
        .joinpath("table.js")
        .read_text("utf-8")
    )
    digest = base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode()
    return source, "'sha256-%s'" % digest


def write_pages(
    out: Path,
    rows: Sequence[Row],
    summary: dict[str, Any],
    lang: str,
    write: Callable[[Path, str], None],
) -> Path:
    """Write ``feedback/ID.html`` for every row and ``report.html``; returns the page's path."""
    from grader.engine.batch.rows import GRADED

    def t(code: str, **params: Any) -> str:
        return text(code, lang, **params)

    env = environment()
    folder = out / "feedback"
    feedback = {r.id: _load(folder / ("%s.json" % r.id)) for r in rows}
    student = env.get_template("student.html")
    for r in rows:
        try:
            plain = (folder / ("%s.txt" % r.id)).read_text(encoding="utf-8")
        except OSError:
            plain = ""
        data = feedback[r.id]
        steps = data.get("steps") if isinstance(data.get("steps"), dict) else {}
        page = student.render(t=t, lang=lang, row=r, steps=steps, plain=plain, page=PAGE)
        write(folder / ("%s.html" % r.id), page)
    scored = [r for r in rows if r.status not in ("grader error", "not graded")]
    # Each step's points, as the summary has them from the lab.
    points = {int(s): float(v["max"]) for s, v in summary["steps"].items()}
    script, script_hash = _script()
    similar = summary.get("similar") or {}
    # Every pair counts, also those beyond the summary's list.
    flags: dict[str, list[str]] = {}
    more: dict[str, int] = {}
    listed = similar.get("partners")
    if isinstance(listed, dict):
        for ident, entry in listed.items():
            flags[ident] = list(entry.get("some", []))
            more[ident] = int(entry.get("n", 0)) - len(flags[ident])
    else:
        for p in similar.get("pairs", []):
            flags.setdefault(p["a"], []).append(p["b"])
            flags.setdefault(p["b"], []).append(p["a"])
    for c in similar.get("close_to_solutions", []):
        flags.setdefault(c["id"], []).append(c["solution"])

    def status(name: str) -> str:
        """A row's status in the page's language."""
        return t("batch.status." + name.replace(" ", "_"))

    def flag_text(ident: str) -> str:
        alike = flags.get(ident, [])
        hidden = max(len(alike) - 3, 0) + more.get(ident, 0)
        return ", ".join(alike[:3]) + (" (+%d)" % hidden if hidden else "")

    steps = sorted(points)
    roster_data = {
        "page": PAGE_SIZE,
        "points": [points[s] for s in steps],
        "rows": [
            [
                r.id,
                feedback_href(r.id),
                r.total,
                [r.steps.get(s, 0.0) for s in steps],
                status(r.status),
                r.seconds,
                flag_text(r.id),
                r.status == GRADED,
            ]
            for r in rows
        ],
    }
    page = env.get_template("report.html").render(
        t=t,
        lang=lang,
        version=__version__,
        summary=summary,
        statuses=", ".join("%s %d" % (status(s), n) for s, n in summary["statuses"].items()) or "-",
        status=status,
        rows=rows,
        steps=steps,
        step_points=points,
        page_size=PAGE_SIZE,
        pages=max(1, -(-len(rows) // PAGE_SIZE)),
        listed=LISTED,
        pairs_shown=PAIRS_SHOWN,
        roster_data=roster_data,
        flag_text=flag_text,
        problems=[r for r in rows if r.status != GRADED],
        failed=failed_functions(rows, lang),
        mistakes=mistakes(feedback)[:TOP_MISTAKES],
        examples=EXAMPLES,
        similar=similar,
        flags=flags,
        histogram=Markup(histogram(summary["distribution"], t)),
        step_chart=Markup(step_chart(scored, t, points)),
        script=Markup(script),
        script_hash=script_hash,
    )
    path = out / PAGE
    write(path, page)
    return path


def step_state(points: float, most: float) -> str:
    if most and points >= most - 1e-9:
        return "full"
    return "none" if points <= 0 else "some"
