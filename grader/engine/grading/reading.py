"""What grading reads of a submission: the module's bytes, or a notebook's cells as
the module, never through a link when the submission's folder is given."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from grader.engine import safefs
from grader.engine.grading.runoptions import UsageError
from grader.engine.handin import is_notebook
from grader.engine.sandbox import MAX_MODULE

if TYPE_CHECKING:
    from grader.engine.handin.notebook import Cells


def read(path: Path, within: Path | None) -> tuple[bytes | None, Cells | None]:
    """The module's bytes (None: the sandbox reads ``path``) and, for a notebook, its
    cells; a ``UsageError`` when there is nothing that can be graded."""
    if not is_notebook(path):
        return read_submission(path, within), None
    from grader.engine.handin import notebook

    try:
        cells = notebook.load(path, within)
    except notebook.NotebookError as exc:
        raise UsageError(exc.code, **exc.params) from None
    except safefs.NotRegular as exc:
        raise _refused(exc, within or path.parent) from None
    except (ValueError, FileNotFoundError, NotADirectoryError, IsADirectoryError):
        raise UsageError("cli.no_file", path=path) from None
    except OSError as exc:
        raise UsageError("batch.unreadable", error=exc.strerror or str(exc)) from None
    return cells.source.encode("utf-8"), cells


def read_submission(path: Path, within: Path | None) -> bytes | None:
    """The module's bytes read without following a link, when ``within`` is given
    (None otherwise: the sandbox reads the path given); a ``UsageError`` when it is
    not a regular file reached without a link."""
    if within is None:
        if not path.is_file():
            raise UsageError("cli.no_file", path=path)
        return None
    try:
        return safefs.read_below(str(within), str(path), MAX_MODULE + 1).data
    except safefs.NotRegular as exc:
        raise _refused(exc, within) from None
    except (ValueError, FileNotFoundError, NotADirectoryError):
        raise UsageError("cli.no_file", path=path) from None
    except OSError as exc:
        raise UsageError("batch.unreadable", error=exc.strerror or str(exc)) from None


def check_report_dir(folder: Path, within: Path | None) -> None:
    """A ``UsageError`` when a link stands between ``within`` and ``folder``."""
    if within is None:
        return
    try:
        safefs.check_dir_below(str(within), str(folder))
    except safefs.NotRegular as exc:
        raise _refused(exc, within) from None
    except (ValueError, OSError):
        pass  # outside or missing: the report checks say the files are not there


def _refused(exc: safefs.NotRegular, within: Path) -> UsageError:
    """The refusal, naming the file as the student has it: inside their folder."""
    shown = os.path.relpath(exc.filename, within)
    if exc.strerror == "a symbolic link":
        return UsageError("submission.link", path=shown)
    return UsageError("submission.special", path=shown, kind=exc.strerror)
