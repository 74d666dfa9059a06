"""A batch's output as ``merge`` reads it: untrusted.

Shards run next to student code (a CI job that graded it uploads its output folder), so
nothing in ``rows.json`` or ``feedback/`` is believed as it is.  Every file is read
without following a link (``safefs``), refused unread past a fixed number of bytes,
parsed in linear time with its depth bounded, and checked field by field: a row's id must be one that
discovery makes (one name, no folder, no ``..``), its points must add up to its total,
no step may hold more than the lab gives it, its maximum must be the lab's, and its
points must be those of the checks in its own ``feedback/ID.json``.  What fails is
refused (:class:`Refused`, with the reason) and merge goes on without it.
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
from pathlib import Path
from typing import Any, TypeGuard

from grader.engine import safefs
from grader.engine.batch.rows import STATUSES, UNSCORED, Row
from grader.engine.frozen import frozen
from grader.engine.handin.submissions import MISSING, REFUSED, UNREADABLE
from grader.engine.lab import Lab
from grader.engine.messages import LANGUAGES, text

RECORD = "rows.json"
MAX_RECORD = 256 << 20  # bytes of rows.json: some 50,000 rows of a lab of many checks
MAX_ROWS = 200_000
MAX_FEEDBACK = 16 << 20  # bytes of feedback/ID.txt or ID.json
RECORD_DEPTH = 6  # the record, its rows, an entry, its row, a list in it, a pair
FEEDBACK_DEPTH = 64  # a check's details hold values of the student's functions
MAX_TEXT = 1 << 20  # characters of a row's detail
MAX_LIST = 100_000  # failing checks of one row, and the functions each follows from
# An id as discovery makes it (submissions.safe_id and _unique): one name of letters,
# digits and ``.@+-_`` that does not start with ``.`` or ``_``.
ID = re.compile(r"(?![._])[\w.@+-]{1,120}")
NO_POINTS = (MISSING, UNREADABLE, REFUSED, *UNSCORED)  # statuses of rows not graded
# A row's fields: those every row has, and those a row may leave out (their defaults).
ROW_FIELDS = frozenset(("id", "status", "total", "max", "steps", "seed", "seconds"))
ROW_OPTIONAL = frozenset(("detail", "failing", "follows", "who"))
MAX_WHO = 32  # fields of whose a row is, each at most MAX_NAME characters
MAX_NAME = 1000
ROUNDING = 0.006  # a step's points are rounded to hundredths: its total is not


class Refused(Exception):
    """A shard's file or row that merge does not take: why, as a message of the
    catalogue (``merge.why.CODE``) and its values."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    def message(self, lang: str = "en") -> str:
        return text("merge.why." + self.code, lang, **self.params)

    def __str__(self) -> str:
        return self.message()


def too_deep(value: Any, limit: int) -> bool:
    """Whether the parsed JSON ``value`` nests its arrays and objects more than ``limit``
    deep (a value that is one of them is one deep): level by level, no recursion, each
    value seen once."""
    level, items = 1, [value]
    while items:
        if level > limit:
            return True
        below: list[Any] = []
        for item in items:
            inner = item.values() if isinstance(item, dict) else item
            below += [v for v in inner if isinstance(v, (list, dict))]
        level, items = level + 1, below
    return False


def parse(data: bytes, name: str, most_depth: int) -> Any:
    """The JSON text ``data`` of the file ``name``, nesting at most ``most_depth`` deep.
    The parser itself stops at the interpreter's recursion limit, in linear time."""
    try:
        value = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except RecursionError:
        raise Refused("deep", name=name, limit=most_depth) from None
    except ValueError as exc:
        raise Refused("json", name=name, error=str(exc)[:200]) from None
    if isinstance(value, (list, dict)) and too_deep(value, most_depth):
        raise Refused("deep", name=name, limit=most_depth)
    return value


def read_json(folder: Path, name: str, limit: int, most_depth: int) -> Any:
    """The JSON file ``folder/name``: a regular file reached without a link, at most
    ``limit`` bytes, nesting at most ``most_depth`` deep.  ``FileNotFoundError`` when it
    is not there; ``Refused`` when it is not such a file."""
    return parse(read_bytes(folder, name, limit), name, most_depth)


def read_bytes(folder: Path, name: str, limit: int) -> bytes:
    """The regular file ``folder/name`` (``name`` one name or ``feedback/NAME``), reached
    from ``folder`` without a link on the way; refused unread when it holds more than
    ``limit`` bytes."""
    *below, last = name.split("/")
    try:
        # The folder as merge was given it; below it, no link is followed.
        where = safefs.open_dir_below(str(folder.resolve()), below)
        try:
            fd = safefs.open_regular(last, dir_fd=where)
        finally:
            os.close(where)
        try:
            size = os.fstat(fd).st_size
            if size > limit:
                raise Refused("size", name=name, size=size, limit=limit)
            got = safefs.read_fd(fd, limit + 1)
        finally:
            os.close(fd)
    except safefs.NotRegular:
        raise Refused("link", name=name) from None
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise FileNotFoundError(errno.ENOENT, "no such file", str(folder / name)) from None
        raise Refused("unreadable", name=name, error=exc.strerror or type(exc).__name__) from None
    if got.size > limit:  # it grew while read
        raise Refused("size", name=name, size=got.size, limit=limit)
    return got.data


def _no_constant(name: str) -> Any:
    raise ValueError("%s is not a number" % name)


@frozen
class Record:
    """What a shard's ``rows.json`` says of the batch, and its entries, unchecked."""

    out: Path
    seed: int
    seed_per_student: bool
    lab: str
    lang: str | None
    shard: tuple[int, int] | None
    sandbox: str
    seconds: float
    entries: list[Any]


def record(out: Path) -> Record:
    """The shard's ``rows.json`` (FileNotFoundError: it has none; Refused: not such a file)."""
    data = read_json(out, RECORD, MAX_RECORD, RECORD_DEPTH)
    if not isinstance(data, dict):
        raise Refused("field", name=RECORD, field="{}", got=_shown(type(data).__name__))
    entries = data.get("rows")
    if not isinstance(entries, list) or len(entries) > MAX_ROWS:
        raise Refused("field", name=RECORD, field="rows", got=_shown(type(entries).__name__))
    shard = data.get("shard")
    if shard is not None:
        if not (
            isinstance(shard, list)
            and len(shard) == 2
            and all(_is_int(k) for k in shard)
            and 1 <= shard[0] <= shard[1] <= MAX_ROWS
        ):
            raise Refused("field", name=RECORD, field="shard", got=_shown(shard))
        shard = (shard[0], shard[1])
    lang = data.get("lang")
    if lang is not None and lang not in LANGUAGES:
        raise Refused("field", name=RECORD, field="lang", got=_shown(lang))
    seconds = data.get("seconds", 0.0)
    if not _is_number(seconds) or seconds < 0:
        raise Refused("field", name=RECORD, field="seconds", got=_shown(seconds))
    for key, want in (("seed", int), ("seed_per_student", bool), ("lab", str)):
        value = data.get(key)
        if not (isinstance(value, want) and (want is bool or not isinstance(value, bool))):
            raise Refused("field", name=RECORD, field=key, got=_shown(value))
    sandbox = data.get("sandbox", "process")
    if not (isinstance(sandbox, str) and re.fullmatch(r"[a-z]{1,20}", sandbox)):
        raise Refused("field", name=RECORD, field="sandbox", got=_shown(sandbox))
    return Record(
        out,
        data["seed"],
        data["seed_per_student"],
        data["lab"],
        lang,
        shard,
        sandbox,
        float(seconds),
        entries,
    )


@frozen
class Entry:
    """One checked row of a shard, with the feedback files it was checked against."""

    row: Row
    position: int
    module: str | None
    feedback: dict[str, str]  # "txt", "json": the files' text, as read once


def ident_of(raw: Any) -> str | None:
    """The entry's id when it is one discovery makes, else None."""
    ident = _raw_id(raw)
    return ident if isinstance(ident, str) and ID.fullmatch(ident) else None


def entry(out: Path, raw: Any, lab: Lab) -> Entry:
    """The entry ``raw`` of the shard ``out``, checked (see the module's docstring)."""
    if not isinstance(raw, dict) or set(raw) - {"row", "position", "module"}:
        raise Refused("fields", fields="row, position, module")
    ident = ident_of(raw)
    if ident is None:
        raise Refused("id", got=_shown(_raw_id(raw), 300))
    position = raw.get("position", 0)
    if not _is_int(position) or not 0 <= position <= 10 * MAX_ROWS:
        raise Refused("field", name=ident, field="position", got=_shown(position))
    module = raw.get("module")
    if module is not None and not _module_path(module):
        raise Refused("field", name=ident, field="module", got=_shown(module))
    row = _row(raw["row"], lab)
    feedback: dict[str, str] = {}
    for ext in ("txt", "json"):
        name = "%s.%s" % (ident, ext)
        try:
            data = read_bytes(out, "feedback/" + name, MAX_FEEDBACK)
        except FileNotFoundError:
            continue
        try:
            feedback[ext] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("utf8", name="feedback/" + name) from None
    parsed = None
    if "json" in feedback:
        parsed = parse(feedback["json"].encode("utf-8"), "feedback/%s.json" % ident, FEEDBACK_DEPTH)
    _check_points(row, parsed, lab)
    return Entry(row, position, module, feedback)


def _row(data: Any, lab: Lab) -> Row:
    if not isinstance(data, dict) or not ROW_FIELDS <= set(data) <= ROW_FIELDS | ROW_OPTIONAL:
        raise Refused("fields", fields=", ".join(sorted(ROW_FIELDS | ROW_OPTIONAL)))
    data = {"detail": "", "failing": [], "follows": {}, "who": {}, **data}
    if data["status"] not in STATUSES:
        raise Refused("field", name=data["id"], field="status", got=_shown(data["status"]))
    for key in ("total", "max", "seconds"):
        if not _is_number(data[key]) or data[key] < 0:
            raise Refused("field", name=data["id"], field=key, got=_shown(data[key]))
    if not _is_int(data["seed"]):
        raise Refused("field", name=data["id"], field="seed", got=_shown(data["seed"]))
    if not isinstance(data["detail"], str) or len(data["detail"]) > MAX_TEXT:
        raise Refused(
            "field", name=data["id"], field="detail", got=_shown(type(data["detail"]).__name__)
        )
    failing = data["failing"]
    if not (
        isinstance(failing, list)
        and len(failing) <= MAX_LIST
        and all(
            isinstance(f, list) and len(f) == 2 and all(isinstance(s, str) for s in f)
            for f in failing
        )
    ):
        raise Refused("field", name=data["id"], field="failing", got=_shown(failing))
    follows = data["follows"]
    if not (
        isinstance(follows, dict)
        and len(follows) <= MAX_LIST
        and all(
            isinstance(v, list) and len(v) <= MAX_LIST and all(isinstance(s, str) for s in v)
            for v in follows.values()
        )
    ):
        raise Refused("field", name=data["id"], field="follows", got=_shown(follows))
    who = data["who"]
    if not (
        isinstance(who, dict)
        and len(who) <= MAX_WHO
        and all(
            isinstance(v, str) and len(k) <= MAX_NAME and len(v) <= MAX_NAME for k, v in who.items()
        )
    ):
        raise Refused("field", name=data["id"], field="who", got=_shown(who))
    steps = data["steps"]
    if not isinstance(steps, dict):
        raise Refused("field", name=data["id"], field="steps", got=_shown(steps))
    points: dict[int, float] = {}
    for key, value in steps.items():
        step = int(key) if re.fullmatch(r"[0-9]{1,3}", key) else -1
        if step not in lab.steps:
            raise Refused("no_step", step=_shown(key))
        if not _is_number(value) or not 0 <= value <= lab.steps[step] + 1e-9:
            raise Refused("step", step=step, got=_shown(value), most=lab.steps[step])
        points[step] = float(value)
    if data["max"] != lab.max_score:
        raise Refused("max", got=_shown(data["max"]), want=lab.max_score)
    total = float(data["total"])
    if abs(total - sum(points.values())) > ROUNDING * max(1, len(points)):
        raise Refused("total", got=_shown(total), sum=_shown(round(sum(points.values()), 2)))
    if data["status"] in NO_POINTS and total > 0:
        raise Refused("no_points", got=_shown(total), status=data["status"])
    values = dict(data)
    values["steps"] = points
    values["total"] = total
    values["max"] = float(data["max"])
    values["seconds"] = float(data["seconds"])
    values["failing"] = [list(f) for f in failing]
    values["follows"] = {k: list(v) for k, v in follows.items()}
    values["who"] = dict(who)
    return Row(**values)


def _check_points(row: Row, data: Any, lab: Lab) -> None:
    """The row's points are those of the checks in its feedback file."""
    if not row.total and not any(row.steps.values()):
        return  # no points: nothing a forged file could give
    name = "feedback/%s.json" % row.id
    if data is None:
        raise Refused("no_feedback", name=name)
    checks = data.get("checks") if isinstance(data, dict) else None
    if not isinstance(checks, list):
        raise Refused("checks", name=name)
    got: dict[int, float] = {}
    most: dict[int, float] = {}
    for c in checks:
        if not isinstance(c, dict):
            raise Refused("checks", name=name)
        step, points, top = c.get("step"), c.get("points"), c.get("max_points")
        if not (_is_int(step) and _is_number(points) and _is_number(top) and 0 <= points <= top):
            raise Refused("checks", name=name)
        got[step] = got.get(step, 0.0) + points
        most[step] = most.get(step, 0.0) + top
    for step, top in most.items():
        if step not in lab.steps or top > lab.steps[step] + ROUNDING:
            raise Refused("checks", name=name)
    for step in set(got) | set(row.steps):
        if abs(got.get(step, 0.0) - row.steps.get(step, 0.0)) > ROUNDING:
            raise Refused("checks", name=name)
    score = data.get("score") if isinstance(data, dict) else None
    if not _is_number(score) or abs(score - row.total) > 1e-6:
        raise Refused("checks", name=name)


def _raw_id(raw: Any) -> Any:
    row = raw.get("row") if isinstance(raw, dict) else None
    return row.get("id") if isinstance(row, dict) else None


def _module_path(value: Any) -> bool:
    """A path that discovery could have found a module at (as its batch named it,
    relative to where it ran or not): a Python file or a notebook, on one line.  It is
    only read, by the similarity pass, without following a link."""
    if not isinstance(value, str) or len(value) > 4096 or "\0" in value or "\n" in value:
        return False
    return Path(value).suffix in (".py", ".ipynb")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> TypeGuard[float]:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and abs(value) < 1e12
    )


def _shown(value: Any, most: int = 60) -> str:
    """A value of a shard's file in a message: its repr, shortened."""
    text = repr(value)
    return text if len(text) <= most else text[: most - 3] + "..."
