"""Tests of the reference solution embed.py and of its committed report files.

The file runs on Python 3.8 and newer with pytest alone; the cross-checks
against numpy are skipped where numpy is missing.
"""

import ast
import copy
import importlib.util
import json
import math
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "reference"


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


embed = _load("embed", ROOT / "embed.py")


@pytest.fixture(scope="module")
def contract():
    """grader/labs/embed/contract.py, loaded on its own (the grader package needs 3.10+)."""
    try:
        return _load("embed_grader_contract", ROOT / "grader" / "labs" / "embed" / "contract.py")
    except (SyntaxError, ImportError, TypeError):
        if sys.version_info >= (3, 10):
            raise
        pytest.skip("grader/labs/embed/contract.py does not load on Python < 3.10")


@pytest.fixture(scope="module")
def fields():
    return embed.measure()


def random_table(vocab, dim, seed):
    rng = random.Random(seed)
    return [[rng.uniform(-1.0, 1.0) for _ in range(dim)] for _ in range(vocab)]


# The 4 x 3 toy table with the tokens cat, dog, the, ran.
TOY = [
    [0.2, -0.5, 0.8],
    [0.3, -0.4, 0.7],
    [-0.9, 0.1, 0.2],
    [0.6, 0.3, -0.5],
]
TOY_HIDDEN = [0.5, 0.2, -0.3]

# The 5 x 3 drinks table: tea, coffee, pot, kettle, scissors (ids 0..4).
DRINKS = [
    [0.9, 0.2, -0.1],
    [0.8, 0.3, 0.0],
    [-0.2, 0.8, 0.4],
    [-0.1, 0.7, 0.5],
    [0.1, -0.9, 0.2],
]


# Step 1: the table, its shape and its size


def test_make_table_is_deterministic_and_seeded():
    assert embed.make_table(6, 5, 11) == embed.make_table(6, 5, 11)
    assert embed.make_table(6, 5, 11) != embed.make_table(6, 5, 12)


def test_make_table_fills_row_by_row_from_one_generator():
    rng = random.Random(20260917)
    draws = [rng.random() - 0.5 for _ in range(4 * 3)]
    expected = [draws[r * 3 : (r + 1) * 3] for r in range(4)]
    assert embed.make_table(4, 3, 20260917) == expected
    # Row by row means a taller table starts with the rows of a shorter one.
    assert embed.make_table(9, 3, 5)[:4] == embed.make_table(4, 3, 5)


def test_make_table_values_and_shape():
    table = embed.make_table(7, 4, 1)
    assert len(table) == 7 and all(len(row) == 4 for row in table)
    assert all(type(x) is float and -0.5 <= x < 0.5 for row in table for x in row)
    assert embed.make_table(0, 4, 1) == []
    assert embed.make_table(2, 0, 1) == [[], []]


def test_shape():
    result = embed.shape([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert result == (2, 3) and type(result) is tuple
    assert all(type(n) is int for n in result)
    assert embed.shape(embed.make_table(512, 64, 3)) == (512, 64)


def test_shape_of_empty_tables():
    assert embed.shape([]) == (0, 0)
    assert embed.shape([[]]) == (1, 0)
    assert embed.shape([[], []]) == (2, 0)


@pytest.mark.parametrize(
    "ragged",
    [[[1.0, 2.0], [3.0]], [[1.0], [2.0, 3.0]], [[1.0], [2.0], []], [[], [1.0]]],
)
def test_shape_rejects_ragged_tables(ragged):
    with pytest.raises(ValueError):
        embed.shape(ragged)


def test_param_count():
    assert embed.param_count(512, 64) == 32768
    assert type(embed.param_count(512, 64)) is int
    assert embed.param_count(5, 3) == 15  # the drinks table
    assert embed.param_count(20000, 256) == 5120000


# Step 2: looking rows up


def test_lookup_of_the_toy_table():
    assert embed.lookup(TOY, [2]) == [[-0.9, 0.1, 0.2]]
    rows = embed.lookup(DRINKS, [1, 0, 2, 3])
    assert rows == [DRINKS[1], DRINKS[0], DRINKS[2], DRINKS[3]]
    assert embed.shape(rows) == (4, 3)


def test_lookup_repeats_and_order():
    table = random_table(10, 4, 1)
    rows = embed.lookup(table, [7, 7, 3, 7])
    assert rows[0] == rows[1] == rows[3] == table[7]
    assert rows[2] == table[3]
    assert embed.lookup(table, []) == []


def test_lookup_returns_copies():
    table = random_table(4, 3, 2)
    pristine = copy.deepcopy(table)
    rows = embed.lookup(table, [1])
    rows[0][0] = 99.0
    assert table == pristine


@pytest.mark.parametrize("bad", [-1, -4, 4, 5, 100])
def test_lookup_rejects_ids_out_of_range(bad):
    with pytest.raises(IndexError):
        embed.lookup(TOY, [0, bad])


def test_lookup_error_message():
    table = embed.make_table(512, 2, 1)
    with pytest.raises(IndexError, match=r"^token id -1 is outside 0\.\.511$"):
        embed.lookup(table, [-1])
    with pytest.raises(IndexError, match=r"^token id 512 is outside 0\.\.511$"):
        embed.lookup(table, [512])


# Step 3: the same rows through a one-hot product


def test_one_hot():
    vec = embed.one_hot(2, 5)
    assert vec == [0.0, 0.0, 1.0, 0.0, 0.0]
    assert all(type(x) is float for x in vec)
    assert embed.one_hot(0, 1) == [1.0]


def test_row_times_matrix_by_hand():
    matrix = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    assert embed.row_times_matrix([1.0, 2.0], matrix) == [9.0, 12.0, 15.0]
    assert embed.row_times_matrix([0.5, -1.0], matrix) == [-3.5, -4.0, -4.5]


def test_row_times_matrix_one_hot_picks_a_row():
    assert embed.row_times_matrix(embed.one_hot(1, 4), TOY) == [0.3, -0.4, 0.7]
    assert embed.row_times_matrix(embed.one_hot(2, 5), DRINKS) == [-0.2, 0.8, 0.4]


def test_row_times_matrix_rejects_wrong_shapes():
    with pytest.raises(ValueError):
        embed.row_times_matrix([1.0, 0.0, 0.0], TOY)  # 3 entries, 4 rows
    with pytest.raises(ValueError):
        embed.row_times_matrix([1.0, 0.0], [[1.0, 2.0], [3.0]])


def test_lookup_via_one_hot_equals_lookup_bit_for_bit():
    assert embed.lookup_via_one_hot(TOY, [1]) == [[0.3, -0.4, 0.7]]
    for seed in range(5):
        table = random_table(23, 7, seed)
        ids = [0, 22, 5, 5, 11]
        assert embed.lookup_via_one_hot(table, ids) == embed.lookup(table, ids)
    assert embed.lookup_via_one_hot(TOY, []) == []


@pytest.mark.parametrize("bad", [-1, 4])
def test_lookup_via_one_hot_rejects_ids_out_of_range(bad):
    with pytest.raises(IndexError):
        embed.lookup_via_one_hot(TOY, [bad])


class CountingFloat(float):
    """A float that counts the multiplications it takes part in."""

    count = 0

    def __mul__(self, other):
        CountingFloat.count += 1
        return float(self) * other

    __rmul__ = __mul__


def test_lookup_via_one_hot_really_multiplies():
    vocab, dim, ids = 6, 4, [2, 5, 2]
    table = [[CountingFloat(x) for x in row] for row in random_table(vocab, dim, 3)]
    CountingFloat.count = 0
    embed.lookup_via_one_hot(table, ids)
    assert CountingFloat.count == embed.one_hot_mults(vocab, dim, len(ids)) == 72
    CountingFloat.count = 0
    embed.lookup(table, ids)
    assert CountingFloat.count == 0


def test_one_hot_mults():
    assert embed.one_hot_mults(512, 64, 1) == 32768
    assert embed.one_hot_mults(5, 3, 4) == 60
    assert embed.one_hot_mults(5, 3, 0) == 0
    assert type(embed.one_hot_mults(512, 64, 2)) is int


# Step 4: scores over the vocabulary with the same table


def test_logits_of_the_toy_table():
    scores = embed.logits(TOY, TOY_HIDDEN)
    assert scores == pytest.approx([-0.24, -0.14, -0.49, 0.51], abs=1e-12)
    top = sum(math.exp(z) for z in scores)
    probabilities = [math.exp(z) / top for z in scores]
    assert probabilities == pytest.approx([0.19996, 0.22099, 0.15573, 0.42332], abs=1e-5)
    # The worked example rounds loosely (its four figures add up to 0.95).
    assert probabilities == pytest.approx([0.19, 0.21, 0.15, 0.40], abs=0.025)
    assert max(range(4), key=lambda t: probabilities[t]) == 3  # "ran" wins
    assert math.fsum(probabilities) == pytest.approx(1.0, abs=1e-12)


def test_logits_signs_and_zero_context():
    assert embed.logits(TOY, [-1.0, 0.0, 0.0])[2] == pytest.approx(0.9, abs=1e-12)
    assert embed.logits(TOY, [1.0, 0.0, 0.0])[2] == pytest.approx(-0.9, abs=1e-12)
    assert embed.logits(TOY, [0.0, 0.0, 0.0]) == [0.0, 0.0, 0.0, 0.0]


def test_logits_use_the_table_itself():
    table = random_table(30, 8, 4)
    hidden = table[12]
    scores = embed.logits(table, hidden)
    assert len(scores) == 30
    # Python 3.12's sum() rounds more accurately than a plain loop: equal up to rounding.
    assert scores == pytest.approx([embed.dot(row, hidden) for row in table], rel=1e-12)
    assert scores[12] == pytest.approx(embed.norm(hidden) ** 2, rel=1e-12)


@pytest.mark.parametrize("hidden", [[0.5, 0.2], [0.5, 0.2, -0.3, 1.0], []])
def test_logits_reject_a_hidden_vector_of_the_wrong_width(hidden):
    with pytest.raises(ValueError):
        embed.logits(TOY, hidden)


# Step 5: what tying saves


def test_parameter_counts_at_gpt2_size():
    vocab, dim = 50257, 768
    assert embed.untied_params(vocab, dim) == 77194752
    assert embed.tied_params(vocab, dim) == 38597376
    assert embed.tied_params(vocab, dim) + vocab == 38647633  # with an output bias
    saved = (77194752 - 38647633) / 77194752
    assert saved == pytest.approx(0.4993, abs=5e-5)


def test_parameter_counts_are_ints():
    for value in (
        embed.tied_params(512, 64),
        embed.untied_params(512, 64),
        embed.param_count(3, 4),
        *embed.vocab_growth(512, 64, 2).values(),
    ):
        assert type(value) is int


def test_vocab_growth():
    growth = embed.vocab_growth(512, 64, 2)
    assert growth == {
        "vocab": 512,
        "bigger_vocab": 1024,
        "dim": 64,
        "tied": 32768,
        "bigger_tied": 65536,
        "untied": 65536,
        "bigger_untied": 131072,
        "saved": 32768,
    }
    other = embed.vocab_growth(50257, 768, 3)
    assert other["saved"] == other["untied"] - other["tied"] == 50257 * 768
    assert other["bigger_vocab"] == 150771
    assert other["bigger_untied"] == 2 * other["bigger_tied"] == 2 * 150771 * 768


# Step 6: direction against length


def test_dot_norm_cosine_of_the_drinks():
    tea, coffee, scissors = DRINKS[0], DRINKS[1], DRINKS[4]
    assert embed.dot(tea, coffee) == pytest.approx(0.78, abs=1e-12)
    assert embed.dot(tea, scissors) == pytest.approx(-0.11, abs=1e-12)
    assert embed.norm(tea) == pytest.approx(math.sqrt(0.86), rel=1e-12)
    # The worked example divides by rounded lengths, hence its 0.985.
    assert embed.cosine(tea, coffee) == pytest.approx(0.985, abs=1e-3)
    assert embed.cosine(tea, coffee) == pytest.approx(0.78 / math.sqrt(0.86 * 0.73), rel=1e-12)
    assert embed.cosine(tea, scissors) == pytest.approx(-0.128, abs=5e-4)
    assert embed.cosine(tea, scissors) == pytest.approx(-0.11 / 0.86, rel=1e-12)
    assert embed.dot(TOY_HIDDEN, [0.6, 0.3, -0.5]) == pytest.approx(0.51, abs=1e-12)


def test_cosine_of_a_vector_with_itself_and_its_opposite():
    vec = [0.3, -1.2, 2.5]
    assert embed.cosine(vec, vec) == pytest.approx(1.0, abs=1e-15)
    assert embed.cosine(vec, [-x for x in vec]) == pytest.approx(-1.0, abs=1e-15)
    assert embed.cosine([1.0, 0.0], [0.0, 3.0]) == 0.0


@pytest.mark.parametrize(
    "a, b",
    [([0.0, 0.0], [1.0, 2.0]), ([1.0, 2.0], [0.0, 0.0]), ([0.0], [0.0]), ([], [])],
)
def test_cosine_without_a_direction_is_zero(a, b):
    result = embed.cosine(a, b)
    assert result == 0.0 and type(result) is float


def test_empty_vectors():
    assert embed.dot([], []) == 0.0
    assert embed.norm([]) == 0.0
    assert embed.rms([]) == 0.0 and type(embed.rms([])) is float


def test_stretch_makes_a_new_table():
    table = random_table(5, 3, 6)
    pristine = copy.deepcopy(table)
    stretched = embed.stretch(table, 2, 3.0)
    assert table == pristine
    assert stretched is not table
    assert stretched[2] == [x * 3.0 for x in table[2]]
    assert [row for i, row in enumerate(stretched) if i != 2] == [
        row for i, row in enumerate(table) if i != 2
    ]
    stretched[0][0] = 42.0
    assert table == pristine


@pytest.mark.parametrize("bad", [-1, 5])
def test_stretch_rejects_ids_out_of_range(bad):
    with pytest.raises(IndexError):
        embed.stretch(random_table(5, 3, 6), bad, 2.0)


def test_stretch_keeps_cosines_and_scales_dots():
    table = random_table(40, 16, 7)
    probe, target = 3, 21
    # A power of two scales exactly in binary floating point.
    exact = embed.stretch(table, target, 4.0)
    assert embed.cosine(exact[probe], exact[target]) == embed.cosine(table[probe], table[target])
    assert embed.dot(exact[probe], exact[target]) == 4.0 * embed.dot(table[probe], table[target])
    assert embed.nearest_by_cosine(exact, probe, 10) == embed.nearest_by_cosine(table, probe, 10)
    # Any other factor does the same within rounding.
    loose = embed.stretch(table, target, 3.3)
    for other in range(40):
        if other == target:
            continue
        assert embed.cosine(loose[other], loose[target]) == pytest.approx(
            embed.cosine(table[other], table[target]), rel=1e-12, abs=1e-15
        )
        assert embed.dot(loose[other], loose[target]) == pytest.approx(
            3.3 * embed.dot(table[other], table[target]), rel=1e-12, abs=1e-15
        )


def brute_force_neighbors(table, token_id, k, score):
    others = [i for i in range(len(table)) if i != token_id]
    return sorted(others, key=lambda i: (-score(table[token_id], table[i]), i))[:k]


def test_nearest_neighbors_on_random_tables():
    for seed in range(4):
        table = random_table(30, 6, seed)
        for probe in (0, 17, 29):
            by_cos = embed.nearest_by_cosine(table, probe, 5)
            by_dot = embed.nearest_by_dot(table, probe, 5)
            assert by_cos == brute_force_neighbors(table, probe, 5, embed.cosine)
            assert by_dot == brute_force_neighbors(table, probe, 5, embed.dot)
            assert probe not in by_cos and probe not in by_dot
            assert all(type(i) is int for i in by_cos + by_dot)


def test_nearest_neighbors_break_exact_ties_by_index():
    table = [[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [1.0, 0.0], [1.0, 0.0]]
    # Rows 0, 2 and 4 all have cosine 1 with row 3; row 2 has the largest dot.
    assert embed.nearest_by_cosine(table, 3, 4) == [0, 2, 4, 1]
    assert embed.nearest_by_dot(table, 3, 4) == [2, 0, 4, 1]
    assert embed.nearest_by_cosine(table, 3, 0) == []


def test_stretched_row_jumps_ahead_in_the_dot_list_only():
    table = [[1.0, 0.1], [0.9, 0.5], [1.0, 0.0], [0.2, 1.0]]
    assert embed.nearest_by_cosine(table, 0, 3) == [2, 1, 3]
    assert embed.nearest_by_dot(table, 0, 3) == [2, 1, 3]
    stretched = embed.stretch(table, 3, 16.0)
    assert embed.nearest_by_cosine(stretched, 0, 3) == [2, 1, 3]
    assert embed.nearest_by_dot(stretched, 0, 3) == [3, 2, 1]


@pytest.mark.parametrize("name", ["nearest_by_cosine", "nearest_by_dot"])
@pytest.mark.parametrize("bad", [-1, 4])
def test_nearest_rejects_ids_out_of_range(name, bad):
    with pytest.raises(IndexError):
        getattr(embed, name)(TOY, bad, 2)


# Step 7: scaling by the square root of the width


def test_rms():
    assert embed.rms([2.0, -2.0, 2.0, -2.0]) == 2.0
    assert embed.rms([3.0, 4.0]) == pytest.approx(math.sqrt(12.5), rel=1e-15)


def test_scaled_lookup_values():
    table = random_table(9, 16, 8)
    scaled = embed.scaled_lookup(table, [4, 0, 4], 16)
    assert scaled == [[x * 4.0 for x in table[i]] for i in (4, 0, 4)]
    assert embed.scaled_lookup(table, [], 16) == []


def test_scaled_lookup_scales_rms_by_root_d_and_keeps_cosines():
    for dim in (1, 3, 64, 100):
        table = random_table(12, dim, dim)
        plain = embed.lookup(table, [2, 9])
        scaled = embed.scaled_lookup(table, [2, 9], dim)
        ratio = embed.rms(scaled[0]) / embed.rms(plain[0])
        assert abs(ratio - math.sqrt(dim)) <= 1e-12 * math.sqrt(dim)
        before = embed.cosine(plain[0], plain[1])
        after = embed.cosine(scaled[0], scaled[1])
        assert abs(after - before) <= 1e-12
        assert embed.cosine(plain[0], scaled[0]) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("bad", [-1, 4])
def test_scaled_lookup_rejects_ids_out_of_range(bad):
    with pytest.raises(IndexError):
        embed.scaled_lookup(TOY, [bad], 3)


# No function changes what it was given


CALLS = [
    ("shape", lambda t: (t,)),
    ("lookup", lambda t: (t, [1, 1, 0])),
    ("row_times_matrix", lambda t: ([0.5] * len(t), t)),
    ("lookup_via_one_hot", lambda t: (t, [2, 0])),
    ("logits", lambda t: (t, list(t[0]))),
    ("dot", lambda t: (t[0], t[1])),
    ("norm", lambda t: (t[0],)),
    ("cosine", lambda t: (t[0], t[1])),
    ("stretch", lambda t: (t, 1, 2.5)),
    ("nearest_by_cosine", lambda t: (t, 1, 2)),
    ("nearest_by_dot", lambda t: (t, 1, 2)),
    ("rms", lambda t: (t[2],)),
    ("scaled_lookup", lambda t: (t, [0, 2], 4)),
]


@pytest.mark.parametrize("name, make_args", CALLS, ids=[name for name, _ in CALLS])
def test_inputs_are_not_modified(name, make_args):
    args = make_args(random_table(4, 4, 9))
    pristine = copy.deepcopy(args)
    getattr(embed, name)(*args)
    assert args == pristine


# The module itself


def test_module_uses_the_standard_library_only_and_python_38_syntax():
    source = (ROOT / "embed.py").read_text(encoding="utf-8")
    tree = ast.parse(source, feature_version=(3, 8))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"json", "math", "os", "random", "sys"}


def test_public_functions_have_docstrings(contract):
    for name in [n.name for n in contract.FUNCTIONS] + ["measure", "write_report"]:
        doc = getattr(embed, name).__doc__
        assert doc and len(doc.strip()) > 30, name


def test_constants_match_the_contract(contract):
    for name, value in contract.CONSTANTS.items():
        assert getattr(embed, name) == value and type(getattr(embed, name)) is int
    assert embed.PROBE == contract.PROBE
    assert embed.K == contract.K
    assert embed.STRETCH_FACTOR == contract.STRETCH_FACTOR
    assert embed.VOCAB_FACTOR == contract.VOCAB_FACTOR
    for item in contract.FUNCTIONS:
        assert callable(getattr(embed, item.name)), item.name


# Step 8: the report fields and files


def test_report_keys_and_kinds(fields, contract):
    assert list(fields) == [key for key, _ in contract.REPORT_FIELDS]
    assert len(fields) == 30
    for key, kind in contract.REPORT_FIELDS:
        value = fields[key]
        if kind == "integer":
            assert type(value) is int, key
        elif kind == "number":
            assert type(value) is float, key
        elif kind == "boolean":
            assert type(value) is bool, key
        elif kind in ("indices", "shape"):
            assert type(value) is list and all(type(i) is int for i in value), key
        else:
            pytest.fail("unknown kind %r of %s" % (kind, key))


def test_report_values(fields):
    assert {k: v for k, v in fields.items() if not isinstance(v, float)} == {
        "vocab": 512,
        "dim": 64,
        "seed": 20260917,
        "probe": 137,
        "table_shape": [512, 64],
        "params": 32768,
        "tied_params": 32768,
        "untied_params": 65536,
        "saved": 32768,
        "bigger_vocab": 1024,
        "bigger_tied": 65536,
        "bigger_untied": 131072,
        "lookup_mults": 0,
        "one_hot_mults": 32768,
        "repeat_same": True,
        "logit_len": 512,
        "logit_argmax": 137,
        "logit_argmax_is_self": True,
        "cos_neighbors": [489, 85, 209, 4, 276],
        "dot_neighbors": [489, 85, 209, 276, 4],
        "neighbors_differ": True,
        "stretch_target": 276,
        "cos_after_stretch": [489, 85, 209, 4, 276],
        "dot_after_stretch": [276, 489, 85, 209, 4],
        "cos_unchanged_by_scale": True,
    }
    assert fields["max_abs_diff"] == 0.0
    assert fields["stretch_factor"] == 4.0
    assert fields["rms_plain"] == pytest.approx(0.2978265080426352, rel=1e-12)
    assert fields["rms_scaled"] == pytest.approx(2.3826120643410817, rel=1e-12)
    assert abs(fields["rms_ratio"] - 8.0) <= 1e-12 * 8.0


def test_report_values_follow_from_the_functions(fields):
    table = embed.make_table(embed.VOCAB, embed.DIM, embed.SEED)
    probe = fields["probe"]
    assert fields["stretch_target"] == fields["cos_neighbors"][4]
    assert fields["cos_neighbors"] == embed.nearest_by_cosine(table, probe, 5)
    assert fields["neighbors_differ"] == (fields["cos_neighbors"] != fields["dot_neighbors"])
    scores = embed.logits(table, table[probe])
    assert fields["logit_argmax"] == scores.index(max(scores))
    assert fields["rms_plain"] == embed.rms(table[probe])
    assert fields["rms_ratio"] == fields["rms_scaled"] / fields["rms_plain"]


SECTION_KEYS = [
    ["vocab", "dim", "seed", "probe", "table_shape", "params"],
    ["lookup_mults", "one_hot_mults", "max_abs_diff", "repeat_same"],
    ["tied_params", "untied_params", "saved", "bigger_vocab", "bigger_tied",
     "bigger_untied", "logit_len", "logit_argmax", "logit_argmax_is_self"],
    ["cos_neighbors", "dot_neighbors", "neighbors_differ", "stretch_target",
     "stretch_factor", "cos_after_stretch", "dot_after_stretch"],
    ["rms_plain", "rms_scaled", "rms_ratio", "cos_unchanged_by_scale"],
]  # fmt: skip

FIGURE = re.compile(r"`([a-z_]+)` = (\[[^\]]*\]|true|false|-?[0-9][0-9.eE+-]*)")


def figure_agrees(text, value):
    """Whether a figure as written in the markdown states the JSON value."""
    if isinstance(value, bool):
        return text == ("true" if value else "false")
    if isinstance(value, list):
        return text.startswith("[") and json.loads(text) == value
    if isinstance(value, int):
        return text == str(value)
    return float(text) == value or text == "%.5g" % value


def markdown_sections(text):
    """The title line and a list of (heading, body) of the ## sections."""
    parts = re.split(r"^## (.*)$", text, flags=re.MULTILINE)
    return parts[0], list(zip(parts[1::2], parts[2::2]))


def test_markdown_report(fields, contract, tmp_path):
    embed.write_report(str(tmp_path))
    text = (tmp_path / "embed_report.md").read_text(encoding="utf-8")
    head, sections = markdown_sections(text)
    assert head.startswith("# ") and head.strip().count("\n") == 0
    assert [heading for heading, _ in sections] == list(contract.REPORT_HEADINGS)
    for (heading, body), keys in zip(sections, SECTION_KEYS):
        figures = FIGURE.findall(body)
        assert sorted(key for key, _ in figures) == sorted(keys), heading
        for key, written in figures:
            assert figure_agrees(written.rstrip("."), fields[key]), (key, written)
        sentences = re.findall(r"[.!?](?=\s|$)", body)
        assert 3 <= len(sentences) <= 6, heading
        assert re.search("[가-힣]", body), heading
    assert "TODO" not in text


def test_figure_agrees_can_refuse():
    assert not figure_agrees("0.29784", 0.2978265080426352)
    assert not figure_agrees("false", True)
    assert not figure_agrees("[1, 2]", [2, 1])
    assert not figure_agrees("1024.0", 1024)


def test_json_report(fields, tmp_path):
    returned = embed.write_report(str(tmp_path))
    raw = (tmp_path / "embed_report.json").read_text(encoding="utf-8")
    assert raw == json.dumps(fields, indent=2, ensure_ascii=False) + "\n"
    assert list(json.loads(raw)) == list(fields)
    assert json.loads(raw) == fields == returned


def test_write_report_creates_the_folder(tmp_path):
    outdir = tmp_path / "a" / "b"
    embed.write_report(str(outdir))
    assert sorted(p.name for p in outdir.iterdir()) == ["embed_report.json", "embed_report.md"]


def test_reference_files_are_up_to_date(tmp_path):
    """reference/ is what `python embed.py reference` writes, byte for byte."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "embed.py"), str(tmp_path / "out")],
        cwd=str(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr.decode()
    for name in ("embed_report.json", "embed_report.md"):
        fresh = (tmp_path / "out" / name).read_bytes()
        committed = (REFERENCE / name).read_bytes()
        assert fresh == committed, "reference/%s is stale: run python embed.py reference" % name


# Cross-checks against numpy on random tables

SIZES = [(1, 1), (2, 5), (17, 3), (64, 64), (10, 300)]


@pytest.fixture(scope="module")
def np():
    return pytest.importorskip("numpy")


def close(np, actual, expected):
    return np.allclose(np.asarray(actual, dtype=float), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("vocab, dim", SIZES)
def test_against_numpy(np, vocab, dim):
    rng = np.random.default_rng(vocab * 1000 + dim)
    array = rng.uniform(-1.0, 1.0, size=(vocab, dim))
    table = array.tolist()
    vec = rng.uniform(-1.0, 1.0, size=vocab).tolist()
    hidden = rng.uniform(-1.0, 1.0, size=dim).tolist()
    a, b = table[0], table[-1]

    assert embed.shape(table) == array.shape
    assert close(np, embed.dot(a, b), np.dot(a, b))
    assert close(np, embed.norm(a), np.linalg.norm(a))
    expected_cos = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    assert close(np, embed.cosine(a, b), expected_cos)
    assert close(np, embed.rms(a), np.sqrt(np.mean(np.square(a))))
    assert close(np, embed.logits(table, hidden), array @ np.asarray(hidden))
    assert close(np, embed.row_times_matrix(vec, table), np.asarray(vec) @ array)
    ids = rng.integers(0, vocab, size=6).tolist()
    assert close(np, embed.lookup_via_one_hot(table, ids), np.eye(vocab)[ids] @ array)
    assert close(np, embed.scaled_lookup(table, ids, dim), array[ids] * np.sqrt(dim))
    stretched = array.copy()
    stretched[vocab // 2] *= 2.5
    assert close(np, embed.stretch(table, vocab // 2, 2.5), stretched)

    if vocab > 1:
        probe, k = vocab - 1, min(5, vocab - 1)
        dots = array @ array[probe]
        cosines = dots / (np.linalg.norm(array, axis=1) * np.linalg.norm(array[probe]))
        for scores, found in (
            (dots, embed.nearest_by_dot(table, probe, k)),
            (cosines, embed.nearest_by_cosine(table, probe, k)),
        ):
            order = [int(i) for i in np.argsort(-scores, kind="stable") if i != probe]
            assert found == order[:k]
