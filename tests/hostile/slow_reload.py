"""The import takes most of a 1 s time limit, and every function leaves the child
tainted (it raises the recursion limit), so every call forces a restart and a slow
import: without a cap on the whole submission that took minutes."""

import sys as _sys
import time as _time

_time.sleep(0.6)


def _tainting(fn):
    def tainting(*args):
        _sys.setrecursionlimit(_sys.getrecursionlimit() + 1)
        return fn(*args)

    return tainting


for _name in (
    "make_table shape param_count lookup one_hot row_times_matrix lookup_via_one_hot "
    "one_hot_mults logits tied_params untied_params vocab_growth dot norm cosine stretch "
    "nearest_by_cosine nearest_by_dot rms scaled_lookup"
).split():
    globals()[_name] = _tainting(globals()[_name])
