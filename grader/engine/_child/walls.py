# The child's program: the walls it puts up around itself (Linux Landlock) before
# anything of the student's is read.  Once up, the child and everything it starts
# read and run no file but those of the system's folders, its interpreter's standard
# library, its own folder and its own /proc entry, less the folders the parent names
# (the grader's installation, its site-packages): the grader's files, the lab's
# answers and the grader's /proc entry are out of reach, whatever user it runs as.
# Writing is left to the file modes.  The walls cannot be taken down, only added to.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *

_WALLS_VARIABLE = "EMBED_GRADER_WALLS"  # the folders to keep out, as a JSON list
_SYS_LANDLOCK = (444, 445, 446)  # create_ruleset, add_rule, restrict_self (every arch)
_LL_EXECUTE, _LL_READ_FILE, _LL_READ_DIR, _LL_REFER = 1, 4, 8, 1 << 13
_LL_FILE = _LL_EXECUTE | _LL_READ_FILE
_LL_DIR = _LL_FILE | _LL_READ_DIR
_SYSTEM_DIRS = ("/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin", "/etc")
_DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
_MOST_RULES = 5000


def _inside(path, folder):
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _kept_out(given):
    """The folders to keep out, as the parent named them, that are there."""
    out = [os.path.realpath(p) for p in given if type(p) is str and os.path.isabs(p)]
    return sorted(set(p for p in out if os.path.lexists(p)))


def _let_in():
    """What the child may read: (path, may a link be followed there)."""
    places = [(p, True) for p in _SYSTEM_DIRS + _DEVICES]
    places += [(p, True) for p in sys.path if type(p) is str and os.path.isabs(p)]
    places.append((sys.executable, True))
    places.append(("/proc/%d" % os.getpid(), False))
    seen = set()
    out = []
    for path, follow in places:
        real = os.path.realpath(path) if follow else path
        if real not in seen and os.path.lexists(real):
            seen.add(real)
            out.append(real)
    return out


class _Walls(object):
    """A Landlock ruleset being filled, through the C library's syscall() and prctl()."""

    def __init__(self):
        import _ctypes

        class Long(_ctypes._SimpleCData):
            _type_ = "l"

        class Function(_ctypes.CFuncPtr):
            _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
            _restype_ = Long

        class Libc(object):
            _handle = _ctypes.dlopen(None, 2)  # type: ignore[arg-type]  # RTLD_NOW: own symbols

        class Byte(_ctypes._SimpleCData):
            _type_ = "B"

        class Buffer(_ctypes.Array):
            _type_ = Byte
            _length_ = 16

        self._ctypes = _ctypes
        self._long = Long
        self._syscall = Function(("syscall", Libc()))  # type: ignore[arg-type]
        self._prctl = Function(("prctl", Libc()))  # type: ignore[arg-type]
        self._buffer = Buffer()
        self._bytes = memoryview(self._buffer).cast("B")  # the attributes, written here
        self.rules = 0
        self.fd = -1
        self.handled = 0
        self.abi = self.syscall(_SYS_LANDLOCK[0], 0, 0, 1)  # the ABI version (or -1)
        if self.abi >= 1:
            self.handled = _LL_DIR | (_LL_REFER if self.abi >= 2 else 0)
            self._bytes[:] = _struct.pack("=Q8x", self.handled)
            self.fd = self.syscall(_SYS_LANDLOCK[0], self._address(), 8, 0)

    def _address(self):
        return self._ctypes.addressof(self._buffer)

    def _result(self, got):
        return int(getattr(got, "value", got))

    def syscall(self, *args):
        return self._result(self._syscall(*[self._long(a) for a in args]))

    def allow(self, fd, rights):
        """Let the tree (or file) that ``fd`` names be reached with ``rights``."""
        self.rules += 1
        if self.rules > _MOST_RULES:
            raise OSError("too many rules")
        self._bytes[:] = _struct.pack("=Qi4x", rights & self.handled, fd)
        if self.syscall(_SYS_LANDLOCK[1], self.fd, 1, self._address(), 0) != 0:
            raise OSError(self._ctypes.get_errno(), "landlock_add_rule")

    def allow_path(self, path, kept_out, follow):
        """Let ``path`` be read, less the folders in ``kept_out``: a folder that holds
        one is let in entry by entry (links skipped: what they name is let in or not
        on its own)."""
        inside = [k for k in kept_out if _inside(k, path)]
        if path in inside:
            return
        flags = os.O_PATH | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
        try:
            fd = os.open(path, flags)
        except OSError:
            return
        try:
            mode = os.fstat(fd).st_mode
            if _ISLNK(mode):
                return
            if not inside:
                self.allow(fd, _LL_DIR if _ISDIR(mode) else _LL_FILE)
                return
        finally:
            os.close(fd)
        for name in sorted(os.listdir(path)):
            self.allow_path(os.path.join(path, name), inside, False)

    def restrict(self):
        """Put the walls up for good: no new privileges, then the ruleset; whether
        they stand."""
        if self.handled & _LL_REFER:
            # Files may move between folders as the file modes allow: Landlock still
            # refuses any move or link that would let a file be read where it was not.
            fd = os.open("/", os.O_PATH | os.O_CLOEXEC)
            try:
                self.allow(fd, _LL_REFER)
            finally:
                os.close(fd)
        args = [self._long(a) for a in (38, 1, 0, 0, 0)]  # PR_SET_NO_NEW_PRIVS
        if self._result(self._prctl(*args)) != 0:
            return False
        return self.syscall(_SYS_LANDLOCK[2], self.fd, 0) == 0


def _wall():
    """Put up the walls the parent asked for: True once they stand, False where they
    cannot (no Landlock here), None when none were asked for."""
    given = os.environ.pop(_WALLS_VARIABLE, None)
    if given is None:
        return None
    try:
        walls = _Walls()
        if walls.fd < 0:
            return False
        try:
            kept_out = _kept_out(json.loads(given))
            for path in _let_in():
                walls.allow_path(path, kept_out, True)
            # Its own folder, opened where it is: the folders above it may be closed
            # to its user (it was started there).
            fd = os.open(".", os.O_PATH | os.O_CLOEXEC)
            try:
                walls.allow(fd, _LL_DIR)
            finally:
                os.close(fd)
            return walls.restrict()
        finally:
            os.close(walls.fd)
    except (OSError, ValueError, TypeError, AttributeError, ImportError):
        return False
