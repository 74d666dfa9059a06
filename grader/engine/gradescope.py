"""Gradescope's runner: ``embed-grader gradescope [--root DIR] [--config FILE]``.

``run_autograder`` calls it for every submission.  It reads the course's choices
from ``gradescope.json`` in the autograder's ``source`` folder (the bundle), finds the
student's module in ``submission/``, grades it and writes ``results/results.json``.

The configuration (every key optional; ``ci-templates/gradescope/gradescope.json``
lists them with their defaults):

- ``seed``: one seed for every submission (null: a new one each time, shown in the
  results);
- ``lang``: ``en``, ``ko`` or ``zh``;
- ``timeout`` and ``max_seconds``: the time limit of one call, and of everything done
  with the module (null: ten time limits);
- ``upto``: grade steps 1..N only (null: every step);
- ``sandbox``: the child's isolation (``auto`` by default);
- ``visibility``: ``{"default": V, "STEP": V, ...}``, each V one of ``visible``,
  ``after_due_date``, ``after_published`` and ``hidden`` (Gradescope's own words).

The environment variables ``EMBED_GRADER_SEED``, ``EMBED_GRADER_LANG`` and
``EMBED_GRADER_SANDBOX`` override the file.  A module uploaded under a name a
browser or an editor gives a copy (``embed (1).py``, ``embed-2.py``, ``Embed.py``)
is graded when it is the only such file, with a note; when there is no module at
all, the results list what came.  A fault of the grader or of the configuration
writes no results: Gradescope then shows that the autograder failed, and no grade
is recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.engine import notebook, safefs
from grader.engine.formats import VISIBILITIES, clean, gradescope_results
from grader.engine.grading import UsageError, grade
from grader.engine.lab import Lab, find
from grader.engine.messages import LANGUAGES, text
from grader.engine.render import render_text
from grader.engine.sandbox import MAX_MODULE

CONFIG_FILE = "gradescope.json"
SEARCH_DEPTH = 3
LISTED = 20  # files named when no module is found


@dataclass(frozen=True)
class Config:
    seed: int | None = None
    lang: str = "en"
    timeout: float = 3.0
    max_seconds: float | None = None
    upto: int | None = None
    sandbox: str = "auto"
    visibility: Mapping[int, str] = field(default_factory=dict)


def _number(key: str, value: Any, nullable: bool = False) -> float | None:
    if value is None and nullable:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError('"%s" must be a number above 0%s' % (key, " or null" if nullable else ""))
    return float(value)


def parse_config(data: Any, lab: Lab) -> Config:
    """The configuration in ``data`` (a JSON object); a ``ValueError`` says what is wrong."""
    from grader.engine.sandbox import CHOICES

    if not isinstance(data, dict):
        raise ValueError("the configuration must be a JSON object")
    known = {"seed", "lang", "timeout", "max_seconds", "upto", "sandbox", "visibility"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(
            "unknown keys %s (known: %s)" % (", ".join(unknown), ", ".join(sorted(known)))
        )
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise ValueError('"seed" must be a whole number of 0 or more, or null')
    lang = data.get("lang", "en")
    if lang not in LANGUAGES:
        raise ValueError('"lang" must be one of %s' % ", ".join(LANGUAGES))
    upto = data.get("upto")
    if upto is not None and (isinstance(upto, bool) or upto not in lab.steps or upto < 1):
        raise ValueError('"upto" must be a step from 1 to %d, or null' % max(lab.steps))
    sandbox = data.get("sandbox", "auto")
    if sandbox not in CHOICES:
        raise ValueError('"sandbox" must be one of %s' % ", ".join(CHOICES))
    return Config(
        seed=seed,
        lang=lang,
        timeout=_number("timeout", data.get("timeout", 3.0)) or 3.0,
        max_seconds=_number("max_seconds", data.get("max_seconds"), nullable=True),
        upto=upto,
        sandbox=sandbox,
        visibility=_visibility(data.get("visibility", {}), lab),
    )


def _visibility(data: Any, lab: Lab) -> dict[int, str]:
    if not isinstance(data, dict):
        raise ValueError('"visibility" must be an object: {"default": ..., "STEP": ...}')
    wrong = sorted(k for k in data if k != "default" and k not in {str(s) for s in lab.steps})
    if wrong:
        raise ValueError('"visibility" has keys that are no step: %s' % ", ".join(wrong))
    bad = sorted(k for k, v in data.items() if v not in VISIBILITIES)
    if bad:
        raise ValueError(
            '"visibility" of %s must be one of %s' % (", ".join(bad), ", ".join(VISIBILITIES))
        )
    default = data.get("default", "visible")
    return {s: str(data.get(str(s), default)) for s in sorted(lab.steps)}


def load_config(path: Path, lab: Lab) -> Config:
    """The configuration file at ``path`` (the defaults when there is none), with the
    environment's overrides."""
    data: Any = {}
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError("cannot read %s: %s" % (path.name, exc)) from None
    if isinstance(data, dict):
        data = dict(data)
        env = os.environ
        if env.get("EMBED_GRADER_SEED"):
            data["seed"] = int(env["EMBED_GRADER_SEED"])
        for key in ("lang", "sandbox"):
            if env.get("EMBED_GRADER_" + key.upper()):
                data[key] = env["EMBED_GRADER_" + key.upper()]
    return parse_config(data, lab)


# Finding the module ---------------------------------------------------------------------


def _files(folder: Path) -> list[Path]:
    """Every regular file below ``folder`` (never through a link, no hidden names)."""
    found: list[Path] = []
    level = [folder]
    for _ in range(SEARCH_DEPTH):
        below: list[Path] = []
        for d in level:
            try:
                entries = sorted(d.iterdir())
            except OSError:
                continue
            for p in entries:
                if p.name.startswith(".") or p.is_symlink():
                    continue
                if p.is_dir():
                    below.append(p)
                elif p.is_file():
                    found.append(p)
        level = below
    return found


def copy_name(name: str, module_file: str) -> bool:
    """A file name that a browser, an editor or a person gives a copy of ``module_file``:
    ``embed (1).py``, ``embed(2).py``, ``embed-1.py``, ``embed_copy.py``, ``Embed.py``."""
    stem, dot, ext = module_file.rpartition(".")
    pattern = r"%s(?:\s*\(\d+\)|[ _-]?(?:\d+|copy))?%s%s" % (re.escape(stem), dot, re.escape(ext))
    return re.fullmatch(pattern, name, re.IGNORECASE) is not None


@dataclass(frozen=True)
class Found:
    module: Path | None  # what to grade
    renamed_from: str = ""  # the name it was uploaded under, when that was not the module's
    listing: tuple[str, ...] = ()  # what came, when nothing is graded


def find_submission(folder: Path, module_file: str) -> Found:
    """The module (else its notebook) in the submission folder: by its name, also a
    folder or two down, else the only file named like a copy of either (copied to its
    name beside itself)."""
    from grader.engine.batch.submissions import find_module, notebook_name

    names = (module_file, notebook_name(module_file))
    module = find_module(folder, names[0]) or find_module(folder, names[1])
    if module is not None:
        return Found(module)
    files = _files(folder)
    copies = [(p, n) for p in files for n in names if copy_name(p.name, n)]
    if len(copies) == 1 and not (copies[0][0].parent / copies[0][1]).exists():
        source, module_file = copies[0]
        try:
            limit = notebook.MAX_NOTEBOOK if module_file.endswith(notebook.SUFFIX) else MAX_MODULE
            data = safefs.read_below(str(folder), str(source), limit + 1).data
            if len(data) <= limit:
                with open(source.parent / module_file, "xb") as out:
                    out.write(data)
                return Found(source.parent / module_file, source.relative_to(folder).as_posix())
        except (OSError, ValueError):
            pass
    return Found(None, listing=tuple(p.relative_to(folder).as_posix() for p in files))


# The run ----------------------------------------------------------------------------------


def not_found(found: Found, lab: Lab, lang: str) -> dict[str, Any]:
    """The results of a submission with no module: what came, and what to upload."""
    names = list(found.listing[:LISTED])
    if len(found.listing) > LISTED:
        names.append("… (+%d)" % (len(found.listing) - LISTED))
    params = {"module": lab.module_file, "reports": ", ".join(lab.report_files)}
    if names:
        message = text("gradescope.no_module", lang, files=", ".join(names), **params)
    else:
        message = text("gradescope.empty", lang, **params)
    return {
        "score": 0,
        "output": clean(message),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
    }


def results_for(root: Path, config: Config, lab: Lab) -> dict[str, Any] | None:
    """The results of the submission in ``root/submission`` (None: the grader failed)."""
    submission = root / "submission"
    lang = config.lang
    found = find_submission(submission, lab.module_file)
    if found.module is None:
        return not_found(found, lab, lang)
    try:
        report = grade(
            found.module,
            seed=config.seed,
            report_dir=found.module.parent,
            timeout=config.timeout,
            max_seconds=config.max_seconds,
            upto=config.upto,
            lang=lang,
            isolation=config.sandbox,
            student_root=submission,
            within=submission,
            lab=lab.spec or None,
        )
    except UsageError as exc:  # the submission is a link, or unreadable
        data = not_found(Found(None), lab, lang)
        data["output"] = clean(text(exc.code, lang, **exc.params))
        return data
    if report.grader_error:
        print("grader error: %s" % report.grader_error, file=sys.stderr)
        return None
    print(render_text(report, lang, width=100))
    data = gradescope_results(report, lang, config.visibility)
    if found.renamed_from:
        note = text("gradescope.renamed", lang, found=found.renamed_from, module=found.module.name)
        data["output"] = clean(note) + "\n\n" + data["output"]
    return data


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="embed-grader gradescope", description=__doc__.split("\n")[0])
    p.add_argument("--root", default=os.environ.get("AUTOGRADER_ROOT", "/autograder"))
    p.add_argument("--config", help="default: ROOT/source/%s" % CONFIG_FILE)
    p.add_argument("--lab", default=None)
    args = p.parse_args(argv)
    root = Path(args.root)
    lab = find(args.lab)
    try:
        config = load_config(Path(args.config or root / "source" / CONFIG_FILE), lab)
    except ValueError as exc:
        print("embed-grader gradescope: %s: %s" % (CONFIG_FILE, exc), file=sys.stderr)
        return 2
    results = root / "results" / "results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    data = results_for(root, config, lab)
    if data is None:
        return 2
    tmp = results.with_name(".results.json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, results)
    return 0
