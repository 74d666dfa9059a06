"""Looks for the grader's installation at run time and reads the lab's oracle (and the
grader's /proc entry): through the parent's command line, environment, folders and
descriptors, the interpreter's site-packages and a finder, links and descriptors."""

import os as _os
import sys as _sys

KNOWN = []  # paths the test knows (the oracle's, a checkout's answers): tried as given
_ORACLE = _os.path.join("grader", "labs", "embed", "oracle.py")


def _read(path):
    """The start of a file (never waiting on a pipe or a device)."""
    import stat

    fd = _os.open(path, _os.O_RDONLY | _os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(_os.fstat(fd).st_mode):
            return b""
        return _os.read(fd, 4096)
    finally:
        _os.close(fd)


def _holders(start):
    """``start`` and every folder above it."""
    out = []
    path = _os.path.abspath(start)
    while path not in out:
        out.append(path)
        path = _os.path.dirname(path)
    return out


def _candidates(paths):
    """Where an oracle might be, for every path named anywhere."""
    out = []
    for path in paths:
        for folder in _holders(path):
            out.append(_os.path.join(folder, _ORACLE))
            for sub in ("site-packages", "lib"):
                out.append(_os.path.join(folder, sub, _ORACLE))
    return out


def _site_packages():
    """The site-packages folders of this interpreter and of the system's, and the
    paths their finders and .pth files name."""
    import glob

    found = []
    v = "python%d.%d" % _sys.version_info[:2]
    for root in (_sys.base_prefix, _sys.prefix, "/usr", "/usr/local"):
        for sub in (
            "lib/%s/site-packages" % v,
            "lib/python3/dist-packages",
            "lib/%s/dist-packages" % v,
        ):
            found += glob.glob(_os.path.join(root, sub))
    for folder in list(found):
        try:
            names = _os.listdir(folder)
        except OSError:
            continue
        for name in names:  # an editable install's finder names the checkout
            if name.endswith((".pth", ".py")) and ("grader" in name or "editable" in name):
                try:
                    text = _read(_os.path.join(folder, name)).decode("utf-8", "replace")
                except OSError:
                    continue
                found += [w.strip("'\",()[]{}") for w in text.split() if "/" in w]
    return found


def _parent_paths(ppid):
    """Paths the parent's /proc entry names: its command line, environment, cwd, root."""
    out = []
    base = "/proc/%d/" % ppid
    for name in ("cmdline", "environ"):
        try:
            words = _read(base + name).replace(b"\0", b" ").replace(b":", b" ").split()
        except OSError:
            continue
        out += [w.decode("utf-8", "replace").partition("=")[2] or w.decode() for w in words]
    for name in ("cwd", "root", "exe"):
        try:
            out.append(_os.readlink(base + name))
        except OSError:
            pass
    return [p for p in out if p.startswith("/")]


def _try(found, route, paths):
    for path in paths:
        try:
            data = _read(path)
        except (OSError, ValueError):
            continue
        if data:
            found[route] = path
            return


def steal():
    """What could be read, by route: route -> the path read (empty: nothing was)."""
    found = {}
    ppid = _os.getppid()
    base = "/proc/%d/" % ppid
    # The parent itself: what it is, what it holds.
    for name in ("cmdline", "environ", "maps", "status", "stat"):
        _try(found, "proc-" + name, [base + name])
    try:
        fds = _os.listdir(base + "fd")
    except OSError:
        fds = []
    _try(found, "proc-fd", [base + "fd/" + fd for fd in fds])
    try:
        with open(base + "mem", "rb") as f:
            f.seek(0x400000)
            if f.read(1):
                found["proc-mem"] = base + "mem"
    except (OSError, ValueError, OverflowError):
        pass
    named = _parent_paths(ppid) + list(KNOWN)
    _try(found, "known", list(KNOWN))
    _try(found, "parent-paths", _candidates(named))
    _try(found, "proc-root", [base + "root" + p for p in KNOWN + _candidates(named)])
    _try(found, "proc-cwd", [base + "cwd/" + _ORACLE, base + "cwd/../" + _ORACLE])
    _try(found, "self-root", ["/proc/self/root" + p for p in KNOWN])
    # The interpreter's own installation, a finder's paths.
    try:
        import importlib.util

        spec = importlib.util.find_spec("grader")
        if spec is not None and spec.origin:
            _try(found, "find-spec", _candidates([spec.origin]))
    except Exception:
        pass
    _try(found, "site-packages", _candidates(_site_packages()))
    # A descriptor opened only for its path, then opened again through /proc.
    for path in KNOWN:
        try:
            fd = _os.open(path, getattr(_os, "O_PATH", 0))
        except OSError:
            continue
        try:
            _try(found, "o-path", ["/proc/self/fd/%d" % fd])
        finally:
            _os.close(fd)
    # Links made in the child's own folder.
    for i, path in enumerate(KNOWN):
        for how, make in (("symlink", _os.symlink), ("hardlink", _os.link)):
            name = "stolen-%s-%d" % (how, i)
            try:
                make(path, name)
            except OSError:
                continue
            _try(found, how, [name])
    return found
