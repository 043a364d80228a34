"""Time travel: ``Ledger.campaign(cid, at=k)``, ``zones --at k`` and ``card X --at k``.

A 300-action session is played on a real SQLite file with a snapshot every 20 actions.
Then: the campaign right after every k equals the fold of events 1..k from scratch;
time travel starts from the nearest snapshot (it never reads more than 20 stored events);
the command shows the state right after k; and ``--at`` values that are not a seq of the
campaign are refused with one error line.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ledger import commands as c
from ledger import snapshots
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.changes import CardChanged, StackReordered
from ledger.errors import LedgerError
from ledger.fold import Table
from ledger.rules import card_states

from .conftest import cli, fresh_db, ok, run_ledger

pytestmark = pytest.mark.both_stores

CATALOG = load_catalog(sample_catalog_path())
CATALOG_IDS = CATALOG.ids()
ACTIONS = 300
INTERVAL = 20
HEROES = ("ana", "bo")


# -- a long session -------------------------------------------------------------------------------
def random_command(rng: random.Random, campaign) -> c.Command:
    """A mostly legal command picked from the state (refusals are simply skipped)."""
    table = campaign.table
    zones = [z for z in campaign.zones() if z != "box"]
    decks = [z for z in zones if z.startswith("deck:")]
    full_decks = [d for d in decks if table.cards_in(d)] or decks
    in_box = list(table.cards_in("box"))
    placed = sorted(card for card, at in table.where.items() if at != "box")
    attached = sorted(card for card, at in table.where.items() if at.startswith("on:"))
    seed = rng.randrange(10_000)
    kind = rng.choice(["add", "add", "add", "draw", "draw", "send", "send", "discard", "bury", "exile",
                       "shuffle", "search", "reveal", "hide", "exhaust", "restore", "attach", "detach",
                       "knowledge"])
    if kind == "add" or not placed:
        cards = tuple(rng.sample(in_box, min(len(in_box), rng.randint(1, 4)))) if in_box else ("item-sword",)
        to = rng.choice(decks + ["depot", "depot", "discard", "scenario", "inventory:ana", "table:bo"])
        return c.Add(cards=cards, to=to, position=rng.choice(["top", "bottom"]))
    card = rng.choice(placed)
    if kind == "draw":
        actor = rng.choice(("master", *HEROES))
        to = f"inventory:{rng.choice(HEROES)}" if actor == "master" else None
        return c.Draw(actor=actor, stack=rng.choice(full_decks), count=rng.randint(1, 2), to=to, seed=seed)
    if kind == "send":
        return c.Send(cards=(card,), to=rng.choice(zones))
    if kind == "discard":
        return c.Discard(cards=(card,))
    if kind == "bury":
        return c.Bury(cards=(card,))
    if kind == "exile":
        return c.Exile(cards=(card,))
    if kind == "shuffle":
        return c.Shuffle(stack=rng.choice(full_decks), seed=seed)
    if kind == "search":
        stack = rng.choice(full_decks + ["discard", "depot"])
        inside = table.cards_in(stack)
        take = (rng.choice(inside),) if inside else ()
        return c.Search(stack=stack, take=take, to=f"inventory:{rng.choice(HEROES)}" if take else None, seed=seed)
    if kind in ("reveal", "hide"):
        return (c.Reveal if kind == "reveal" else c.Hide)(cards=(card,))
    if kind in ("exhaust", "restore"):
        return (c.Exhaust if kind == "exhaust" else c.Restore)(cards=(card,))
    if kind == "attach":
        return c.Attach(card=card, host=rng.choice(placed))
    if kind == "detach":
        return c.Detach(card=rng.choice(attached or placed))
    return c.SetKnowledge(hero=rng.choice(HEROES), knowledge=rng.randint(0, 3))


@dataclass
class Played:
    db: Path | str
    cid: Any
    events: list  # every stored action, seq 1..ACTIONS


def fold_upto(events: list, k: int) -> Table:
    """The fold of events 1..k from scratch."""
    table = Table.new(CATALOG_IDS)
    for event in events[:k]:
        table.apply_all(event.changes)
    return table


@pytest.fixture(scope="module", autouse=True)
def anchored_every_interval():
    """The actions of this module's campaigns record their digest every INTERVAL seqs, where
    they take snapshots (a snapshot off that grid is passed over when loading)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(snapshots, "DIGEST_EVERY", INTERVAL)
        yield


@pytest.fixture(scope="module")
def played(store, tmp_path_factory) -> Iterator[Played]:
    with fresh_db(store, tmp_path_factory.mktemp("travel")) as db:
        yield play(db)


def play(db: Path | str) -> Played:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Ledger, "SNAPSHOT_INTERVAL", INTERVAL)
        app = Ledger.open(db, create=True)
        try:
            cid = app.start(CATALOG, name="Viagem").campaign.id
            app.execute(cid, c.AddHero(hero="ana", name="Ana", knowledge=1))
            app.execute(cid, c.AddHero(hero="bo", name="Bo", knowledge=0))
            rng = random.Random(20261129)
            tries = 0
            while app.last_seq(cid) < ACTIONS:
                tries += 1
                assert tries < 20 * ACTIONS, "the session generator is stuck"
                try:
                    app.execute(cid, random_command(rng, app.campaign(cid)))
                except LedgerError:
                    pass
            events = app.actions(cid)
        finally:
            app.close()
    assert [e.seq for e in events] == list(range(1, ACTIONS + 1))
    kinds = {e.action for e in events}
    assert {"add", "draw", "send", "shuffle", "search", "attach", "bury"} <= kinds, kinds
    return Played(db=db, cid=cid, events=events)


# -- the fold ------------------------------------------------------------------------------------------
def test_the_campaign_at_every_k_equals_the_fold_of_events_1_to_k_from_scratch(played):
    app = Ledger.open(played.db)
    try:
        snapshots = [s.originator_version for s in app.snapshots.get(played.cid)]
        assert snapshots == list(range(INTERVAL, ACTIONS + 1, INTERVAL)), "the session must have snapshots"
        table = Table.new(CATALOG_IDS)
        for k, event in enumerate(played.events, start=1):
            table.apply_all(event.changes)
            at = app.campaign(played.cid, at=k)
            assert at.seq == k
            assert at.table.to_dict() == table.to_dict(), f"campaign(at={k}) disagrees with the fold of 1..{k}"
        # literally from scratch, through the public API, for a few k
        for k in (1, 2, 19, 20, 21, 137, 299, ACTIONS):
            scratch = Table.new(CATALOG_IDS)
            for event in app.actions(played.cid, lte=k):
                scratch.apply_all(event.changes)
            assert app.campaign(played.cid, at=k).table.to_dict() == scratch.to_dict()
        # time travel leaves the campaign now as it was
        assert app.campaign(played.cid).table.to_dict() == table.to_dict()
    finally:
        app.close()


def test_time_travel_starts_from_the_nearest_snapshot_and_never_reads_more_than_an_interval(played, store):
    worst = 0
    ks = range(1, ACTIONS + 1)
    if store == "postgres":  # a fresh ledger for each k costs ~40 ms there: the first intervals, and a sample
        ks = sorted({*range(1, 2 * INTERVAL + 2), *SAMPLE_KS})
    for k in ks:
        fresh = Ledger.open(played.db)
        try:
            assert fresh.events.recorder is fresh.recorder
            real = fresh.recorder.select_events
            count = {"events": 0}

            def counting(*args, _real=real, _count=count, **kwargs):
                found = _real(*args, **kwargs)
                _count["events"] += len(found)
                return found

            fresh.recorder.select_events = counting  # type: ignore[method-assign]
            at = fresh.campaign(played.cid, at=k)
            assert at.seq == k
            assert count["events"] <= INTERVAL + 4, (
                f"campaign(at={k}) read {count['events']} stored events; the snapshot at "
                f"{k - k % INTERVAL} leaves at most {INTERVAL - 1} to read (and the first event for the catalog, "
                "and, for each of the two snapshots loaded (now and at k), the action it was taken at, to check it, "
                "and the one before that, to check that action against the chain)")
            worst = max(worst, count["events"])
        finally:
            fresh.close()
    assert worst >= INTERVAL - 1, "the counter saw too little: is select_events really what reads the events?"


# -- the command ----------------------------------------------------------------------------------------
SAMPLE_KS = (1, 2, 3, 19, 20, 21, 40, 77, 150, 199, 200, 201, 263, 299, ACTIONS)


def touched_by(event) -> set[str]:
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


@pytest.mark.parametrize("k", SAMPLE_KS)
def test_zones_at_k_shows_every_zone_as_it_was_right_after_k(played, k):
    expected = fold_upto(played.events, k)
    view = json.loads(ok(played.db, "--json", "zones", "--at", str(k)))
    assert view["seq"] == k
    for zone, entries in view["zones"].items():
        assert [e["id"] for e in entries] == expected.cards_in(zone), f"{zone} after seq {k}"
        for entry in entries:
            assert entry["face"] == expected.face(entry["id"])
            assert entry["exhausted"] == (entry["id"] in expected.exhausted)
            assert entry["attached"] == expected.attached(entry["id"])
    listed = {e["id"] for entries in view["zones"].values() for e in entries}
    attached = {card for card, at in expected.where.items() if at.startswith("on:")}
    assert listed | attached == set(CATALOG_IDS)
    human = ok(played.db, "zones", "--at", str(k))
    assert f"after seq {k}," in human


@pytest.mark.parametrize("k", SAMPLE_KS)
def test_card_at_k_shows_the_card_as_it_was_right_after_k(played, store, k):
    expected = fold_upto(played.events, k)
    app = Ledger.open(played.db)
    try:
        campaign = app.campaign(played.cid, at=k)
    finally:
        app.close()
    campaign.table = expected  # the states of RULES.md §7, derived from the fold
    moved = sorted({card for event in played.events[:k] for card in touched_by(event)})
    rng = random.Random(k)
    # On PostgreSQL, where each read opens the store anew (~80 ms), 2 of the 6 cards
    # (and entity-lich), and the human form of the first only: the same code reads the same rows.
    sampled = 6 if store == "sqlite" else 2
    for n, card in enumerate(rng.sample(moved, min(sampled, len(moved))) + ["entity-lich"]):
        view = json.loads(ok(played.db, "--json", "card", card, "--at", str(k)))
        assert view["seq"] == k
        assert view["zone"] == expected.zone_of(card), f"{card} after seq {k}"
        container = expected.where[card]
        assert view["position"] == expected.cards_in(container).index(card)
        assert view["face"] == expected.face(card)
        assert view["exhausted"] == (card in expected.exhausted)
        assert view["attached_to"] == expected.host(card)
        assert view["states"] == card_states(campaign, card)
        assert view["history"] == [e.seq for e in played.events[:k] if card in touched_by(e)], card
        if store == "sqlite" or n == 0:
            human = ok(played.db, "card", card, "--at", str(k))
            assert f"after seq {k}" in human and card in human


def test_zones_at_k_through_the_real_command(played):
    result = run_ledger("--json", "zones", "--at", "21", db=played.db)
    assert result.returncode == 0, result.stderr
    view = json.loads(result.stdout)
    expected = fold_upto(played.events, 21)
    assert view["seq"] == 21
    assert {z: [e["id"] for e in entries] for z, entries in view["zones"].items()} == {
        z: expected.cards_in(z) for z in view["zones"]}


BAD_AT = [
    (["zones", "--at", "0"], (1,)),
    (["zones", "--at", "-4"], (1, 2)),
    (["zones", "--at", str(ACTIONS + 1)], (1,)),
    (["zones", "--at", "100000"], (1,)),
    (["zones", "--at", "seven"], (1, 2)),
    (["zones", "--at", "2.5"], (1, 2)),
    (["card", "item-sword", "--at", "0"], (1,)),
    (["card", "item-sword", "--at", str(ACTIONS + 1)], (1,)),
    (["card", "item-sword", "--at", "last"], (1, 2)),
]


@pytest.mark.parametrize("args,codes", BAD_AT, ids=[" ".join(a) for a, _ in BAD_AT])
def test_an_at_that_is_not_a_seq_of_the_campaign_is_refused_with_one_error_line(played, args, codes):
    for form in ([], ["--json"]):
        code, out, err = cli(played.db, *form, *args)
        assert code in codes, f"ledger {' '.join(args)} exited {code}: {out} {err}"
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) > 10, err
        assert "Traceback" not in out + err
        if code == 1:  # a refusal that says what was wrong: the seqs there are
            assert "unexpected" not in lines[0] and re.search(r"\bseq", lines[0]), lines[0]
            if form:
                assert json.loads(out)["error"]["code"] != "internal"
            else:
                assert out == ""


def test_an_at_beyond_the_last_seq_is_refused_through_the_real_command(played):
    result = run_ledger("zones", "--at", str(ACTIONS + 1), db=played.db)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(ACTIONS) in lines[0], result.stderr
    assert result.stdout == ""
