"""The format of prepared cases: plain JSON, compressed, with long float lists pooled.

A value is JSON itself (null, bool, int, str, finite float, list) or an object with
one tag: ``$t`` a tuple, ``$d`` a dict (its items), ``$f`` a float that JSON cannot
hold (nan, inf, -inf), ``$p`` an entry of the pool, ``$s`` a list
some of whose items are one list object (``of``: the place of each in ``v``), ``$c`` an expectation (a
dataclass of the grader: its class and fields), ``$a`` an answer kind, and the
mistakes' answers ``$n`` (none: the mistake raises), ``$w`` (a named test) and ``$k``
(a mistake in one key of a dict).  The pool holds every list of at least
``POOL_FROM`` floats (little-endian doubles in base64) and every long list of pooled
lists, under a hash of its content, so a table used by many cases and runs is
stored, and read, once; every use of it is then the same object.
"""

from __future__ import annotations

import array
import base64
import dataclasses
import functools
import gzip
import hashlib
import importlib
import json
import math
import sys
from pathlib import Path
from typing import Any

from grader.engine.vocabulary.contract import Answer
from grader.engine.vocabulary.expect import Expectation
from grader.labs.embed.hintmatch import NO_ANSWER, OnlyKey, When

FORMAT = 1
POOL_FROM = 8
HERE = Path(__file__).resolve().parent
RUNS = HERE / "runs"  # where the student edition's wheel holds its prepared runs
COMMON = "common.json.gz"


def run_file(index: int) -> str:
    return "run-%04d.json.gz" % index


class Writer:
    """Encodes values, putting long lists into ``pool`` (key -> entry)."""

    def __init__(self) -> None:
        self.pool: dict[str, Any] = {}
        self.used: set[str] = set()  # the pool keys met since the last ``take``

    def take(self) -> set[str]:
        used, self.used = self.used, set()
        return used

    def _pooled(self, entry: Any, prefix: str) -> dict[str, str]:
        text = json.dumps(entry, sort_keys=True, separators=(",", ":"))
        key = prefix + hashlib.sha256(text.encode()).hexdigest()[:20]
        self.pool.setdefault(key, entry)
        self.used.add(key)
        return {"$p": key}

    def value(self, v: Any) -> Any:
        t = type(v)
        if v is None or t in (bool, int, str):
            return v
        if t is float:
            return v if math.isfinite(v) else {"$f": repr(v)}
        if t is list or t is tuple:
            items = self._items(v)
            return {"$t": items} if t is tuple else items
        if t is dict:
            return {"$d": [[self.value(k), self.value(x)] for k, x in v.items()]}
        if isinstance(v, Answer):
            return {"$a": v.value}
        if v is NO_ANSWER:
            return {"$n": 1}
        if isinstance(v, When):
            return {"$w": v.test, "v": self.value(v.params)}
        if isinstance(v, OnlyKey):
            return {"$k": v.key, "v": self.value(v.value)}
        if dataclasses.is_dataclass(v) and isinstance(v, Expectation):
            fields = {f.name: self.value(getattr(v, f.name)) for f in dataclasses.fields(v)}
            return {"$c": "%s:%s" % (t.__module__, t.__qualname__), "v": fields}
        raise TypeError("cannot store a %s" % t.__name__)

    def _items(self, v: list[Any] | tuple[Any, ...]) -> Any:
        rows = [id(x) for x in v if type(x) is list]
        if len(set(rows)) < len(rows):
            # Items that are one list object (rows of [row, row]): kept so, with ``$s``.
            first: dict[int, int] = {}
            distinct: list[Any] = []
            of = []
            for x in v:
                if type(x) is list and id(x) in first:
                    of.append(first[id(x)])
                    continue
                if type(x) is list:
                    first[id(x)] = len(distinct)
                of.append(len(distinct))
                distinct.append(x)
            return {"$s": of, "v": self._items(distinct)}
        if len(v) >= POOL_FROM and all(type(x) is float for x in v):
            doubles = array.array("d", v)
            if sys.byteorder == "big":
                doubles.byteswap()
            return self._pooled({"f64": base64.b64encode(doubles.tobytes()).decode()}, "f")
        items = [self.value(x) for x in v]
        if len(items) >= POOL_FROM and all(isinstance(x, dict) and "$p" in x for x in items):
            return self._pooled({"list": items}, "l")
        return items


def _own_rows(items: list[Any]) -> list[Any]:
    """The items, each list a list object of its own: pooled rows of equal content are
    one object when read, but only rows stored as one (``$s``) may be."""
    seen: set[int] = set()
    out = []
    for x in items:
        if type(x) is list:
            if id(x) in seen:
                x = list(x)
            seen.add(id(x))
        out.append(x)
    return out


class Reader:
    """Decodes values; each pool entry is decoded once and then shared."""

    def __init__(self, pool: dict[str, Any]) -> None:
        self.pool = pool
        self._decoded: dict[str, Any] = {}

    def value(self, v: Any) -> Any:
        if isinstance(v, list):
            return _own_rows([self.value(x) for x in v])
        if not isinstance(v, dict):
            return v
        if "$s" in v:
            distinct = self.value(v["v"])
            return [distinct[i] for i in v["$s"]]
        if "$p" in v:
            return self._entry(v["$p"])
        if "$t" in v:
            return tuple(self.value(v["$t"]))
        if "$d" in v:
            return {self.value(k): self.value(x) for k, x in v["$d"]}
        if "$f" in v:
            return float(v["$f"])
        if "$a" in v:
            return Answer(v["$a"])
        if "$n" in v:
            return NO_ANSWER
        if "$w" in v:
            return When(v["$w"], tuple(self.value(v["v"])))
        if "$k" in v:
            return OnlyKey(v["$k"], self.value(v["v"]))
        if "$c" in v:
            return _expectation(v["$c"])(**{k: self.value(x) for k, x in v["v"].items()})
        raise ValueError("unknown stored value %r" % sorted(v))

    def _entry(self, key: str) -> Any:
        if key not in self._decoded:
            entry = self.pool[key]
            if "f64" in entry:
                doubles = array.array("d")
                doubles.frombytes(base64.b64decode(entry["f64"]))
                if sys.byteorder == "big":
                    doubles.byteswap()
                self._decoded[key] = doubles.tolist()
            else:
                self._decoded[key] = _own_rows([self.value(x) for x in entry["list"]])
        return self._decoded[key]


@functools.lru_cache(maxsize=None)
def _expectation(name: str) -> type[Expectation]:
    """An expectation class of the grader by its stored name, and nothing else."""
    module, _, qualname = name.partition(":")
    if not module.startswith("grader."):
        raise ValueError("not a class of the grader: %s" % name)
    cls = getattr(importlib.import_module(module), qualname)
    if not (isinstance(cls, type) and issubclass(cls, Expectation)):
        raise ValueError("not an expectation: %s" % name)
    return cls


def write(path: Path, doc: Any) -> None:
    text = json.dumps(doc, separators=(",", ":"), ensure_ascii=True, allow_nan=False)
    # mtime 0: the same data makes the same bytes.
    path.write_bytes(gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0))


def read(path: Path) -> Any:
    return json.loads(gzip.decompress(path.read_bytes()).decode("ascii"))


class Prepared:
    """The prepared runs of one folder: the common part at once, each run when asked."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.common = read(folder / COMMON)
        if self.common.get("format") != FORMAT:
            raise ValueError("%s: prepared with another version of the grader" % folder)
        self.pool: dict[str, Any] = dict(self.common["pool"])
        self.reader = Reader(self.pool)
        self._runs: dict[int, Any] = {}

    @property
    def count(self) -> int:
        return int(self.common["runs"])

    def run(self, index: int) -> Any:
        if index not in self._runs:
            doc = read(self.folder / run_file(index))
            self.pool.update(doc["pool"])
            self._runs = {index: doc}  # one run at a time: a seed picks one
        return self._runs[index]

    def fixed(self) -> dict[str, Any]:
        out = {k: self.reader.value(v) for k, v in self.common["fixed"].items()}
        out["expected"] = tuple((key, value) for key, value in out["expected"])
        return out


@functools.lru_cache(maxsize=1)
def installed() -> Prepared:
    """The runs the student edition's wheel holds."""
    return Prepared(RUNS)


def fixed() -> dict[str, Any]:
    """The report's fixed values, as ``grader.labs.embed.fixed`` gives them."""
    return installed().fixed()
