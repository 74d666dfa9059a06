"""The exercise kit: the committed stub, the stub generator and the step anchors."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import re
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from grader.labs.embed import contract, stubgen

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "embed.py"
STUB = ROOT / "exercises" / "embed.py"
STEPS_JSON = ROOT / "grader" / "labs" / "embed" / "messages" / "steps.json"
READMES = {"en": "README.md", "ko": "README.ko.md", "zh": "README.zh.md"}
STEP8_CONSTANTS = {
    "PROBE": contract.PROBE,
    "K": contract.K,
    "STRETCH_FACTOR": contract.STRETCH_FACTOR,
    "VOCAB_FACTOR": contract.VOCAB_FACTOR,
}


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def stub() -> ModuleType:
    return _load(STUB, "exercise_stub_under_test")


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    return _load(REFERENCE, "exercise_reference_under_test")


def _public_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
    }


# -- the committed stub -------------------------------------------------------------


def test_committed_stub_is_what_the_generator_makes() -> None:
    expected = stubgen.generate(REFERENCE.read_text(encoding="utf-8"))
    assert STUB.read_text(encoding="utf-8") == expected, (
        "exercises/embed.py is stale: run python -m grader.labs.embed.stubgen embed.py exercises/embed.py"
    )


def test_stub_parses_with_python_38_grammar() -> None:
    ast.parse(STUB.read_text(encoding="utf-8"), feature_version=(3, 8))


def test_stub_imports(stub: ModuleType) -> None:
    assert stub.__doc__ and "embed-grader embed.py --upto 1" in stub.__doc__


@pytest.mark.parametrize("name", [n.name for n in contract.NAMES])
def test_contract_name_in_stub(stub: ModuleType, reference: ModuleType, name: str) -> None:
    entry = contract.BY_NAME[name]
    assert hasattr(stub, name)
    if entry.is_constant:
        value = getattr(stub, name)
        assert type(value) is int and value == contract.CONSTANTS[name]
        return
    function = getattr(stub, name)
    assert callable(function)
    params = tuple(inspect.signature(function).parameters)
    assert params == entry.params
    assert inspect.signature(function) == inspect.signature(getattr(reference, name))


def test_step8_constants(stub: ModuleType) -> None:
    for name, value in STEP8_CONSTANTS.items():
        got = getattr(stub, name)
        assert type(got) is type(value) and got == value, name


def test_stub_has_the_reference_public_functions(reference: ModuleType) -> None:
    stub_tree = ast.parse(STUB.read_text(encoding="utf-8"))
    ref_tree = ast.parse(REFERENCE.read_text(encoding="utf-8"))
    stub_functions = _public_functions(stub_tree)
    assert set(stub_functions) == set(_public_functions(ref_tree))
    assert {f.name for f in contract.FUNCTIONS} | {"write_report"} <= set(stub_functions)
    for name, node in stub_functions.items():
        assert ast.get_docstring(node) == inspect.getdoc(getattr(reference, name)), name


def test_stub_has_no_private_names() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    defined = [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))]
    defined += [
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    ]
    assert not [name for name in defined if name.startswith("_")]


def test_every_stub_body_raises_not_implemented() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    for name, node in _public_functions(tree).items():
        statements = node.body[1:] if ast.get_docstring(node) is not None else node.body
        assert [ast.unparse(s) for s in statements] == ["raise NotImplementedError"], name


@pytest.mark.parametrize("name", [n.name for n in contract.FUNCTIONS])
def test_calling_a_stub_function_raises(stub: ModuleType, name: str) -> None:
    function = getattr(stub, name)
    args = [None] * len(inspect.signature(function).parameters)
    with pytest.raises(NotImplementedError):
        function(*args)


# -- the generator on small sources ------------------------------------------------


def _gen(source: str) -> str:
    return stubgen.generate(textwrap.dedent(source), docstring=None)


def test_function_bodies_become_raise() -> None:
    out = _gen('''
        """Module."""

        import math

        LIMIT = 3


        def area(r):
            """Return the area."""
            return math.pi * r * r


        def plain(a,
                  b=(1, 2)):
            return a + b[0]
        ''')
    assert out == textwrap.dedent('''\
        """Module."""

        import math

        LIMIT = 3


        def area(r):
            """Return the area."""
            raise NotImplementedError


        def plain(a,
                  b=(1, 2)):
            raise NotImplementedError
        ''')


def test_private_helpers_and_their_comments_are_dropped() -> None:
    out = _gen('''
        import math

        _CACHE = {}


        # Used by area only.
        def _square(x):
            return x * x


        def area(r):
            """Return the area."""
            return math.pi * _square(r)
        ''')
    assert "_square" not in out and "_CACHE" not in out and "Used by" not in out
    assert "def area(r):" in out and "\n\n\n\n" not in out


def test_solution_markers_drop_whole_statements() -> None:
    out = _gen("""
        A = 1

        # BEGIN SOLUTION
        TABLE = [A] * 3
        print(TABLE)
        # END SOLUTION

        B = 2
        """)
    assert out == "A = 1\n\n\nB = 2\n"


def test_solution_markers_inside_a_body_change_nothing() -> None:
    out = _gen('''
        def f(x):
            """Doc."""
            ### BEGIN SOLUTION
            return x
            ### END SOLUTION
        ''')
    assert out == 'def f(x):\n    """Doc."""\n    raise NotImplementedError\n'


def test_stub_blocks_are_uncommented() -> None:
    out = _gen('''
        import json

        # BEGIN STUB
        # # Start here.
        # NAME = "report"
        # END STUB


        def write(path):
            """Write the report."""
            # BEGIN STUB
            # # fields = measure()
            # END STUB
            json.dump({}, open(path, "w"))
        ''')
    assert 'import json\n\n# Start here.\nNAME = "report"\n' in out
    assert out.endswith(
        '    """Write the report."""\n    # fields = measure()\n    raise NotImplementedError\n'
    )
    assert "BEGIN" not in out and "END" not in out


def test_public_classes_keep_their_shape() -> None:
    out = _gen('''
        class Box:
            """A box."""

            SIZE = 2

            def _secret(self):
                return 1

            @property
            def size(self):
                """The size."""
                return self.SIZE * self._secret()


        class _Hidden:
            pass
        ''')
    assert "_secret" not in out and "_Hidden" not in out
    assert (
        '    @property\n    def size(self):\n        """The size."""\n'
        "        raise NotImplementedError\n" in out
    )
    ast.parse(out)


def test_main_guard_is_kept() -> None:
    out = _gen("""
        import sys


        def main():
            return 0


        if __name__ == "__main__":
            sys.exit(main())
        """)
    assert out.endswith('if __name__ == "__main__":\n    sys.exit(main())\n')


def test_student_docstring_lists_the_steps() -> None:
    out = stubgen.generate(REFERENCE.read_text(encoding="utf-8"))
    doc = ast.get_docstring(ast.parse(out))
    assert doc is not None
    for step, title in contract.STEPS.items():
        if step:
            assert f"{step}. {title}:" in doc
    assert "write_report" in doc


@pytest.mark.parametrize(
    "source, message",
    [
        ("# BEGIN SOLUTION\nA = 1\n", "never closed"),
        ("A = 1\n# END SOLUTION\n", "without BEGIN"),
        ("# BEGIN SOLUTION\n# BEGIN STUB\n# END STUB\n# END SOLUTION\n", "inside"),
        ("# BEGIN STUB\nA = 1\n# END STUB\n", "commented lines only"),
        ("X = (1,\n# BEGIN SOLUTION\n2)\n# END SOLUTION\n", "whole statements"),
        ("def _h():\n    return 1\n\n\nA = _h()\n", "still uses _h"),
        ("_a, b = 1, 2\n", "private and public"),
    ],
)
def test_generator_errors(source: str, message: str) -> None:
    with pytest.raises(stubgen.StubError, match=message):
        stubgen.generate(source, docstring=None)


def test_main_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "ref.py"
    dest = tmp_path / "out" / "stub.py"
    src.write_text('"""Ref."""\n\n\ndef f(x):\n    """Doc."""\n    return x\n', encoding="utf-8")
    assert stubgen.main([str(src), str(dest), "--check"]) == 1
    assert not dest.exists()
    assert stubgen.main([str(src), str(dest)]) == 0
    assert "raise NotImplementedError" in dest.read_text(encoding="utf-8")
    assert stubgen.main([str(src), str(dest), "--check"]) == 0
    dest.write_text(dest.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    assert stubgen.main([str(src), str(dest), "--check"]) == 1
    assert "# edited" in capsys.readouterr().out


# -- step anchors of the instructions ------------------------------------------------


def test_steps_json_points_at_existing_anchors() -> None:
    anchors = json.loads(STEPS_JSON.read_text(encoding="utf-8"))
    assert set(anchors) == set(READMES)
    for language, filename in READMES.items():
        text = (ROOT / "exercises" / filename).read_text(encoding="utf-8")
        ids = set(re.findall(r'<a id="([^"]+)"></a>', text))
        assert set(anchors[language]) == {str(s) for s in contract.STEPS}
        for step, target in anchors[language].items():
            page, _, anchor = target.partition("#")
            assert page == filename and anchor in ids, (language, step)


@pytest.mark.parametrize("filename", list(READMES.values()))
def test_readmes_name_every_function_and_report_field(filename: str) -> None:
    text = (ROOT / "exercises" / filename).read_text(encoding="utf-8")
    for entry in contract.NAMES:
        assert f"`{entry.name}" in text, entry.name
    for key, _ in contract.REPORT_FIELDS:
        assert f"`{key}`" in text, key
    for heading in contract.REPORT_HEADINGS:
        assert f"## {heading}" in text, heading


@pytest.mark.parametrize("filename", list(READMES.values()))
def test_what_the_readmes_say_of_the_global_random_module_is_true(filename: str) -> None:
    """Seeded at the start of every make_table call, the module's own functions give the
    grader's table; seeded once elsewhere, a second table differs.  Each README says so,
    and no longer that the global module always gives different numbers."""
    import random

    def seeded(vocab: int, dim: int, seed: int) -> list[list[float]]:
        random.seed(seed)
        return [[random.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]

    def unseeded(vocab: int, dim: int, seed: int) -> list[list[float]]:
        return [[random.random() - 0.5 for _ in range(dim)] for _ in range(vocab)]

    from grader.labs.embed import oracle

    want = oracle.make_table(5, 3, 2026)
    assert seeded(5, 3, 2026) == seeded(5, 3, 2026) == want
    random.seed(2026)
    assert unseeded(5, 3, 2026) == want and unseeded(5, 3, 2026) != want
    text = " ".join((ROOT / "exercises" / filename).read_text(encoding="utf-8").split())
    step1 = text[text.index('<a id="step-1">') : text.index('<a id="step-2">')]
    assert "random.seed(seed)" in step1 and "random.random()" in step1
    assert not re.search(r"global `random` module\) gives different", step1)
    assert "전역 `random` 모듈)로 채우면" not in step1 and "使用全局 `random` 模块）" not in step1


def test_the_instructions_allow_headings_of_ones_own_in_the_markdown_report():
    """The report check lets other headings stand beside the five (the corpus's
    student_style report has one), so no instruction may call the five the only ones."""
    own = {
        "README.md": "headings of your own may come before, between or after them",
        "README.ko.md": "직접 단 제목이 있어도 되며",
        "README.zh.md": "可以有你自己的标题",
    }
    for name, sentence in own.items():
        text = (ROOT / "exercises" / name).read_text(encoding="utf-8")
        assert sentence in text.replace("\n", " "), name
        assert "exactly these five `##`" not in text and "恰好含以下五个" not in text, name
    student_style = ROOT / "tests" / "corpus" / "reports" / "student_style" / "embed_report.md"
    assert "## Appendix" in student_style.read_text(encoding="utf-8")
