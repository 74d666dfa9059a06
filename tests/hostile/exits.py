"""sys.exit, os._exit, SystemExit and KeyboardInterrupt inside functions."""

import os as _os
import sys as _sys


def dot(a, b):
    _sys.exit(0)


def norm(vec):
    _os._exit(0)


def cosine(a, b):
    raise SystemExit("done")


def rms(vec):
    raise KeyboardInterrupt
