"""How the child is kept apart from the grader: its own process, an unprivileged
user, or bubblewrap; which of them work here and the strongest that does."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from typing import Any

from grader.engine.sandbox import users, walls
from grader.engine.sandbox.records import SandboxError

# process: the grader's own user; user: an unprivileged user of its own (the grader
# runs as root); bwrap: bubblewrap, and an unprivileged user too when run as root.
ISOLATIONS = ("process", "user", "bwrap")
CHOICES = ISOLATIONS + ("auto",)  # auto: the strongest that works here


def drops_user() -> bool:
    """Whether children run as an unprivileged user of their own (as root only)."""
    return users.problem() == ""


def as_user(lease: users.Lease | None) -> dict[str, Any]:
    """Popen arguments that start a process as the leased user, no other groups."""
    if lease is None:
        return {}
    return {"user": lease.uid, "group": lease.gid, "extra_groups": []}


@functools.lru_cache(maxsize=8)
def user_problem(python: str) -> str:
    """Why children cannot run ``python`` as an unprivileged user ("" when they can)."""
    problem = users.problem()
    if problem:
        return problem
    lease = users.lease()
    try:
        done = subprocess.run(
            [os.path.realpath(python), "-I", "-S", "-B", "-c", "pass"],
            capture_output=True,
            timeout=30,
            cwd="/",
            **as_user(lease),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return "%s cannot be started as an unprivileged user: %s" % (python, exc)
    finally:
        lease.release()
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return (
            "%s cannot run as an unprivileged user (%s); install it where every user can read it"
            % (python, why[-1] if why else "exit status %d" % done.returncode)
        )
    return ""


def bwrap_path() -> str | None:
    return shutil.which("bwrap")


# bubblewrap run by root makes no user namespace: the child starts as root in its own
# mount, pid and network namespaces with no capability but these two, and its first
# act is to become the leased user (``UID_VARIABLE``), which drops them too.
_AS_ROOT = ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
_AS_ROOT += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
_AS_ROOT += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
UID_VARIABLE = "EMBED_GRADER_UID"
HOME_AS_ROOT = "/tmp/child"  # the child's folder inside bubblewrap, in its own /tmp


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str:
    """Why bubblewrap cannot run here ("" when it can): tried once per process."""
    exe = bwrap_path()
    if exe is None:
        return "bwrap is not installed (Debian: apt-get install bubblewrap)"
    cmd = [exe] + (_AS_ROOT if drops_user() else ["--unshare-pid", "--unshare-net"])
    cmd += [
        "--ro-bind",
        "/",
        "/",
        "--size",  # older versions cannot bound a tmpfs: the child's share needs it
        "1048576",
        "--tmpfs",
        "/tmp",
        "--dir",
        "/tmp/a",
        "--chmod",
        "0755",
        "/tmp/a",
    ]
    try:
        done = subprocess.run(cmd + ["true"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return "bwrap does not run: %s" % exc
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return "bwrap cannot make namespaces here: %s" % (why[-1] if why else done.returncode)
    return ""


def strongest(python: str | None = None) -> str:
    """The strongest isolation that works here: bwrap, else an unprivileged user
    (as root), else the grader's own user."""
    if not bwrap_problem():
        return "bwrap"
    if drops_user() and not user_problem(python or sys.executable):
        return "user"
    return "process"


def isolation_problem(isolation: str, python: str | None = None) -> str:
    """What stops ``isolation`` from working here ("" when nothing does)."""
    if isolation == "bwrap":
        return bwrap_problem()
    if isolation == "user":
        return user_problem(python or sys.executable)
    return ""


def weaker_note(isolation: str) -> str:
    """Why a class graded with ``isolation`` is exposed ("" when it is not)."""
    if isolation == "user" and not walls.landlock_abi():
        return "the kernel has no Landlock: the children can read the grader's own files"
    if isolation != "process":
        return ""
    if drops_user():
        return "the grader runs as root and its children do too"
    return "the children run as the grader's own user"


_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32")


def bwrap_command(
    python: str, tmp: str, uid: int | None = None, module: str = "embed.py", size: int = 1 << 26
) -> list[str]:
    """bubblewrap around the child: its own pid and network namespaces, a read-only
    view of the system directories and the Python installation, and nothing
    writable but its own ``/tmp``, a tmpfs of ``size`` bytes that holds its folder
    (``HOME_AS_ROOT``) with a read-only copy of ``tmp/module``, the student's
    module.  With ``uid`` (the grader runs as root) the child becomes that user
    before it reads anything."""
    exe = bwrap_path()
    if exe is None:
        raise SandboxError(bwrap_problem())
    real = os.path.realpath(python)
    cmd = [exe] + (_AS_ROOT if uid is not None else ["--unshare-all"])
    cmd += ["--die-with-parent", "--new-session", "--clearenv", "--tmpfs", "/"]
    bound: list[str] = []
    for d in _SYSTEM_DIRS:
        if os.path.islink(d):
            cmd += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            cmd += ["--ro-bind", d, d]
            bound.append(d)
    prefix = os.path.dirname(os.path.dirname(real))
    if not any(prefix == b or prefix.startswith(b + "/") for b in bound) and prefix != "/":
        cmd += ["--ro-bind", prefix, prefix]
        if uid is not None:
            # The folders above the installation are copies in the sandbox's own
            # root, as closed as the originals (/root, say): the user must pass them.
            above = os.path.dirname(prefix)
            while above != "/":
                cmd += ["--chmod", "0755", above]
                above = os.path.dirname(above)
    # What the child must not read (the grader's installation) is hidden under an
    # empty tmpfs wherever a folder bound here holds it.
    for path in walls.bwrap_hidden(bound + [prefix]):
        cmd += ["--perms", "0555", "--size", "4096", "--tmpfs", path]
    cmd += ["--dev", "/dev", "--proc", "/proc"]
    # The child's share of disk: a tmpfs of its own, nothing of the host's disk.
    cmd += ["--perms", "1777", "--size", str(size), "--tmpfs", "/tmp"]
    cmd += ["--perms", "1777", "--dir", HOME_AS_ROOT]
    cmd += ["--ro-bind", os.path.join(tmp, module), os.path.join(HOME_AS_ROOT, module)]
    # Nothing else is writable: the root and /dev are tmpfs too, without a bound.
    cmd += ["--remount-ro", "/", "--remount-ro", "/dev"]
    if uid is not None:
        # The child goes to its folder once it is that user.
        cmd += ["--chdir", "/", "--setenv", UID_VARIABLE, str(uid)]
    else:
        cmd += ["--chdir", HOME_AS_ROOT]
    return cmd + ["--", real, "-I", "-S", "-B", "-c"]
