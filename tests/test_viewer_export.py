"""``ledger --as VIEWER export`` (issue 11): what one viewer may know of a campaign, as
JSON Lines (``projections.viewer_export``).

One small campaign hides cards in the ways the game hides them — face-down decks, a
seeded shuffle, the heroes' hands, a face-down card on a table, a search for a hero, a
draw that refills the deck from the depot, a bury, a seen draw undone (its deck shuffled
again) — and shows others (the depot, a reveal, a card on a table). Which cards each
viewer may never identify is known by construction; none of them may appear anywhere in
that viewer's export, which holds no seeds, orders, salts, hashes or recorded commands,
and whose every line is the view ``action_view`` gives that viewer of the action.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.visibility import can_identify
from projections.viewer_export import viewer_export, write_viewer_export
from projections.views import action_view

from .conftest import Game, one_error_line, run_ledger

CATALOG = load_catalog(sample_catalog_path())
NAMES = {card.id: tuple(n for n in (card.name, card.name_en, card.name_pt) if n) for card in CATALOG}
VIEWERS = ("public", "ana", "bo")

ITEMS = ("item-sword", "item-bow", "item-rope", "item-lantern")  # deck:item, top first
SKILLS = ("skill-dodge", "skill-stealth", "skill-first-aid", "skill-tracking")
COMPANIONS = ("companion-wolf", "companion-falcon", "companion-horse")
DEPOT = ("item-axe", "item-torch", "item-potion")  # face-up: everyone knows them
ADDED = {*ITEMS, *SKILLS, *COMPANIONS, *DEPOT}

# Card ids are lower-case words joined by '-': an id is found only as a whole token.
_ID_RE = re.compile(r"(?<![A-Za-z0-9_-])(" + "|".join(
    re.escape(i) for i in sorted(NAMES, key=len, reverse=True)) + r")(?![A-Za-z0-9_-])")


def play(game: Game) -> None:
    """The campaign (seqs 4 on; 1-3 are the start and the heroes ana and bo). Comments:
    who may identify what."""
    do = game.do
    game.add(*ITEMS, to="deck:item")                                        # 4 face-down deck
    game.add(*SKILLS, to="deck:skill")                                      # 5
    game.add(*COMPANIONS, to="deck:companion")                              # 6
    game.add(*DEPOT, to="depot")                                            # 7 face-up: everyone
    do(c.Shuffle(stack="deck:skill", seed=7))                               # 8 a seeded shuffle
    do(c.Draw(actor="ana", stack="deck:item", count=2))                     # 9 sword, bow: Ana's hand
    do(c.Draw(actor="bo", stack="deck:companion"))                          # 10 wolf: Bo's hand
    do(c.Search(stack="deck:skill", take=("skill-first-aid",), to="inventory:ana", seed=3))  # 11 for Ana
    do(c.Send(actor="ana", cards=("item-sword",), to="table:ana", face="down"))  # 12 face-down on her table
    do(c.Reveal(actor="ana", cards=("item-bow",)))                          # 13 everyone sees the bow
    do(c.Discard(actor="ana", cards=("item-bow",)))                         # 14
    do(c.Send(actor="bo", cards=("companion-wolf",), to="table:bo"))        # 15 face-up: everyone
    do(c.Draw(stack="deck:item", count=3, to="inventory:ana", seed=11))     # 16 rope, lantern, refill, one more
    do(c.Bury(actor="ana", cards=("item-lantern",)))                        # 17 back into the deck, unseen
    do(c.Draw(stack="deck:skill", to="inventory:bo"))                       # 18 a skill into Bo's hand
    do(c.Draw(actor="ana", stack="deck:companion"))                         # 19 the falcon: Ana saw it…
    do(c.Undo(seed=14))                                                     # 20 …back, deck shuffled again


def never_known(game: Game) -> dict[str, set[str]]:
    """By construction: the cards each viewer may never identify (every catalog card
    never added stays in the box, which is the referee's business only)."""
    bo_skill, = game.cards("inventory:bo")
    assert bo_skill in SKILLS and bo_skill != "skill-first-aid"
    box = set(NAMES) - ADDED
    ana_hand = {"item-sword", "item-rope", "item-lantern", "skill-first-aid"}
    unseen_skills = set(SKILLS) - {"skill-first-aid", bo_skill}
    return {
        "public": box | ana_hand | set(SKILLS) | {"companion-falcon", "companion-horse"},
        "ana": box | {bo_skill} | unseen_skills | {"companion-horse"},
        "bo": box | ana_hand | unseen_skills | {"companion-falcon", "companion-horse"},
    }


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    app = Ledger.open(tmp_path_factory.mktemp("viewer-export") / "campaign.db", create=True)
    game = Game(app, app.start(CATALOG, name="Segredos").campaign.id)
    game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
    game.do(c.AddHero(hero="bo", name="Bo", knowledge=0))
    play(game)
    assert app.last_seq(game.cid) == 20
    yield game
    app.close()


def export_lines(game: Game, viewer: str, **kw: Any) -> list[dict[str, Any]]:
    """The export as written (``write_viewer_export``), decoded line by line."""
    out = io.StringIO()
    count = write_viewer_export(game.app, game.cid, viewer, out, **kw)
    lines = [json.loads(text) for text in out.getvalue().splitlines()]
    assert count == len(lines) - 1
    return lines


def walk(value: Any):
    """Every dict inside a JSON document (the document itself included)."""
    if isinstance(value, dict):
        yield value
        for inner in value.values():
            yield from walk(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from walk(inner)


# -- the oracle is right ------------------------------------------------------------------------
def test_the_campaign_hides_what_it_means_to(played):
    """The by-construction sets agree with ``can_identify`` at every seq (else the leak
    search proves little), and the campaign hides cards in each way it means to."""
    at = {k: played.app.campaign(played.cid, at=k) for k in range(1, 21)}
    shown = {card for k in range(1, 21) for card in played.app.event(played.cid, k).shown_to_all()}
    for viewer, never in never_known(played).items():
        seen = {card for k, campaign in at.items() for card in NAMES if can_identify(campaign, viewer, card)}
        assert never == set(NAMES) - seen - shown, viewer
    referee = json.dumps([action_view(played.app.event(played.cid, k), at[k], "referee") for k in range(2, 21)])
    for viewer, never in never_known(played).items():
        assert never & ADDED <= set(_ID_RE.findall(referee)), "the hidden cards are in the log, for the search to miss"
    end = played.table
    assert end.zone_of("item-sword") == "table:ana" and end.face("item-sword") == "down"
    assert end.zone_of("item-lantern") == "deck:item" and end.zone_of("companion-falcon") == "deck:companion"
    assert played.app.event(played.cid, 16).refills and played.app.event(played.cid, 20).reshuffled_stacks


# -- hidden cards stay hidden -----------------------------------------------------------------------
@pytest.mark.parametrize("viewer", VIEWERS)
def test_no_card_the_viewer_may_never_identify_appears_in_their_export(played, viewer):
    out = io.StringIO()
    write_viewer_export(played.app, played.cid, viewer, out)
    text = out.getvalue()
    never = never_known(played)[viewer]
    assert not set(_ID_RE.findall(text)) & never
    assert not {card for card in never if any(name in text for name in NAMES[card])}, "a hidden card's catalog name"


def test_a_hero_sees_their_own_hand_in_their_export_and_nobody_elses(played):
    bo_skill, = played.cards("inventory:bo")
    ana_hand = {"item-sword", "item-rope", "item-lantern", "skill-first-aid"}
    found = {viewer: set(_ID_RE.findall(json.dumps(export_lines(played, viewer)))) for viewer in VIEWERS}
    assert ana_hand <= found["ana"] and bo_skill in found["bo"]
    assert not ana_hand & found["bo"] and bo_skill not in found["ana"]
    assert not (ana_hand | {bo_skill}) & found["public"]
    assert "companion-falcon" in found["ana"]  # she drew it, before the undo took it back


def test_the_export_names_no_card_of_the_box_and_no_catalog(played):
    """The start's catalog and format are not in it: every card id of the box would be."""
    first = export_lines(played, "public")[1]
    assert first["seq"] == 1 and first["action"] == "init"
    assert "catalog" not in first and "format" not in first


# -- no seeds, orders, salts, hashes or commands --------------------------------------------------------
FORBIDDEN_KEYS = {"rng", "seed", "command", "hash", "salt", "state_digest"}


@pytest.mark.parametrize("viewer", VIEWERS)
def test_no_seed_command_hash_or_salt_anywhere_in_a_viewer_export(played, viewer):
    for line in export_lines(played, viewer):
        for found in walk(line):
            assert not FORBIDDEN_KEYS & set(found), (line.get("seq"), found)


@pytest.mark.parametrize("viewer", VIEWERS)
def test_shuffles_and_reshuffles_show_only_their_stack_and_size(played, viewer):
    """No order list (StackReordered's ``was``/``now``) and no deck position: a shuffle
    (8), a search's reshuffle (11) and an undo's reshuffle (20) are a stack and a count."""
    lines = export_lines(played, viewer)
    orders = {}
    for line in lines[1:]:
        for move in line["changes"]:
            if move["kind"] == "order":
                assert set(move) == {"kind", "stack", "count"}, move
                orders[line["seq"]] = move
            elif move["kind"] == "card":
                assert set(move) == {"kind", "card", "from", "to", "face", "exhausted"}, move
    assert orders == {8: {"kind": "order", "stack": "deck:skill", "count": 4},
                      11: {"kind": "order", "stack": "deck:skill", "count": 3},
                      20: {"kind": "order", "stack": "deck:companion", "count": 2}}
    for seq in (8, 11, 16, 20):  # each committed a new order: the digest is public, the salt is not
        assert lines[seq]["commitments"] and all(set(x) == {"stack", "size", "digest"}
                                                 for x in lines[seq]["commitments"])


# -- the file: a header, then one line per action, the views the CLI shows ----------------------------
@pytest.mark.parametrize("viewer", VIEWERS)
def test_the_header_says_what_the_file_is_then_one_line_per_action_in_seq_order(played, viewer):
    lines = export_lines(played, viewer)
    assert set(lines[0]) == {"export"}
    head = lines[0]["export"]
    assert head["campaign"] == "segredos" and head["viewer"] == viewer and head["importable"] is False
    assert viewer in head["note"] and "referee" in head["note"]
    assert [line["seq"] for line in lines[1:]] == list(range(1, 21))
    assert all(list(line)[:4] == ["seq", "action", "type", "actor"] for line in lines[1:])


@pytest.mark.parametrize("viewer", VIEWERS)
def test_each_line_is_the_view_action_view_gives_the_viewer(played, viewer):
    lines = export_lines(played, viewer)[1:]
    for k, line in enumerate(lines, start=1):
        view = action_view(played.app.event(played.cid, k), played.app.campaign(played.cid, at=k), viewer)
        assert line == json.loads(json.dumps(view)), k
        assert {"seq", "type", "action", "actor", "timestamp", "summary", "changes", "commitments",
                "identified"} <= set(line)
        assert set(line["identified"]) <= {viewer}, "a viewer learns only their own share"


def test_the_referee_has_the_full_export_not_this_one(played):
    for referee in ("referee", "master"):
        with pytest.raises(ValueError, match="referee"):
            next(viewer_export(played.app, played.cid, referee))


def test_a_viewer_export_cannot_be_imported(played, tmp_path):
    """``ledger import`` refuses it (the ledger command, in this process), and writes nothing."""
    path = tmp_path / "public.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_viewer_export(played.app, played.cid, "public", out)
    refused = run_ledger("import", str(path), "--db", str(tmp_path / "copy.db"))
    line = one_error_line(refused)
    assert "unexpected failure" not in line and str(path) in line, line  # refused as a file, not a crash
    assert not (tmp_path / "copy.db").exists()


@pytest.mark.parametrize("claimed", ["referee", "master", "x" * 300, 7])
def test_a_viewer_export_whose_header_was_edited_to_claim_another_viewer_is_refused_as_a_viewers(played, tmp_path,
                                                                                                  claimed):
    """A QA pass: a viewer's export whose header was edited to say ``"viewer": "referee"`` was
    refused (right) as "what referee may know of the campaign (hidden cards left out)"."""
    import json

    path = tmp_path / "edited.jsonl"
    with path.open("w", encoding="utf-8") as out:
        write_viewer_export(played.app, played.cid, "public", out)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["export"].update(viewer=claimed, importable=True)
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    line = one_error_line(run_ledger("import", str(path), "--db", str(tmp_path / "copy.db")))
    assert "it is what a viewer may know of the campaign" in line, line
    assert not (tmp_path / "copy.db").exists()


# -- streaming ---------------------------------------------------------------------------------------------
class CountingLog:
    """The ledger as an ``EventLog``, counting how it is read."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.recorder, self.mapper, self.factory = ledger.recorder, ledger.mapper, ledger.factory
        self.pages: list[tuple[int | None, int | None, int]] = []
        self.loads = 0

    def project(self, campaign, events):
        return self.ledger.project(campaign, events)

    def actions(self, cid, gt=None, lte=None):
        found = self.ledger.actions(cid, gt=gt, lte=lte)
        self.pages.append((gt, lte, len(found)))
        return found

    def campaign(self, cid, at=None):
        self.loads += 1
        return self.ledger.campaign(cid, at=at)

    def event(self, cid, seq):
        self.loads += 1
        return self.ledger.event(cid, seq)


def test_the_export_reads_the_log_page_by_page_and_folds_it_once(played):
    """Bounded pages through the protocol, and no campaign loaded (a replay) or event
    read one by one per action: one fold forward, the same lines whatever the page size."""
    log = CountingLog(played.app)
    small = list(viewer_export(log, played.cid, "ana", page=6))
    assert log.pages == [(0, 6, 6), (6, 12, 6), (12, 18, 6), (18, 24, 2), (20, 26, 0)]
    assert log.loads == 0
    assert small == list(viewer_export(played.app, played.cid, "ana"))


def test_the_export_streams_lazily(played):
    """A generator: the first page is read only when the first line is asked for, and
    the later pages only as the lines reach them."""
    log = CountingLog(played.app)
    lines = viewer_export(log, played.cid, "public", page=5)
    assert log.pages == []
    assert next(lines)["export"]["campaign"] == "segredos"
    assert len(log.pages) == 1
    for _ in range(5):
        next(lines)
    assert len(log.pages) == 1
    next(lines)
    assert len(log.pages) == 2


def test_the_export_touches_nothing_the_caller_holds(played):
    live = played.app.campaign(played.cid)
    before = (live.version, live.table.to_dict(), live.live_head, list(live.redo_stack), live.last_hash)
    list(viewer_export(played.app, played.cid, "bo"))
    assert played.app.campaign(played.cid) is live
    assert (live.version, live.table.to_dict(), live.live_head, list(live.redo_stack), live.last_hash) == before


# -- a refill's order ----------------------------------------------------------------------------------------
def _refilling_draw(path: Path, seed: int) -> tuple[list[str], dict[str, Any]]:
    """A master's draw of one card for Ana from an empty deck, refilled from five depot
    cards with ``seed``: the deck's new order (top first) and the public's line for it."""
    app = Ledger.open(path, create=True)
    try:
        game = Game(app, app.start(CATALOG, name="Refill").campaign.id)
        game.do(c.AddHero(hero="ana", knowledge=1))
        game.add("item-axe", "item-torch", "item-potion", "item-rope", "item-helm", to="depot")
        rec = game.do(c.Draw(stack="deck:item", to="inventory:ana", seed=seed))
        order = [*rec.event.cards, *game.cards("deck:item")]
        line = export_lines(game, "public")[-1]
    finally:
        app.close()
    return order, line


def test_the_public_line_of_a_refilling_draw_does_not_depend_on_the_shuffle(tmp_path):
    """Everyone saw the five depot cards go into the deck; nobody but the referee (and
    Ana, for her card) may know their new order or which one Ana drew. So the public's
    line must be the same whatever order the refill's shuffle gave (but its time and
    the digest of the committed order, which the summary quotes too)."""
    first, one = _refilling_draw(tmp_path / "a.db", seed=1)
    second, two = _refilling_draw(tmp_path / "b.db", seed=3)
    assert first != second and first[0] != second[0], "the seeds must give different orders"
    for line in (one, two):
        line.pop("timestamp")
        line.pop("commitments")
        line["summary"] = re.sub(r"committed: [0-9a-f]+", "committed: DIGEST", line["summary"])
    assert one == two
