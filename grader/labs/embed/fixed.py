"""The report's fixed inputs and figures, from the oracle or from prepared data.

Step 8 works with the exercise's fixed constants only: the table
``make_table(VOCAB, DIM, SEED)``, the probe's fifth cosine neighbour, the table with
that row stretched, the two scaled rows, and every report field's value.  The full
grader computes them with the oracle; the student edition, which holds no oracle,
reads the same values from the data prepared when it was built.
"""

from __future__ import annotations

import functools
import importlib.util
from typing import Any

from grader.labs.embed.contract import (
    CONSTANTS,
    PROBE,
    STRETCH_FACTOR,
    STRETCH_RANK,
    VOCAB_FACTOR,
    K,
)


def student_edition() -> bool:
    """Whether this is the student edition: the grader without its oracle."""
    return importlib.util.find_spec("grader.labs.embed.oracle") is None


@functools.lru_cache(maxsize=1)
def values() -> dict[str, Any]:
    """``table``, ``target``, ``stretched``, ``scaled`` and ``expected`` (key, value) pairs."""
    if student_edition():
        from grader.labs.embed.stored import data

        return data.fixed()
    return computed()


@functools.lru_cache(maxsize=1)
def inputs() -> dict[str, Any]:
    """``table``, ``target``, ``stretched`` and ``scaled``: the inputs of the calls that
    measure the report's figures, without the expected figures.  They go to the child
    with the calls; the expected figures (and the report's checks that they need) are
    worked out while the child runs them."""
    if student_edition():
        return values()
    from grader.labs.embed import cases, oracle

    table = cases.real_table()  # make_table(VOCAB, DIM, SEED), drawn once
    target = cases.real_nearest(PROBE, K, "cosine")[STRETCH_RANK]
    return {
        "table": table,
        "target": target,
        "stretched": oracle.stretch(table, target, STRETCH_FACTOR),
        "scaled": oracle.scaled_lookup(table, [PROBE, target], CONSTANTS["DIM"]),
    }


def computed() -> dict[str, Any]:
    """The fixed values, worked out with the oracle."""
    from grader.labs.embed import cases, oracle
    from grader.labs.embed.reports.findings import KEYS, _close

    vocab, dim, seed = CONSTANTS["VOCAB"], CONSTANTS["DIM"], CONSTANTS["SEED"]
    given = inputs()  # the very objects the calls took
    table = given["table"]
    plain = oracle.lookup(table, [PROBE])[0]
    via_one_hot = oracle.row_times_matrix(oracle.one_hot(PROBE, vocab), table)
    twice = oracle.lookup(table, [PROBE, PROBE])
    scores = oracle.logits(table, plain)
    best = max(range(len(scores)), key=lambda t: (scores[t], -t))
    growth = oracle.vocab_growth(vocab, dim, VOCAB_FACTOR)
    cos_list = list(cases.real_nearest(PROBE, K, "cosine"))
    dot_list = list(cases.real_nearest(PROBE, K, "dot"))
    target = given["target"]
    stretched = given["stretched"]
    other = oracle.lookup(table, [target])[0]
    scaled = given["scaled"]
    # Either reading: a row against its scaled self, or two rows before and after.
    with_itself = _close(oracle.cosine(plain, scaled[0]), 1.0)
    cos_before = oracle.cosine(plain, other)
    both_rows = _close(oracle.cosine(scaled[0], scaled[1]), cos_before)
    rms_plain = oracle.rms(plain)
    rms_scaled = oracle.rms(scaled[0])
    fields: dict[str, Any] = {
        "vocab": vocab,
        "dim": dim,
        "seed": seed,
        "probe": PROBE,
        "table_shape": list(oracle.shape(table)),
        "params": oracle.param_count(vocab, dim),
        "tied_params": oracle.tied_params(vocab, dim),
        "untied_params": oracle.untied_params(vocab, dim),
        "saved": growth["saved"],
        "bigger_vocab": growth["bigger_vocab"],
        "bigger_tied": growth["bigger_tied"],
        "bigger_untied": growth["bigger_untied"],
        "lookup_mults": 0,
        "one_hot_mults": oracle.one_hot_mults(vocab, dim, 1),
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
        "cos_after_stretch": oracle.nearest_by_cosine(stretched, PROBE, K),
        "dot_after_stretch": oracle.nearest_by_dot(stretched, PROBE, K),
        "cos_unchanged_by_scale": with_itself or both_rows,
        "rms_plain": rms_plain,
        "rms_scaled": rms_scaled,
        "rms_ratio": rms_scaled / rms_plain,
    }
    return {
        "table": table,
        "target": target,
        "stretched": stretched,
        "scaled": scaled,
        "expected": tuple((key, fields[key]) for key in KEYS),
    }
