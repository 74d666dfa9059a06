"""At import, tries to rewrite the grader's child program (a file of it found through sys.argv[0]), other grader files and a classmate's report; under bubblewrap it first tries to remount them writable."""

import os as _os
import sys as _sys

TARGETS = []  # files of the grader and of a classmate: filled in by the test
ARMED = False  # True only where the test runs a copy of the grader


def _remount_writable(path):
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        ms_remount, ms_bind = 32, 4096
        libc.mount(b"none", path.encode(), None, ms_remount | ms_bind, None)
    except Exception:
        pass


def _rewrite(path):
    _remount_writable(path)
    try:
        _os.chmod(path, 0o666)
    except OSError:
        pass
    try:
        with open(path, "a") as f:
            f.write("\n# rewritten by a submission\n")
    except OSError:
        pass


_targets = list(TARGETS)
_argv0 = _sys.argv[0] if _sys.argv else ""
if _argv0.endswith(".py") and "_child" in _argv0 and ARMED:
    _targets.append(_argv0)
for _path in _targets:
    _rewrite(_path)
