"""Every function returns one shared list of 4 million floats (32 MB in the child, some
43 MB on the wire each time); norm also writes a 20 MB answer line of its own to the
protocol pipe: a parent that decodes every answer in full needs gigabytes."""

import fcntl as _fcntl
import os as _os
import sys as _sys

_HUGE = [0.5] * 4000000


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


def _huge(*args):
    return _HUGE


def norm(vec):
    line = '{"id": %d, "ok": true, "elapsed": 0.0, "called": [], "value": [%s]}\n' % (
        _running_id(),
        ",".join(["0.5"] * 5000000),
    )
    fd = _protocol_fd()
    data = memoryview(line.encode())
    while data:
        data = data[_os.write(fd, data) :]
    return _HUGE


for _name in (
    "make_table shape param_count lookup one_hot row_times_matrix lookup_via_one_hot "
    "one_hot_mults logits tied_params untied_params vocab_growth dot cosine stretch "
    "nearest_by_cosine nearest_by_dot rms scaled_lookup"
).split():
    globals()[_name] = _huge
