"""Running calls in the child: one message per batch, each answer read within its
call's time and size, and what follows a timeout, a crash or a tainted call."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Sequence
from typing import Any

from grader.engine.sandbox import decoding
from grader.engine.sandbox.decoding import OffProtocol, decode
from grader.engine.sandbox.disk import DISK_DETAIL
from grader.engine.sandbox.encoding import Encoded, dumps, encoded
from grader.engine.sandbox.limits import ANSWER_SLACK, MAX_LINE, WHERE_WAIT
from grader.engine.sandbox.loading import Loading
from grader.engine.sandbox.pipe import Died, Pipe, TooLarge
from grader.engine.sandbox.records import Call, Outcome


class Running(Loading):
    """Calls of the module's functions, run in order in its child."""

    _listen: Callable[[Outcome], None] | None = None
    _sent: Callable[[], None] | None = None
    _careful = False  # a call at a time, once the share of disk was found spent

    def run(
        self,
        calls: Sequence[Call],
        listen: Callable[[Outcome], None] | None = None,
        sent: Callable[[], None] | None = None,
    ) -> list[Outcome]:
        """Run calls in order; one Outcome per call.

        ``listen`` (called in this thread) is given each answer as it arrives, so
        that another thread can judge it while the next calls run; the list
        returned holds every outcome, those given to ``listen`` among them.
        ``sent`` is called once, as soon as the child has the calls (or when no
        call will be sent), so that another thread may wait to start its own work
        until this one no longer needs the interpreter much.
        """
        self._listen = listen
        self._sent = sent
        try:
            return self._run(calls)
        finally:
            self._listen = None
            self._tell_sent()

    def _tell_sent(self) -> None:
        sent, self._sent = self._sent, None
        if sent is not None:
            sent()

    def _run(self, calls: Sequence[Call]) -> list[Outcome]:
        if self.loaded is None:
            self.load()
        loaded = self.loaded
        assert loaded is not None
        results: list[Outcome | None] = [None] * len(calls)
        for i, c in enumerate(calls):
            why = ""
            if not loaded.ok:
                why = "not run: the module did not load"
            elif c.fn in self.budget.dead:
                results[i] = self.budget.skipped(c)
                continue
            elif loaded.names.get(c.fn) != "function":
                why = "not run: %s is %s" % (c.fn, loaded.names.get(c.fn, "not a contract name"))
            if why:
                results[i] = Outcome(
                    c.id, c.fn, "skipped", called=self.budget.because.get(c.fn, ()), detail=why
                )
        todo = [i for i, r in enumerate(results) if r is None]
        if todo and self.budget.over():
            self.budget.spend(results, todo, calls)
            todo = []
        if todo:
            if self._proc is None or self._proc.poll() is not None or self._stale:
                # A report writer ran in this child: its restart is charged to it.
                self._restart(results, todo, calls, charge=self._stale)
                todo = [i for i in todo if results[i] is None]
        if todo:
            self._batch(calls, todo, results)
        out = [r for r in results if r is not None]
        assert len(out) == len(calls)
        return out

    def _pieces(
        self, calls: Sequence[Call], todo: list[int]
    ) -> tuple[dict[str, Encoded], dict[int, tuple[str, list[str], list[bytes]]]]:
        """The JSON text and packed doubles of shared values and of each call (with
        the values it uses)."""
        seen: dict[int, int] = {}
        for i in todo:
            for a in calls[i].args:
                if type(a) in (list, tuple, dict) and a:
                    seen[id(a)] = seen.get(id(a), 0) + 1
        refs: dict[int, str] = {}
        values: dict[str, Encoded] = {}
        texts: dict[int, tuple[str, list[str], list[bytes]]] = {}
        names: dict[str, str] = {}  # each function's name as JSON text
        for i in todo:
            c = calls[i]
            args = []
            used = []
            blobs: list[bytes] = []  # in the order of the call's text
            for a in c.args:
                if seen.get(id(a), 0) > 1:
                    ref = refs.get(id(a))
                    if ref is None:
                        ref = refs[id(a)] = "v%d" % len(refs)
                        values[ref] = encoded(a)
                    args.append('{"$ref":"%s"}' % ref)
                    used.append(ref)
                else:
                    text, packed = encoded(a)
                    args.append(text)
                    blobs += packed
            before = ""
            if c.before is not None:
                parts = []
                for a in c.before:
                    text, packed = encoded(a)
                    parts.append(text)
                    blobs += packed
                before = ',"before":[%s],"renew":%s' % (",".join(parts), dumps(c.renew))
            name = names.get(c.fn)
            if name is None:
                name = names[c.fn] = dumps(c.fn)
            text = '{"id":%d,"fn":%s,"args":[%s],"count":%s,"max":%d%s}' % (
                i,
                name,
                ",".join(args),
                dumps(list(c.count)) if c.count else "[]",
                c.limit,
                before,
            )
            texts[i] = (text, used, blobs)
        return values, texts

    def _batch(self, calls: Sequence[Call], todo: list[int], results: list[Outcome | None]) -> None:
        values, texts = self._pieces(calls, todo)

        def message(part: list[int]) -> bytes:
            refs = sorted({r for i in part for r in texts[i][1]}, key=lambda r: int(r[1:]))
            # The packed doubles follow the line as raw bytes, in the order the text
            # names them: the shared values first, then each call's.
            tail = b"".join(
                [b for r in refs for b in values[r][1]] + [b for i in part for b in texts[i][2]]
            )
            line = '{"op":"run","tail":%d,"values":{%s},"calls":[%s]}\n' % (
                len(tail),
                ",".join('"%s":%s' % (r, values[r][0]) for r in refs),
                ",".join(texts[i][0] for i in part),
            )
            return line.encode() + tail

        while todo:
            todo = self._exchange(message, calls, todo, results)

    def _exchange(
        self,
        message: Callable[[list[int]], bytes],
        calls: Sequence[Call],
        todo: list[int],
        results: list[Outcome | None],
    ) -> list[int]:
        """Send the calls and read their answers; the calls still to run after a failure.

        All calls go in one message, and the child runs ahead of the answers read
        here, unless the sandbox is ``_careful``: then each call goes alone once the
        answer before it is read, so that what is measured after an answer (the
        child's share of disk) is that call's doing and no later one's."""
        pipe = self._pipe
        assert pipe is not None
        since = time.monotonic()
        cap = self.budget.cap()
        own = since + self.budget.limit(calls[todo[0]].fn) if todo else since + self.timeout
        deadline = min(own, cap)
        failed: Outcome | None = None
        at = 0
        done: set[int] = set()
        try:
            careful = self._careful
            sent = pipe.send(message(todo[:1] if careful else todo), deadline)
            self._tell_sent()
            while at < len(todo):
                i = todo[at]
                c = calls[i]
                limit = min(c.limit, MAX_LINE) + ANSWER_SLACK
                line = pipe.line(deadline, limit) if sent else None
                if line is None and deadline < own:
                    # The submission's time ran out, not this call's.
                    self._kill()
                    self.budget.spend(results, todo[at:], calls)
                    return []
                stack: list[str] = []
                if line is None:
                    line, stack = self._where(pipe, i, limit)
                if line is None:
                    inner = stack[-1] if stack else c.fn
                    failed = Outcome(
                        c.id,
                        c.fn,
                        "timeout",
                        called=tuple(n for n in dict.fromkeys(stack) if n != c.fn),
                        elapsed=time.monotonic() - since,
                        detail="no answer within %g s" % self.timeout
                        + (" (while running %s)" % inner if inner != c.fn else ""),
                    )
                    if inner != c.fn:
                        self.budget.dead[inner] = "not run: an earlier call of %s timed out" % inner
                    self._kill()
                    if self.disk_spent():  # slow because it was filling the disk
                        failed = self._disk_crash(c, since)
                    break
                try:
                    data = decode(line)
                    if type(data) is dict and (
                        "op" in data or (type(data.get("id")) is int and data["id"] in done)
                    ):
                        continue  # a copy of an earlier line, written by the student's code
                    if type(data) is not dict or type(data.get("id")) is not int or data["id"] != i:
                        raise OffProtocol("not the answer to the call")
                    got = decoding.answer(data, self.names)
                except OffProtocol:
                    failed = Outcome(
                        c.id,
                        c.fn,
                        "crashed",
                        elapsed=time.monotonic() - since,
                        detail="the answer did not follow the protocol",
                    )
                    self._kill()
                    break
                if self.disk_spent():
                    self._kill()
                    if careful:
                        # This call passed the child's share of disk: its own fault.
                        failed = self._disk_crash(c, since)
                        break
                    # This call or a later one the child had already begun: they run
                    # again in a fresh child, a call at a time, the restart charged to
                    # nobody.
                    self._careful = True
                    rest = todo[at:]
                    self._restart(results, rest, calls)
                    return [j for j in rest if results[j] is None]
                results[i] = outcome = self._outcome(c, got)
                if outcome.kind == "raised":
                    self.machine_check()
                if self._listen is not None:
                    self._listen(outcome)
                done.add(i)
                self.calls += 1
                self.child_seconds += outcome.elapsed
                now = time.monotonic()
                self.budget.spent[c.fn] = self.budget.spent.get(c.fn, 0.0) + (now - since)
                at += 1
                since = now
                if at < len(todo):
                    own = since + self.budget.limit(calls[todo[at]].fn)
                    deadline = min(own, cap)
                if got.tainted is not None:
                    # The call left something behind (a thread, a timer, a patched
                    # module) that would reach later calls: they get a fresh child,
                    # whose start and import count against this function's time.
                    self._kill()
                    rest = todo[at:]
                    if rest:
                        self._restart(results, rest, calls, charge=c.fn)
                    return [j for j in rest if results[j] is None]
                if careful and at < len(todo):
                    sent = pipe.send(message(todo[at : at + 1]), deadline)
        except Died:
            c = calls[todo[at]]
            reason = self._died()
            failed = Outcome(
                c.id,
                c.fn,
                "crashed",
                elapsed=time.monotonic() - since,
                detail="%s during the call" % reason,
            )
            if self.disk_spent():
                failed = self._disk_crash(c, since)
        except TooLarge:
            c = calls[todo[at]]
            self._kill()
            failed = Outcome(
                c.id, c.fn, "crashed", elapsed=time.monotonic() - since, detail="answer too large"
            )
        if failed is None:
            return []
        if failed.why != "disk":
            self.machine_check()
        i = todo[at]
        results[i] = failed
        self.calls += 1
        self.child_seconds += failed.elapsed
        what = "timed out" if failed.kind == "timeout" else "crashed the child process"
        self.budget.dead[failed.fn] = "not run: an earlier call of %s %s" % (failed.fn, what)
        self.budget.because[failed.fn] = failed.called
        rest = todo[at + 1 :]
        for j in rest:
            if calls[j].fn in self.budget.dead:
                results[j] = self.budget.skipped(calls[j])
        rest = [j for j in rest if results[j] is None]
        if rest:
            self._restart(results, rest, calls, charge=failed.fn)
        return [j for j in rest if results[j] is None]

    def _disk_crash(self, c: Call, since: float) -> Outcome:
        return Outcome(
            c.id,
            c.fn,
            "crashed",
            elapsed=time.monotonic() - since,
            detail=DISK_DETAIL,
            why="disk",
        )

    def _where(self, pipe: Pipe, i: int, limit: int) -> tuple[bytes | None, list[str]]:
        """After the time limit: ask the child which contract functions it is in.

        Returns (the call's answer if it came after all, the stack of contract
        functions, outermost first).  A child stuck in C code does not answer.
        """
        ask = getattr(signal, "SIGUSR1", None)
        if ask is None:
            return None, []  # Windows: the child cannot be asked
        for pid in self._child_pids():
            try:
                os.kill(pid, ask)
            except OSError:
                pass
        deadline = time.monotonic() + WHERE_WAIT
        try:
            while True:
                line = pipe.line(deadline, limit)
                if line is None:
                    return None, []
                try:
                    data = decode(line)
                    if type(data) is dict and type(data.get("id")) is int and data["id"] == i:
                        return line, []
                    if type(data) is dict and data.get("op") == "where":
                        return None, decoding.where(data, self.names)
                except OffProtocol:
                    return None, []
        except (Died, TooLarge):
            return None, []

    def _outcome(self, c: Call, got: decoding.AnswerFields) -> Outcome:
        common: dict[str, Any] = {
            "mutated": got.mutated,
            "called": got.called,
            "mults": got.mults,
            "elapsed": got.elapsed,
            "printed": got.printed,
        }
        if got.ok:
            return Outcome(c.id, c.fn, "returned", value=got.value, **common)
        return Outcome(c.id, c.fn, "raised", raised=got.raised, **common)
