"""stretch answers correctly but gives math another class, whose sqrt gives 0.0: the
module's dict is untouched, yet nothing of that may reach the other functions."""

import math as _math
import types as _types


class _Wrong(_types.ModuleType):
    def __getattribute__(self, name):
        if name == "sqrt":
            return lambda x: 0.0
        return _types.ModuleType.__getattribute__(self, name)


def stretch(table, token_id, factor):
    out = [list(row) for row in table]
    out[token_id] = [x * factor for x in out[token_id]]
    _math.__class__ = _Wrong
    return out
