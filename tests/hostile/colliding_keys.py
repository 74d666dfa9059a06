"""Dicts whose int keys all share one hash (multiples of 2**61 - 1), written on the
protocol pipe by the module itself: the import answers "load" first, with VOCAB a
dict of 135,000 such keys (under the 4 MiB an answer to load may take), and each
call of dot answers with 10,500 of them (just under its byte limit).  A parent
that builds them as dicts compares every key with every other: minutes for the
import's answer alone."""

import fcntl as _fcntl
import os as _os
import sys as _sys

_SAME_HASH = 2**61 - 1


def _protocol_fd():
    for name in _os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and _os.readlink("/proc/self/fd/%d" % fd).startswith("pipe:"):
                if _fcntl.fcntl(fd, _fcntl.F_GETFL) & _os.O_ACCMODE == _os.O_WRONLY:
                    return fd
        except OSError:
            pass
    return 1


def _write(line):
    data = memoryview(line.encode())
    fd = _protocol_fd()
    while data:
        data = data[_os.write(fd, data) :]


def _colliding(n):
    return '{"$": "dict", "v": [%s]}' % ",".join("[%d, 0]" % (k * _SAME_HASH) for k in range(n))


def _running():
    f = _sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "call" and "cid" in f.f_locals:
            return f.f_locals["cid"], f.f_locals.get("name")
        f = f.f_back
    return 0, None


_ANSWER = _colliding(10500)
_dot = globals()["dot"]


def dot(a, b):
    cid, name = _running()
    if name == "dot":
        _write(
            '{"id": %d, "ok": true, "elapsed": 0.0, "called": [], "value": %s}\n' % (cid, _ANSWER)
        )
    return _dot(a, b)


_NAMES = [
    '"%s": "function"' % n for n, v in list(globals().items()) if callable(v) and n[:1] != "_"
]
_NAMES += ['"VOCAB": %s' % _colliding(135000), '"DIM": %d' % globals()["DIM"]]
_NAMES.append('"SEED": %d' % globals()["SEED"])
_write(
    '{"op": "loaded", "ok": true, "names": {%s}, "third_party": [], "error": null, '
    '"traceback": "", "elapsed": 0.0}\n' % ", ".join(_NAMES)
)
