"""What checks are written in: the vocabulary the engine and every lab share.

``contract`` (the names a student module defines and their kinds), ``expect``
(``Check``, ``Case`` and what a case expects of its call: ``Returns``, ``Raises``,
``Open``, ``Custom``), ``compare`` (an answer against its expected value, never
calling student code), ``results`` (the frozen ``Report`` grading produces, and each
check's ``Status``), ``hints`` (what a lab knows of its students' usual mistakes),
``show`` (short, safe text for values and calls) and ``memo`` (values remembered for
an object nothing changes).  A lab builds with these and with ``grader.engine.lab``,
which imports this package (never the other way round); the engine judges with them.

Its modules may import, of the grader: ``sandbox`` (the plain records of calls and
answers) and ``frozen``.
"""
