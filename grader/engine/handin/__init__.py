"""What was handed in and how it is read: one hand-in, before any of it runs.

``finding`` (which file of a hand-in is the module: one rule for a batch, Gradescope
and the command line), ``archives`` (a ``.zip`` unpacked within limits, or refused
with the reason), ``identity`` (who handed it in, read only from where the platform
writes it), ``submissions`` (a submission, its ids, the files grading reads), and a
notebook graded as the module: ``ipynb`` (the file read and checked, bounded like
every parser of student bytes), ``cellkinds`` (what a code cell is, read from its
text: one of the kit's own, and the names it binds) and ``notebook`` (the module made
of the cells, and its lines mapped back to them).  The hand-ins of a class, one per
student, are gathered in ``grader.engine.batch``.  The package itself holds only the
names that tell a notebook (``SUFFIX``, ``is_notebook``) and an archive
(``is_archive``) apart, so that grading a ``.py`` file loads neither kind's modules.

Its modules may import, of the grader: ``vocabulary``, ``sandbox``, ``safefs`` and
``frozen``.
"""

from __future__ import annotations

import os
from pathlib import PurePath

SUFFIX = ".ipynb"  # a notebook's; ``notebook`` itself is imported only to read one


ARCHIVES = (".zip",)  # the endings ``archives`` unpacks


def is_notebook(path: str | os.PathLike[str] | PurePath) -> bool:
    return str(path).lower().endswith(SUFFIX)


def is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVES)
