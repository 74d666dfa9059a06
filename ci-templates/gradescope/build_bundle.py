"""Build the Gradescope autograder: ``python ci-templates/gradescope/build_bundle.py [DIST]``.

Also run by ``nox -s gradescope``.  Writes ``DIST/gradescope-autograder.zip`` (DIST
defaults to ``dist/``) holding ``setup.sh`` and ``run_autograder`` from this folder
and a wheel of the grader built from the repository, which ``setup.sh`` installs.
Upload the zip as the assignment's autograder ("Zip file upload").
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRIPTS = ("setup.sh", "run_autograder")
NAME = "gradescope-autograder.zip"


def _setuptools_ok() -> bool:
    """A setuptools that can build the wheel here, without an isolated environment."""
    try:
        import setuptools
    except ImportError:
        return False
    version = tuple(int(p) for p in setuptools.__version__.split(".")[:2] if p.isdigit())
    if version < (64,):
        return False
    if version >= (70, 1):  # bdist_wheel is part of setuptools from 70.1 on
        return True
    try:
        import wheel  # noqa: F401
    except ImportError:
        return False
    return True


def wheel(root: Path, dest: Path) -> Path:
    """Build the grader's wheel into ``dest`` with pip and return its path."""
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dest)]
    if _setuptools_ok():
        command.append("--no-build-isolation")
    subprocess.run(command + [str(root)], check=True)
    found = sorted(dest.glob("embed_grader-*.whl"))
    if len(found) != 1:
        raise RuntimeError("expected one wheel in %s, found %d" % (dest, len(found)))
    return found[0]


def build(root: Path = ROOT, dist: Path | None = None) -> Path:
    """Write the autograder zip and return its path."""
    dist = Path(dist) if dist is not None else root / "dist"
    dist.mkdir(parents=True, exist_ok=True)
    target = dist / NAME
    with tempfile.TemporaryDirectory(prefix="embed-grader-wheel-") as tmp:
        built = wheel(root, Path(tmp))
        partial = target.with_name(NAME + ".part")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            for name in SCRIPTS:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = 0o100755 << 16  # a regular file, executable
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, (HERE / name).read_bytes())
            z.write(built, built.name)
        partial.replace(target)
    return target


if __name__ == "__main__":
    print(build(ROOT, Path(sys.argv[1]) if len(sys.argv) > 1 else None))
