"""The templates of ``ci-templates/shards/`` call the grader with options it has.

Kubernetes and GitHub Actions cannot run here: their scripts are read out of the YAML,
every ``embed-grader batch`` and ``embed-grader merge`` in them is parsed by the
command's own parser, and the merge must read the folders the shards write.  The
Slurm template runs for real in ``tests/test_slurm.py``; its batch line is read here
too.
"""

from __future__ import annotations

import argparse
import fnmatch
import re
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from grader.engine.batch import command, merge

ROOT = Path(__file__).resolve().parent.parent
SHARDS = ROOT / "ci-templates" / "shards"
CALL = re.compile(r"embed-grader\s+(batch|merge)\s+(.*)")


def _scripts(name: str) -> list[str]:
    """The shell scripts of a template."""
    path = SHARDS / name
    if path.suffix == ".sh":
        return [path.read_text("utf-8")]
    data: Any = yaml.safe_load(path.read_text("utf-8"))
    if "jobs" in data:  # a GitHub Actions workflow
        return [s["run"] for job in data["jobs"].values() for s in job["steps"] if "run" in s]
    return list(data["spec"]["template"]["spec"]["containers"][0]["args"])


def _without_substitutions(script: str) -> str:
    """``script`` with each command substitution ``$(...)``, nested ones included,
    replaced by the folder of shard 1."""
    out, depth, i = [], 0, 0
    while i < len(script):
        if script.startswith("$(", i):
            if depth == 0:
                out.append("out/shard-1")
            depth, i = depth + 1, i + 2
            continue
        if depth and script[i] == ")":
            depth -= 1
        elif not depth:
            out.append(script[i])
        i += 1
    return "".join(out)


def _plain(script: str) -> str:
    """One shard's view of a script: continued lines joined, every expansion replaced by
    the value it has for shard 1 of 1 (a command substitution: that shard's folder)."""
    script = script.replace("\\\n", " ").replace('"$EMBED_GRADER"', "embed-grader")
    script = _without_substitutions(script)
    return re.sub(r"\$\{\{[^}]*\}\}|\$\{[^}]*\}|\$[A-Za-z_]+", "1", script)


def calls(name: str) -> dict[str, list[argparse.Namespace]]:
    found: dict[str, list[argparse.Namespace]] = {"batch": [], "merge": []}
    parsers = {"batch": command.parser(), "merge": merge.parser()}
    for script in _scripts(name):
        for line in _plain(script).splitlines():
            hit = CALL.search(line)
            if not hit:
                continue
            words = shlex.split(re.split(r"\|\||&&|;", hit.group(2))[0])
            try:
                found[hit.group(1)].append(parsers[hit.group(1)].parse_args(words))
            except SystemExit:
                pytest.fail("%s: embed-grader %s %s" % (name, hit.group(1), " ".join(words)))
    return found


@pytest.mark.parametrize(
    "name",
    ["slurm-array.sh", "kubernetes-indexed-job.yaml", "github-actions-matrix.yml"],
)
def test_the_shards_call_the_grader_as_it_is(name: str) -> None:
    found = calls(name)
    [batch] = found["batch"]
    assert batch.shard == "1/1" and batch.seed is not None, vars(batch)
    if name.endswith(".sh"):
        return  # its merge command is built as an array: see tests/test_slurm.py
    [joined] = found["merge"]
    assert joined.outs and all(fnmatch.fnmatch(batch.out, o) for o in joined.outs), (
        batch.out,
        joined.outs,
    )
    assert joined.submissions in (None, batch.submissions)


def test_a_flag_the_grader_lacks_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    def wrong(name: str) -> list[str]:
        return ['embed-grader merge out/shard-1 --class out/class --submissions "$S"']

    monkeypatch.setattr(sys.modules[__name__], "_scripts", wrong)
    with pytest.raises(pytest.fail.Exception, match="--class"):
        calls("any")


KUBERNETES = SHARDS / "kubernetes-indexed-job.yaml"


def _named_kubernetes() -> str:
    """The oldest Kubernetes version the template says it needs, as ``1.27.0``."""
    found = re.search(r"Kubernetes (1\.\d+) or newer", KUBERNETES.read_text("utf-8"))
    assert found, "the Kubernetes template names no version"
    return found.group(1) + ".0"


@pytest.mark.parametrize("version", ["named", "latest"])
def test_the_kubernetes_job_is_valid_for_the_version_it_names(version: str) -> None:
    # Against the OpenAPI schema of Kubernetes itself, strictly (no field the API
    # does not know), for the version the template names and the newest one known.
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    wanted = _named_kubernetes() if version == "named" else kubernetes_validate.latest_version()
    for resource in yaml.safe_load_all(KUBERNETES.read_text("utf-8")):
        kubernetes_validate.validate(resource, wanted, strict=True)


def test_a_field_the_kubernetes_api_lacks_is_seen() -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate")
    resource: Any = yaml.safe_load(KUBERNETES.read_text("utf-8"))
    resource["spec"]["template"]["spec"]["containers"][0]["resource"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(resource, _named_kubernetes(), strict=True)
