"""The ways the grader is started: from a terminal, by Gradescope, from a notebook.

``cli`` (``embed-grader [PATH] [options]``, and the commands ``batch``, ``merge`` and
``gradescope`` it hands on), ``gradescope`` (Gradescope's runner: the bundle's
``gradescope.json`` read, the module found and graded, ``results/results.json``
written) and ``checkcells`` (what an exercise notebook's check cells call: the grader
run on the notebook's own file, its report printed in the notebook).  Nothing of the
engine imports this package.

Its modules may import, of the grader: ``batch``, ``output``, ``grading``, ``handin``,
``lab``, ``vocabulary``, ``sandbox``, ``messages``, ``safefs`` and ``frozen``.
"""
