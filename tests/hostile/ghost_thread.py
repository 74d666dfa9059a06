"""dot leaves a daemon whose first thread has ended while another runs: /proc shows
it as a zombie, with an empty command line and environment.  It must still be
killed (a double fork after setsid(), with a cleared environment)."""

import math as _math
import os as _os
import sys as _sys

MARK = "876.54321"
_CODE = (
    "import ctypes, threading, time\n"
    "threading.Thread(target=time.sleep, args=(%s,)).start()\n"
    "time.sleep(0.05)\n"
    "ctypes.CDLL(None).pthread_exit(None)\n" % MARK
)
_started = []


def dot(a, b):
    if not _started:
        _started.append(True)
        pid = _os.fork()
        if pid == 0:
            try:
                _os.setsid()
                if _os.fork() == 0:
                    _os.execve(_sys.executable, [_sys.executable, "-c", _CODE], {})
            finally:
                _os._exit(0)
        _os.waitpid(pid, 0)
    return _math.fsum(x * y for x, y in zip(a, b))
