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
``EMBED_GRADER_SANDBOX`` override the file.  The module is found by the rule every
grading uses (``grader.engine.handin.finding``): a module uploaded under a name a
browser or an editor gives a copy (``embed (1).py``, ``embed-2.py``, ``Embed.py``,
``embed.py.txt``) or as the only file of ``src/`` is graded with a note, a ``.zip``
is unpacked within limits or refused with the reason; when there is no module at
all, the results list what came.  A fault of the grader or of the configuration
writes no results: Gradescope then shows that the autograder failed, and no grade
is recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from grader.engine import safefs
from grader.engine.frozen import frozen
from grader.engine.grading.grade import UsageError, grade
from grader.engine.handin import notebook
from grader.engine.lab import Lab, find
from grader.engine.messages import LANGUAGES, text
from grader.engine.output.render import render_text
from grader.engine.output.systems import VISIBILITIES, clean, gradescope_results
from grader.engine.sandbox import MAX_MODULE

CONFIG_FILE = "gradescope.json"
SEARCH_DEPTH = 3
LISTED = 20  # files named when no module is found


@frozen
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


def copy_name(name: str, module_file: str) -> bool:
    """A file name that a browser, an editor or a person gives a copy of ``module_file``:
    ``embed (1).py``, ``embed(2).py``, ``embed-1.py``, ``embed_copy.py``, ``Embed.py``,
    ``embed.py.txt`` (see ``grader.engine.handin.finding``)."""
    from grader.engine.handin.finding import copy_number

    return copy_number(name, module_file) is not None


@frozen
class Found:
    module: Path | None  # what to grade
    renamed_from: str = ""  # the name it was uploaded under, when that was not the module's
    listing: tuple[str, ...] = ()  # what came, when nothing is graded
    why: str = ""  # why nothing is graded, when the listing does not say it
    others: tuple[str, ...] = ()  # what else came, not graded


def find_submission(folder: Path, module_file: str, lang: str = "en") -> Found:
    """The module in the submission folder, by the rule every grading uses
    (``grader.engine.handin.finding``); a copy's name is copied to the module's name
    beside itself, and a ``.zip`` is unpacked (within limits) when nothing else is
    gradable."""
    from grader.engine.batch.handins import walk
    from grader.engine.handin import archives, is_archive
    from grader.engine.handin.finding import choose
    from grader.engine.handin.submissions import notebook_name, some

    items = walk(folder)
    names = [i.name for i in items]
    choice = choose(names, module_file, notebook_name(module_file))
    base = folder
    if choice.name is None and not choice.several:
        for item in items:
            if not is_archive(item.name) or item.link:
                continue
            target = folder / "_unpacked" / item.name.replace("/", "_")
            try:
                target.mkdir(parents=True)
                archives.unpack(item.path, target)
            except archives.Refused as exc:
                return Found(None, why=text(exc.code, lang, archive=item.name, **exc.params))
            except OSError:
                continue
            inside = walk(target)
            picked = choose([i.name for i in inside], module_file, notebook_name(module_file))
            if picked.name is not None:
                items, choice, base = inside, picked, target
                break
    if choice.several:
        why = text("handin.several", lang, module=module_file, files=some(choice.several))
        return Found(None, listing=tuple(names), why=why)
    if choice.name is None:
        return Found(None, listing=tuple(names))
    chosen = next(i for i in items if i.name == choice.name)
    if not choice.renamed:
        return Found(chosen.path, others=choice.others)
    target = chosen.path.parent / choice.graded_as
    try:
        limit = notebook.MAX_NOTEBOOK if notebook.is_notebook(choice.graded_as) else MAX_MODULE
        data = safefs.read_below(str(base), str(chosen.path), limit + 1).data
        if len(data) <= limit and not (target.exists() or target.is_symlink()):
            with open(target, "xb") as out:
                out.write(data)
            shown = chosen.path.relative_to(folder).as_posix()
            return Found(target, shown, others=choice.others)
    except (OSError, ValueError):
        pass
    return Found(None, listing=tuple(names))


# The run ----------------------------------------------------------------------------------


def not_found(found: Found, lab: Lab, lang: str) -> dict[str, Any]:
    """The results of a submission with no module: what came, and what to upload."""
    names = list(found.listing[:LISTED])
    if len(found.listing) > LISTED:
        names.append("… (+%d)" % (len(found.listing) - LISTED))
    params = {"module": lab.module_file, "reports": ", ".join(lab.report_files)}
    if found.why:
        message = found.why
    elif names:
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
    found = find_submission(submission, lab.module_file, lang)
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
    others = _not_reports(found.others, lab)
    if others:
        note = text("handin.others", lang, files=", ".join(others))
        data["output"] = clean(note) + "\n\n" + data["output"]
    if found.renamed_from:
        note = text("gradescope.renamed", lang, found=found.renamed_from, module=found.module.name)
        data["output"] = clean(note) + "\n\n" + data["output"]
    return data


def _not_reports(names: Sequence[str], lab: Lab) -> list[str]:
    return [n for n in names if Path(n).name not in lab.report_files][:LISTED]


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
