"""Build the Gradescope autograder: ``python ci-templates/gradescope/build_bundle.py [DIST]``.

Also run by ``nox -s gradescope``; ``--wheel`` builds only the grader's wheel into
DIST (``nox -s wheel``), the file a course gives students or installs in CI.  Every
wheel built here is checked to hold the grader package and nothing else: no
reference solution (the repository's ``embed.py``) and no ``reference/`` files.  Writes ``DIST/gradescope-autograder.zip`` (DIST
defaults to ``dist/``) holding ``setup.sh`` and ``run_autograder`` from this folder
the course's choices in ``gradescope.json`` (checked here: a wrong key or value stops
the build), a wheel of the grader built from the repository, and in ``wheels/`` the
wheels of everything it needs (``pip download`` of its dependencies, for every Python
``setup.sh`` may pick, :data:`PYTHONS`, on Gradescope's x86-64 Linux), so that
``setup.sh`` installs with ``--no-index`` and building the image needs no package
index.  Upload the zip as the assignment's autograder ("Zip file upload").
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
CONFIG = "gradescope.json"  # the course's choices: options and visibility per step
NAME = "gradescope-autograder.zip"
WHEELS = "wheels"  # the zip's folder of the grader's dependencies
PYTHONS = ("3.10", "3.11", "3.12", "3.13")  # the interpreters setup.sh may pick
# Gradescope's images run on x86-64 Linux (Ubuntu 22.04 and 24.04: glibc 2.35 and 2.39).
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")


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


def stray_files(wheel_path: Path) -> list[str]:
    """The files of a wheel that are not part of the grader: it must give away no answers."""
    with zipfile.ZipFile(wheel_path) as z:
        return stray_files_of(z.namelist())


def stray_files_of(names: list[str]) -> list[str]:
    """Of a wheel's file names, those that are not part of the grader."""
    return [
        n
        for n in names
        if not (n.startswith("grader/") or (n.split("/")[0].endswith(".dist-info") and "/" in n))
        or n.split("/")[-1] == "embed.py"
        or "reference/" in n
    ]


def wheel(root: Path, dest: Path) -> Path:
    """Build the grader's wheel into ``dest`` with pip, check it and return its path."""
    command = [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(dest)]
    if _setuptools_ok():
        command.append("--no-build-isolation")
    subprocess.run(command + [str(root)], check=True)
    found = sorted(dest.glob("embed_grader-*.whl"))
    if len(found) != 1:
        raise RuntimeError("expected one wheel in %s, found %d" % (dest, len(found)))
    stray = stray_files(found[0])
    if stray:
        found[0].unlink()
        raise RuntimeError("the wheel holds files that are not the grader's: %s" % ", ".join(stray))
    return found[0]


def download_dependencies(built: Path, dest: Path) -> list[Path]:
    """The wheels of everything ``built`` (the grader's wheel) needs, for each of
    :data:`PYTHONS`, downloaded into ``dest``; the grader's own wheel is not among them."""
    dest.mkdir(parents=True, exist_ok=True)
    for version in PYTHONS:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:"]
        command += ["--python-version", version, "--implementation", "cp", "-d", str(dest)]
        for platform in PLATFORMS:
            command += ["--platform", platform]
        subprocess.run(command + [str(built)], check=True)
    for copy in dest.glob(built.name):
        copy.unlink()
    return sorted(dest.glob("*.whl"))


def build_wheel(root: Path = ROOT, dist: Path | None = None) -> Path:
    """Write the checked wheel into ``dist`` (replacing an older one) and return its path."""
    dist = Path(dist) if dist is not None else root / "dist"
    dist.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="embed-grader-wheel-") as tmp:
        built = wheel(root, Path(tmp))
        for old in dist.glob("embed_grader-*.whl"):
            old.unlink()
        target = dist / built.name
        target.write_bytes(built.read_bytes())
    return target


def check_config(path: Path) -> None:
    """Refuse a configuration the runner would refuse: better at the build than on
    every submission."""
    sys.path.insert(0, str(ROOT))
    from grader.engine.commands.gradescope import load_config
    from grader.engine.lab import find

    load_config(path, find())


def build(root: Path = ROOT, dist: Path | None = None, config: Path | None = None) -> Path:
    """Write the autograder zip and return its path; ``config`` replaces this folder's
    ``gradescope.json``."""
    config = Path(config) if config is not None else HERE / CONFIG
    check_config(config)
    dist = Path(dist) if dist is not None else root / "dist"
    dist.mkdir(parents=True, exist_ok=True)
    target = dist / NAME
    with tempfile.TemporaryDirectory(prefix="embed-grader-wheel-") as tmp:
        built = wheel(root, Path(tmp) / "grader")
        needed = download_dependencies(built, Path(tmp) / WHEELS)
        partial = target.with_name(NAME + ".part")
        with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as z:
            for name in SCRIPTS:
                info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                info.external_attr = 0o100755 << 16  # a regular file, executable
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, (HERE / name).read_bytes())
            z.write(config, CONFIG)
            z.write(built, built.name)
            for dependency in needed:
                z.write(dependency, "%s/%s" % (WHEELS, dependency.name))
        partial.replace(target)
    return target


if __name__ == "__main__":
    args = sys.argv[1:]
    only_wheel = "--wheel" in args
    args = [a for a in args if a != "--wheel"]
    where = Path(args[0]) if args else None
    print(build_wheel(ROOT, where) if only_wheel else build(ROOT, where))
