"""Which file of a hand-in is the module: one rule for a batch, Gradescope and the
command line.

Among the files of one hand-in (``name`` is each one's path inside it), in order:

1. the lab's module by its name (``embed.py``), the shallowest one; where there are
   several at that depth, the one that is not in a ``test``/``tests`` folder;
2. else the lab's notebook by its name (``embed.ipynb``), the same way;
3. else a name a browser, an editor or a person gives a copy of either:
   ``embed (1).py``, ``embed(2).py``, ``embed-1.py``, ``embed_copy.py``, ``Embed.py``,
   ``embed.py.txt``; of several, the one with the highest number (a browser numbers
   each new download higher), then the shallowest;
4. else the only Python file in a ``src`` folder.

Every other file is listed in the feedback as handed in and not graded.  A choice by
rule 3 or 4 comes with a note that says what was graded as what.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from grader.engine.frozen import frozen

TEST_FOLDERS = frozenset({"test", "tests"})
# Names never taken for a student's file: what editors, systems and git leave.
IGNORED = (".", "_", "__MACOSX")


@frozen
class Choice:
    """The module among the names of a hand-in, and what else came."""

    name: str | None  # the chosen file's name inside the hand-in
    graded_as: str = ""  # the name it is graded under (the module's or notebook's)
    rule: int = 0  # which rule of the module's docstring chose it (0: none)
    others: tuple[str, ...] = ()  # the hand-in's other files
    several: tuple[str, ...] = ()  # files the rules cannot choose between

    @property
    def renamed(self) -> bool:
        return self.name is not None and PurePosixPath(self.name).name != self.graded_as


def copy_number(name: str, module_file: str) -> int | None:
    """The number of a copy of ``module_file`` named ``name`` (0 for an unnumbered copy,
    such as ``Embed.py`` or ``embed.py.txt``), else None: not a copy's name."""
    stem, dot, ext = module_file.rpartition(".")
    pattern = r"%s(?:\s*\((\d+)\)|[ _-]?(\d+)|[ _-]?copy)?%s%s(\.txt)?" % (
        re.escape(stem),
        re.escape(dot),
        re.escape(ext),
    )
    match = re.fullmatch(pattern, name, re.IGNORECASE)
    if match is None:
        return None
    number = match.group(1) or match.group(2)
    return int(number[:9]) if number else 0


def _depth(name: str) -> int:
    return len(PurePosixPath(name).parts) - 1


def _in_tests(name: str) -> bool:
    return any(p.lower() in TEST_FOLDERS for p in PurePosixPath(name).parts[:-1])


def _by_name(names: Sequence[str], wanted: str) -> tuple[str | None, tuple[str, ...]]:
    """The shallowest ``wanted`` (rule 1), or the several it cannot choose between."""
    hits = [n for n in names if PurePosixPath(n).name == wanted]
    if not hits:
        return None, ()
    top = min(_depth(n) for n in hits)
    level = [n for n in hits if _depth(n) == top]
    if len(level) > 1:
        level = [n for n in level if not _in_tests(n)] or level
    if len(level) == 1:
        return level[0], ()
    return None, tuple(sorted(level))


def choose(names: Sequence[str], module_file: str, notebook_file: str) -> Choice:
    """The module among ``names`` (paths inside one hand-in, ``/`` between folders)."""
    names = sorted(set(names))
    for wanted in (module_file, notebook_file):
        name, several = _by_name(names, wanted)
        if several:
            return Choice(None, others=tuple(n for n in names if n not in several), several=several)
        if name is not None:
            return _chosen(names, name, wanted, 1 if wanted == module_file else 2)
    copies = []
    for n in names:
        for wanted in (module_file, notebook_file):
            number = copy_number(PurePosixPath(n).name, wanted)
            if number is not None:
                copies.append((-number, _depth(n), wanted == notebook_file, n, wanted))
    if copies:
        copies.sort()
        best = copies[0]
        ties = [c for c in copies if c[:3] == best[:3]]
        if len(ties) > 1:
            several = tuple(c[3] for c in ties)
            return Choice(None, others=tuple(n for n in names if n not in several), several=several)
        return _chosen(names, best[3], best[4], 3)
    in_src = [
        n
        for n in names
        if n.lower().endswith(".py")
        and len(PurePosixPath(n).parts) == 2
        and PurePosixPath(n).parts[0].lower() == "src"
    ]
    if len(in_src) == 1:
        return _chosen(names, in_src[0], module_file, 4)
    return Choice(None, others=tuple(names))


def _chosen(names: Sequence[str], name: str, graded_as: str, rule: int) -> Choice:
    return Choice(name, graded_as, rule, tuple(n for n in names if n != name))


def python_files(names: Sequence[str]) -> list[str]:
    """The names of Python modules and notebooks among ``names``."""
    return [n for n in names if n.lower().endswith((".py", ".ipynb"))]
