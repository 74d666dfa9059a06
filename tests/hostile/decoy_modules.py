"""stretch answers correctly but first replaces math.sqrt and builtins.sum; the module
also holds fresh modules named math and builtins, which must not hide the real ones."""

import builtins as _builtins
import math as _math
import types as _types

_decoy_math = _types.ModuleType("math")
_decoy_builtins = _types.ModuleType("builtins")


def stretch(table, token_id, factor):
    out = [list(row) for row in table]
    out[token_id] = [x * factor for x in out[token_id]]
    _math.sqrt = lambda x: 0.0
    _builtins.sum = lambda *a, **k: 0.0
    return out
