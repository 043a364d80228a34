"""RULES.md §7: card states as ``ledger.rules.card_states`` derives them from where
and how a card lies."""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.rules import card_states

pytestmark = pytest.mark.both_stores

FACE_AND_TILT = {"revealed", "hidden", "restored", "exhausted"}


def states(game, card: str) -> set[str]:
    found = card_states(game.campaign, card)
    assert len(found) == len(set(found)), found
    return set(found)


# -- revealed / hidden ---------------------------------------------------------------------
def test_face_up_card_is_revealed_and_face_down_card_hidden(game):
    game.add("item-sword", to="table:ana")
    assert "revealed" in states(game, "item-sword")
    assert "hidden" not in states(game, "item-sword")
    game.do(c.Hide(cards=("item-sword",)))
    assert "hidden" in states(game, "item-sword")
    assert "revealed" not in states(game, "item-sword")


# -- inventory -----------------------------------------------------------------------------
def test_inventory_card_is_hidden_and_inactive_until_revealed(game):
    game.add("item-sword", to="inventory:ana")
    s = states(game, "item-sword")
    assert {"hidden", "inactive"} <= s
    assert not s & {"revealed", "active", "exiled", "attached"}


def test_revealed_inventory_card_is_revealed_and_active(game):
    game.add("item-sword", to="inventory:ana")
    game.do(c.Reveal(actor="ana", cards=("item-sword",)))
    s = states(game, "item-sword")
    assert {"revealed", "active"} <= s
    assert not s & {"hidden", "inactive"}


# -- table and scenario -----------------------------------------------------------------------
def test_table_card_is_restored_then_exhausted(game):
    game.add("item-sword", to="table:ana")
    assert states(game, "item-sword") == {"revealed", "restored", "active"}
    game.do(c.Exhaust(cards=("item-sword",)))
    assert states(game, "item-sword") == {"revealed", "exhausted", "active"}
    game.do(c.Restore(cards=("item-sword",)))
    assert states(game, "item-sword") == {"revealed", "restored", "active"}


def test_hidden_table_card_is_inactive(game):
    game.add("item-sword", to="deck:item")
    game.do(c.Send(cards=("item-sword",), to="table:ana", face="down"))
    assert states(game, "item-sword") == {"hidden", "restored", "inactive"}


def test_scenario_card_is_active_when_revealed_and_inactive_when_hidden(game):
    game.add("event-festival", to="scenario")
    assert {"revealed", "active"} <= states(game, "event-festival")
    game.do(c.Hide(cards=("event-festival",)))
    s = states(game, "event-festival")
    assert {"hidden", "inactive"} <= s
    assert "active" not in s


# -- decks ---------------------------------------------------------------------------------
def test_card_in_a_deck_is_hidden_and_inactive_with_no_restored_or_exhausted_state(game):
    game.add("item-sword", "event-storm", to="table:ana")
    game.do(c.Exhaust(cards=("item-sword",)))
    game.do(c.Send(cards=("item-sword",), to="deck:item"))
    game.do(c.Send(cards=("event-storm",), to="deck:event"))
    assert states(game, "item-sword") == {"hidden", "inactive"}
    # a face-down card in a stack never has its effects considered, @anywhere or not
    assert states(game, "event-storm") == {"hidden", "inactive"}


# -- limbo ---------------------------------------------------------------------------------
def test_card_in_limbo_is_exiled_and_neither_active_nor_inactive(game):
    game.add("item-sword", "event-storm", to="table:ana")
    game.do(c.Exile(cards=("item-sword", "event-storm")))
    for card in ("item-sword", "event-storm"):
        s = states(game, card)
        assert "exiled" in s
        assert not s & {"active", "inactive", "restored", "exhausted", "attached"}


# -- attached ------------------------------------------------------------------------------
@pytest.mark.parametrize("card", ["item-torch", "item-spear"])
def test_attached_card_with_attachment_effect_on_a_face_up_host_is_active(game, card):
    assert game.campaign.card(card).has_effect(scope="attachment")
    game.add("companion-wolf", to="table:ana")
    game.add(card, to="deck:item")
    game.do(c.Attach(card=card, host="companion-wolf"))
    assert states(game, card) == {"attached", "active"}


def test_attached_card_without_attachment_effect_is_inactive(game):
    assert not game.campaign.card("item-sword").has_effect(scope="attachment")
    game.add("companion-wolf", "item-sword", to="table:ana")
    game.do(c.Attach(card="item-sword", host="companion-wolf"))
    assert states(game, "item-sword") == {"attached", "inactive"}


def test_attached_card_on_a_face_down_host_is_inactive(game):
    game.add("companion-wolf", "item-torch", to="table:ana")
    game.do(c.Attach(card="item-torch", host="companion-wolf"))
    game.do(c.Hide(cards=("companion-wolf",)))
    assert states(game, "item-torch") == {"attached", "inactive"}
    game.do(c.Reveal(cards=("companion-wolf",)))
    assert states(game, "item-torch") == {"attached", "active"}


def test_attached_card_on_a_hidden_inventory_card_is_inactive(game):
    game.add("companion-wolf", to="inventory:ana")
    game.add("item-torch", to="deck:item")
    game.do(c.Attach(card="item-torch", host="companion-wolf"))
    assert states(game, "item-torch") == {"attached", "inactive"}


def test_attached_card_disregards_revealed_hidden_restored_and_exhausted(game):
    game.add("companion-wolf", "item-torch", to="table:ana")
    game.do(c.Attach(card="item-torch", host="companion-wolf"))
    game.do(c.Exhaust(cards=("companion-wolf",)))
    assert not states(game, "item-torch") & FACE_AND_TILT
    game.do(c.Hide(cards=("item-torch",)))  # the attachment's own face does not count
    assert states(game, "item-torch") == {"attached", "active"}


# -- piles ---------------------------------------------------------------------------------
def test_face_up_card_in_discard_pile_with_anywhere_effect_is_active(game):
    assert game.campaign.card("event-storm").has_effect(scope="anywhere")
    game.add("event-storm", to="discard")
    assert states(game, "event-storm") == {"revealed", "active"}


def test_face_up_card_in_discard_pile_without_stack_effect_is_inactive(game):
    assert not game.campaign.card("event-festival").has_effect(scope="anywhere")
    game.add("event-festival", "item-torch", to="discard")
    assert states(game, "event-festival") == {"revealed", "inactive"}
    # an attachment-scope effect is not a stack effect
    assert states(game, "item-torch") == {"revealed", "inactive"}


def test_face_down_card_in_discard_pile_is_inactive_even_with_anywhere_effect(game):
    game.add("event-storm", to="discard")
    game.do(c.Hide(cards=("event-storm",)))
    assert states(game, "event-storm") == {"hidden", "inactive"}
