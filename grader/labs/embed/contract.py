"""The exercise contract: every graded name, its step, its signature and answer kind.

This is the one place that lists the names a student module must define.  Every
other module (cases, checks, stub generator, report grading) reads it from here.
"""

from __future__ import annotations

from grader.engine.vocabulary.contract import ATOL, MODULE, REPORT, RTOL, Answer, Name, function

__all__ = ["ATOL", "MODULE", "REPORT", "RTOL", "Answer", "Name"]


_fn = function


NAMES: tuple[Name, ...] = (
    Name("VOCAB", 1, None, Answer.INT, "vocabulary size, 512"),
    Name("DIM", 1, None, Answer.INT, "embedding width, 64"),
    Name("SEED", 1, None, Answer.INT, "seed of the fixed table, 20260917"),
    _fn(
        "make_table",
        1,
        "vocab dim seed",
        Answer.MATRIX,
        "vocab x dim table from one random.Random(seed), row by row, random() - 0.5",
    ),
    _fn(
        "shape",
        1,
        "matrix",
        Answer.SHAPE,
        "(rows, cells); [] is (0, 0); ragged rows raise ValueError",
    ),
    _fn("param_count", 1, "vocab dim", Answer.INT, "vocab * dim"),
    _fn(
        "lookup",
        2,
        "table ids",
        Answer.MATRIX,
        "the row of each id; an id outside 0..V-1 (negative too) raises IndexError",
    ),
    _fn(
        "one_hot",
        3,
        "token_id vocab",
        Answer.VECTOR,
        "vocab floats, 1.0 at token_id and 0.0 elsewhere",
    ),
    _fn(
        "row_times_matrix",
        3,
        "vec matrix",
        Answer.VECTOR,
        "out[c] = sum(vec[r] * matrix[r][c] for r in range(V))",
    ),
    _fn(
        "lookup_via_one_hot",
        3,
        "table ids",
        Answer.MATRIX,
        "the rows of ids computed as one_hot(id) times the table",
    ),
    _fn(
        "one_hot_mults",
        3,
        "vocab dim count",
        Answer.INT,
        "multiplications of count one-hot lookups: vocab * dim * count",
    ),
    _fn(
        "logits",
        4,
        "table hidden",
        Answer.VECTOR,
        "out[t] = dot(table[t], hidden); a hidden vector of the wrong width raises ValueError",
    ),
    _fn("tied_params", 5, "vocab dim", Answer.INT, "one shared table: vocab * dim"),
    _fn("untied_params", 5, "vocab dim", Answer.INT, "two tables: 2 * vocab * dim"),
    _fn(
        "vocab_growth",
        5,
        "vocab dim factor",
        Answer.COUNTS,
        "counts before and after multiplying the vocabulary by factor",
    ),
    _fn("dot", 6, "a b", Answer.FLOAT, "sum of products"),
    _fn("norm", 6, "vec", Answer.FLOAT, "Euclidean length"),
    _fn(
        "cosine",
        6,
        "a b",
        Answer.FLOAT,
        "dot / (norm * norm); 0.0 when either vector has no length",
    ),
    _fn(
        "stretch",
        6,
        "table token_id factor",
        Answer.MATRIX,
        "a new table with row token_id multiplied by factor; the input is left alone",
    ),
    _fn(
        "nearest_by_cosine",
        6,
        "table token_id k",
        Answer.INDICES,
        "k other rows by cosine, best first, exact ties by smaller index",
    ),
    _fn(
        "nearest_by_dot",
        6,
        "table token_id k",
        Answer.INDICES,
        "k other rows by dot product, best first, exact ties by smaller index",
    ),
    _fn("rms", 7, "vec", Answer.FLOAT, "sqrt(dot(vec, vec) / len(vec)); 0.0 for []"),
    _fn(
        "scaled_lookup",
        7,
        "table ids dim",
        Answer.MATRIX,
        "lookup(table, ids) with every value multiplied by math.sqrt(dim)",
    ),
)

BY_NAME: dict[str, Name] = {n.name: n for n in NAMES}
FUNCTIONS: tuple[Name, ...] = tuple(n for n in NAMES if not n.is_constant)

CONSTANTS: dict[str, int] = {"VOCAB": 512, "DIM": 64, "SEED": 20260917}


STEPS: dict[int, str] = {
    0: "module: imports and names",
    1: "the table, its shape and size",
    2: "lookup",
    3: "one-hot product",
    4: "tied logits",
    5: "parameter counts",
    6: "cosine against dot product",
    7: "scaling by sqrt(d)",
    8: "report files",
}

STEP_POINTS: dict[int, int] = {0: 5, 1: 10, 2: 10, 3: 15, 4: 10, 5: 10, 6: 15, 7: 10, 8: 15}
MAX_SCORE = sum(STEP_POINTS.values())

# Step 8: the measurements with the fixed constants.
PROBE = 137
K = 5
STRETCH_RANK = 4  # the stretched row is cos_neighbors[4], the fifth cosine neighbour
STRETCH_FACTOR = 4.0
VOCAB_FACTOR = 2

REPORT_JSON = "embed_report.json"
REPORT_MD = "embed_report.md"

# Every key of embed_report.json, in the contract's order, with its JSON kind.
REPORT_FIELDS: tuple[tuple[str, str], ...] = (
    ("vocab", "integer"),
    ("dim", "integer"),
    ("seed", "integer"),
    ("probe", "integer"),
    ("table_shape", "shape"),
    ("params", "integer"),
    ("tied_params", "integer"),
    ("untied_params", "integer"),
    ("saved", "integer"),
    ("bigger_vocab", "integer"),
    ("bigger_tied", "integer"),
    ("bigger_untied", "integer"),
    ("lookup_mults", "integer"),
    ("one_hot_mults", "integer"),
    ("max_abs_diff", "number"),
    ("repeat_same", "boolean"),
    ("logit_len", "integer"),
    ("logit_argmax", "integer"),
    ("logit_argmax_is_self", "boolean"),
    ("cos_neighbors", "indices"),
    ("dot_neighbors", "indices"),
    ("neighbors_differ", "boolean"),
    ("stretch_target", "integer"),
    ("stretch_factor", "number"),
    ("cos_after_stretch", "indices"),
    ("dot_after_stretch", "indices"),
    ("cos_unchanged_by_scale", "boolean"),
    ("rms_plain", "number"),
    ("rms_scaled", "number"),
    ("rms_ratio", "number"),
)

# The five sections of embed_report.md, exactly and in this order.
REPORT_HEADINGS: tuple[str, ...] = (
    "무엇을 쟀나",
    "조회와 원-핫 곱은 같은 연산이다",
    "가중치를 묶으면 무엇이 줄어드나",
    "내적과 코사인이 갈리는 자리",
    "√d 를 곱하면 무엇이 달라지나",
)
