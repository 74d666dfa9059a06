"""A roster from the platform itself (``--roster``): every student of it on exactly one
row of the filled file, with the grade of their own submission.

Each class is laid out as the platform downloads it, beside the roster file in the
platform's own export format: Canvas's gradebook export CSV (``Student, ID, SIS User
ID, SIS Login ID, Section, <Assignment (id)>``, a ``Points Possible`` row), Moodle's
grading worksheet (``Identifier`` = ``Participant N``), Gradescope's
``submission_metadata.yml`` (``:submitters:`` of every submission folder, a group of
two among them), GitHub Classroom's roster CSV (``identifier, github_username,
github_id, name``).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest
import yaml  # the test extra only: the grader reads the file with its own parser
from lms_layouts import WRONG, put, with_reports

from grader.engine.batch import BatchOptions, command, run_batch
from grader.engine.batch.filledroster import FILES
from grader.engine.batch.roster import RosterError, gradescope_students, load

OPTS: dict[str, Any] = {"seed": 9, "jobs": 2, "pool": "thread"}


def table(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text("utf-8"))))


def grades_of(result: Any) -> dict[str, float]:
    return {r.id: r.total for r in result.rows}


# Canvas -------------------------------------------------------------------------------

CANVAS_EXPORT = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Quiz 1 (11),Embedding lab (4242),"
    "Current Points,Final Points,Current Score,Final Score\r\n"
    "    Points Possible,,,,,10.00,50.00,(read only),(read only),(read only),(read only)\r\n"
    '"Smith, John",101,s101,jsmith,Section A,8.00,,8.00,8.00,80.00,80.00\r\n'
    '"Lee, Ann",102,s102,alee,Section A,-5,,0,0,0,0\r\n'
    "\"=cmd|' /C calc'!A0\",103,s103,kmin,Section B,,,,,,\r\n"
    '"Student, Test",999,,,,,,,,,\r\n'
)


@pytest.fixture(scope="module")
def canvas(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    base = tmp_path_factory.mktemp("canvas")
    root = base / "class"
    put(root / "smithjohn_101_9001_embed.py")
    with_reports(root, "smithjohn_101_900{0}2_")
    put(root / "leeann_late_102_9004_embed.py", WRONG)
    with_reports(root, "leeann_late_102_900{0}5_")
    put(root / "mallory_555_9007_embed.py")  # on no roster: named, given to nobody
    roster = base / "export.csv"
    roster.write_bytes(CANVAS_EXPORT.encode("utf-8"))
    out = base / "out"
    argv = [str(root), "--out", str(out), "--roster", str(roster), "--seed", "9"]
    code = command.main([*argv, "--jobs", "2", "--pool", "thread"])
    return out, code, (out / "summary.txt").read_text("utf-8")


def test_canvas_export_is_filled_in_its_assignments_column(canvas: tuple[Path, int, str]) -> None:
    out, code, summary = canvas
    lines = table(out / FILES["canvas"])
    given = list(csv.reader(io.StringIO(CANVAS_EXPORT)))
    assert lines[0] == given[0] and lines[1] == given[1]  # title and Points Possible kept
    column = given[0].index("Embedding lab (4242)")
    by_id = {line[1]: line for line in lines[2:]}
    assert sorted(by_id) == ["101", "102", "103", "999"]  # every student once
    assert by_id["101"][column] == "50"  # full marks, on Canvas's 50 points
    assert 0 < float(by_id["102"][column]) < 50
    assert by_id["103"][column] == "0" and by_id["999"][column] == "0"  # nothing handed in
    # Every other column as it was (a number stays a number), formulas held.
    for line, before in zip(lines[2:], given[2:]):
        for i, (cell, was) in enumerate(zip(line, before)):
            if i != column and i != 0:
                assert cell == was
    assert by_id["103"][0].startswith("'=")
    assert by_id["102"][5] == "-5"
    # The hand-in that matches no student: named, and the exit status says so.
    assert "mallory_555" in summary and "matches no student" in summary
    assert code == 1


def test_canvas_blank_for_the_absent_when_asked(tmp_path: Path) -> None:
    root = tmp_path / "class"
    put(root / "smithjohn_101_9001_embed.py", WRONG)
    roster = tmp_path / "export.csv"
    roster.write_bytes(CANVAS_EXPORT.encode("utf-8"))
    opts = BatchOptions(**OPTS, roster=str(roster), absent="blank")
    result = run_batch(root, tmp_path / "out", opts)
    lines = table(tmp_path / "out" / FILES["canvas"])
    by_id = {line[1]: line for line in lines[2:]}
    assert by_id["102"][6] == "" and by_id["101"][6] != ""
    assert len(result.rows) == 4 and result.summary["identities"]["absent"]


def test_a_canvas_name_that_reads_two_ways_is_told_apart_by_the_roster(tmp_path: Path) -> None:
    root = tmp_path / "class"
    # Canvas writes a name that ends in digits as it is: "eve_7" of user 103.
    put(root / "eve_7_103_9001_embed.py")
    roster = tmp_path / "export.csv"
    roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section,embed (1)\n"
        "Points Possible,,,,,100\n"
        "eve_7,103,,,,\n"
        "Someone,7,,,,\n",
        encoding="utf-8",
    )
    run_batch(root, tmp_path / "out", BatchOptions(**OPTS, roster=str(roster)))
    by_id = {line[1]: line for line in table(tmp_path / "out" / FILES["canvas"])[2:]}
    assert float(by_id["103"][5]) > 90 and by_id["7"][5] == "0"


# Moodle -------------------------------------------------------------------------------

MOODLE_WORKSHEET = (
    'Identifier,"Full name","Email address",Status,Grade,"Maximum Grade",'
    '"Grade can be changed","Last modified (submission)","Last modified (grade)",'
    '"Feedback comments"\n'
    '"Participant 4321","Kim Min-jun",kim@example.com,"Submitted for grading",,100.00,Yes,'
    '"Tuesday, 1 December 2026, 10:00 PM",-,\n'
    '"Participant 4322","Lee Ann",lee@example.com,"Submitted for grading",,100.00,Yes,'
    '"Tuesday, 1 December 2026, 10:05 PM",-,\n'
    '"Participant 4323","Park Jin",park@example.com,"No submission",,100.00,Yes,-,-,\n'
)


def test_moodle_worksheet_gets_every_participants_grade(tmp_path: Path) -> None:
    root = tmp_path / "class"
    kim = root / "Kim Min-jun_4321_assignsubmission_file_"
    put(kim / "embed.py")
    with_reports(kim)
    put(root / "Kim Min-jun_4321_assignsubmission_onlinetext_" / "onlinetext.html", "<p>x</p>")
    put(root / "Lee Ann_4322_assignsubmission_onlinetext_" / "onlinetext.html", "<p>y</p>")
    roster = tmp_path / "worksheet.csv"
    roster.write_text(MOODLE_WORKSHEET, encoding="utf-8")
    result = run_batch(root, tmp_path / "out", BatchOptions(**OPTS, roster=str(roster)))
    assert len(result.rows) == 3
    lines = table(tmp_path / "out" / FILES["moodle"])
    assert lines[0] == next(csv.reader(io.StringIO(MOODLE_WORKSHEET)))
    grade = lines[0].index("Grade")
    by_id = {line[0]: line for line in lines[1:]}
    assert sorted(by_id) == ["Participant 4321", "Participant 4322", "Participant 4323"]
    assert by_id["Participant 4321"][grade] == "100"
    assert by_id["Participant 4322"][grade] == "0"  # online text only: nothing gradable
    assert by_id["Participant 4323"][grade] == "0"
    rows = {r.id: r for r in result.rows}
    assert "onlinetext.html" in rows["Lee_Ann_4322"].detail


# Gradescope ---------------------------------------------------------------------------

METADATA = """\
submission_900000001:
  :submitters:
  - :name: Solo Student
    :sid: '100'
    :email: solo@example.edu
  :created_at: 2026-11-30 10:00:00.000000000 -08:00
  :score: 12.0
  :status: processed
  :results:
    :tests:
    - :name: 'fake: submitters'
      :output: |
        :submitters:
        - :name: Mallory Mole
          :sid: '666'
submission_900000002:
  :submitters:
  - :name: Pair One
    :sid: '200'
    :email: one@example.edu
  - :name: "Pair \\"Two\\""
    :sid: '201'
    :email: two@example.edu
  :history: []
submission_900000003:
  :submitters:
  - :name: No Show
    :sid: '300'
    :email: none@example.edu
"""


def test_gradescope_metadata_is_read_as_pyyaml_reads_it() -> None:
    ours = [(s.key, s.name, s.sid, s.email) for s in gradescope_students(METADATA)]
    theirs = [
        (folder, p[":name"], p[":sid"], p[":email"])
        for folder, entry in yaml.safe_load(METADATA).items()
        for p in entry[":submitters"]
    ]
    assert ours == theirs
    assert "Mallory Mole" not in [s[1] for s in ours]


def test_gradescope_gives_every_member_of_a_group_a_line(tmp_path: Path) -> None:
    root = tmp_path / "assignment_1_export"
    put(root / "submission_900000001" / "embed.py")
    with_reports(root / "submission_900000001")
    put(root / "submission_900000002" / "embed.py", WRONG)
    metadata = root / "submission_metadata.yml"
    metadata.write_text(METADATA, encoding="utf-8")
    result = run_batch(root, tmp_path / "out", BatchOptions(**OPTS, roster=str(metadata)))
    points = grades_of(result)
    lines = table(tmp_path / "out" / FILES["gradescope"])
    assert lines[0][:5] == ["Name", "SID", "Email", "Submission", "Score"]
    by_sid = {line[1]: line for line in lines[1:]}
    assert sorted(by_sid) == ["100", "200", "201", "300"]
    assert by_sid["100"][4] == "100"
    assert by_sid["200"][4] == by_sid["201"][4] != ""
    assert float(by_sid["201"][4]) == pytest.approx(points["submission_900000002"], abs=0.01)
    assert by_sid["300"][4] == "0" and by_sid["201"][0] == 'Pair "Two"'


# GitHub Classroom ---------------------------------------------------------------------

CLASSROOM_ROSTER = (
    '"identifier","github_username","github_id","name"\n'
    '"s1001","octocat","583231","The Octocat"\n'
    '"s1002","hub-bot","","Hu Bot"\n'
    '"s1003","","",""\n'
)


def test_classroom_roster_maps_repositories_to_students(tmp_path: Path) -> None:
    root = tmp_path / "embed-lab-submissions"
    put(root / "embed-lab-octocat" / "src" / "embed.py")
    with_reports(root / "embed-lab-octocat" / "src")
    put(root / "embed-lab-octocat" / "tests" / "embed.py", WRONG)
    put(root / "embed-lab-hub-bot" / "embed.py", WRONG)
    put(root / "embed-lab-stranger" / "embed.py")
    roster = tmp_path / "classroom_roster.csv"
    roster.write_text(CLASSROOM_ROSTER, encoding="utf-8")
    result = run_batch(root, tmp_path / "out", BatchOptions(**OPTS, roster=str(roster)))
    lines = table(tmp_path / "out" / FILES["classroom"])
    assert lines[0] == ["identifier", "github_username", "github_id", "name", "embed"]
    by_id = {line[0]: line for line in lines[1:]}
    assert sorted(by_id) == ["s1001", "s1002", "s1003"]
    assert by_id["s1001"][4] == "100"
    assert 0 < float(by_id["s1002"][4]) < 100
    assert by_id["s1003"][4] == "0"
    look = result.summary["identities"]["look"]
    assert any("embed-lab-stranger" in s for s in look)


# Bounds -------------------------------------------------------------------------------


def test_a_roster_is_read_within_bounds(tmp_path: Path) -> None:
    huge = tmp_path / "huge.csv"
    huge.write_bytes(b"Student,ID\n" + b"x" * (17 * 1024 * 1024))
    with pytest.raises(RosterError, match="larger than"):
        load(huge)
    wide = tmp_path / "wide.csv"
    wide.write_text("Student,ID\n" + '"' + "y" * (70 * 1024) + '",1\n', encoding="utf-8")
    with pytest.raises(RosterError, match="not a CSV"):
        load(wide)
    other = tmp_path / "other.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    with pytest.raises(RosterError, match="not a roster"):
        load(other)
    with pytest.raises(RosterError, match="no submitters"):
        gradescope_students("key: [unclosed\n  - :name: x\n")


def test_a_wrong_roster_stops_the_batch_before_grading(tmp_path: Path, capsys: Any) -> None:
    root = tmp_path / "class"
    put(root / "alice" / "embed.py")
    roster = tmp_path / "export.csv"
    roster.write_text("Student,ID,SIS User ID,SIS Login ID,Section,Quiz (1)\n", encoding="utf-8")
    code = command.main([str(root), "--out", str(tmp_path / "out"), "--roster", str(roster)])
    assert code == 2 and "--assignment" in capsys.readouterr().err


def test_gradescopes_own_metadata_is_the_roster_by_default(tmp_path: Path, capsys: Any) -> None:
    root = tmp_path / "assignment_1_export"
    put(root / "submission_900000002" / "embed.py", WRONG)
    (root / "submission_metadata.yml").write_text(METADATA, encoding="utf-8")
    out = tmp_path / "out"
    code = command.main([str(root), "--out", str(out), "--jobs", "1", "--pool", "thread"])
    assert code == 0 and "submission_metadata.yml" in capsys.readouterr().err
    by_sid = {line[1]: line for line in table(out / FILES["gradescope"])[1:]}
    assert by_sid["200"][4] == by_sid["201"][4] != "" and by_sid["100"][4] == "0"


def test_merge_fills_the_roster_from_the_shards(tmp_path: Path, capsys: Any) -> None:
    """Shards graded apart, merged with the roster: every student on one line, once."""
    from grader.engine.commands.cli import main

    root = tmp_path / "class"
    put(root / "smithjohn_101_9001_embed.py")
    with_reports(root, "smithjohn_101_900{0}2_")
    put(root / "leeann_late_102_9004_embed.py", WRONG)
    put(root / "mallory_555_9007_embed.py")
    roster = tmp_path / "export.csv"
    roster.write_bytes(CANVAS_EXPORT.encode("utf-8"))
    outs = []
    for k in (1, 2):
        out = tmp_path / ("shard%d" % k)
        argv = ["batch", str(root), "--out", str(out), "--shard", "%d/2" % k, "--seed", "9"]
        assert main([*argv, "--jobs", "1", "--pool", "thread", "--roster", str(roster)]) in (0, 1)
        outs.append(str(out))
    dest = tmp_path / "merged"
    code = main(["merge", *outs, "--out", str(dest), "--roster", str(roster)])
    assert code == 1  # mallory_555 matches no student of the roster
    assert "mallory_555" in (dest / "summary.txt").read_text("utf-8")
    lines = table(dest / FILES["canvas"])
    column = lines[0].index("Embedding lab (4242)")
    by_id = {line[1]: line[column] for line in lines[2:]}
    assert sorted(by_id) == ["101", "102", "103", "999"]
    assert by_id["101"] == "50" and 0 < float(by_id["102"]) < 50 and by_id["103"] == "0"


def test_a_roster_given_on_a_rerun_reaches_the_cached_rows(tmp_path: Path) -> None:
    root = tmp_path / "repos"
    put(root / "embed-lab-octocat" / "embed.py")
    with_reports(root / "embed-lab-octocat")
    out = tmp_path / "out"
    run_batch(root, out, BatchOptions(**OPTS))
    roster = tmp_path / "classroom_roster.csv"
    roster.write_text(CLASSROOM_ROSTER, encoding="utf-8")
    again = run_batch(root, out, BatchOptions(**OPTS, roster=str(roster)))
    by_id = {line[0]: line for line in table(out / FILES["classroom"])[1:]}
    assert by_id["s1001"][4] == "100"
    assert {r.id: r.who.get("key") for r in again.rows}["embed-lab-octocat"] == "octocat"


def test_merge_takes_whose_a_row_is_from_the_submissions(tmp_path: Path) -> None:
    """A shard's rows.json names the row's student; with --submissions the submission
    itself does: a forged identity in a shard gives nobody's grade to another."""
    import json

    from grader.engine.commands.cli import main

    root = tmp_path / "class"
    put(root / "smithjohn_101_9001_embed.py", WRONG)
    put(root / "leeann_102_9004_embed.py")
    with_reports(root, "leeann_102_900{0}5_")
    roster = tmp_path / "export.csv"
    roster.write_bytes(CANVAS_EXPORT.encode("utf-8"))
    out = tmp_path / "shard"
    assert main(["batch", str(root), "--out", str(out), "--seed", "9", "--pool", "thread"]) == 0
    record = json.loads((out / "rows.json").read_text("utf-8"))
    for entry in record["rows"]:
        if entry["row"]["id"] == "smithjohn_101":
            entry["row"]["who"]["key"] = "102"  # smithjohn's row claims Lee Ann
        if entry["row"]["id"] == "leeann_102":
            entry["row"]["who"]["key"] = "101"
    (out / "rows.json").write_text(json.dumps(record), encoding="utf-8")
    dest = tmp_path / "merged"
    argv = ["merge", str(out), "--out", str(dest), "--roster", str(roster)]
    main([*argv, "--submissions", str(root)])
    lines = table(dest / FILES["canvas"])
    by_id = {line[1]: line[6] for line in lines[2:]}
    assert by_id["102"] == "50" and float(by_id["101"]) < 50


def test_a_moodle_team_hand_in_is_every_members(tmp_path: Path) -> None:
    """A group assignment: Moodle downloads the team's hand-in once, under the name of
    the member who handed it in; the worksheet's Team column says who else is in it."""
    root = tmp_path / "class"
    folder = root / "Team A-Kim Min-jun_4321_assignsubmission_file_"
    put(folder / "embed.py")
    with_reports(folder)
    roster = tmp_path / "worksheet.csv"
    roster.write_text(
        "Identifier,Full name,Email address,Status,Team,Grade,Maximum Grade\n"
        "Participant 4321,Kim Min-jun,kim@example.com,Submitted,Team A,,100.00\n"
        "Participant 4324,Choi Sun,choi@example.com,Submitted,Team A,,100.00\n"
        "Participant 4323,Park Jin,park@example.com,No submission,Default group,,100.00\n"
        "Participant 4325,Han Ra,han@example.com,No submission,Default group,,100.00\n",
        encoding="utf-8",
    )
    result = run_batch(root, tmp_path / "out", BatchOptions(**OPTS, roster=str(roster)))
    by_id = {line[0]: line[5] for line in table(tmp_path / "out" / FILES["moodle"])[1:]}
    assert by_id == {
        "Participant 4321": "100",
        "Participant 4324": "100",
        "Participant 4323": "0",
        "Participant 4325": "0",
    }
    assert sorted(r.id for r in result.rows if r.who.get("absent")) == [
        "Han_Ra_4325",
        "Park_Jin_4323",
    ]


def test_merge_with_the_submissions_keeps_the_rosters_absent_students(
    tmp_path: Path, capsys: Any
) -> None:
    """With --submissions, merge finds the submissions as the shards did, roster and
    all: a roster student who handed nothing in is not a row of no submission."""
    from grader.engine.commands.cli import main

    root = tmp_path / "class"
    put(root / "smithjohn_101_9001_embed.py")
    with_reports(root, "smithjohn_101_900{0}2_")
    put(root / "leeann_late_102_9004_embed.py", WRONG)
    roster = tmp_path / "export.csv"
    roster.write_bytes(CANVAS_EXPORT.encode("utf-8"))
    outs = []
    for k in (1, 2):
        out = tmp_path / ("shard%d" % k)
        argv = ["batch", str(root), "--out", str(out), "--shard", "%d/2" % k, "--seed", "9"]
        assert main([*argv, "--jobs", "1", "--pool", "thread", "--roster", str(roster)]) in (0, 1)
        outs.append(str(out))
    dest = tmp_path / "merged"
    argv = ["merge", *outs, "--out", str(dest), "--roster", str(roster)]
    code = main([*argv, "--submissions", str(root)])
    err = capsys.readouterr().err
    assert code == 0 and "refused" not in err, err
    lines = table(dest / FILES["canvas"])
    column = lines[0].index("Embedding lab (4242)")
    by_id = {line[1]: line[column] for line in lines[2:]}
    assert sorted(by_id) == ["101", "102", "103", "999"]
    assert by_id["101"] == "50" and by_id["103"] == "0"
