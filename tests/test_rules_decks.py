"""RULES.md §4: campaign decks — refilling an empty deck from the depot, drawing and
discarding from the top, and searching."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from ledger import commands as c
from ledger.audit import verify
from ledger.catalog import Card, Catalog
from ledger.changes import StackReordered
from ledger.errors import BadInput, CardNotThere, DeckEmpty, RuleBroken, UnknownCard
from ledger.events import Refill
from projections.queries import history_view
from projections.readmodel import ReadModel
from projections.views import recorded_view
from tests.conftest import Game, db_of

pytestmark = pytest.mark.both_stores

ITEMS = ("item-sword", "item-bow", "item-rope", "item-torch", "item-potion", "item-shield", "item-axe", "item-spear")


def _reorders(rec, stack):
    return [ch for ch in rec.event.changes if isinstance(ch, StackReordered) and ch.stack == stack]


def _suits(game, zone):
    return {game.campaign.card(card).suit for card in game.cards(zone)}


@pytest.fixture
def big_game(app) -> Game:
    """A campaign whose catalog holds 130 item cards and 5 skills; hero ana."""
    cards = [
        Card(id=f"item-{i:03d}", suit="item", name=f"Item {i}", level=1, value=1, knowledge=0)
        for i in range(130)
    ] + [
        Card(id=f"skill-{i:03d}", suit="skill", name=f"Skill {i}", level=1, value=1, knowledge=0)
        for i in range(5)
    ]
    rec = app.start(Catalog(cards), name="Big")
    g = Game(app, rec.campaign.id)
    g.do(c.AddHero(hero="ana", knowledge=1))
    return g


# -- refilling an empty deck -------------------------------------------------------------
def test_drawing_from_an_empty_deck_refills_it_from_the_depot_with_that_suit_only(game):
    game.add("item-sword", "item-bow", "item-rope", "skill-dodge", "event-storm", to="depot")
    before = game.app.last_seq(game.cid)
    rec = game.do(c.Draw(stack="deck:item", to="inventory:ana", seed=3))  # recorded by the master, whose seed it is
    assert rec.seq == before + 1
    assert game.app.last_seq(game.cid) == before + 1
    assert rec.event.refills == (Refill(deck="deck:item", source="depot", count=3),)
    (drawn,) = rec.event.cards
    assert drawn in ("item-sword", "item-bow", "item-rope")
    assert game.zone(drawn) == "inventory:ana"
    deck = game.cards("deck:item")
    assert sorted(deck + [drawn]) == ["item-bow", "item-rope", "item-sword"]
    assert all(game.table.face(card) == "down" for card in deck)
    assert sorted(game.cards("depot")) == ["event-storm", "skill-dodge"]
    assert all(game.table.face(card) == "up" for card in game.cards("depot"))


def test_deck_is_not_refilled_while_it_has_cards(game):
    game.add("item-sword", to="deck:item")
    game.add("item-bow", "item-rope", to="depot")
    rec = game.do(c.Draw(actor="ana", stack="deck:item"))
    assert rec.event.cards == ("item-sword",)
    assert rec.event.refills == ()
    assert sorted(game.cards("depot")) == ["item-bow", "item-rope"]
    assert game.cards("deck:item") == []


def test_refill_takes_at_most_100_cards_of_the_suit(big_game):
    g = big_game
    g.add(*(f"item-{i:03d}" for i in range(120)), to="depot")
    g.add("skill-000", "skill-001", to="depot")
    rec = g.do(c.Draw(stack="deck:item", to="inventory:ana", seed=1))  # recorded by the master, whose seed it is
    assert rec.event.refills == (Refill(deck="deck:item", source="depot", count=100),)
    assert len(rec.event.cards) == 1
    assert len(g.cards("deck:item")) == 99
    assert len(g.cards("depot")) == 22
    assert sorted(c_ for c_ in g.cards("depot") if c_.startswith("skill")) == ["skill-000", "skill-001"]
    assert len(g.cards("inventory:ana")) == 1
    assert all(g.table.face(card) == "down" for card in g.cards("deck:item"))


def test_drawing_more_than_deck_and_depot_can_give_is_refused_with_how_many_could_be_drawn(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", "item-torch", "item-potion", "skill-dodge", "skill-stealth", to="depot")
    err = game.refuse(c.Draw(actor="ana", stack="deck:item", count=6), DeckEmpty)
    assert re.search(r"\b5\b", str(err)), str(err)
    assert game.cards("deck:item") == ["item-sword", "item-bow"]
    assert game.cards("inventory:ana") == []
    # and exactly that many can be drawn
    rec = game.do(c.Draw(actor="ana", stack="deck:item", count=5))
    assert len(rec.event.cards) == 5
    assert rec.event.refills == (Refill(deck="deck:item", source="depot", count=3),)
    assert game.cards("deck:item") == []
    assert sorted(game.cards("depot")) == ["skill-dodge", "skill-stealth"]


def test_deck_without_depot_cards_of_its_suit_stays_empty_and_a_draw_is_refused(game):
    game.add("skill-dodge", "event-storm", to="depot")
    game.refuse(c.Draw(actor="ana", stack="deck:item"), DeckEmpty)
    game.refuse(c.Draw(stack="deck:item", to="inventory:ana"), DeckEmpty)
    assert game.cards("deck:item") == []
    assert sorted(game.cards("depot")) == ["event-storm", "skill-dodge"]


def test_discard_from_a_deck_takes_its_top_cards(game):
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    rec = game.do(c.Discard(stack="deck:item", count=2))
    assert rec.event.cards == ("item-sword", "item-bow")
    assert game.zone("item-sword") == "discard" and game.zone("item-bow") == "discard"
    assert game.table.face("item-sword") == "up"
    assert game.cards("deck:item") == ["item-rope"]
    assert rec.event.refills == ()


@pytest.mark.parametrize("extra", [{"count": 2}, {"seed": 5}])
def test_discard_of_named_cards_takes_no_count_or_seed(game, extra):
    """A QA pass: `discard item-sword --count 2` discarded the one card named, the count
    passed over without a word."""
    game.add("item-sword", to="table:ana")
    err = game.refuse(c.Discard(cards=("item-sword",), **extra), BadInput)
    assert "go with --from" in str(err)
    game.do(c.Discard(cards=("item-sword",)))
    from ledger.rulesets import decided_under

    game.add("item-bow", to="table:ana")
    with decided_under(14):  # as recorded before ruleset 15, so that such a record still verifies
        game.do(c.Discard(cards=("item-bow",), **extra))
    assert game.zone("item-bow") == "discard"


def test_discard_from_an_empty_deck_refills_it_from_the_depot_first(game):
    game.add("item-sword", "item-bow", "item-rope", "skill-dodge", to="depot")
    before = game.app.last_seq(game.cid)
    rec = game.do(c.Discard(stack="deck:item", count=2, seed=5))
    assert rec.seq == before + 1
    assert rec.event.refills == (Refill(deck="deck:item", source="depot", count=3),)
    assert len(rec.event.cards) == 2
    assert sorted(game.cards("discard")) == sorted(rec.event.cards)
    assert len(game.cards("deck:item")) == 1
    assert game.cards("depot") == ["skill-dodge"]


def test_discard_from_an_empty_deck_without_depot_cards_is_refused(game):
    game.add("skill-dodge", to="depot")
    game.refuse(c.Discard(stack="deck:item"), DeckEmpty)


@pytest.mark.parametrize("command", [c.Discard(stack="deck:item", count=3), c.Draw(actor="ana", stack="deck:item", count=3)],
                         ids=["discard-from", "draw"])
def test_deck_can_give_says_how_many_cards_a_deck_and_its_refill_can_give(game, command):
    """Rule deck-can-give (§4): asked for more than the deck and the depot's cards of its
    suit hold, the refusal says how many it can give, for a discard from the top as for a
    draw (not that the depot has none)."""
    game.add("item-sword", "item-bow", to="depot")
    message = str(game.refuse(command, DeckEmpty))
    assert "only 2 of the 3" in message and "at most 2" in message, message


# -- searching ---------------------------------------------------------------------------
def test_search_takes_the_named_cards_into_the_actors_inventory(game):
    """A hero searches by the effect of an active card they control; the cards found go
    to their inventory when no zone is named."""
    game.add(*ITEMS, to="deck:item")
    game.add("skill-tracking", to="table:ana")  # face-up on her table: active
    rec = game.do(c.Search(actor="ana", stack="deck:item", take=("item-axe", "item-bow"), by="skill-tracking"))
    assert game.zone("item-axe") == "inventory:ana"
    assert game.zone("item-bow") == "inventory:ana"
    assert rec.event.taken == ("item-axe", "item-bow")
    assert len(game.cards("deck:item")) == len(ITEMS) - 2


def test_search_with_to_takes_the_cards_there(game):
    game.add(*ITEMS, to="deck:item")
    game.do(c.Search(stack="deck:item", take=("item-rope",), to="inventory:bo"))
    assert game.zone("item-rope") == "inventory:bo"


def test_searching_a_face_down_deck_reshuffles_it_in_the_same_action(game):
    game.add(*ITEMS, to="deck:item")
    before = game.app.last_seq(game.cid)
    rec = game.do(c.Search(stack="deck:item", take=("item-rope",), to="inventory:ana", seed=11))  # the master's seed
    assert rec.seq == before + 1
    assert rec.event.reshuffled is True
    (change,) = _reorders(rec, "deck:item")
    remaining = tuple(card for card in ITEMS if card != "item-rope")
    assert change.was == remaining
    assert change.now == tuple(game.cards("deck:item"))
    assert change.now != change.was


def test_searching_the_face_up_discard_pile_does_not_reshuffle(game):
    game.add(*ITEMS, to="discard")
    order = game.cards("discard")
    rec = game.do(c.Search(stack="discard", take=("item-rope",), to="inventory:ana", seed=11))  # the master's seed
    assert game.zone("item-rope") == "inventory:ana"
    assert rec.event.reshuffled is False
    assert _reorders(rec, "discard") == []
    assert game.cards("discard") == [card for card in order if card != "item-rope"]


def test_searched_cards_a_heros_search_for_hidden_cards_the_stack_lacks_is_recorded_as_missed(game):
    """Rule searched-cards (§4, §9; ruleset 9): a refusal that said "not in the deck" cost
    a hero nothing, so naming one card after another told her what a deck holds. Now her
    search happens: it takes the named cards the deck holds, records the others as not
    found wherever they lie (another hero's hand, the box), and the deck is shuffled again,
    as after any search; the others never learn which cards she looked for."""
    game.add("item-sword", "item-bow", "item-torch", to="deck:item")
    game.add("item-rope", to="inventory:bo")
    game.add("skill-tracking", to="table:ana")
    before = game.app.stored_event_count()
    rec = game.do(c.Search(actor="ana", stack="deck:item", take=("item-rope", "item-axe", "item-bow"),
                           by="skill-tracking"))  # in bo's hand, in the box, in the deck
    assert game.app.stored_event_count() == before + 1
    assert (rec.event.taken, rec.event.missed) == (("item-bow",), ("item-rope", "item-axe"))
    assert rec.event.reshuffled and [c.stack for c in rec.event.commitments] == ["deck:item"]
    assert game.zone("item-bow") == "inventory:ana" and game.zone("item-rope") == "inventory:bo"
    assert sorted(game.cards("deck:item")) == ["item-sword", "item-torch"]
    mine = recorded_view(rec.event, game.campaign, "ana", {})
    assert "item-rope, item-axe not found" in mine["events"][0]["summary"]
    for viewer in ("public", "bo"):
        view = json.dumps(recorded_view(rec.event, game.campaign, viewer, {}))
        assert "item-axe" not in view and "item-bow" not in view, viewer
    assert "item-rope" not in json.dumps(recorded_view(rec.event, game.campaign, "public", {}))
    model = ReadModel(game.app, db_of(game.app))
    try:
        model.catch_up()
        for viewer in ("public", "bo", "ana"):  # her history, later: the others never read what she named,
            entry = history_view(game.app, model, game.cid, game.campaign.slug, viewer)[-1]
            assert entry["seq"] == rec.seq, viewer  # and she reads it as her command's reply said it
            assert ("item-axe" in json.dumps(entry)) is (viewer == "ana"), viewer
        assert "item-rope, item-axe not found" in history_view(game.app, model, game.cid, game.campaign.slug,
                                                              "ana")[-1]["summary"]
    finally:
        model.close()
    # an id the catalog lacks is refused (the catalog is no secret), and appends nothing
    err = game.refuse(c.Search(actor="ana", stack="deck:item", take=("item-nothing",), by="skill-tracking"),
                      UnknownCard)
    assert "catalog" in str(err) and game.app.stored_event_count() == before + 1
    assert verify(game.app, game.cid).ok


def test_searched_cards_under_ruleset_8_a_heros_search_for_a_card_not_in_the_stack_was_refused(app, sample_catalog):
    """Campaigns recorded under older rules decide again as they were decided: the refusal
    read, word for word, the same for a card hidden elsewhere and one that does not exist."""
    from ledger.rulesets import decided_under

    with decided_under(8):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.do(c.AddHero(hero="bo", name="Bo", knowledge=1))
        game.add("item-sword", "item-bow", to="deck:item")
        game.add("item-rope", to="inventory:bo")
        game.add("skill-tracking", to="table:ana")
        err = game.refuse(c.Search(actor="ana", stack="deck:item", take=("item-rope",), by="skill-tracking"),
                          CardNotThere)
        missing = game.refuse(c.Search(actor="ana", stack="deck:item", take=("item-nothing",), by="skill-tracking"),
                              CardNotThere)
        assert "inventory:bo" not in str(err)
        assert str(err).replace("item-rope", "X") == str(missing).replace("item-nothing", "X")
        game.do(c.Search(actor="ana", stack="deck:item", take=("item-bow",), by="skill-tracking"))
    assert verify(game.app, game.cid).ok


def test_searched_cards_what_a_hero_is_refused_before_the_search_does_not_depend_on_where_hidden_cards_lie(game):
    """Rule searched-cards (§9): item-sword and item-bow lie face-down in deck:item,
    item-rope in bo's inventory; ana sees none of them. A search refused for what it asks
    (a card named twice, a destination that is no zone or not hers) reads the same whether
    the cards are in the deck or not; one asked right takes those the deck holds."""
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", to="inventory:bo")
    game.add("skill-tracking", to="table:ana")
    names = re.compile(r"item-(sword|bow|rope|nothing)")

    def refusal(*take: str, to: str | None = None) -> tuple[type, str]:
        try:  # a card named twice: the command itself is refused, before anything is looked up
            search = c.Search(actor="ana", stack="deck:item", take=take, by="skill-tracking", to=to)
        except ValidationError as err:
            return type(err), names.sub("X", str(err.errors()[0]["msg"]))
        err = game.refuse(search)
        return type(err), names.sub("X", str(err))

    in_deck, elsewhere, missing = "item-sword", "item-rope", "item-nothing"
    assert refusal(in_deck, in_deck) == refusal(elsewhere, elsewhere) == refusal(missing, missing)
    assert refusal(in_deck, to="table:zz") == refusal(elsewhere, to="table:zz") == refusal(missing, to="table:zz")
    assert refusal(in_deck, to="inventory:bo") == refusal(elsewhere, to="inventory:bo") \
        == refusal(missing, to="inventory:bo")
    rec = game.do(c.Search(actor="ana", stack="deck:item", take=(elsewhere, in_deck, "item-bow"), by="skill-tracking"))
    assert (rec.event.taken, rec.event.missed) == ((in_deck, "item-bow"), (elsewhere,))


def test_search_for_a_card_not_in_the_stack_says_where_it_is_when_the_actor_sees_it(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.add("item-rope", to="inventory:ana")
    game.add("skill-tracking", to="table:ana")
    err = game.refuse(c.Search(actor="ana", stack="deck:item", take=("item-rope",), by="skill-tracking"),
                      CardNotThere)
    assert "inventory:ana" in str(err)


def test_master_has_no_inventory_so_draw_without_to_is_refused(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.refuse(c.Draw(stack="deck:item"), BadInput)
    game.refuse(c.Search(stack="deck:item", take=("item-bow",)), BadInput)
    game.do(c.Draw(stack="deck:item", to="inventory:ana"))
    assert game.zone("item-sword") == "inventory:ana"


# -- ruleset 14: a deck holds its own suit; an empty stack is not searched ---------------------
@pytest.mark.parametrize("command", [
    c.Add(cards=("item-axe",), to="deck:skill"),
    c.Send(cards=("item-sword",), to="deck:skill"),
    c.Bury(cards=("item-sword",), to="deck:event"),
    c.Draw(stack="deck:item", to="deck:skill", seed=1),
    c.Search(stack="deck:item", take=("item-bow",), to="deck:companion", seed=1),
], ids=["add", "send", "bury", "draw", "search"])
def test_deck_holds_its_suit_a_card_of_another_suit_is_refused_at_every_way_in(game, command):
    """Seed 001 ("um para cartas de cada naipe", ruleset 14): a QA pass put item-axe into
    deck:skill with a typo, and a hero's search later pulled an item out of the event deck.
    Every way a card goes into a deck is refused for a card of another suit, saying which
    deck is its own, and appends nothing; the master is refused too."""
    game.add("item-sword", "item-bow", to="deck:item")
    before = game.app.stored_event_count()
    err = game.refuse(command, RuleBroken)
    assert "holds only cards of suit" in str(err), str(err)
    # what would be right: the card's own deck; a draw is judged by its two decks, naming no card
    assert ("a draw from deck:item cannot go into deck:skill" if isinstance(command, c.Draw)
            else "its own is deck:item") in str(err), str(err)
    assert game.app.stored_event_count() == before
    assert verify(game.app, game.cid).ok


def test_deck_holds_its_suit_a_card_of_its_suit_goes_in_and_older_rules_took_any(app, sample_catalog):
    from ledger.rulesets import decided_under

    with decided_under(13):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.add("item-axe", to="deck:skill")  # as recorded then
        game.do(c.Search(stack="deck:house", take=(), seed=1))
    game.add("skill-dodge", to="deck:skill")  # today's rules, the same campaign
    assert game.cards("deck:skill") == ["skill-dodge", "item-axe"]
    assert verify(game.app, game.cid).ok  # each action decided again under its own rules


@pytest.mark.parametrize("stack", ["deck:house", "discard"])
def test_something_to_search_an_empty_stack_is_refused_and_the_hero_is_not_left_with_an_action_she_cannot_undo(
        game, stack):
    """A QA pass: bo searched the empty house deck by mistake (the page offered it); it was
    recorded, reshuffling nothing, and bo could not take it back. An empty stack's count is
    in sight of all, so refusing tells no one anything."""
    game.add("skill-tracking", to="table:ana")
    before = game.app.stored_event_count()
    actor = "ana" if stack.startswith("deck:") else "master"
    err = game.refuse(c.Search(actor=actor, stack=stack, take=("house-north",),
                               by="skill-tracking" if actor == "ana" else None), RuleBroken)
    assert f"{stack} is empty" in str(err)
    assert game.app.stored_event_count() == before


def test_searched_in_its_suit_a_heros_search_of_a_deck_for_a_card_of_another_suit_is_refused_before_it_looks(game):
    """A QA pass (ruleset 14): ana's search of deck:skill for item-sword was recorded as a
    miss, reshuffling the deck, and only the master could take it back; a skill deck holds
    no item, so the search could tell her nothing. Judged by the catalog, before it looks."""
    game.add("skill-dodge", "skill-stealth", to="deck:skill")
    game.add("item-sword", to="deck:item")
    game.add("skill-tracking", to="table:ana")
    before = game.app.stored_event_count()
    for card in ("item-sword", "item-bow"):  # in a deck, and in the box: the same words
        err = str(game.refuse(c.Search(actor="ana", stack="deck:skill", take=(card,), by="skill-tracking"),
                              RuleBroken))
        assert err == (f"card {card} is of suit item and deck:skill holds only cards of suit skill, so a search "
                       "there cannot find it; its deck is deck:item"), err
    assert game.app.stored_event_count() == before


def test_draws_elsewhere_a_draw_into_the_deck_it_draws_from_is_refused(game):
    """A QA pass (ruleset 14): the master's `draw deck:item --to deck:item` was recorded, moving
    its top card to the bottom; the refusal says how to do that."""
    game.add("item-sword", "item-bow", to="deck:item")
    err = str(game.refuse(c.Draw(stack="deck:item", to="deck:item", seed=1), RuleBroken))
    assert "send it there with --position bottom" in err
    assert game.cards("deck:item") == ["item-sword", "item-bow"]
