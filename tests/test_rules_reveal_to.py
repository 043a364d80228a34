"""RULES.md §9 (the seeds say nothing of showing a card to one player; the rules page does):

    "`<hero>`: public information, plus what that hero's player may see (their inventory,
     decks their hero controls that allow a look, cards revealed to them)."

``reveal CARD --to HERO`` shows a face-down card to chosen heroes only. Their views
identify it while it stays where it was shown; every other viewer still sees
``{"id": null, "face": "down"}``; the history tells the others to whom something was
shown, not what; fair play counts it as seen. Each test is named after the rule it checks.
"""

from __future__ import annotations

import json

import pytest

from ledger import commands as c
from ledger.audit import verify
from ledger.errors import NotAllowed, RuleBroken
from ledger.visibility import can_identify
from projections.views import action_view, zones_view

from .conftest import Game

pytestmark = pytest.mark.both_stores


@pytest.fixture
def shown(game: Game) -> Game:
    """ana holds item-shield face-down; item-torch and item-rope lie in deck:item."""
    game.add("item-shield", to="inventory:ana")
    game.add("item-torch", "item-rope", to="deck:item")
    return game


def ids(view: dict, zone: str) -> list:
    return [entry["id"] for entry in view["zones"][zone]]


def test_a_card_revealed_to_a_hero_is_identified_by_that_hero_only(shown):
    rec = shown.do(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)))
    campaign = rec.campaign
    assert shown.table.face("item-shield") == "down"
    assert ids(zones_view(campaign, "bo"), "inventory:ana") == ["item-shield"]
    assert ids(zones_view(campaign, "public"), "inventory:ana") == [None]
    assert can_identify(campaign, "ana", "item-shield")
    shown.do(c.AddHero(hero="cy"))
    assert not can_identify(shown.campaign, "cy", "item-shield")


def test_the_others_learn_to_whom_something_was_shown_never_what(shown):
    rec = shown.do(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)))
    public = action_view(rec.event, rec.campaign, "public")
    assert "item-shield" not in json.dumps(public)
    assert public["summary"] == "reveal a hidden card to bo only"
    assert action_view(rec.event, rec.campaign, "bo")["summary"] == "reveal item-shield to bo only"


def test_the_master_may_show_a_deck_card_to_one_hero_and_a_shuffle_makes_it_unknown_again(shown):
    shown.do(c.Reveal(cards=("item-rope",), to=("ana",)))
    assert ids(zones_view(shown.campaign, "ana"), "deck:item") == [None, "item-rope"]
    shown.do(c.Draw(stack="deck:item", to="scenario"))  # the torch leaves: the rope is still known, now on top
    assert ids(zones_view(shown.campaign, "ana"), "deck:item") == ["item-rope"]
    shown.add("item-bow", "item-axe", to="deck:item")
    shown.do(c.Shuffle(stack="deck:item", seed=3))
    assert not can_identify(shown.campaign, "ana", "item-rope")


def test_a_card_shown_to_a_hero_that_moves_is_no_longer_identified_by_them(shown):
    shown.do(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)))
    shown.do(c.Send(actor="ana", cards=("item-shield",), to="table:ana", face="down"))
    assert not can_identify(shown.campaign, "bo", "item-shield")


def test_revealing_to_a_hero_needs_a_face_down_card_in_play_that_they_cannot_see_yet(shown):
    shown.do(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)))
    shown.refuse(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)), RuleBroken)  # already
    shown.refuse(c.Reveal(cards=("class-mage",), to=("bo",)), RuleBroken)  # in the box
    shown.add("item-bow", to="scenario")
    shown.refuse(c.Reveal(cards=("item-bow",), to=("bo",)), RuleBroken)  # face-up: everyone sees it


def test_a_hero_reveals_only_cards_they_control(shown):
    shown.refuse(c.Reveal(actor="bo", cards=("item-shield",), to=("bo",)), NotAllowed)
    shown.refuse(c.Reveal(actor="ana", cards=("item-rope",), to=("bo",)), NotAllowed)


def test_fair_play_counts_it_as_seen_so_only_the_master_takes_it_back_and_undo_is_exact(shown):
    before = shown.campaign.table.to_dict()
    rec = shown.do(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)))
    assert rec.event.identified == {"bo": ("item-shield",)}
    err = shown.refuse(c.Undo(actor="ana"), NotAllowed)
    assert "showed hidden cards" in str(err)
    shown.do(c.Undo())
    assert shown.campaign.table.to_dict() == before
    shown.do(c.Redo())
    assert can_identify(shown.campaign, "bo", "item-shield")
    assert verify(shown.app, shown.cid).bad_seq is None


def test_time_travel_and_a_fresh_replay_keep_who_was_shown_what(shown):
    rec = shown.do(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)))
    shown.do(c.Send(actor="ana", cards=("item-shield",), to="table:ana", face="down"))
    then = shown.app.campaign(shown.cid, at=rec.seq)
    assert then.table.shown == {"item-shield": ("bo",)}
    assert shown.campaign.table.shown == {}
    from ledger.fold import Table

    assert Table.from_dict(then.table.to_dict()).shown == then.table.shown


def test_a_shown_card_that_stays_where_it_is_stays_known_when_exhausted(shown):
    shown.do(c.Send(actor="ana", cards=("item-shield",), to="table:ana", face="down"))
    shown.do(c.Reveal(actor="ana", cards=("item-shield",), to=("bo",)))
    shown.do(c.Exhaust(actor="ana", cards=("item-shield",)))
    assert can_identify(shown.campaign, "bo", "item-shield")
    shown.do(c.Reveal(actor="ana", cards=("item-shield",)))  # face-up for all: the private showing ends
    assert shown.campaign.table.shown == {}


@pytest.mark.parametrize("seed", range(6))
def test_after_a_shuffle_a_shown_card_is_unknown_whatever_order_came_out(game, seed):
    """Whether the card stays known must not tell whether the order changed (a 2-card
    deck: some seeds keep the order)."""
    game.add("item-torch", "item-rope", to="deck:item")
    game.do(c.Reveal(cards=("item-torch",), to=("ana",)))
    game.do(c.Shuffle(stack="deck:item", seed=seed))
    assert game.campaign.table.shown == {}
    assert ids(zones_view(game.campaign, "ana"), "deck:item") == [None, None]


def _deck_shuffled_again_then_the_reveal_undone(game: Game) -> tuple[int, str]:
    """The master shows ana a card of the item deck; ana draws another and the master
    takes the draw back (the deck is shuffled again: ana no longer knows where the shown
    card lies); then the master takes the showing back. Returns the undo's seq and the card."""
    game.add("item-torch", "item-bow", "item-rope", "item-sword", to="deck:item")
    game.do(c.Reveal(cards=("item-bow",), to=("ana",)))
    game.do(c.Draw(actor="ana", stack="deck:item"))
    assert game.do(c.Undo()).event.reshuffled_stacks == ("deck:item",)
    assert not can_identify(game.campaign, "ana", "item-bow")
    return game.do(c.Undo()).seq, "item-bow"


def test_an_undo_records_each_change_from_the_table_as_it_stands_and_names_no_card_shown_before_a_shuffle(game):
    """Fair play (§9; ruleset 12; no rulebook rule):
    undo and redo work from the table as it stands (``Play.apply_again``). Found by the model-based
    test: an undo applied the inverses of the recorded changes, whose ``was`` still said
    the card was shown to ana although an undone draw's undo had shuffled the deck since;
    read back, the undo named the card to her. Now every change of an undo starts from
    the table as it stood (the fold, stepped, meets each ``was``), and no viewer but the
    master is named the card."""
    seq, card = _deck_shuffled_again_then_the_reveal_undone(game)
    undo = game.app.event(game.cid, seq)
    _changes_start_from_the_table(game, seq)
    for viewer in ("public", "ana", "bo"):
        assert card not in json.dumps(action_view(undo, game.campaign, viewer)), viewer
    assert verify(game.app, game.cid).bad_seq is None


def _changes_start_from_the_table(game: Game, seq: int) -> None:
    """Each change of the action at ``seq`` starts from the table as it stood and reaches its ``now``."""
    from ledger.changes import CardChanged, StackReordered

    event = game.app.event(game.cid, seq)
    table = game.app.campaign(game.cid, at=seq - 1).table
    for change in event.changes:
        if isinstance(change, CardChanged):
            assert change.was == table.spot(change.card), change
        elif isinstance(change, StackReordered):
            assert change.was == tuple(table.cards_in(change.stack)), change
        table.apply(change)
        if isinstance(change, CardChanged):
            assert change.now == table.spot(change.card), change


def _shuffled_again(game: Game) -> None:
    """ana draws the top card of the item deck and the master takes it back: the deck is
    shuffled again, and a card shown to ana in it is unknown to her."""
    game.do(c.Draw(actor="ana", stack="deck:item"))
    assert game.do(c.Undo(seed=7)).event.reshuffled_stacks == ("deck:item",)
    assert not can_identify(game.campaign, "ana", "item-bow")


@pytest.mark.parametrize("case", ["undo of a move in the deck", "keep-order undo of a second showing",
                                  "redo of a showing"])
def test_an_undo_or_redo_shows_no_card_again_in_a_deck_shuffled_again_since(game, case):
    """Fair play (§9; ruleset 12; no rulebook rule):
    undo and redo work from the table as it stands (``Play.apply_again``). Found by a QA pass: an
    undo or redo put back whom a card had been shown to as the record said, though an
    undone action's undo had shuffled its deck again since: ana was told where the bow
    lies in an order she never saw (after the undo of a move that had taken the showing
    away, after a kept-order undo of a later showing to bo, after the redo of the showing).
    Now a change shows a card again only where no undo shuffled its deck since the change
    was recorded, what it takes away it still takes away (bo's showing ends), and a redo
    of actions whose deck an undo shuffled since is refused."""
    game.add("item-torch", "item-bow", "item-rope", "item-sword", to="deck:item")
    game.do(c.Reveal(cards=("item-bow",), to=("ana",)))
    if case == "undo of a move in the deck":
        game.do(c.Send(cards=("item-bow",), to="deck:item", position="bottom"))
        _shuffled_again(game)
        last = game.do(c.Undo(seed=3))
    elif case == "keep-order undo of a second showing":
        game.do(c.Reveal(cards=("item-bow",), to=("bo",)))
        _shuffled_again(game)
        last = game.do(c.Undo(keep_order=True))
        assert not can_identify(game.campaign, "bo", "item-bow")
    else:  # the redo is refused (rule decks-not-shuffled-since), so the showing stays undone
        _shuffled_again(game)
        last = game.do(c.Undo(keep_order=True))
        refused = str(game.refuse(c.Redo(), RuleBroken))
        assert "shuffled deck:item again after seq" in refused and "record the actions again" in refused
    assert not can_identify(game.campaign, "ana", "item-bow")
    assert game.campaign.table.shown == {}
    _changes_start_from_the_table(game, last.seq)
    for viewer in ("public", "ana", "bo"):
        assert "item-bow" not in json.dumps(action_view(last.event, game.campaign, viewer)), viewer
    assert verify(game.app, game.cid).bad_seq is None


def test_an_undo_or_redo_with_no_shuffle_since_shows_the_card_again_exactly(game):
    """Without a shuffle between, a kept-order undo and its redo give back exactly the
    tables they took back: the showing ends, and the redo shows the card again."""
    game.add("item-torch", "item-bow", "item-rope", "item-sword", to="deck:item")
    shown = game.do(c.Reveal(cards=("item-bow",), to=("ana",)))
    after = game.campaign.table.to_dict()
    undo = game.do(c.Undo(keep_order=True))
    assert not can_identify(game.campaign, "ana", "item-bow")
    redo = game.do(c.Redo())
    assert game.campaign.table.to_dict() == after and can_identify(game.campaign, "ana", "item-bow")
    assert redo.event.changes == shown.event.changes
    assert undo.event.changes == tuple(change.inverse() for change in reversed(shown.event.changes))


def test_an_undo_recorded_under_older_rules_is_decided_again_as_it_was(app, sample_catalog):
    """verify decides an older undo under its own rules (ruleset 11: the recorded
    inverses applied as they were), so a campaign recorded then still checks out."""
    from ledger.rulesets import decided_under

    with decided_under(11):
        rec = app.start(sample_catalog, name="Old")
        old = Game(app, rec.campaign.id)
        old.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        seq, card = _deck_shuffled_again_then_the_reveal_undone(old)
    undo = app.event(old.cid, seq)
    assert undo.ruleset == 11
    assert any(change.was.shown == ("ana",) for change in undo.changes if getattr(change, "card", None) == card)
    assert verify(app, old.cid).bad_seq is None
