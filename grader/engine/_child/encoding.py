# The child's program: its values as plain JSON.  The encoder never calls a method
# of the student's objects; floats travel packed as doubles; exceptions are described
# by their builtin classes and text.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


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
_FLOAT_WORD = _Struct("@P").pack(id(float))  # how a list holds the type float


def _packable(rows, n):
    """Whether the n items of rows (exact lists) are all floats or counted floats.

    The types of all items are taken as one list; when the bytes of its item pointers
    are n times float's, no set of them is needed.  Nothing of the items or of their
    types is called."""
    kinds = list(map(type, _chain(rows)))
    if _ITEMS is not None and len(kinds) == n:
        try:
            if _ITEMS(kinds) == _FLOAT_WORD * n:
                return True
        except BaseException:
            pass
    return set(kinds) <= _PACKABLE


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


def _packed_line(head, packed):
    """The line of an answer whose value is what pack or pack_rows made, as bytes; head
    is the answer's JSON text without its closing brace.  Base64 and an int need no
    escaping, so the parts are joined as they are: the long text is copied once."""
    cols = packed.get("cols")
    return b"".join(
        (
            head.encode("ascii"),
            b',"value":{"$":"%s","v":"' % packed["$"].encode("ascii"),
            packed["v"].encode("ascii"),
            b'"}}\n' if cols is None else b'","cols":%d}}\n' % cols,
        )
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
                and _packable(items, cols * n)
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
