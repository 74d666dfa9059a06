"""Copies of what a hand-in's module needs to be graded, in a folder of its own.

A module that grading cannot read where it is (a flat file of Canvas's download, a
copy's name such as ``embed (1).py``, a member of an archive) is copied with the
report files handed in beside it, under their proper names, into a folder below the
batch's output: each read bounded, never through a link.  An archive is unpacked
(``archives``) into a folder of its own below ``_unpacked``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path, PurePosixPath
from typing import Sequence

from grader.engine import safefs
from grader.engine.handin import archives, notebook, submissions
from grader.engine.handin.finding import Choice, copy_number
from grader.engine.handin.submissions import UNREADABLE, Submission
from grader.engine.lab import Lab
from grader.engine.messages import text
from grader.engine.sandbox import MAX_MODULE


@dataclasses.dataclass
class Item:
    name: str  # its path inside the hand-in, as chosen among
    path: Path
    link: bool = False
    base: Path | None = None  # the hand-in's folder it was found in (None: a flat file)


def unpack(item: Item, ident: str, staging: Path | None, lang: str) -> Path | str:
    """The folder ``item`` (an archive) is unpacked into, else why it is not."""
    if staging is None:
        return text("handin.zip_here", lang, name=item.name)
    # Ids never start with "_": no staged submission's folder is this one.
    folder = staging / "_unpacked" / ident / re.sub(r"\W+", "_", item.name)[:60]
    try:
        folder.mkdir(parents=True)
        archives.unpack(item.path, folder)
    except archives.Refused as exc:
        return text(exc.code, lang, archive=item.name, **exc.params)
    except OSError as exc:
        return text(
            "handin.zip_unreadable", lang, archive=item.name, error=submissions.os_error(exc)
        )
    return folder


def stage(
    base: Submission,
    chosen: Item,
    choice: Choice,
    items: Sequence[Item],
    folder: Path,
    lab: Lab,
    lang: str,
    notes: list[str],
) -> Submission:
    """The module and the report files beside it, copied under their proper names
    into ``folder`` (made anew)."""
    parent = str(PurePosixPath(choice.name or "").parent)
    copies: list[tuple[Item, str]] = [(chosen, choice.graded_as)]
    for report in lab.report_files:
        near = [
            (-(copy_number(PurePosixPath(i.name).name, report) or 0), i)
            for i in items
            if not i.link
            and i is not chosen
            and str(PurePosixPath(i.name).parent) == parent
            and copy_number(PurePosixPath(i.name).name, report) is not None
        ]
        if near:
            best = min(near, key=lambda n: (n[0], n[1].name))[1]
            copies.append((best, report))
            if PurePosixPath(best.name).name != report:
                notes.append(text("handin.renamed", lang, found=best.name, module=report))
    folder.mkdir(parents=True, exist_ok=True)
    for item, name in copies:
        limit = notebook.MAX_NOTEBOOK if notebook.is_notebook(name) else MAX_MODULE
        try:
            read = safefs.read_regular(str(item.path), limit + 1)
        except OSError as exc:
            detail = text("batch.unreadable", lang, error=submissions.os_error(exc))
            return with_(base, problem=UNREADABLE, detail=detail)
        target = folder / name
        if target.exists() or target.is_symlink():
            target.unlink()
        with open(target, "xb") as out:
            out.write(read.data)
    return with_(
        base,
        source=folder,
        module=folder / choice.graded_as,
        report_dir=folder,
        report_files=lab.report_files,
        notes=tuple(notes),
        within=folder,
    )


def with_(base: Submission, **changes: object) -> Submission:
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]
