"""A first end-to-end check that the pieces fit."""

from ledger import commands as c
from ledger.errors import DeckEmpty


def test_draw_moves_the_top_card_to_the_inventory(game):
    game.add("item-sword", "item-bow", to="deck:item")
    rec = game.do(c.Draw(actor="ana", stack="deck:item"))
    assert rec.seq == 5
    assert game.zone("item-sword") == "inventory:ana"
    assert game.cards("deck:item") == ["item-bow"]


def test_empty_deck_without_depot_cards_is_refused(game):
    game.refuse(c.Draw(actor="ana", stack="deck:event"), DeckEmpty)
