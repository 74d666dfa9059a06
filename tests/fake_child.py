"""A stand-in for the child's program (grader/engine/_child/) that answers every
request with random, often broken, lines: run as the child's interpreter by
tests/test_fuzz.py.

Usage (as the interpreter): SCRIPT [ignored arguments]; the seed is in the script.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any

TAGS = ["f64", "f64rows", "tuple", "float", "dict", "sub", "obj", "cut", "?", None]
WORDS = ["function", "missing", "not callable", "nan", "inf", "-inf", "list", "float", ""]


def junk(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, often shaped like the protocol's encodings."""
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return rng.choice(
            [
                None,
                True,
                False,
                0,
                -1,
                rng.randrange(-(2**80), 2**80),
                rng.random() * 1e6,
                float("nan"),
                rng.choice(WORDS),
                "x" * rng.randrange(50),
            ]
        )
    if roll < 0.55:
        return [junk(rng, depth + 1) for _ in range(rng.randrange(6))]
    if roll < 0.7:
        return {rng.choice(WORDS + ["id", "v"]): junk(rng, depth + 1) for _ in range(3)}
    tagged: dict[str, Any] = {"$": rng.choice(TAGS)}
    for key in rng.sample(["v", "cols", "type", "base", "why"], rng.randrange(6)):
        tagged[key] = junk(rng, depth + 1)
    if rng.random() < 0.3:
        tagged["v"] = rng.choice(["AAAAAAAAAAA=", "AAAAAAAAAAAAAAAA", "!!", ""])
    if rng.random() < 0.2:
        tagged["v"] = [[junk(rng, depth + 1), junk(rng, depth + 1)]]
    return tagged


def mutate(rng: random.Random, msg: dict[str, Any], keep: float) -> dict[str, Any]:
    out = dict(msg)
    for key in list(out):
        roll = rng.random()
        if roll > keep:
            if roll > (1 + keep) / 2:
                del out[key]
            else:
                out[key] = junk(rng)
    if rng.random() < 0.2:
        out[rng.choice(WORDS)] = junk(rng)
    return out


def main(seed: int) -> None:
    rng = random.Random("%d:%d" % (seed, os.getpid()))
    out = os.fdopen(1, "wb", 0)
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - lives as long as the process

    def send(data: Any) -> None:
        text = data if isinstance(data, (bytes, str)) else json.dumps(data)
        if isinstance(text, str):
            text = text.encode("utf-8", "surrogatepass")
        out.write(text + b"\n")

    send({"op": "ready", "python": "3.11.0"})
    answered: list[int] = []
    stdin = sys.stdin.buffer
    for line in stdin:
        msg = json.loads(line)
        stdin.read(msg.get("tail", 0))  # the packed values after a run message's line
        if msg.get("op") == "load":
            names: dict[str, Any] = {n: "function" for n in msg["functions"]}
            names.update(
                {n: rng.choice([512, 64, 7, "missing", junk(rng)]) for n in msg["constants"]}
            )
            loaded = {"op": "loaded", "ok": True, "names": names, "third_party": [], "error": None}
            loaded.update(traceback="", elapsed=0.01)
            send(mutate(rng, loaded, 0.97) if rng.random() < 0.3 else loaded)
        elif msg.get("op") == "run":
            for call in msg["calls"]:
                answer(rng, send, call["id"], answered)
        else:
            return


def answer(rng: random.Random, send: Any, cid: int, answered: list[int]) -> None:
    ok = rng.random() < 0.7
    good: dict[str, Any] = {"id": cid, "ok": ok, "elapsed": rng.random() / 1000}
    good.update(mutated=None, called=[], mults=None)
    if ok:
        good["value"] = junk(rng)
    else:
        good["raised"] = {"type": "ValueError", "builtin": ["ValueError"], "message": "no"}
    roll = rng.random()
    if roll < 0.05 and answered:
        send(dict(good, id=rng.choice(answered)))  # a copy of an earlier answer
    elif roll < 0.08:
        send({"op": rng.choice(["where", "loaded", junk(rng)]), "stack": junk(rng)})
    elif roll < 0.1:
        send(rng.choice([b"", b"{", b"\xff\xfe", b"[" * 5000, b"1" * 5000, b"null"]))
    elif roll < 0.11:
        os._exit(rng.randrange(3))
    send(mutate(rng, good, 0.9) if rng.random() < 0.4 else good)
    answered.append(cid)
