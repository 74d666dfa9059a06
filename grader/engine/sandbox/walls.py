"""What the child must not read, and whether this kernel lets it wall itself off.

A child that runs as an unprivileged user (``user``, and ``bwrap`` as root) can still
read every file its user may read: the installed grader with the lab's oracle, a
checkout with its reference answers, the command line of its parent in ``/proc``.
So in every mode that claims isolation the child puts up Landlock walls around
itself before the student's code runs (``grader/engine/_child/walls.py``): it reads
the system's folders, its standard library, its own folder and its own ``/proc``
entry, less the folders named here.  Where the kernel has no Landlock (Linux before
5.13, or Landlock not enabled) nothing can be walled off and ``weaker_note`` says so;
bubblewrap still hides these folders under an empty tmpfs (``bwrap_hidden``).

It imports the standard library and ``grader`` (for where the grader lives) only.
"""

from __future__ import annotations

import functools
import json
import os
import site
import sys
import sysconfig

VARIABLE = "EMBED_GRADER_WALLS"  # the folders to keep out, to the child, as JSON
# The folders the child reads (with its standard library): never kept out whole.
_SYSTEM = ("/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/dev", "/proc")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@functools.lru_cache(maxsize=1)
def kept_out() -> tuple[str, ...]:
    """The folders a child must not read (real paths): the folder that holds the
    grader's package (a checkout, or site-packages), every other folder this
    interpreter imports from but its standard library (site-packages, a virtual
    environment, ``PYTHONPATH``, the folder it was started in), less any that holds
    the standard library or the system's folders, which the child needs."""
    # This file is grader/engine/sandbox/walls.py: three folders up is the package.
    package = os.path.realpath(__file__)
    for _ in range(3):
        package = os.path.dirname(package)
    found = {os.path.dirname(package)}
    places = list(sys.path)
    try:
        places += site.getsitepackages() + [site.getusersitepackages()]
    except AttributeError:  # an interpreter without them (a virtualenv of old)
        pass
    paths = sysconfig.get_paths()
    places += [paths.get("purelib", ""), paths.get("platlib", "")]
    if sys.prefix != sys.base_prefix:
        places.append(sys.prefix)  # a virtual environment holds the installed grader
    # The standard library as this interpreter finds it (sysconfig's platstdlib names
    # a virtual environment's own lib folder, which holds none of it).
    needed = {os.path.dirname(os.path.realpath(os.__file__)), *_SYSTEM}
    needed |= {os.path.realpath(p) for p in sys.path if os.path.basename(p) == "lib-dynload"}
    for place in places:
        real = os.path.realpath(place or os.getcwd())
        packages = os.path.basename(real) in ("site-packages", "dist-packages")
        if not os.path.isdir(real) or (not packages and any(_inside(real, n) for n in needed)):
            continue  # the standard library itself (lib-dynload), a system folder
        found.add(real)
    return tuple(sorted(f for f in found if not any(_inside(n, f) for n in needed)))


def child_variable() -> str:
    """The value of ``VARIABLE`` for a child: the folders it keeps out."""
    return json.dumps(list(kept_out()))


@functools.lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The Landlock ABI version of this kernel (0: none here)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    return max(0, int(abi))


def bwrap_hidden(bound: list[str]) -> list[str]:
    """The folders kept out that lie in one of the ``bound`` folders: bubblewrap hides
    them, even without Landlock."""
    return [p for p in kept_out() if any(_inside(p, b) for b in bound) and os.path.isdir(p)]
