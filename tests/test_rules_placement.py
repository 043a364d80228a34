"""RULES.md §5: where cards may be — sheet-card and knowledge placement, bury, exile,
discard, and the attachments a host leaves behind."""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.changes import CardChanged, HeroChanged
from ledger.errors import RuleBroken
from ledger.events import Redirect

pytestmark = pytest.mark.both_stores


def _spot_face(game, card: str) -> str:
    return game.table.face(card)


# -- sheet cards ----------------------------------------------------------------
@pytest.mark.parametrize("asked", ["inventory:ana", "scenario", "depot"])
def test_sheet_card_sent_outside_its_places_goes_to_discard(game, asked):
    game.add("house-north", to="deck:house")
    rec = game.do(c.Send(cards=("house-north",), to=asked))
    assert game.zone("house-north") == "discard"
    assert _spot_face(game, "house-north") == "up"
    assert rec.event.redirects == (
        Redirect(card="house-north", asked=asked, actual="discard", rule="sheet-card-placement"),
    )


@pytest.mark.parametrize("asked", ["depot", "inventory:ana"])
def test_moves_something_a_send_a_placement_rule_turns_into_no_move_names_where_the_card_lies(game, asked):
    """Rule moves-something (§5): a sheet card in the discard pile sent where the rule
    redirects it back to the discard pile is refused, naming the discard pile (where it
    lies) and the zone asked, not saying it lies in the zone asked."""
    game.add("class-rogue", to="discard")
    message = str(game.refuse(c.Send(cards=("class-rogue",), to=asked), RuleBroken))
    assert "already lies that way in discard" in message and f"instead of {asked}" in message, message


def test_sheet_card_sent_to_inventory_goes_to_discard(game):
    game.add("class-warrior", to="table:ana")
    rec = game.do(c.Send(cards=("class-warrior",), to="inventory:ana"))
    assert game.zone("class-warrior") == "discard"
    assert game.cards("inventory:ana") == []
    (redirect,) = rec.event.redirects
    assert (redirect.asked, redirect.actual, redirect.rule) == ("inventory:ana", "discard", "sheet-card-placement")


def test_sheet_card_added_from_the_box_to_an_inventory_goes_to_discard(game):
    rec = game.add("entity-lich", to="inventory:bo")
    assert game.zone("entity-lich") == "discard"
    assert [r.rule for r in rec.event.redirects] == ["sheet-card-placement"]


@pytest.mark.parametrize("zone", ["table:ana", "deck:house", "discard", "extra:ana"])  # its suit's deck (ruleset 14)
def test_sheet_card_may_go_to_table_deck_discard_or_extra_zone(game, zone):
    game.add("house-north", to="extra:bo")
    assert game.zone("house-north") == "extra:bo"
    rec = game.do(c.Send(cards=("house-north",), to=zone))
    assert game.zone("house-north") == zone
    assert rec.event.redirects == ()


def test_sheet_card_may_be_attached(game):
    game.add("house-north", to="table:ana")
    game.add("class-mage", to="table:ana")
    rec = game.do(c.Attach(card="class-mage", host="house-north"))
    assert game.table.host("class-mage") == "house-north"
    assert game.zone("class-mage") == "table:ana"
    assert rec.event.redirects == ()


def test_sheet_card_drawn_into_an_inventory_goes_to_discard(game):
    game.add("class-rogue", "class-bard", to="deck:class")
    rec = game.do(c.Draw(actor="ana", stack="deck:class"))
    assert rec.event.cards == ("class-rogue",)
    assert game.zone("class-rogue") == "discard"
    assert game.cards("inventory:ana") == []
    assert game.cards("deck:class") == ["class-bard"]
    assert rec.event.redirects == (
        Redirect(card="class-rogue", asked="inventory:ana", actual="discard", rule="sheet-card-placement"),
    )


# -- asset cards and knowledge ----------------------------------------------------
def test_asset_card_sent_to_table_of_hero_below_its_knowledge_goes_to_inventory(game):
    game.add("item-potion", "item-old-map", to="deck:item")
    rec = game.do(c.Send(cards=("item-potion",), to="table:bo"))  # needs 1, bo has 0
    assert game.zone("item-potion") == "inventory:bo"
    assert rec.event.redirects == (
        Redirect(card="item-potion", asked="table:bo", actual="inventory:bo", rule="asset-knowledge-placement"),
    )
    rec = game.do(c.Send(cards=("item-old-map",), to="table:ana"))  # needs 2, ana has 1
    assert game.zone("item-old-map") == "inventory:ana"
    assert [r.rule for r in rec.event.redirects] == ["asset-knowledge-placement"]


def test_asset_knowledge_placement_a_send_that_it_leaves_where_it_was_says_why_and_who_may_change_it(game):
    """A QA pass: Bo (knowledge 0) sending the Axe (1) from his hand to his table was told
    only that "a placement rule sends it instead"; it says which requirement, and that the
    master changes a hero's knowledge. A sheet card sent from the discard pile to a hand: the
    zones a sheet card may lie in."""
    game.add("item-axe", to="inventory:bo")
    err = game.refuse(c.Send(actor="bo", cards=("item-axe",), to="table:bo"), RuleBroken)
    assert "nothing to do" in str(err) and "item-axe needs knowledge 1 to lie on table:bo" in str(err), str(err)
    assert "bo's knowledge is 0 (the master changes a hero's knowledge)" in str(err), str(err)
    game.add("class-mage", to="discard")
    err = game.refuse(c.Send(cards=("class-mage",), to="inventory:ana"), RuleBroken)
    assert "nothing to do" in str(err) and "a sheet card lies only on a table" in str(err), str(err)


def test_asset_card_goes_to_table_when_knowledge_equals_requirement(game):
    game.add("item-potion", to="deck:item")
    rec = game.do(c.Send(cards=("item-potion",), to="table:ana"))  # needs 1, ana has 1
    assert game.zone("item-potion") == "table:ana"
    assert rec.event.redirects == ()


def test_asset_card_above_knowledge_may_be_attached_to_a_card_on_that_table(game):
    game.add("companion-wolf", to="table:bo")
    game.add("item-amulet", to="deck:item")  # needs knowledge 2, bo has 0
    rec = game.do(c.Attach(card="item-amulet", host="companion-wolf"))
    assert game.table.host("item-amulet") == "companion-wolf"
    assert game.zone("item-amulet") == "table:bo"
    assert rec.event.redirects == ()


def test_raising_knowledge_lets_an_asset_card_go_to_the_table(game):
    game.add("item-old-map", to="deck:item")
    game.do(c.Send(cards=("item-old-map",), to="table:ana"))
    assert game.zone("item-old-map") == "inventory:ana"
    game.do(c.SetKnowledge(hero="ana", knowledge=2))
    rec = game.do(c.Send(actor="ana", cards=("item-old-map",), to="table:ana"))
    assert game.zone("item-old-map") == "table:ana"
    assert rec.event.redirects == ()


def test_lowering_knowledge_moves_unqualified_table_cards_to_inventory_in_the_same_action(game):
    game.add("item-potion", "item-sword", "class-warrior", to="table:ana")
    assert game.zone("item-potion") == "table:ana"
    before = game.app.last_seq(game.cid)
    rec = game.do(c.SetKnowledge(hero="ana", knowledge=0))
    assert rec.seq == before + 1
    assert game.app.last_seq(game.cid) == before + 1
    assert game.table.heroes["ana"].knowledge == 0
    assert game.zone("item-potion") == "inventory:ana"  # needs 1
    assert game.zone("item-sword") == "table:ana"  # needs 0
    assert game.zone("class-warrior") == "table:ana"  # a sheet card has no requirement
    kinds = {type(ch) for ch in rec.event.changes}
    assert HeroChanged in kinds and CardChanged in kinds
    assert [(r.card, r.asked, r.actual, r.rule) for r in rec.event.redirects] == [
        ("item-potion", "table:ana", "inventory:ana", "asset-knowledge-placement")
    ]


# -- bury, exile, discard -----------------------------------------------------------
def test_bury_puts_card_face_down_at_bottom_of_its_suits_campaign_deck(game):
    game.add("item-bow", "item-rope", to="deck:item")
    game.add("item-sword", to="table:ana")
    assert _spot_face(game, "item-sword") == "up"
    game.do(c.Bury(cards=("item-sword",)))
    assert game.cards("deck:item") == ["item-bow", "item-rope", "item-sword"]
    assert _spot_face(game, "item-sword") == "down"


def test_bury_of_a_sheet_card_goes_to_its_own_suits_deck(game):
    game.add("class-monk", to="deck:class")
    game.add("house-north", to="table:ana")
    game.do(c.Bury(cards=("house-north",)))
    assert game.cards("deck:house") == ["house-north"]
    assert game.cards("deck:class") == ["class-monk"]


def test_bury_to_a_deck_named_goes_to_its_bottom(game):
    """(Into a deck of its own suit: from ruleset 14 a deck holds one suit, test_rules_decks.)"""
    game.add("item-bow", "item-rope", to="deck:item")
    game.add("item-sword", to="discard")
    assert _spot_face(game, "item-sword") == "up"
    game.do(c.Bury(cards=("item-sword",), to="deck:item"))
    assert game.cards("deck:item") == ["item-bow", "item-rope", "item-sword"]
    assert _spot_face(game, "item-sword") == "down"


@pytest.mark.parametrize("to", ["discard", "table:ana", "depot", "limbo"])
def test_bury_to_a_non_deck_is_refused(game, to):
    game.add("item-sword", to="inventory:ana")
    game.refuse(c.Bury(cards=("item-sword",), to=to), RuleBroken)
    assert game.zone("item-sword") == "inventory:ana"


def test_exile_sends_card_to_limbo(game):
    game.add("item-sword", to="inventory:ana")
    game.add("house-north", to="table:ana")
    game.do(c.Exile(cards=("item-sword", "house-north")))
    assert game.zone("item-sword") == "limbo"
    assert game.zone("house-north") == "limbo"


def test_discard_sends_card_face_up_to_the_discard_pile(game):
    game.add("item-sword", to="inventory:ana")
    assert _spot_face(game, "item-sword") == "down"
    game.do(c.Discard(actor="ana", cards=("item-sword",)))
    assert game.zone("item-sword") == "discard"
    assert _spot_face(game, "item-sword") == "up"


# -- attachments of a host that leaves ----------------------------------------------
def _wolf_with_torch(game, zone="table:ana"):
    game.add("companion-wolf", to=zone)
    game.add("item-torch", to="deck:item")
    game.do(c.Attach(card="item-torch", host="companion-wolf"))
    assert game.table.host("item-torch") == "companion-wolf"


@pytest.mark.parametrize(
    "command",
    [
        c.Send(cards=("companion-wolf",), to="inventory:ana"),
        c.Send(cards=("companion-wolf",), to="table:bo"),
        c.Discard(cards=("companion-wolf",)),
        c.Exile(cards=("companion-wolf",)),
        c.Bury(cards=("companion-wolf",)),
    ],
    ids=["send", "send-other-table", "discard", "exile", "bury"],
)
def test_attached_cards_are_discarded_when_their_host_leaves_its_zone(game, command):
    _wolf_with_torch(game)
    before = game.app.last_seq(game.cid)
    rec = game.do(command)
    assert rec.seq == before + 1
    assert game.zone("companion-wolf") != "table:ana"
    assert game.zone("item-torch") == "discard"
    assert game.table.host("item-torch") is None
    assert game.cards("on:companion-wolf") == []
    assert any(isinstance(ch, CardChanged) and ch.card == "item-torch" for ch in rec.event.changes)


def test_attached_cards_are_discarded_when_their_host_leaves_an_inventory(game):
    _wolf_with_torch(game, zone="inventory:ana")
    game.do(c.Discard(actor="ana", cards=("companion-wolf",)))
    assert game.zone("item-torch") == "discard"
    assert game.table.host("item-torch") is None


def test_attached_cards_stay_when_their_host_stays_in_its_zone(game):
    _wolf_with_torch(game)
    game.do(c.Exhaust(cards=("companion-wolf",)))
    game.do(c.Hide(cards=("companion-wolf",)))
    assert game.table.host("item-torch") == "companion-wolf"
    assert game.zone("item-torch") == "table:ana"


def test_attached_card_moved_by_the_same_action_as_its_host_is_not_discarded(game):
    _wolf_with_torch(game)
    game.do(c.Send(cards=("companion-wolf", "item-torch"), to="inventory:ana"))
    assert game.zone("companion-wolf") == "inventory:ana"
    assert game.zone("item-torch") == "inventory:ana"
    assert game.cards("discard") == []


def test_attachment_chain_is_discarded_when_the_first_host_leaves(game):
    _wolf_with_torch(game)
    game.add("item-spear", to="deck:item")
    game.do(c.Attach(card="item-spear", host="item-torch"))
    assert game.zone("item-spear") == "table:ana"
    before = game.app.last_seq(game.cid)
    rec = game.do(c.Send(cards=("companion-wolf",), to="inventory:ana"))
    assert rec.seq == before + 1
    assert game.zone("companion-wolf") == "inventory:ana"
    assert game.zone("item-torch") == "discard"
    assert game.zone("item-spear") == "discard"
    assert game.table.host("item-spear") is None


@pytest.mark.parametrize(
    "cards",
    [("companion-wolf", "item-torch"), ("item-torch", "companion-wolf")],
    ids=["host-first", "attachment-first"],
)
def test_card_attached_to_a_moved_attachment_is_discarded_whatever_the_order_named(game, cards):
    # wolf <- torch <- spear; the action moves wolf and torch, not spear. Torch is the
    # host of spear and leaves the table, so spear is discarded (RULES.md §5 Decision).
    _wolf_with_torch(game)
    game.add("item-spear", to="deck:item")
    game.do(c.Attach(card="item-spear", host="item-torch"))
    game.do(c.Send(cards=cards, to="inventory:ana"))
    assert game.zone("companion-wolf") == "inventory:ana"
    assert game.zone("item-torch") == "inventory:ana"
    assert game.zone("item-spear") == "discard"


def test_moves_something_a_card_sent_to_the_unordered_pile_it_lies_in_is_nothing_to_do(game):
    """A QA pass (ruleset 14): `send item-axe --to discard` with item-axe already in the
    discard pile, which keeps no order, was recorded each time (it moved to the pile's end),
    while `--position top` on it was refused as nothing to do. Both are nothing to do now;
    a card that does move comes along with the others."""
    game.add("item-axe", "item-bow", to="discard")
    game.add("item-rope", to="inventory:ana")
    before = game.app.stored_event_count()
    for cards in (("item-axe",), ("item-axe", "item-bow")):
        for position in (None, "top", "bottom"):
            err = game.refuse(c.Send(cards=cards, to="discard", position=position), RuleBroken)
            assert "nothing to do" in str(err) and "a pile that keeps no order" in str(err), str(err)
    assert game.app.stored_event_count() == before
    game.do(c.Send(cards=("item-axe", "item-rope"), to="discard"))
    assert set(game.cards("discard")) == {"item-axe", "item-bow", "item-rope"}
