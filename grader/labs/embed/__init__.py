"""The lab "from the embedding table to the logits": the student's ``embed.py``.

Its contract, the oracle (independent of the reference solution), the case
generators, the checks and hints, the rules the student's texts state, the
report files' checks and step 8, which measures the report from the code.  Its
modules import the standard library, the engine (``grader.engine``) and each other;
``LAB`` (``lab.py``) is all the engine sees of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.engine import messages

# The lab's texts are known as soon as any of its modules is imported.
messages.add(Path(__file__).resolve().parent / "messages")


def __getattr__(name: str) -> Any:
    # The lab object is built on first use: importing one module of the lab (the
    # oracle, say) does not load all of it.
    if name == "LAB":
        from grader.labs.embed.lab import LAB

        return LAB
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
