"""Build the student edition's wheel: ``python tools/student_wheel.py [DIST] [--runs N]``.

Also run by ``nox -s student-wheel``.  The student edition is the grader without its
oracle, case generators and mistake models (``grader.labs.embed.stored.LEFT_OUT``),
holding instead runs of cases prepared with them
(``grader.labs.embed.stored.build``).  It is built from the full grader's wheel:
those files are taken out, the prepared runs put in, and the distribution renamed
``embed-grader-student`` (its command is still ``embed-grader``).  The build fails
when the wheel holds a left-out file, the reference solution or ``reference/``.
Writes ``DIST/embed_grader_student-VERSION-py3-none-any.whl`` (DIST: ``dist/``).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "ci-templates" / "gradescope"))

import build_bundle  # noqa: E402

from grader.labs.embed.stored import LEFT_OUT, build  # noqa: E402

NAME = "embed-grader-student"
LAB = "grader/labs/embed/"
RUNS = "grader/labs/embed/stored/runs/"


def left_out(name: str) -> bool:
    """Whether a file of the full wheel stays out of the student edition."""
    if not name.startswith(LAB):
        return False
    inner = name[len(LAB) :]
    return any(inner == p or (p.endswith("/") and inner.startswith(p)) for p in LEFT_OUT)


def forbidden(names: list[str]) -> list[str]:
    """Files that must not be in the student edition's wheel."""
    stray = set(build_bundle.stray_files_of(names))
    return [n for n in names if left_out(n) or n in stray]


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def assemble(full: Path, runs: Path, dest: Path) -> Path:
    """The student wheel from the full one and a folder of prepared runs."""
    with zipfile.ZipFile(full) as z:
        files = {n: z.read(n) for n in z.namelist() if not n.endswith("/")}
    old_info = next(n.split("/")[0] for n in files if n.split("/")[0].endswith(".dist-info"))
    version = old_info[: -len(".dist-info")].split("-")[1]
    info = "%s-%s.dist-info" % (NAME.replace("-", "_"), version)
    out: dict[str, bytes] = {}
    for name, data in files.items():
        if left_out(name) or name.endswith("/RECORD") or "/__pycache__/" in name:
            continue
        if name.startswith(old_info + "/"):
            name = info + name[len(old_info) :]
            if name.endswith("/METADATA"):
                data = _metadata(data)
        out[name] = data
    for path in sorted(runs.iterdir()):
        out[RUNS + path.name] = path.read_bytes()
    bad = forbidden(sorted(out))
    if bad:
        raise RuntimeError("the student wheel would hold: %s" % ", ".join(bad))
    target = dest / ("%s-%s-py3-none-any.whl" % (NAME.replace("-", "_"), version))
    record = [_record_line(n, d) for n, d in out.items()] + [info + "/RECORD,,"]
    out[info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(out, key=lambda n: (n.startswith(info), n)):
            zi = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            zi.external_attr = 0o100644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, out[name])
    return target


def _metadata(data: bytes) -> bytes:
    lines = data.decode("utf-8").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Name: "):
            lines[i] = "Name: " + NAME
        elif line.startswith("Summary: "):
            lines[i] = line + " (student edition: no answer key)"
    return "\n".join(lines).encode("utf-8")


def build_student_wheel(dist: Path, runs: int = build.RUNS) -> Path:
    dist.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="embed-grader-student-") as tmp:
        full = build_bundle.wheel(ROOT, Path(tmp) / "full")
        prepared = Path(tmp) / "runs"
        build.prepare(prepared, runs)
        built = assemble(full, prepared, Path(tmp))
        for old in dist.glob("embed_grader_student-*.whl"):
            old.unlink()
        target = dist / built.name
        target.write_bytes(built.read_bytes())
    return target


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python tools/student_wheel.py")
    p.add_argument("dist", nargs="?", type=Path, default=ROOT / "dist")
    p.add_argument("--runs", type=int, default=build.RUNS)
    args = p.parse_args(argv)
    target = build_student_wheel(args.dist, args.runs)
    print("%s: %d prepared runs, %.1f MB" % (target, args.runs, target.stat().st_size / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
