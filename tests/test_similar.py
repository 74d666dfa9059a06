"""Similar submissions: renamed copies are flagged, independent solutions are not."""

from __future__ import annotations

import ast
import builtins
import collections
import importlib.util
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from grader.engine.batch import BatchOptions, run_batch
from grader.engine.lab import find
from grader.engine.similarity import classpass, shares
from grader.engine.similarity import shipped as prints
from grader.labs.embed.contract import BY_NAME

ROOT = Path(__file__).resolve().parent.parent
RIGHT = sorted((ROOT / "tests" / "corpus" / "right").glob("*.py"))
ORACLE = ROOT / "grader" / "labs" / "embed" / "oracle.py"


def renamed_copy(source: str) -> str:
    """The module with every local name, parameter and helper renamed, comments dropped,
    and the layout redone: what a student hiding a copy would do first."""
    tree = ast.parse(source)
    keep = set(dir(builtins)) | set(BY_NAME) | {"write_report"}  # the grader calls it
    modules = {
        a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
    keep |= modules
    new: dict[str, str] = {}

    def fresh(name: str) -> str:
        if name in keep:
            return name
        return new.setdefault(name, "q%d_%s" % (len(new), name[::-1].strip("_") or "x"))

    # The module's own attributes and methods too (those it defines or assigns).
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    own |= {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = fresh(node.id)
        elif isinstance(node, ast.arg):
            node.arg = fresh(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            node.name = fresh(node.name)
        elif isinstance(node, ast.Attribute) and node.attr in own:
            node.attr = fresh(node.attr)
    return "# my own work\n" + ast.unparse(tree) + "\n"


def test_normalised_tokens_ignore_names_comments_and_layout() -> None:
    a = "def f(x, y):\n    # add\n    return x + y  # sum\n"
    b = "def g(first,second):\n    '''Docs.'''\n\n    return first+second\n"
    assert classpass.normalized_tokens(a) == classpass.normalized_tokens(b)
    assert classpass.normalized_tokens("def f(x):\n    return x - 1\n") != (
        classpass.normalized_tokens("def f(x):\n    return x + 1\n")
    )


def test_winnowing_keeps_a_hash_of_every_long_shared_stretch() -> None:
    tokens = ["t%d" % i for i in range(200)]
    prints = classpass.winnow(tokens)
    # Every window of W grams leaves one hash, so about 2/(W+1) of the grams are kept.
    assert 0 < len(prints) < len(tokens) / 2
    # Any stretch of K + W - 1 tokens shared with another text shares a fingerprint.
    stretch = tokens[50 : 50 + classpass.K + classpass.W - 1]
    other = ["u%d" % i for i in range(40)] + stretch + ["v%d" % i for i in range(40)]
    assert prints & classpass.winnow(other)


def test_a_renamed_copy_is_flagged() -> None:
    original = RIGHT[0].read_text(encoding="utf-8")
    copy = renamed_copy(original)
    assert copy != original and "q0_" in copy  # really renamed
    a = classpass.fingerprint("a", original)
    b = classpass.fingerprint("b", copy)
    match = classpass.compare(a, b)
    # Redone layout adds a few parentheses; the rest matches.
    assert match.score > classpass.THRESHOLD + 0.2
    assert [(m.a, m.b) for m in classpass.similar_pairs([a, b])] == [("a", "b")]


def test_independent_solutions_are_not_flagged() -> None:
    prints = [classpass.fingerprint(p.stem, p.read_text(encoding="utf-8")) for p in RIGHT]
    assert len(prints) >= 10
    assert classpass.similar_pairs(prints) == []
    # The threshold keeps a clear distance from the most alike independent pair.
    most = max(classpass.compare(a, b).score for a, b in itertools.combinations(prints, 2))
    assert 0.2 < most < classpass.THRESHOLD - 0.05


def test_a_short_common_solution_alone_is_not_enough() -> None:
    short = "def dot(a, b):\n    return sum(x * y for x, y in zip(a, b))\n"
    a = classpass.fingerprint("a", short)
    b = classpass.fingerprint("b", short.replace("x", "p"))
    assert classpass.compare(a, b).score == 1.0
    assert classpass.similar_pairs([a, b]) == []  # too little is shared to mean anything


def oracle_loader_glue() -> str:
    """About fifteen lines that load the installed grader's oracle and re-export it."""
    return (
        "import glob, importlib.util, sys\n"
        "_hits = glob.glob('/usr/**/site-packages/grader/labs/embed/oracle.py', recursive=True)\n"
        "_hits += glob.glob(sys.prefix + '/lib/*/site-packages/grader/labs/embed/oracle.py')\n"
        "_spec = importlib.util.spec_from_file_location('o', _hits[0])\n"
        "_o = importlib.util.module_from_spec(_spec)\n"
        "_spec.loader.exec_module(_o)\n"
        "VOCAB, DIM, SEED = 512, 64, 20260917\n"
        "for _name in dir(_o):\n"
        "    if not _name.startswith('_'):\n"
        "        globals()[_name] = getattr(_o, _name)\n"
        "def lookup_via_one_hot(table, ids):\n"
        "    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]\n"
        "def scaled_lookup(table, ids, dim):\n"
        "    return [[x * dim ** 0.5 for x in row] for row in lookup(table, ids)]\n"
    )


def oracle_pasted_glue() -> str:
    """The oracle's code pasted into the module, names changed, with glue for the rest."""
    return renamed_copy(ORACLE.read_text(encoding="utf-8")) + (
        "VOCAB = 512\nDIM = 64\nSEED = 20260917\n"
        "def lookup_via_one_hot(table, ids):\n"
        "    return [row_times_matrix(one_hot(i, len(table)), table) for i in ids]\n"
    )


def test_glue_around_the_oracle_is_flagged(tmp_path: Path) -> None:
    for name, source in [("loader", oracle_loader_glue()), ("pasted", oracle_pasted_glue())]:
        (tmp_path / ("%s.py" % name)).write_text(source, encoding="utf-8")
    shutil.copyfile(RIGHT[1], tmp_path / "honest.py")
    found = classpass.class_similarity(
        [(p.stem, p) for p in sorted(tmp_path.glob("*.py"))],
        solutions={classpass.ORACLE: ORACLE},
    )
    close = {(c["id"], c["solution"]) for c in found["close_to_solutions"]}
    assert close == {("loader", classpass.ORACLE), ("pasted", classpass.ORACLE)}
    why = {c["id"]: c for c in found["close_to_solutions"]}
    assert "oracle.py" in why["loader"]["why"]
    assert why["pasted"]["similarity"] >= classpass.THRESHOLD


def test_known_solutions_include_the_reference_when_it_is_there() -> None:
    known = classpass.known_solutions()
    assert known[classpass.ORACLE].samefile(ORACLE)
    # Run from the repository, the reference embed.py sits beside the package.
    assert known[classpass.REFERENCE].samefile(ROOT / "embed.py")


def test_refers_to_grader() -> None:
    assert (
        classpass.refers_to_grader("import grader.labs.embed.oracle as o\n")
        == "import grader.labs.embed.oracle"
    )
    assert classpass.refers_to_grader("from grader import oracle\n") == "import grader"
    assert "oracle" in classpass.refers_to_grader("p = '/x/grader/labs/embed/oracle.py'\n")
    assert classpass.refers_to_grader("import math\nx = 'graded'\n") == ""
    assert classpass.refers_to_grader("def broken(:\n") == ""


def test_flags_in_the_batch_are_advisory(tmp_path: Path) -> None:
    root = tmp_path / "class"
    for name, source in [
        ("ann", (ROOT / "embed.py").read_text(encoding="utf-8")),
        ("ben", renamed_copy((ROOT / "embed.py").read_text(encoding="utf-8"))),
        ("cat", RIGHT[2].read_text(encoding="utf-8")),
        ("dan", RIGHT[5].read_text(encoding="utf-8")),
    ]:
        (root / name).mkdir(parents=True)
        (root / name / "embed.py").write_text(source, encoding="utf-8")
        for n in ("embed_report.json", "embed_report.md"):
            shutil.copyfile(ROOT / "reference" / n, root / name / n)
    result = run_batch(root, tmp_path / "out", BatchOptions(seed=5, jobs=2))
    totals = {r.id: r.total for r in result.rows}
    # cat and dan have no report writer: the handed-in files earn nothing on step 8.
    assert totals == {"ann": 100.0, "ben": 100.0, "cat": 85.0, "dan": 85.0}
    found = result.summary["similar"]
    assert [(p["a"], p["b"]) for p in found["pairs"]] == [("ann", "ben")]
    close = {(c["id"], c["solution"]) for c in found["close_to_solutions"]}
    assert {("ann", classpass.REFERENCE), ("ben", classpass.REFERENCE)} <= close
    assert not {c for c in close if c[0] in ("cat", "dan")}
    # Every pair is in similarity.json, and the class page links each one's page.
    listed = json.loads((tmp_path / "out" / classpass.PAIRS_FILE).read_text(encoding="utf-8"))
    assert [(p["a"], p["b"], p["page"]) for p in listed["pairs"]] == [
        ("ann", "ben", "similar/pair-00001.html")
    ]
    assert (tmp_path / "out" / "similar" / "pair-00001.html").is_file()
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert 'href="similar/pair-00001.html"' in page and "ben holds" in page


def test_independent_solutions_are_not_close_to_the_known_solutions() -> None:
    found = classpass.class_similarity([(p.stem, p) for p in RIGHT])
    assert found["compared"] == len(RIGHT)
    assert found["close_to_solutions"] == []
    # ... while the reference itself, handed in, is.
    found = classpass.class_similarity([("copy", ROOT / "embed.py")])
    assert [c["solution"] for c in found["close_to_solutions"]] == [classpass.REFERENCE]


def test_links_and_pipes_are_not_read(tmp_path: Path) -> None:
    shutil.copyfile(RIGHT[0], tmp_path / "real.py")
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    os.mkfifo(tmp_path / "pipe.py")  # reading it would wait for a writer for ever
    found = classpass.class_similarity(
        [(p.stem, p) for p in sorted(tmp_path.glob("*.py"))], solutions={}
    )
    assert found["compared"] == 1


def installed_grader(tmp_path: Path) -> Path:
    """The grader as ``nox -s grade`` installs it: built, then installed (not editable)
    into a folder of its own, away from the repository's embed.py and exercises/."""
    spec = importlib.util.spec_from_file_location(
        "build_bundle", ROOT / "ci-templates" / "gradescope" / "build_bundle.py"
    )
    assert spec is not None and spec.loader is not None
    bundler = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bundler)
    wheel = bundler.build_wheel(ROOT, tmp_path / "dist")
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index"]
        + ["--target", str(site), str(wheel)],
        check=True,
    )
    return site


def test_flags_do_not_depend_on_how_the_grader_is_installed(tmp_path: Path) -> None:
    reference = (ROOT / "embed.py").read_text(encoding="utf-8")
    stub = (ROOT / "exercises" / "embed.py").read_text(encoding="utf-8")
    root = tmp_path / "class"
    # A byte-for-byte copy of the reference, two untouched stubs, one honest module.
    for name, source in [("ann", reference), ("ben", stub), ("cat", stub)]:
        (root / name).mkdir(parents=True)
        (root / name / "embed.py").write_text(source, encoding="utf-8")
    (root / "dan").mkdir()
    shutil.copyfile(RIGHT[2], root / "dan" / "embed.py")
    site = installed_grader(tmp_path)
    run = subprocess.run(
        [sys.executable, "-c", "import grader; print(grader.__file__)"],
        env=dict(os.environ, PYTHONPATH=str(site)),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(run.stdout.strip()).is_relative_to(site)
    out = tmp_path / "installed"
    subprocess.run(
        [sys.executable, "-m", "grader", "batch", str(root), "--out", str(out)]
        + ["--seed", "5", "--jobs", "2"],
        env=dict(os.environ, PYTHONPATH=str(site)),
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    installed = json.loads((out / "summary.json").read_text(encoding="utf-8"))["similar"]
    here = run_batch(root, tmp_path / "here", BatchOptions(seed=5, jobs=2)).summary["similar"]
    assert installed["close_to_solutions"] == here["close_to_solutions"]
    assert installed["pairs"] == here["pairs"] == []
    close = {(c["id"], c["solution"]) for c in installed["close_to_solutions"]}
    assert close == {("ann", classpass.REFERENCE)}


def test_the_shipped_fingerprints_are_current() -> None:
    assert prints.main(["--check"]) == 0, "run python -m grader.engine.similarity.shipped"
    lab = find()
    assert lab.prints is not None and lab.prints.is_file()
    shipped = prints.shipped(lab)
    assert set(shipped) == {prints.SHIPPED_STUB, prints.SHIPPED_REFERENCE}
    # Numbers only: no line of the reference can be read back from them.
    assert "def " not in lab.prints.read_text(encoding="utf-8")


def load_bench() -> Any:
    spec = importlib.util.spec_from_file_location(
        "bench_similar", ROOT / "tests" / "bench_similar.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def class_with_a_leak(bench: Any, n: int, copiers: int) -> list[classpass.Fingerprint]:
    """A generated class in which ``copiers`` students hand in one module, some of
    them changed a little, the others as they found it."""
    modules = bench.make_class(n, 7)
    rng = random.Random(3)
    leaked = modules[0][1]
    for k, i in enumerate(rng.sample(range(1, n), copiers)):
        tokens = leaked if k % 2 else bench._personal(leaked, rng, 0.02)
        modules[i] = (modules[i][0], tokens)
    return bench.fingerprints(modules)


def test_the_index_flags_what_comparing_every_pair_flags() -> None:
    bench = load_bench()
    prints = class_with_a_leak(bench, 150, 40)
    assert len(prints) <= classpass.COMMON_AT_LEAST
    found = classpass.similar_pairs(prints)
    assert len(found) > 40 * 39 // 4  # the leak alone
    assert found == bench.every_pair(prints)
    # Other thresholds too.
    for threshold, min_shared in [(0.3, 10), (0.9, 60)]:
        assert classpass.similar_pairs(prints, threshold, min_shared) == bench.every_pair(
            prints, threshold, min_shared
        )


def test_a_big_class_loses_only_pairs_that_share_what_many_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bench = load_bench()
    monkeypatch.setattr(shares, "COMMON_AT_LEAST", 10)
    monkeypatch.setattr(shares, "COMMON_IN_BIG", 10)
    prints = class_with_a_leak(bench, 300, 30)
    limit = classpass.common_limit(len(prints))
    assert limit == 10
    found = classpass.similar_pairs(prints)
    every = bench.every_pair(prints)
    assert set(found) <= set(every)
    held = collections.Counter(h for p in prints for h in p.hashes)
    by_name = {p.name: p for p in prints}
    for m in set(every) - set(found):
        a, b = by_name[m.a], by_name[m.b]
        assert a.hashes != b.hashes  # identical modules are always flagged
        assert all(held[h] > limit for h in a.hashes & b.hashes), m
    # Every student who handed in the leaked module unchanged is paired with every other.
    leak = by_name["s00000"].hashes
    same = sorted(p.name for p in prints if p.hashes == leak)
    assert len(same) >= 16
    pairs = {(m.a, m.b) for m in found}
    assert all((a, b) in pairs for a, b in itertools.combinations(same, 2))


def load_corpus() -> Any:
    sys.path.insert(0, str(ROOT / "tests"))
    import simcorpus

    return simcorpus


def test_a_class_based_module_renamed_through_and_through_is_flagged() -> None:
    corpus = load_corpus()
    original = (ROOT / "tests" / "corpus" / "right" / "class_based.py").read_text(encoding="utf-8")
    copy = corpus.renamed(original)
    assert "self.rows" in original and ".rows" not in copy  # attributes renamed too
    assert "def ranked" in original and "ranked" not in copy  # and methods
    match = classpass.compare(
        classpass.fingerprint("a", original), classpass.fingerprint("b", copy)
    )
    assert match.score > 0.95  # the names after a dot hid most of it (0.61)
    assert classpass.flagged(match)


def test_statements_that_do_nothing_hide_nothing() -> None:
    corpus = load_corpus()
    original = RIGHT[3].read_text(encoding="utf-8")
    junk = corpus.with_junk(original)
    plain = ast.unparse(ast.parse(original))
    assert len(junk.splitlines()) > len(plain.splitlines()) + 15
    assert classpass.normalized_tokens(junk) == classpass.normalized_tokens(
        ast.unparse(ast.parse(original))
    )
    # A statement that does something is kept.
    assert classpass.normalized_tokens("x = f()\n") != classpass.normalized_tokens("")
    assert classpass.normalized_tokens("print(x)\n") != classpass.normalized_tokens("x\n")


def test_library_names_after_a_dot_stay_and_the_modules_own_do_not() -> None:
    a = "import math\nclass T:\n    def grow(self, v):\n        self.rows = math.sqrt(v)\n"
    b = "import math\nclass Q:\n    def widen(me, w):\n        me.cells = math.sqrt(w)\n"
    c = "import math\nclass Q:\n    def widen(me, w):\n        me.cells = math.hypot(w)\n"
    assert classpass.normalized_tokens(a) == classpass.normalized_tokens(b)
    assert classpass.normalized_tokens(b) != classpass.normalized_tokens(c)


def test_a_copy_of_some_functions_is_flagged_by_its_functions() -> None:
    corpus = load_corpus()
    victim = (ROOT / "embed.py").read_text(encoding="utf-8")
    own = RIGHT[6].read_text(encoding="utf-8")
    copy = corpus.some_functions(victim, own, 5)
    a, b = classpass.fingerprint("copier", copy), classpass.fingerprint("victim", victim)
    m = classpass.compare(a, b)
    assert m.score < classpass.THRESHOLD  # the whole module is mostly the copier's own
    assert len(m.functions_a) >= 3 and "row_times_matrix" in m.functions_a
    honest = classpass.fingerprint("honest", RIGHT[7].read_text(encoding="utf-8"))
    found = classpass.similar_pairs([a, b, honest])
    assert [(x.a, x.b, x.by) for x in found] == [("copier", "victim", "functions")]


def test_which_way_and_the_module_that_holds_three_classmates_code() -> None:
    corpus = load_corpus()
    sources = [p.read_text(encoding="utf-8") for p in RIGHT[:3]]
    prints = [classpass.fingerprint("src%d" % i, s) for i, s in enumerate(sources)]
    prints.append(classpass.fingerprint("mosaic", corpus.mosaic(sources)))
    found = classpass.similar_pairs(prints)
    assert {frozenset((m.a, m.b)) for m in found} == {
        frozenset(("mosaic", "src%d" % i)) for i in range(3)
    }
    for m in found:
        holds = m.b_in_a if m.a == "mosaic" else m.a_in_b  # the share of the source in the mosaic
        assert holds > 0.9 and m.holder == "mosaic"
    collectors = shares.collectors(prints, found)
    assert [c.name for c in collectors] == ["mosaic"]
    assert collectors[0].sources == ("src0", "src1", "src2")
    # A module given to three classmates is not a collector: they are alike too.
    copies = [classpass.fingerprint("c%d" % i, renamed_copy(sources[0])) for i in range(3)]
    given = [classpass.fingerprint("giver", sources[0])] + copies
    assert shares.collectors(given, classpass.similar_pairs(given)) == []


def test_every_flagged_pair_is_listed_with_a_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(classpass, "MAX_PAIRS", 2)
    source = RIGHT[0].read_text(encoding="utf-8")
    hostile = source + '\nNOTE = "</pre><script>alert(1)</script>\u202e"\n'
    names = ["a", "b", "c", "<img src=x onerror=alert(1)>"]
    paths = []
    for k, name in enumerate(names):
        path = tmp_path / ("m%d.py" % k)
        path.write_text(hostile if k == 3 else source, encoding="utf-8")
        paths.append((name, path))
    out = tmp_path / "out"
    out.mkdir()
    summary = classpass.class_similarity(paths, solutions={}, out=out)
    listed = json.loads((out / classpass.PAIRS_FILE).read_text(encoding="utf-8"))
    assert summary["pairs_flagged"] == listed["pairs_flagged"] == 6
    assert len(listed["pairs"]) == 6 and len(summary["pairs"]) == 2
    assert summary["pairs_file"] == classpass.PAIRS_FILE
    for pair in listed["pairs"]:
        page = (out / pair["page"]).read_text(encoding="utf-8")
        assert "<script" not in page and "<img" not in page
        assert "default-src 'none'" in page
        assert 'class="p0"' in page  # a shared passage is highlighted
    hostile_pages = [
        (out / p["page"]).read_text(encoding="utf-8")
        for p in listed["pairs"]
        if names[3] in (p["a"], p["b"])
    ]
    assert all("&lt;script&gt;" in page and "\\u202e" in page for page in hostile_pages)


def test_one_module_that_breaks_the_tokens_does_not_stop_the_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = classpass._read_submission

    def read(path: Path) -> str | None:
        if path.stem == "bad":
            raise RecursionError("too deep")
        return real(path)

    monkeypatch.setattr(classpass, "_read_submission", read)
    for name, text in [
        ("a", RIGHT[0].read_text()),
        ("b", RIGHT[0].read_text()),
        ("bad", "BREAKS = 1\n"),
    ]:
        (tmp_path / ("%s.py" % name)).write_text(text, encoding="utf-8")
    found = classpass.class_similarity(
        [(p.stem, p) for p in sorted(tmp_path.glob("*.py"))], solutions={}
    )
    assert found["compared"] == 2 and [(p["a"], p["b"]) for p in found["pairs"]] == [("a", "b")]
    assert [u["id"] for u in found["unread"]] == ["bad"] and "RecursionError" in found["unread"][0][
        "why"
    ]


def test_a_huge_module_is_read_only_in_part() -> None:
    from grader.engine.similarity import tokens as simtokens

    found = simtokens.normalize("x = (" * 300_000)
    assert found.truncated and len(found.tokens) <= simtokens.MAX_TOKENS + 10


def test_honest_students_stay_unflagged_and_every_copy_is_found() -> None:
    bench = load_bench()
    modules, copies, collectors = bench.calibration_class(60, 1)
    prints = [classpass.fingerprint(name, source) for name, source in modules]
    found = {frozenset((m.a, m.b)) for m in classpass.similar_pairs(prints)}
    assert copies <= found
    honest = {n for n, _ in modules if n.startswith("s")} - {n for c in copies for n in c}
    assert not [pair for pair in found if pair <= honest]


def test_a_pair_is_bounded_however_long_its_names() -> None:
    source = RIGHT[0].read_text(encoding="utf-8")
    long = "".join(
        "def %s%d(a, b):\n    total = 0.0\n    for x, y in zip(a, b):\n        total += x * y - %d\n"
        "    if total > %d:\n        return [total, a, b, %d]\n    return (total, b, a)\n\n"
        % ("f" * 5000, k, k, k, k)
        for k in range(80)
    )
    a, b = classpass.fingerprint("a", source + long), classpass.fingerprint("b", source + long)
    pair = classpass.similar_pairs([a, b])[0].to_dict()
    assert 0 < len(pair["a_functions_in_b"]) <= shares.MAX_FUNCTION_NAMES
    assert max(len(n) for n in pair["a_functions_in_b"]) <= 100
    assert len(json.dumps(pair)) < 20_000
