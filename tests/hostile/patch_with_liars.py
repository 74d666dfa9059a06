"""stretch answers correctly but first replaces math.sqrt with an object that claims
to equal anything: a patch that hides from == must still reach no other function."""

import math as _math


class _Liar(object):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = object.__hash__

    def __call__(self, x):
        return 2.0


def stretch(table, token_id, factor):
    out = [list(row) for row in table]
    out[token_id] = [x * factor for x in out[token_id]]
    _math.sqrt = _Liar()
    return out
