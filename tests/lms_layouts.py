"""Class folders laid out as the learning platforms download them, for the tests."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "embed.py"
REPORTS = ("embed_report.json", "embed_report.md")
WRONG = ROOT / "tests" / "corpus" / "wrong" / "cosine_not_divided.py"


def put(path: Path, source: Path | str = MODULE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(source, Path):
        shutil.copyfile(source, path)
    else:
        path.write_text(source, encoding="utf-8")
    return path


def with_reports(folder: Path, prefix: str = "") -> None:
    for i, name in enumerate(REPORTS):
        put(folder / (prefix.format(i) + name), ROOT / "reference" / name)


def canvas_class(root: Path) -> None:
    """Canvas's flat download: every file of a student shares name_USERID."""
    put(root / "smithjohn_101_9001_embed.py")
    put(root / "smithjohn_101_9002_test_embed.py", WRONG)
    with_reports(root, "smithjohn_101_900{0}3_")
    put(root / "leeann_late_102_9005_embed.txt", "print('hi')\n")
    put(root / "kimmin_103_9006_embed (1).py")
    with_reports(root, "kimmin_103_910{0}_")
    put(root / "eve_104_9007_embed_report.json", ROOT / "reference" / REPORTS[0])
    zipped = root / "parkjin_105_9008_lab.zip"
    with zipfile.ZipFile(zipped, "w") as zf:
        zf.write(MODULE, "lab/embed.py")
        for name in REPORTS:
            zf.write(ROOT / "reference" / name, "lab/" + name)
    put(root / "choisun_106_9009_embed-2.py")
    put(root / "choisun_106_9010_embed-1.py", WRONG)
