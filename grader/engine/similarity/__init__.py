"""Submissions that look alike, as MOSS finds them (advisory: nothing here changes a score).

``tokens`` (Python source to the normalised tokens compared, by function),
``scanning`` (the same tokens, made faster, for the pass over a class),
``winnowing`` (tokens to winnowed fingerprints, per module and per function),
``shares`` (which modules share much of their code, which way, and in which
functions), ``shipped`` (the fingerprints of the lab's stub and reference solution
that the grader ships; ``python -m grader.engine.similarity.shipped`` writes them),
``classpass`` (the pass over a class, and ``similarity.json``) and ``pairpage`` (a
side-by-side page for each flagged pair).  See docs/similarity.md.

Its modules may import, of the grader: ``handin`` (a notebook read as its module),
``lab``, ``messages``, ``safefs`` and ``frozen``.
"""
