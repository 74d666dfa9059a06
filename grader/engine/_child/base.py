"""The child's program, first part: what it imports, its limits, and what it
takes for itself before the student's code runs (its own references to what it
needs, a reader of the version numbers of dicts).  The parts make one program (see
``__init__.py``); those after this one say what they hold in a comment, where a
docstring would travel to every child."""

# Only what the child needs, and nothing that pulls in more: the interpreter starts
# once per submission (importlib.util would add contextlib, signal its enums).
import _signal
import _struct
import _thread
import array
import binascii
import builtins
import gc
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
_gc_freeze = getattr(gc, "freeze", None) or (lambda: None)
_gc_collect = gc.collect
_gc_enabled = gc.isenabled
_gc_disable = gc.disable
_gc_enable = gc.enable
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
# sys.monitoring (3.12+) calls back like a trace function: tools 0-5 are a program's.
_MONITOR = getattr(sys, "monitoring", None)
_get_tool = _MONITOR.get_tool if _MONITOR is not None else None
_get_events = _MONITOR.get_events if _MONITOR is not None else None
_TOOLS = range(6)
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


def _list_items():
    """A function that gives the bytes of the item pointers of an exact list (what
    makes two lists hold the very same objects, compared as one string), or None.

    A CPython list keeps its items as an array of pointers, found through a pointer
    after the object's header.  It is read, as the dict versions are, only after
    checking here on lists of this very interpreter (empty, grown, shrunk) that the
    place is right.  The reading calls nothing of the objects in the list.  Where
    anything differs there is no reader, and lists are compared item by item.
    """
    try:
        import _ctypes

        class Word(_ctypes._SimpleCData):
            _type_ = "P"

        class Size(_ctypes._SimpleCData):
            _type_ = "i"

        class Object(_ctypes._SimpleCData):
            _type_ = "O"

        class At(_ctypes.CFuncPtr):  # ctypes' own string_at, made as ctypes makes it
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_PYTHONAPI
            _restype_ = Object
            _argtypes_ = (Word, Size)

        string_at = At(getattr(_ctypes, "_string_at_addr"))  # noqa: B009 (not in the stubs)
        get = _ctypes._SimpleCData.__dict__["value"].__get__
        word = _ctypes.sizeof(Word)
        items_at = 3 * word  # after the reference count, the type and the size
        at = Word.from_address
        pointers = _Struct("@P").pack

        def items(lst):
            n = len(lst)
            return string_at(get(at(id(lst) + items_at)), n * word) if n else b""

        probe = []  # type: list[object]
        for step in range(40):
            probe.append(object() if step % 3 else step * 0.5)
            if items(probe) != b"".join(map(pointers, map(id, probe))):
                return None
        del probe[5:30]
        probe.insert(2, probe)
        if items(probe) != b"".join(map(pointers, map(id, probe))) or items([]) != b"":
            return None
        return items
    except BaseException:
        return None


_ITEMS = _list_items()

_STUDENT_FILE = [None]
_HOME = ["."]  # the child's working folder, taken before any student code runs
