"""Undo and redo (CLI.md "History, replay, undo"; README "Undo, and a record you can trust").

- an undo is an action: it has its own seq, stays in the history, and the action it took
  back is marked ``undone_by`` that seq (read model ``history`` and ``ledger --json history``);
- undo restores exactly the table before the undone action, for every kind of action
  (a scripted session touching each kind, and random sessions with hypothesis); redo
  restores exactly the table after it;
- shuffles, refills, trades and attachments come back card by card;
- undos walk back one action at a time; ``Undo(to=SEQ)`` takes back everything after SEQ
  in one action; redo is refused when there is nothing to redo;
- a hero may take back only their own actions, and none that showed anyone a hidden card
  (fair play); the master anything;
- the master's undo of an action that showed someone hidden cards shuffles again every
  face-down deck those cards return to (a committed order, ``reshuffled_stacks``), unless
  the master keeps the order (``Undo(keep_order=True)``): the exactness checks below undo
  with ``keep_order`` and the reshuffle is checked beside them (same cards, new order);
- an undo reads a bounded number of stored events, whatever the log's length;
- nothing stored is ever edited or deleted.

Each test runs on an SQLite file and on a PostgreSQL schema (``both_stores``), but for the
random sessions (hypothesis), which stay on SQLite files: the same undo code on the rows the
scripted tests already read back from PostgreSQL, for ~15 s more.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import commands as c
from ledger import events as ev
from ledger.application import Ledger
from ledger.audit import verify
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.changes import StackReordered
from ledger.commitments import digest_of
from ledger.errors import BadInput, LedgerError, NotAllowed, RuleBroken
from ledger.events import ActionRedone, ActionUndone
from ledger.rulesets import decided_under
from ledger.visibility import can_identify
from projections.readmodel import ReadModel

from .conftest import Game, db_of, run_ledger, stored_rows
from .test_properties import CATALOG_IDS, HEROES, assert_every_card_in_one_place, draw_command

pytestmark = pytest.mark.both_stores

SAMPLE = str(sample_catalog_path())


# -- helpers ------------------------------------------------------------------------
def table_of(game: Game) -> dict[str, Any]:
    return game.campaign.table.to_dict()


def fresh_table(game: Game) -> dict[str, Any]:
    """The table as a new process would load it from the database."""
    fresh = Ledger.open(db_of(game.app))
    try:
        return fresh.campaign(game.cid).table.to_dict()
    finally:
        fresh.close()


def undone_by(app: Ledger, path: Path | str, slug: str) -> dict[int, int | None]:
    model = ReadModel(app, path)
    try:
        model.catch_up()
        return dict(model.read("SELECT seq, undone_by FROM history WHERE campaign = ? ORDER BY seq", [slug]))
    finally:
        model.close()


def seen_decks(campaign, before: dict[str, Any], events) -> tuple[str, ...]:
    """The face-down ordered stacks that, in the table ``before``, hold a card one of
    ``events`` showed someone (and more than one card): the decks a master's undo of
    them must shuffle again, unless it keeps the order."""
    specs = campaign.zones()
    where = {card: stack for stack, cards in before["stacks"].items() for card in cards}
    seen = {card for event in events for cards in event.identified.values() for card in cards}
    decks = {stack for stack, spec in specs.items() if spec.ordered and spec.visibility != "face-up"}
    return tuple(sorted({
        where[card] for card in seen if where[card] in decks and len(before["stacks"][where[card]]) > 1
    }))


def check_reshuffled(undo, before: dict[str, Any], now: dict[str, Any], decks: tuple[str, ...]) -> None:
    """An undo without ``keep_order``: the table is exactly ``before``, except that each of
    ``decks`` holds the same cards in a new order, recorded in the undo (its last
    ``StackReordered``; none when the shuffle happened to leave the order as it was) and
    committed (a digest of the salt and the new order)."""
    assert not undo.event.keep_order
    assert undo.event.reshuffled_stacks == decks
    for deck in decks:
        reorders = [ch for ch in undo.event.changes if isinstance(ch, StackReordered) and ch.stack == deck]
        assert (reorders and reorders[-1].now == tuple(now["stacks"][deck])) \
            or now["stacks"][deck] == before["stacks"][deck], f"the new order of {deck} is not recorded"
    assert [x.stack for x in undo.event.commitments] == list(decks)
    for commitment in undo.event.commitments:
        assert commitment.size == len(now["stacks"][commitment.stack])
        assert digest_of(commitment.salt, now["stacks"][commitment.stack]) == commitment.digest
    assert set(now["stacks"]) == set(before["stacks"])
    for stack, cards in before["stacks"].items():
        if stack in decks:
            assert sorted(now["stacks"][stack]) == sorted(cards), f"{stack} does not hold the same cards"
        else:
            assert now["stacks"][stack] == cards, f"{stack} is not as before the undone action"
    assert {k: v for k, v in now.items() if k != "stacks"} == {k: v for k, v in before.items() if k != "stacks"}


def check_undo_then_redo(game: Game, rec, before: dict[str, Any]) -> None:
    """Undoes the action just recorded (table == before), then redoes it (table == after).
    The master keeps the order of the decks a seen card returns to, so that the table
    comes back exactly (the reshuffle is checked in its own tests)."""
    after = table_of(game)
    undo = game.do(c.Undo(keep_order=True))
    assert isinstance(undo.event, ActionUndone)
    assert undo.seq == rec.seq + 1
    assert undo.event.targets == (rec.seq,)
    assert undo.event.reshuffled_stacks == ()
    assert table_of(game) == before, f"undoing seq {rec.seq} ({rec.action}) does not give back the table before it"
    redo = game.do(c.Redo())
    assert isinstance(redo.event, ActionRedone)
    assert redo.seq == rec.seq + 2
    assert table_of(game) == after, f"redoing seq {rec.seq} ({rec.action}) does not give back the table after it"


UNDOABLE_ACTIONS = {
    cls.action for cls in vars(ev).values()
    if isinstance(cls, type) and issubclass(cls, ev.ActionRecorded) and cls is not ev.ActionRecorded and cls.undoable
}


# -- an undo is an action ---------------------------------------------------------------
def test_undo_is_an_action_with_its_own_seq_and_the_undone_action_stays_in_the_history(game, db_path):
    game.add("item-sword", "item-bow", to="deck:item")
    drawn = game.do(c.Draw(actor="ana", stack="deck:item"))
    count = game.app.stored_event_count()
    undo = game.do(c.Undo())
    assert undo.seq == drawn.seq + 1 == game.app.last_seq(game.cid)
    assert undo.action == "undo"
    assert game.app.stored_event_count() == count + 1, "an undo appends exactly one event"
    seqs = [(e.seq, e.action) for e in game.app.actions(game.cid)]
    assert (drawn.seq, "draw") in seqs and (undo.seq, "undo") in seqs
    history = undone_by(game.app, db_path, game.campaign.slug)
    assert history[drawn.seq] == undo.seq
    assert history[undo.seq] is None
    assert all(history[seq] is None for seq in history if seq != drawn.seq)


def test_history_json_marks_the_undone_action_with_the_undos_seq_and_redo_clears_it(db_path):
    db = db_path
    for args in (
        ["init", "--catalog", SAMPLE, "--name", "Undo"],
        ["hero", "add", "ana"],
        ["add", "item-sword", "item-bow", "--to", "deck:item"],
        ["--actor", "ana", "draw", "deck:item"],
        ["undo", "--keep-order"],  # the master's decision, so that it may be redone
    ):
        result = run_ledger(*args, db=db)
        assert result.returncode == 0, (args, result.stderr)
    rows = {row["seq"]: row for row in json.loads(run_ledger("--json", "history", db=db).stdout)}
    assert [rows[s]["action"] for s in sorted(rows)] == ["init", "hero add", "add", "draw", "undo"]
    assert rows[4]["undone_by"] == 5
    assert all(rows[s]["undone_by"] is None for s in (1, 2, 3, 5))
    assert run_ledger("redo", db=db).returncode == 0
    rows = {row["seq"]: row for row in json.loads(run_ledger("--json", "history", db=db).stdout)}
    assert [rows[s]["action"] for s in sorted(rows)] == ["init", "hero add", "add", "draw", "undo", "redo"]
    assert rows[4]["undone_by"] is None, "a redone action is in force again"


# -- undo restores exactly, for every kind of action ----------------------------------------
def every_kind_script() -> list[c.Command]:
    """One session that records every kind of undoable action (ana knowledge 1, bo 0)."""
    return [
        c.AddHero(hero="cy", name="Cy", knowledge=2),
        c.SetKnowledge(hero="ana", knowledge=2),
        c.Add(cards=("item-sword", "item-rope", "item-axe", "item-torch", "companion-falcon"), to="inventory:ana"),
        c.Add(cards=("companion-wolf",), to="table:ana"),
        c.Add(cards=("item-bow", "item-shield", "skill-dodge", "companion-horse"), to="discard"),
        c.Add(cards=("item-dagger", "item-helm", "item-spear", "skill-riposte"), to="depot"),
        c.Add(cards=("skill-meditation", "skill-tracking", "skill-first-aid", "skill-persuade",
                     "skill-stealth"), to="deck:skill", position="bottom"),
        c.Add(cards=("event-festival",), to="scenario"),
        c.Shuffle(stack="deck:skill", seed=11),
        c.Shuffle(stack="deck:skill"),  # no seed: the order drawn is recorded
        c.Draw(stack="deck:item", count=2, to="inventory:ana", seed=5),  # empty deck: refilled from the depot
        c.Search(stack="deck:skill", take=("skill-tracking",), to="inventory:ana", seed=3),
        c.Send(actor="ana", cards=("item-axe",), to="table:ana"),
        c.Reveal(actor="ana", cards=("item-sword",)),
        c.Hide(actor="ana", cards=("item-sword",)),
        c.Exhaust(actor="ana", cards=("companion-wolf",)),
        c.Restore(actor="ana", cards=("companion-wolf",)),
        c.Attach(actor="ana", card="item-torch", host="item-sword"),
        c.Attach(actor="ana", card="item-sword", host="companion-wolf"),  # the torch is discarded
        c.Attach(card="item-torch", host="item-sword"),  # the master takes it back from the discard pile
        c.Detach(actor="ana", card="item-sword", to="inventory:ana"),  # the torch is discarded again
        c.Attach(actor="ana", card="companion-falcon", host="item-axe"),
        c.Discard(stack="deck:skill", count=1, seed=2),
        c.Discard(actor="ana", cards=("skill-tracking",)),
        c.Bury(cards=("skill-dodge",)),
        c.Exile(cards=("companion-horse",)),
        c.AddLocation(location="village", access={"item": 1, "skill": 1}),
        c.SetLocation(location="village", access={"item": 2}),  # a correction
        c.Travel(actor="ana", hero="ana", location="village"),
        # the axe leaves with the falcon attached (discarded); the bow rides the wolf
        c.Trade(actor="ana", hero="ana", take=("item-bow",), give=("item-axe", "item-rope"),
                attach={"item-bow": "companion-wolf"}),
        c.StartBattle(),
        c.SetAccess(location="village", suit="item", level=1, by="event-festival"),
        c.SetAccess(location="village", suit="item", clear=True),
        c.EndBattle(),
        c.AddLocation(location="keep", access={"class": 1}),
        c.Travel(hero="ana", location="keep"),
        c.Obtain(hero="ana", card="class-warrior", by="progression", cost="1 XP"),  # from the box
        c.Activate(actor="ana", card="item-sword"),
    ]


def test_every_kind_of_action_is_undone_to_the_table_before_it_and_redone_to_the_table_after_it(game):
    recorded = set()
    for command in every_kind_script():
        before = table_of(game)
        rec = game.do(command)
        unseeded_shuffle = isinstance(command, c.Shuffle) and command.seed is None  # may, rarely, keep the order
        assert rec.event.changes or unseeded_shuffle, f"{command!r} changed nothing; the script should change the table"
        recorded.add(rec.action)
        check_undo_then_redo(game, rec, before)
    assert recorded == UNDOABLE_ACTIONS, f"kinds never undone here: {UNDOABLE_ACTIONS - recorded}"
    live = table_of(game)
    assert fresh_table(game) == live
    assert verify(game.app, game.cid).ok


def test_without_keep_order_the_masters_undo_of_a_seen_search_gives_back_the_same_cards_in_a_new_order(game):
    """The every-kind session's search, undone by the master without ``keep_order``: the
    card ana saw goes back into deck:skill, which then holds the same cards as before the
    search in a new order, recorded and committed in the undo; all else is as before."""
    cards = ("skill-meditation", "skill-tracking", "skill-first-aid", "skill-persuade", "skill-stealth")
    game.add(*cards, to="deck:skill", position="bottom")
    game.do(c.Shuffle(stack="deck:skill", seed=11))
    before = table_of(game)
    rec = game.do(c.Search(stack="deck:skill", take=("skill-tracking",), to="inventory:ana", seed=3))
    assert "skill-tracking" in rec.event.identified["ana"]
    assert seen_decks(game.campaign, before, [rec.event]) == ("deck:skill",)
    undo = game.do(c.Undo(seed=4))
    assert undo.event.targets == (rec.seq,)
    check_reshuffled(undo, before, table_of(game), ("deck:skill",))
    assert game.cards("deck:skill") != before["stacks"]["deck:skill"], "seed 4 gives the deck another order"
    assert fresh_table(game) == table_of(game)
    assert verify(game.app, game.cid).ok


def test_a_masters_undo_with_seed_0_is_recorded_and_verified(game):
    """Seed 0 is a seed like any other: the undo's command keeps it, and verify decides
    the undo (and its reshuffle of deck:item) again to the same event."""
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Draw(stack="deck:item", to="inventory:ana", seed=1))
    undo = game.do(c.Undo(seed=0))
    assert undo.event.reshuffled_stacks == ("deck:item",)
    assert game.app.event(game.cid, undo.seq).command.get("seed") == 0
    assert verify(game.app, game.cid).ok


# -- property: random sessions -------------------------------------------------------------
EXTRA = ("location", "travel", "battle", "access", "access", "trade", "trade", "trade", "trade", "activate",
         "activate")
ASSET_SUITS = ("item", "skill", "companion", "event")


def draw_any_command(data, campaign) -> c.Command:
    """Mostly the card actions of test_properties; sometimes locations, travel, battle,
    access effects, trades and activations, drawn from the current state."""
    if data.draw(st.integers(0, 9), label="extra?") >= 4:
        return draw_command(data, campaign)
    table = campaign.table
    specs = campaign.zones()
    kind = data.draw(st.sampled_from(EXTRA), label="extra kind")
    locations = sorted(table.locations)
    in_campaign = [card for card, at in table.where.items() if at != "box"]
    if kind == "location" or (kind in ("travel", "access") and not locations):
        name = data.draw(st.sampled_from(["village", "market", "forest"]))
        access = data.draw(st.dictionaries(st.sampled_from(ASSET_SUITS), st.integers(0, 3), max_size=4))
        return c.AddLocation(location=name, access=access)
    if kind == "travel":
        hero = data.draw(st.sampled_from(HEROES))
        return c.Travel(actor=data.draw(st.sampled_from(["master", hero])), hero=hero,
                        location=data.draw(st.sampled_from(locations)))
    if kind == "battle":
        return c.EndBattle() if table.battle else c.StartBattle()
    if kind == "access":
        scenario = list(table.cards_in("scenario")) or in_campaign or CATALOG_IDS
        level = None if data.draw(st.integers(0, 3)) == 0 else data.draw(st.integers(0, 3))
        return c.SetAccess(location=data.draw(st.sampled_from(locations)),
                           suit=data.draw(st.sampled_from(ASSET_SUITS)),
                           level=level, by=None if level is None else data.draw(st.sampled_from(scenario)),
                           clear=level is None)
    if kind == "trade":
        hero = data.draw(st.sampled_from(HEROES))
        discard = [x for x in table.cards_in("discard") if x.split("-")[0] in ASSET_SUITS] or CATALOG_IDS
        take = tuple(data.draw(st.lists(st.sampled_from(discard), min_size=1, max_size=2, unique=True)))
        suits = {x.split("-")[0] for x in take}
        own = [card for card in in_campaign
               if specs[table.zone_of(card)].owner == hero and card not in take and card.split("-")[0] in suits]
        give = tuple(data.draw(st.lists(st.sampled_from(own), max_size=4, unique=True))) if own else ()
        companions = [x for x in in_campaign if x.startswith("companion-") and specs[table.zone_of(x)].owner == hero]
        attach = {}
        if companions and data.draw(st.booleans()):
            attach = {take[0]: data.draw(st.sampled_from(companions))}
        return c.Trade(actor=data.draw(st.sampled_from(["master", hero])), hero=hero, take=take, give=give,
                       attach=attach)
    assert kind == "activate"
    usable = [card for card in in_campaign if specs[table.zone_of(card)].kind in ("hand", "area", "pile")]
    card = data.draw(st.sampled_from(usable or in_campaign or CATALOG_IDS))
    owner = specs[table.zone_of(card)].owner
    return c.Activate(actor=data.draw(st.sampled_from(["master", owner or "master"])), card=card,
                      effect=data.draw(st.none() | st.integers(1, 2)),
                      hero=None if data.draw(st.integers(0, 3)) else data.draw(st.sampled_from(HEROES)))


def stock(app: Ledger, cid, data) -> None:
    """Cards in every deck, the depot, the discard pile, the scenario and the heroes' zones."""
    ids = {suit: [i for i in CATALOG_IDS if i.startswith(suit + "-")] for suit in
           ("item", "skill", "companion", "event", "class")}
    n = {suit: data.draw(st.integers(0, 6), label=f"{suit} in deck") for suit in ids}
    placed = [
        (ids["item"][:n["item"]], "deck:item"), (ids["skill"][:n["skill"]], "deck:skill"),
        (ids["companion"][:n["companion"]], "deck:companion"), (ids["event"][:n["event"]], "deck:event"),
        (ids["class"][:n["class"]], "deck:class"),
        (ids["item"][6:9] + ids["skill"][6:8], "depot"), (ids["item"][9:12] + ids["skill"][8:10], "discard"),
        (ids["event"][6:8], "scenario"), (ids["companion"][6:8] + ids["item"][12:14], "inventory:ana"),
        (ids["companion"][8:9], "table:ana"), (ids["skill"][10:12], "inventory:bo"),
    ]
    for cards, to in placed:
        if cards:
            app.execute(cid, c.Add(cards=tuple(cards), to=to))
    app.execute(cid, c.AddLocation(location="bazaar", access=dict.fromkeys(ASSET_SUITS, 3)))
    for hero in HEROES:
        app.execute(cid, c.Travel(hero=hero, location="bazaar"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_in_random_sessions_undo_gives_back_the_table_before_each_action_and_redo_the_table_after(data):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "campaign.db"
        app = Ledger.open(path, create=True)
        try:
            cid = app.start(load_catalog(sample_catalog_path()), name="Undo").campaign.id
            app.execute(cid, c.AddHero(hero="ana", name="Ana", knowledge=2))
            app.execute(cid, c.AddHero(hero="bo", name="Bo", knowledge=0))
            stock(app, cid, data)
            expected_undone_by: dict[int, int | None] = {}
            for _ in range(data.draw(st.integers(5, 30), label="steps")):
                command = draw_any_command(data, app.campaign(cid))
                before = app.campaign(cid).table.to_dict()
                try:
                    rec = app.execute(cid, command)
                except LedgerError:
                    assert app.campaign(cid).table.to_dict() == before
                    continue
                after = app.campaign(cid).table.to_dict()
                shown = bool(rec.event.identified)
                if shown and command.actor != "master":
                    # fair play: not even their own action, once it showed someone a hidden card
                    count = app.stored_event_count()
                    with pytest.raises(NotAllowed, match="ask the master"):
                        app.execute(cid, c.Undo(actor=command.actor))
                    assert app.stored_event_count() == count, "a refused undo appended an event"
                    assert app.campaign(cid).table.to_dict() == after
                undoer = "master" if shown else command.actor
                if shown and data.draw(st.integers(0, 3), label="reshuffle seen decks?") == 0:
                    # the master's undo without keep_order: the same cards, the seen decks in a new order
                    decks = seen_decks(app.campaign(cid), before, [rec.event])
                    undo = app.execute(cid, c.Undo(seed=data.draw(st.integers(0, 2**32), label="undo seed")))
                    assert undo.event.targets == (rec.seq,)
                    check_reshuffled(undo, before, app.campaign(cid).table.to_dict(), decks)
                    assert_every_card_in_one_place(app.campaign(cid).table)
                    expected_undone_by[rec.seq] = undo.seq  # play on from there
                    continue
                # the master keeps the order of seen decks, so that the table comes back exactly
                undo = app.execute(cid, c.Undo(actor=undoer, keep_order=shown))
                assert undo.event.targets == (rec.seq,)
                assert undo.event.reshuffled_stacks == ()
                assert app.campaign(cid).table.to_dict() == before, (
                    f"undoing {command!r} (seq {rec.seq}) does not give back the table before it")
                assert_every_card_in_one_place(app.campaign(cid).table)
                if data.draw(st.integers(0, 3), label="leave undone?") == 0:
                    expected_undone_by[rec.seq] = undo.seq  # play on from the state before it
                    continue
                app.execute(cid, c.Redo(actor=undoer))
                assert app.campaign(cid).table.to_dict() == after, (
                    f"redoing {command!r} (seq {rec.seq}) does not give back the table after it")
                expected_undone_by[rec.seq] = None
            live = app.campaign(cid).table.to_dict()
            fresh = Ledger.open(path)
            try:
                assert fresh.campaign(cid).table.to_dict() == live, "a fresh load disagrees after undos and redos"
            finally:
                fresh.close()
            report = verify(app, cid)
            assert report.ok, report
            history = undone_by(app, path, app.campaign(cid).slug)
            for seq, by in expected_undone_by.items():
                assert history[seq] == by, f"history of seq {seq}: undone_by {history[seq]}, expected {by}"
        finally:
            app.close()


# -- specific cases --------------------------------------------------------------------------
def test_undoing_a_shuffle_brings_back_the_previous_order(game):
    cards = ("skill-dodge", "skill-stealth", "skill-tracking", "skill-meditation", "skill-riposte", "skill-persuade")
    game.add(*cards, to="deck:skill")
    order = game.cards("deck:skill")
    rec = game.do(c.Shuffle(stack="deck:skill", seed=1))
    assert game.cards("deck:skill") != order, "the seed should change the order"
    game.do(c.Undo())
    assert game.cards("deck:skill") == order
    assert fresh_table(game)["stacks"]["deck:skill"] == order
    # an unseeded shuffle too
    before = table_of(game)
    for _ in range(5):
        rec = game.do(c.Shuffle(stack="deck:skill"))
        if rec.event.changes:
            break
    game.do(c.Undo())
    assert table_of(game) == before


def test_undoing_a_draw_that_refilled_the_deck_restores_the_deck_and_the_depot(game):
    game.add("item-sword", to="deck:item")
    game.add("item-bow", "item-rope", "item-axe", "skill-dodge", "item-helm", to="depot")
    before = table_of(game)
    depot = game.cards("depot")
    rec = game.do(c.Draw(stack="deck:item", count=3, to="inventory:ana", seed=9))  # the master's seed
    assert rec.event.refills, "the deck ran out and was refilled from the depot"
    assert game.cards("depot") == ["skill-dodge"]
    undo = game.do(c.Undo())
    # the cards ana saw go back to the face-up depot, and the sword to a deck holding only
    # it: nothing to shuffle again, so even without keep_order the table comes back exactly
    assert undo.event.reshuffled_stacks == () and undo.event.commitments == ()
    assert game.cards("deck:item") == ["item-sword"]
    assert game.cards("depot") == depot
    assert game.cards("inventory:ana") == []
    assert all(game.table.face(card) == "up" for card in depot), "the depot lies face-up again"
    assert table_of(game) == before
    assert fresh_table(game) == before


def test_undoing_a_trade_restores_every_card_and_attachment(game):
    game.do(c.AddLocation(location="village", access={"item": 2, "skill": 1}))
    game.do(c.Travel(hero="ana", location="village"))
    game.add("item-bow", "skill-dodge", "item-shield", to="discard")
    game.add("item-sword", "item-rope", "item-axe", "skill-stealth", "skill-quick-strike", "companion-falcon",
             to="inventory:ana")
    game.add("companion-wolf", to="table:ana")
    game.do(c.Send(cards=("item-axe",), to="table:ana"))
    game.do(c.Attach(card="companion-falcon", host="item-axe"))  # leaves with the axe
    game.do(c.Attach(card="item-rope", host="companion-wolf"))  # given while attached
    game.do(c.Exhaust(cards=("companion-wolf",)))
    before = table_of(game)
    rec = game.do(c.Trade(hero="ana", take=("item-bow", "skill-dodge"),
                          give=("item-axe", "item-rope", "skill-stealth", "skill-quick-strike"),
                          attach={"item-bow": "companion-wolf"}))
    assert game.zone("companion-falcon") == "discard" and game.table.host("item-bow") == "companion-wolf"
    game.do(c.Undo())
    assert table_of(game) == before
    assert game.table.host("companion-falcon") == "item-axe"
    assert game.table.host("item-rope") == "companion-wolf"
    assert game.table.host("item-bow") is None and game.zone("item-bow") == "discard"
    assert game.zone("skill-dodge") == "discard"
    assert game.zone("skill-stealth") == game.zone("skill-quick-strike") == "inventory:ana"
    assert "companion-wolf" in game.table.exhausted
    assert fresh_table(game) == before
    game.do(c.Redo())
    assert game.table.host("item-bow") == "companion-wolf" and game.zone("companion-falcon") == "discard"
    assert rec.seq in live_seqs(game)


def live_seqs(game: Game) -> set[int]:
    """Seqs of the live chain (actions in force), following prev_live from the head."""
    seq, live = game.campaign.live_head, set()
    while seq is not None:
        live.add(seq)
        seq = game.app.event(game.cid, seq).prev_live
    return live


def test_undoing_an_attach_brings_back_the_attachments_it_discarded(game):
    game.add("item-sword", "item-torch", "item-rope", to="inventory:ana")
    game.add("companion-wolf", to="table:ana")
    game.do(c.Attach(actor="ana", card="item-torch", host="item-sword"))
    game.do(c.Attach(actor="ana", card="item-rope", host="item-torch"))  # a chain: rope on torch on sword
    before = table_of(game)
    game.do(c.Attach(actor="ana", card="item-sword", host="companion-wolf"))
    assert game.zone("item-torch") == "discard" and game.table.host("item-torch") is None
    game.do(c.Undo())
    assert table_of(game) == before
    assert game.table.host("item-torch") == "item-sword" and game.table.host("item-rope") == "item-torch"


def test_undoing_a_detach_brings_back_the_card_and_the_attachments_it_discarded(game):
    game.add("item-sword", "item-torch", to="inventory:ana")
    game.add("companion-wolf", to="table:ana")
    game.do(c.Attach(actor="ana", card="item-sword", host="companion-wolf"))
    game.do(c.Attach(actor="ana", card="item-torch", host="item-sword"))
    before = table_of(game)
    game.do(c.Detach(actor="ana", card="item-sword", to="inventory:ana"))
    assert game.zone("item-torch") == "discard"
    game.do(c.Undo())
    assert table_of(game) == before
    assert game.table.host("item-sword") == "companion-wolf" and game.table.host("item-torch") == "item-sword"


def test_repeated_undos_walk_back_one_action_at_a_time_skipping_what_is_undone(game):
    game.add("item-sword", "item-bow", "item-rope", "item-axe", to="deck:item")
    states = [table_of(game)]
    seqs = []
    for command in (
        c.Shuffle(stack="deck:item", seed=4),
        c.Draw(actor="ana", stack="deck:item"),
        c.Draw(actor="bo", stack="deck:item"),
        c.Discard(cards=("item-sword", "item-bow")),
    ):
        seqs.append(game.do(command).seq)
        states.append(table_of(game))
    for i in range(len(seqs) - 1, -1, -1):
        rec = game.do(c.Undo(keep_order=True))  # the master keeps the order of the deck the drawn cards return to
        assert rec.event.targets == (seqs[i],), "each undo takes back the latest action still in force"
        assert rec.event.reshuffled_stacks == ()
        assert table_of(game) == states[i]
    # an undone action is never undone twice: the next undo takes back the add before them
    add_seq = seqs[0] - 1
    rec = game.do(c.Undo())
    assert rec.event.targets == (add_seq,)
    assert game.cards("deck:item") == []


def test_without_keep_order_undos_walk_back_to_the_same_cards_with_each_seen_deck_reshuffled(game):
    """The walk back above, by the master without keep_order: each undo gives back the
    table before its action, except that a deck a seen card returns to is shuffled again,
    and keeps that new order when the shuffle before is taken back too (ruleset 12: the
    order from before the shuffle, the one the cards were added in, is known to all)."""
    game.add("item-sword", "item-bow", "item-rope", "item-axe", to="deck:item")
    states = [table_of(game)]
    recs = []
    for command in (
        c.Shuffle(stack="deck:item", seed=4),
        c.Draw(actor="ana", stack="deck:item"),
        c.Draw(actor="bo", stack="deck:item"),
        c.Discard(cards=("item-sword", "item-bow")),
    ):
        recs.append(game.do(command))
        states.append(table_of(game))
    reshuffled = []
    for i in range(len(recs) - 1, -1, -1):
        decks = seen_decks(game.campaign, states[i], [recs[i].event])
        undo = game.do(c.Undo(seed=i))
        assert undo.event.targets == (recs[i].seq,)
        if i:  # (the shuffle's undo: below)
            check_reshuffled(undo, states[i], table_of(game), decks)
        reshuffled += undo.event.reshuffled_stacks
    # seed 4 leaves the bow in the deck: the master's discard shows it to everyone from deck:item
    assert reshuffled == ["deck:item"] * 3, "the discard and the two draws each put a seen card back in deck:item"
    last = game.cards("deck:item")
    assert sorted(last) == sorted(states[0]["stacks"]["deck:item"])
    assert {**table_of(game), "stacks": {}} == {**states[0], "stacks": {}}
    assert game.app.event(game.cid, game.app.last_seq(game.cid)).changes[-1].now == tuple(last), (
        "the undone shuffle keeps the order the last reshuffle gave the deck")
    assert verify(game.app, game.cid).ok


def test_after_an_undo_and_a_new_action_undo_takes_back_the_new_one_then_the_one_before_the_undone(game):
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    first = game.do(c.Draw(actor="ana", stack="deck:item")).seq
    second = game.do(c.Draw(actor="ana", stack="deck:item")).seq
    game.do(c.Undo(keep_order=True))  # the master keeps the deck's order: the check below is exact
    third = game.do(c.Draw(actor="bo", stack="deck:item")).seq
    assert game.do(c.Undo(keep_order=True)).event.targets == (third,)
    assert game.do(c.Undo(keep_order=True)).event.targets == (first,), f"seq {second} is already undone"
    assert game.cards("deck:item") == ["item-sword", "item-bow", "item-rope"]


def test_undoes_the_action_named_an_undo_meant_for_a_seq_takes_back_only_that_one_while_it_is_the_latest(game):
    """Ruleset 18: ``undo --seq SEQ`` (the table page's Undo names the action it shows). A QA
    pass: the master's tap took back a hero's draw recorded a moment before it, for good (the
    deck shuffled again). One recorded since, or taken back, refuses it; named with --to too,
    it is bad input; named right, it is the plain undo, verified as any."""
    game.add("item-sword", "item-bow", to="deck:item")
    meant = game.do(c.Send(cards=("item-sword",), to="table:ana"))
    game.do(c.Draw(actor="ana", stack="deck:item"))  # recorded while the master looked at the page
    err = game.refuse(c.Undo(seq=meant.seq), RuleBroken)
    assert f"seq {meant.seq} is not the latest action in force, seq {meant.seq + 1} is" in str(err), str(err)
    game.refuse(c.Undo(seq=meant.seq, to=1), BadInput)
    rec = game.do(c.Undo(seq=meant.seq + 1))
    assert rec.event.targets == (meant.seq + 1,) and rec.event.command["seq"] == meant.seq + 1
    game.refuse(c.Undo(seq=meant.seq + 1), RuleBroken)  # taken back already: the latest is the send
    assert game.do(c.Undo(seq=meant.seq)).event.targets == (meant.seq,)
    assert game.do(c.Undo()).event.command.get("seq", None) is None  # left out of a plain undo's record
    assert verify(game.app, game.cid).ok


def test_an_undo_that_hides_again_a_card_shown_where_it_lay_in_a_deck_says_the_deck_holds_seen_cards(game):
    """A QA pass: the undo of a card shown to one hero where it lay in a face-down deck
    shuffled the deck again (right: she knew where the card lay) and said "cards returned to
    it had been seen", though no card had returned. From ruleset 18 the summary says the deck
    holds cards someone had seen; an undo of older rules keeps the words it was stored with."""
    from projections.summaries import summary

    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Reveal(cards=("item-bow",), to=("ana",)))
    undone = game.do(c.Undo()).event
    assert undone.reshuffled_stacks == ("deck:item",)
    assert "; deck:item shuffled again (it holds cards someone had seen);" in summary(undone), summary(undone)
    older = undone.model_copy(update={"ruleset": 17})
    assert "; deck:item shuffled again (cards returned to it had been seen);" in summary(older)


def test_undo_to_seq_reverts_every_action_after_it_in_one_action(game, db_path):
    game.add("item-sword", "item-bow", "item-rope", "item-torch", to="deck:item")  # knowledge 0
    mark = game.app.last_seq(game.cid)
    at_mark = table_of(game)
    later = [
        game.do(c.Shuffle(stack="deck:item", seed=8)).seq,
        game.do(c.Draw(actor="ana", stack="deck:item", count=2)).seq,
    ]
    top = game.cards("deck:item")[0]
    later += [
        game.do(c.Send(cards=(top,), to="table:bo")).seq,
        game.do(c.Exhaust(cards=(top,))).seq,
    ]
    count = game.app.stored_event_count()
    rec = game.do(c.Undo(to=mark, keep_order=True))  # the master keeps the order of deck:item: exactly at_mark
    assert game.app.stored_event_count() == count + 1, "one action, however many it takes back"
    assert sorted(rec.event.targets) == later
    assert rec.event.keep_order and rec.event.reshuffled_stacks == ()
    assert table_of(game) == at_mark
    assert fresh_table(game) == at_mark
    history = undone_by(game.app, db_path, game.campaign.slug)
    assert all(history[seq] == rec.seq for seq in later)
    assert history[mark] is None
    # redo puts all of them back
    game.do(c.Redo())
    assert table_of(game) == game.app.campaign(game.cid, at=later[-1]).table.to_dict()
    history = undone_by(game.app, db_path, game.campaign.slug)
    assert all(history[seq] is None for seq in later)


def test_an_undo_records_the_masters_keep_order_only_where_it_kept_a_decks_order(game):
    """Found by a QA pass: ``undo --keep-order`` of an action that returned no card to a deck
    read "the master kept the order of the decks seen cards returned to" in the history,
    where no deck was involved (ruleset 16: recorded only where it kept one)."""
    from projections.summaries import summary

    game.add("item-sword", to="table:ana")
    rec = game.do(c.Undo(keep_order=True))
    assert not rec.event.keep_order and "kept the order" not in summary(rec.event)
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item"))  # ana saw the card she drew: it returns to the deck
    rec = game.do(c.Undo(keep_order=True))
    assert rec.event.keep_order and rec.event.reshuffled_stacks == ()
    assert "the master kept the order of the decks seen cards returned to" in summary(rec.event)
    assert verify(game.app, game.cid).ok


def test_something_in_force_since_undo_to_seq_takes_back_an_action_a_redo_after_that_seq_applied_again(game):
    """Found by a QA pass: a redo applies an action again under its own seq, so ``undo --to``
    a seq between its undo and its redo left it in force: the table was not the one at that
    seq, and a second ``undo --to`` said there was nothing to undo. From ruleset 16 it is
    taken back too; one in force at that seq, undone and redone since, is not."""
    game.add("companion-wolf", "item-rope", to="table:ana")
    attach = game.do(c.Attach(card="item-rope", host="companion-wolf")).seq
    mark = game.do(c.Undo()).seq
    at_mark = table_of(game)
    game.do(c.Redo())
    exhaust = game.do(c.Exhaust(cards=("companion-wolf",))).seq
    rec = game.do(c.Undo(to=mark, keep_order=True))
    assert rec.event.targets == (exhaust, attach)
    assert table_of(game) == at_mark == game.app.campaign(game.cid, at=mark).table.to_dict()
    assert fresh_table(game) == at_mark
    err = game.refuse(c.Undo(to=mark), RuleBroken)
    assert "nothing to undo after seq" in str(err)
    # in force at the mark, then undone and redone since: not taken back
    mark = game.app.last_seq(game.cid)
    game.do(c.Undo())  # the latest in force (the add), then applied again
    game.do(c.Redo())
    err = game.refuse(c.Undo(to=mark), RuleBroken)
    assert "every action in force now was in force then" in str(err)
    last = game.app.last_seq(game.cid)  # a seq the log does not reach: said so, as --at says it (a QA pass)
    assert str(game.refuse(c.Undo(to=last + 50), BadInput)) == f"seq {last + 50} is past the last action (seq {last})"
    assert verify(game.app, game.cid).ok


def test_undo_to_seq_after_a_redo_under_ruleset_15_leaves_the_redone_action_as_it_was_recorded(app, sample_catalog):
    """Recorded before ruleset 16, such an undo took back only the actions after the seq by
    their own seqs; it still decides (and verifies) so."""
    with decided_under(15):  # the whole campaign: rules never go back within one
        game = Game(app, app.start(sample_catalog, name="Fifteen").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.add("companion-wolf", "item-rope", to="table:ana")
        game.do(c.Attach(card="item-rope", host="companion-wolf"))
        mark = game.do(c.Undo()).seq
        game.do(c.Redo())
        exhaust = game.do(c.Exhaust(cards=("companion-wolf",))).seq
        rec = game.do(c.Undo(to=mark, keep_order=True))
    assert rec.event.targets == (exhaust,) and rec.event.ruleset == 15
    assert verify(app, game.cid).ok


def _in_force(app: Ledger, cid, at: int | None = None) -> set[int]:
    """The actions in force at seq ``at`` (now: None), walked back from the live head."""
    seq, found = app.campaign(cid, at=at).live_head, set()
    while seq is not None:
        found.add(seq)
        seq = app.event(cid, seq).prev_live
    return found


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_in_random_sessions_undo_to_a_seq_leaves_in_force_only_what_was_then(data):
    """Whatever undos and redos came between: after the master's ``undo --to SEQ``, every
    action in force was in force at SEQ; and when none of those has been undone since, the
    table is the one at SEQ (the master keeping the decks' order)."""
    _undo_to_session(data)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_in_random_sessions_undo_to_from_the_undos_and_redos_since_leaves_in_force_only_what_was_then(data):
    """The same, where ``undo --to`` reads the undos and redos since SEQ rather than walk
    the chain at SEQ (it does past its budget: forced here from the first step)."""
    from ledger import actions

    share, free = actions.CHAIN_SHARE, actions.CHAIN_FREE
    actions.CHAIN_SHARE, actions.CHAIN_FREE = 10**9, -1
    try:
        _undo_to_session(data)
    finally:
        actions.CHAIN_SHARE, actions.CHAIN_FREE = share, free


def _undo_to_session(data) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        app = Ledger.open(Path(tmp) / "campaign.db", create=True)
        try:
            cid = app.start(load_catalog(sample_catalog_path()), name="Undo to").campaign.id
            app.execute(cid, c.AddHero(hero="ana", name="Ana", knowledge=2))
            app.execute(cid, c.AddHero(hero="bo", name="Bo", knowledge=0))
            stock(app, cid, data)
            start = app.last_seq(cid)
            for _ in range(data.draw(st.integers(3, 20), label="steps")):
                step = data.draw(st.sampled_from(["action", "action", "undo", "redo"]), label="step")
                command = {"undo": c.Undo(keep_order=True), "redo": c.Redo()}.get(step) \
                    or draw_any_command(data, app.campaign(cid))
                try:
                    app.execute(cid, command)
                except LedgerError:
                    pass
            to = data.draw(st.integers(start, app.last_seq(cid)), label="undo to")
            then, now = _in_force(app, cid, at=to), _in_force(app, cid)
            count = app.stored_event_count()
            try:
                app.execute(cid, c.Undo(to=to, keep_order=True))
            except LedgerError:
                assert app.stored_event_count() == count, "a refused undo appended an event"
                assert now <= then, "undo --to refused while an action in force was not then"
                return
            assert _in_force(app, cid) == now & then
            if then <= now:
                assert app.campaign(cid).table.to_dict() == app.campaign(cid, at=to).table.to_dict()
            assert verify(app, cid).ok
        finally:
            app.close()


def test_undo_to_seq_without_keep_order_gives_back_the_same_cards_with_the_seen_deck_reshuffled(game):
    """The undo to a seq above, without keep_order: the cards ana drew and the one sent to
    bo's table were seen, so deck:item, where they return, is shuffled again in the undo."""
    game.add("item-sword", "item-bow", "item-rope", "item-torch", to="deck:item")
    mark = game.app.last_seq(game.cid)
    at_mark = table_of(game)
    game.do(c.Shuffle(stack="deck:item", seed=8))
    game.do(c.Draw(actor="ana", stack="deck:item", count=2))
    top = game.cards("deck:item")[0]
    game.do(c.Send(cards=(top,), to="table:bo"))
    game.do(c.Exhaust(cards=(top,)))
    targets = [game.app.event(game.cid, seq) for seq in range(mark + 1, game.app.last_seq(game.cid) + 1)]
    assert seen_decks(game.campaign, at_mark, targets) == ("deck:item",)
    rec = game.do(c.Undo(to=mark, seed=2))
    assert sorted(rec.event.targets) == [event.seq for event in targets]
    check_reshuffled(rec, at_mark, table_of(game), ("deck:item",))
    assert game.cards("deck:item") != at_mark["stacks"]["deck:item"], "seed 2 gives the deck another order"
    assert fresh_table(game) == table_of(game)
    assert verify(game.app, game.cid).ok


def test_redo_after_undo_gives_back_the_table_before_the_undo(game):
    game.add("item-sword", "item-bow", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item"))
    before_undo = table_of(game)
    undo = game.do(c.Undo(keep_order=True))
    redo = game.do(c.Redo())
    assert redo.seq == undo.seq + 1 and redo.action == "redo"
    assert redo.event.undo == undo.seq
    assert table_of(game) == before_undo
    assert fresh_table(game) == before_undo


def test_two_undos_then_two_redos_give_back_each_state_in_turn(game):
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    s0 = table_of(game)
    game.do(c.Draw(actor="ana", stack="deck:item"))
    s1 = table_of(game)
    game.do(c.Send(cards=("item-bow",), to="discard"))
    s2 = table_of(game)
    # the bow and the sword were seen: the master keeps the order of the deck they return to
    game.do(c.Undo(keep_order=True))
    assert table_of(game) == s1
    game.do(c.Undo(keep_order=True))
    assert table_of(game) == s0
    game.do(c.Redo())
    assert table_of(game) == s1
    game.do(c.Redo())
    assert table_of(game) == s2
    assert fresh_table(game) == s2
    game.refuse(c.Redo(), RuleBroken)  # both were redone: nothing left to redo


def test_redo_is_refused_after_a_new_action(game):
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item"))
    game.do(c.Undo())
    game.do(c.Shuffle(stack="deck:item", seed=3))
    game.refuse(c.Redo(), RuleBroken)


def test_a_redo_takes_the_latest_undo_not_yet_redone_across_players(game):
    """Asked by a QA pass (the words said "while no other action came after that undo"):
    undos stack up as an editor's do. Ana undoes her shuffle, bo undoes his and redoes it:
    his pair cancels out, so ana may still redo hers, and the table is the one before her
    undo; after any other action nobody may redo."""
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    for hero in ("ana", "bo"):  # the effects that allow their shuffles
        game.add(game.EFFECTS[hero], to=f"table:{hero}")
    game.shuffle_as("bo", "deck:item")
    game.shuffle_as("ana", "deck:item")
    before_her_undo = table_of(game)
    game.do(c.Undo(actor="ana"))
    game.do(c.Undo(actor="bo"))
    game.do(c.Redo(actor="bo"))
    game.do(c.Redo(actor="ana"))
    assert table_of(game) == before_her_undo == fresh_table(game)
    game.do(c.Undo(actor="ana"))
    game.shuffle_as("bo", "deck:item")
    assert "nothing but undos and redos" in str(game.refuse(c.Redo(actor="ana"), RuleBroken))


def test_redo_is_refused_when_nothing_was_undone(game):
    game.add("item-sword", to="deck:item")
    game.refuse(c.Redo(), RuleBroken)


def test_undo_is_refused_on_a_fresh_campaign(app, sample_catalog):
    rec = app.start(sample_catalog, name="Fresh")
    Game(app, rec.campaign.id).refuse(c.Undo(), RuleBroken)
    Game(app, rec.campaign.id).refuse(c.Undo(to=1), RuleBroken)


def test_undo_is_refused_once_every_action_is_undone(game):
    game.do(c.Undo())
    game.do(c.Undo())  # both hero adds taken back
    game.refuse(c.Undo(), RuleBroken)


def test_a_hero_may_undo_only_their_own_actions_and_the_master_anything(game):
    """Whose action it is decides. The heroes' actions here show no one a hidden card (a
    face-up card on a table exhausted), so fair play does not forbid taking them back."""
    game.add("item-sword", to="table:ana")
    game.add("item-bow", to="table:bo")
    mark = game.app.last_seq(game.cid)
    ana = game.do(c.Exhaust(actor="ana", cards=("item-sword",)))
    assert ana.event.identified == {}
    assert "only their own actions" in str(game.refuse(c.Undo(actor="bo"), NotAllowed))
    assert game.do(c.Undo(actor="ana")).event.targets == (ana.seq,)
    game.refuse(c.Redo(actor="bo"), NotAllowed)
    game.do(c.Redo(actor="ana"))
    bo = game.do(c.Exhaust(actor="bo", cards=("item-bow",)))
    assert "only their own actions" in str(game.refuse(c.Undo(actor="ana"), NotAllowed))
    game.refuse(c.Undo(actor="bo", to=mark), NotAllowed)  # ana's exhaust is among them
    assert game.do(c.Undo()).event.targets == (bo.seq,)  # the master undoes bo's
    assert game.do(c.Undo()).event.targets == (ana.seq,)  # and ana's
    game.refuse(c.Undo(actor="ana"), NotAllowed)  # the master's add is next


def test_a_hero_may_not_undo_even_their_own_draw_it_showed_them_hidden_cards_and_the_master_may(game):
    """Fair play: ana's draw showed her a hidden card, so she may not take it back (the
    card would go back to the top of the deck, where she now knows it is); she asks the
    master, whose undo shuffles the deck again. Bo is still refused for not being its
    author."""
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    ana = game.do(c.Draw(actor="ana", stack="deck:item"))
    assert ana.event.identified == {"ana": ("item-sword",)}
    assert "only their own actions" in str(game.refuse(c.Undo(actor="bo"), NotAllowed))
    assert "ask the master" in str(game.refuse(c.Undo(actor="ana"), NotAllowed))
    undo = game.do(c.Undo())
    assert undo.event.targets == (ana.seq,)
    assert sorted(game.cards("deck:item")) == ["item-bow", "item-rope", "item-sword"]
    assert undo.event.reshuffled_stacks == ("deck:item",)
    game.refuse(c.Redo(actor="ana"), NotAllowed)  # a hero redoes only their own undo
    game.refuse(c.Redo(), RuleBroken)  # nor the master: the deck's new order stays unseen (undo-kept-the-order)
    assert game.zone("item-sword") == "deck:item"


# -- cost and immutability ---------------------------------------------------------------------
def count_rows_read(ledger: Ledger) -> list[int]:
    counts: list[int] = []
    original = ledger.recorder.select_events

    def counting(*args, **kwargs):
        rows = original(*args, **kwargs)
        counts.append(len(rows))
        return rows

    ledger.recorder.select_events = counting  # type: ignore[method-assign]
    return counts


@pytest.mark.parametrize("filler", ["shuffles", "reveal-hide"])
def test_undo_reads_a_bounded_number_of_events_however_long_the_log(new_db, sample_catalog, filler):
    read = {}
    for n in (5, 350):
        path = new_db(f"{n}.db")
        app = Ledger.open(path, create=True)
        cid = app.start(sample_catalog, name="Long").campaign.id
        app.execute(cid, c.AddHero(hero="ana"))
        app.execute(cid, c.Add(cards=("item-sword", "item-bow", "item-rope", "item-axe"), to="deck:item"))
        for i in range(n):
            if filler == "shuffles":
                app.execute(cid, c.Shuffle(stack="deck:item", seed=2 * i))
                app.execute(cid, c.Shuffle(stack="deck:item", seed=2 * i + 1))
            else:
                app.execute(cid, c.Reveal(cards=("item-sword",)))
                app.execute(cid, c.Hide(cards=("item-sword",)))
        last = app.last_seq(cid)
        expected = app.campaign(cid, at=last - 1).table.to_dict()
        app.close()

        fresh = Ledger.open(path)
        try:
            counts = count_rows_read(fresh)
            rec = fresh.execute(cid, c.Undo())
            assert rec.event.targets == (last,)
            assert fresh.campaign(cid).table.to_dict() == expected
        finally:
            fresh.close()
        read[n] = sum(counts)
    bound = Ledger.SNAPSHOT_INTERVAL + 5
    assert read[5] <= bound and read[350] <= bound, f"events read by one undo: {read} (bound {bound})"


def test_undo_and_redo_never_edit_or_delete_a_stored_row(game, db_path):
    game.add("item-sword", "item-bow", "item-rope", "item-axe", to="deck:item")
    game.do(c.Shuffle(stack="deck:item", seed=6))
    game.do(c.Draw(actor="ana", stack="deck:item", count=2))
    game.do(c.Send(cards=("item-sword",), to="discard"))
    before = stored_rows(db_path, game.cid)
    n = max(before)
    assert sorted(before) == list(range(1, n + 1))
    game.do(c.Undo(keep_order=True))  # (the sword, seen going to the discard pile, would shuffle the deck again,
    game.do(c.Undo(to=3))             # and no redo applies again actions of a deck an undo shuffled since)
    game.do(c.Redo())
    after = stored_rows(db_path, game.cid)
    assert sorted(after) == list(range(1, n + 4)), "undo and redo append; they never remove"
    for seq in range(1, n + 1):
        assert after[seq] == before[seq], f"stored row of seq {seq} was changed"


def test_undo_kept_the_order_a_redo_after_an_undo_that_shuffled_a_deck_again_is_refused(game):
    """Fair play (ruleset 4): the master's undo of ana's draw and of bo's private look at a
    deck card shuffles the deck again, an order nobody has seen. Redoing them would show
    bo where that card now lies in it, and take ana's card from another place than the
    draw records: refused, saying why and what to do; nothing is appended."""
    game.add("skill-dodge", "skill-stealth", "skill-riposte", "skill-blessing", to="deck:skill")
    mark = game.do(c.Reveal(cards=("skill-riposte",), to=("bo",))).seq - 1
    game.do(c.Draw(actor="ana", stack="deck:skill"))
    undo = game.do(c.Undo(to=mark))
    assert undo.event.reshuffled_stacks == ("deck:skill",)
    assert not can_identify(game.campaign, "bo", "skill-riposte")
    refusal = str(game.refuse(c.Redo(), RuleBroken))
    assert f"seq {undo.seq} shuffled deck:skill again" in refusal and "--keep-order" in refusal
    assert not can_identify(game.campaign, "bo", "skill-riposte")


def test_undo_kept_the_order_holds_from_ruleset_4_on(app, sample_catalog):
    """An older campaign's redo of such an undo was allowed when it was recorded, and is
    decided again under its own rules by verify."""
    with decided_under(3):  # the whole campaign, as a ledger of ruleset 3 recorded it
        game = Game(app, app.start(sample_catalog, name="Older").campaign.id)
        game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        game.add("item-sword", "item-bow", "item-rope", to="deck:item")
        game.do(c.Draw(actor="ana", stack="deck:item"))
        assert game.do(c.Undo()).event.reshuffled_stacks == ("deck:item",)
        redo = game.do(c.Redo())
    assert redo.event.ruleset == 3
    assert verify(game.app, game.cid).ok


def test_reshuffles_between_reads_only_the_undos_that_shuffled_a_deck_again(game):
    """Fair play's look back (``Play.shuffled_again_by``) reads stored rows and decodes, of
    each undo, only the decks it shuffled again: the seqs and decks it gives are the log's."""
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    first = game.app.last_seq(game.cid)
    game.do(c.Draw(actor="ana", stack="deck:item"))
    seen = game.do(c.Undo())  # shuffles deck:item again: ana saw the card
    game.do(c.Shuffle(stack="deck:item", seed=1))
    game.do(c.Undo(keep_order=True))  # shuffles nothing again
    last = game.app.last_seq(game.cid)
    assert seen.event.reshuffled_stacks == ("deck:item",)
    assert list(game.app.reshuffles_between(game.cid, first, last)) == [(seen.seq, ("deck:item",))]
    assert list(game.app.reshuffles_between(game.cid, first, last, page=1)) == [(seen.seq, ("deck:item",))]
    assert list(game.app.reshuffles_between(game.cid, seen.seq, last)) == []
