"""Seeds 000-001, RULES.md §4 and §8: a search of a stack, and a change to a location's
access, come from an effect, so the card named as their source (``--by``) must have one.

    "Alguns efeitos e mecânicas de jogo permitem que os jogadores busquem cartas em um monte"
    (seed 001, "Buscar Cartas")

Before ruleset 17 any active card did: a hero with a face-up card of no effect on her
table searched any deck, taking the card she liked, as often as she liked (a QA pass).
Each test is named after the rule it checks.
"""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import Card, Catalog
from ledger.errors import RuleBroken
from ledger.rulesets import decided_under
from ledger.states import card_states

from .conftest import Game


@pytest.fixture
def table(app: Ledger, sample_catalog) -> Game:
    plain = Card(id="item-plain", suit="item", name="Plain", level=1, value=0, knowledge=0, effects=())
    game = Game(app, app.start(Catalog([*sample_catalog, plain]), name="Sources").campaign.id)
    game.do(c.AddHero(hero="ana", knowledge=1))
    game.add("item-bow", "item-sword", "item-rope", to="deck:item")
    game.add("item-plain", to="table:ana")  # face-up, as added to a table
    return game


def test_search_allowed_by_a_card_that_has_an_effect(table):
    assert "active" in card_states(table.campaign, "item-plain")  # face-up on her table: active, but it has no effect
    err = table.refuse(c.Search(actor="ana", stack="deck:item", take=("item-bow",), by="item-plain"), RuleBroken)
    assert "item-plain has no effect, so it allows no search" in str(err)
    err = table.refuse(c.Search(stack="deck:item", take=("item-bow",), to="inventory:ana", by="item-plain"),
                       RuleBroken)  # the master's --by says which effect allowed it: one with an effect, too
    assert "without --by" in str(err)  # (each refusal appends nothing: Game.refuse)
    table.add("skill-tracking", to="table:ana")
    table.do(c.Search(actor="ana", stack="deck:item", take=("item-bow",), by="skill-tracking"))
    with decided_under(16):  # as recorded before ruleset 17
        table.do(c.Search(actor="ana", stack="deck:item", take=("item-sword",), by="item-plain"))


def test_effect_source_active_an_access_effect_comes_from_a_card_that_has_an_effect(table):
    table.do(c.AddLocation(location="village", access={"item": 1}))
    err = table.refuse(c.SetAccess(location="village", suit="item", level=3, by="item-plain"), RuleBroken)
    assert "item-plain has no effect, so it changes no access" in str(err)
    table.add("skill-tracking", to="table:ana")
    table.do(c.SetAccess(location="village", suit="item", level=3, by="skill-tracking"))
    with decided_under(16):
        table.do(c.SetAccess(location="village", suit="item", level=2, by="item-plain"))


def test_chosen_effect_a_card_with_no_effect_is_not_activated_and_the_refusal_says_so(table):
    """Its refusal spoke of the auto effects the card does not have (a QA pass)."""
    err = table.refuse(c.Activate(actor="ana", card="item-plain"), RuleBroken)
    assert "item-plain has no effect, so it cannot be activated" in str(err) and "auto" not in str(err)
