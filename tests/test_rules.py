"""The stated rules, the checks and the student's texts stay in step.

``grader/labs/embed/rules.py`` lists every error rule and every open behaviour the student
reads about.  Each one must be stated in the same words in the instructions of every
language and in the docstrings of the functions it names; each graded rule must have
checks that demand its exception, and each check that demands an exception or only
notes open behaviour must belong to a rule.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from grader.engine.messages import LANGUAGES, text
from grader.labs.embed.checks import CHECKS, Open, Raises, build
from grader.labs.embed.rules import RULES, Rule

ROOT = Path(__file__).resolve().parent.parent
READMES = {
    "en": ROOT / "exercises" / "README.md",
    "ko": ROOT / "exercises" / "README.ko.md",
    "zh": ROOT / "exercises" / "README.zh.md",
}
MODULES = (ROOT / "embed.py", ROOT / "exercises" / "embed.py")
BY_ID = {c.id: c for c in CHECKS}
# Words that state an error rule or an open behaviour in a docstring.
STATING = re.compile(r"IndexError|ValueError|not graded|left open|outside the contract|TypeError")


def plain(words: str) -> str:
    """Text as it reads: no markdown backticks, every run of white space one space."""
    return " ".join(words.replace("`", "").split())


def docstrings(path: Path) -> dict[str, str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: plain(ast.get_docstring(node) or "")
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
    }


def _id(rule: Rule) -> str:
    return rule.code


def test_rule_list_is_not_empty() -> None:
    assert any(r.graded for r in RULES) and any(not r.graded for r in RULES)
    assert len({r.code for r in RULES}) == len(RULES)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rule", RULES, ids=_id)
def test_instructions_state_every_rule_in_its_words(rule: Rule, lang: str) -> None:
    sentence = plain(text(rule.code, lang))
    assert sentence in plain(READMES[lang].read_text(encoding="utf-8")), "%s does not say: %s" % (
        READMES[lang].name,
        sentence,
    )


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.parametrize("rule", [r for r in RULES if r.functions], ids=_id)
def test_docstrings_state_every_rule_in_its_words(rule: Rule, path: Path) -> None:
    sentence = plain(text(rule.code, "en"))
    docs = docstrings(path)
    for fn in rule.functions:
        assert sentence in docs[fn], "the docstring of %s does not say: %s" % (fn, sentence)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_docstrings_state_no_other_error_or_open_rule(path: Path) -> None:
    # Whatever a docstring says about errors or open behaviour is one of the rules.
    for fn, doc in docstrings(path).items():
        for rule in RULES:
            if fn in rule.functions:
                doc = doc.replace(plain(text(rule.code, "en")), "")
        assert not STATING.search(doc), "%s states a rule that is not listed: %s" % (fn, doc)


@pytest.mark.parametrize("rule", [r for r in RULES if r.graded], ids=_id)
def test_graded_rules_have_checks_that_demand_the_exception(rule: Rule) -> None:
    assert rule.raises and rule.raises in text(rule.code, "en")
    assert rule.checks
    assert {c.split(".")[0] for c in rule.checks} == set(rule.functions)
    for cid in rule.checks:
        check = BY_ID[cid]
        assert not check.advisory, cid
        cases = build(check, 1)
        assert cases and all(c.expect == Raises(rule.raises) for c in cases), cid


@pytest.mark.parametrize("rule", [r for r in RULES if not r.graded], ids=_id)
def test_open_rules_are_never_graded(rule: Rule) -> None:
    assert not rule.raises
    assert "not graded" in text(rule.code, "en")
    for cid in rule.checks:
        check = BY_ID[cid]
        assert check.advisory and check.weight >= 0, cid
        assert all(isinstance(c.expect, Open) for c in build(check, 1)), cid


def test_every_error_check_and_every_note_belongs_to_a_rule() -> None:
    graded = {c for r in RULES if r.graded for c in r.checks}
    noted = {c for r in RULES if not r.graded for c in r.checks}
    for check in CHECKS:
        cases = build(check, 1)
        if check.advisory:
            assert check.id in noted, "%s notes open behaviour no rule states" % check.id
        elif cases and all(isinstance(c.expect, Raises) for c in cases):
            assert check.id in graded, "%s demands an error no rule states" % check.id
