"""Signals to its own process: SIGKILL, SIGSTOP, SIGSEGV."""

import os as _os
import signal as _signal


def dot(a, b):
    _os.kill(_os.getpid(), _signal.SIGKILL)


def norm(vec):
    _os.kill(_os.getpid(), _signal.SIGSTOP)
    return 0.0


def cosine(a, b):
    _os.kill(_os.getpid(), _signal.SIGSEGV)
