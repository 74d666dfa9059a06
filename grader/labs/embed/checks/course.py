"""The course's own worked examples, called with the student's functions.

The tables and calls are those students saw in class: the teaching board's five
pieces of width 3 (tea, coffee, pot, kettle, scissors; ids 1..5 on the board, 0..4 in
code) and the worked examples' four tokens (cat, dog, the, ran).  The instructions and
the notebooks make the same calls (``exercises/README*.md``, the ``python`` block of each
step); a test keeps both in step.  Every expected value is the oracle's; a wrong answer
is told in the course's words (``course.EXAMPLE`` in the lab's messages).  These
checks weigh nothing: their inputs never change and the instructions print their
answers, so only the checks on fresh inputs earn points.

Two of the course's figures are not what they compute, and the messages say what is:
the board's cos(tea, coffee) ≈ 0.985 divides by norms rounded to three places first
(unrounded it is 0.98443, so 0.984), and the worked example's softmax ≈ [0.19, 0.21,
0.15, 0.40] is [0.200, 0.221, 0.156, 0.423] (softmax is not graded).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from grader.engine.vocabulary.expect import Case
from grader.labs.embed import oracle
from grader.labs.embed.checks.registry import check
from grader.labs.embed.contract import BY_NAME
from grader.labs.embed.expect import Course

# The teaching board: id 1 tea, 2 coffee, 3 pot, 4 kettle, 5 scissors (0..4 in code).
BOARD = [
    [0.9, 0.2, -0.1],
    [0.8, 0.3, 0.0],
    [-0.2, 0.8, 0.4],
    [-0.1, 0.7, 0.5],
    [0.1, -0.9, 0.2],
]
# The worked examples: cat, dog, the, ran (ids 0..3).
WORDS = [
    [0.2, -0.5, 0.8],
    [0.3, -0.4, 0.7],
    [-0.9, 0.1, 0.2],
    [0.6, 0.3, -0.5],
]
TEA, COFFEE, SCISSORS = BOARD[0], BOARD[1], BOARD[4]
CONTEXT = [0.5, 0.2, -0.3]  # the worked examples' h_L

# function -> (example, arguments) in the order the instructions show them.
EXAMPLES: dict[str, list[tuple[str, tuple[Any, ...]]]] = {
    "shape": [("shape.board", (BOARD,)), ("shape.words", (WORDS,))],
    "param_count": [
        ("param_count.board", (5, 3)),
        ("param_count.smallish", (20000, 256)),
        ("param_count.common", (50000, 512)),
    ],
    "lookup": [
        ("lookup.sequence", (BOARD, [1, 0, 2, 3])),
        ("lookup.ticket", (BOARD, [4, 2, 0])),
        ("lookup.the", (WORDS, [2])),
    ],
    "one_hot": [("one_hot.pot", (2, 5))],
    "row_times_matrix": [
        ("row_times_matrix.pot", ([0.0, 0.0, 1.0, 0.0, 0.0], BOARD)),
        ("row_times_matrix.dog", ([0.0, 1.0, 0.0, 0.0], WORDS)),
    ],
    "logits": [
        ("logits.context", (WORDS, CONTEXT)),
        ("logits.against", (WORDS, [-1.0, 0.0, 0.0])),
        ("logits.along", (WORDS, [1.0, 0.0, 0.0])),
        ("logits.zero", (WORDS, [0.0, 0.0, 0.0])),
    ],
    "tied_params": [("tied_params.gpt2", (50257, 768))],
    "untied_params": [("untied_params.gpt2", (50257, 768))],
    "dot": [("dot.tea_coffee", (TEA, COFFEE)), ("dot.context_ran", (CONTEXT, WORDS[3]))],
    "norm": [("norm.tea", (TEA,))],
    "cosine": [
        ("cosine.tea_coffee", (TEA, COFFEE)),
        ("cosine.tea_scissors", (TEA, SCISSORS)),
    ],
    "rms": [("rms.tea", (TEA,))],
    "scaled_lookup": [("scaled_lookup.tea", (BOARD, [0], 3))],
}


def cases(function: str) -> list[Case]:
    """The course's calls of ``function``, each expecting the oracle's answer."""
    answer: Callable[..., Any] = getattr(oracle, function)
    return [
        Case(function, args, Course(BY_NAME[function].answer, answer(*args), example))
        for example, args in EXAMPLES[function]
    ]


def _register(function: str) -> None:
    # No points: the inputs never change and the instructions print the answers, so a
    # module could hold them as constants.  A failure still shows, in the course's words.
    @check(function, "course", weight=0)
    def build(rng: random.Random) -> list[Case]:
        return cases(function)


def register() -> None:
    """Register the course's checks (after the others: the calls on fresh inputs come
    first, so that a function that hangs is named by those checks)."""
    for function in EXAMPLES:
        _register(function)
