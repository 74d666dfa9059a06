"""Development tasks: ``nox -s tests``, ``nox -s lint``, ``nox -s typing``, ``nox -s reference``,
``nox -s mutants``; ``nox -s grade``, ``nox -s wheel``, ``nox -s student-wheel``, ``nox -s gradescope``
and ``nox -s bench`` for instructors and timings.

With no ``-s``, nox runs tests, lint and typing.
"""

from __future__ import annotations

import glob
import hashlib
import os
import subprocess
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["tests", "lint", "typing"]
# A Python that is not installed skips its session instead of failing it, also
# with CI set (where nox would otherwise count a missing interpreter as an error).
nox.options.error_on_missing_interpreters = False

# The reference embed.py must run unchanged on every one of these.
REFERENCE_PYTHONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]


def _put_pyenv_pythons_on_path() -> None:
    """Let ``python3.X`` find pyenv's installed versions, not only the active one.

    pyenv's shims answer for every version it has ever installed but fail for
    the versions that are not active, so the real ``bin`` folders go first.
    """
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin")))
    if found:
        os.environ["PATH"] = os.pathsep.join(found + [os.environ.get("PATH", "")])


def _runs(command: str) -> bool:
    try:
        result = subprocess.run([command, "-c", "pass"], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


_put_pyenv_pythons_on_path()
INSTALLED_REFERENCE_PYTHONS = [v for v in REFERENCE_PYTHONS if _runs("python" + v)]


def _project_hash() -> str:
    """A hash of what an install of the project is built from: the metadata and the package."""
    h = hashlib.sha256()
    files = [Path("pyproject.toml")] + sorted(Path("grader").rglob("*"))
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _install_project_once(session: nox.Session) -> None:
    """Install the project unless this environment already holds the same version of it.

    The stamp lives inside the environment, so a new environment installs afresh.
    """
    location = getattr(session.virtualenv, "location", None)
    if not location:
        session.install(".")
        return
    stamp = Path(location) / "embed-grader.installed"
    wanted = _project_hash()
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        session.log("embed-grader is already installed and up to date")
        return
    session.install(".")
    stamp.write_text(wanted, encoding="utf-8")


@nox.session
def tests(session: nox.Session) -> None:
    """Install the project with its test extra and run the whole test suite."""
    session.install(".[test]")
    # Both cores by default: most of the time goes into grading sample modules.
    session.run("pytest", *(session.posargs or ["-n", "auto"]))


@nox.session
def lint(session: nox.Session) -> None:
    """Lint and check the formatting with ruff; validate the GitHub Actions workflows."""
    session.install("ruff", "check-jsonschema")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run(
        "check-jsonschema",
        "--builtin-schema",
        "vendor.github-workflows",
        "ci-templates/github-actions-grade.yml",
        ".github/workflows/student-edition.yml",
        "ci-templates/shards/github-actions-matrix.yml",
    )


@nox.session
def typing(session: nox.Session) -> None:
    """Type-check the grader package and the mutation run with mypy."""
    session.install("mypy", ".")
    session.run("mypy", "grader", "mutants")


@nox.session(python=INSTALLED_REFERENCE_PYTHONS or REFERENCE_PYTHONS)
def reference(session: nox.Session) -> None:
    """Run the tests of the reference embed.py on every installed Python 3.8-3.13."""
    session.install("pytest")
    session.run("pytest", "tests/test_reference.py", *session.posargs)


@nox.session
def mutants(session: nox.Session) -> None:
    """Grade every mutant of the reference embed.py: fail on a survivor not listed as equivalent.

    ``-- --list`` lists the mutants, ``-- --only ID`` grades some, ``-- --verbose`` shows each.
    """
    session.install(".")
    session.run("python", "-m", "mutants", *session.posargs)


@nox.session
def exercises(session: nox.Session) -> None:
    """Regenerate the student stub exercises/embed.py, the fingerprints of it and of
    the reference that the grader ships, and the notebooks exercises/embed*.ipynb
    (``-- --check`` only compares)."""
    session.install(".")  # the notebooks are written with nbformat, a dependency
    session.run(
        "python",
        "-m",
        "grader.labs.embed.stubgen",
        "embed.py",
        "exercises/embed.py",
        *session.posargs,
    )
    session.run("python", "-m", "grader.engine.similarity.shipped", *session.posargs)
    session.run("python", "-m", "grader.labs.embed.stubgen.notebook", *session.posargs)


@nox.session(reuse_venv=True)
def grade(session: nox.Session) -> None:
    """Grade a class: ``nox -s grade -- SUBMISSIONS_DIR [--out DIR] [batch options]``.

    Without SUBMISSIONS_DIR it grades the reference embed.py with its report files.
    The environment is kept between runs and the project reinstalled only when it
    changed, so a rerun with nothing to regrade takes seconds.
    """
    _install_project_once(session)
    args = list(session.posargs)
    if not args or args[0].startswith("-"):
        session.run("embed-grader", "embed.py", "--report-dir", "reference", *args)
        return
    if "--out" not in args and not any(a.startswith("--out=") for a in args):
        args += ["--out", "out"]
    session.run("embed-grader", "batch", *args)


@nox.session
def wheel(session: nox.Session) -> None:
    """Build dist/embed_grader-VERSION-py3-none-any.whl: the grader alone, for students and CI.

    The build fails when the wheel holds anything but the grader package (no
    reference embed.py, no reference/ files).
    """
    session.install("pip", "setuptools>=64", "wheel")
    session.run("python", "ci-templates/gradescope/build_bundle.py", "--wheel", "dist")


@nox.session(name="student-wheel")
def student_wheel(session: nox.Session) -> None:
    """Build dist/embed_grader_student-VERSION-py3-none-any.whl: the student edition.

    The grader without its oracle, case generators and mistake models, grading on
    runs of cases prepared here with them (``-- --runs N``, 32 by default).
    """
    session.install(".", "pip", "setuptools>=64", "wheel")
    session.run("python", "tools/student_wheel.py", "dist", *session.posargs)


@nox.session
def gradescope(session: nox.Session) -> None:
    """Build dist/gradescope-autograder.zip, the autograder to upload to Gradescope."""
    session.install("pip", "setuptools>=64", "wheel")
    session.run("python", "ci-templates/gradescope/build_bundle.py", "dist")


@nox.session
def bench(session: nox.Session) -> None:
    """Print timing figures: every ``tests/bench_*.py`` in turn (they assert nothing).

    ``tests/bench_pytest_ten.py`` is not a script: ``tests/bench_speed.py`` times a
    pytest run of it beside the grader's.
    """
    session.install(".", "pytest")
    for script in sorted(glob.glob("tests/bench_*.py")):
        if not script.endswith("bench_pytest_ten.py"):
            session.run("python", script)
