"""The child side of the sandbox: imports a student module and runs calls on it.

Started by ``grader/engine/sandbox/child.py`` as ``PYTHON -I -S -B -c SOURCE-OF-THIS-FILE`` in a
fresh temporary directory that holds the child's own copy of the student's module.  Standard library only; runs on Python 3.8 and newer.
Every request and every answer is one line of JSON; see "The child protocol"
in docs/architecture.md.  Expected values never reach this process: it only
receives inputs and sends back what the student's code made of them.
"""

# Only what the child needs, and nothing that pulls in more: the interpreter starts
# once per submission (importlib.util would add contextlib, signal its enums).
import _signal
import _struct
import _thread
import array
import binascii
import builtins
import importlib.machinery
import itertools
import json
import math
import operator
import os
import stat
import sys
import time
import types

MYPY = False
if MYPY:  # names for type checking only; typing is not imported at run time
    from typing import Any

MAX_DEPTH = 8
MAX_ITEMS = 4000000
MAX_MESSAGE = 500
MAX_TYPE_NAME = 100
MAX_INT_BITS = 10000
MAX_TRACEBACK = 4000
STR_CHARS_PER_ITEM = 16
MAX_CONSTANT = 10000  # items of a constant's value sent after the import
MAX_NAMES = 64  # third-party names sent after the import
MAX_PRINTED = 300  # characters of a function's first printed output sent back
COUNT_PRINTED = 1 << 16  # bytes of one call's output in which its lines are counted
PACK_FROM = 8  # lists of at least this many floats travel as packed doubles

_NAME_OF = type.__dict__["__name__"].__get__  # a type's name without asking the type
_MRO_OF = type.__dict__["__mro__"].__get__
_FLOATISH = frozenset((float, int, bool))
_BIG_ENDIAN = sys.byteorder == "big"
_LEAVES = frozenset((float, int, bool, str, type(None)))
_CONTAINERS = frozenset((list, tuple, dict))
_NONE = type(None)
_ONLY_LISTS = {list}
_chain = itertools.chain.from_iterable
_repeat = itertools.repeat

# What the tracing wrappers and the counting floats write to, reset for every call.
# _TRACE holds the contract functions called, in the order of their first call.
_TRACE = {}  # type: dict[str, None]
_MULTS = [0]

# The child's own references to what it needs, taken before the student's code runs,
# so that replacing os.write, json.dumps, time.perf_counter or a builtin does not
# reach the protocol.  _shield() below also copies the builtins into this module.
_write = os.write
_truncate = os.ftruncate
_seek = os.lseek
_open = os.open
_read = os.read
_fstat = os.fstat
_pread = getattr(os, "pread", None)
_close = os.close
_mkdir = os.mkdir
_ISREG = stat.S_ISREG
_ISDIR = stat.S_ISDIR
_ISLNK = stat.S_ISLNK
_lstat = os.lstat
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_BINARY", 0)  # Windows: the bytes as written, no newline translation
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
)
_perf = time.perf_counter
_array = array.array
_Struct = _struct.Struct
_b2a = binascii.b2a_base64
_a2b = binascii.a2b_base64
_isfinite = math.isfinite
_copysign = math.copysign
_is = operator.is_
_BUILTINS = dict(vars(builtins))
_threads = _thread._count
_gettrace = sys.gettrace
_getprofile = sys.getprofile
_getrecursionlimit = sys.getrecursionlimit
_MODULES = sys.modules  # the interpreter's own, even if sys.modules is bound to another
_MODULE = types.ModuleType
_getitimer = getattr(_signal, "getitimer", None)
_setitimer = getattr(_signal, "setitimer", None)
_ITIMERS = tuple(
    getattr(_signal, n)
    for n in ("ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF")
    if hasattr(_signal, n)
)
_spec_from_file = importlib._bootstrap_external.spec_from_file_location
_module_from_spec = importlib._bootstrap.module_from_spec


def _dict_versions():
    """A function that gives, for a dict, a reader of the version number the
    interpreter keeps in it (PEP 509), or None.

    CPython (3.6 to 3.13) gives every dict a 64-bit version that changes whenever an
    item is added, removed or set to another object.  It is not offered to Python
    code, so it is read from the dict's memory, after checking here, on a dict of
    this very interpreter, that the place is right and that every kind of change
    moves it.  Where anything differs (another layout, another interpreter, no
    _ctypes) there is no reader, and every namespace is compared in full.
    """
    try:
        import _ctypes

        class Word(_ctypes._SimpleCData):
            _type_ = "P"

        class Version(_ctypes._SimpleCData):
            _type_ = "Q"

        get = _ctypes._SimpleCData.__dict__["value"].__get__
        word = _ctypes.sizeof(Word)
        used_at = 2 * word  # after the reference count and the type
        version_at = (3 * word + 7) // 8 * 8

        def reader(d):
            return Version.from_address(id(d) + version_at)

        probe = types.ModuleType("probe").__dict__
        used = Word.from_address(id(probe) + used_at)
        version = reader(probe)
        seen = [get(version)]
        probe["a"] = 1
        seen.append(get(version))
        probe["a"] = 2.5
        seen.append(get(version))
        probe.update(b=3)
        seen.append(get(version))
        del probe["a"]
        seen.append(get(version))
        probe.pop("b")
        seen.append(get(version))
        probe["c"] = probe
        seen.append(get(version))
        if get(used) != len(probe) or len(set(seen)) != len(seen):
            return None
        return get, reader
    except BaseException:
        return None


_VERSIONS = _dict_versions()


def _no_default(obj):
    raise TypeError("not JSON data: %s" % type_name(type(obj)))


def _make_dumps():
    """Compact ASCII JSON without NaN, from the C encoder when there is one."""
    try:
        from json import encoder as _je

        make = getattr(_je, "c_make_encoder", None)
        esc = getattr(_je, "c_encode_basestring_ascii", None)
        if make is not None and esc is not None:
            enc = make(None, _no_default, esc, None, ":", ",", False, False, False)
            join = "".join

            def dumps(obj):
                return join(enc(obj, 0))

            return dumps
    except Exception:
        pass
    return json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


_dumps = _make_dumps()


class _Counted(float):
    """A float that counts the multiplications it takes part in."""

    __slots__ = ()

    def __mul__(self, other):
        _MULTS[0] += 1
        return float.__mul__(self, other)

    def __rmul__(self, other):
        _MULTS[0] += 1
        return float.__rmul__(self, other)


_PACKABLE = frozenset((float, _Counted))


# ---------------------------------------------------------------- encoding


def type_name(t):
    try:
        name = _NAME_OF(t)
    except BaseException:
        return "?"
    if type(name) is not str:
        return "?"
    return name[:MAX_TYPE_NAME]


def _plain_base(t):
    """The builtin a subclass is based on, without calling anything of the class."""
    for base, name in (
        (float, "float"),
        (int, "int"),
        (str, "str"),
        (list, "list"),
        (tuple, "tuple"),
        (dict, "dict"),
    ):
        if issubclass(t, base):
            return base, name
    return None, None


def _float(x):
    if x - x == 0.0:
        return x
    if x != x:
        return {"$": "float", "v": "nan"}
    return {"$": "float", "v": "inf" if x > 0 else "-inf"}


_PACKERS = {}  # type: dict[int, Any]


def _packer(n):
    """struct's packing of n little-endian doubles: several times faster than an
    array made from a list (which converts each item as an argument)."""
    packer = _PACKERS.get(n)
    if packer is None:
        packer = _PACKERS[n] = _Struct("<%dd" % n).pack
    return packer


def pack(floats):
    """A list of floats as little-endian IEEE doubles in base64: fast and bit-exact."""
    data = _packer(len(floats))(*floats)
    return {"$": "f64", "v": _b2a(data, newline=False).decode("ascii")}


def unpack(text):
    a = _array("d")
    a.frombytes(_a2b(text))
    if _BIG_ENDIAN:
        a.byteswap()
    return a.tolist()


def pack_rows(rows, cols):
    """A table of floats (exact lists of one width) as one run of packed doubles."""
    row = _packer(cols)
    data = b"".join([row(*r) for r in rows])
    return {"$": "f64rows", "v": _b2a(data, newline=False).decode("ascii"), "cols": cols}


_PACKED = ("f64", "f64rows")


def _packed_text(packed):
    """The JSON text of what pack or pack_rows made (base64 and an int: nothing to escape)."""
    cols = packed.get("cols")
    return '{"$":"%s","v":"%s"%s}' % (
        packed["$"],
        packed["v"],
        "" if cols is None else ',"cols":%d' % cols,
    )


def unpack_rows(text, cols):
    flat = unpack(text)
    return [flat[i : i + cols] for i in range(0, len(flat), cols)]


def _finite(values):
    try:
        return all(map(_isfinite, values))
    except (OverflowError, TypeError, ValueError):
        return False


class Encoder(object):
    """Turns any value into plain JSON data without calling its methods."""

    def __init__(self, budget=MAX_ITEMS):
        self.left = budget

    def cut(self, t, why):
        return {"$": "cut", "type": type_name(t), "why": why}

    def encode(self, x, depth=0):
        t = type(x)
        if t is float:
            return _float(x)
        if t is int:
            if -(1 << 62) < x < (1 << 62) or int.bit_length(x) <= MAX_INT_BITS:
                return x
            return self.cut(t, "too large")
        if t is bool or t is _NONE:
            return x
        if t is str:
            cost = len(x) // STR_CHARS_PER_ITEM
            if cost > self.left:
                return self.cut(t, "too large")
            self.left -= cost
            return x
        if t is _Counted:
            return _float(float.__float__(x))
        if t is list:
            return self.sequence(x, x, depth)
        if t is tuple:
            v = self.sequence(x, x, depth)
            return {"$": "tuple", "v": v} if type(v) is list else v
        if t is dict:
            return self.mapping(x, x, depth)
        base, name = _plain_base(t)
        if base is None:
            return {"$": "obj", "type": type_name(t)}
        if base is float:
            v = _float(float.__float__(x))
        elif base is int:
            v = self.encode(int.__int__(x), depth)
        elif base is str:
            v = self.encode(str.__str__(x), depth)
        elif base is list:
            v = self.sequence(x, list.copy(x), depth)
        elif base is tuple:
            v = self.sequence(x, tuple(tuple.__iter__(x)), depth)
            if type(v) is list:
                v = {"$": "tuple", "v": v}
        else:
            v = self.mapping(x, x, depth)
        if type(v) is dict and v.get("$") == "cut":
            return {"$": "cut", "type": type_name(t), "why": v["why"]}
        return {"$": "sub", "type": type_name(t), "base": name, "v": v}

    def sequence(self, original, items, depth):
        """items is an exact list or tuple holding the elements of original."""
        if depth >= MAX_DEPTH:
            return self.cut(type(original), "too deep")
        n = len(items)
        if n > self.left:
            return self.cut(type(original), "too large")
        self.left -= n
        kinds = set(map(type, items))
        if n >= PACK_FROM and type(items) is list and kinds <= _PACKABLE:
            return pack(items)
        if kinds == _ONLY_LISTS and type(items) is list and depth + 1 < MAX_DEPTH:
            widths = set(map(len, items))
            cols = widths.pop() if len(widths) == 1 else 0
            if (
                cols
                and cols * n >= PACK_FROM
                and cols * n <= self.left
                and set(map(type, _chain(items))) <= _PACKABLE
            ):
                self.left -= cols * n
                return pack_rows(items, cols)
        if kinds <= _FLOATISH and _finite(items):
            return items if type(items) is list else list(items)
        enc = self.encode
        d = depth + 1
        return [enc(e, d) for e in items]

    def mapping(self, original, d, depth):
        if depth >= MAX_DEPTH:
            return self.cut(type(original), "too deep")
        pairs = list(dict.items(d))
        if 2 * len(pairs) > self.left:
            return self.cut(type(original), "too large")
        self.left -= 2 * len(pairs)
        enc = self.encode
        return {"$": "dict", "v": [[enc(k, depth + 1), enc(v, depth + 1)] for k, v in pairs]}


def encode(x):
    return Encoder().encode(x)


def describe(exc):
    """EXC: the exception's class name, the builtin classes it derives from, its text."""
    t = type(exc)
    chain = []
    try:
        for cls in _MRO_OF(t):
            name = type_name(cls)
            if _BUILTINS.get(name) is cls and issubclass(cls, BaseException):  # type: ignore[arg-type]
                chain.append(name)
    except BaseException:
        pass
    try:
        message = str(exc)
        if type(message) is not str:
            message = ""
    except BaseException:
        message = ""
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 3] + "..."
    out = {"type": type_name(t), "builtin": chain, "message": message}
    try:
        where = _student_frame(exc)
    except BaseException:
        where = None
    if where is not None:
        out["line"], out["in"] = where
    return out


_STUDENT_FILE = [None]
_HOME = ["."]  # the child's working folder, taken before any student code runs


def _student_frame(exc):
    """(line, function) of the last frame of the student's file in the traceback."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == _STUDENT_FILE[0]:
            last = (tb.tb_lineno, code.co_name[:MAX_TYPE_NAME])
        tb = tb.tb_next
    return last


# ---------------------------------------------------------------- decoding and copies


class _Ref(object):
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _hook(obj):
    tag = obj.get("$")
    if tag is None:
        if "$ref" in obj:
            return _Ref(obj["$ref"])
        return obj
    if tag == "tuple":
        return tuple(obj["v"])
    if tag == "f64":
        return unpack(obj["v"])
    if tag == "f64rows":
        return unpack_rows(obj["v"], int(obj["cols"]))
    if tag == "alias":
        # Items that are one object in the parent's value are one object here too.
        distinct = obj["v"]
        return [distinct[i] for i in obj["of"]]
    if tag == "float":
        return float(obj["v"])
    if tag == "dict":
        return {k: v for k, v in obj["v"]}
    raise ValueError("unknown tag %r" % (tag,))


def _copy_flat(m):
    return m[:]


def _copy_rows(m):
    return [r[:] for r in m]


def _copy_flat_tuple(m):
    return tuple(list(m))


def _first_places(m):
    """For each item of the list m, the place of the first item that is the same
    list object (its own place when none before it is), or None when no two are."""
    first: dict[int, int] = {}
    places = []
    for i, e in enumerate(m):
        places.append(first.setdefault(id(e), i) if type(e) is list else i)
    return places if places != list(range(len(m))) else None


def plan(m):
    """A function that makes a fresh copy of values shaped like m (None: m is a leaf).

    Items of a list that are one list object (rows of [row, row]) are one new list
    object in the copy as well."""
    t = type(m)
    if t in _LEAVES:
        return None
    if t is list or t is tuple:
        if set(map(type, m)) <= _LEAVES:
            return _copy_flat if t is list else _copy_flat_tuple
        places = _first_places(m) if t is list and len(m) > 1 else None
        if places is not None:
            parts = [plan(e) for e in m]

            def copy_shared(v, parts=parts, places=places):
                out: list[Any] = []
                for i, (p, e) in enumerate(zip(parts, v)):  # noqa: B905 (Python 3.8)
                    j = places[i]
                    out.append(out[j] if j != i else (e if p is None else p(e)))
                return out

            return copy_shared
        parts = [plan(e) for e in m]
        if t is list and all(p is _copy_flat for p in parts):
            return _copy_rows

        def copy_seq(v, parts=parts, t=t):
            out = [e if p is None else p(e) for p, e in zip(parts, v)]  # noqa: B905 (Python 3.8)
            return out if t is list else tuple(out)

        return copy_seq
    if t is dict:
        keyed = {k: plan(v) for k, v in m.items()}

        def copy_dict(v, keyed=keyed):
            return {k: (e if keyed[k] is None else keyed[k](e)) for k, e in v.items()}

        return copy_dict
    if t is _Counted:
        return None
    raise ValueError("cannot copy %s" % type_name(t))


def counted(m, memo=None):
    """A copy of m with every float wrapped in _Counted (rows that are one list object
    stay one)."""
    t = type(m)
    if t is float:
        return _Counted(m)
    if t is list:
        if memo is None:
            memo = {}
        done = memo.get(id(m))
        if done is not None:
            return done
        if set(map(type, m)) == {float}:
            out = list(map(_Counted, m))
        else:
            out = [counted(e, memo) for e in m]
        memo[id(m)] = out
        return out
    if t is tuple:
        return tuple([counted(e) for e in m])
    if t is dict:
        return {k: counted(v) for k, v in m.items()}
    return m


def _same_leaf(a, b):
    """a and b are leaves of the same exact type."""
    if type(a) is float or type(a) is _Counted:
        if a != a:
            return b != b
        return a == b and _copysign(1.0, a) == _copysign(1.0, b)
    return a == b


def changed(live, master, path):
    """The first place where live differs from master (same type, same value), or None.

    master holds only plain values made by this process; live was handed to the
    student's code.  Only exact builtin types are ever compared, so nothing the
    student defined is called.
    """
    if live is master:
        return None
    t = type(live)
    if t is not type(master):
        return path
    if t is list or t is tuple:
        if len(live) != len(master):
            return path
        if all(map(_is, live, master)):
            return None
        if (
            t is list
            and _ONLY_LISTS == set(map(type, live)) == set(map(type, master))
            and list(map(len, live)) == list(map(len, master))
            and all(map(_is, _chain(live), _chain(master)))
        ):
            return None  # a table whose rows hold the very same numbers
        for i, (a, b) in enumerate(zip(live, master)):  # noqa: B905 (Python 3.8)
            if a is not b:
                where = changed(a, b, "%s[%d]" % (path, i))
                if where is not None:
                    return where
        return None
    if t is dict:
        if len(live) != len(master):
            return path
        for (ka, va), (kb, vb) in zip(live.items(), master.items()):  # noqa: B905 (Python 3.8)
            if ka is not kb and changed(ka, kb, path) is not None:
                return path
            if va is not vb:
                where = changed(va, vb, "%s[%r]" % (path, kb))
                if where is not None:
                    return where
        return None
    if t in _LEAVES or t is _Counted:
        return None if _same_leaf(live, master) else path
    return path


def _refill(live, new):
    """Change the list live in place into new's values, keeping the lists inside it."""
    for i in range(min(len(live), len(new))):
        if type(live[i]) is list and type(new[i]) is list:
            _refill(live[i], new[i])
        else:
            live[i] = new[i]
    del live[len(new) :]
    live.extend(new[len(live) :])


def _at_addresses(first, args):
    """args, each list moved into a new list made where the interpreter puts it at the
    address its counterpart in first had, when it does so within a bounded number of
    tries; first is emptied (so its lists are freed) once the lists needed here exist."""
    spare: list[Any] = []
    out: list[Any] = []
    olds = [id(x) if type(x) is list else None for x in first]
    first.clear()
    for old, a in zip(olds, args):  # noqa: B905 (Python 3.8)
        shell = None
        if old is not None and type(a) is list:
            for _ in range(20000):
                x: list[Any] = []
                if id(x) == old:
                    shell = x
                    break
                spare.append(x)
        if shell is None:
            out.append(a)
        else:
            shell.extend(a)
            out.append(shell)
    del spare
    return out


def _earlier(fn, call, args):
    """The first call of a pair: fn on fresh copies of call["before"]; then its
    argument objects become this call's arguments: changed in place into them
    ("changed"), or dropped, and these made anew at their addresses ("renewed").

    Returns the second call's arguments, the place the first call changed in its own
    arguments (or None), and None (no exception stops the second call)."""
    befores = call["before"]
    first = []
    for b in befores:
        p = plan(b)
        first.append(b if p is None else p(b))
    try:
        fn(*first)
    except BaseException:
        pass  # only the second call is judged; a raise here fails other cases
    mutated = None
    for i, (a, m) in enumerate(zip(first, befores)):  # noqa: B905 (Python 3.8)
        mutated = changed(a, m, "args[%d]" % i)
        if mutated is not None:
            break
    if call.get("renew") == "changed":
        out = []
        for live, new in zip(first, args):  # noqa: B905 (Python 3.8)
            if type(live) is list and type(new) is list:
                _refill(live, new)
                out.append(live)
            else:
                out.append(new)
        return out, mutated, None
    a = m = None  # the loop's last items: nothing here may keep the first lists alive
    return _at_addresses(first, args), mutated, None


# ---------------------------------------------------------------- imports


class _Stub(object):
    """Stands for anything taken from a module that is not available."""

    __slots__ = ("_what", "_top")

    def __init__(self, what, top):
        object.__setattr__(self, "_what", what)
        object.__setattr__(self, "_top", top)

    def __repr__(self):
        return "<%s: not available>" % object.__getattribute__(self, "_what")

    def _fail(self, *args, **kwargs):
        raise ImportError(
            "%s is not available: the exercise allows the standard library only"
            % object.__getattribute__(self, "_top")
        )


for _name in (
    "call",
    "getattr",
    "setattr",
    "delattr",
    "getitem",
    "setitem",
    "delitem",
    "iter",
    "len",
    "bool",
    "contains",
    "float",
    "int",
    "index",
    "complex",
    "add",
    "radd",
    "sub",
    "rsub",
    "mul",
    "rmul",
    "matmul",
    "rmatmul",
    "truediv",
    "rtruediv",
    "floordiv",
    "rfloordiv",
    "mod",
    "rmod",
    "pow",
    "rpow",
    "neg",
    "pos",
    "abs",
    "lt",
    "le",
    "gt",
    "ge",
    "enter",
    "exit",
    "mro_entries",
    "instancecheck",
    "subclasscheck",
    "round",
    "trunc",
    "floor",
    "ceil",
    "hash",
):
    setattr(_Stub, "__%s__" % _name, _Stub._fail)
del _name


class _Placeholder(types.ModuleType):
    """A module that could not be imported; its attributes are stubs."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        top = self.__name__.partition(".")[0]
        return _Stub("%s.%s" % (self.__name__, name), top)


class _PlaceholderLoader(object):
    def create_module(self, spec):
        module = _Placeholder(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


class Watcher(object):
    """Notes the non-stdlib imports of the student module and stands in for them."""

    def __init__(self, stdlib, student_file):
        self.stdlib = frozenset(stdlib)
        self.student_file = student_file
        self.third_party = []

    def from_student(self):
        f: Any = sys._getframe(2)
        while f is not None:
            name = f.f_code.co_filename
            if (
                name.startswith("<frozen ")
                or os.path.basename(os.path.dirname(name)) == "importlib"
            ):
                f = f.f_back
                continue
            return name == self.student_file
        return False

    def find_spec(self, fullname, path=None, target=None):
        top = fullname.partition(".")[0]
        if top in self.stdlib or not self.from_student():
            return None
        if top not in self.third_party:
            self.third_party.append(top)
        # Always the placeholder, even where another finder could find the package
        # (after sys.path was extended, say): the grader itself is never importable.
        return importlib.machinery.ModuleSpec(
            fullname,
            _PlaceholderLoader(),  # type: ignore[arg-type]
            is_package=True,
        )


# ---------------------------------------------------------------- the child


def _limit(name, value):
    try:
        import resource

        which = getattr(resource, name)
        resource.setrlimit(which, (value, value))
    except Exception:
        pass


class _Stopped(BaseException):
    """Raised instead of calling a function that timed out or crashed the child before."""


_DEAD: set = set()


def _traced(name, fn, seen=_TRACE):
    """fn wrapped so that every call of it, nested ones too, is noted in _TRACE.

    The wrapper runs tens of thousands of times in one grading: it does as little as
    it can.  A function the parent named dead (an earlier call of it did not return)
    gets _stopped instead; _DEAD is filled by "load", before anything is wrapped.
    """
    if name in _DEAD:
        return _stopped(name, fn)

    def traced(*args, **kwargs):
        seen[name] = None  # a name seen before keeps its place
        if kwargs:
            return fn(*args, **kwargs)
        return fn(*args)

    return _dressed(traced, fn)


def _stopped(name, fn, seen=_TRACE):
    def traced(*args, **kwargs):
        seen[name] = None
        raise _Stopped("%s is not run again: an earlier call did not return" % name)

    return _dressed(traced, fn)


def _dressed(traced, fn):
    """traced with the name, qualified name and docstring of fn."""
    for attr in ("__name__", "__qualname__", "__doc__"):
        try:
            setattr(traced, attr, getattr(fn, attr))
        except BaseException:
            pass
    traced.__wrapped__ = fn
    return traced


_TRACED_CODES = (_traced("?", len).__code__, _stopped("?", len).__code__)
_CHILD: list = [None]


def _where(signum, frame):
    """On SIGUSR1 (the parent's time limit): the contract functions being run, outermost first."""
    stack = []
    f = frame
    while f is not None:
        code = f.f_code
        if code is _TRACED_CODES[0] or code is _TRACED_CODES[1]:
            name = f.f_locals.get("name")
            if type(name) is str:
                stack.append(name)
        f = f.f_back
    stack.reverse()
    child = _CHILD[0]
    if child is not None:
        try:
            child.send({"op": "where", "stack": stack})
        except BaseException:
            pass


_WRAPPABLE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType)


_STREAMS: list = []  # the interpreter's own stdout and stderr, taken in main()


def _flush():
    for stream in _STREAMS:
        try:
            stream.flush()
        except BaseException:
            pass


_SOURCE = [b""]  # the student's module as it was loaded


def _traceback(exc, path):
    try:
        import linecache
        import traceback  # only after a failed import: it costs a few ms

        # The lines shown come from the source that was run, never from a file
        # looked up by its name (which may be a link, or changed since).
        lines = _SOURCE[0].decode("utf-8", "replace").splitlines(True)
        linecache.cache[path] = (len(_SOURCE[0]), None, lines, path)

        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        text = "".join(traceback.format_exception(type(exc), exc, tb))
    except BaseException:
        return ""
    if len(text) > MAX_TRACEBACK:
        text = "...\n" + text[-MAX_TRACEBACK:]
    return text


def _printed(name, printing, start=0):
    """What the last call printed (fds 1 and 2 hold nothing else from ``start`` on): its
    bytes and lines, and the first lines of the first call of each function that
    printed; None when it printed nothing."""
    try:
        size = _fstat(1).st_size - start
        if size <= 0 or _pread is None:
            return None
        head = _pread(1, COUNT_PRINTED, start)
    except BaseException:
        return None
    lines = head.count(b"\n") + (0 if head.endswith(b"\n") else 1)
    note = {"size": size, "lines": lines}
    if name not in printing:
        printing[name] = None
        note["head"] = head[: MAX_PRINTED * 4].decode("utf-8", "replace")[:MAX_PRINTED]
    return note


def _student_traceback(exc, path):
    """The traceback from the student's first frame on, without this file's frames."""
    try:
        import traceback

        own = _TRACED_CODES[0].co_filename
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != own]
        while frames and frames[0].filename != path:
            del frames[0]
        # A function stopped by the grader: the parent's message says so, in the
        # student's language; the frames show where the call was made.
        last = [] if isinstance(exc, _Stopped) else traceback.format_exception_only(type(exc), exc)
        shown = traceback.format_list(frames)
        cut = False
        while len(shown) > 1 and sum(map(len, shown)) > MAX_TRACEBACK:
            del shown[0]  # whole frames, the earliest first
            cut = True
        text = "Traceback (most recent call last):\n" + ("  ...\n" if cut else "")
        text += "".join(shown) + "".join(last)
    except BaseException:
        return ""
    if len(text) > MAX_TRACEBACK + 1000:
        text = text[: MAX_TRACEBACK + 1000]
    return text


class Child(object):
    def __init__(self, reader, out_fd):
        self.reader = reader
        self.out_fd = out_fd
        self.globals = None
        self.max_line = 64 << 20
        # [name, namespace, keys, values, version reader, version]: checked after every call
        self.watched = []
        self.modules = []  # (name, module, its key in sys.modules or None)
        self.recursion = _getrecursionlimit()
        self.threads = 0
        self.printing = {}  # functions whose printed output was sent already
        self.printed_from = 0  # where the next call's output starts (after the import's)

    def send(self, obj):
        self.write((_dumps(obj) + "\n").encode("ascii"))

    def write(self, data):
        view = memoryview(data)
        while view:
            view = view[_write(self.out_fd, view) :]

    def load(self, msg):
        path = msg["path"]  # the child's copy
        name = msg.get("name") or path  # the name the student knows it by
        modname = str(msg.get("module") or "embed")  # what it is imported as
        _STUDENT_FILE[0] = name
        self.max_line = int(msg.get("max_line", self.max_line))
        memory = int(msg.get("memory_mb", 0))
        if memory > 0:
            _limit("RLIMIT_AS", memory << 20)
        _limit("RLIMIT_CPU", int(msg.get("cpu_seconds", 120)))
        _limit("RLIMIT_FSIZE", int(msg.get("fsize_mb", 64)) << 20)
        _limit("RLIMIT_CORE", 0)
        _DEAD.update(msg.get("dead", ()))
        watcher = Watcher(msg.get("stdlib", ()), name)
        sys.meta_path.insert(0, watcher)

        error = None
        trace = ""
        start = _perf()
        module = None
        try:
            spec = _spec_from_file(modname, path)
            module = _module_from_spec(spec)  # type: ignore[arg-type]
            sys.modules[modname] = module
            with open(path, "rb") as f:
                source = f.read()
            _SOURCE[0] = source
            code = compile(source, name, "exec", dont_inherit=True)
            exec(code, module.__dict__)
        except BaseException as exc:
            error = describe(exc)
            trace = _traceback(exc, name)
        elapsed = _perf() - start
        _flush()
        _stop_timers()
        try:
            self.printed_from = _fstat(1).st_size  # the parent reads what the import printed
        except BaseException:
            pass
        names = {}
        space = module.__dict__ if module is not None else {}
        self.globals = space
        for name in msg.get("functions", ()):
            try:
                obj = space[name] if name in space else _NONE
                if obj is _NONE:
                    names[name] = "missing"
                elif not callable(obj):
                    names[name] = "not callable"
                else:
                    names[name] = "function"
                    if isinstance(obj, _WRAPPABLE):
                        space[name] = _traced(name, obj)
            except BaseException:
                names[name] = "missing"
        for name in msg.get("constants", ()):
            try:
                names[name] = (
                    Encoder(MAX_CONSTANT).encode(space[name]) if name in space else "missing"
                )
            except BaseException:
                names[name] = "missing"
        self.watch(space)
        self.send(
            {
                "op": "loaded",
                "ok": error is None,
                "names": names,
                "third_party": watcher.third_party[:MAX_NAMES],
                "error": error,
                "traceback": trace,
                "elapsed": elapsed,
            }
        )

    def watch(self, space):
        """Remember the state a call must leave as it found it (see left_behind)."""
        self.recursion = _getrecursionlimit()
        self.threads = _threads()
        # By the dict itself, not by name: a module of the student's own named "math"
        # must not take the place of the real one.
        spaces = {id(builtins.__dict__): ("builtins", builtins)}
        listed = _listed()
        for name in _WATCHED:
            m = listed.get(name)
            if type(m) is _MODULE:
                spaces.setdefault(id(m.__dict__), (name, m))
        try:
            for v in list(dict.values(space)):
                if type(v) is _MODULE:
                    spaces.setdefault(id(v.__dict__), (_NAME_OF_MODULE(v), v))
        except BaseException:
            pass
        # A later import must find these very modules, of the class they have now: a
        # module of another class answers other things from the same dict.
        held = list(spaces.values())
        self.modules = [
            held,
            [m for _, m in held],
            [(name, m) for name, m in held if listed.get(name) is m],
            None,
            None,
        ]
        if _VERSIONS is not None:
            self.modules[3] = _VERSIONS[1](_MODULES)
            self.modules[4] = _VERSIONS[0](self.modules[3])
        # Keys and values are remembered and compared by identity: == would ask the
        # objects a student put there, which may claim to equal anything.
        self.watched = []
        for name, m in spaces.values():
            d = m.__dict__
            self.watched.append([name, d, tuple(d), tuple(dict.values(d)), None, None])
        if _VERSIONS is not None:
            get, reader = _VERSIONS
            for w in self.watched:
                if type(w[1]) is dict:
                    w[4] = reader(w[1])
                    w[5] = get(w[4])

    def left_behind(self):
        """What the last call changed that would reach later calls; None if nothing."""
        if _threads() > self.threads:
            return "it left a thread running"
        if _gettrace() is not None or _getprofile() is not None:
            return "it left a trace or profile function set"
        if _getrecursionlimit() != self.recursion:
            return "it changed the recursion limit"
        if _stop_timers():
            return "it left a timer running"
        get = _VERSIONS[0] if _VERSIONS is not None else None
        _, modules, _, version, seen = self.modules
        if (
            not all(map(_is, map(type, modules), _repeat(_MODULE)))
            or version is None
            or get(version) != seen  # type: ignore[misc]
        ):
            moved = self.moved()
            if moved is not None:
                return "it changed the module %s" % moved
        for w in self.watched:
            name, d, keys, values, version, seen = w
            if version is not None:
                now = get(version)  # type: ignore[misc]
                if now == seen:
                    continue  # nothing was added, removed or set in it since
            if (
                len(d) != len(keys)
                or not all(map(_is, d, keys))
                or not all(map(_is, dict.values(d), values))
            ):
                return "it changed the module %s" % name
            if version is not None:
                w[5] = now  # set again to the very objects it held
        return None

    def moved(self):
        """The name of a watched module given another class, or no longer the one
        sys.modules holds by that name; None if none."""
        held, _, listed, version, _ = self.modules
        for name, m in held:
            if type(m) is not _MODULE:
                return name
        now = None if version is None else _VERSIONS[0](version)
        index = _listed()
        for name, m in listed:
            if index.get(name) is not m:
                return name
        self.modules[4] = now  # something was imported, removed or put back
        return None

    def run(self, msg):
        values = msg.get("values") or {}
        plans: dict[str, Any] = {}
        for call in msg["calls"]:
            self.call(call, values, plans)

    def call(self, call, values, plans):
        cid = call["id"]
        name = call["fn"]
        count = call.get("count") or ()
        max_line = min(int(call.get("max", self.max_line)), self.max_line)
        masters = []
        args = []
        for i, a in enumerate(call["args"]):
            if type(a) is _Ref:
                m = values[a.name]
                if a.name not in plans:
                    plans[a.name] = plan(m)
                p = plans[a.name]
            else:
                m = a
                p = plan(m)
            if i in count:
                m = counted(m)
            masters.append(m)
            args.append(m if p is None else p(m))
        fn = self.globals.get(name) if self.globals is not None else None
        error = None
        mutated = None
        start = _perf()
        _TRACE.clear()  # what the first call of a pair entered counts too
        _MULTS[0] = 0
        if call.get("before") is not None and fn is not None and callable(fn):
            args, mutated, error = _earlier(fn, call, args)
        value = None
        try:
            if error is None:
                if fn is None or not callable(fn):
                    raise NameError("name %r is not defined" % (name,))
                value = fn(*args)
        except BaseException as exc:
            error = exc
        elapsed = _perf() - start
        mults = _MULTS[0] if count else None
        called = [n for n in _TRACE if n != name]
        for i, (a, m) in enumerate(zip(args, masters)):  # noqa: B905 (Python 3.8)
            if mutated is not None:
                break
            mutated = changed(a, m, "args[%d]" % i)
        _flush()
        printed = _printed(name, self.printing, self.printed_from)
        self.printed_from = 0
        try:
            _truncate(1, 0)  # what a call prints is not kept: it must not fill the file
            _seek(1, 0, 0)  # fds 1 and 2 share one offset
        except BaseException:
            pass
        answer = {
            "id": cid,
            "ok": error is None,
            "elapsed": elapsed,
            "mutated": mutated,
            "called": called,
            "mults": mults,
        }
        if printed is not None:
            answer["printed"] = printed
        tainted = self.left_behind()
        if tainted is not None:
            answer["tainted"] = tainted
        del args, masters
        if error is not None:
            answer["raised"] = describe(error)
            del error
            self.send(answer)
            return
        try:
            # Every item costs at least two bytes on the line: past max_line // 2 items
            # the answer is cut before it is packed.
            encoded = Encoder(min(MAX_ITEMS, max_line // 2)).encode(value)
            del value
            if type(encoded) is dict and encoded.get("$") in _PACKED:
                # Packed doubles are base64 text, which needs no escaping: the line
                # is put together here rather than scanned by the encoder.
                line = _dumps(answer)[:-1] + ',"value":' + _packed_text(encoded) + "}"
            else:
                answer["value"] = encoded
                line = _dumps(answer)
            del encoded
        except BaseException:
            line = None
        if line is None or len(line) >= max_line:
            line = None
            answer["value"] = {"$": "cut", "type": "?", "why": "too large"}
        if line is None:
            self.send(answer)
        else:
            data = (line + "\n").encode("ascii")
            del line
            self.write(data)

    def report(self, msg):
        """Run the module's report writer into a fresh folder and send back its files.

        The files are read here (never through a link, at most max_bytes + 1 bytes
        each) and travel as base64, so the parent never opens anything the student's
        code could have replaced.
        """
        name = msg["dir"]
        if type(name) is not str or "/" in name or name in ("", ".", ".."):
            raise ValueError("dir must be a plain name")
        folder = _HOME[0] + "/" + name  # inside the child's own folder, wherever it is
        names = msg["files"]
        limit = int(msg["max_bytes"])
        fn = self.globals.get(msg["fn"]) if self.globals is not None else None
        files: dict = {}
        answer = {"op": "reported", "ok": False, "absent": None, "files": files}
        if fn is None:
            answer["absent"] = "missing"
            self.send(answer)
            return
        if not callable(fn):
            answer["absent"] = "not callable"
            self.send(answer)
            return
        _TRACE.clear()
        error = None
        start = _perf()
        try:
            _mkdir(folder, 0o700)
            fn(folder)
        except BaseException as exc:
            error = exc
        elapsed = _perf() - start
        _flush()
        try:
            _truncate(1, 0)  # what the writer printed is not kept
            _seek(1, 0, 0)
        except BaseException:
            pass
        answer["elapsed"] = elapsed
        answer["called"] = list(_TRACE)
        if error is not None:
            answer["raised"] = describe(error)
            answer["traceback"] = _student_traceback(error, _STUDENT_FILE[0])
            del error
        else:
            answer["ok"] = True
            for name in names:
                files[name] = _written(folder + "/" + name, limit)
        self.send(answer)


# Modules whose contents a call must not change: patching them would change later calls.
_WATCHED = ("builtins", "math", "random", "json", "operator", "itertools", "functools", "sys")


def _written(path, limit):
    """{"state": "file", "size": N, "v": BASE64 of at most limit + 1 bytes}, or why not."""
    try:
        fd = _open(path, _READ_FLAGS)
    except BaseException:
        try:
            mode = _lstat(path).st_mode
        except BaseException:
            return {"state": "missing"}
        if _ISLNK(mode):
            return {"state": "link"}
        if _ISDIR(mode):
            return {"state": "directory"}
        return {"state": "unreadable"}
    try:
        info = _fstat(fd)
        if _ISDIR(info.st_mode):
            return {"state": "directory"}
        if not _ISREG(info.st_mode):
            return {"state": "special"}
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = _read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        size = info.st_size if info.st_size > len(data) else len(data)
        return {"state": "file", "size": size, "v": _b2a(data, newline=False).decode("ascii")}
    except BaseException:
        return {"state": "unreadable"}
    finally:
        _close(fd)


def _NAME_OF_MODULE(m):
    name = m.__dict__.get("__name__")
    return name if type(name) is str else "?"


def _listed():
    """sys.modules, but only its keys of type str: looking a name up in it runs no
    __eq__ of a key the student put there."""
    return {k: v for k, v in dict.items(_MODULES) if type(k) is str}


def _stop_timers():
    """Cancel interval timers (signal.alarm included); True if one was running."""
    if _getitimer is None:
        return False
    running = False
    for which in _ITIMERS:
        try:
            delay, interval = _getitimer(which)
            if delay or interval:
                running = True
                _setitimer(which, 0)  # type: ignore[misc]
        except BaseException:
            pass
    return running


def _shield():
    """Copy the builtins into this module, so that replacing one does not reach it."""
    g = globals()
    for k, v in _BUILTINS.items():
        if k not in g and not (k.startswith("__") and k.endswith("__")):
            g[k] = v


def _become_user():
    """Under bubblewrap run by root: become the user the grader chose, for good,
    before anything of the student's is read."""
    given = os.environ.pop("EMBED_GRADER_UID", None)
    if given is None:
        return
    uid = int(given)
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    try:
        os.setuid(0)
    except OSError:
        os.chdir(os.environ["HOME"])
        return
    raise SystemExit("the child could not give up root")


def main():
    _become_user()
    _shield()
    _HOME[0] = os.getcwd()
    in_fd = os.dup(0)
    out_fd = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    # fd 2 is a file the parent opened for what the module prints: stdout joins it.
    os.dup2(2, 1)
    _STREAMS[:] = [s for s in (sys.stdout, sys.stderr) if s is not None]
    reader = os.fdopen(in_fd, "rb", 1 << 16)  # a run message can be megabytes long
    decode = json.JSONDecoder(object_hook=_hook).decode
    child = Child(reader, out_fd)
    _CHILD[0] = child
    if hasattr(_signal, "SIGUSR1"):
        _signal.signal(_signal.SIGUSR1, _where)
    v = sys.version_info
    child.send({"op": "ready", "python": "%d.%d.%d" % (v[0], v[1], v[2])})
    while True:
        line = reader.readline()
        if not line:
            return
        msg = decode(line.decode("utf-8"))
        op = msg.get("op")
        if op == "load":
            child.load(msg)
        elif op == "run":
            child.run(msg)
        elif op == "report":
            child.report(msg)
        else:
            raise ValueError("unknown op %r" % (op,))


if __name__ == "__main__":
    main()
