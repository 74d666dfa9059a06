# style: dictionaries of small lambdas; scores chosen by name; a report in markdown
import json
import math
import pathlib
import random

VOCAB, DIM, SEED = 512, 64, 20260917

COUNTS = {
    "tied": lambda v, d: v * d,
    "untied": lambda v, d: 2 * v * d,
}


def make_table(vocab, dim, seed):
    r = random.Random(seed)
    cells = [r.random() - 0.5 for _ in range(vocab * dim)]
    return [cells[i * dim:(i + 1) * dim] for i in range(vocab)]


def shape(matrix):
    lengths = [len(row) for row in matrix]
    if lengths and min(lengths) != max(lengths):
        raise ValueError("rows are not all %d long" % lengths[0])
    return (len(lengths), lengths[0] if lengths else 0)


def param_count(vocab, dim):
    return COUNTS["tied"](vocab, dim)


def _guard(table, token_id):
    if token_id not in range(len(table)):
        raise IndexError("no row %r" % (token_id,))


def lookup(table, ids):
    found = []
    for i in ids:
        _guard(table, i)
        found.append([x for x in table[i]])
    return found


def one_hot(token_id, vocab):
    hot = dict.fromkeys(range(vocab), 0.0)
    hot[token_id] = 1.0
    return [hot[i] for i in range(vocab)]


def row_times_matrix(vec, matrix):
    height, width = shape(matrix)
    if height != len(vec):
        raise ValueError("vec has %d entries for %d rows" % (len(vec), height))
    result = {}
    for c in range(width):
        result[c] = math.fsum(vec[r] * matrix[r][c] for r in range(height))
    return [result[c] for c in range(width)]


def lookup_via_one_hot(table, ids):
    out = []
    for i in ids:
        _guard(table, i)
        out.append(row_times_matrix(one_hot(i, len(table)), table))
    return out


def one_hot_mults(vocab, dim, count):
    return count * COUNTS["tied"](vocab, dim)


def logits(table, hidden):
    if shape(table)[1] != len(hidden):
        raise ValueError("hidden does not match the table")
    return [SCORES["dot"](row, hidden) for row in table]


def tied_params(vocab, dim):
    return COUNTS["tied"](vocab, dim)


def untied_params(vocab, dim):
    return COUNTS["untied"](vocab, dim)


def vocab_growth(vocab, dim, factor):
    bigger = vocab * factor
    result = {"vocab": vocab, "bigger_vocab": bigger, "dim": dim}
    for name, count in COUNTS.items():
        result[name] = count(vocab, dim)
        result["bigger_" + name] = count(bigger, dim)
    result["saved"] = result["untied"] - result["tied"]
    return result


def dot(a, b):
    return math.fsum(x * y for x, y in zip(a, b))


def norm(vec):
    return math.sqrt(math.fsum(x * x for x in vec))


def cosine(a, b):
    bottom = norm(a) * norm(b)
    if bottom == 0.0:
        return 0.0
    return min(1.0, max(-1.0, dot(a, b) / bottom))


SCORES = {"dot": dot, "cosine": cosine}


def stretch(table, token_id, factor):
    _guard(table, token_id)
    new = [row[:] for row in table]
    new[token_id] = [factor * x for x in new[token_id]]
    return new


def _neighbours(table, token_id, k, how):
    _guard(table, token_id)
    score = SCORES[how]
    best = {i: score(table[token_id], row) for i, row in enumerate(table) if i != token_id}
    return sorted(best, key=lambda i: (-best[i], i))[:k]


def nearest_by_cosine(table, token_id, k):
    return _neighbours(table, token_id, k, "cosine")


def nearest_by_dot(table, token_id, k):
    return _neighbours(table, token_id, k, "dot")


def rms(vec):
    if len(vec) == 0:
        return 0.0
    return math.sqrt(math.fsum(x * x for x in vec) / len(vec))


def scaled_lookup(table, ids, dim):
    return [[x * math.sqrt(dim) for x in row] for row in lookup(table, ids)]


def measure():
    t = make_table(VOCAB, DIM, SEED)
    p = 137
    near = {how: _neighbours(t, p, 5, how) for how in SCORES}
    t2 = stretch(t, near["cosine"][4], 4.0)
    after = {how: _neighbours(t2, p, 5, how) for how in SCORES}
    row = lookup(t, [p])[0]
    big = scaled_lookup(t, [p], DIM)[0]
    scores = logits(t, row)
    return {
        "table_shape": list(shape(t)),
        "one_hot_mults": one_hot_mults(VOCAB, DIM, 1),
        "lookup_mults": 0,
        "max_abs_diff": max(abs(a - b) for a, b in zip(row, lookup_via_one_hot(t, [p])[0])),
        "logit_argmax": scores.index(max(scores)),
        "tied": tied_params(VOCAB, DIM),
        "untied": untied_params(VOCAB, DIM),
        "cos_neighbors": near["cosine"],
        "dot_neighbors": near["dot"],
        "neighbors_differ": near["cosine"] != near["dot"],
        "cos_after_stretch": after["cosine"],
        "dot_after_stretch": after["dot"],
        "rms_plain": rms(row),
        "rms_scaled": rms(big),
        "rms_ratio": rms(big) / rms(row),
        "cos_unchanged_by_scale": abs(cosine(row, big) - 1.0) < 1e-9,
    }


def write_report(outdir="."):
    folder = pathlib.Path(outdir)
    folder.mkdir(parents=True, exist_ok=True)
    m = measure()
    (folder / "embed_report.json").write_text(json.dumps(m, indent=2))
    lines = ["# 보고서", ""]
    for key, value in m.items():
        lines.append("- %s: %s" % (key, value))
    (folder / "embed_report.md").write_text("\n".join(lines) + "\n")
    return m
