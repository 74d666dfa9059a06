"""The import writes its own answer to "load" on the protocol pipe (found through
/proc/self/fd): well-formed JSON whose names are not an object."""

import fcntl as _fcntl
import os as _os

for _name in _os.listdir("/proc/self/fd"):
    _fd = int(_name)
    try:
        if _fd > 2 and _os.readlink("/proc/self/fd/%d" % _fd).startswith("pipe:"):
            if _fcntl.fcntl(_fd, _fcntl.F_GETFL) & _os.O_ACCMODE == _os.O_WRONLY:
                _os.write(_fd, b'{"op": "loaded", "ok": true, "names": 5, "elapsed": "now"}\n')
    except OSError:
        pass
