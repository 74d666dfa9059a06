"""Claims the markdown report makes about known quantities without a report key: a
constant with its value, a square root, a product.  Each is checked, in every
language's report, and a wrong one fails the figures finding with what is true."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.engine.vocabulary.results import Status
from grader.labs.embed import reports
from grader.labs.embed.reports.claims import claims_in

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"


def figures_finding(tmp_path: Path, extra: str, lang: str = "en") -> reports.Finding:
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, tmp_path / name)
    md = tmp_path / "embed_report.md"
    md.write_text(md.read_text("utf-8") + "\n" + extra + "\n", "utf-8")
    return next(f for f in reports.check(tmp_path, lang) if f.id == "report.md.figures")


@pytest.mark.parametrize(
    "wrong",
    [
        "√64 = 9, and the table has 777 rows.",
        "Here √d = 9 and so on.",
        "We used `DIM` = 63 cells.",
        "The table is VOCAB = 500 rows long.",
        "It holds 512 × 64 = 32000 numbers.",
        "VOCAB * DIM = 30,000 values.",
        "sqrt(3) ≈ 1.8 for the board.",
    ],
)
def test_a_wrong_claim_fails_the_figures_with_what_is_true(tmp_path: Path, wrong: str) -> None:
    finding = figures_finding(tmp_path, wrong)
    assert finding.status is Status.FAIL, finding.message
    [claim] = claims_in(wrong)
    assert claim.truth in finding.message and not claim.ok


@pytest.mark.parametrize(
    "right",
    [
        "√64 = 8, and the table has 777 rows.",
        "Here √d = 8.0, √DIM ≈ 8 and sqrt(3) ≈ 1.73 (√3 ≈ 1.7).",
        "We used `DIM` = 64 cells, VOCAB: 512 rows, K = 5 and PROBE = 137.",
        "It holds 512 × 64 = 32768 numbers, VOCAB * DIM = 32,768, and 5 · 3 = 15.",
        "- 2 × 3 = 6 on a list line",
        "A formula is not read: 1 + 2 × 3 = 7, x = 2 × 3 = 6 + 1, rms_scaled / DIM = 3.",
    ],
)
def test_a_true_claim_passes(tmp_path: Path, right: str) -> None:
    finding = figures_finding(tmp_path, right)
    assert finding.status is Status.PASS, finding.message


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_message_is_in_every_language(tmp_path: Path, lang: str) -> None:
    finding = figures_finding(tmp_path, "√64 = 9", lang)
    assert finding.status is Status.FAIL and "√64 = 8" in finding.message


def test_the_reference_report_makes_only_true_claims() -> None:
    text = (REFERENCE / "embed_report.md").read_text("utf-8")
    assert all(c.ok for line in text.splitlines() for c in claims_in(line))


def test_a_long_line_of_claims_is_read_in_bounded_time() -> None:
    line = "512 × 64 = 32768, " * 5000 + "9" * 10_000 + " × 2 = 3"
    found = claims_in(line)
    assert len(found) == 5000 and all(c.ok for c in found)


# The fifth heading as Korean spacing writes it --------------------------------------------


@pytest.mark.parametrize(
    ("heading", "ok"),
    [
        ("## √d 를 곱하면 무엇이 달라지나", True),  # the contract's, space and all
        ("## √d를 곱하면 무엇이 달라지나", True),  # as Korean spells it
        ("## √d  를 곱하면 무엇이 달라지나", False),
        ("## √d를곱하면 무엇이 달라지나", False),
    ],
)
def test_the_fifth_heading_is_accepted_with_the_natural_spacing_too(
    tmp_path: Path, heading: str, ok: bool
) -> None:
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, tmp_path / name)
    md = tmp_path / "embed_report.md"
    text = md.read_text("utf-8")
    assert "## √d 를 곱하면 무엇이 달라지나" in text
    md.write_text(text.replace("## √d 를 곱하면 무엇이 달라지나", heading), "utf-8")
    found = {f.id: f for f in reports.check(tmp_path, "en")}
    assert (found["report.md.headings"].status is Status.PASS) is ok
    assert (found["report.md.prose.5"].status is Status.PASS) is ok


def test_claims_alone_are_not_the_figure_a_report_must_state(tmp_path: Path) -> None:
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copyfile(REFERENCE / name, tmp_path / name)
    md = tmp_path / "embed_report.md"
    lines = [line.split("`")[0] for line in md.read_text("utf-8").splitlines()]
    md.write_text("\n".join(lines) + "\n\nDIM = 64 and √64 = 8.\n", "utf-8")
    finding = next(f for f in reports.check(tmp_path) if f.id == "report.md.figures")
    assert finding.status is Status.FAIL and finding.code == "report.md.figures_none"
