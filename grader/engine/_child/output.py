# The child's program: what the student's code leaves besides values.  Its printed
# output, its tracebacks, and the files its report writer wrote.

TYPE_CHECKING = False
if TYPE_CHECKING:  # the other parts' names, for the type checker only
    from grader.engine._child.names import *


_STREAMS: list = []  # the interpreter's own stdout and stderr, taken in main()


def _flush():
    for stream in _STREAMS:
        try:
            stream.flush()
        except BaseException:
            pass


_SOURCE = [b""]  # the student's module as it was loaded


def _traceback(exc, path):
    try:
        import linecache
        import traceback  # only after a failed import: it costs a few ms

        # The lines shown come from the source that was run, never from a file
        # looked up by its name (which may be a link, or changed since).
        lines = _SOURCE[0].decode("utf-8", "replace").splitlines(True)
        linecache.cache[path] = (len(_SOURCE[0]), None, lines, path)

        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        text = "".join(traceback.format_exception(type(exc), exc, tb))
    except BaseException:
        return ""
    if len(text) > MAX_TRACEBACK:
        text = "...\n" + text[-MAX_TRACEBACK:]
    return text


def _printed(name, printing, start=0):
    """What the last call printed (fds 1 and 2 hold nothing else from ``start`` on): its
    bytes and lines, and the first lines of the first call of each function that
    printed; None when it printed nothing."""
    try:
        size = _fstat(1).st_size - start
        if size <= 0 or _pread is None:
            return None
        head = _pread(1, COUNT_PRINTED, start)
    except BaseException:
        return None
    lines = head.count(b"\n") + (0 if head.endswith(b"\n") else 1)
    note = {"size": size, "lines": lines}
    if name not in printing:
        printing[name] = None
        note["head"] = head[: MAX_PRINTED * 4].decode("utf-8", "replace")[:MAX_PRINTED]
    return note


def _student_traceback(exc, path):
    """The traceback from the student's first frame on, without this file's frames."""
    try:
        import traceback

        own = _TRACED_CODES[0].co_filename
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != own]
        while frames and frames[0].filename != path:
            del frames[0]
        # A function stopped by the grader: the parent's message says so, in the
        # student's language; the frames show where the call was made.
        last = [] if isinstance(exc, _Stopped) else traceback.format_exception_only(type(exc), exc)
        shown = traceback.format_list(frames)
        cut = False
        while len(shown) > 1 and sum(map(len, shown)) > MAX_TRACEBACK:
            del shown[0]  # whole frames, the earliest first
            cut = True
        text = "Traceback (most recent call last):\n" + ("  ...\n" if cut else "")
        text += "".join(shown) + "".join(last)
    except BaseException:
        return ""
    if len(text) > MAX_TRACEBACK + 1000:
        text = text[: MAX_TRACEBACK + 1000]
    return text


def _written(path, limit):
    """{"state": "file", "size": N, "v": BASE64 of at most limit + 1 bytes}, or why not."""
    try:
        fd = _open(path, _READ_FLAGS)
    except BaseException:
        try:
            mode = _lstat(path).st_mode
        except BaseException:
            return {"state": "missing"}
        if _ISLNK(mode):
            return {"state": "link"}
        if _ISDIR(mode):
            return {"state": "directory"}
        return {"state": "unreadable"}
    try:
        info = _fstat(fd)
        if _ISDIR(info.st_mode):
            return {"state": "directory"}
        if not _ISREG(info.st_mode):
            return {"state": "special"}
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = _read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        size = info.st_size if info.st_size > len(data) else len(data)
        return {"state": "file", "size": size, "v": _b2a(data, newline=False).decode("ascii")}
    except BaseException:
        return {"state": "unreadable"}
    finally:
        _close(fd)
