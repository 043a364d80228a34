"""RULES.md §3: stacks — orientation on entry, deck order, shuffles, ownership, the
box, and the states (exhausted, face) a card may or may not take."""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.changes import StackReordered
from ledger.errors import BadInput, CardNotThere, NotAllowed, RuleBroken
from tests.conftest import Game

pytestmark = pytest.mark.both_stores

ITEMS = ("item-sword", "item-bow", "item-rope", "item-torch", "item-potion", "item-shield", "item-axe", "item-spear")


def _reorders(rec, stack):
    return [ch for ch in rec.event.changes if isinstance(ch, StackReordered) and ch.stack == stack]


# -- orientation on entry ------------------------------------------------------------
@pytest.mark.parametrize(
    "start, stack, face",
    [
        ("table:ana", "deck:item", "down"),  # face-up card into a deck
        ("inventory:ana", "discard", "up"),  # face-down card into the discard pile
        ("inventory:ana", "depot", "up"),  # face-down card into the depot
    ],
)
def test_card_entering_a_stack_takes_the_stacks_orientation(game, start, stack, face):
    game.add("item-sword", to=start)
    assert game.table.face("item-sword") != face
    game.do(c.Send(cards=("item-sword",), to=stack))
    assert game.zone("item-sword") == stack
    assert game.table.face("item-sword") == face


def test_revealed_inventory_card_buried_enters_the_deck_face_down(game):
    game.add("item-sword", to="inventory:ana")
    game.do(c.Reveal(actor="ana", cards=("item-sword",)))
    assert game.table.face("item-sword") == "up"
    game.do(c.Bury(actor="ana", cards=("item-sword",)))
    assert game.table.face("item-sword") == "down"


def test_send_face_up_into_a_face_down_deck_is_refused(game):
    game.add("item-sword", to="table:ana")
    game.refuse(c.Send(cards=("item-sword",), to="deck:item", face="up"), RuleBroken)
    assert game.zone("item-sword") == "table:ana"


def test_send_face_down_into_a_face_up_pile_is_refused(game):
    game.add("item-sword", to="table:ana")
    game.refuse(c.Send(cards=("item-sword",), to="discard", face="down"), RuleBroken)


def test_send_with_the_stacks_own_face_is_accepted(game):
    game.add("item-sword", to="table:ana")
    game.do(c.Send(cards=("item-sword",), to="deck:item", face="down"))
    assert game.zone("item-sword") == "deck:item"
    assert game.table.face("item-sword") == "down"


def test_face_is_honoured_outside_stacks(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.do(c.Send(cards=("item-sword",), to="table:ana", face="down"))
    assert game.zone("item-sword") == "table:ana"
    assert game.table.face("item-sword") == "down"
    game.do(c.Send(cards=("item-bow",), to="table:ana"))
    assert game.table.face("item-bow") == "up"  # a table shows its cards by default


# -- deck order -----------------------------------------------------------------------
def test_add_to_deck_top_puts_the_block_on_top_in_the_named_order(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", "item-torch", "item-potion", to="deck:item", position="top")
    assert game.cards("deck:item") == ["item-rope", "item-torch", "item-potion", "item-sword", "item-bow"]


def test_add_to_deck_bottom_puts_the_block_at_the_bottom_in_the_named_order(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", "item-torch", "item-potion", to="deck:item", position="bottom")
    assert game.cards("deck:item") == ["item-sword", "item-bow", "item-rope", "item-torch", "item-potion"]


@pytest.mark.parametrize(
    "position, expected",
    [
        (1, ["item-rope", "item-torch", "item-sword", "item-bow", "item-shield"]),
        (2, ["item-sword", "item-rope", "item-torch", "item-bow", "item-shield"]),
        (3, ["item-sword", "item-bow", "item-rope", "item-torch", "item-shield"]),
        (4, ["item-sword", "item-bow", "item-shield", "item-rope", "item-torch"]),
    ],
)
def test_add_to_deck_at_position_n_counts_from_one_at_the_top(game, position, expected):
    game.add("item-sword", "item-bow", "item-shield", to="deck:item")
    game.add("item-rope", "item-torch", to="deck:item", position=position)
    assert game.cards("deck:item") == expected


def test_send_to_deck_at_position_n_keeps_the_block_order(game):
    game.add("item-sword", "item-bow", "item-shield", to="deck:item")
    game.add("item-rope", "item-torch", to="discard")
    game.do(c.Send(cards=("item-torch", "item-rope"), to="deck:item", position=2))
    assert game.cards("deck:item") == ["item-sword", "item-torch", "item-rope", "item-bow", "item-shield"]


def test_block_moved_within_a_deck_to_position_n_keeps_the_named_order(game):
    # Position N counts among the deck's other cards: the block lands N-th, in the order named.
    game.add("item-sword", "item-bow", "item-rope", "item-torch", to="deck:item")
    game.do(c.Send(cards=("item-sword", "item-bow"), to="deck:item", position=2))
    assert game.cards("deck:item") == ["item-rope", "item-sword", "item-bow", "item-torch"]


@pytest.mark.parametrize("position", [0, 4, 99, -1])
def test_add_at_position_past_the_bottom_is_refused(game, position):
    game.add("item-sword", "item-bow", to="deck:item")  # positions 1..3 are valid
    game.refuse(c.Add(cards=("item-rope",), to="deck:item", position=position), BadInput)
    assert game.zone("item-rope") == "box"


def test_send_at_position_past_the_bottom_is_refused(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", "item-torch", to="table:ana")
    game.refuse(c.Send(cards=("item-rope", "item-torch"), to="deck:item", position=4), BadInput)


def test_add_at_position_just_past_the_last_card_goes_to_the_bottom(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", to="deck:item", position=3)
    assert game.cards("deck:item") == ["item-sword", "item-bow", "item-rope"]


# -- shuffling ------------------------------------------------------------------------
def test_shuffle_records_the_whole_order_before_and_after(game):
    game.add(*ITEMS, to="deck:item")
    rec = game.do(c.Shuffle(stack="deck:item", seed=7))
    (change,) = _reorders(rec, "deck:item")
    assert change.was == ITEMS
    assert change.now == tuple(game.cards("deck:item"))
    assert sorted(change.now) == sorted(ITEMS)
    assert change.now != change.was


def test_shuffle_with_the_same_seed_gives_the_same_order(app, game, sample_catalog):
    other = Game(app, app.start(sample_catalog, name="Other").campaign.id)
    for g in (game, other):
        g.add(*ITEMS, to="deck:item")
        g.do(c.Shuffle(stack="deck:item", seed=12345))
    assert game.cards("deck:item") == other.cards("deck:item")
    assert game.cards("deck:item") != list(ITEMS)
    # a different seed gives (here) another order
    third = Game(app, app.start(sample_catalog, name="Third").campaign.id)
    third.add(*ITEMS, to="deck:item")
    third.do(c.Shuffle(stack="deck:item", seed=54321))
    assert third.cards("deck:item") != game.cards("deck:item")


def test_shuffle_replayed_from_the_log_gives_the_same_order(game, db_path):
    game.add(*ITEMS, to="deck:item")
    rec = game.do(c.Shuffle(stack="deck:item"))  # no seed: random
    shuffled = game.cards("deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item"))
    after_draw = game.cards("deck:item")
    for _ in range(2):  # never re-randomised, however often it is read
        fresh = Ledger.open(db_path)
        try:
            assert fresh.campaign(game.cid).table.cards_in("deck:item") == after_draw
            assert fresh.campaign(game.cid, at=rec.seq).table.cards_in("deck:item") == shuffled
        finally:
            fresh.close()


def test_shuffling_an_unordered_pile_is_refused(game):
    game.add(*ITEMS[:4], to="discard")
    game.refuse(c.Shuffle(stack="discard"), RuleBroken)
    game.add(*ITEMS[4:], to="depot")
    game.refuse(c.Shuffle(stack="depot"), RuleBroken)


@pytest.mark.parametrize("n", [0, 1])
def test_shuffling_a_deck_with_fewer_than_two_cards_is_refused(game, n):
    if n:
        game.add(*ITEMS[:n], to="deck:item")
    game.refuse(c.Shuffle(stack="deck:item", seed=1), RuleBroken)


# -- ownership ------------------------------------------------------------------------
@pytest.mark.parametrize("zone", ["table:bo", "extra:bo"])
def test_hero_may_not_take_cards_from_another_heros_zone(game, zone):
    game.add("item-sword", to=zone)
    game.refuse(c.Send(actor="ana", cards=("item-sword",), to="inventory:ana"), NotAllowed)
    game.refuse(c.Discard(actor="ana", cards=("item-sword",)), NotAllowed)
    game.refuse(c.Exile(actor="ana", cards=("item-sword",)), NotAllowed)
    assert game.zone("item-sword") == zone


def test_hero_may_not_take_cards_from_another_heros_inventory(game):
    game.add("item-sword", to="inventory:bo")
    game.refuse(c.Send(actor="ana", cards=("item-sword",), to="inventory:ana"), NotAllowed)
    game.refuse(c.Discard(actor="ana", cards=("item-sword",)), NotAllowed)


def test_hero_may_not_take_a_revealed_card_from_another_heros_inventory(game):
    game.add("item-sword", to="inventory:bo")
    game.do(c.Reveal(actor="bo", cards=("item-sword",)))
    game.refuse(c.Send(actor="ana", cards=("item-sword",), to="inventory:ana"), NotAllowed)


def test_hero_may_not_move_a_card_they_cannot_see(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.refuse(c.Send(actor="ana", cards=("item-bow",), to="inventory:ana"), NotAllowed)
    game.refuse(c.Discard(actor="ana", cards=("item-sword",)), NotAllowed)


def test_master_may_take_cards_from_a_heros_zones(game):
    game.add("item-sword", to="inventory:bo")
    game.add("item-bow", to="table:bo")
    game.do(c.Send(cards=("item-sword", "item-bow"), to="inventory:ana"))
    assert game.zone("item-sword") == "inventory:ana"
    assert game.zone("item-bow") == "inventory:ana"
    assert game.cards("inventory:bo") == [] and game.cards("table:bo") == []


def test_hero_may_draw_from_and_search_unowned_decks_but_not_take_from_the_discard_pile(game):
    """A deck nobody owns is anyone's to draw from, and to search by an effect (fair
    play: an active card the hero controls); the discard pile, nobody's either, is
    reached only by trading (RULES.md §8), so sending a card out of it is refused."""
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", to="discard")
    game.add("skill-dodge", to="table:bo")  # knowledge 0, face-up on bo's table: active
    game.do(c.Draw(actor="bo", stack="deck:item"))
    err = game.refuse(c.Send(actor="bo", cards=("item-rope",), to="inventory:bo"), NotAllowed)
    assert "trad" in str(err)
    game.refuse(c.Search(actor="bo", stack="deck:item", take=("item-bow",)), NotAllowed)  # no effect named
    game.do(c.Search(actor="bo", stack="deck:item", take=("item-bow",), by="skill-dodge"))
    assert sorted(game.cards("inventory:bo")) == ["item-bow", "item-sword"]
    assert game.zone("item-rope") == "discard"


def test_hero_may_move_their_own_cards(game):
    game.add("item-sword", to="inventory:ana")
    game.do(c.Send(actor="ana", cards=("item-sword",), to="table:ana"))
    assert game.zone("item-sword") == "table:ana"


# -- the box ---------------------------------------------------------------------------
def test_card_in_the_box_cannot_be_sent(game):
    err = game.refuse(c.Send(cards=("item-sword",), to="inventory:ana"), CardNotThere)
    assert "add" in str(err)
    assert game.zone("item-sword") == "box"


def test_card_cannot_be_added_twice(game):
    game.add("item-sword", to="deck:item")
    game.refuse(c.Add(cards=("item-sword",), to="discard"), CardNotThere)
    game.refuse(c.Add(cards=("item-bow", "item-sword"), to="deck:item"), CardNotThere)
    assert game.zone("item-bow") == "box"


# -- exhaust and restore ---------------------------------------------------------------
@pytest.mark.parametrize("zone", ["deck:item", "discard", "depot", "inventory:ana"])
def test_exhausting_a_card_in_a_stack_or_inventory_is_refused(game, zone):
    game.add("item-sword", to=zone)
    game.refuse(c.Exhaust(cards=("item-sword",)), RuleBroken)


def test_exhausting_an_attached_card_is_refused(game):
    game.add("companion-wolf", "item-torch", to="table:ana")
    game.do(c.Attach(card="item-torch", host="companion-wolf"))
    game.refuse(c.Exhaust(cards=("item-torch",)), RuleBroken)
    game.refuse(c.Exhaust(actor="ana", cards=("item-torch",)), RuleBroken)


def test_exhaust_and_restore_a_table_card(game):
    game.add("item-sword", to="table:ana")
    game.do(c.Exhaust(actor="ana", cards=("item-sword",)))
    assert "item-sword" in game.table.exhausted
    game.refuse(c.Exhaust(actor="ana", cards=("item-sword",)), RuleBroken)
    game.do(c.Restore(actor="ana", cards=("item-sword",)))
    assert "item-sword" not in game.table.exhausted
    game.refuse(c.Restore(actor="ana", cards=("item-sword",)), RuleBroken)


@pytest.mark.parametrize("to", ["extra:ana", "table:bo", "scenario", "inventory:ana", "discard"])
def test_card_that_changes_zone_comes_in_restored(game, to):
    game.add("item-sword", to="table:ana")
    game.do(c.Exhaust(cards=("item-sword",)))
    assert "item-sword" in game.table.exhausted
    game.do(c.Send(cards=("item-sword",), to=to))
    assert game.zone("item-sword") == to
    assert "item-sword" not in game.table.exhausted


# -- reveal and hide -------------------------------------------------------------------
def test_reveal_turns_a_card_face_up_and_refuses_when_already_up(game):
    game.add("item-sword", to="inventory:ana")
    assert game.table.face("item-sword") == "down"
    game.do(c.Reveal(actor="ana", cards=("item-sword",)))
    assert game.table.face("item-sword") == "up"
    assert game.zone("item-sword") == "inventory:ana"
    game.refuse(c.Reveal(actor="ana", cards=("item-sword",)), RuleBroken)


def test_hide_turns_a_card_face_down_and_refuses_when_already_down(game):
    game.add("item-sword", to="table:ana")
    assert game.table.face("item-sword") == "up"
    game.do(c.Hide(actor="ana", cards=("item-sword",)))
    assert game.table.face("item-sword") == "down"
    assert game.zone("item-sword") == "table:ana"
    game.refuse(c.Hide(actor="ana", cards=("item-sword",)), RuleBroken)
