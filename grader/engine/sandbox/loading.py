"""Importing the student's module in a child, and importing it again in a new child
after a call killed, stopped or spoiled the last one."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from grader.engine.sandbox import decoding
from grader.engine.sandbox.child import Child
from grader.engine.sandbox.decoding import OffProtocol, decode
from grader.engine.sandbox.disk import DISK_DETAIL as DISK
from grader.engine.sandbox.encoding import dumps
from grader.engine.sandbox.limits import CPU_SECONDS, FSIZE_MB, LOAD_LINE, MAX_LINE, STDLIB
from grader.engine.sandbox.pipe import Died, TooLarge
from grader.engine.sandbox.records import Call, Loaded, MachineFault, Outcome


class Loading(Child):
    """A child with the module imported: the first one, and each one after a restart."""

    def disk_spent(self) -> bool:
        """Whether the child has passed its share of disk (it is then killed)."""
        return self._share is not None and self._share.over()

    def machine_check(self) -> None:
        """After a failure: a ``MachineFault`` when the machine's disk, not the child,
        may have caused it (see ``Share.machine_short``)."""
        if self._share is not None and self._share.machine_short():
            raise MachineFault("disk", "no space left where the child writes")

    def _functions(self) -> list[str]:
        return [n for n in self.names if n not in self.constants]

    def _constants(self) -> list[str]:
        return [n for n in self.names if n in self.constants]

    def _load_message(self) -> bytes:
        functions = self._functions()
        constants = self._constants()
        msg = {
            "op": "load",
            "path": self.module_file,  # the child's copy, in its working directory
            "module": os.path.splitext(self.module_file)[0],  # the name it is imported as
            "name": self.path,  # the name its code and tracebacks carry
            "memory_mb": self.memory_mb,
            "cpu_seconds": CPU_SECONDS,
            "fsize_mb": FSIZE_MB,
            "max_line": MAX_LINE,
            "stdlib": sorted(set(STDLIB) | {os.path.splitext(self.module_file)[0]}),
            "functions": functions,
            "constants": constants,
            "dead": sorted(self.budget.dead),
        }
        return (dumps(msg) + "\n").encode()

    def _load(self) -> Loaded:
        """A new child with the module imported; past its share of disk, it failed."""
        loaded = self._import()
        if self.disk_spent():
            self._kill()
            return Loaded(False, loaded.names, (), None, "", loaded.output, loaded.elapsed, DISK)
        if not loaded.ok:
            self.machine_check()
        return loaded

    def _import(self) -> Loaded:
        self._start()
        assert self._pipe is not None
        missing = {n: "missing" for n in self.names}
        start = time.monotonic()
        deadline = min(start + self.timeout, self.budget.cap())
        try:
            line = None
            if self._pipe.send(self._load_message(), deadline):
                line = self._pipe.line(deadline, LOAD_LINE)
            if line is None:
                output = self._output()
                self._kill()
                return Loaded(
                    False,
                    missing,
                    (),
                    None,
                    "",
                    output,
                    time.monotonic() - start,
                    "importing the module did not finish within %g s" % self.timeout,
                    timed_out=True,
                )
            got = decoding.loaded(decode(line), self._functions(), self._constants())
        except (Died, TooLarge, OffProtocol) as exc:
            output = self._output()
            if isinstance(exc, Died):
                why = "%s while importing the module" % self._died()
            else:
                self._kill()
                why = "the answer to the import did not follow the protocol"
            return Loaded(False, missing, (), None, "", output, time.monotonic() - start, why)
        names = dict(missing)
        names.update(got.names)
        return Loaded(
            got.ok,
            names,
            got.third_party,
            got.error,
            got.traceback,
            self._output(),
            got.elapsed,
        )

    def load(self) -> Loaded:
        """Start a child and import the module in it."""
        self.loaded = self._load()
        return self.loaded

    def _restart(
        self,
        results: list[Outcome | None],
        rest: list[int],
        calls: Sequence[Call],
        charge: str = "",
    ) -> None:
        """A new child with the module loaded again, its time charged to the function
        that made it necessary; on failure the rest is crashed.  Past the submission's
        time or MAX_RESTARTS, the rest is not run."""
        if self.budget.over():
            self._stop()
            self.budget.spend(results, rest, calls)
            return
        self.budget.restarts += 1
        start = time.monotonic()
        again = self._load()
        if charge:
            self.budget.charge(charge, time.monotonic() - start)
        if again.ok:
            for j in rest:
                if results[j] is None and calls[j].fn in self.budget.dead:
                    results[j] = self.budget.skipped(calls[j])
            return
        self._stop()
        if self.budget.over():
            self.budget.spend(results, rest, calls)
            return
        reason = again.detail or (again.error.type if again.error else "it failed")
        for j in rest:
            results[j] = Outcome(
                calls[j].id,
                calls[j].fn,
                "crashed",
                detail="the module could not be loaded again after a restart: %s" % reason,
            )
