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
from ledger.errors import BadInput, NotAllowed, RuleBroken
from ledger.rulesets import decided_under
from ledger.states import card_states
from projections.explain import explain
from projections.summaries import summary

from .conftest import Game


@pytest.fixture
def table(app: Ledger, sample_catalog) -> Game:
    plain = Card(id="item-plain", suit="item", name="Plain", level=1, value=0, knowledge=0, effects=())
    game = Game(app, app.start(Catalog([*sample_catalog, plain]), name="Sources").campaign.id)
    game.do(c.AddHero(hero="ana", knowledge=1))
    game.do(c.AddHero(hero="bo", knowledge=0))
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


def test_shuffle_allowed_a_hero_shuffles_a_deck_nobody_owns_only_by_an_effect(table):
    """Seed 001 ("Baralhos"): "as cartas devem ser mantidas na ordem em que foram
    embaralhadas e dispostas, a menos que um efeito ou mecânica de jogo permita ou exija
    que as cartas sejam reordenadas" (a rules QA pass: a hero shuffled a campaign deck at
    will, away from the card the master had put on top). The master shuffles any deck."""
    err = table.refuse(c.Shuffle(actor="ana", stack="deck:item"), NotAllowed)
    assert "only by an effect that allows it" in str(err) and "--by CARD" in str(err)
    err = table.refuse(c.Shuffle(actor="ana", stack="deck:item", by="item-plain"), RuleBroken)
    assert "item-plain has no effect" in str(err)
    err = table.refuse(c.Shuffle(actor="ana", stack="deck:item", by="skill-tracking"), NotAllowed)  # in the box
    assert "cannot see card skill-tracking" in str(err)  # as a card hidden from her reads
    table.add("skill-tracking", to="table:ana")
    done = table.do(c.Shuffle(actor="ana", stack="deck:item", by="skill-tracking"))
    assert done.event.allowed_by == "skill-tracking"
    assert summary(done.event).startswith("shuffle deck:item by skill-tracking;")
    table.do(c.Shuffle(stack="deck:item"))  # the master: no effect named
    with decided_under(16):  # as recorded before ruleset 17
        table.do(c.Shuffle(actor="ana", stack="deck:item"))


def test_activation_allowed_a_hero_activates_a_card_of_the_scenario_only_by_an_effect(table):
    """Seed 002 ("Ativar"): "Por padrão cada Herói pode ativar apenas as cartas que ele
    controla … algumas cartas podem permitir … às do CENÁRIO" (a rules QA pass: a hero
    activated the scenario's cards with nothing allowing it)."""
    table.add("event-eclipse", to="scenario")  # face-up, active, an activate effect
    err = table.refuse(c.Activate(actor="ana", card="event-eclipse"), NotAllowed)
    assert "ana does not control event-eclipse" in str(err) and "--by CARD" in str(err)
    table.add("skill-tracking", to="table:ana")
    done = table.do(c.Activate(actor="ana", card="event-eclipse", by="skill-tracking"))
    assert done.event.allowed_by == "skill-tracking" and "by skill-tracking" in summary(done.event)
    table.do(c.Activate(card="event-eclipse", hero="ana"))  # the master records it: no effect named
    table.do(c.Activate(actor="ana", card="skill-tracking"))  # her own card: no effect named
    # a review: an effect named where none is needed was recorded as allowing it (explain said so)
    err = table.refuse(c.Activate(actor="ana", card="skill-tracking", by="skill-tracking"), BadInput)
    assert "needs no other card's effect; leave --by out" in str(err)
    # a card attached to one of the scenario is the scenario's (a review: any hero activated it)
    table.add("event-fog", to="scenario")
    table.add("item-torch", to="inventory:ana")
    table.do(c.Attach(card="item-torch", host="event-fog"))
    err = table.refuse(c.Activate(actor="ana", card="item-torch", effect=1), NotAllowed)
    assert "ana does not control item-torch (in scenario)" in str(err)
    with decided_under(16):
        table.do(c.Activate(actor="ana", card="event-eclipse"))


def test_search_allowed_by_the_card_her_latest_action_activated_from_her_hand(table):
    """A rules QA pass: a search card played from the hand (seed 002: "ativada do
    INVENTÁRIO, a carta deve ser descartada") went to the discard pile as it was activated,
    and its search was then refused (the card no longer active, nor hers). From ruleset 17
    the search right after that activation, by the same hero, names it."""
    table.add("skill-tracking", "skill-dodge", to="inventory:ana")
    table.do(c.Activate(actor="ana", card="skill-tracking"))
    assert table.zone("skill-tracking") == "discard"
    done = table.do(c.Search(actor="ana", stack="deck:item", take=("item-bow",), by="skill-tracking"))
    assert done.event.allowed_by == "skill-tracking"
    before = table.app.campaign(table.cid, at=done.seq - 1)
    said = [check["detail"] for check in explain(done.event, before, table.campaign, "public")["checks"]]
    assert any("skill-tracking, activated from the inventory in the action just before" in line for line in said), said
    # only right after it, and only by the hero who activated it
    table.do(c.Activate(actor="ana", card="skill-dodge"))
    table.refuse(c.Search(actor="bo", stack="deck:item", take=("item-sword",), by="skill-dodge"), NotAllowed)
    table.add("skill-stealth", to="inventory:bo")  # another action in force since
    err = table.refuse(c.Search(actor="ana", stack="deck:item", take=("item-sword",), by="skill-dodge"), NotAllowed)
    assert "skill-dodge" in str(err)
    table.do(c.Undo())  # the add taken back: the activation is the latest action in force again
    with decided_under(16):  # as decided before ruleset 17
        table.refuse(c.Search(actor="ana", stack="deck:item", take=("item-sword",), by="skill-dodge"), NotAllowed)
    table.do(c.Search(actor="ana", stack="deck:item", take=("item-sword",), by="skill-dodge"))
