"""The read commands of CLI.md, as the referee: ``history``, ``card``, ``explain`` and
``rebuild``, with ``--json`` and as human tables.

A campaign with a placement redirect, a draw that refills its deck from the depot,
two trades (one during a battle, with an access effect), activations from the
inventory and from the table, a shuffle and a discard is played through the command
once per module; the tests read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.changes import CardChanged, StackReordered
from ledger.rules import card_states

from .conftest import cli, copy_db, fresh_db, ok, read_tables, run_ledger

pytestmark = pytest.mark.both_stores

SAMPLE = str(sample_catalog_path())
CATALOG_IDS = load_catalog(sample_catalog_path()).ids()
ROW_FIELDS = {"seq", "action", "actor", "summary", "undone_by", "cards", "time"}
CARD_FIELDS = {"id", "suit", "zone", "position", "face", "exhausted", "attached_to", "states", "history"}

# (arguments, the action it records); seq = position + 1
SCRIPT: list[tuple[list[str], str]] = [
    (["init", "--catalog", SAMPLE, "--name", "Historia"], "init"),                                  # 1
    (["hero", "add", "ana", "--knowledge", "1"], "hero add"),                                       # 2
    (["hero", "add", "bo"], "hero add"),                                                             # 3
    (["add", "item-sword", "item-bow", "item-rope", "--to", "deck:item"], "add"),                   # 4
    (["add", "item-axe", "item-torch", "--to", "depot"], "add"),                                    # 5
    (["--actor", "ana", "draw", "deck:item", "--count", "2"], "draw"),                              # 6 sword, bow
    (["--actor", "ana", "send", "item-sword", "--to", "table:ana"], "send"),                        # 7
    (["add", "item-lantern", "--to", "discard"], "add"),                                            # 8
    (["send", "item-lantern", "--to", "table:bo"], "send"),                                         # 9 redirected
    (["--actor", "ana", "draw", "deck:item", "--count", "3"], "draw"),                              # 10 refill 2, all drawn
    (["location", "add", "village", "--access", "item=2", "--access", "skill=1"], "location add"),  # 11
    (["travel", "ana", "village"], "travel"),                                                        # 12
    (["add", "item-helm", "item-shield", "--to", "discard"], "add"),                                # 13
    (["--actor", "ana", "trade", "ana", "--take", "item-helm", "--give", "item-bow", "item-rope"], "trade"),  # 14
    (["battle", "start"], "battle start"),                                                           # 15
    (["add", "event-festival", "--to", "scenario"], "add"),                                         # 16
    (["access", "village", "item", "2", "--by", "event-festival"], "access"),                       # 17
    (["--actor", "ana", "trade", "ana", "--take", "item-shield", "--give", "item-helm"], "trade"),   # 18
    (["battle", "end"], "battle end"),                                                               # 19
    (["add", "skill-fireball", "--to", "inventory:ana"], "add"),                                    # 20
    (["--actor", "ana", "activate", "skill-fireball", "--target", "goblin"], "activate"),           # 21
    (["--actor", "ana", "activate", "item-sword"], "activate"),                                     # 22
    (["add", "item-dagger", "item-staff", "--to", "deck:item"], "add"),                             # 23
    (["shuffle", "deck:item", "--seed", "2"], "shuffle"),                                           # 24
    (["--actor", "bo", "discard", "item-lantern"], "discard"),                                      # 25
    (["--actor", "ana", "discard", "item-axe", "item-torch"], "discard"),                           # 26
    (["--actor", "ana", "exhaust", "item-sword"], "exhaust"),                                       # 27
    (["--actor", "ana", "draw", "deck:item"], "draw"),                                              # 28
    (["undo", "--seed", "3"], "undo"),                                            # 29 takes 28 back; deck:item reshuffled
]
LAST = len(SCRIPT)
REDIRECT, REFILL, TRADE, BATTLE_TRADE, FROM_HAND, FROM_TABLE, UNDONE, UNDO = 9, 10, 14, 18, 21, 22, 28, 29


def touched_by(event) -> set[str]:
    """Every card an action moved, turned, reordered or named."""
    cards: set[str] = set()
    for change in event.changes:
        if isinstance(change, CardChanged):
            cards.add(change.card)
        elif isinstance(change, StackReordered):
            cards.update(change.was)
    for name in ("cards", "taken", "given"):
        cards.update(getattr(event, name, None) or ())
    for name in ("card", "host", "by"):
        if getattr(event, name, None):
            cards.add(getattr(event, name))
    cards.update(r.card for r in event.redirects)
    return cards


@pytest.fixture(scope="module")
def db(store, tmp_path_factory) -> Iterator[Path | str]:
    with fresh_db(store, tmp_path_factory.mktemp("history")) as path:
        for seq, (args, action) in enumerate(SCRIPT, start=1):
            recorded = json.loads(ok(path, "--json", *args))
            assert (recorded["seq"], recorded["action"]) == (seq, action), (args, recorded["seq"], recorded["action"])
        yield path


@pytest.fixture(scope="module")
def events(db):
    app = Ledger.open(db)
    try:
        return {e.seq: e for e in app.actions(app.resolve(None))}
    finally:
        app.close()


def history(db: Path | str, *args: str) -> list[dict]:
    return json.loads(ok(db, "--json", "history", *args))


def test_history_json_is_one_entry_per_action_oldest_first_with_the_documented_fields(db, events):
    rows = history(db)
    assert [r["seq"] for r in rows] == list(range(1, LAST + 1))
    for row, (args, action) in zip(rows, SCRIPT):
        assert ROW_FIELDS <= set(row), f"seq {row['seq']} lacks {ROW_FIELDS - set(row)}"
        assert row["action"] == action
        assert row["actor"] == (args[1] if args[0] == "--actor" else "master")
        assert row["undone_by"] == (UNDO if row["seq"] == UNDONE else None), row
        assert isinstance(row["summary"], str) and row["summary"]
        assert sorted(row["cards"]) == sorted(touched_by(events[row["seq"]])), f"cards of seq {row['seq']}"
        datetime.fromisoformat(row["time"])
    times = [datetime.fromisoformat(r["time"]) for r in rows]
    assert times == sorted(times), "history is oldest first"
    assert "item-lantern" in rows[REDIRECT - 1]["summary"] and "inventory:bo" in rows[REDIRECT - 1]["summary"]


def _expected(rows, start=None, end=None, card=None, actor=None, limit=None, events=None):
    out = [r for r in rows
           if (start is None or r["seq"] >= start) and (end is None or r["seq"] <= end)
           and (actor is None or r["actor"] == actor)
           and (card is None or card in touched_by(events[r["seq"]]))]
    return out[-limit:] if limit else out


FILTERS = [
    (["--from", "10"], {"start": 10}),
    (["--to", "7"], {"end": 7}),
    (["--from", "6", "--to", "14"], {"start": 6, "end": 14}),
    (["--from", "14", "--to", "14"], {"start": 14, "end": 14}),
    (["--actor", "ana"], {"actor": "ana"}),
    (["--actor", "bo"], {"actor": "bo"}),
    (["--actor", "master"], {"actor": "master"}),
    (["--card", "item-bow"], {"card": "item-bow"}),
    (["--card", "item-helm"], {"card": "item-helm"}),
    (["--card", "entity-lich"], {"card": "entity-lich"}),
    (["--card", "item-axe", "--from", "6"], {"card": "item-axe", "start": 6}),
    (["--card", "item-helm", "--actor", "ana"], {"card": "item-helm", "actor": "ana"}),
    (["--card", "item-sword", "--to", "10", "--actor", "ana"], {"card": "item-sword", "end": 10, "actor": "ana"}),
    (["--limit", "3"], {"limit": 3}),
    (["--limit", "1000"], {"limit": 1000}),
    (["--actor", "ana", "--limit", "2"], {"actor": "ana", "limit": 2}),
    (["--from", "5", "--to", "15", "--limit", "4"], {"start": 5, "end": 15, "limit": 4}),
    (["--card", "item-sword", "--limit", "1"], {"card": "item-sword", "limit": 1}),
    (["--card", "item-lantern", "--actor", "master", "--from", "9", "--limit", "5"],
     {"card": "item-lantern", "actor": "master", "start": 9, "limit": 5}),
]


@pytest.mark.parametrize("args,wanted", FILTERS, ids=[" ".join(a) for a, _ in FILTERS])
def test_history_filters_select_the_right_actions(db, events, args, wanted):
    rows = sorted(history(db), key=lambda r: r["seq"])  # oldest first, whatever the command does
    assert [r["seq"] for r in rows] == list(range(1, LAST + 1))
    expected = _expected(rows, events=events, **wanted)
    assert history(db, *args) == expected
    human = ok(db, "history", *args)
    for row in expected:
        assert re.search(rf"(?m)^\W*{row['seq']}\b", human), f"seq {row['seq']} missing from the human history"


def test_history_refuses_an_unknown_card_a_limit_below_one_and_a_backwards_range(db):
    for args in (["history", "--card", "item-excalibur"], ["history", "--limit", "0"],
                 ["history", "--from", "10", "--to", "5"]):
        code, out, err = cli(db, *args)
        assert code == 1 and err.startswith("error: ") and len(err.splitlines()) == 1, (args, err)
    assert "--from 10 is after --to 5" in cli(db, "history", "--from", "10", "--to", "5")[2]
    code, out, err = cli(db, "history", "--from", "5", "--to", "5")  # one action: a range of one
    assert code == 0, err


def test_card_json_has_its_place_states_and_every_action_that_touched_it(db, events, store):
    app = Ledger.open(db)
    try:
        campaign = app.campaign(app.resolve(None))
    finally:
        app.close()
    table = campaign.table
    cards = CATALOG_IDS
    if store == "postgres":  # each ``card`` opens the store anew (~50 ms there): the touched cards and a few more
        touched = set().union(*(touched_by(event) for event in events.values()))
        cards = [card for card in CATALOG_IDS if card in touched] + [c for c in CATALOG_IDS if c not in touched][:5]
    for card in cards:
        view = json.loads(ok(db, "--json", "card", card))
        assert CARD_FIELDS <= set(view), f"card {card} lacks {CARD_FIELDS - set(view)}"
        assert view["id"] == card and view["suit"] == str(campaign.card(card).suit)
        assert view["zone"] == table.zone_of(card)
        assert view["position"] == table.cards_in(table.where[card]).index(card)
        assert view["face"] == table.face(card)
        assert view["exhausted"] == (card in table.exhausted)
        assert view["attached_to"] == table.host(card)
        assert view["states"] == card_states(campaign, card)
        assert view["history"] == [seq for seq in sorted(events) if card in touched_by(events[seq])], card
    sword = json.loads(ok(db, "--json", "card", "item-sword"))
    assert (sword["zone"], sword["exhausted"], sword["face"]) == ("table:ana", True, "up")
    assert "exhausted" in sword["states"] and sword["history"] == [4, 6, 7, FROM_TABLE, 27]
    helm = json.loads(ok(db, "--json", "card", "item-helm"))
    assert helm["history"] == [13, TRADE, BATTLE_TRADE] and helm["zone"] == "discard"
    assert json.loads(ok(db, "--json", "card", "entity-lich"))["history"] == []


def _checks(db: Path | str, seq: int) -> tuple[dict, str]:
    view = json.loads(ok(db, "--json", "explain", str(seq)))
    assert {"seq", "action", "actor", "summary", "checks"} <= set(view)
    assert view["seq"] == seq
    assert all({"rule", "detail"} <= set(c) for c in view["checks"])
    return view, "\n".join(f"{c['rule']}: {c['detail']}" for c in view["checks"])


@pytest.mark.parametrize("seq", [TRADE, BATTLE_TRADE])
def test_explain_a_trade_lists_the_sums_by_type_the_location_the_access_and_the_battle(db, events, seq):
    event = events[seq]
    view, text = _checks(db, seq)
    assert view["action"] == "trade"
    assert "village" in text
    for entry in event.settlement:  # per value type: given ≥ taken, with the figures
        line = next((c["detail"] for c in view["checks"] if entry.type in c["detail"]
                     and re.search(rf"\b{entry.give}\b", c["detail"]) and re.search(rf"\b{entry.take}\b", c["detail"])),
                    None)
        assert line is not None, f"no check gives the {entry.type} sums {entry.give} and {entry.take}:\n{text}"
    for used in event.access:
        line = next((c["detail"] for c in view["checks"] if "access" in c["detail"].lower()
                     and used.suit in c["detail"] and re.search(rf"\b{used.level}\b", c["detail"])), None)
        assert line is not None, f"no check gives the {used.suit} access level {used.level}:\n{text}"
        if seq == BATTLE_TRADE:
            assert "event-festival" in line, f"the access source (the festival's effect) is missing: {line}"
        else:
            assert re.search(r"location|own level", line), f"the access source (the location) is missing: {line}"
    if seq == BATTLE_TRADE:
        assert event.battle and re.search(r"during a battle", text), text
    else:
        assert not event.battle and not re.search(r"during a battle", text), text
    human = ok(db, "explain", str(seq))
    assert f"seq {seq}" in human and "village" in human


def test_explain_a_draw_that_refilled_its_deck_says_how_many_cards_came_from_the_depot(db, events):
    refill = events[REFILL].refills[0]
    assert (refill.deck, refill.count) == ("deck:item", 2)
    view, text = _checks(db, REFILL)
    line = next((c["detail"] for c in view["checks"] if "depot" in c["detail"]), None)
    assert line is not None, text
    assert "deck:item" in line and re.search(r"\b2\b", line), line
    _, plain = _checks(db, 6)  # a draw that needed no refill says nothing of the depot
    assert "depot" not in plain


def test_explain_a_redirected_placement_names_the_rule_that_redirected_it(db, events):
    redirect = events[REDIRECT].redirects[0]
    assert (redirect.asked, redirect.actual, redirect.rule) == ("table:bo", "inventory:bo", "asset-knowledge-placement")
    view, text = _checks(db, REDIRECT)
    line = next((c for c in view["checks"] if "inventory:bo" in c["detail"]), None)
    assert line is not None, text
    assert "table:bo" in line["detail"] and "item-lantern" in line["detail"]
    assert redirect.rule in line["rule"] + line["detail"] and "knowledge" in line["detail"], line


def test_explain_an_activation_from_the_inventory_gives_the_knowledge_needed_and_where_the_card_went(db, events):
    event = events[FROM_HAND]
    assert event.went_to == "deck:skill"
    view, text = _checks(db, FROM_HAND)
    knowledge = next((c["detail"] for c in view["checks"] if "knowledge" in c["detail"]), None)
    assert knowledge is not None and re.search(r"needs knowledge 1\b", knowledge) and re.search(r"\bhad 1\b", knowledge), text
    went = next((c["detail"] for c in view["checks"] if "deck:skill" in c["detail"]), None)
    assert went is not None and "skill-fireball" in went and "bury" in went, text
    _, in_play = _checks(db, FROM_TABLE)
    assert "stays" in in_play and "deck:" not in in_play, in_play


def test_rebuild_prints_how_many_events_it_applied_and_leaves_identical_tables(db, tmp_path):
    copy = copy_db(db, tmp_path)

    def dump() -> dict:
        return {t: read_tables(copy, f"SELECT * FROM [{t}] ORDER BY 1, 2, 3")
                for t in ("cards", "zones", "history", "card_actions")}

    app = Ledger.open(copy)
    try:
        stored = app.stored_event_count()
    finally:
        app.close()
    before = dump()
    assert len(before["history"]) == LAST

    result = run_ledger("rebuild", db=copy)
    assert result.returncode == 0, result.stderr
    assert re.search(rf"\b{stored}\b", result.stdout), result.stdout
    assert dump() == before

    data = json.loads(ok(copy, "--json", "rebuild"))
    assert data["rebuilt"] == stored and data["position"] == stored
    assert dump() == before


def test_human_history_card_and_explain_exit_zero_and_name_the_seq(db):
    human = ok(db, "history")
    for seq in range(1, LAST + 1):
        assert re.search(rf"(?m)^\W*{seq}\b", human), f"seq {seq} missing:\n{human}"
    card = ok(db, "card", "item-helm")
    assert f"after seq {LAST}" in card and all(str(s) in card for s in (13, TRADE, BATTLE_TRADE))
    for seq in range(1, LAST + 1):
        assert f"seq {seq}" in ok(db, "explain", str(seq))
    code, out, err = cli(db, "explain", str(LAST + 1))
    assert code == 1 and err.startswith("error: ")
