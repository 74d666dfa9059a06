"""The general engine: everything a lab of the course reuses, in packages by their jobs.

From the top down, each package importing only packages below it (its docstring says
which, ``tests/test_import_directions.py`` holds it to that):

- ``commands``: the ways the grader is started (the command line, Gradescope's
  runner, an exercise notebook's check cells);
- ``batch``: grading a class: its hand-ins, the jobs, the gradebooks, the summary,
  the class page, the shards and their merge;
- ``similarity``: submissions that look alike (advisory);
- ``output``: the outputs of a grading, for people and for other systems;
- ``grading``: grading one submission: the cases run in the child, judged and scored;
- ``handin``: what was handed in and how it is read (the module's file, a ``.zip``,
  a notebook);
- ``lab``, a module: the interface a lab implements, and how the engine finds a lab;
- ``vocabulary``: what checks are written in (the contract's names, checks, cases,
  expectations, results);
- ``sandbox``: the parent side of the child process that runs the student's module;
  ``_child``: the child's program, the standard library only;
- ``messages``: every text, by code and language; ``safefs``, a module: reading and
  removing files that untrusted code could have replaced.

What is specific to one lab reaches the engine through the lab's interface, never by
importing a lab's package.  This file imports nothing.

It may import, of the grader: none.
"""
