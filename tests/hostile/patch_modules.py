"""stretch answers correctly but first replaces builtins and functions of math,
random, json, os, time and sys: nothing of that may reach the other functions."""

import builtins as _builtins
import json as _json
import math as _math
import os as _os
import random as _random
import sys as _sys
import time as _time


def stretch(table, token_id, factor):
    out = [list(row) for row in table]
    out[token_id] = [x * factor for x in out[token_id]]
    _builtins.len = lambda x: 0
    _builtins.sum = lambda *a, **k: 0.0
    _builtins.isinstance = lambda *a: True
    _math.sqrt = lambda x: 0.0
    _math.fsum = lambda x: 0.0
    _math.isfinite = lambda x: True
    _random.random = lambda: 0.5
    _json.dumps = lambda *a, **k: '{"id": 0, "ok": true, "value": 0}'
    _json.loads = lambda *a, **k: {}
    _os.write = lambda fd, data: len(data)
    _time.perf_counter = lambda: 0.0
    _sys.stdout = None
    _sys.setrecursionlimit(50)
    return out
