"""Message catalogues: every text the grader prints, by stable code, per language.

``en.json`` is complete by definition; ``ko.json`` and ``zh.json`` must hold the same
codes (a test checks it).  Placeholders use ``str.format`` names.
"""

from __future__ import annotations

import functools
import json
import locale
import os
from importlib import resources
from typing import Any

LANGUAGES = ("en", "ko", "zh")


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    try:
        text = resources.files(__name__).joinpath("%s.json" % lang).read_text("utf-8")
    except FileNotFoundError:
        return {}
    data: dict[str, str] = json.loads(text)
    return data


def text(code: str, lang: str = "en", **params: Any) -> str:
    """The message ``code`` in ``lang`` (English when missing), filled with ``params``."""
    template = catalogue(lang).get(code) or catalogue("en").get(code)
    if template is None:
        raise KeyError("no message %r" % code)
    try:
        return template.format(**params)
    except (KeyError, IndexError, ValueError):
        return catalogue("en")[code].format(**params)


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
