"""dot prints about 100 MB in a loop (in its first call); norm prints one 50 MB line
(in its first three calls)."""

import math as _math

_calls = []


def dot(a, b):
    _calls.append("dot")
    if _calls.count("dot") == 1:
        chunk = "x" * 1023
        for _ in range(100 * 1024):
            print(chunk)
    return sum(x * y for x, y in zip(a, b))


def norm(vec):
    _calls.append("norm")
    if _calls.count("norm") <= 3:
        print("y" * (50 << 20))
    return _math.sqrt(sum(x * x for x in vec))
