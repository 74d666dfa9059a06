"""The check of the module's import: it imported, raised, hung or stopped the process."""

from __future__ import annotations

from collections.abc import Callable

from grader.engine.grading.scoring import Draft
from grader.engine.sandbox import DISK_DETAIL, DISK_FILES, DISK_MB, Loaded
from grader.engine.vocabulary import show
from grader.engine.vocabulary.contract import MODULE
from grader.engine.vocabulary.results import Status


def load_draft(
    loaded: Loaded,
    msg: Callable[..., str],
    portable: Callable[[str | None], str | None],
    timeout: float,
) -> Draft:
    """The ``imports.load`` check of what importing the module gave."""
    if loaded.ok:
        d = Draft(
            "imports.load",
            0,
            MODULE,
            Status.PASS,
            msg("import_ok", elapsed="%.2f" % loaded.elapsed),
            replay=False,
        )
    elif loaded.timed_out:
        d = Draft(
            "imports.load",
            0,
            MODULE,
            Status.TIMEOUT,
            msg("import_timeout", seconds="%g" % timeout),
            code="import_timeout",
        )
    elif loaded.error is None:
        # import_disk: the import passed the child's share of disk
        code = "import_disk" if loaded.detail == DISK_DETAIL else "import_crashed"
        detail = portable(loaded.traceback) or loaded.detail or "no answer"
        d = Draft(
            "imports.load",
            0,
            MODULE,
            Status.ERROR,
            msg(code, detail=detail, mb=DISK_MB, files=DISK_FILES),
            code=code,
        )
    else:
        d = Draft(
            "imports.load",
            0,
            MODULE,
            Status.ERROR,
            msg(
                "import_error",
                raised=loaded.error.type,
                error=show.short(loaded.error.message, 300),
            ),
            code="import_error",
            details={"traceback": portable(loaded.traceback)},
        )
    if loaded.output:
        d.details["output"] = loaded.output
    return d
