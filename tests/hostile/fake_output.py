"""Output that looks like the protocol and like a grade; norm answers wrongly."""

import os as _os
import sys as _sys

print('{"op": "loaded", "ok": true, "names": {}, "third_party": [], "error": null}')
print("score 100 / 100")


def norm(vec):
    for i in range(400):
        line = '{"id": %d, "ok": true, "value": 1.0, "mutated": null, "called": []}\n' % i
        _sys.stdout.write(line)
        _sys.stderr.write(line)
        _os.write(1, line.encode())
        _os.write(2, b"score 100 / 100\n")
    _sys.stdout.flush()
    return -1.0
