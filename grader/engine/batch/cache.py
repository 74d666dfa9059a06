"""``.cache.json``: a submission whose files, seed and options are unchanged, graded by
the same grader, is not graded again."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import Any

import grader
from grader import __version__
from grader.engine.batch.rows import BatchOptions, Row, write_atomic

CACHE_FILE = ".cache.json"
CACHE_FORMAT = 1


class Cache:
    """``.cache.json``: per submission id, the key of its last grading and its row."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        self.seed: int | None = None  # the batch seed of the last run
        self.dirty = False
        self.saved = time.monotonic()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") == CACHE_FORMAT and isinstance(data.get("entries"), dict):
                self.entries = data["entries"]
                if type(data.get("seed")) is int:
                    self.seed = data["seed"]
        except (OSError, ValueError, AttributeError):
            pass

    def get(self, ident: str, key: str) -> Row | None:
        entry = self.entries.get(ident)
        if not isinstance(entry, dict) or entry.get("key") != key:
            return None
        try:
            return Row.from_dict(entry["row"])
        except (KeyError, TypeError, ValueError):
            return None

    def put(self, ident: str, key: str, row: Row) -> None:
        self.entries[ident] = {"key": key, "row": row.to_dict()}
        self.dirty = True

    def keep(self, idents: set[str]) -> None:
        for ident in set(self.entries) - idents:
            del self.entries[ident]
            self.dirty = True

    def save_soon(self) -> None:
        """Save at most once a second: an interrupted batch keeps most of its work."""
        if self.dirty and time.monotonic() - self.saved > 1.0:
            self.save()

    def save(self) -> None:
        data = {"format": CACHE_FORMAT, "seed": self.seed, "entries": self.entries}
        write_atomic(self.path, json.dumps(data, ensure_ascii=False) + "\n")
        self.dirty = False
        self.saved = time.monotonic()


def grader_fingerprint() -> str:
    """The version and a hash of the grader's own files (the whole ``grader`` package,
    the labs included): any change regrades."""
    h = hashlib.sha256(__version__.encode())
    package = Path(grader.__file__).resolve().parent
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def cache_key(content: str, fingerprint: str, seed: int, opts: BatchOptions) -> str:
    what = {
        "files": content,
        "grader": fingerprint,
        "seed": seed,
        "timeout": opts.timeout,
        "max_seconds": opts.max_seconds,
        "python": opts.python,
        "lang": opts.lang,
        "lab": opts.lab,
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()
