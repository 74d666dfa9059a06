"""Calls write their own answer to the protocol pipe (found through /proc/self/fd):
well-formed JSON with the running call's id and fields of the wrong type."""

import fcntl as _fcntl
import json as _json
import os as _os
import sys as _sys


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


def _running_id():
    f = _sys._getframe(1)
    while f is not None:
        if f.f_code.co_name == "call" and "cid" in f.f_locals:
            return f.f_locals["cid"]
        f = f.f_back
    return 0


def _forge(**fields):
    line = {"id": _running_id(), "ok": True, "value": 1.0, "elapsed": 0.0}
    line.update(mutated=None, called=[], mults=None)
    line.update(fields)
    _os.write(_protocol_fd(), (_json.dumps(line) + "\n").encode())


_FORGED = {
    "dot": {"called": 5},
    "norm": {"mults": "many"},
    "cosine": {"elapsed": [1]},
    "rms": {"value": {"$": "f64rows", "cols": [2], "v": ""}},
    "logits": {"ok": False, "raised": {"type": 5, "builtin": 7}},
    "shape": {"id": [0]},
    "lookup": {"value": {"$": "tuple", "v": 5}},
    "one_hot": {"mutated": {"args": 0}},
}


def _forging(name, fn):
    def forging(*args):
        fields = dict(_FORGED[name])
        if fields.get("id") == [0]:
            fields["id"] = [_running_id()]
        _forge(**fields)
        return fn(*args)

    return forging


for _name in _FORGED:
    globals()[_name] = _forging(_name, globals()[_name])
