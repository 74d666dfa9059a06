"""The course's own examples: the figures students saw in class, the calls that
reproduce them in the instructions and the notebooks, and the checks that make the
same calls and answer in the course's words.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest

from grader import grade
from grader.engine.messages import text
from grader.labs.embed import contract, oracle
from grader.labs.embed.checks import CHECKS, course

ROOT = Path(__file__).resolve().parent.parent
READMES = {"en": "README.md", "ko": "README.ko.md", "zh": "README.zh.md"}
PYTHON = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def blocks(lang: str) -> list[str]:
    return PYTHON.findall((ROOT / "exercises" / READMES[lang]).read_text(encoding="utf-8"))


# The figures of the class, recomputed ---------------------------------------------------


def test_the_boards_figures() -> None:
    b = course.BOARD
    assert oracle.shape(b) == (5, 3) and oracle.param_count(5, 3) == 15
    assert oracle.param_count(20000, 256) == 5_120_000
    assert oracle.param_count(50000, 512) == 25_600_000
    assert oracle.lookup(b, [1, 0, 2, 3])[0] == [0.8, 0.3, 0.0]  # coffee first
    assert oracle.row_times_matrix(oracle.one_hot(2, 5), b) == [-0.2, 0.8, 0.4]
    assert oracle.dot(b[0], b[1]) == pytest.approx(0.78)
    assert round(oracle.norm(b[0]), 3) == 0.927 and round(oracle.norm(b[1]), 3) == 0.854
    assert round(oracle.cosine(b[0], b[4]), 3) == -0.128
    # The board's 0.985 divides by norms rounded first; the cosine itself is 0.984.
    assert round(0.78 / (0.927 * 0.854), 3) == 0.985
    assert round(oracle.cosine(b[0], b[1]), 3) == 0.984


def test_the_worked_examples_figures() -> None:
    w = course.WORDS
    assert oracle.lookup(w, [2]) == [[-0.9, 0.1, 0.2]]
    assert oracle.logits(w, course.CONTEXT) == pytest.approx([-0.24, -0.14, -0.49, 0.51])
    assert oracle.logits(w, [-1.0, 0.0, 0.0])[2] == pytest.approx(0.9)
    assert oracle.untied_params(50257, 768) == 77_194_752
    assert oracle.tied_params(50257, 768) + 50257 == 38_647_633
    # The notes' softmax [0.19, 0.21, 0.15, 0.40] is off; the instructions give these.
    z = oracle.logits(w, course.CONTEXT)
    soft = [math.exp(x) / sum(math.exp(y) for y in z) for x in z]
    assert [round(p, 3) for p in soft] == [0.200, 0.221, 0.156, 0.423]


# The instructions make the calls the grader makes ----------------------------------------


def test_the_instructions_hold_the_same_calls_in_every_language() -> None:
    assert blocks("en") and blocks("en") == blocks("ko") == blocks("zh")


def test_the_instructions_calls_are_the_graders_and_run_with_the_reference() -> None:
    space: dict[str, Any] = {"__name__": "embed"}
    exec(compile((ROOT / "embed.py").read_text("utf-8"), "embed.py", "exec"), space)
    made: list[tuple[str, tuple[Any, ...]]] = []

    def watch(name: str) -> Any:
        real = space[name]

        def called(*args: Any) -> Any:
            made.append((name, args))
            return real(*args)

        return called

    for entry in contract.NAMES:
        if callable(space.get(entry.name)):
            space[entry.name] = watch(entry.name)
    for block in blocks("en"):
        exec(block, space)
    for function, examples in course.EXAMPLES.items():
        for _, args in examples:
            assert (function, args) in made, (function, args)


def test_every_function_with_course_examples_has_one_course_check() -> None:
    ids = sorted(c.id for c in CHECKS if c.id.endswith(".course"))
    assert ids == sorted("%s.course" % f for f in course.EXAMPLES)


# A wrong answer, in the course's words --------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "ko", "zh"])
def test_a_wrong_cosine_is_told_with_the_boards_numbers(tmp_path: Path, lang: str) -> None:
    source = (ROOT / "embed.py").read_text("utf-8")
    wrong = source.replace("lengths = norm(a) * norm(b)", "lengths = norm(a) + norm(b)")
    assert wrong != source
    module = tmp_path / "embed.py"
    module.write_text(wrong, encoding="utf-8")
    report = grade(module, seed=3, only=("cosine.course",), lang=lang, check_reports=False)
    (check,) = report.checks
    assert not check.ok and check.code == "course.cosine.tea_coffee"
    assert check.message == text("course.cosine.tea_coffee", lang, got="0.4377688501069035")
    assert "0.984" in check.message and "0.98443" in check.message


@pytest.mark.parametrize("example", sorted(e for es in course.EXAMPLES.values() for e, _ in es))
def test_every_example_message_states_the_oracles_figures(example: str) -> None:
    function = example.split(".")[0]
    args = dict(course.EXAMPLES[function])[example]
    value = getattr(oracle, function)(*args)
    flat = value if isinstance(value, (list, tuple)) else [value]
    while flat and isinstance(flat[0], list):
        flat = [x for row in flat for x in row]
    for lang in ("en", "ko", "zh"):
        said = text("course." + example, lang, got="<got>")
        numbers = {float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*\.?\d*", said)}
        for x in flat:
            if isinstance(x, float) and not x.is_integer():
                assert any(abs(x - n) <= 5e-4 * max(1, abs(x)) for n in numbers), (lang, x)
            else:
                assert float(x) in numbers, (lang, example, x)
