"""Classes of real source modules for the similarity pass: honest students and copies.

Used by ``bench_similar.py`` (precision and recall, the time of the pass) and
``test_similar.py``.  The honest modules are built from the independent correct
solutions (``tests/resources/similarity/independent/``, ``tests/corpus/right/`` and the
reference ``embed.py``): each student takes every function from one of them, the
popular ones more often, with statements of their own slipped in after some lines.
The copies are what a student hiding a copy does to a classmate's module.
"""

from __future__ import annotations

import ast
import builtins
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.labs.embed.contract import NAMES

ROOT = Path(__file__).resolve().parents[1]
INDEPENDENT = sorted((ROOT / "tests" / "resources" / "similarity" / "independent").glob("*.py"))
SOLUTIONS = (
    INDEPENDENT + sorted((ROOT / "tests" / "corpus" / "right").glob("*.py")) + [ROOT / "embed.py"]
)
HEAD = (
    "import json\nimport math\nimport os\nimport random\n\nVOCAB = 512\nDIM = 64\nSEED = 20260917\n"
)


def _parts(path: Path) -> tuple[list[str], dict[str, str]]:
    """A module's classes and other top-level code, and its functions by name."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    other, functions = [], {}
    for node in tree.body:
        text = ast.get_source_segment(source, node) or ""
        if isinstance(node, ast.FunctionDef):
            functions[node.name] = text
        elif isinstance(node, ast.ClassDef):
            other.append(text)
    return other, functions


@dataclass(frozen=True)
class Pool:
    """Every solution's classes and functions."""

    classes: list[list[str]]
    functions: list[dict[str, str]]


def pool() -> Pool:
    parts = [_parts(p) for p in SOLUTIONS]
    return Pool([c for c, _ in parts], [f for _, f in parts])


def _own_line(rng: random.Random, indent: str) -> str:
    n = rng.randrange(1000)
    return (
        indent
        + [
            "assert %d >= 0" % n,
            "check_%d = len(str(%d))" % (n, n),
            "if %d < 0:\n%s    raise ValueError('%d')" % (n, indent, n),
            "print(end='') if %d < 0 else None" % n,
        ][rng.randrange(4)]
    )


def personal(source: str, rng: random.Random, rate: float) -> str:
    """``source`` with statements of one's own after some of its simple statements
    (at their indentation)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    lines = source.split("\n")
    after: dict[int, int] = {}
    before: dict[int, int] = {}
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)
    for node in ast.walk(tree):
        if isinstance(node, (*simple, ast.Return)) and node.end_lineno is not None:
            start = lines[node.lineno - 1]
            if not start[: node.col_offset].strip():
                if isinstance(node, ast.Return):
                    before[node.lineno] = node.col_offset
                else:
                    after[node.end_lineno] = node.col_offset
    out = []
    for k, line in enumerate(lines, 1):
        if k in before and rng.random() < rate:
            out.append(_own_line(rng, " " * before[k]))
        out.append(line)
        if k in after and rng.random() < rate:
            out.append(_own_line(rng, " " * after[k]))
    return "\n".join(out)


# The functions the grader calls: the contract's, and the report step's two.
CONTRACT = tuple(n.name for n in NAMES if not n.is_constant) + ("measure", "write_report")


def honest_module(p: Pool, rng: random.Random, rate: float = 0.5, skew: float = 0.5) -> str:
    """One student's module: every function of the contract from one of the solutions
    (some solutions more often), with the helpers it calls from the same solution, and
    statements of the student's own."""
    n = len(p.functions)
    order = list(range(n))
    rng.shuffle(order)  # which solutions are popular changes with the class
    weight = {s: (k + 1) ** -skew for k, s in enumerate(order)}
    parts = [HEAD]
    taken: set[tuple[int, str]] = set()
    used_classes: set[int] = set()
    for name in CONTRACT:
        having = [i for i in order if name in p.functions[i]]
        if not having:
            continue
        pick = rng.choices(having, [weight[i] for i in having])[0]
        text = p.functions[pick][name]
        helpers = [h for h in p.functions[pick] if h not in CONTRACT and h + "(" in text]
        for h in helpers:
            if (pick, h) not in taken:
                taken.add((pick, h))
                parts.append(personal(p.functions[pick][h], rng, rate))
        if (
            p.classes[pick]
            and pick not in used_classes
            and any(c.split("(")[0].split(":")[0][6:] in text for c in p.classes[pick])
        ):
            used_classes.add(pick)
            parts.extend(personal(c, rng, rate) for c in p.classes[pick])
        parts.append(personal(text, rng, rate))
    return "\n\n\n".join(parts) + "\n"


# What a student hiding a copy does.


def renamed(source: str, seed: int = 0) -> str:
    """Every name the module chose renamed (functions, classes, methods, attributes,
    parameters, locals), comments dropped, the layout redone by ``ast.unparse``; the
    names the grader calls stay."""
    tree = ast.parse(source)
    contract = set(CONTRACT) | {n.name for n in NAMES if n.is_constant}
    keep = set(dir(builtins)) | contract
    keep |= {
        a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    keep |= {
        a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names
    }
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    own |= {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
    }
    new: dict[str, str] = {}
    rng = random.Random(seed)

    def fresh(name: str) -> str:
        if name in keep or name.startswith("__"):
            return name
        return new.setdefault(
            name, "%s%d" % (rng.choice(["tmp", "val", "my", "z", "item"]), len(new))
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = fresh(node.id)
        elif isinstance(node, ast.arg):
            node.arg = fresh(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node.name = fresh(node.name)
        elif isinstance(node, ast.Attribute) and node.attr in own:
            node.attr = fresh(node.attr)
        elif isinstance(node, ast.keyword) and node.arg in own:
            node.arg = fresh(node.arg)
    return "# my own work\n" + ast.unparse(tree) + "\n"


_JUNK = ["pass", "None", "0", "...", "'checked'", "_unused_{n} = {n}"]


def with_junk(source: str, seed: int = 0) -> str:
    """A statement that does nothing after every line that ends a statement."""
    rng = random.Random(seed)
    tree = ast.parse(source)
    text = ast.unparse(tree)
    out = []
    lines = text.split("\n")
    for line in lines:
        out.append(line)
        stripped = line.strip()
        if (
            not stripped
            or stripped.endswith(":")
            or stripped.startswith(("@", "return", "raise", "else", "elif", "except", "finally"))
        ):
            continue
        indent = line[: len(line) - len(line.lstrip())]
        junk = rng.choice(_JUNK).format(n=rng.randrange(100000))
        out.append(indent + junk)
    return "\n".join(out) + "\n"


def reordered(source: str, seed: int = 0) -> str:
    """The top-level statements in another order (imports and constants first)."""
    tree = ast.parse(source)
    head = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    body = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    random.Random(seed).shuffle(body)
    tree.body = head + body
    return ast.unparse(tree) + "\n"


def top_functions(source: str) -> dict[str, str]:
    tree = ast.parse(source)
    return {
        n.name: ast.get_source_segment(source, n) or ""
        for n in tree.body
        if isinstance(n, ast.FunctionDef)
    }


def some_functions(victim: str, own: str, count: int, seed: int = 0) -> str:
    """``own`` with ``count`` of its functions replaced by the victim's (the largest the
    victim has that ``own`` has too), then renamed."""
    theirs, mine = top_functions(victim), top_functions(own)
    common = sorted(set(theirs) & set(mine), key=lambda n: -len(theirs[n]))
    take = common[:count]
    out = own
    for name in take:
        out = out.replace(mine[name], theirs[name], 1)
    return renamed(out, seed)


def mosaic(sources: list[str]) -> str:
    """Several classmates' modules in one (the last definition of each name wins)."""
    return renamed("\n\n".join(ast.unparse(ast.parse(s)) for s in sources))


DISGUISES: dict[str, Callable[[str, int], str]] = {
    "renamed": renamed,
    "junk after every line": lambda s, seed: with_junk(s, seed),
    "junk and renamed": lambda s, seed: with_junk(renamed(s, seed), seed),
    "reordered and renamed": lambda s, seed: reordered(renamed(s, seed), seed),
}
