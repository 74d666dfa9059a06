# The child's program: what a call must leave as it found it.  After the import the
# child notes the interpreter's state that would reach later calls (threads, trace and
# monitoring functions, the recursion limit, timers, and the namespaces of the
# standard modules and of those the student's module holds); after each call it looks
# for what changed.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


class _Watching(object):  # the watch of Child, whose __init__ sets its fields
    if TYPE_CHECKING:
        watched = []  # type: list[Any]
        held = []  # type: list[Any]
        held_modules = []  # type: list[Any]
        listed = []  # type: list[Any]
        modules_version = None  # type: Any
        modules_seen = None  # type: Any
        recursion = 0
        threads = 0

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
        self.held = list(spaces.values())  # (name, module)
        self.held_modules = [m for _, m in self.held]
        # those sys.modules holds by their name: it must still hold them there
        self.listed = [(name, m) for name, m in self.held if listed.get(name) is m]
        self.modules_version = self.modules_seen = None  # of sys.modules
        if _VERSIONS is not None:
            self.modules_version = _VERSIONS[1](_MODULES)
            self.modules_seen = _VERSIONS[0](self.modules_version)
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
        if _get_tool is not None and _get_events is not None:
            # A tool still in use, or one given up with its events left on.
            if not all(map(_is, map(_get_tool, _TOOLS), _repeat(None))) or any(
                map(_get_events, _TOOLS)
            ):
                return "it left a monitoring tool set"
        if _getrecursionlimit() != self.recursion:
            return "it changed the recursion limit"
        if _stop_timers():
            return "it left a timer running"
        get = _VERSIONS[0] if _VERSIONS is not None else None
        version = self.modules_version
        if (
            not all(map(_is, map(type, self.held_modules), _repeat(_MODULE)))
            or version is None
            or get(version) != self.modules_seen  # type: ignore[misc]
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
        for name, m in self.held:
            if type(m) is not _MODULE:
                return name
        version = self.modules_version
        now = None if version is None else _VERSIONS[0](version)
        index = _listed()
        for name, m in self.listed:
            if index.get(name) is not m:
                return name
        self.modules_seen = now  # something was imported, removed or put back
        return None


# Modules whose contents a call must not change: patching them would change later calls.
_WATCHED = ("builtins", "math", "random", "json", "operator", "itertools", "functools", "sys")


def _NAME_OF_MODULE(m):
    name = m.__dict__.get("__name__")
    return name if type(name) is str else "?"


def _listed():
    """sys.modules, but only its keys of type str: looking a name up in it runs no
    __eq__ of a key the student put there."""
    return {k: v for k, v in dict.items(_MODULES) if type(k) is str}
