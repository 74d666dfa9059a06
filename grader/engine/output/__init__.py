"""The outputs of a grading, for people and for other systems.

``byformat`` (every format by name, and ``render``, which imports a format's module
only when that format is asked for), ``render`` (the text and JSON reports),
``terminal`` (text for people at a terminal: escaped, wrapped to a width, optionally
coloured), ``systems`` (JUnit XML for CI and Gradescope's ``results.json``) and
``classroom`` (GitHub Classroom's results).  Everything a submission controls is
escaped on the way out.

Its modules may import, of the grader: ``grading`` (the notes on what was printed),
``handin`` (a notebook's cells), ``lab``, ``vocabulary``, ``messages`` and ``frozen``.
"""
