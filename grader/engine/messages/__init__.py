"""Message catalogues: every text the grader prints, by stable code, per language.

The engine's own texts are here; each lab adds a folder of its own (``add``), with
the texts of its checks, hints and steps.  ``en.json`` is complete by definition;
``ko.json`` and ``zh.json`` must hold the same codes (a test checks it).  Placeholders
use ``str.format`` names.  This package imports the standard library only.

Its modules may import, of the grader: none.
"""

from __future__ import annotations

import functools
import json
import locale
import os
import string
from pathlib import Path
from typing import Any

LANGUAGES = ("en", "ko", "zh")
HERE = Path(__file__).resolve().parent
_FOLDERS: list[Path] = [HERE]  # the engine's catalogues, then each lab's


def add(folder: Path) -> None:
    """Add a lab's catalogues (``folder/LANG.json``) to every language's table."""
    folder = Path(folder).resolve()
    if folder not in _FOLDERS:
        _FOLDERS.append(folder)
        catalogue.cache_clear()


def read(folder: Path, lang: str) -> dict[str, str]:
    """One folder's catalogue of ``lang`` (empty when it has none)."""
    try:
        text = (folder / ("%s.json" % lang)).read_text("utf-8")
    except FileNotFoundError:
        return {}
    data: dict[str, str] = json.loads(text)
    return data


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    merged: dict[str, str] = {}
    for folder in _FOLDERS:
        merged.update(read(folder, lang))
    return merged


@functools.lru_cache(maxsize=8)
def anchors(folder: Path) -> dict[str, dict[str, str]]:
    """Where a lab's instructions explain each step, per language (``steps.json``)."""
    try:
        found: dict[str, dict[str, str]] = json.loads((folder / "steps.json").read_text("utf-8"))
    except FileNotFoundError:
        return {}
    return found


def text(code: str, lang: str = "en", **params: Any) -> str:
    """The message ``code`` in ``lang`` (English when missing), filled with ``params``.

    With ``n`` equal to 1 the message ``code.one`` is used where there is one (the
    singular: "1 case passed").
    """
    if params.get("n") == 1 and code + ".one" in catalogue("en"):
        code += ".one"
    template = catalogue(lang).get(code) or catalogue("en").get(code)
    if template is None:
        raise KeyError("no message %r" % code)
    try:
        return _fill(template, params) if lang == "ko" else template.format(**params)
    except (KeyError, IndexError, ValueError):
        return catalogue("en")[code].format(**params)


def _fill(template: str, params: dict[str, Any]) -> str:
    """``template.format(**params)`` with each Korean particle of the template written in
    both forms (``{fn}을(를)``) chosen by the text before it.  Only the template's own
    text is read for particles, never a value put into it."""
    from grader.engine.messages import korean  # only a Korean text reads particles

    out = ""
    formatter = string.Formatter()
    for literal, field, spec, conversion in formatter.parse(template):
        out += korean.resolve(literal, out)
        if field is not None:
            value, _ = formatter.get_field(field, (), params)
            value = formatter.convert_field(value, conversion)
            out += formatter.format_field(value, spec or "")
    return out


def kind(code: str, lang: str = "en") -> str:
    """The kind of mistake a failure code stands for, in words (``kind.CODE``)."""
    if catalogue("en").get("kind." + code) is None:
        return text("kind.other", lang)
    return text("kind." + code, lang)


def default_language() -> str:
    """The language of the user's locale when it is one we have, else English."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(name, "")
        if value:
            return _pick(value)
    try:
        value = locale.getlocale()[0] or ""
    except ValueError:
        value = ""
    return _pick(value)


def _pick(value: str) -> str:
    code = value.split(":")[0].split("_")[0].split(".")[0].lower()
    return code if code in LANGUAGES else "en"
