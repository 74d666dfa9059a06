# The child's program: its start.  It becomes its own user, puts up its walls, shields
# itself from the student's changes to the builtins, takes its descriptors and serves
# requests until the pipe closes.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


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
    walled = _wall()  # before anything of the student's is read
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
    child.send({"op": "ready", "python": "%d.%d.%d" % (v[0], v[1], v[2]), "walled": walled})
    while True:
        msg = read_message(reader, decode)
        if msg is None:
            return
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
