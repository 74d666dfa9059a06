"""The check cells of an exercise notebook: grade the notebook itself, from inside it.

``check(2)`` in a cell of ``embed.ipynb`` runs ``embed-grader embed.ipynb --upto 2`` in
the notebook's folder (a separate process, as from a terminal) and prints its text
report in the notebook.  The grader reads the notebook's file, so what it grades is
the notebook as saved:

* in Colab the open notebook is not a file of the machine it runs on: ``check`` asks
  Colab for it and saves it in the working folder under the exercise's name first;
* in Jupyter (and VS Code) the notebook is the file the editor saved (its name from
  ``JPY_SESSION_NAME`` or ``__vsc_ipynb_file__`` when the editor gives one, else the
  exercise's own name in the working folder), and ``check`` says when it was saved,
  so that a student who has not saved sees why a fix does not show yet.

Nothing here runs student code: the grader does, in its own child process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from grader.engine.messages import text


def checker(notebook: str = "embed.ipynb", lang: str = "en") -> Callable[..., None]:
    """The ``check`` of a notebook: ``check(upto)`` grades steps 1..upto (all without);
    more words are more options, ``check(6, "--seed", "2026")``.  It returns nothing, so
    that the cell shows the report only."""

    def check(upto: int | None = None, *extra: str) -> None:
        """Grade this notebook as saved, steps 1 to ``upto`` (every step without it), and
        show the grader's report here.

        More arguments are the grader's options, each a string as on a command line::

            check(3)                     # steps 1 to 3
            check(3, "--verbose")        # also what the behaviour left open did
            check(6, "--seed", "2026")   # other random inputs
            check()                      # every step, the report files too

        Save the notebook first (Ctrl+S): the grader reads the file.
        """
        run(upto, notebook, lang, extra)

    return check


def run(
    upto: int | None = None,
    notebook: str = "embed.ipynb",
    lang: str = "en",
    extra: Sequence[str] = (),
) -> int:
    """Grade the notebook (steps 1..``upto``) and print the report; the exit status."""
    path, note = _notebook(notebook, lang)
    if path is None:
        print(note)
        return 2
    command = [sys.executable, "-m", "grader", path.name, "--lang", lang, *extra]
    if upto is not None:
        command += ["--upto", str(upto)]
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    done = subprocess.run(
        command, cwd=path.parent, env=env, capture_output=True, text=True, check=False
    )
    print(note)
    print(done.stdout.rstrip())
    if done.stderr.strip():
        print(done.stderr.rstrip(), file=sys.stderr)
    return done.returncode


def _notebook(default: str, lang: str) -> tuple[Path | None, str]:
    """The notebook's file, and a line that says which one and as of when."""
    colab = _colab()
    if colab is not None:
        path = Path.cwd() / default
        path.write_text(json.dumps(colab, ensure_ascii=False), encoding="utf-8")
        return path, text("nbcheck.colab", lang, path=path.name)
    for path in _candidates(default):
        if path.is_file():
            saved = time.strftime("%H:%M:%S", time.localtime(path.stat().st_mtime))
            return path, text("nbcheck.saved", lang, path=path.name, time=saved)
    return None, text("nbcheck.missing", lang, path=default, folder=str(Path.cwd()))


def _candidates(default: str) -> list[Path]:
    found = []
    session = os.environ.get("JPY_SESSION_NAME", "")
    if session.endswith(".ipynb"):
        found.append(Path(session))
    vscode = _user_ns().get("__vsc_ipynb_file__")
    if isinstance(vscode, str) and vscode.endswith(".ipynb"):
        found.append(Path(vscode))
    found.append(Path.cwd() / default)
    return found


def _user_ns() -> dict[str, Any]:
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    namespace = getattr(shell, "user_ns", None)
    return namespace if isinstance(namespace, dict) else {}


def _colab() -> dict[str, Any] | None:
    """The open notebook as Colab holds it, when this runs in Colab."""
    if "google.colab" not in sys.modules:
        return None
    try:
        from google.colab import _message  # noqa: PLC0415

        answer = _message.blocking_request("get_ipynb", request="", timeout_sec=60)
    except Exception:  # noqa: BLE001 - Colab's own channel: any failure means "not there"
        return None
    notebook = answer.get("ipynb") if isinstance(answer, dict) else None
    return notebook if isinstance(notebook, dict) else None
