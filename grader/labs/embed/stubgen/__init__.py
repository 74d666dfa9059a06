"""Turn the reference ``embed.py`` into the student stub ``exercises/embed.py``.

Usage::

    python -m grader.labs.embed.stubgen [SRC] [DEST]          # write the stub
    python -m grader.labs.embed.stubgen [SRC] [DEST] --check  # exit 1 when DEST is stale

What the stub keeps and drops
-----------------------------

* imports and public module-level assignments (the constants) are kept as they are;
* every public function keeps its decorators, signature and docstring, and its body
  becomes ``raise NotImplementedError``: a function body is always a solution
  region, no marker is needed there;
* private names (``_helper``, ``_CACHE``) are dropped, together with the comment
  lines directly above them;
* public classes are kept with the same rules applied to their bodies;
* the module docstring is replaced by a text for students (see ``student_docstring``);
* any other statement (``if __name__ == "__main__":`` for example) is kept.

Markers, for module-level code that the rules above would keep
--------------------------------------------------------------

``# BEGIN SOLUTION`` and ``# END SOLUTION`` (whole lines, any number of ``#``)
enclose lines that are left out of the stub.  A region must cover whole
statements; inside a function body it changes nothing, since the body goes anyway.

``# BEGIN STUB`` and ``# END STUB`` enclose commented lines that appear in the stub
uncommented (the first ``#`` and one space after it are removed).  Such a block may
stand between module-level statements or inside a function body, where its lines go
between the docstring and the ``raise NotImplementedError``.  Write ``# # text`` to
get a comment ``# text`` in the stub.

The package: ``regions`` reads the markers, ``generator`` writes the stub from the
syntax tree, ``cli`` holds the student docstring, :func:`generate` and the command
line.  It imports the lab's contract only.
"""

from grader.labs.embed.stubgen.cli import generate, main, student_docstring
from grader.labs.embed.stubgen.regions import StubError

__all__ = ["StubError", "generate", "main", "student_docstring"]
