"""The shape of the code (STYLE.md, README "How it works"): the domain never imports the
read side or the ways in; the read side imports only the domain's vocabulary, events,
fold, campaign and the pure rules of who sees what (never the code that decides
actions); per-event behaviour has one dispatch point; zone ids are built by the
vocabulary, never by f-strings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# ``ledger/__main__.py`` is ``python -m ledger``: a way in, like ``ledger/interface``.
DOMAIN = sorted(p for p in (ROOT / "ledger").rglob("*.py") if "interface" not in p.parts and p.name != "__main__.py")
READ_SIDE = sorted((ROOT / "projections").glob("*.py"))
# What the read side may use of the domain: no application, actions, rules or play.
READ_SIDE_MAY_IMPORT = {
    "ledger.campaign", "ledger.changes", "ledger.events", "ledger.fold", "ledger.vocabulary",
    "ledger.visibility", "ledger.states", "ledger.witness", "ledger.rulebook", "ledger.commitments",
    "ledger.i18n", "ledger.terms",  # the language being spoken and the game's words in it
    "ledger.errors",  # a damaged record or row is refused as the write side refuses one
    "ledger.texts",  # outside text shown on one line, never driving a terminal (as errors write it)
    "ledger.structs",  # the msgspec types of the events' fields (``projections.decoding``)
    "ledger.integrity",  # the hash chain: an export checks every action it hands out
    "ledger.rulesets",  # a moment shown under the rules it was decided under (views.facts_as_of)
}


def imports_of(path: Path) -> set[str]:
    """The absolute modules a file imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            if module in ("ledger", "projections"):  # from ledger import events
                found.discard(module)
                found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


@pytest.mark.parametrize("path", DOMAIN, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_domain_never_imports_the_read_side_or_the_ways_in(path):
    bad = {m for m in imports_of(path) if m.startswith(("projections", "ledger.interface"))}
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", READ_SIDE, ids=lambda p: p.name)
def test_the_read_side_imports_only_the_domains_vocabulary_events_fold_and_campaign(path):
    used = {m for m in imports_of(path) if m.startswith("ledger")}
    assert used <= READ_SIDE_MAY_IMPORT, f"{path.name} imports {used - READ_SIDE_MAY_IMPORT}"


def test_per_event_behaviour_is_dispatched_not_chained_on_action_names():
    for path in READ_SIDE + DOMAIN:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\b(a|action|event\.action)\s*==\s*\"(draw|send|trade|undo)\"", text), path.name


@pytest.mark.parametrize("path", DOMAIN + READ_SIDE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_zone_id_is_built_with_an_f_string(path):
    if path.name == "vocabulary.py":
        return  # the constructors themselves
    text = path.read_text(encoding="utf-8")
    assert not re.search(r'f"(deck|table|inventory|extra|discard):\{', text), path.name


def test_commands_decode_through_the_discriminated_union_and_nothing_else():
    from pydantic import ValidationError

    from ledger import commands as c

    for command in (c.Draw(stack="deck:item"), c.Undo(keep_order=True), c.Search(stack="deck:item", by="x")):
        assert c.from_record(command.to_record()) == command
    with pytest.raises(ValidationError):
        c.from_record({"type": "Command"})
    with pytest.raises(ValidationError):
        c.from_record({"type": "from_record"})
