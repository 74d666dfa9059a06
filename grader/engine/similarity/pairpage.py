"""A side-by-side page for each flagged pair, the shared passages highlighted alike.

``similar/pair-NNNNN.html`` in the batch's output, one per pair of ``similarity.json``
(the first ``MAX_PAGES``), the way MOSS shows a match: both modules in full, each
passage the two share in the same colour on both sides, and a list of the passages
(lines of one, lines of the other) that links to them.  A passage is a run of
``K`` normalised tokens or more that both hold, in the same order.

The page stands alone: no script, no request for anything (its CSP forbids both),
styles inline.  Everything from the submissions (their code, their ids, the names of
their functions) is escaped, and characters that change how text reads (bidirectional
controls, other control characters) are shown as escapes, never obeyed.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from grader.engine.messages import text
from grader.engine.similarity.tokens import Tokens, normalize
from grader.engine.similarity.winnowing import K, grams

FOLDER = "similar"
CLASS_PAGE = "report.html"  # the class page, one folder up (grader.engine.batch.pages.PAGE)
MAX_PAGES = 1000
# At most this many lines of one module are shown.
MAX_LINES = 5000
COLOURS = 8
# Characters shown as escapes: C0/C1 controls but tab, bidirectional controls, and
# zero-width marks that make two different texts look alike.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_STYLE = (
    "body{font-family:sans-serif;margin:1em}"
    "table.code{border-collapse:collapse;width:100%;table-layout:fixed}"
    "td.side{vertical-align:top;width:50%;padding:0 .5em}"
    "pre{margin:0;font-size:12px;white-space:pre-wrap;word-break:break-all}"
    "span.n{color:#555;user-select:none}"
    ".muted{color:#555}"
    ".p0{background:#ffd6d6}.p1{background:#d6f5d6}.p2{background:#d6e4ff}"
    ".p3{background:#fff3c4}.p4{background:#f0d6ff}.p5{background:#d6fff8}"
    ".p6{background:#ffe2c4}.p7{background:#e4e4e4}"
)
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'"


def safe(value: object) -> str:
    """``value`` as HTML text: escaped, with controls shown as ``\\uXXXX``."""
    return html.escape(_UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group()), str(value)), quote=True)


def passages(a: Tokens, b: Tokens) -> list[tuple[int, int, int, int]]:
    """The runs both hold: (a's first line, a's last line, b's first line, b's last line),
    in the order of ``a``."""
    ga, gb = grams(a.tokens), grams(b.tokens)
    first: dict[int, int] = {}
    for j, h in enumerate(gb):
        first.setdefault(h, j)
    runs: list[list[int]] = []  # [a first gram, a last gram, b first gram, b last gram]
    for i, h in enumerate(ga):
        at = first.get(h)
        if at is None:
            continue
        if runs and runs[-1][1] == i - 1:
            last = runs[-1]
            nxt = last[3] + 1
            if nxt < len(gb) and gb[nxt] == h:
                last[1], last[3] = i, nxt
                continue
        runs.append([i, i, at, at])
    out = []
    for ai, aj, bi, bj in runs:
        out.append((a.line(ai), a.line(aj + K - 1), b.line(bi), b.line(bj + K - 1)))
    return out


def _side(source: str, marks: dict[int, int], anchor: str) -> str:
    lines = source.splitlines()[:MAX_LINES]
    width = len(str(len(lines)))
    out = []
    for n, line in enumerate(lines, 1):
        number = '<span class="n">%*d </span>' % (width, n)
        body = safe(line.expandtabs(4)) or " "
        mark = marks.get(n)
        if mark is None:
            out.append(number + body)
        else:
            out.append(
                '<span id="%s%d" class="p%d">%s%s</span>'
                % (anchor, n, mark % COLOURS, number, body)
            )
    return "<pre>%s</pre>" % "\n".join(out)


def _marks(spans: Sequence[tuple[int, int]]) -> dict[int, int]:
    marks: dict[int, int] = {}
    for k, (first, last) in enumerate(spans):
        for n in range(first, last + 1):
            marks.setdefault(n, k)
    return marks


def pair_page(pair: dict[str, Any], source_a: str, source_b: str, lang: str) -> str:
    """The page of one pair of ``similarity.json`` (``pair``) from the two sources."""

    def t(code: str, **params: Any) -> str:
        return safe(text(code, lang, **params))

    ta, tb = normalize(source_a), normalize(source_b)
    found = passages(ta, tb)
    a, b = str(pair["a"]), str(pair["b"])
    items = []
    for k, (a1, a2, b1, b2) in enumerate(found):
        items.append(
            '<li class="p%d"><a href="#a%d">%s %d-%d</a> &harr; <a href="#b%d">%s %d-%d</a></li>'
            % (k % COLOURS, a1, safe(a), a1, a2, b1, safe(b), b1, b2)
        )
    functions = []
    for side, other, key in ((a, b, "a_functions_in_b"), (b, a, "b_functions_in_a")):
        names = pair.get(key) or []
        if names:
            functions.append(
                "<p>%s</p>"
                % t("page.functions_in", of=side, other=other, names=", ".join(map(str, names)))
            )
    head = t("page.holds", holder=b, held=a, share=_percent(pair.get("a_in_b")))
    head += "; " + t("page.holds", holder=a, held=b, share=_percent(pair.get("b_in_a")))
    return (
        "<!DOCTYPE html>\n"
        '<html lang="%s"><head><meta charset="utf-8">'
        '<meta http-equiv="Content-Security-Policy" content="%s">'
        '<meta name="referrer" content="no-referrer">'
        "<title>%s</title><style>%s</style></head><body>"
        '<header><nav><a href="../%s">%s</a></nav></header><main>'
        '<h1>%s</h1><p>%s</p>%s<p class="muted">%s</p><ol>%s</ol>'
        '<table class="code"><tr><th>%s</th><th>%s</th></tr>'
        '<tr><td class="side">%s</td><td class="side">%s</td></tr></table>'
        "</main></body></html>\n"
        % (
            safe(lang),
            CSP,
            t("page.pair_title", a=a, b=b),
            _STYLE,
            CLASS_PAGE,
            t("page.back"),
            t("page.pair_title", a=a, b=b),
            head,
            "".join(functions),
            t("page.pair_advisory", passages=len(found)),
            "".join(items),
            safe(a),
            safe(b),
            _side(source_a, _marks([(x[0], x[1]) for x in found]), "a"),
            _side(source_b, _marks([(x[2], x[3]) for x in found]), "b"),
        )
    )


def _percent(share: object) -> str:
    return "%d%%" % round(100 * float(share)) if isinstance(share, (int, float)) else "-"


def page_name(n: int) -> str:
    return "%s/pair-%05d.html" % (FOLDER, n)


def write_pair_pages(
    out: Path,
    pairs: Sequence[dict[str, Any]],
    paths: dict[str, Path],
    read: Callable[[Path], str | None],
    write: Callable[[Path, str], None],
    lang: str = "en",
) -> list[str | None]:
    """Write the pages of the first ``MAX_PAGES`` pairs; returns each pair's page (its
    path from ``out``), None for a pair without one."""
    pages: list[str | None] = []
    sources: dict[str, str | None] = {}

    def source(ident: str) -> str | None:
        if ident not in sources:
            if len(sources) > 200:
                sources.clear()
            path = paths.get(ident)
            try:
                sources[ident] = read(path) if path is not None else None
            except Exception:  # a module that cannot be read again has no page
                sources[ident] = None
        return sources[ident]

    if pairs:
        (out / FOLDER).mkdir(parents=True, exist_ok=True)
    for n, pair in enumerate(pairs):
        a, b = source(str(pair["a"])), source(str(pair["b"]))
        if n >= MAX_PAGES or a is None or b is None:
            pages.append(None)
            continue
        name = page_name(n + 1)
        try:
            write(out / name, pair_page(pair, a, b, lang))
        except Exception:  # one pair's page never stops the others
            pages.append(None)
            continue
        pages.append(name)
    return pages
