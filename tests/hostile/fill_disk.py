"""dot fills the disk it writes on with files just under the per-file limit (then the last bytes with small ones); slow calls of stretch then keep the child, and what it wrote, alive: a classmate graded meanwhile must not pay for it."""

import math as _math
import time as _time

_MIB = b"\0" * (1 << 20)
_filled = []


def _write(name, chunks, last):
    try:
        with open(name, "wb") as f:
            for _ in range(chunks):
                f.write(_MIB)
            f.write(last)
        return True
    except OSError:
        return False


def _fill():
    # RLIMIT_FSIZE is 64 MiB: each big file stops one byte short of it; at most 8.
    for n in range(8):
        if not _write("fill-%d.bin" % n, 63, _MIB[:-1]):
            break
    for n in range(256):  # what is left, 4 KiB at a time
        if not _write("last-%d.bin" % n, 0, _MIB[:4096]):
            break


def dot(a, b):
    if not _filled:
        _filled.append(1)
        _fill()
    return _math.fsum(x * y for x, y in zip(a, b))


def stretch(table, token_id, factor):
    _time.sleep(0.5)
    if not 0 <= token_id < len(table):
        raise IndexError(token_id)
    new = [list(row) for row in table]
    new[token_id] = [x * factor for x in table[token_id]]
    return new
