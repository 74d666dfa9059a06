# The child's program: around the student's functions.  The wrappers that note which
# contract functions a call entered, functions stopped after they hung, the answer to
# the parent's SIGUSR1, interval timers and resource limits.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


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
