"""A class folder as each platform downloads it: one row per student, the identity
only from where the platform writes it, the module found by one rule everywhere.

The layouts are the platforms' own: Canvas's flat ``name_[late_]USERID_FILEID_file``
(its name written as Canvas writes it: lower-case word characters, every ``_DIGITS_``
squashed), Moodle's ``Full Name_NNN_assignsubmission_file_/`` folders (NNN the
participant number) beside ``..._onlinetext_/onlinetext.html``, Gradescope's
``submission_NNN/`` folders, GitHub Classroom's ``PREFIX-USERNAME/`` repositories.
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest
from lms_layouts import MODULE, REPORTS, canvas_class, put, with_reports

from grader.engine.batch import discover
from grader.engine.handin import identity
from grader.engine.handin.archives import Refused, unpack
from grader.engine.handin.finding import choose

ROOT = Path(__file__).resolve().parent.parent


def table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def by_id(root: Path, **kw: object) -> dict[str, object]:
    return {s.id: s for s in discover(root, staging=root.parent / "staging", **kw)}  # type: ignore[arg-type]


# Identities: only from the platform's position ------------------------------------------


def test_moodle_participant_is_the_number_right_before_assignsubmission() -> None:
    who = identity.moodle("Kim Min-jun_4321_assignsubmission_file_")
    assert who is not None and (who.key, who.name) == ("4321", "Kim Min-jun")
    # A name that holds the pattern: Moodle turns its "_" into spaces, so the name
    # never reaches the position of the number.
    who = identity.moodle("Eve 42 assignsubmission x_777_assignsubmission_file_")
    assert who is not None and who.key == "777"
    assert identity.moodle("Eve_42_assignsubmission_x_777_assignsubmission_file_") is None
    assert identity.moodle("notes_42_assignsubmission") is None


def test_canvas_fields_follow_the_name_as_canvas_writes_it() -> None:
    who = identity.canvas("smithjohn_12345_67890_embed.py")
    assert who is not None and (who.key, who.name, who.rest) == ("12345", "smithjohn", "embed.py")
    late = identity.canvas("leeann_late_222_333_embed_report.json")
    assert late is not None and late.key == "222" and late.late
    text = identity.canvas("kim_5_text.html")
    assert text is not None and (text.key, text.rest) == ("5", "text.html")
    # Not what Canvas writes: capitals, spaces, a lone field of digits in the name.
    for name in ("x 4242 1 eve.py", "X_4242_1_eve", "x.4242.1.eve", "Smith_1_2_embed.py"):
        assert identity.canvas(name) is None, name
    # A name ending in digits or a file name starting with them reads two ways:
    # no identity without a roster, the roster's own name with one.
    name = "eve_4242_555_999_embed.py"
    assert identity.canvas_ambiguous(name) and identity.canvas(name) is None
    who = identity.canvas(name, {"555": {"eve_4242"}, "4242": {"someoneelse"}})
    assert who is not None and who.key == "555"
    assert identity.canvas_written_name("O'Brien_7_, Ann-Marie") == "obrien7ann" + "marie"


def test_a_crafted_name_takes_no_classmates_identity(tmp_path: Path) -> None:
    """Names chosen to look like a classmate's fields get no identity, in the LMS files."""
    root = tmp_path / "class"
    put(root / "Eve 42 assignsubmission x_777_assignsubmission_file_" / "embed.py")
    put(root / "x 4242 1 eve" / "embed.py")  # a folder: Canvas downloads files only
    put(root / "x 4242 1 eve.py")
    put(root / "x-4242-1-eve.py")
    found = by_id(root)
    who = {k: s.who() for k, s in found.items()}  # type: ignore[attr-defined]
    moodle = [w for w in who.values() if w.get("platform") == "moodle"]
    assert [w["key"] for w in moodle] == ["777"]
    assert not [w for w in who.values() if w.get("key") in ("42", "4242")]


def test_two_hand_ins_that_claim_one_student_get_neither(tmp_path: Path) -> None:
    root = tmp_path / "class"
    put(root / "Eve Adams_42_assignsubmission_file_" / "embed.py")
    put(root / "Mallory Mole_42_assignsubmission_file_" / "embed.py")
    put(root / "smithjohn_7_1_embed.py")
    put(root / "mallory_7_2_embed.py")
    found = discover(root, staging=tmp_path / "staging")
    assert len(found) == 4
    for sub in found:
        assert sub.identity is None and sub.claim == "claimed", sub.id
        assert sub.claimed is not None and sub.claimed.key in ("42", "7")
        assert any("claims the same student" in n for n in sub.notes), sub.notes


def test_links_in_the_class_folder_stop_nobody(tmp_path: Path) -> None:
    # A link to itself, a loop of two and a dangling link are each refused by name, and
    # every other student is still found.
    root = tmp_path / "class"
    put(root / "ann" / "embed.py")
    (root / "self.py").symlink_to("self.py")
    (root / "loop_a").symlink_to("loop_b")
    (root / "loop_b").symlink_to("loop_a")
    (root / "gone").symlink_to(tmp_path / "nowhere")
    found = discover(root, skip=[tmp_path / "out"], staging=tmp_path / "staging")
    assert [s.id for s in found if s.module is not None] == ["ann"]
    assert all(s.problem for s in found if s.id != "ann"), found


# One row per student ------------------------------------------------------------------


def test_canvas_gives_one_submission_per_student(tmp_path: Path) -> None:
    root = tmp_path / "class"
    canvas_class(root)
    found = by_id(root)
    assert sorted(found) == [
        "choisun_106",
        "eve_104",
        "kimmin_103",
        "leeann_102",
        "parkjin_105",
        "smithjohn_101",
    ]
    smith = found["smithjohn_101"]
    staged = smith.report_dir  # type: ignore[attr-defined]
    assert sorted(p.name for p in staged.iterdir()) == ["embed.py", *REPORTS]
    assert (staged / "embed.py").read_bytes() == MODULE.read_bytes()
    assert smith.notes == ("also handed in, not graded: test_embed.py",)  # type: ignore[attr-defined]
    kim = found["kimmin_103"]
    assert kim.module.name == "embed.py" and "embed (1).py" in kim.notes[0]  # type: ignore[attr-defined]
    # The highest copy number is the newest download.
    choi = found["choisun_106"]
    assert choi.module.read_bytes() == MODULE.read_bytes()  # type: ignore[attr-defined]
    assert "embed-1.py" in choi.notes[-1]  # type: ignore[attr-defined]
    park = found["parkjin_105"]
    assert park.module is not None and sorted(  # type: ignore[attr-defined]
        p.name
        for p in park.report_dir.iterdir()  # type: ignore[attr-defined]
    ) == ["embed.py", *REPORTS]
    # No gradable module: a row with a reason the student can act on.
    assert found["leeann_102"].problem == "missing"  # type: ignore[attr-defined]
    assert "only text (embed.txt)" in found["leeann_102"].detail  # type: ignore[attr-defined]
    assert "only report files" in found["eve_104"].detail  # type: ignore[attr-defined]
    for sub in found.values():
        assert sub.identity is not None and sub.identity.platform == "canvas"  # type: ignore[attr-defined]


def test_moodle_online_text_beside_the_file_is_one_submission(tmp_path: Path) -> None:
    root = tmp_path / "class"
    folder = root / "Kim Min-jun_4321_assignsubmission_file_"
    put(folder / "embed.py")
    with_reports(folder)
    put(root / "Kim Min-jun_4321_assignsubmission_onlinetext_" / "onlinetext.html", "<p>x</p>")
    put(root / "Lee Ann_4322_assignsubmission_onlinetext_" / "onlinetext.html", "<p>y</p>")
    found = by_id(root)
    assert sorted(found) == ["Kim_Min-jun_4321", "Lee_Ann_4322"]
    kim = found["Kim_Min-jun_4321"]
    assert kim.report_dir == folder and kim.notes == (  # type: ignore[attr-defined]
        "also handed in, not graded: onlinetext.html",
    )
    lee = found["Lee_Ann_4322"]
    assert lee.problem == "missing" and "onlinetext.html" in lee.detail  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("names", "chosen"),
    [
        (["embed (1).py", "src/embed.py", "tests/embed.py"], "src/embed.py"),
        (["src/embed.py", "tests/embed.py"], "src/embed.py"),
        (["embed (1).py", "embed (2).py", "notes.txt"], "embed (2).py"),
        (["Embed.py"], "Embed.py"),
        (["embed.py.txt"], "embed.py.txt"),
        (["src/solution.py", "README.md"], "src/solution.py"),
        (["embed.ipynb", "embed.py"], "embed.py"),
        (["embed.ipynb", "test_embed.py"], "embed.ipynb"),
        (["a/embed.py", "b/embed.py"], None),
        (["test_embed.py", "helper.py"], None),
    ],
)
def test_one_rule_finds_the_module(names: list[str], chosen: str | None) -> None:
    assert choose(names, "embed.py", "embed.ipynb").name == chosen


def test_no_module_says_what_came_and_never_denies_a_python_file(tmp_path: Path) -> None:
    root = tmp_path / "class"
    put(root / "repo" / "lib" / "helper.py", "x = 1\n")
    put(root / "repo" / "README.md", "hi\n")
    put(root / "empty" / ".keep", "")
    found = by_id(root)
    repo = found["repo"]
    assert repo.problem == "missing" and "lib/helper.py" in repo.detail  # type: ignore[attr-defined]
    assert "nor any other Python file" not in repo.detail  # type: ignore[attr-defined]
    assert "empty" in found["empty"].detail  # type: ignore[attr-defined]


# Archives --------------------------------------------------------------------------------


def zip_of(path: Path, members: dict[str, bytes], link: str | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
        if link is not None:
            info = zipfile.ZipInfo(link)
            info.external_attr = (0o120777 << 16) | 0
            zf.writestr(info, "/etc/passwd")
    return path


@pytest.mark.parametrize(
    ("members", "link", "code"),
    [
        ({"../escape.py": b"x"}, None, "handin.zip_path"),
        ({"/abs/embed.py": b"x"}, None, "handin.zip_path"),
        ({"C:/x/embed.py": b"x"}, None, "handin.zip_path"),
        ({"embed.py": b"x"}, "embed_report.json", "handin.zip_link"),
        ({"f%d.py" % i: b"" for i in range(300)}, None, "handin.zip_many"),
        ({"big.bin": b"\0" * (33 * 1024 * 1024)}, None, "handin.zip_large"),
    ],
)
def test_an_archive_is_refused_with_a_reason(
    tmp_path: Path, members: dict[str, bytes], link: str | None, code: str
) -> None:
    archive = zip_of(tmp_path / "hand-in.zip", members, link)
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(Refused) as caught:
        unpack(archive, folder)
    assert caught.value.code == code
    assert not list(folder.iterdir()) and not (tmp_path / "escape.py").exists()


def test_a_broken_archive_is_the_students_row(tmp_path: Path) -> None:
    root = tmp_path / "class"
    put(root / "bad.zip", "not a zip at all")
    sub = by_id(root)["bad"]
    assert sub.problem == "missing" and "damaged or not a zip" in sub.detail  # type: ignore[attr-defined]


def test_a_cached_row_keeps_whose_it_is(tmp_path: Path) -> None:
    """A rerun with a roster after one without: the row of a student whom two hand-ins
    now claim is not the cached one that named them."""
    from grader.engine.batch import BatchOptions, run_batch

    root = tmp_path / "class"
    put(root / "smithjohn_101_9001_embed.py")
    opts = BatchOptions(seed=3, jobs=1, pool="thread")
    first = run_batch(root, tmp_path / "out", opts)
    assert first.rows[0].who["key"] == "101"
    put(root / "mallory_101_9002_embed.py")
    again = run_batch(root, tmp_path / "out", opts)
    assert {r.id: r.who.get("problem") for r in again.rows} == {
        "mallory_101": "claimed",
        "smithjohn_101": "claimed",
    }
