"""The submissions of a class: found in a folder, given ids, their files hashed.

A submission is one student's hand-in (``handins``: the entries of one student
together, whatever the platform made of them), with the module chosen by the rule of
``finding`` and its report files beside it; or a single ``NAME.py`` or ``NAME.ipynb``
file (no report files: their checks fail).  Names starting with ``.`` or ``_`` are
ignored, and so is the output folder.  Nothing is found through a symbolic link.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from pathlib import Path

from grader.engine import safefs
from grader.engine.frozen import frozen
from grader.engine.handin import notebook
from grader.engine.handin.identity import Identity
from grader.engine.sandbox import MAX_MODULE

# How deep inside a submission's folder the module is looked for.
SEARCH_DEPTH = 3
# Why a submission cannot be graded (these are also the statuses of its row).
MISSING = "missing"
UNREADABLE = "unreadable"
REFUSED = "refused"  # a symbolic link (or not a regular file) where the module should be
# Why a hand-in is not given the identity its name claims (see Submission.claim).
CLAIMED = "claimed"
AMBIGUOUS = "ambiguous"
UNMATCHED = "unmatched"


@frozen
class Submission:
    """One student's work: the module to grade and where its report files are."""

    id: str
    source: Path  # the folder or the file as found in the submissions folder
    module: Path | None  # None when there is nothing to grade
    report_dir: Path | None  # None for a single file: no report files
    problem: str = ""  # MISSING or UNREADABLE when it cannot be graded
    detail: str = ""
    report_files: tuple[str, ...] = ()  # the lab's report files, read beside the module
    identity: Identity | None = None  # whose, as the platform wrote it (None: not known)
    # Why the identity in its name is not given to it: CLAIMED (another hand-in claims
    # it under another name), AMBIGUOUS (its name reads as two students), UNMATCHED
    # (no student of the roster has it); and the identity claimed twice.
    claim: str = ""
    claimed: Identity | None = None
    notes: tuple[str, ...] = ()  # what the feedback says of the hand-in's files
    within: Path | None = None  # the folder every read is kept in (None: the class folder)
    absent: bool = False  # a student of the roster who handed nothing in

    def who(self) -> dict[str, str]:
        """The identity as a row keeps it (``rows.json``, the LMS files)."""
        who: dict[str, str] = {}
        if self.identity is not None:
            who = {"platform": self.identity.platform, "key": self.identity.key}
            if self.identity.name:
                who["name"] = self.identity.name
        if self.claim:
            who["problem"] = self.claim
        if self.claimed is not None:
            who["claimed"] = self.claimed.key
            who["claimed_platform"] = self.claimed.platform
        if self.absent:
            who["absent"] = "1"
        return who


def notebook_name(module_file: str) -> str:
    """The notebook that stands for the module: ``embed.ipynb`` for ``embed.py``."""
    return Path(module_file).stem + notebook.SUFFIX


def _exists(path: Path) -> bool:
    """A file or a link (never followed) named ``path``."""
    return path.is_symlink() or path.is_file()


def find_module(folder: Path, name: str) -> Path | None:
    """``folder/NAME``, else the only ``NAME`` at the shallowest depth below it.

    Folders that are symbolic links are not searched; a module that is a link is
    returned (to be refused)."""
    if _exists(folder / name):
        return folder / name
    level = [folder]
    for _ in range(SEARCH_DEPTH):
        below = []
        for d in level:
            try:
                below += sorted(
                    p
                    for p in d.iterdir()
                    if p.is_dir() and not p.is_symlink() and not p.name.startswith((".", "_"))
                )
            except OSError:
                continue
        hits = [d / name for d in below if _exists(d / name)]
        if len(hits) == 1:
            return hits[0]
        if hits:
            return None  # several: which one is meant is not ours to guess
        level = below
    return None


def some(names: Sequence[str], shown: int = 5) -> str:
    """The first names, and how many more there are."""
    more = " (+%d)" % (len(names) - shown) if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


ID_BYTES = 150  # an id's UTF-8 bytes: "." + id + ".json.tmp" fits a file name (255)


def safe_id(name: str) -> str:
    """A name that is safe as a file name and as a CSV cell: at most 100 characters
    and ``ID_BYTES`` bytes (a name in Korean or Chinese is three bytes a character)."""
    ident = re.sub(r"[^\w.@+-]+", "_", name).strip("._")[:100]
    while len(ident.encode("utf-8", "surrogatepass")) > ID_BYTES:
        ident = ident[:-1]
    return ident or "submission"


def unique_id(ident: str, taken: set[str]) -> str:
    candidate, n = ident, 1
    while candidate.lower() in taken:
        n += 1
        candidate = "%s-%d" % (ident, n)
    taken.add(candidate.lower())
    return candidate


def os_error(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def files_hash(sub: Submission) -> str:
    """A hash of every file that grading reads: the module and the report files.

    Raises OSError when the module cannot be read.
    """
    h = hashlib.sha256()
    assert sub.module is not None
    h.update(b"module\0" + _read(sub.module) + b"\0")
    # What the feedback says of the other files, and whose the row is, are part of it:
    # a cached row keeps both (a roster given on a rerun can tell whose it is).
    h.update("\0".join(sub.notes).encode("utf-8", "surrogatepass") + b"\0")
    h.update(json.dumps(sub.who(), sort_keys=True).encode("utf-8", "surrogatepass") + b"\0")
    if sub.report_dir is not None:
        for name in sub.report_files:
            try:
                data = _read(sub.report_dir / name)
            except OSError:
                data = b"\0absent"
            h.update(name.encode() + b"\0" + data + b"\0")
    return h.hexdigest()


def _read(path: Path) -> bytes:
    """A regular file's bytes, never through a link (OSError otherwise)."""
    limit = notebook.MAX_NOTEBOOK if notebook.is_notebook(path) else MAX_MODULE
    return safefs.read_regular(str(path), limit + 1).data


def watched_files(sub: Submission) -> list[tuple[Path, str]]:
    """The files of a submission that grading reads, each with a label."""
    if sub.module is None:
        return []
    files = [(sub.module, "%s: %s" % (sub.id, sub.module.name))]
    if sub.report_dir is not None:
        files += [(sub.report_dir / n, "%s: %s" % (sub.id, n)) for n in sub.report_files]
    return files


def student_seed(batch_seed: int, ident: str) -> int:
    """The seed of one submission under ``--seed-per-student``: fixed by the batch seed and id."""
    digest = hashlib.sha256(("%d:%s" % (batch_seed, ident)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % (10**9 - 1) + 1
