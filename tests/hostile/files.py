"""dot writes in its working directory (a read-only tree too) and outside it."""

import math as _math
import os as _os

OUTSIDE = "/tmp/embed-grader-hostile-outside.txt"


_done = []


def dot(a, b):
    if _done:
        return _math.fsum(x * y for x, y in zip(a, b))
    _done.append(1)
    _os.makedirs("junk/deeper", exist_ok=True)
    with open("junk/deeper/file.txt", "w") as f:
        f.write("x" * 1000)
    _os.chmod("junk/deeper", 0o500)
    _os.chmod("junk", 0o500)
    try:
        with open(OUTSIDE, "w") as f:
            f.write("escaped")
    except OSError:
        pass
    return _math.fsum(x * y for x, y in zip(a, b))
