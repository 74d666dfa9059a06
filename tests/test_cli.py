"""The command line: exit status, formats, selection, replay."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader.engine.commands.cli import main
from grader.engine.lab import find

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"
SCHEMA = json.loads(
    (ROOT / "grader" / "engine" / "schemas" / "result.schema.json").read_text("utf-8")
)
PY38 = Path("/root/.pyenv/versions/3.8.18/bin/python3.8")


def run(capsys, *args: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr; commands wrapped for the width are joined again."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, re.sub(r" \\\n +", " ", out), err


@pytest.fixture
def negative_ids(tmp_path: Path) -> Path:
    """A module whose lookup lets negative ids through, with correct report files."""
    source = (ROOT / "embed.py").read_text("utf-8")
    wrong = source.replace(
        "        _check_id(token_id, len(table))\n        rows.append(list(",
        "        rows.append(list(",
        1,
    )
    assert wrong != source
    path = tmp_path / "embed.py"
    path.write_text(wrong, "utf-8")
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copy(REFERENCE / name, tmp_path / name)
    return path


def test_reference_passes_with_exit_0(capsys):
    code, out, _ = run(capsys, str(ROOT / "embed.py"), "--seed", "3", "--lang", "en")
    assert code == 0
    assert "seed 3" in out.splitlines()[0]
    assert "score 100 / 100" in out


def test_wrong_module_exits_1_and_names_the_failure(capsys, negative_ids):
    code, out, _ = run(capsys, str(negative_ids), "--seed", "11", "--lang", "en")
    assert code == 1
    assert "✗ lookup.out_of_range" in out
    assert "expected IndexError" in out
    replay = re.search(r"replay: (.+)", out).group(1)
    assert "--seed 11" in replay and "--check lookup.out_of_range" in replay


def test_replay_command_reproduces_the_failure(capsys, negative_ids):
    code, out, _ = run(
        capsys, str(negative_ids), "--seed", "11", "--lang", "en", "--format", "json"
    )
    first = json.loads(out)
    failed = [c for c in first["checks"] if c["status"] == "fail"]
    assert failed
    argv = failed[0]["reproduce"].split()[1:]
    code, out, _ = run(capsys, *argv, "--format", "json", "--lang", "en")
    again = json.loads(out)
    assert code == 1
    assert [c["id"] for c in again["checks"]] == [failed[0]["id"]]
    assert again["checks"][0]["message"] == failed[0]["message"]


def test_json_output_follows_its_schema(capsys, negative_ids):
    for path in (ROOT / "embed.py", negative_ids):
        code, out, _ = run(capsys, str(path), "--format", "json")
        data = json.loads(out)
        jsonschema.Draft202012Validator(SCHEMA).validate(data)
        assert data["score"] <= data["max_score"] == 100
        assert data["passed"] is (code == 0)


def test_output_file(capsys, tmp_path):
    target = tmp_path / "result.json"
    code, out, _ = run(
        capsys, str(ROOT / "embed.py"), "--format", "json", "--output", str(target), "--seed", "1"
    )
    assert code == 0
    assert json.loads(target.read_text("utf-8"))["seed"] == 1
    assert "score" in out  # a text summary still reaches the terminal


def test_missing_file_exits_2(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope.py"))
    assert code == 2 and out == ""
    assert "no such file" in err


def test_missing_interpreter_exits_2(capsys):
    code, _, err = run(capsys, str(ROOT / "embed.py"), "--python", "/no/such/python")
    assert code == 2 and "interpreter" in err


def test_bad_arguments_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--upto", "two"])
    assert exc.value.code == 2
    # Past the lab's last step (8 here): refused before anything runs.
    assert main([str(ROOT / "embed.py"), "--upto", "9"]) == 2
    assert "steps are 1 to 8" in capsys.readouterr().err


def test_check_selects_one_function(capsys):
    code, out, _ = run(capsys, str(ROOT / "embed.py"), "--check", "cosine", "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert {c["function"] for c in data["checks"]} == {"cosine"}


def test_upto_grades_the_first_steps_only(capsys):
    code, out, _ = run(
        capsys, str(ROOT / "exercises" / "embed.py"), "--upto", "1", "--format", "json"
    )
    data = json.loads(out)
    assert code == 1
    assert max(c["step"] for c in data["checks"]) == 1
    funcs = {c["function"]: c["status"] for c in data["checks"] if c["step"] == 1}
    assert funcs["make_table"] == "skip" and funcs["VOCAB"] == "pass"
    assert "Traceback" not in out


def test_stub_scores_zero_without_crashing(capsys):
    code, out, _ = run(
        capsys,
        str(ROOT / "exercises" / "embed.py"),
        "--lang",
        "en",
        "--report-dir",
        str(REFERENCE),
        "--check",
        "lookup",
    )
    assert code == 1
    assert "lookup is not started yet" in out


@pytest.mark.skipif(not PY38.exists(), reason="no Python 3.8 here")
def test_another_interpreter_grades_the_same(capsys):
    code, out, _ = run(
        capsys, str(ROOT / "embed.py"), "--python", str(PY38), "--seed", "4", "--format", "json"
    )
    assert code == 0, out
    assert json.loads(out)["score"] == 100


def test_python_dash_m_and_console_script_agree():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "embed.py",
            "--seed",
            "2",
            "--check",
            "rms",
            "--lang",
            "en",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "seed 2" in result.stdout


def _command(*args: str) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONUNBUFFERED", None)  # output to a pipe is buffered, as it usually is
    return subprocess.run(
        [sys.executable, "-m", "grader", *args], cwd=ROOT, env=env, capture_output=True, timeout=120
    )


def test_the_command_ends_quickly_with_all_its_output_and_its_exit_status(tmp_path, capsys):
    """One grading leaves without the interpreter's teardown: what it wrote to the
    pipe, to --output and its exit status are all there."""
    right = _command("embed.py", "--seed", "3", "--format", "json")
    assert right.returncode == 0, right.stderr
    assert json.loads(right.stdout)["score"] == 100  # the whole document, flushed
    text = _command("embed.py", "--seed", "3", "--lang", "en").stdout.decode()
    code, here, _ = run(capsys, "embed.py", "--seed", "3", "--lang", "en")
    assert code == 0
    assert text.splitlines()[-3:] == here.splitlines()[-3:]  # its last short lines too
    wrong = tmp_path / "embed.py"
    wrong.write_text((ROOT / "embed.py").read_text().replace("math.sqrt(", "abs("))
    out = tmp_path / "out.xml"
    failed = _command(str(wrong), "--seed", "3", "--format", "junit", "--output", str(out))
    assert failed.returncode == 1, failed.stderr
    assert out.read_text(encoding="utf-8").rstrip().endswith("</testsuites>")
    assert b"FAIL" in failed.stdout  # the text report shown beside the file
    usage = _command("embed.py", "--timeout", "-1")
    assert usage.returncode == 2 and usage.stderr


def test_an_output_that_cannot_encode_a_character_still_gets_the_report(monkeypatch):
    """With PYTHONIOENCODING=ascii the command escapes what it cannot encode: the JSON
    is still valid and whole, the text report still there."""
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    js = _command("embed.py", "--seed", "5", "--format", "json", "--lang", "zh")
    assert js.returncode == 0, js.stderr
    data = json.loads(js.stdout.decode("ascii"))
    assert data["score"] == 100 and data["max_score"] == 100
    shown = _command("embed.py", "--seed", "5", "--lang", "zh")
    assert shown.returncode == 0, shown.stderr
    assert b"100" in shown.stdout and b"\\u" in shown.stdout


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--check", "lookup.valu"], "lookup.values"),
        (["--check", "Lookup"], "closest ones are: lookup,"),
        (["--check", "lookup", "--upto", "1"], "step 2"),
        (["--check", "lookup", "--check", "cosin"], "cosine"),
        (["--check", "report.md", "--no-report"], "--no-report"),
        (["--check", "qqqqqqq"], "lookup.values"),
    ],
)
def test_a_check_that_selects_nothing_is_a_usage_error(capsys, argv, says):
    code, out, err = run(capsys, str(ROOT / "embed.py"), "--seed", "1", "--lang", "en", *argv)
    assert code == 2
    assert out == ""
    assert "every check passed" not in out + err
    assert says in err, err


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_closest_ids_are_named_in_every_language(capsys, lang):
    code, _, err = run(capsys, str(ROOT / "embed.py"), "--check", "lookup.valu", "--lang", lang)
    assert code == 2
    assert "lookup.values" in err
    assert err != run(capsys, str(ROOT / "embed.py"), "--check", "lookup.valu", "--lang", "en")[2]


def test_the_library_refuses_an_empty_selection_too():
    from grader import grade
    from grader.engine.grading.grade import UsageError

    with pytest.raises(UsageError) as exc:
        grade(ROOT / "embed.py", seed=1, only=["lookup.valu"])
    assert exc.value.code == "cli.check_unknown"
    assert "lookup.values" in exc.value.params["close"]


def test_a_check_alone_keeps_its_share_of_the_full_run(capsys, negative_ids):
    code, out, _ = run(capsys, str(negative_ids), "--seed", "2", "--format", "json")
    full = {c["id"]: c["max_points"] for c in json.loads(out)["checks"]}
    for check_id in ("lookup.out_of_range", "lookup.inputs", "imports.load", "report.md.figures"):
        code, out, _ = run(
            capsys, str(negative_ids), "--seed", "2", "--format", "json", "--check", check_id
        )
        alone = json.loads(out)
        assert [c["id"] for c in alone["checks"]] == [check_id]
        assert alone["max_score"] == full[check_id], check_id
    code, out, _ = run(capsys, str(negative_ids), "--seed", "2", "--check", "lookup.out_of_range")
    assert code == 1
    assert "score 0 / %s" % _num(full["lookup.out_of_range"]) in out


def _num(x: float) -> str:
    return ("%.2f" % x).rstrip("0").rstrip(".")


def test_a_function_alone_keeps_its_share(capsys):
    code, out, _ = run(capsys, str(ROOT / "embed.py"), "--seed", "2", "--format", "json")
    full = json.loads(out)["checks"]
    code, out, _ = run(
        capsys, str(ROOT / "embed.py"), "--seed", "2", "--format", "json", "--check", "cosine"
    )
    alone = json.loads(out)
    expected = sum(c["max_points"] for c in full if c["function"] == "cosine")
    assert alone["max_score"] == pytest.approx(expected)
    assert alone["score"] == alone["max_score"] and code == 0


def test_the_catalogue_lists_every_check_of_a_full_run():
    from grader import grade
    from grader.engine.grading import selection

    report = grade(ROOT / "embed.py", seed=3, report_dir=REFERENCE)
    graded = {(c.id, c.step, c.function) for c in report.checks}
    assert graded == {(e.id, e.step, e.function) for e in selection.catalogue(find())}


def test_an_inputs_check_runs_alone_and_replays(capsys, tmp_path):
    wrong = ROOT / "tests" / "corpus" / "wrong" / "dot_pops_input.py"
    code, out, _ = run(capsys, str(wrong), "--seed", "4", "--format", "json", "--no-report")
    failed = {c["id"]: c for c in json.loads(out)["checks"] if c["status"] != "pass"}
    assert "dot.inputs" in failed
    argv = failed["dot.inputs"]["reproduce"].split()[1:]
    code, out, _ = run(capsys, *argv, "--format", "json")
    again = json.loads(out)
    assert code == 1
    assert [c["id"] for c in again["checks"]] == ["dot.inputs"]
    assert again["checks"][0]["message"] == failed["dot.inputs"]["message"]


def test_a_zip_is_named_for_what_it_is(capsys, tmp_path):
    import zipfile

    archive = tmp_path / "embed.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(ROOT / "embed.py", "embed.py")
    code, out, err = run(capsys, str(archive))
    assert code == 2 and out == ""
    assert "is a zip archive, not a module" in err and "SyntaxError" not in err


def test_a_text_file_is_graded_as_the_module_with_a_note(capsys, tmp_path):
    path = tmp_path / "embed.py.txt"
    shutil.copyfile(ROOT / "embed.py", path)
    for name in ("embed_report.json", "embed_report.md"):
        shutil.copy(REFERENCE / name, tmp_path / name)
    code, out, err = run(capsys, str(path), "--check", "lookup")
    assert code == 0
    assert "is not named .py; it is graded as the Python module embed.py" in err


def test_a_folder_is_graded_by_the_rule_of_every_grading(capsys, tmp_path):
    shutil.copyfile(ROOT / "embed.py", tmp_path / "embed (1).py")
    (tmp_path / "tests").mkdir()
    code, out, err = run(capsys, str(tmp_path), "--check", "lookup")
    assert code == 0 and "graded: embed (1).py" in err
    (tmp_path / "embed (1).py").unlink()
    (tmp_path / "helper.py").write_text("x = 1\n", encoding="utf-8")
    code, out, err = run(capsys, str(tmp_path))
    assert code == 2 and "helper.py" in err and "nor any other Python file" not in err
