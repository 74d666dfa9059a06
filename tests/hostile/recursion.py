"""rms recurses without end; cosine does so with a recursion limit of 10**6, deep
enough to overflow the C stack."""

import sys as _sys


def rms(vec):
    return rms(vec)


def _down(n):
    return _down(n + 1) + 1


def cosine(a, b):
    _sys.setrecursionlimit(10**6)
    return _down(0)
