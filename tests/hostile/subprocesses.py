"""Processes that outlive the call: a plain child, a double fork after setsid(), and
one more with a cleared environment.  Each sleeps with a marker duration."""

import math as _math
import os as _os
import subprocess as _subprocess

MARK = "987.654321"
_started = []


def _escape(clear_env):
    pid = _os.fork()
    if pid == 0:
        try:
            _os.setsid()
            if _os.fork() == 0:
                if clear_env:
                    _os.execve("/bin/sleep", ["sleep", MARK], {})
                _os.execv("/bin/sleep", ["sleep", MARK])
        finally:
            _os._exit(0)
    _os.waitpid(pid, 0)


def dot(a, b):
    if not _started:
        _started.append(_subprocess.Popen(["sleep", MARK]))
        _escape(False)
        _escape(True)
    return _math.fsum(x * y for x, y in zip(a, b))
