"""Fair play: a hero cannot gain an edge through the ledger (issue "Fair play").

Each test is written as the attack a hostile player would try with ``--actor HERO``
on a running campaign; each must now gain nothing: the action is refused with one
message, nothing is appended, and the message gives nothing away. The master may
still do anything.
"""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.audit import verify
from ledger.changes import StackReordered
from ledger.errors import LedgerError, NotAllowed, RuleBroken
from ledger.events import ActionUndone

from .conftest import Game, run_ledger

pytestmark = pytest.mark.both_stores

ITEMS = ("item-sword", "item-bow", "item-rope", "item-shield", "item-lantern", "item-axe", "item-torch",
         "item-potion", "item-helm", "item-amulet")


@pytest.fixture
def table(game: Game) -> Game:
    """Ten items in deck:item (sword on top), a village where ana and bo trade."""
    game.add(*ITEMS, to="deck:item")
    game.do(c.AddLocation(location="village", access={"item": 3, "skill": 3}))
    game.do(c.Travel(hero="ana", location="village"))
    game.do(c.Travel(hero="bo", location="village"))
    return game


def refused(game: Game, command: c.Command) -> str:
    return str(game.refuse(command, LedgerError))


# -- bury ------------------------------------------------------------------------------------
def test_buries_where_allowed_a_hero_buries_a_card_into_its_suits_deck_not_another(table):
    """Attack: bury an item of her own into deck:skill, where a later draw of a skill
    would be hers to predict. A hero buries only into the card's suit's deck (or a deck of
    their own); the master may bury into any deck of its suit (ruleset 14: a deck holds one suit)."""
    table.do(c.Draw(actor="ana", stack="deck:item", count=2))
    first, second = table.cards("inventory:ana")
    message = refused(table, c.Bury(actor="ana", cards=(first,), to="deck:skill"))
    assert "deck:item" in message and "deck:skill" in message
    table.do(c.Bury(actor="ana", cards=(first,), to="deck:item"))
    assert table.cards("deck:item")[-1] == first
    assert "holds only cards of suit" in refused(table, c.Bury(cards=(second,), to="deck:skill"))  # the master too
    table.do(c.Bury(cards=(second,), to="deck:item"))  # the master
    assert table.zone(second) == "deck:item"
    assert verify(table.app, table.cid).ok


# -- undo peek ---------------------------------------------------------------------------------
def test_a_hero_cannot_undo_a_draw_to_learn_the_deck_order(table):
    """Attack: draw the whole deck, read the hand, undo: the deck would come back in
    the order she saw. A hero may not undo an action that showed anyone a hidden card."""
    done = table.do(c.Draw(actor="ana", stack="deck:item", count=10))
    assert done.event.identified == {"ana": tuple(sorted(ITEMS))}
    message = refused(table, c.Undo(actor="ana"))
    assert "ask the master" in message


def test_showed_nothing_hidden_says_she_saw_them_when_only_she_did(table):
    """A QA pass: the refusal of ana's undo of her own draw said it "showed hidden cards to
    someone at the table", though only she saw them. Shown to her alone, it says so; shown
    to others too, it names no one."""
    table.do(c.Draw(actor="ana", stack="deck:item"))
    assert "showed ana hidden cards" in refused(table, c.Undo(actor="ana"))
    (card,) = table.cards("inventory:ana")
    table.do(c.Reveal(actor="ana", cards=(card,), to=("bo",)))  # bo sees it too
    message = refused(table, c.Undo(actor="ana"))
    assert "to someone at the table" in message and "bo" not in message, message


def test_the_masters_undo_of_a_seen_draw_reshuffles_the_deck_and_records_the_order(table):
    order = table.cards("deck:item")
    table.do(c.Draw(actor="ana", stack="deck:item", count=10))
    undo = table.do(c.Undo())
    assert isinstance(undo.event, ActionUndone)
    assert sorted(table.cards("deck:item")) == sorted(ITEMS)
    assert table.cards("deck:item") != order  # 1 chance in 10! of the same order
    assert undo.event.reshuffled_stacks == ("deck:item",)
    assert any(isinstance(ch, StackReordered) and ch.stack == "deck:item" for ch in undo.event.changes)
    assert verify(table.app, table.cid).ok


def test_undo_keep_order_is_a_recorded_referee_decision_that_keeps_the_order(table):
    order = table.cards("deck:item")
    table.do(c.Draw(actor="ana", stack="deck:item", count=3))
    undo = table.do(c.Undo(keep_order=True))
    assert table.cards("deck:item") == order
    assert undo.event.keep_order and undo.event.reshuffled_stacks == ()


def test_a_hero_may_not_ask_to_keep_the_order(table):
    table.do(c.Draw(actor="ana", stack="deck:item"))
    assert "master" in refused(table, c.Undo(actor="ana", keep_order=True))


def test_a_hero_may_still_undo_an_action_that_showed_no_one_a_hidden_card(table):
    table.do(c.Draw(actor="ana", stack="deck:item"))
    table.do(c.Send(actor="ana", cards=("item-sword",), to="table:ana"))
    table.do(c.Exhaust(actor="ana", cards=("item-sword",)))
    undo = table.do(c.Undo(actor="ana"))
    assert "item-sword" not in table.table.exhausted
    assert undo.event.reshuffled_stacks == ()


def test_a_hero_may_redo_only_their_own_undo(table):
    table.do(c.Draw(actor="ana", stack="deck:item"))
    table.do(c.Send(actor="ana", cards=("item-sword",), to="table:ana"))
    table.do(c.Exhaust(actor="ana", cards=("item-sword",)))
    table.do(c.Undo())  # the master's undo of ana's action
    assert "master" in refused(table, c.Redo(actor="ana"))
    table.do(c.Redo())
    table.do(c.Undo(actor="ana"))
    table.do(c.Redo(actor="ana"))
    assert "item-sword" in table.table.exhausted


# -- nobody picks a seed -------------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    c.Shuffle(actor="ana", stack="deck:item", seed=5),
    c.Draw(actor="ana", stack="deck:item", seed=5),
    c.Search(actor="ana", stack="deck:item", seed=5),
])
def test_a_hero_cannot_choose_a_seed(table, command):
    """Attack: knowing the order, pick the seed that puts the wanted card on top."""
    assert "seed" in refused(table, command)


def test_a_heros_shuffle_draws_its_seed_from_the_system(table):
    first = table.shuffle_as("ana", "deck:item")
    assert first.event.seed is None and first.event.rng is not None
    assert verify(table.app, table.cid).ok


# -- free taking ---------------------------------------------------------------------------------
@pytest.mark.parametrize("pile", ["discard", "depot"])
def test_a_hero_cannot_send_cards_out_of_a_campaign_pile_into_their_hand(table, pile):
    """RULES.md §8: the discard pile is reached by trading (values, access, battle)."""
    table.do(c.Send(cards=("item-helm",), to=pile))
    for to in ("inventory:ana", "table:ana", "extra:ana"):
        refused(table, c.Send(actor="ana", cards=("item-helm",), to=to))


def test_a_hero_cannot_raise_their_own_knowledge(table):
    assert "master" in refused(table, c.SetKnowledge(actor="ana", hero="ana", knowledge=3))


@pytest.mark.parametrize("to", ["inventory:bo", "table:bo", "box", "limbo", "discard"])
def test_a_hero_cannot_draw_into_someone_elses_zone_or_out_of_play(table, to):
    refused(table, c.Draw(actor="ana", stack="deck:item", to=to))


@pytest.mark.parametrize("to", ["inventory:bo", "table:bo", "box", "deck:item", "depot"])
def test_a_hero_cannot_send_their_card_to_someone_else_or_out_of_play(table, to):
    table.do(c.Draw(actor="ana", stack="deck:item"))
    refused(table, c.Send(actor="ana", cards=("item-sword",), to=to))


def test_a_hero_cannot_discard_from_the_top_of_a_deck(table):
    refused(table, c.Discard(actor="ana", stack="deck:item"))


@pytest.mark.parametrize("verb", [c.Bury, c.Exile, c.Discard, c.Reveal, c.Hide])
def test_a_hero_cannot_bury_exile_or_turn_cards_of_the_discard_pile(table, verb):
    table.do(c.Send(cards=("item-helm",), to="discard"))
    refused(table, verb(actor="ana", cards=("item-helm",)))


def test_a_hero_cannot_search_a_deck_without_an_effect_allowing_it(table):
    assert "effect" in refused(table, c.Search(actor="ana", stack="deck:item", take=("item-bow",)))


def test_a_hero_may_search_by_an_active_card_they_control(table):
    table.add("skill-tracking", to="table:ana")
    done = table.do(c.Search(actor="ana", stack="deck:item", take=("item-bow",), by="skill-tracking"))
    assert table.zone("item-bow") == "inventory:ana"
    assert done.event.allowed_by == "skill-tracking"


def test_search_allowed_the_masters_search_by_a_card_names_an_active_one(table):
    """A QA pass: the master's `search --by` a card in the box was recorded as allowed by
    it (the master needs no --by; when he gives one, the record says that effect allowed it)."""
    from ledger.rulesets import decided_under

    err = table.refuse(c.Search(stack="deck:item", take=("item-bow",), to="inventory:ana", by="skill-tracking"),
                       RuleBroken)
    assert "skill-tracking is not active" in str(err) and "without --by" in str(err)
    table.do(c.Search(stack="deck:item", take=("item-bow",), to="inventory:ana"))
    table.add("skill-tracking", to="table:ana")
    done = table.do(c.Search(stack="deck:item", take=("item-sword",), to="inventory:ana", by="skill-tracking"))
    assert done.event.allowed_by == "skill-tracking"
    table.do(c.Send(cards=("skill-tracking",), to="box"))
    with decided_under(14):  # as recorded before ruleset 15
        table.do(c.Search(stack="deck:item", take=("item-rope",), to="inventory:ana", by="skill-tracking"))


@pytest.mark.parametrize("pile", ["discard", "depot"])
def test_searches_decks_a_hero_may_not_search_the_discard_pile_or_the_depot(table, pile):
    """Any active card would otherwise let a hero take any card of the discard pile (no
    trade, no payment, no location, even in a battle) or of the depot (the master's)."""
    table.do(c.Send(cards=("item-axe",), to=pile))
    table.add("skill-tracking", to="table:ana")
    message = refused(table, c.Search(actor="ana", stack=pile, take=("item-axe",), by="skill-tracking"))
    # what would be right, for the pile named (the depot's refusal spoke of trading: a QA pass)
    assert pile in message and ("trading" in message if pile == "discard" else "the depot is the master's" in message)
    table.do(c.Search(stack=pile, take=("item-axe",), to="inventory:ana"))  # the master may
    assert table.zone("item-axe") == "inventory:ana"


def test_left_nothing_to_chance_a_hero_may_not_take_back_a_draw_that_refilled_the_deck(table):
    """The depot's cards are face-up, so a draw that refills the deck from them shows no
    one a hidden card; yet the refill's order is chance's, and the draw showed ana where
    chance put them: undone and drawn again, it would draw on chance again."""
    table.do(c.Draw(stack="deck:item", count=len(ITEMS), to="inventory:bo"))
    table.do(c.Send(cards=("item-sword", "item-bow", "item-rope", "item-shield"), to="depot"))
    drawn = table.do(c.Draw(actor="ana", stack="deck:item"))
    assert drawn.event.refills and not drawn.event.identified
    message = refused(table, c.Undo(actor="ana"))
    assert f"seq {drawn.seq}" in message and "master" in message
    table.do(c.Undo())  # the master may
    assert sorted(table.cards("depot")) == ["item-bow", "item-rope", "item-shield", "item-sword"]


def test_showed_nothing_hidden_a_hero_may_not_take_back_a_search_that_missed_a_card(table):
    """Attack (ruleset 10): search deck:item for a card it may not hold, read "not found",
    undo: the deck would come back in its order from before the search's reshuffle, so
    probing card by card would cost two history lines and leave the deck as it was. A
    search that missed a named card told her what the deck lacks; only the master may take
    it back (and redo keeps nothing she could replay)."""
    table.do(c.Draw(stack="deck:item", count=1, to="inventory:bo"))  # item-sword, hidden from ana
    table.add("skill-tracking", to="table:ana")
    order = table.cards("deck:item")
    searched = table.do(c.Search(actor="ana", stack="deck:item", take=("item-sword",), by="skill-tracking"))
    assert searched.event.missed == ("item-sword",) and not searched.event.identified
    assert table.cards("deck:item") != order  # reshuffled by the search
    before = table.app.stored_event_count()
    message = refused(table, c.Undo(actor="ana"))
    assert f"seq {searched.seq}" in message and "deck:item" in message and "master" in message
    assert "inventory:bo" not in message
    assert table.app.stored_event_count() == before
    table.do(c.Undo())  # the master may
    assert table.zone("item-sword") == "inventory:bo"


def test_showed_nothing_hidden_under_ruleset_9_a_heros_undo_of_a_missed_search_still_verifies(app, sample_catalog,
                                                                                               db_path):
    """Campaigns recorded under ruleset 9, where her undo of a missed search was taken,
    decide it again as it was decided."""
    from ledger.rulesets import decided_under

    with decided_under(9):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.add("item-sword", "item-bow", to="deck:item")
        game.add("skill-tracking", to="table:ana")
        searched = game.do(c.Search(actor="ana", stack="deck:item", take=("item-rope",), by="skill-tracking"))
        assert searched.event.missed == ("item-rope",)
        undone = game.do(c.Undo(actor="ana"))
    assert verify(game.app, game.cid).ok
    # explain gives the words in force then: today's ("none that ... missed a searched
    # card") would say the undo it explains was not allowed
    from projections.explain import explain

    told = explain(undone.event, game.app.campaign(game.cid, at=undone.seq - 1), undone.campaign, "ana")
    may = [check["detail"] for check in told["checks"] if check["rule"] == "§9 what a hero may do"]
    assert may == ["ana is a hero: a hero takes back only their own actions, and none that showed anyone a "
                   "hidden card, refilled a deck or shuffled one whose new order they could see"]
    done = run_ledger("--as", "ana", "explain", str(undone.seq), db=db_path)
    assert done.returncode == 0, done.stderr
    assert "decided under ruleset 9" in done.stdout and "missed a searched card" not in done.stdout


def test_showed_nothing_hidden_a_hero_may_still_take_back_a_search_that_named_nothing(table):
    """The rule is about what a search told her: one that named no card (an effect that
    lets her search, used without taking anything) missed nothing and showed nothing, so
    she may take it back, and the deck is as it was."""
    table.add("skill-tracking", to="table:ana")
    order = table.cards("deck:item")
    searched = table.do(c.Search(actor="ana", stack="deck:item", take=(), by="skill-tracking"))
    assert searched.event.missed == () and not searched.event.identified
    table.do(c.Undo(actor="ana"))
    assert table.cards("deck:item") == order


def test_a_campaign_recorded_under_ruleset_6_keeps_its_searches_of_the_discard_pile_and_undone_refills(app,
                                                                                                     sample_catalog):
    """Decided again under the rules they were recorded under, they still verify."""
    from ledger.rulesets import decided_under

    with decided_under(6):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.add("skill-tracking", to="table:ana")
        game.add("item-axe", to="discard")
        game.do(c.Search(actor="ana", stack="discard", take=("item-axe",), by="skill-tracking"))
        game.add("item-sword", "item-bow", to="depot")
        game.do(c.Draw(actor="ana", stack="deck:item"))
        game.do(c.Undo(actor="ana"))
    assert verify(game.app, game.cid).ok


# -- the attach oracle, and one wording for hidden and missing cards ----------------------------------
def test_attach_says_the_same_whether_the_host_is_in_a_hand_in_a_deck_or_nowhere(table):
    """Attack: attach to CARD, and read from the error where CARD is."""
    table.do(c.Draw(actor="ana", stack="deck:item"))  # sword: hidden in ana's hand
    table.do(c.Draw(actor="bo", stack="deck:item"))  # bow -> bo's hand
    in_hand = refused(table, c.Attach(actor="bo", card="item-bow", host="item-sword"))
    in_deck = refused(table, c.Attach(actor="bo", card="item-bow", host="item-rope"))
    nowhere = refused(table, c.Attach(actor="bo", card="item-bow", host="item-nothing"))
    assert in_hand.replace("item-sword", "X") == in_deck.replace("item-rope", "X") \
        == nowhere.replace("item-nothing", "X")
    assert table.zone("item-bow") == "inventory:bo"


@pytest.mark.parametrize("make", [
    lambda card: c.Send(actor="bo", cards=(card,), to="table:bo"),
    lambda card: c.Discard(actor="bo", cards=(card,)),
    lambda card: c.Reveal(actor="bo", cards=(card,)),
    lambda card: c.Activate(actor="bo", card=card),
    lambda card: c.Attach(actor="bo", card=card, host="companion-wolf"),
])
def test_every_refusal_reads_the_same_for_a_hidden_card_and_a_missing_one(table, make):
    table.do(c.Draw(actor="ana", stack="deck:item"))  # sword: hidden in ana's hand
    table.add("companion-wolf", to="table:bo")
    hidden = table.refuse(make("item-sword"))
    missing = table.refuse(make("item-nothing"))
    assert str(hidden).replace("item-sword", "X") == str(missing).replace("item-nothing", "X")
    assert hidden.code == missing.code


# -- explain lists what a hero may do ---------------------------------------------------------------
def test_explain_lists_the_hero_rule_an_action_was_allowed_under(table, db_path):
    table.do(c.Draw(actor="ana", stack="deck:item"))
    seq = table.campaign.seq
    done = run_ledger("--as", "ana", "--json", "explain", str(seq), db=db_path)
    assert done.returncode == 0, done.stderr
    assert "what a hero may do" in done.stdout


def test_the_cli_refuses_a_heros_seed_with_one_error_line(table, db_path):
    before = table.app.stored_event_count()
    done = run_ledger("--actor", "ana", "shuffle", "deck:item", "--seed", "3", db=db_path)
    assert done.returncode == 1 and done.stderr.startswith("error: ") and len(done.stderr.splitlines()) == 1
    assert table.app.stored_event_count() == before


def test_the_master_may_still_do_anything(table):
    table.do(c.Shuffle(stack="deck:item", seed=1))
    table.do(c.Draw(stack="deck:item", to="inventory:bo"))
    table.do(c.Discard(stack="deck:item"))
    table.do(c.Send(cards=("item-bow",), to="inventory:ana"))
    table.do(c.SetKnowledge(hero="ana", knowledge=3))
    table.do(c.Undo())
    assert verify(table.app, table.cid).ok
    with pytest.raises(NotAllowed):
        table.do(c.SetKnowledge(actor="bo", hero="bo", knowledge=3))


# -- committed shuffles ----------------------------------------------------------------------------
def test_a_shuffle_commits_to_its_order_and_every_viewer_sees_the_digest_but_not_the_salt(table):
    from ledger.commitments import digest_of
    from projections.views import action_view

    done = table.shuffle_as("ana", "deck:item")
    (commitment,) = done.event.commitments
    order = table.cards("deck:item")
    assert commitment.stack == "deck:item" and commitment.size == len(order)
    assert digest_of(commitment.salt, order) == commitment.digest
    for viewer in ("public", "bo", "ana"):
        seen = action_view(done.event, done.campaign, viewer)["commitments"]
        assert seen == [{"stack": "deck:item", "size": len(order), "digest": commitment.digest}]
        assert commitment.salt not in str(action_view(done.event, done.campaign, viewer))
    assert action_view(done.event, done.campaign, "referee")["commitments"][0]["salt"] == commitment.salt


def test_a_refill_and_the_reshuffle_after_a_search_are_committed_too(table):
    table.do(c.Send(cards=ITEMS[:3], to="depot"))
    table.do(c.Draw(stack="deck:item", count=7, to="inventory:bo"))
    refill = table.do(c.Draw(actor="ana", stack="deck:item"))  # the deck is empty: refilled from the depot
    assert [x.stack for x in refill.event.commitments] == ["deck:item"]
    table.add("skill-tracking", to="table:ana")
    search = table.do(c.Search(actor="ana", stack="deck:item", take=(table.cards("deck:item")[0],),
                               by="skill-tracking"))
    assert [x.stack for x in search.event.commitments] == ["deck:item"]


def test_the_master_undo_reshuffle_is_committed(table):
    table.do(c.Draw(actor="ana", stack="deck:item", count=2))
    undo = table.do(c.Undo())
    assert [x.stack for x in undo.event.commitments] == ["deck:item"]


def test_verify_names_a_commitment_that_no_longer_matches_even_after_a_forger_reseals_the_chain(table, db_path):
    """A forger changes the committed digest and recomputes every hash after it."""
    import json

    from .test_verify import read_state, reseal_from, write_state

    done = table.shuffle_as("ana", "deck:item")
    table.do(c.Draw(actor="ana", stack="deck:item"))
    table.app.close()
    state = json.loads(read_state(db_path, table.cid, done.seq))
    state["commitments"][0]["digest"] = "0" * 64
    write_state(db_path, table.cid, done.seq, json.dumps(state, separators=(",", ":")).encode())
    reseal_from(db_path, table.cid, done.seq)
    from ledger.application import Ledger

    app = Ledger.open(db_path)
    try:
        report = verify(app, table.cid)
    finally:
        app.close()
    assert report.bad_seq == done.seq


def test_master_only_a_hero_adding_any_card_is_told_that_only_the_master_adds_cards_from_the_box(table):
    """Rule master-only (§1): the reason comes first, whatever the cards (a card on her own
    table she sees, one in the box, one that does not exist), so the words are the same."""
    texts = {str(table.refuse(c.Add(actor="ana", cards=(card,), to="table:ana"), NotAllowed))
             for card in ("item-sword", "house-north", "item-nothing")}
    assert len(texts) == 1 and "only the master" in texts.pop()


@pytest.mark.parametrize("text", ["\x1b[31mred", "two\nlines", "tab\there", "right\u202eto left", "bell\x07"],
                         ids=["escape", "line-break", "tab", "bidi-override", "bell"])
def test_printable_text_a_hero_records_no_terminal_escape_or_line_break_for_the_table_to_read(table, text):
    """Attack (ruleset 10): a target, a note or a kind of energy is shown in everyone's
    history and explain, in terminals too; an escape sequence there coloured or hid other
    lines, and a line break faked one ("§9 what a hero may do: …"). Refused in one line
    that quotes no such character; the master's hero names and costs likewise; printable
    text in any language is recorded as given."""
    table.add("companion-wolf", to="table:ana")
    before = table.app.stored_event_count()
    for command in (c.Activate(actor="ana", card="companion-wolf", target=text),
                    c.Activate(actor="ana", card="companion-wolf", note=text),
                    c.Activate(actor="ana", card="companion-wolf", energies={text: 1}),
                    c.AddHero(hero="cy", name=text)):
        message = refused(table, command)
        assert message.isprintable() and "U+" in message, message
    assert table.app.stored_event_count() == before
    done = table.do(c.Activate(actor="ana", card="companion-wolf", target="o goblin à frente", note="mordida — 2×",
                               energies={"fogo sagrado": 1}))
    assert (done.event.target, done.event.note, done.event.energies) == ("o goblin à frente", "mordida — 2×",
                                                                         {"fogo sagrado": 1})


def test_printable_text_an_older_actions_escape_is_shown_as_its_code_by_every_view_of_the_cli(app, sample_catalog):
    """Under ruleset 9 a hero's name, a target or a kind of energy could hold a terminal's
    escape or a line break; such an action still verifies, and the CLI's history, explain,
    zones and card write the character as its code rather than send it to a terminal (the
    record and its JSON keep the text as it was given)."""
    from ledger.rulesets import decided_under

    from .conftest import db_of

    with decided_under(9):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana\x1b[8m", knowledge=1))
        game.add("companion-wolf", to="table:ana")
        done = game.do(c.Activate(actor="ana", card="companion-wolf", target="x\x1b[31mred\n§9 fake",
                                  energies={"fire\x1b[0m": 1}))
    assert verify(game.app, game.cid).ok
    for args in (["explain", str(done.seq)], ["history"], ["zones"], ["card", "companion-wolf"],
                 ["--as", "public", "explain", str(done.seq)], ["--as", "public", "history"]):
        shown = run_ledger(*args, db=db_of(app))
        assert shown.returncode == 0 and "\x1b" not in shown.stdout and "\n§9 fake" not in shown.stdout, (args, shown)
    assert "\\x1b[31mred" in run_ledger("explain", str(done.seq), db=db_of(app)).stdout


def test_printable_text_the_cli_writes_an_older_records_escape_as_its_code_and_no_new_campaign_name_holds_one(
        app, sample_catalog, tmp_path):
    """What the CLI prints from the record (history) never drives the terminal: an older
    action's escape is written as its code; and a new campaign's name is printable, on one
    line."""
    from ledger.rulesets import decided_under

    from .conftest import db_of

    with decided_under(9):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.add("companion-wolf", to="table:ana")
        game.do(c.Activate(actor="ana", card="companion-wolf", target="x\x1b[31mred\n§9 fake"))
    shown = run_ledger("history", "--limit", "2", db=db_of(app))
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\\x1b[31mred" in shown.stdout.replace("\n", ""), shown.stdout
    refused = run_ledger("init", "--catalog", "ledger/data/sample_catalog.toml", "--name", "a\x1bb",
                         db=tmp_path / "new.db")
    assert refused.returncode == 1 and "--name" in refused.stderr and not (tmp_path / "new.db").exists()


def test_a_shuffle_records_the_new_order_even_when_it_is_the_old_one_so_no_one_learns_whether_it_moved(table):
    """Attack (ruleset 10): the order change of a shuffle was recorded only when the order
    moved, and everyone sees that a change is there (not its cards). Knowing a two-card
    deck's order (she buried one of them), a hero read from the record of a shuffle, a
    search's reshuffle or the master's "shuffled again" undo whether it still held. Now every
    shuffle of two cards or more records its order, and the views for the public and the
    heroes read alike whichever order came out."""
    import json

    from projections.views import recorded_view

    table.do(c.Draw(stack="deck:item", count=len(ITEMS) - 2, to="inventory:bo"))  # two left in deck:item
    looks = set()
    orders = set()
    for seed in range(12):
        before = tuple(table.cards("deck:item"))
        done = table.do(c.Shuffle(stack="deck:item", seed=seed))  # the master's seeds: both outcomes
        (change,) = [ch for ch in done.event.changes if isinstance(ch, StackReordered)]
        assert change.was == before and change.now == tuple(table.cards("deck:item"))
        orders.add(change.now == change.was)
        for viewer in ("public", "ana", "bo"):
            view = recorded_view(done.event, table.campaign, viewer, {})["events"][0]
            looks.add((viewer, json.dumps(view["changes"], sort_keys=True), len(view.get("cards", ()))))
    assert orders == {True, False}  # both outcomes came out
    assert len(looks) == 3, looks  # one look per viewer, whatever the outcome
    assert verify(table.app, table.cid).ok


def test_an_older_shuffle_that_left_the_order_as_it_was_reads_like_any_other(app, sample_catalog):
    """Under ruleset 9 a shuffle that left a deck's order as it was recorded no order
    change. Its commitment, which everyone sees, says the deck was shuffled: the views and
    explain give every viewer the order move and the deck's size from it, whichever order
    came out."""
    import json

    from ledger.rulesets import decided_under
    from projections.explain import explain
    from projections.views import recorded_view

    with decided_under(9):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.add("item-sword", "item-bow", to="deck:item")
        done = [game.do(c.Shuffle(stack="deck:item", seed=seed)) for seed in range(10)]
    kept = [rec for rec in done if not any(isinstance(ch, StackReordered) for ch in rec.event.changes)]
    moved = [rec for rec in done if rec not in kept]
    assert kept and moved  # both outcomes came out
    for viewer in ("public", "ana"):
        looks = {json.dumps(recorded_view(rec.event, game.app.campaign(game.cid, at=rec.seq), viewer, {})
                            ["events"][0]["changes"]) for rec in done}
        assert len(looks) == 1, (viewer, looks)
        for rec in (kept[0], moved[0]):
            told = explain(rec.event, game.app.campaign(game.cid, at=rec.seq - 1),
                           game.app.campaign(game.cid, at=rec.seq), viewer)
            assert "its 2 cards" in json.dumps(told), told
    assert verify(game.app, game.cid).ok


def test_what_a_hero_may_do_is_stated_in_the_words_of_the_actions_ruleset():
    """Each older wording of HERO_MAY covers the rulesets before the one that changed it;
    from fair play on every ruleset has words for every action, and before it none."""
    from ledger.rulebook import FAIR_PLAY_FROM, HERO_MAY, HERO_MAY_BEFORE, RULESET, hero_may

    assert hero_may("undo", 1) is None
    assert hero_may("undo", 6) != hero_may("undo", 7) != hero_may("undo", 9) != hero_may("undo", 10)
    assert hero_may("undo", RULESET) == HERO_MAY["undo"]
    assert hero_may("shuffle", 9) != HERO_MAY["shuffle"] and hero_may("search", 6) != HERO_MAY["search"]
    for action, older in HERO_MAY_BEFORE.items():
        assert action in HERO_MAY
        assert [until for until, _words in older] == sorted({until for until, _words in older})
        assert all(FAIR_PLAY_FROM < until <= RULESET for until, _words in older)
    for ruleset in range(FAIR_PLAY_FROM, RULESET + 1):
        assert all(hero_may(action, ruleset) for action in HERO_MAY)


# -- a deck holding a face-up card (ruleset 11) -------------------------------------------
def test_shuffles_unseen_order_a_hero_does_not_shuffle_a_deck_holding_a_face_up_card(table):
    """Rule shuffles-unseen-order (§9; ruleset 11). Found by a QA pass: an effect turned
    item-torch face-up inside deck:item (the master's reveal); bo shuffled, looked where
    the torch went (it stays face-up), and shuffled again (or searched taking nothing, and
    took it back) until it lay on top, then drew it. Where a face-up card lands is a part
    of the order she sees: she neither shuffles such a deck nor searches it taking nothing,
    and the master does; once the card is hidden again she shuffles as before."""
    table.do(c.Draw(stack="deck:item", to="inventory:bo"))  # item-sword: not in the deck, hidden from ana
    table.do(c.Reveal(cards=("item-torch",)))  # face-up in the face-down deck
    table.add("skill-tracking", to="table:ana")
    table.add(Game.EFFECTS["ana"], to="table:ana")  # an effect allows her shuffle: the face-up card does not
    before = table.app.stored_event_count()
    message = refused(table, c.Shuffle(actor="ana", stack="deck:item", by=Game.EFFECTS["ana"]))
    assert "item-torch" in message and "deck:item" in message and "master" in message, message
    # every search reshuffles it before her eyes: refused whatever it names, in the same words
    # (found by a review: refusing only a search that found nothing told her, unrecorded, that
    # the deck lacks item-sword)
    for take in ((), ("item-bow",), ("item-sword",), ("item-torch",)):
        assert refused(table, c.Search(actor="ana", stack="deck:item", take=take, by="skill-tracking")) == message
    assert table.app.stored_event_count() == before
    table.do(c.Shuffle(stack="deck:item"))  # the master
    table.do(c.Hide(cards=("item-torch",)))
    table.shuffle_as("ana", "deck:item")


def test_shuffles_unseen_order_a_card_only_shown_to_a_hero_does_not_stop_her(table):
    """A card of the deck shown to bo alone (reveal --to bo) stays face-down: his shuffle
    makes its place secret again, so he follows it nowhere and may shuffle."""
    from ledger.visibility import can_identify

    table.do(c.Reveal(cards=("item-helm",), to=("bo",)))
    table.shuffle_as("bo", "deck:item")
    assert not can_identify(table.campaign, "bo", "item-helm")


def test_left_nothing_to_chance_a_hero_takes_back_no_shuffle_of_a_deck_holding_a_face_up_card(table):
    """Rule left-nothing-to-chance (§9; ruleset 11): a shuffle after which a face-up card
    lay somewhere in the deck showed her where it went; taking it back and shuffling again
    would try again. (Her own such shuffles and searches are refused from the start, so
    the rule is checked here on a shuffle recorded before the card was turned face-up.)"""
    from ledger.rules.fair_play import left_nothing_to_chance

    shuffled = table.shuffle_as("ana", "deck:item")
    table.do(c.Reveal(cards=("item-torch",)))
    with pytest.raises(NotAllowed) as refusal:
        left_nothing_to_chance(table.campaign, "ana", [shuffled.event])
    assert f"seq {shuffled.seq} shuffled deck:item" in str(refusal.value)
    left_nothing_to_chance(table.campaign, "master", [shuffled.event])
    table.do(c.Hide(cards=("item-torch",)))
    left_nothing_to_chance(table.campaign, "ana", [shuffled.event])


def test_shuffles_unseen_order_under_ruleset_10_a_deck_holding_a_face_up_card_was_shuffled_and_still_verifies(
        app, sample_catalog):
    """Campaigns recorded under ruleset 10, where such a shuffle was taken, decide it again
    as it was decided."""
    from ledger.rulesets import decided_under

    with decided_under(10):
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.add("item-sword", "item-bow", "item-torch", to="deck:item")
        game.do(c.Reveal(cards=("item-torch",)))
        game.shuffle_as("ana", "deck:item")
        game.do(c.Undo(actor="ana"))
    assert verify(game.app, game.cid).ok


def test_undo_from_the_table_as_it_stands_a_hero_gets_no_old_order_back_by_undoing_and_redoing_her_shuffle(table):
    """Fair play (§9; ruleset 12; no rulebook rule):
    undo and redo work from the table as it stands (``Play.apply_again``). Found by a QA pass: ana
    shuffles the item deck and draws its top card; the master takes the draw back, which
    shuffles the deck again (she saw the card); ana then undoes her own shuffle (it showed
    no one anything) and redoes it: the redo put back the order she had drawn from, so she
    knew her next draw. A deck an undo shuffled again since keeps its new order, whatever
    is undone before it, and the redo is refused (rule decks-not-shuffled-since)."""
    table.shuffle_as("ana", "deck:item")
    drawn_from = table.cards("deck:item")
    table.do(c.Draw(actor="ana", stack="deck:item"))
    assert table.do(c.Undo()).event.reshuffled_stacks == ("deck:item",)
    reshuffled = table.cards("deck:item")
    undo = table.do(c.Undo(actor="ana"))
    assert table.cards("deck:item") == reshuffled != drawn_from
    # the order is recorded all the same: the record does not tell it was kept
    assert [change.stack for change in undo.event.changes if isinstance(change, StackReordered)] == ["deck:item"]
    assert "shuffled deck:item again" in refused(table, c.Redo(actor="ana"))
    assert "shuffled deck:item again" in refused(table, c.Redo())  # the master neither
    assert table.cards("deck:item") == reshuffled
    assert verify(table.app, table.cid).bad_seq is None


@pytest.mark.parametrize("case", ["refill", "bury", "add"])
def test_decks_not_shuffled_since_no_redo_rebuilds_an_order_an_undo_shuffled_away(table, case):
    """Rule decks-not-shuffled-since (§9; ruleset 12). Found by a QA pass: a redo applies
    again card moves at their recorded places; over a deck an undo had shuffled again since,
    that rebuilt an order a hero had seen: the refill she drew from (she knew the next card),
    the bottom she had buried a card at, the order cards were added in (known to all). Such
    a redo is refused, by hero and master alike, and nothing is appended."""
    if case == "refill":  # the item deck empty, six items in the depot
        table.do(c.Send(cards=ITEMS[:6], to="depot"))
        table.do(c.Exile(cards=ITEMS[6:]))
        first = table.do(c.Draw(actor="ana", stack="deck:item"))  # refilled from the depot
        assert first.event.refills
        table.do(c.Draw(actor="ana", stack="deck:item"))  # she learns the next card of the refill
        table.do(c.Undo())  # shuffled again: she saw that card
        table.do(c.Undo())  # the refill goes back to the depot (showed nobody anything new)
    elif case == "bury":
        table.add(table.EFFECTS["ana"], to="table:ana")  # the effect that allows her shuffle below
        mark = table.do(c.Draw(actor="ana", stack="deck:item", count=2))
        table.do(c.Bury(actor="ana", cards=(mark.event.cards[0],)))
        table.shuffle_as("ana", "deck:item")
        table.do(c.Draw(actor="ana", stack="deck:item"))
        table.do(c.Undo())  # shuffled again
        table.do(c.Undo(actor="ana", to=mark.seq))  # her shuffle and her bury
    else:
        skills = ("skill-dodge", "skill-stealth", "skill-tracking", "skill-fireball", "skill-first-aid")
        added = table.do(c.Add(cards=skills, to="deck:skill"))
        table.do(c.Shuffle(stack="deck:skill"))
        table.do(c.Draw(actor="ana", stack="deck:skill"))
        table.do(c.Undo())  # shuffled again
        table.do(c.Undo(to=added.seq - 1))  # the shuffle and the add
    before = table.campaign.table.to_dict()
    message = refused(table, c.Redo())
    assert "again after seq" in message and "record the actions again" in message, message
    assert table.campaign.table.to_dict() == before
    assert verify(table.app, table.cid).bad_seq is None


def test_undo_from_the_table_as_it_stands_the_masters_undo_of_a_shuffle_keeps_a_newer_order(table):
    """The master shows ana the bow, shuffles, ana draws and the master takes the draw back
    (the deck is shuffled again); the master's undo of his shuffle no longer puts back the
    order ana was shown the bow in: the deck keeps the order the undo gave it."""
    table.do(c.Reveal(cards=("item-bow",), to=("ana",)))
    shown_in = table.cards("deck:item")
    table.do(c.Shuffle(stack="deck:item"))
    table.do(c.Draw(actor="ana", stack="deck:item"))
    table.do(c.Undo())
    reshuffled = table.cards("deck:item")
    table.do(c.Undo())
    assert table.cards("deck:item") == reshuffled and (reshuffled != shown_in or len(reshuffled) < 2)
    assert table.campaign.table.shown == {}
    assert verify(table.app, table.cid).bad_seq is None


def test_decks_not_shuffled_since_a_reshuffle_before_the_only_action_on_that_deck_does_not_refuse(table):
    """Found by a QA pass: the rule measured "since" from the oldest action redone, so an
    ``undo --to`` over an action touching no deck and an add to deck:item recorded after an
    undo had shuffled it again was refused, naming the wrong action. Each action is measured
    from its own seq: the add was recorded over the new order, and is redone."""
    a1 = table.do(c.AddLocation(location="city", access={"item": 3}))
    table.do(c.Draw(actor="ana", stack="deck:item"))
    assert table.do(c.Undo()).event.reshuffled_stacks == ("deck:item",)
    table.do(c.Add(cards=("item-spear",), to="deck:item"))  # recorded over the new order
    after = table.cards("deck:item")
    assert table.do(c.Undo(to=a1.seq - 1)).event.reshuffled_stacks == ()
    table.do(c.Redo())
    assert table.cards("deck:item") == after
    assert verify(table.app, table.cid).bad_seq is None


def test_decks_not_shuffled_since_simulate_offers_no_redo_the_rules_refuse(table):
    """Found by a QA pass: ``simulate`` looked only at the undos on the redo stack; an undo
    that shuffled the deck again before another action emptied that stack escaped it."""
    import random

    from ledger.interface import simulate

    table.shuffle_as("ana", "deck:item")
    table.do(c.Draw(actor="ana", stack="deck:item"))
    table.do(c.Undo())  # shuffles deck:item again
    table.do(c.AddLocation(location="city", access={"item": 3}))  # empties the redo stack
    table.do(c.Undo())
    table.do(c.Undo())  # ana's shuffle
    turn = simulate._Turn(table.campaign, random.Random(0), "ana", lambda seq: table.app.event(table.cid, seq),
                          lambda gt, lte: table.app.reshuffles_between(table.cid, gt, lte))
    assert simulate._redo(turn) is None
    refused(table, c.Redo())  # as the rules say
    table.do(c.Undo(keep_order=True))  # bo's travel (no deck): the latest undo, its redo allowed
    assert simulate._redo(turn := simulate._Turn(table.campaign, random.Random(0), "ana",
                                                 turn.lookup, turn.scan)) == c.Redo(actor="master")
    table.do(c.Redo())
