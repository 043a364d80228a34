"""RULES.md §6 (seed 002, "Ativar"): activation — where the card goes afterwards,
which effects may be used from where, the knowledge requirement, and what the record
holds. Each test is named after the rule it checks.

Sample catalog cards used below (knowledge / task / effects):
  item-sword 0 / - / activate          item-rope 0 / - / activate, auto
  item-potion 1 / discard / activate   skill-fireball 1 / bury / activate
  item-torch 0 / bury / auto@attachment
  skill-first-aid 0 / - / auto         skill-true-shot 2 / - / activate
  companion-wolf 0 / - / activate, auto
ana has knowledge 1, bo knowledge 0.
"""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.catalog import Card, Catalog
from ledger.errors import BadInput, CardNotThere, NotAllowed, RuleBroken
from ledger.events import CardActivated

from .conftest import Game

pytestmark = pytest.mark.both_stores


def spot(game: Game, card: str):
    return game.table.spot(card)


# -- activated from the inventory: discarded, or where the task says -------------------
def test_activated_from_the_inventory_a_card_is_discarded(game):
    game.add("item-sword", to="inventory:ana")
    rec = game.do(c.Activate(actor="ana", card="item-sword"))
    assert isinstance(rec.event, CardActivated)
    assert rec.event.source == "inventory:ana"
    assert rec.event.went_to == "discard"
    assert game.zone("item-sword") == "discard"
    assert game.table.face("item-sword") == "up"


def test_task_bury_sends_the_card_to_the_bottom_of_its_suits_deck_face_down(game):
    game.add("skill-dodge", "skill-stealth", to="deck:skill")
    game.add("skill-fireball", to="inventory:ana")
    rec = game.do(c.Activate(actor="ana", card="skill-fireball"))
    assert rec.event.went_to == "deck:skill"
    assert game.cards("deck:skill") == ["skill-dodge", "skill-stealth", "skill-fireball"]
    assert game.table.face("skill-fireball") == "down"
    assert "skill-fireball" not in game.cards("discard")


def test_task_discard_sends_the_card_to_the_discard_pile(game):
    game.add("item-potion", to="inventory:ana")
    rec = game.do(c.Activate(actor="ana", card="item-potion"))
    assert rec.event.went_to == "discard"
    assert game.zone("item-potion") == "discard"
    assert game.table.face("item-potion") == "up"


def test_only_activate_effects_may_be_activated_from_the_inventory(game):
    game.add("item-rope", "skill-first-aid", "item-torch", to="inventory:ana")
    err = game.refuse(c.Activate(actor="ana", card="item-rope", effect=2), RuleBroken)  # effect 2 is auto
    assert "inventory" in str(err)
    game.refuse(c.Activate(actor="ana", card="skill-first-aid", effect=1), RuleBroken)
    game.refuse(c.Activate(actor="ana", card="item-torch", effect=1), RuleBroken)  # auto@attachment, task bury
    assert game.zone("item-torch") == "inventory:ana"
    rec = game.do(c.Activate(actor="ana", card="item-rope", effect=1))
    assert (rec.event.effect, rec.event.effect_kind, rec.event.went_to) == (1, "activate", "discard")


# -- activated from a table or an attachment: stays where and as it is ----------------------
def test_activated_from_a_table_a_card_stays_where_and_as_it_is(game):
    game.add("companion-wolf", "item-sword", "item-rope", to="table:ana")
    game.do(c.Exhaust(cards=("item-sword",)))
    for card, effect in (("item-sword", None), ("companion-wolf", 1), ("item-rope", 2)):
        before = spot(game, card)
        rec = game.do(c.Activate(actor="ana", card=card, effect=effect))
        assert rec.event.source == "table:ana"
        assert rec.event.went_to is None
        assert rec.event.changes == ()
        assert spot(game, card) == before
    assert spot(game, "item-sword").exhausted is True
    assert spot(game, "item-sword").face == "up"


def test_activated_from_an_extra_zone_a_card_stays_where_it_is(game):
    game.add("companion-wolf", to="extra:ana")
    before = spot(game, "companion-wolf")
    rec = game.do(c.Activate(actor="ana", card="companion-wolf", effect=1))
    assert rec.event.went_to is None
    assert spot(game, "companion-wolf") == before


def test_an_attached_card_may_use_its_attachment_effects_and_stays_attached(game):
    game.add("companion-wolf", to="table:ana")
    game.add("item-torch", to="inventory:ana")
    game.do(c.Attach(card="item-torch", host="companion-wolf"))
    before = spot(game, "item-torch")
    rec = game.do(c.Activate(actor="ana", card="item-torch", effect=1))
    assert (rec.event.effect, rec.event.effect_kind, rec.event.went_to) == (1, "auto", None)
    assert game.table.host("item-torch") == "companion-wolf"
    assert spot(game, "item-torch") == before


def test_an_attached_card_may_use_only_attachment_effects(game):
    game.add("companion-wolf", to="table:ana")
    game.add("item-sword", to="inventory:ana")
    game.do(c.Attach(card="item-sword", host="companion-wolf"))
    err = game.refuse(c.Activate(actor="ana", card="item-sword"), RuleBroken)
    assert "attach" in str(err)
    game.refuse(c.Activate(actor="ana", card="item-sword", effect=1), RuleBroken)
    assert game.table.host("item-sword") == "companion-wolf"


def test_an_attached_card_works_only_while_its_host_is_face_up(game):
    game.add("companion-wolf", to="table:ana")
    game.add("item-torch", to="inventory:ana")
    game.do(c.Attach(card="item-torch", host="companion-wolf"))
    game.do(c.Hide(cards=("companion-wolf",)))
    game.refuse(c.Activate(actor="ana", card="item-torch", effect=1), RuleBroken)
    game.do(c.Reveal(cards=("companion-wolf",)))
    game.do(c.Activate(actor="ana", card="item-torch", effect=1))


def test_an_attached_card_in_the_inventory_works_only_while_its_host_is_revealed_and_stays_attached(game):
    game.add("companion-falcon", "item-torch", to="inventory:ana")
    game.do(c.Attach(card="item-torch", host="companion-falcon"))
    assert game.table.face("companion-falcon") == "down"
    game.refuse(c.Activate(actor="ana", card="item-torch", effect=1), RuleBroken)
    game.do(c.Reveal(cards=("companion-falcon",)))
    rec = game.do(c.Activate(actor="ana", card="item-torch", effect=1))
    # an attachment is not "activated from the inventory": it is neither discarded nor buried
    assert rec.event.went_to is None
    assert game.table.host("item-torch") == "companion-falcon"


def test_a_face_down_card_on_a_table_cannot_be_activated(game):
    game.add("companion-wolf", to="table:ana")
    game.do(c.Hide(cards=("companion-wolf",)))
    err = game.refuse(c.Activate(actor="ana", card="companion-wolf", effect=1), RuleBroken)
    assert "face-down" in str(err)
    game.do(c.Reveal(cards=("companion-wolf",)))
    game.do(c.Activate(actor="ana", card="companion-wolf", effect=1))


# -- requirements ---------------------------------------------------------------------------------
def test_the_heros_knowledge_must_meet_the_cards_requirement(game):
    game.add("item-potion", to="inventory:bo")  # needs knowledge 1; bo has 0
    err = game.refuse(c.Activate(actor="bo", card="item-potion"), RuleBroken)
    assert "knowledge 1" in str(err) and "knowledge is 0" in str(err)
    game.refuse(c.Activate(actor="master", hero="bo", card="item-potion"), RuleBroken)
    game.do(c.SetKnowledge(hero="bo", knowledge=1))
    rec = game.do(c.Activate(actor="bo", card="item-potion"))
    assert rec.event.hero == "bo"
    assert game.zone("item-potion") == "discard"


def test_knowledge_is_checked_for_cards_activated_from_a_table_too(game):
    game.add("skill-true-shot", to="inventory:ana")  # knowledge 2; ana has 1
    game.refuse(c.Activate(actor="ana", card="skill-true-shot"), RuleBroken)
    game.do(c.SetKnowledge(hero="ana", knowledge=2))
    game.do(c.Send(cards=("skill-true-shot",), to="table:ana"))
    assert game.zone("skill-true-shot") == "table:ana"
    game.do(c.Activate(actor="ana", card="skill-true-shot"))


@pytest.fixture
def wand_game(app, sample_catalog) -> Game:
    """The sample catalog plus item-wand, a card with two activate effects (1 and 3)."""
    wand = Card(id="item-wand", suit="item", name="Varinha", level=1, value=3, knowledge=0,
                effects=("activate", "auto", "activate"))
    rec = app.start(Catalog([*sample_catalog, wand]), name="Wand")
    g = Game(app, rec.campaign.id)
    g.do(c.AddHero(hero="ana", knowledge=1))
    return g


def test_a_card_with_several_activate_effects_needs_the_effect_chosen(wand_game):
    wand_game.add("item-wand", to="table:ana")
    err = wand_game.refuse(c.Activate(actor="ana", card="item-wand"), BadInput)
    assert "--effect" in str(err)
    first = wand_game.do(c.Activate(actor="ana", card="item-wand", effect=1))
    third = wand_game.do(c.Activate(actor="ana", card="item-wand", effect=3))
    assert (first.event.effect, first.event.effect_kind) == (1, "activate")
    assert (third.event.effect, third.event.effect_kind) == (3, "activate")


def test_a_card_with_several_activate_effects_from_the_inventory_needs_the_effect_chosen(wand_game):
    wand_game.add("item-wand", to="inventory:ana")
    wand_game.refuse(c.Activate(actor="ana", card="item-wand"), BadInput)
    wand_game.refuse(c.Activate(actor="ana", card="item-wand", effect=2), RuleBroken)  # auto
    rec = wand_game.do(c.Activate(actor="ana", card="item-wand", effect=3))
    assert rec.event.went_to == "discard"


@pytest.mark.parametrize("card, effect", [("item-sword", 2), ("item-rope", 3), ("companion-wolf", 9)])
def test_an_effect_beyond_the_cards_effects_is_refused(game, card, effect):
    game.add(card, to="table:ana")
    game.refuse(c.Activate(actor="ana", card=card, effect=effect), BadInput)


def test_a_card_with_no_activate_effect_cannot_be_activated_manually(game):
    game.add("skill-first-aid", to="table:ana")
    err = game.refuse(c.Activate(actor="ana", card="skill-first-aid"), RuleBroken)
    assert "no activate effect" in str(err)


def test_the_activation_records_effect_target_note_action_points_and_energies_as_given(game):
    game.add("companion-wolf", to="table:ana")
    rec = game.do(c.Activate(actor="ana", card="companion-wolf", effect=1, target="goblin at C4", note="bites",
                             action_points=7, energies={"fire": 3, "ice": 0}))
    event = rec.event
    assert rec.action == "activate"
    assert (event.card, event.hero, event.actor) == ("companion-wolf", "ana", "ana")
    assert (event.effect, event.effect_kind) == (1, "activate")
    assert (event.target, event.note) == ("goblin at C4", "bites")
    assert event.action_points == 7
    assert event.energies == {"fire": 3, "ice": 0}
    stored = game.app.event(game.cid, rec.seq)
    assert stored == event


@pytest.mark.parametrize("energies", [{"fire": -3}, {"fire": 101}, {"fire": 10**30},
                                      {f"kind{i}": 1 for i in range(21)}, {"f" * 41: 1}, {"": 1}],
                         ids=["negative", "over-100", "huge", "21-kinds", "long-kind", "empty-kind"])
def test_energies_paid_are_whole_amounts_from_0_to_100_of_at_most_20_kinds(game, energies):
    """Rule energies-paid (§7; ruleset 9): a negative amount read as energy gained
    ("paid -3 fire"), and a huge one or thousands of kinds filled the record; so did a kind
    named in a megabyte (ruleset 10: at most 40 characters). The refusal quotes no more of
    the name than that."""
    game.add("companion-wolf", to="table:ana")
    before = game.app.stored_event_count()
    err = game.refuse(c.Activate(actor="ana", card="companion-wolf", energies=energies), BadInput)
    assert "energy" in str(err) and len(str(err)) < 200 and game.app.stored_event_count() == before
    game.do(c.Activate(actor="ana", card="companion-wolf", energies={f"kind{i}": 100 for i in range(20)}))
    game.do(c.Activate(actor="ana", card="companion-wolf", energies={"f" * 40: 1}))


def test_an_activation_without_costs_records_none(game):
    game.add("item-sword", to="table:ana")
    event = game.do(c.Activate(actor="ana", card="item-sword")).event
    assert (event.target, event.note, event.action_points, event.energies) == (None, None, None, {})


def test_auto_effects_cost_no_action_points_or_energies(game):
    game.add("item-rope", to="table:ana")  # effect 2 is auto
    game.refuse(c.Activate(actor="ana", card="item-rope", effect=2, action_points=1), RuleBroken)
    game.refuse(c.Activate(actor="ana", card="item-rope", effect=2, energies={"fire": 1}), RuleBroken)
    rec = game.do(c.Activate(actor="ana", card="item-rope", effect=2))
    assert rec.event.effect_kind == "auto"
    # the same card's activate effect may record its costs
    paid = game.do(c.Activate(actor="ana", card="item-rope", effect=1, action_points=1, energies={"fire": 1}))
    assert (paid.event.action_points, paid.event.energies) == (1, {"fire": 1})


# -- who activates, and from where ----------------------------------------------------------------
def test_a_hero_cannot_activate_a_card_in_another_heros_inventory(game):
    game.add("item-sword", to="inventory:bo")
    game.refuse(c.Activate(actor="ana", card="item-sword"), NotAllowed)
    game.refuse(c.Activate(actor="ana", hero="ana", card="item-sword"), NotAllowed)


def test_a_hero_cannot_activate_a_card_on_another_heros_table(game):
    game.add("item-sword", to="table:bo")
    assert game.table.face("item-sword") == "up"
    game.refuse(c.Activate(actor="ana", card="item-sword"), NotAllowed)
    game.refuse(c.Activate(actor="ana", hero="bo", card="item-sword"), NotAllowed)


def test_the_master_may_record_an_activation_for_a_hero(game):
    game.add("item-sword", to="inventory:ana")
    game.refuse(c.Activate(actor="master", hero="bo", card="item-sword"), NotAllowed)
    rec = game.do(c.Activate(actor="master", hero="ana", card="item-sword", note="recorded by the master"))
    assert (rec.event.actor, rec.event.hero) == ("master", "ana")
    assert rec.event.went_to == "discard"


@pytest.mark.parametrize("actor", ["master", "ana"])
def test_a_card_in_a_deck_cannot_be_activated(game, actor):
    game.add("item-sword", to="deck:item")
    game.refuse(c.Activate(actor=actor, hero="ana", card="item-sword"), RuleBroken)


@pytest.mark.parametrize("actor", ["master", "ana"])
def test_an_exiled_card_in_limbo_cannot_be_activated(game, actor):
    # RULES.md §7: cards in limbo are neither active nor inactive (face-up there, but out of play)
    game.add("item-sword", to="limbo")
    assert game.table.face("item-sword") == "up"
    game.refuse(c.Activate(actor=actor, hero="ana", card="item-sword"), RuleBroken)


def test_a_card_in_the_box_cannot_be_activated(game):
    game.refuse(c.Activate(actor="master", hero="ana", card="item-sword"), CardNotThere)
    game.refuse(c.Activate(actor="ana", card="item-sword"), RuleBroken)
