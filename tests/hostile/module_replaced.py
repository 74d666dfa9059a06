"""stretch answers correctly but puts another math in sys.modules, whose sqrt gives 0.0;
norm imports math when called: it must still get the real one."""

import sys as _sys
import types as _types

_dot = globals()["dot"]  # the reference's


def stretch(table, token_id, factor):
    out = [list(row) for row in table]
    out[token_id] = [x * factor for x in out[token_id]]
    fake = _types.ModuleType("math")
    fake.sqrt = lambda x: 0.0
    _sys.modules["math"] = fake
    return out


def norm(vec):
    import math as _fresh

    return _fresh.sqrt(_dot(vec, vec))
