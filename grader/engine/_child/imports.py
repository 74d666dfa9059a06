# The child's program: the student's imports watched.  A module outside the standard
# library is noted and replaced by a placeholder whose attributes are stubs.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


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


# This interpreter's own library, as found before the student's code runs (the child
# starts with -I -S: sys.path is the standard library alone).  The parent's list of
# names is its own Python's, which may lack modules an older one still has: open()
# without an encoding imports _bootlocale on 3.8 and 3.9, and a placeholder for it
# would make every such file ASCII.
_OWN_PATHS = tuple(p for p in sys.path if type(p) is str)
_OWN_BUILTINS = tuple(sys.builtin_module_names)
_listdir = os.listdir


class Watcher(object):
    """Notes the non-stdlib imports of the student module and stands in for them."""

    def __init__(self, stdlib, student_file):
        self.stdlib = frozenset(stdlib)
        self.student_file = student_file
        self.third_party = []
        self.own = None  # this interpreter's own module names, read on first need

    def own_stdlib(self):
        if self.own is None:
            names = set(_OWN_BUILTINS)
            for path in _OWN_PATHS:
                try:
                    names.update(entry.partition(".")[0] for entry in _listdir(path))
                except OSError:  # a zip file, or a folder that is not there
                    pass
            self.own = frozenset(names)
        return self.own

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
        if top in self.stdlib or not self.from_student() or top in self.own_stdlib():
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
