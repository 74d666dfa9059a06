"""From the embedding table to the logits: the model answer.

A token id becomes a vector by looking up one row of a table; a vector becomes
scores over the whole vocabulary by taking its dot product with every row of
that same table (weight tying).  Everything here uses the standard library
only and runs on Python 3.8 and newer.

Run ``python embed.py [OUTDIR]`` to measure everything with the fixed
constants and write ``embed_report.json`` and ``embed_report.md``.
"""

import json
import math
import os
import random
import sys

VOCAB = 512
DIM = 64
SEED = 20260917


# Step 1: the table, its shape and its size


def make_table(vocab, dim, seed):
    """Return a new vocab x dim table (a list of vocab lists of dim floats).

    One random.Random(seed) fills the table row by row, starting with cell 0
    of token 0; every cell is one draw of random() minus 0.5, so each value
    lies in [-0.5, 0.5).  The same arguments always give the same table.
    make_table(0, dim, seed) is []; make_table(vocab, 0, seed) is vocab
    empty rows.
    """
    rng = random.Random(seed)
    return [[rng.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]


def shape(matrix):
    """Return the tuple (rows, cells) of a table given as a list of rows.

    cells is the length of every row.  [] gives (0, 0) and [[]] gives (1, 0).
    A ragged table (rows of different lengths) raises ValueError.  The table
    is not changed.
    """
    rows = len(matrix)
    cells = len(matrix[0]) if rows else 0
    for index, row in enumerate(matrix):
        if len(row) != cells:
            raise ValueError(
                "row %d has %d cells, row 0 has %d" % (index, len(row), cells)
            )
    return (rows, cells)


def param_count(vocab, dim):
    """Return how many numbers a vocab x dim table holds: the int vocab * dim."""
    return vocab * dim


# Step 2: looking rows up


def _check_id(token_id, vocab):
    if not 0 <= token_id < vocab:
        raise IndexError(
            "token id %d is outside 0..%d" % (token_id, vocab - 1)
        )


def lookup(table, ids):
    """Return a list with the row of each id in ids, in order.

    The same id always gives the same values, wherever it appears; [] gives [].
    An id outside 0..len(table)-1 raises IndexError, negative ids too.
    (Python's own indexing would count them from the end.)  The table is
    not changed; returning copies (list(row)) keeps it safe.  Whether
    lookup returns copies or the table's own row objects is left open and
    not graded.
    """
    rows = []
    for token_id in ids:
        _check_id(token_id, len(table))
        rows.append(list(table[token_id]))
    return rows


# Step 3: the same rows through a one-hot product


def one_hot(token_id, vocab):
    """Return a list of vocab floats: 1.0 at index token_id, 0.0 elsewhere.

    What one_hot does with a token_id outside 0..vocab-1 is left open and
    not graded.
    """
    vec = [0.0] * vocab
    vec[token_id] = 1.0
    return vec


def row_times_matrix(vec, matrix):
    """Return the row vector vec (length V) times the V x d matrix (length d).

    out[c] = sum(vec[r] * matrix[r][c] for r in range(V)), for any vec, not
    only one-hots.  A ragged table (rows of different lengths) raises
    ValueError.  A vec whose length is not the number of rows raises
    ValueError.  Neither argument is changed.
    """
    rows, cells = shape(matrix)
    if len(vec) != rows:
        raise ValueError(
            "vector has %d entries, the matrix has %d rows" % (len(vec), rows)
        )
    return [sum(vec[r] * matrix[r][c] for r in range(rows)) for c in range(cells)]


def lookup_via_one_hot(table, ids):
    """Return the rows of ids, each computed as one_hot(id) times the table.

    The values equal lookup(table, ids) exactly, but every row really comes
    from row_times_matrix, at vocab * dim multiplications per id; [] gives [].
    An id outside 0..len(table)-1 raises IndexError, negative ids too.
    """
    rows = []
    for token_id in ids:
        _check_id(token_id, len(table))
        rows.append(row_times_matrix(one_hot(token_id, len(table)), table))
    return rows


def one_hot_mults(vocab, dim, count):
    """Return the multiplications that count one-hot lookups cost.

    Each one-hot row times a vocab x dim table multiplies vocab * dim times,
    so the result is the int vocab * dim * count (a plain lookup costs 0).
    """
    return vocab * dim * count


# Step 4: scores over the vocabulary with the same table


def logits(table, hidden):
    """Return one score per row of the table: out[t] = sum of table[t][c] * hidden[c].

    The input table itself scores the vocabulary (weight tying): the result
    has len(table) floats.  A hidden vector whose length is not the width of
    the table raises ValueError.  A ragged table (rows of different lengths)
    raises ValueError.
    """
    rows, cells = shape(table)
    if len(hidden) != cells:
        raise ValueError(
            "hidden vector has %d entries, the table is %d wide"
            % (len(hidden), cells)
        )
    return [sum(row[c] * hidden[c] for c in range(cells)) for row in table]


# Step 5: what tying saves


def tied_params(vocab, dim):
    """Return the parameters of one table shared by input and output.

    The int vocab * dim: a tied model stores the table once.
    """
    return param_count(vocab, dim)


def untied_params(vocab, dim):
    """Return the parameters of separate input and output tables.

    The int 2 * vocab * dim: an untied model stores two tables of one shape.
    """
    return 2 * param_count(vocab, dim)


def vocab_growth(vocab, dim, factor):
    """Return parameter counts before and after multiplying the vocabulary.

    A dict of ints with the keys vocab, bigger_vocab (vocab * factor), dim,
    tied, bigger_tied, untied, bigger_untied (tied and untied counts at the
    original and the bigger vocabulary) and saved (untied - tied at the
    original vocabulary).  factor is an int.
    """
    bigger = vocab * factor
    return {
        "vocab": vocab,
        "bigger_vocab": bigger,
        "dim": dim,
        "tied": tied_params(vocab, dim),
        "bigger_tied": tied_params(bigger, dim),
        "untied": untied_params(vocab, dim),
        "bigger_untied": untied_params(bigger, dim),
        "saved": untied_params(vocab, dim) - tied_params(vocab, dim),
    }


# Step 6: direction against length


def dot(a, b):
    """Return the dot product of two vectors: the sum of a[i] * b[i].

    a and b have the same length; dot([], []) is 0.0.  What dot does with
    vectors of different lengths is left open and not graded.
    """
    # A plain loop adds in the same order on every Python version
    # (sum() of floats is compensated from Python 3.12 on).
    total = 0.0
    for x, y in zip(a, b):
        total += x * y
    return total


def norm(vec):
    """Return the Euclidean length of vec, sqrt(dot(vec, vec)); norm([]) is 0.0."""
    return math.sqrt(dot(vec, vec))


def cosine(a, b):
    """Return the cosine of the angle between a and b: dot / (norm * norm).

    The result lies in [-1, 1].  When a or b has no length (all zeros, or
    empty) there is no direction, and the result is 0.0.
    """
    lengths = norm(a) * norm(b)
    if lengths == 0.0:
        return 0.0
    return dot(a, b) / lengths


def stretch(table, token_id, factor):
    """Return a new table whose row token_id is multiplied by factor.

    Every other row is copied unchanged; the given table is never modified.
    A token_id outside 0..len(table)-1 raises IndexError, negative too.
    """
    _check_id(token_id, len(table))
    new_table = [list(row) for row in table]
    new_table[token_id] = [x * factor for x in table[token_id]]
    return new_table


def _nearest(table, token_id, k, score):
    _check_id(token_id, len(table))
    probe = table[token_id]
    ranked = sorted(
        (index for index in range(len(table)) if index != token_id),
        key=lambda index: (-score(probe, table[index]), index),
    )
    return ranked[:k]


def nearest_by_cosine(table, token_id, k):
    """Return the indices of the k rows most similar to row token_id by cosine.

    Best first; token_id itself is left out, and exactly equal scores put
    the smaller index first.  A token_id outside 0..len(table)-1 raises
    IndexError, negative too.  What happens when k is larger than
    len(table) - 1 is left open and not graded.  The table is not changed.
    """
    return _nearest(table, token_id, k, cosine)


def nearest_by_dot(table, token_id, k):
    """Return the indices of the k rows whose dot product with row token_id is largest.

    Best first; token_id itself is left out, and exactly equal scores put
    the smaller index first.  A token_id outside 0..len(table)-1 raises
    IndexError, negative too.  What happens when k is larger than
    len(table) - 1 is left open and not graded.  The table is not changed.
    """
    return _nearest(table, token_id, k, dot)


# Step 7: scaling by the square root of the width


def rms(vec):
    """Return the root mean square of vec, sqrt(dot(vec, vec) / len(vec)).

    rms([]) is 0.0.
    """
    if not vec:
        return 0.0
    return math.sqrt(dot(vec, vec) / len(vec))


def scaled_lookup(table, ids, dim):
    """Return lookup(table, ids) with every value multiplied by math.sqrt(dim).

    Lengths and rms grow by sqrt(dim), cosines stay the same.  An id outside
    0..len(table)-1 raises IndexError, negative ids too.  The table is not
    changed.
    """
    scale = math.sqrt(dim)
    return [[x * scale for x in row] for row in lookup(table, ids)]


# Step 8: measure everything with the fixed constants

PROBE = 137
K = 5
STRETCH_FACTOR = 4.0
VOCAB_FACTOR = 2


def measure():
    """Run every step on the fixed table and return the report fields.

    A dict with the 30 keys of embed_report.json in the report's order,
    measured on make_table(VOCAB, DIM, SEED) with probe token PROBE, for
    write_report to write out.  measure is not graded by itself: only the
    files that write_report writes are.
    """
    table = make_table(VOCAB, DIM, SEED)
    plain = lookup(table, [PROBE])[0]
    via_one_hot = lookup_via_one_hot(table, [PROBE])[0]
    twice = lookup(table, [PROBE, PROBE])
    scores = logits(table, plain)
    best = max(range(len(scores)), key=lambda t: (scores[t], -t))
    growth = vocab_growth(VOCAB, DIM, VOCAB_FACTOR)
    cos_list = nearest_by_cosine(table, PROBE, K)
    dot_list = nearest_by_dot(table, PROBE, K)
    target = cos_list[4]
    stretched = stretch(table, target, STRETCH_FACTOR)
    scaled = scaled_lookup(table, [PROBE, target], DIM)
    other = lookup(table, [target])[0]
    cos_before = cosine(plain, other)
    cos_after = cosine(scaled[0], scaled[1])
    rms_plain = rms(plain)
    rms_scaled = rms(scaled[0])
    return {
        "vocab": VOCAB,
        "dim": DIM,
        "seed": SEED,
        "probe": PROBE,
        "table_shape": list(shape(table)),
        "params": param_count(VOCAB, DIM),
        "tied_params": tied_params(VOCAB, DIM),
        "untied_params": untied_params(VOCAB, DIM),
        "saved": growth["saved"],
        "bigger_vocab": growth["bigger_vocab"],
        "bigger_tied": growth["bigger_tied"],
        "bigger_untied": growth["bigger_untied"],
        "lookup_mults": 0,
        "one_hot_mults": one_hot_mults(VOCAB, DIM, 1),
        "max_abs_diff": max(abs(a - b) for a, b in zip(plain, via_one_hot)),
        "repeat_same": twice[0] == twice[1],
        "logit_len": len(scores),
        "logit_argmax": best,
        "logit_argmax_is_self": best == PROBE,
        "cos_neighbors": cos_list,
        "dot_neighbors": dot_list,
        "neighbors_differ": cos_list != dot_list,
        "stretch_target": target,
        "stretch_factor": STRETCH_FACTOR,
        "cos_after_stretch": nearest_by_cosine(stretched, PROBE, K),
        "dot_after_stretch": nearest_by_dot(stretched, PROBE, K),
        "cos_unchanged_by_scale": abs(cos_after - cos_before)
        <= 1e-9 + 1e-9 * abs(cos_before),
        "rms_plain": rms_plain,
        "rms_scaled": rms_scaled,
        "rms_ratio": rms_scaled / rms_plain,
    }


# The report files


def _figure(fields, key):
    """Return one measured figure as the report writes it: `key` = value."""
    value = fields[key]
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        short = "%.5g" % value
        text = repr(value) if float(short) == value else short
    else:
        text = json.dumps(value)
    return "`%s` = %s" % (key, text)


def _markdown(fields):
    """Return the text of embed_report.md: a title and five sections of prose."""

    def fig(key):
        return _figure(fields, key)

    root_d = math.sqrt(fields["dim"])
    ratio_is_root_d = abs(fields["rms_ratio"] - root_d) <= 1e-12 * root_d
    stretched_first = fields["dot_after_stretch"][:1] == [fields["stretch_target"]]
    sections = [
        ("무엇을 쟀나", [
            "이 보고서에 적힌 숫자는 모두 embed.py를 실행해 얻은 값이며, 손으로 옮겨 적은 것은 없다.",
            f"표는 시드({fig('seed')})로 만든 random.Random 하나에서 토큰 0의 첫 칸부터 "
            "한 줄씩 값을 뽑아 채웠으므로, 같은 시드로 다시 만들면 똑같은 표가 나온다.",
            f"어휘 크기({fig('vocab')})만큼 줄이 있고 각 줄은 벡터 폭({fig('dim')})만큼 칸을 "
            f"가지며, shape로 잰 표의 모양({fig('table_shape')})이 이를 확인해 준다.",
            f"표가 담은 수의 개수({fig('params')})는 줄 수와 칸 수의 곱이고, "
            "뒤에 나오는 매개변수 계산은 모두 이 곱에서 출발한다.",
            f"아래 측정은 모두 기준 토큰 하나({fig('probe')})의 줄을 가지고 했다.",
        ]),
        ("조회와 원-핫 곱은 같은 연산이다", [
            f"조회는 표에서 그 줄을 복사해 오기만 하므로 곱셈이 한 번도 없다({fig('lookup_mults')}).",
            "같은 줄을 원-핫 벡터와 표의 곱으로 구하면 어휘 크기와 폭을 곱한 횟수만큼 "
            f"곱해야 한다({fig('one_hot_mults')}).",
            f"그래도 두 방법의 결과를 칸마다 비교한 가장 큰 차이는 0이었다({fig('max_abs_diff')}). "
            "원-핫 벡터에서 1.0인 자리의 줄만 그대로 남고 나머지 줄은 0.0이 곱해져 사라지기 때문이다."
            if fields["max_abs_diff"] == 0.0 else
            f"두 방법의 결과를 칸마다 비교하니 차이가 남았다({fig('max_abs_diff')}). "
            "원-핫 곱은 한 줄만 그대로 남겨야 하므로, 이 차이는 어느 한쪽의 계산이 틀렸다는 뜻이다.",
            f"같은 번호를 두 번 조회하면 똑같은 벡터가 두 번 나온다({fig('repeat_same')}). "
            "임베딩은 문맥을 모르는 표여서, 앞뒤 토큰에 따라 뜻을 다르게 읽는 일은 뒤의 층이 맡는다."
            if fields["repeat_same"] else
            f"같은 번호를 두 번 조회했는데 서로 다른 벡터가 나왔다({fig('repeat_same')}). "
            "표에서 꺼낸 줄은 위치와 상관없이 같아야 하므로 조회를 다시 살펴야 한다.",
        ]),
        ("가중치를 묶으면 무엇이 줄어드나", [
            "입력 쪽 표를 출력 쪽 점수 계산에 그대로 다시 쓰면 표는 한 벌로 충분하다"
            f"({fig('tied_params')}).",
            f"입력용과 출력용을 따로 두면 같은 모양의 표가 두 벌 필요하고({fig('untied_params')}), "
            f"묶어서 아끼는 양은 그 차이인 표 한 벌 크기다({fig('saved')}).",
            f"폭은 그대로 두고 어휘만 늘리면({fig('bigger_vocab')}) 묶은 경우({fig('bigger_tied')})와 "
            f"따로 둔 경우({fig('bigger_untied')}) 모두 값의 개수가 어휘와 같은 배율로 커지므로, "
            "어휘를 늘리는 비용은 바로 이 표에서 치른다.",
            "기준 토큰의 줄을 은닉 벡터로 넣고 같은 표와 내적하면 어휘 전체에 대한 점수가 "
            f"하나씩 나온다({fig('logit_len')}).",
            f"가장 높은 점수는 기준 토큰 자신이 받았는데({fig('logit_argmax')}, "
            f"{fig('logit_argmax_is_self')}), 자기 자신과의 내적은 길이의 제곱이라 "
            "다른 줄과의 내적보다 크기 쉽기 때문이다."
            if fields["logit_argmax_is_self"] else
            f"가장 높은 점수는 기준 토큰이 아닌 다른 토큰이 받았다({fig('logit_argmax')}, "
            f"{fig('logit_argmax_is_self')}); 내적에는 상대 줄의 길이가 섞이므로 "
            "유난히 긴 줄은 자기 자신보다 높은 점수를 받을 수 있다.",
        ]),
        ("내적과 코사인이 갈리는 자리", [
            f"기준 토큰과 가장 가까운 다섯 줄을 코사인으로 고른 목록({fig('cos_neighbors')})과 "
            f"내적으로 고른 목록({fig('dot_neighbors')})을 나란히 놓았다.",
            "내적에는 상대 줄의 길이가 곱해져 있어서, 아무것도 손대지 않은 표에서도 "
            f"두 목록의 순서가 이미 다르다({fig('neighbors_differ')})."
            if fields["neighbors_differ"] else
            f"아무것도 손대지 않은 표에서는 두 목록이 같았다({fig('neighbors_differ')}).",
            f"이어서 코사인 목록의 다섯 번째 줄({fig('stretch_target')})에만 같은 수를 곱해 "
            f"늘인 새 표를 만들었다({fig('stretch_factor')}).",
            f"줄의 방향은 그대로이므로 늘인 뒤에도 코사인 목록은 똑같다({fig('cos_after_stretch')})."
            if fields["cos_after_stretch"] == fields["cos_neighbors"] else
            f"늘인 뒤 코사인 목록이 달라졌는데({fig('cos_after_stretch')}), "
            "방향은 그대로이므로 계산 어딘가가 틀렸다는 뜻이다.",
            f"반면 내적 목록에서는 늘인 줄이 맨 앞으로 뛰어올랐다({fig('dot_after_stretch')})."
            if stretched_first else
            f"늘인 뒤 내적으로 다시 고른 목록은 다음과 같다({fig('dot_after_stretch')}).",
            "그러므로 뜻이 가까운 이웃을 찾을 때는 길이를 나누어 없애는 코사인을 써야 하고, "
            "내적 순서인 로짓을 뜻의 거리로 읽어서는 안 된다.",
        ]),
        ("√d 를 곱하면 무엇이 달라지나", [
            f"기준 토큰 줄의 크기를 제곱평균제곱근으로 재면, 곱하기 전의 값({fig('rms_plain')})이 "
            f"모든 칸에 √d를 곱한 뒤의 값({fig('rms_scaled')})으로 바뀐다.",
            f"뒤의 값을 앞의 값으로 나눈 비율({fig('rms_ratio')})은 폭의 제곱근과 같아서, "
            "크기가 정확히 √d 배가 되었음을 보여 준다."
            if ratio_is_root_d else
            f"뒤의 값을 앞의 값으로 나눈 비율({fig('rms_ratio')})이 폭의 제곱근과 달라서, "
            "곱한 배율이 √d가 아니었음을 알 수 있다.",
            "모든 칸에 같은 수를 곱했을 뿐이라 방향은 변하지 않았고, 코사인도 곱하기 전과 "
            f"같았다({fig('cos_unchanged_by_scale')})."
            if fields["cos_unchanged_by_scale"] else
            "모든 칸에 같은 수를 곱하면 방향은 변하지 않아야 하는데, 코사인이 곱하기 전과 "
            f"달랐다({fig('cos_unchanged_by_scale')}).",
            "폭 d를 그대로 곱했다면 크기는 d 배가 되어 전혀 다른 값이 나왔을 것이다.",
            "크기를 키우는 까닭은 임베딩에 더해지는 위치 정보 같은 다른 신호와 크기를 맞춰 "
            "어느 한쪽이 묻히지 않게 하려는 데 있다.",
        ]),
    ]
    lines = ["# 임베딩 표에서 로짓까지: 측정 보고서", ""]
    for heading, sentences in sections:
        lines += ["## " + heading, ""] + sentences + [""]
    return "\n".join(lines)


def write_report(outdir="."):
    """Measure everything and write embed_report.json and embed_report.md.

    Both files go into outdir: create it when it is missing and replace files
    already there.  Whether write_report creates a missing outdir and replaces
    files already there is not graded: the grader always gives it a fresh,
    empty folder.  The JSON holds the fields of measure() in their order; the
    markdown has five sections whose prose states each figure next to its key.
    The grader grades the two files it writes, not what it returns; every
    figure must be what the functions above return, and the files must come
    out the same on every run (hand in the ones that `python embed.py`
    writes; in a notebook, its write_report(".") cell).  Each section needs
    at least 60 letters of prose besides headings, figures, key names and
    code: 60 Latin letters, 24 Hangul syllables or 20 Chinese characters.
    Open both files with encoding="utf-8": the headings are Korean and hold
    the sign √, which a plain open(path, "w") cannot write on Windows.
    """
    fields = measure()
    os.makedirs(outdir, exist_ok=True)
    texts = {
        "embed_report.json": json.dumps(fields, indent=2, ensure_ascii=False) + "\n",
        "embed_report.md": _markdown(fields),
    }
    for name, text in texts.items():
        with open(os.path.join(outdir, name), "w", encoding="utf-8", newline="\n") as out:
            out.write(text)
    return fields


if __name__ == "__main__":
    write_report(sys.argv[1] if len(sys.argv) > 1 else ".")
