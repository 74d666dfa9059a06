"""After every call the child looks for changes to the modules it watches.  Where
the interpreter keeps a version number in each dict (CPython 3.6-3.13, PEP 509)
the child reads it and compares a namespace object by object only when its
version moved; elsewhere it compares every namespace after every call.  Both ways
must see the same changes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grader.engine.sandbox import CHILD
from grader.engine.sandbox.program import child_program

PYENV = Path(os.environ.get("PYENV_ROOT", "/root/.pyenv")) / "versions"
VERSIONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")


def _python(version: str) -> str | None:
    if version == "%d.%d" % sys.version_info[:2]:
        return sys.executable
    found = sorted(PYENV.glob("%s.*/bin/python%s" % (version, version)))
    return str(found[-1]) if found else None


# Runs the child's program as a module (its main() is not called) and drives the
# watch of one Child by hand; prints one line per step.
DRIVER = textwrap.dedent(
    """
    import builtins, json, math, sys, types
    g = {"__name__": "child_program"}
    exec(compile(SOURCE, "<string>", "exec"), g)
    g["_shield"]()  # as main() does: the child's own builtins
    if BLOCK:
        g["_VERSIONS"] = None
    child = g["Child"](None, 1)
    child.watch({"math": math, "json": json})
    print("reader|" + str(g["_VERSIONS"] is not None))
    sqrt, length = math.sqrt, len

    def step(name, change, undo):
        change()
        print(name + "|" + str(child.left_behind()))
        undo()
        child.watch({"math": math, "json": json})

    step("nothing", lambda: None, lambda: None)
    step("same object", lambda: setattr(math, "sqrt", sqrt), lambda: None)
    step("set and set back", lambda: (setattr(math, "sqrt", abs), setattr(math, "sqrt", sqrt)),
         lambda: None)
    step("replace", lambda: setattr(math, "sqrt", abs), lambda: setattr(math, "sqrt", sqrt))
    step("add", lambda: setattr(math, "marker", 1), lambda: delattr(math, "marker"))
    step("remove", lambda: delattr(math, "tau"), lambda: setattr(math, "tau", 2 * math.pi))
    step("item", lambda: vars(json).__setitem__("dumps", repr),
         lambda: vars(json).__setitem__("dumps", json.JSONEncoder().encode))
    step("update", lambda: vars(builtins).update(len=abs), lambda: vars(builtins).update(len=length))
    step("setdefault", lambda: vars(sys).setdefault("marker", 1), lambda: vars(sys).pop("marker"))
    step("rename", lambda: vars(math).__setitem__("root", vars(math).pop("sqrt")),
         lambda: vars(math).__setitem__("sqrt", vars(math).pop("root")))

    # Every other way of writing into a dict, and a few that leave it as it was.
    saved, saved_json = dict(vars(math)), dict(vars(json))

    def refill(d, items):
        d.clear()
        d.update(items)

    back = lambda: (refill(vars(math), saved), refill(vars(json), saved_json))
    ior = getattr(dict, "__ior__", dict.update)  # |= from Python 3.9 on
    step("popitem", lambda: vars(math).popitem(), back)
    step("clear and refill", lambda: refill(vars(math), saved), back)
    step("refill reordered", lambda: refill(vars(math), reversed(list(saved.items()))), back)
    step("or-assign", lambda: ior(vars(math), {"sqrt": abs}), back)
    step("or-assign nothing", lambda: ior(vars(math), {}), back)
    step("dict init", lambda: dict.__init__(vars(math), sqrt=abs), back)
    step("exec", lambda: exec("sqrt = abs", vars(math)), back)
    step("function globals", lambda: json.load.__globals__.update(loads=repr), back)
    step("module init", lambda: types.ModuleType.__init__(math, "math"), back)
    step("many set back", lambda: [(setattr(math, "sqrt", abs), setattr(math, "sqrt", sqrt))
                                   for _ in range(10000)], back)

    # A call that set things back moves the version; a later change is still seen.
    setattr(math, "sqrt", abs)
    setattr(math, "sqrt", sqrt)
    print("set back|" + str(child.left_behind()))
    setattr(math, "sqrt", abs)
    print("then replaced|" + str(child.left_behind()))
    setattr(math, "sqrt", sqrt)
    child.watch({"math": math, "json": json})

    # Modules of the student's own that are named like watched ones hide nothing.
    decoys = {"math": math, "a": type(math)("math"), "b": type(math)("builtins")}
    child.watch(decoys)
    setattr(math, "marker", 1)
    print("decoy math|" + str(child.left_behind()))
    delattr(math, "marker")
    child.watch(decoys)
    vars(builtins).update(len=abs)
    print("decoy builtins|" + str(child.left_behind()))
    vars(builtins).update(len=length)
    child.watch({"math": math, "json": json})

    # Changes that leave every dict as it was: another class, another module in sys.modules.
    class Other(types.ModuleType):
        pass

    module, other = types.ModuleType, types.ModuleType("json")
    step("class", lambda: setattr(math, "__class__", Other), lambda: setattr(math, "__class__", module))
    step("replaced", lambda: sys.modules.update(json=other), lambda: sys.modules.update(json=json))
    step("dropped", lambda: sys.modules.pop("json"), lambda: sys.modules.update(json=json))

    # What an import may rebind before the watch starts does not blind it.
    modules, sys.modules, types.ModuleType = sys.modules, {}, object
    child.watch({})
    sys.modules, types.ModuleType = modules, module
    json.marker = 1
    print("rebound|" + str(child.left_behind()))
    del json.marker
    """
)


# sys.monitoring (3.12+) calls back like a trace function: a tool a call leaves in use,
# or gives up with its events still on, would reach later calls.  (Events set on one
# function's code by a tool given up before the call ends are not seen.)
MONITOR = textwrap.dedent(
    """
    import sys
    g = {"__name__": "child_program"}
    exec(compile(SOURCE, "<string>", "exec"), g)
    g["_shield"]()
    child = g["Child"](None, 1)
    child.watch({})
    M = sys.monitoring
    E = M.events

    def f():
        return 1

    def tool(events=0, local=0, free=False):
        M.use_tool_id(3, "student")
        M.register_callback(3, E.PY_START, lambda code, offset: None)
        M.set_events(3, events)
        M.set_local_events(3, f.__code__, local)
        if free:
            M.free_tool_id(3)

    def undo():
        if M.get_tool(3) is None:
            M.use_tool_id(3, "again")
        M.set_events(3, 0)
        M.set_local_events(3, f.__code__, 0)
        M.register_callback(3, E.PY_START, None)
        M.free_tool_id(3)

    for name, how in [
        ("given up", dict(free=True)),
        ("in use", dict()),
        ("events", dict(events=E.PY_START)),
        ("events, given up", dict(events=E.PY_START, free=True)),
        ("local events", dict(local=E.PY_START)),
    ]:
        tool(**how)
        print(name + "|" + str(child.left_behind()))
        undo()
        child.watch({})
    """
)


def _drive(python: str, block: bool, driver: str = DRIVER) -> dict[str, str]:
    source = child_program(CHILD)
    program = "SOURCE = %r\nBLOCK = %r\n%s" % (source, block, driver)
    done = subprocess.run(
        [python, "-I", "-S", "-B", "-c", program], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(line.split("|", 1) for line in done.stdout.splitlines())


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("block", [False, True], ids=["versions", "every-item"])
def test_every_change_to_a_watched_module_is_seen(version: str, block: bool) -> None:
    python = _python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    said = _drive(python, block)
    # On CPython 3.8-3.13 the version numbers are read: the fast way is the one tested.
    assert said.pop("reader") == str(not block)
    changed = {k for k, v in said.items() if v != "None"}
    assert changed == {"replace", "add", "remove", "item", "update", "setdefault", "rename"} | {
        "popitem",
        "refill reordered",
        "or-assign",
        "dict init",
        "exec",
        "function globals",
        "module init",
        "then replaced",
        "decoy math",
        "decoy builtins",
        "class",
        "replaced",
        "dropped",
        "rebound",
    }
    assert said["replace"] == "it changed the module math"
    assert said["item"] == "it changed the module json"
    assert said["update"] == "it changed the module builtins"
    assert said["setdefault"] == "it changed the module sys"
    assert said["decoy math"] == "it changed the module math"
    assert said["decoy builtins"] == "it changed the module builtins"
    assert said["class"] == "it changed the module math"
    assert said["replaced"] == said["dropped"] == said["rebound"] == "it changed the module json"


@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_a_monitoring_tool_left_set_is_seen(version: str) -> None:
    python = _python(version)
    if python is None:
        pytest.skip("no Python %s on this machine" % version)
    said = _drive(python, False, MONITOR)
    assert said.pop("given up") == "None"
    assert set(said.values()) == {"it left a monitoring tool set"}, said
