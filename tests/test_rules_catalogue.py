"""One rule, one place: every rule is named once in ``ledger.rulebook`` (with its
section of RULES.md and its text), decided once in ``ledger.rules``, and a handler in
``ledger/actions.py`` refuses nothing itself: it calls the named rules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ledger import rulebook, rules
from ledger.rulebook import RULEBOOK, rule_section, rule_text

LEDGER = Path(rules.__file__).resolve().parent.parent
REFUSALS = {"RuleBroken", "NotAllowed", "CardNotThere", "DeckEmpty"}
SECTION = re.compile(r"§\d+|CLI\.md \w+")


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _rule_functions() -> list[str]:
    return [name for name in rules.__all__ if callable(getattr(rules, name)) and name != "rule_text"]


@pytest.mark.parametrize("entry", RULEBOOK, ids=[entry.name for entry in RULEBOOK])
def test_every_rule_in_the_rulebook_has_a_section_and_a_text(entry):
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", entry.name)
    assert SECTION.fullmatch(entry.section), entry
    assert entry.text.strip() and "\n" not in entry.text
    assert rule_section(entry.name) == entry.section and rule_text(entry.name) == entry.text


def test_every_rule_is_named_once():
    names = [entry.name for entry in RULEBOOK]
    assert len(names) == len(set(names))


def test_every_placement_rule_the_rules_use_is_in_the_rulebook():
    for name, _ in rules.PLACEMENT_RULES:
        assert name in rulebook.BY_NAME
        assert rules.rule_text(name) == rulebook.rule_text(name)


def test_every_rule_function_is_named_in_the_rulebook_and_every_name_is_a_rule():
    functions = {name.replace("_", "-") for name in _rule_functions()}
    assert functions - set(rulebook.BY_NAME) == set(), "rules without a rulebook entry"
    assert set(rulebook.BY_NAME) - functions == set(), "rulebook entries without a rule"


def test_every_rule_function_states_its_rule_in_a_docstring():
    for name in _rule_functions():
        assert (getattr(rules, name).__doc__ or "").strip(), name


def test_the_refill_limit_is_the_rulebooks():
    assert rules.REFILL_LIMIT is rulebook.REFILL_LIMIT == 100


def test_actions_raise_no_rule_refusal_inline():
    """A refusal raised in a handler is a rule that has not found its home in ``ledger.rules``."""
    inline = []
    for node in ast.walk(_tree(LEDGER / "actions.py")):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = exc.attr if isinstance(exc, ast.Attribute) else getattr(exc, "id", None)
            if name in REFUSALS:
                inline.append(f"line {node.lineno}: raise {name}")
    assert inline == []


def _ledger_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            found.add(node.module or "")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("ledger"):
            found.add(node.module.removeprefix("ledger.").removeprefix("ledger"))
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("ledger.") for a in node.names if a.name.startswith("ledger"))
    return found


def test_the_rulebook_is_pure_data_the_read_side_may_import():
    assert _ledger_imports(LEDGER / "rulebook.py") == set()


def test_card_states_need_no_rules():
    # rulesets: which version of the rules is in force (verify decides older actions under
    # theirs), a switch, not a rule
    assert _ledger_imports(LEDGER / "states.py") <= {"campaign", "catalog", "formats", "fold", "vocabulary",
                                                     "rulesets"}


ZONE_FSTRING = re.compile(r"(deck|table|inventory|extra|discard):$")


@pytest.mark.parametrize("path", ["actions.py", "play.py", "states.py", "visibility.py", *(
    f"rules/{p.name}" for p in sorted((LEDGER / "rules").glob("*.py")))])
def test_zone_ids_are_built_with_the_vocabulary_not_f_strings(path):
    """``Zone.inventory(hero)``, not ``f"inventory:{hero}"``."""
    for node in ast.walk(_tree(LEDGER / path)):
        if isinstance(node, ast.JoinedStr):
            for i, part in enumerate(node.values[:-1]):
                if isinstance(part, ast.Constant) and isinstance(node.values[i + 1], ast.FormattedValue):
                    assert not ZONE_FSTRING.search(str(part.value)), f"{path}:{node.lineno}"
