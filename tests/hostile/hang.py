"""dot never returns; norm sleeps for 1000 s."""

import time as _time


def dot(a, b):
    while True:
        pass


def norm(vec):
    _time.sleep(1000)
