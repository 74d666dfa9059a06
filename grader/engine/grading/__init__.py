"""Grading one submission: the lab's cases run in the child, judged and scored.

``grade`` (``grade()``, the engine's entry point, and ``Grading``, one run: the cases
drawn, the calls run in the child, each answer judged as it arrives), ``runoptions``
(what one run is asked to do, and the ``UsageError`` that stops it before it
starts), ``optioncheck`` (the checks of the options both command lines share),
``selection`` (every check of a full run, and what ``--check`` and ``--upto``
select), ``reading`` (what grading reads of a submission: the module's bytes or a
notebook's cells, never through a link), ``worker`` (the thread that talks to the
child while the grading thread judges), ``calls`` (judging one call), ``checks``
(judging a submission's checks: its import and constants, each check's cases, the
arguments left as given), ``importing`` (the check of the module's import),
``gates`` (checks whose points wait for another check), ``scoring`` (each check's
share of the points, blame, replay commands), ``printed`` (what the student's code
printed) and ``stopping`` (SIGTERM as an exception, so that a stopped grading still
removes its child's folder).  A ``Grading`` is a ``Judging`` (of ``checks``), which
is a ``Scoring``.

Its modules may import, of the grader: ``handin``, ``lab``, ``vocabulary``, ``sandbox``,
``messages``, ``safefs`` and ``frozen``.
"""
