"""Benchmark of the child process alone: ``python tests/bench_child.py [-n N] [--profile]``.

It grades the reference ``embed.py`` once in this process (with ``--format json``)
and records every message the parent sends to its children.  Then it replays these
messages N times (default 10) to fresh child processes started as the sandbox starts
them (``PYTHON -I -S -B -c PROGRAM`` in a temporary folder that holds a copy of the
module), with fd 0 the recorded messages,
fd 1 ``/dev/null`` and fd 2 a scratch file, and prints:

- the wall time of a whole child (interpreter start, program, import, every call);
- the time inside the child's ``main()`` alone;
- the sum of the calls' own ``elapsed`` (the student's functions, as ``child_time``).

With ``--profile`` one more replay runs ``main()`` under cProfile and the functions
with the most own time are printed (the profiler inflates small, frequent calls).
With ``--instructions`` each child's program is also replayed once under valgrind's
cachegrind, which counts the instructions it executes: unlike times, the count does
not change with the load of the machine, so two versions of the child compare
exactly (``--against``).  With ``--own`` the module's own work is counted the same
way without the child: the run's calls made on copies of their arguments in a plain
interpreter, and the report writer, so that what the grader adds can be told apart.
``--python EXE`` replays with another interpreter (3.8 or newer), ``--child PATH``
with another version of the child's program (to compare two of them): a folder laid
out as ``grader/engine/_child/``, or the one file an older child was.  It asserts
nothing about time.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pstats
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from grader.engine.commands.cli import main as cli_main  # noqa: E402
from grader.engine.sandbox import child as sandbox_child  # noqa: E402
from grader.engine.sandbox import program as sandbox_program  # noqa: E402
from grader.engine.sandbox.pipe import Pipe  # noqa: E402

REFERENCE = ROOT / "embed.py"

# The child's program run under a harness: SOURCE is exec'd as a module that is not
# __main__, then its main() is timed (and profiled when PROFILE names a file).  It
# writes "KEY=SECONDS" words to the descriptor OUT: wall and CPU time of main() and
# of each operation of the child.
HARNESS = """
import os, time
g = {"__name__": "child_under_test"}
exec(compile(SOURCE, "<string>", "exec", dont_inherit=True), g)
spent = {}


def timed(op, method):
    def run(self, msg):
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return method(self, msg)
        finally:
            spent[op] = spent.get(op, 0.0) + time.perf_counter() - wall
            spent[op + "_cpu"] = spent.get(op + "_cpu", 0.0) + time.process_time() - cpu

    return run


for op in ("load", "run", "report"):
    setattr(g["Child"], op, timed(op, getattr(g["Child"], op)))
wall, cpu = time.perf_counter(), time.process_time()
if PROFILE:
    import cProfile
    prof = cProfile.Profile()
    prof.runcall(g["main"])
    prof.dump_stats(PROFILE)
else:
    g["main"]()
spent["main"] = time.perf_counter() - wall
spent["main_cpu"] = time.process_time() - cpu
os.write(OUT, " ".join("%s=%r" % kv for kv in sorted(spent.items())).encode())
"""


def capture(seed: int) -> list[bytes]:
    """The messages one grading of the reference sends to its first child."""
    sent: dict[int, list[bytes]] = {}
    order: list[int] = []
    original = Pipe.send

    def recording(self: Pipe, data: bytes, deadline: float) -> bool:
        if id(self) not in sent:
            sent[id(self)] = []
            order.append(id(self))
        sent[id(self)].append(bytes(data))
        return original(self, data, deadline)

    Pipe.send = recording  # type: ignore[method-assign]
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            cli_main([str(REFERENCE), "--format", "json", "--seed", str(seed)])
    finally:
        Pipe.send = original  # type: ignore[method-assign]
    if len(order) > 1:
        print(
            "note: the grading started %d children; the first one's messages are replayed"
            % len(order)
        )
    return sent[order[0]]


def retarget(messages: list[bytes], module: str) -> bytes:
    """The messages with the load message pointing at the replay's copy of the module."""
    out = []
    for m in messages:
        if not m.startswith(b'{"op":"load"'):  # a run message's packed tail is no JSON
            out.append(m)
            continue
        data = json.loads(m)
        if data.get("op") == "load":
            data["path"] = module
            m = (json.dumps(data, separators=(",", ":")) + "\n").encode()
        out.append(m)
    return b"".join(out)


def replay(python: str, messages: list[bytes], program: str, profile: str = "") -> dict[str, float]:
    """Run one child on the recorded messages: its wall and CPU time ("wall", "cpu"),
    and with the harness (program "harness") what the harness measured inside."""
    with tempfile.TemporaryDirectory(prefix="bench-child-") as tmp:
        module = os.path.join(tmp, "embed.py")
        shutil.copyfile(REFERENCE, module)
        recorded = os.path.join(tmp, "messages")
        with open(recorded, "wb") as f:
            f.write(retarget(messages, module))
        r, w = os.pipe()
        if program == "harness":
            source = sandbox_program.child_program(sandbox_program.CHILD)
            code = "SOURCE = %r\nPROFILE = %r\nOUT = %d\n%s" % (source, profile, w, HARNESS)
        else:
            code = program
        with (
            open(recorded, "rb") as fin,
            open(os.devnull, "wb") as fout,
            open(os.path.join(tmp, "scratch"), "wb") as ferr,
        ):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(
                [python, "-I", "-S", "-B", "-c", code],
                stdin=fin,
                stdout=fout,
                stderr=ferr,
                cwd=tmp,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tmp},
                pass_fds=(w,),
                check=False,
            )
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            said = f.read().decode()
        if proc.returncode:
            with open(os.path.join(tmp, "scratch"), "rb") as f:
                sys.exit("the child failed:\n" + f.read().decode(errors="replace")[-2000:])
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    out = {"wall": wall, "cpu": cpu}
    for word in said.split():
        key, _, seconds = word.partition("=")
        out[key] = float(seconds)
    return out


def call_seconds(messages: list[bytes], python: str) -> tuple[int, float]:
    """How many calls the stream runs, and the sum of their elapsed, read from a child."""
    with tempfile.TemporaryDirectory(prefix="bench-child-") as tmp:
        module = os.path.join(tmp, "embed.py")
        shutil.copyfile(REFERENCE, module)
        data = retarget(messages, module)
        proc = subprocess.run(
            [python, "-I", "-S", "-B", "-c", sandbox_program.child_program(sandbox_program.CHILD)],
            input=data,
            capture_output=True,
            cwd=tmp,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tmp},
            check=False,
        )
    calls = 0
    total = 0.0
    for line in proc.stdout.splitlines():
        answer = json.loads(line)
        if "id" in answer:
            calls += 1
            total += answer.get("elapsed", 0.0)
    return calls, total


def instructions(python: str, messages: list[bytes], program: str) -> int | None:
    """Instructions one child executes on the messages, counted by cachegrind."""
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="bench-child-") as tmp:
        module = os.path.join(tmp, "embed.py")
        shutil.copyfile(REFERENCE, module)
        proc = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
            + [os.path.realpath(python), "-I", "-S", "-B", "-c", program],
            input=retarget(messages, module),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            cwd=tmp,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tmp},
            check=False,
        )
    found = re.search(rb"I\s+refs:\s+([\d,]+)", proc.stderr)
    return int(found.group(1).replace(b",", b"")) if found else None


# The module's own work, without the child: the run message decoded and each call's
# arguments copied as the child does it, then (MODE "calls") every call made, the
# first of each pair included, and (MODE "all") the report writer run besides.
OWN = """
import importlib.util, json, os, sys
g = {"__name__": "child_program"}
exec(compile(SOURCE, "<string>", "exec"), g)
spec = importlib.util.spec_from_file_location("embed", MODULE)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
run = g["read_message"](open(RUN, "rb"), json.JSONDecoder(object_hook=g["_hook"]).decode)
plans = {}  # as the child keeps them: one per shared value


def copied(values):
    out = []
    for a in values:
        if type(a) is g["_Ref"]:
            if a.name not in plans:
                plans[a.name] = g["plan"](run["values"][a.name])
            plan, a = plans[a.name], run["values"][a.name]
        else:
            plan = g["plan"](a)
        out.append(a if plan is None else plan(a))
    return out


for call in run["calls"]:
    fn = getattr(module, call["fn"])
    given = [copied(call["args"])]
    if call.get("before") is not None:
        given.insert(0, copied(call["before"]))
    if MODE == "none":
        continue
    for args in given:
        try:
            fn(*args)
        except BaseException:
            pass
if MODE == "all":
    os.mkdir("report")
    module.write_report("report")
"""


def own_instructions(python: str, messages: list[bytes], child: Path) -> dict[str, int | None]:
    """Instructions of OWN in each mode, counted by cachegrind."""
    out: dict[str, int | None] = {}
    run = [m for m in messages if m.startswith(b'{"op":"run"')][0]
    for mode in ("none", "calls", "all"):
        if shutil.which("valgrind") is None:
            out[mode] = None
            continue
        with tempfile.TemporaryDirectory(prefix="bench-child-own-") as tmp:
            module = os.path.join(tmp, "embed.py")
            shutil.copyfile(REFERENCE, module)
            with open(os.path.join(tmp, "run"), "wb") as f:
                f.write(run)
            code = "SOURCE = %r\nMODULE = %r\nRUN = %r\nMODE = %r\n%s" % (
                sandbox_program.child_program(child),
                module,
                os.path.join(tmp, "run"),
                mode,
                OWN,
            )
            proc = subprocess.run(
                [
                    "valgrind",
                    "--tool=cachegrind",
                    "--cache-sim=no",
                    "--cachegrind-out-file=/dev/null",
                ]
                + [os.path.realpath(python), "-I", "-S", "-B", "-c", code],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                cwd=tmp,
                env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tmp},
                check=False,
            )
        found = re.search(rb"I\s+refs:\s+([\d,]+)", proc.stderr)
        out[mode] = int(found.group(1).replace(b",", b"")) if found else None
    return out


def programs(python: str, child: Path) -> tuple[str, str]:
    """The -c argument as the sandbox builds it for this interpreter, and the harness."""
    sandbox_child.CHILD = sandbox_program.CHILD = child  # the harness replays it too
    same = os.path.realpath(python) == os.path.realpath(sys.executable)
    if same:
        return sandbox_program.compiled_program(child), "harness"
    return sandbox_program.child_program(child), "harness"


def figures(runs: list[dict[str, float]]) -> dict[str, float]:
    """The median of every figure over the runs."""
    keys = sorted({k for r in runs for k in r})
    return {k: statistics.median([r[k] for r in runs if k in r]) for k in keys}


ROWS = [
    ("whole child, start to exit", "wall", "cpu"),
    ("main()", "main", "main_cpu"),
    ("  load", "load", "load_cpu"),
    ("  run", "run", "run_cpu"),
    ("  report", "report", "report_cpu"),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=10, help="replays (default 10)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--instructions", action="store_true", help="count them with valgrind")
    ap.add_argument(
        "--child",
        type=Path,
        default=sandbox_program.CHILD,
        help="the child's program: its folder, or one file",
    )
    ap.add_argument(
        "--against", type=Path, help="another child's program, replayed in turn with --child"
    )
    ap.add_argument(
        "--own", action="store_true", help="count the module's own instructions (valgrind)"
    )
    args = ap.parse_args()
    children = [args.child.resolve()]
    if args.against is not None:
        children.append(args.against.resolve())

    messages = capture(args.seed)
    stream = b"".join(messages)
    runs = sum(1 for m in messages if m.startswith(b'{"op":"run"'))
    calls, own = call_seconds(messages, args.python)
    print(
        "recorded: %d messages (%d run), %d bytes, %d calls; %s"
        % (len(messages), runs, len(stream), calls, args.python)
    )
    print("the calls' own time (sum of their elapsed): %.1f ms" % (own * 1000))

    results: dict[Path, list[dict[str, float]]] = {c: [] for c in children}
    for _ in range(args.n):
        for child in children:  # in turn, so that a busy moment hits both alike
            program, harness = programs(args.python, child)
            whole = replay(args.python, messages, program)
            inner = replay(args.python, messages, harness)
            results[child].append({**inner, "wall": whole["wall"], "cpu": whole["cpu"]})
    for child in children:
        med = figures(results[child])
        print("\n%s, median of %d runs (wall / CPU, ms):" % (child, args.n))
        for label, wall, cpu in ROWS:
            print("  %-28s %7.1f / %7.1f" % (label, med[wall] * 1000, med[cpu] * 1000))
        print(
            "  %-28s %7.1f (wall) for %d calls"
            % ("run minus the calls' time", (med["run"] - own) * 1000, calls)
        )
        if args.instructions:
            for what, part in (("start only", []), ("load, run and report", messages)):
                count = instructions(args.python, part, programs(args.python, child)[0])
                shown = "valgrind is not installed" if count is None else "{:,}".format(count)
                print("  instructions, %-20s %s" % (what, shown))
    if args.own:
        counts = own_instructions(args.python, messages, children[0])
        if None in counts.values():
            print("\nthe module's own instructions: valgrind is not installed or failed")
        else:
            calls_own = counts["calls"] - counts["none"]  # type: ignore[operator]
            report_own = counts["all"] - counts["calls"]  # type: ignore[operator]
            print("\nthe module's own instructions, without the child:")
            print("  %-34s {:,}".format(calls_own) % "its functions, on the run's calls")
            print("  %-34s {:,}".format(report_own) % "its report writer")
            print("  %-34s {:,}".format(calls_own + report_own) % "in all")
    if args.profile:
        programs(args.python, children[0])
        with tempfile.TemporaryDirectory(prefix="bench-child-prof-") as tmp:
            out = os.path.join(tmp, "stats")
            replay(args.python, messages, "harness", profile=out)
            stats = pstats.Stats(out)
            stats.sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
