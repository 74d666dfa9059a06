"""The report writer adds a key nested 450 deep to the JSON, and the same file is
handed in: comparing the two recursed past Python's limit (a grader error)."""

import os as _os

_write_report = globals()["write_report"]


def write_report(outdir="."):
    fields = _write_report(outdir)
    path = _os.path.join(outdir, "embed_report.json")
    with open(path, encoding="utf-8") as f:
        text = f.read().rstrip()
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write(text[:-1] + ', "deep": ' + "[" * 450 + "]" * 450 + "}\n")
    return fields
