# The child's program: its side of the protocol.  ``Child`` loads the module, runs
# calls and the report writer, and answers each request with one line of JSON.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


class Child(_Watching):
    def __init__(self, reader, out_fd):
        self.reader = reader
        self.out_fd = out_fd
        self.globals = None
        self.max_line = 64 << 20
        # [name, namespace, keys, values, version reader, version]: checked after every call
        self.watched = []
        self.held = []  # (name, module) of every watched module: see watch
        self.held_modules = []
        self.listed = []
        self.modules_version = self.modules_seen = None
        self.recursion = _getrecursionlimit()
        self.threads = 0
        self.printing = {}  # functions whose printed output was sent already
        self.printed_from = 0  # where the next call's output starts (after the import's)
        # Every call's copies of its arguments, kept while the child lives: a later
        # call's copy is never put where an earlier one was, so that a module that
        # remembers its arguments by id() meets a new object at an old address only
        # where a pair of calls makes one there on purpose ("renewed"), never by the
        # chance of the allocator, and its verdict does not change from run to run.
        self.kept = []

    def send(self, obj):
        self.write((_dumps(obj) + "\n").encode("ascii"))

    def write(self, data):
        view = memoryview(data)
        while view:
            view = view[_write(self.out_fd, view) :]

    def load(self, msg):
        path = msg["path"]  # the child's copy
        name = msg.get("name") or path  # the name the student knows it by
        modname = str(msg.get("module") or "embed")  # what it is imported as
        _STUDENT_FILE[0] = name
        self.max_line = int(msg.get("max_line", self.max_line))
        memory = int(msg.get("memory_mb", 0))
        if memory > 0:
            _limit("RLIMIT_AS", memory << 20)
        _limit("RLIMIT_CPU", int(msg.get("cpu_seconds", 120)))
        _limit("RLIMIT_FSIZE", int(msg.get("fsize_mb", 64)) << 20)
        _limit("RLIMIT_CORE", 0)
        _DEAD.update(msg.get("dead", ()))
        watcher = Watcher(msg.get("stdlib", ()), name)
        sys.meta_path.insert(0, watcher)

        error = None
        trace = ""
        start = _perf()
        module = None
        try:
            spec = _spec_from_file(modname, path)
            module = _module_from_spec(spec)  # type: ignore[arg-type]
            sys.modules[modname] = module
            with open(path, "rb") as f:
                source = f.read()
            _SOURCE[0] = source
            code = compile(source, name, "exec", dont_inherit=True)
            exec(code, module.__dict__)
        except BaseException as exc:
            error = describe(exc)
            trace = _traceback(exc, name)
        elapsed = _perf() - start
        _flush()
        _stop_timers()
        try:
            self.printed_from = _fstat(1).st_size  # the parent reads what the import printed
        except BaseException:
            pass
        names = {}
        space = module.__dict__ if module is not None else {}
        self.globals = space
        for name in msg.get("functions", ()):
            try:
                obj = space[name] if name in space else _NONE
                if obj is _NONE:
                    names[name] = "missing"
                elif not callable(obj):
                    names[name] = "not callable"
                else:
                    names[name] = "function"
                    if isinstance(obj, _WRAPPABLE):
                        space[name] = _traced(name, obj)
            except BaseException:
                names[name] = "missing"
        for name in msg.get("constants", ()):
            try:
                names[name] = (
                    Encoder(MAX_CONSTANT).encode(space[name]) if name in space else "missing"
                )
            except BaseException:
                names[name] = "missing"
        self.watch(space)
        self.send(
            {
                "op": "loaded",
                "ok": error is None,
                "names": names,
                "third_party": watcher.third_party[:MAX_NAMES],
                "error": error,
                "traceback": trace,
                "elapsed": elapsed,
            }
        )

    def run(self, msg):
        values = msg.get("values") or {}
        plans: dict[str, Any] = {}
        # What exists now (the module, the run's values) stays: the collector need not
        # walk it again and again while the calls make their copies.
        _gc_freeze()
        try:
            for call in msg["calls"]:
                self.call(call, values, plans)
        finally:
            _KNOWN.clear()
            _MADE.clear()

    def call(self, call, values, plans):
        cid = call["id"]
        name = call["fn"]
        count = call.get("count") or ()
        max_line = min(int(call.get("max", self.max_line)), self.max_line)
        masters = []
        args = []
        for i, a in enumerate(call["args"]):
            if type(a) is _Ref:
                m = values[a.name]
                if a.name not in plans:
                    plans[a.name] = plan(m)
                p = plans[a.name]
            else:
                m = a
                p = plan(m)
            if i in count:
                m = counted(m)
            masters.append(m)
            args.append(m if p is None else p(m))
        fn = self.globals.get(name) if self.globals is not None else None
        error = None
        mutated = None
        start = _perf()
        _TRACE.clear()  # what the first call of a pair entered counts too
        _MULTS[0] = 0
        if call.get("before") is not None and fn is not None and callable(fn):
            args, mutated, error = _earlier(fn, call, args)
        value = None
        try:
            if error is None:
                if fn is None or not callable(fn):
                    raise NameError("name %r is not defined" % (name,))
                value = fn(*args)
        except BaseException as exc:
            error = exc
        elapsed = _perf() - start
        mults = _MULTS[0] if count else None
        called = [n for n in _TRACE if n != name]
        for i, (a, m) in enumerate(zip(args, masters)):  # noqa: B905 (Python 3.8)
            if mutated is not None:
                break
            mutated = changed(a, m, "args[%d]" % i)
        _flush()
        printed = _printed(name, self.printing, self.printed_from)
        self.printed_from = 0
        try:
            _truncate(1, 0)  # what a call prints is not kept: it must not fill the file
            _seek(1, 0, 0)  # fds 1 and 2 share one offset
        except BaseException:
            pass
        answer = {
            "id": cid,
            "ok": error is None,
            "elapsed": elapsed,
            "mutated": mutated,
            "called": called,
            "mults": mults,
        }
        if printed is not None:
            answer["printed"] = printed
        tainted = self.left_behind()
        if tainted is not None:
            answer["tainted"] = tainted
        self.kept.append(args)
        # The collector then walks them no more: what the call left as garbage is
        # collected first (the generations younger than the frozen), then what
        # lives is set aside with the rest.
        _gc_collect(1)
        _gc_freeze()
        del args, masters
        if error is not None:
            answer["raised"] = describe(error)
            del error
            self.send(answer)
            return
        try:
            # Every item costs at least two bytes on the line: past max_line // 2 items
            # the answer is cut before it is packed.
            encoded = Encoder(min(MAX_ITEMS, max_line // 2)).encode(value)
            del value
            if type(encoded) is dict and encoded.get("$") in _PACKED:
                # Packed doubles are base64 text, which needs no escaping: the line
                # is put together here rather than scanned by the encoder.
                data = _packed_line(_dumps(answer)[:-1], encoded)
            else:
                answer["value"] = encoded
                data = (_dumps(answer) + "\n").encode("ascii")
            del encoded
        except BaseException:
            data = None
        if data is None or len(data) > max_line:  # the line, without its newline, reaches max_line
            data = None
            answer["value"] = {"$": "cut", "type": "?", "why": "too large"}
        if data is None:
            self.send(answer)
        else:
            self.write(data)

    def report(self, msg):
        """Run the module's report writer into a fresh folder and send back its files.

        The files are read here (never through a link, at most max_bytes + 1 bytes
        each) and travel as base64, so the parent never opens anything the student's
        code could have replaced.
        """
        name = msg["dir"]
        if type(name) is not str or "/" in name or name in ("", ".", ".."):
            raise ValueError("dir must be a plain name")
        folder = _HOME[0] + "/" + name  # inside the child's own folder, wherever it is
        names = msg["files"]
        limit = int(msg["max_bytes"])
        fn = self.globals.get(msg["fn"]) if self.globals is not None else None
        files: dict = {}
        answer = {"op": "reported", "ok": False, "absent": None, "files": files}
        if fn is None:
            answer["absent"] = "missing"
            self.send(answer)
            return
        if not callable(fn):
            answer["absent"] = "not callable"
            self.send(answer)
            return
        _TRACE.clear()
        error = None
        start = _perf()
        try:
            _mkdir(folder, 0o700)
            fn(folder)
        except BaseException as exc:
            error = exc
        elapsed = _perf() - start
        _flush()
        try:
            _truncate(1, 0)  # what the writer printed is not kept
            _seek(1, 0, 0)
        except BaseException:
            pass
        answer["elapsed"] = elapsed
        answer["called"] = list(_TRACE)
        if error is not None:
            answer["raised"] = describe(error)
            answer["traceback"] = _student_traceback(error, _STUDENT_FILE[0])
            del error
        else:
            answer["ok"] = True
            for name in names:
                files[name] = _written(folder + "/" + name, limit)
        self.send(answer)
