# The child's program: what it makes of a request's arguments.  The JSON decoded,
# fresh copies of the arguments for every call, the counting floats, the comparison
# that tells whether a call changed its arguments, and the first call of a pair.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


class _Ref(object):
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


# The raw bytes that follow a run message's line, and how far its packed values
# have taken them: each value takes the next 8 * n bytes, in the order of the text.
_TAIL = [memoryview(b""), 0]  # type: list[Any]
_TAIL_START = b'{"op":"run","tail":'


def _from_tail(n):
    view, at = _TAIL
    end = at + 8 * n
    if n < 0 or end > len(view):
        raise ValueError("the message's tail is shorter than its values")
    a = _array("d")
    a.frombytes(view[at:end])
    if _BIG_ENDIAN:
        a.byteswap()
    _TAIL[1] = end
    return a.tolist()


def read_message(reader, decode):
    """The next message (None at the end of the input): one line of JSON, and after
    a run message's line the raw bytes of its packed values (``"tail": BYTES``)."""
    line = reader.readline()
    if not line:
        return None
    tail = b""
    if line.startswith(_TAIL_START):
        size = int(line[len(_TAIL_START) : line.index(b",", len(_TAIL_START))])
        tail = reader.read(size)
        if len(tail) != size:
            return None
    _TAIL[:] = [memoryview(tail), 0]
    # The collector is kept from walking the values while they are made (its passes
    # would find no garbage of theirs); it is turned on again as it was.
    collecting = _gc_enabled()
    _gc_disable()
    try:
        msg = decode(line.decode("utf-8"))
        if _TAIL[1] != len(tail):
            raise ValueError("the message's tail is longer than its values")
    finally:
        _TAIL[:] = [memoryview(b""), 0]
        if collecting:
            _gc_enable()
    return msg


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
    if tag == "f64b":
        return _from_tail(int(obj["n"]))
    if tag == "f64rowsb":
        flat = _from_tail(int(obj["n"]))
        cols = int(obj["cols"])
        rows = [flat[i : i + cols] for i in range(0, len(flat), cols)]
        _MADE[id(rows)] = (rows, flat)
        return rows
    if tag == "alias":
        # Items that are one object in the parent's value are one object here too.
        distinct = obj["v"]
        return [distinct[i] for i in obj["of"]]
    if tag == "float":
        return float(obj["v"])
    if tag == "dict":
        return {k: v for k, v in obj["v"]}
    raise ValueError("unknown tag %r" % (tag,))


# The tables made from a run message's tail, by id: (table, the list of floats its rows
# were cut from).  Each row is a list of its own holding exact floats, so a copy needs
# no plan, and as a run's master (never handed to the student's code) the table is
# compared with its copies for as long as the run lasts.  Emptied after each run.
_MADE = {}  # type: dict[int, tuple[Any, list[float]]]


def _copy_flat(m):
    return m[:]


def _copy_rows(m):
    return [r[:] for r in m]


def _copy_flat_tuple(m):
    return tuple(list(m))


def _first_places(m):
    """For each item of the list m, the place of the first item that is the same
    list object (its own place when none before it is), or None when no two are."""
    ids = list(map(id, m))
    if len(set(ids)) == len(ids):
        return None  # no two items are one object
    first: dict[int, int] = {}
    places = []
    for i, (e, k) in enumerate(zip(m, ids)):  # noqa: B905 (Python 3.8)
        places.append(first.setdefault(k, i) if type(e) is list else i)
    return places if places != list(range(len(m))) else None


def plan(m):
    """A function that makes a fresh copy of values shaped like m (None: m is a leaf).

    Items of a list that are one list object (rows of [row, row]) are one new list
    object in the copy as well."""
    t = type(m)
    if t in _LEAVES:
        return None
    if t is list and _MADE.get(id(m), _NO_TABLE)[0] is m:
        return _copy_rows  # rows of floats, as made by _hook
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
        if (
            t is list
            and _ONLY_LISTS == set(map(type, m))
            and _LEAVES.issuperset(map(type, _chain(m)))
        ):
            return _copy_rows  # rows of plain values: each row's plan is _copy_flat
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


def _joined(rows):
    """The items of rows (exact lists) as one new list, in order: list.extend copies
    each row's array of items in C and calls nothing of the items."""
    out = []  # type: list[Any]
    list(map(out.extend, rows))
    return out


def _same_items(live, master, n):
    """Whether the rows of live (exact lists, of the lengths of master's rows, n items
    in all) hold the very objects master's rows hold, in order.

    Past a few items the items of all rows are joined into one list and the arrays of
    pointers of the two joined lists compared as bytes: each row costs one call of a
    builtin, each item none.  A table made by _hook has its items joined already."""
    if _ITEMS is not None and n >= 32:
        try:
            known = _KNOWN.get(id(master))
            if known is None:
                made = _MADE.get(id(master), _NO_TABLE)
                if made[0] is master:  # one of the run's own: kept for its next calls
                    known = _KNOWN[id(master)] = (master, _ITEMS(made[1]))
                else:
                    known = (master, _ITEMS(_joined(master)))
                    if len(master) >= 64:  # a large table: kept for its next calls
                        _KNOWN[id(master)] = known  # (holding master: its id is not reused)
            return _ITEMS(_joined(live)) == known[1]
        except BaseException:
            pass
    return all(map(_is, _chain(live), _chain(master)))


# The item arrays of the large tables of a run, by the id of the table: a run's shared
# values go to many calls.  Emptied after each run.
_KNOWN = {}  # type: dict[int, tuple[Any, bytes]]
_NO_TABLE = (None, None)


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
        if t is list and _ONLY_LISTS == set(map(type, live)) == set(map(type, master)):
            lengths = list(map(len, live))
            if lengths == list(map(len, master)) and _same_items(live, master, sum(lengths)):
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
