"""Seed 001 ("Afetados"), RULES.md §3 and §7: who the effects of a stack's face-up cards
reach.

    "Para as cartas de face para cima, duas configurações do monte dizem quando os efeitos
     são considerados e quem é afetado por eles."
    "Afetados: Define quais personagens são afetados pelos efeitos das cartas do monte,
     quando eles são considerados."

The standard discard pile affects every hero; a format's per-hero pile (``affected =
"owner"``) only its owner. An activation or an access effect from a stack card records
the heroes it reaches, a hero outside them cannot be its target (who may activate it is
the stack's owner, RULES.md §3: "affected" says who receives an effect),
``card`` shows them, ``explain`` says so. Each test is named after the rule it checks.
"""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.audit import verify
from ledger.catalog import Card, Catalog
from ledger.errors import LedgerError, RuleBroken
from ledger.formats import load_format
from projections.explain import explain
from projections.queries import card_view
from projections.readmodel import ReadModel

from .conftest import Game

pytestmark = pytest.mark.both_stores

PILES = """\
name = "personal-piles"
[[stacks]]
id = "discard:{hero}"
kind = "pile"
visibility = "face-up"
use = "stack-scope"
affected = "owner"
"""


@pytest.fixture
def table(app: Ledger, sample_catalog, tmp_path) -> Game:
    relic = Card(id="item-relic", suit="item", name="Relic", level=1, value=2, knowledge=0,
                 effects=("activate@discard",))
    charm = Card(id="item-charm", suit="item", name="Charm", level=1, value=2, knowledge=0,
                 effects=("activate@anywhere",))
    fmt_file = tmp_path / "piles.toml"
    fmt_file.write_text(PILES, encoding="utf-8")
    rec = app.start(Catalog([*sample_catalog, relic, charm]), name="Affected", fmt=load_format(fmt_file))
    game = Game(app, rec.campaign.id)
    game.do(c.AddHero(hero="ana", knowledge=1))
    game.do(c.AddHero(hero="bo", knowledge=1))
    game.do(c.AddLocation(location="keep", access={"item": 1}))
    return game


def test_the_campaign_discard_pile_reaches_every_hero_and_the_activation_records_them(table):
    table.add("item-relic", to="discard")
    rec = table.do(c.Activate(actor="ana", card="item-relic", target="bo"))
    assert rec.event.affected == ("ana", "bo")


def test_a_pile_that_affects_its_owner_reaches_only_its_owner(table):
    table.add("item-charm", to="discard:ana")
    err = table.refuse(c.Activate(card="item-charm", hero="ana", target="bo"), RuleBroken)
    assert str(err) == ("the effects of item-charm in discard:ana reach ana (its affected: owner); "
                        "bo, the target, is not affected")
    table.refuse(c.Activate(actor="bo", card="item-charm"), LedgerError)  # not bo's pile (the owner activates)
    rec = table.do(c.Activate(actor="ana", card="item-charm", target="ana"))
    assert rec.event.affected == ("ana",)
    rec = table.do(c.Activate(actor="ana", card="item-charm", target="the goblin"))  # no hero: as given
    assert rec.event.target == "the goblin"


def test_an_access_effect_from_a_stack_card_records_whom_it_reaches(table):
    table.add("item-charm", to="discard")
    rec = table.do(c.SetAccess(location="keep", suit="item", level=2, by="item-charm"))
    assert rec.event.affected == ("ana", "bo")
    table.add("event-festival", to="scenario")  # not a stack: its own words say whom it reaches
    rec = table.do(c.SetAccess(location="keep", suit="skill", level=1, by="event-festival"))
    assert rec.event.affected is None


def test_card_shows_whom_an_active_stack_cards_effects_reach(table, db_path):
    table.add("item-charm", to="discard:bo")
    table.add("item-relic", to="depot")  # inactive there: nothing reaches anyone
    model = ReadModel(table.app, db_path)
    try:
        model.catch_up()
        charm = card_view(table.app, model, table.campaign, "public", "item-charm")
        relic = card_view(table.app, model, table.campaign, "public", "item-relic")
    finally:
        model.close()
    assert charm["affects"] == ["bo"]
    assert "affects" not in relic


def test_explain_says_whom_a_stack_effect_reached_and_the_record_verifies(table):
    table.add("item-relic", to="discard")
    before = table.app.campaign(table.cid)
    rec = table.do(c.Activate(actor="bo", card="item-relic"))
    checks = explain(rec.event, before, rec.campaign, "public")["checks"]
    assert {"rule": "§7 affected", "label": "§7 affected",
            "detail": "the effects of item-relic in discard reach ana, bo (its stack's affected: all); "
                      "a hero targeted is among them"} in checks
    table.do(c.Undo())
    assert verify(table.app, table.cid).bad_seq is None
