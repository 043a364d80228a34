"""Hidden cards stay hidden (RULES.md §9): "a hidden card's identity never reaches a
viewer who may not see it, in any output".

One campaign is played through the ``ledger`` command with cards hidden in every way
the game hides them: face-down deck cards, a deck refilled from the face-up depot and
drawn from in the same action, Ana's hand, Bo's hand, a face-down card on a table, a
searched card, buried cards, decks shuffled with the master's ``--seed``, a hero's shuffle
and refill with a seed from the system, a seen card undone back into its deck, which is
shuffled again. Then, for each viewer
(public, ana, bo), every read command is run, human and ``--json``, and no card id or
catalog name the viewer may not know may appear:

- ``zones --at k``: the cards the viewer cannot identify right after k
  (``can_identify(app.campaign(cid, at=k), viewer, card)``);
- ``history``, ``explain``, ``card``: the cards the viewer could identify at no seq of
  the campaign and that no action showed to everyone.

Every command runs the command's ``main`` in this process (the code ``python -m
ledger`` runs: ``cli``/``run_ledger`` of conftest), so that the few thousand reads
stay fast.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.rulebook import HERO_MAY, RULEBOOK
from ledger.visibility import can_identify

from .conftest import cli, copy_db, fresh_db, ok, run_ledger

pytestmark = pytest.mark.both_stores

SAMPLE = str(sample_catalog_path())
CATALOG = load_catalog(sample_catalog_path())
CATALOG_IDS = CATALOG.ids()
NAMES = {card.id: tuple(n for n in (card.name, card.name_en, card.name_pt) if n) for card in CATALOG}
"""Every name of each card, in every language (a view shows the one being spoken)."""
VIEWERS = ("public", "ana", "bo")
JOINS = {"public": 1, "ana": 2, "bo": 3}  # a hero is a viewer from the action that adds them

# Card ids are lower-case words joined by '-': an id is found only as a whole token.
_ID_RE = re.compile(
    r"(?<![A-Za-z0-9_-])(" + "|".join(re.escape(i) for i in sorted(CATALOG_IDS, key=len, reverse=True))
    + r")(?![A-Za-z0-9_-])"
)


def _name_re(names: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)(" + "|".join(map(re.escape, names)) + r")(?!\w)")


_NAME_RES = {card: _name_re(names) for card, names in NAMES.items()}

# The session, as typed at the table. Comments: what each action hides, and from whom.
SCRIPT: list[list[str]] = [
    ["init", "--catalog", SAMPLE, "--name", "Segredos"],                              # 1
    ["hero", "add", "ana", "--knowledge", "1"],                                       # 2
    ["hero", "add", "bo"],                                                            # 3
    ["add", "item-sword", "item-bow", "item-rope", "item-lantern", "--to", "deck:item"],  # 4 face-down deck
    ["add", "skill-dodge", "skill-stealth", "skill-first-aid", "skill-tracking", "skill-quick-strike",
     "--to", "deck:skill"],                                                           # 5
    ["add", "companion-wolf", "companion-falcon", "companion-horse", "companion-raven",
     "--to", "deck:companion"],                                                       # 6
    ["add", "item-axe", "item-torch", "item-potion", "--to", "depot"],                # 7 face-up: known to all
    ["shuffle", "deck:skill", "--seed", "7"],                                         # 8 a seeded shuffle
    ["--actor", "ana", "draw", "deck:item", "--count", "2"],                          # 9 sword, bow: Ana's hand
    ["--actor", "bo", "draw", "deck:companion", "--count", "2"],                      # 10 wolf, falcon: Bo's hand
    ["search", "deck:skill", "--take", "skill-first-aid", "--to", "inventory:ana", "--seed", "3"],  # 11 searched for Ana
    ["--actor", "ana", "send", "item-sword", "--to", "table:ana", "--face", "down"],  # 12 face-down on a table
    ["--actor", "bo", "send", "companion-falcon", "--to", "table:bo", "--face", "down"],  # 13
    ["--actor", "bo", "bury", "companion-wolf"],                                      # 14 buried from Bo's hand
    ["--actor", "ana", "draw", "deck:item", "--count", "3"],                          # 15 rope, lantern, refill, 1
    ["--actor", "ana", "reveal", "item-bow"],                                         # 16 everyone sees the bow
    ["--actor", "ana", "hide", "item-bow"],                                           # 17 …then no longer
    ["--actor", "bo", "draw", "deck:skill"],                                          # 18 a skill in Bo's hand
    ["add", "skill-fireball", "--to", "inventory:ana"],                               # 19 from the box to a hand
    ["--actor", "ana", "activate", "skill-fireball", "--target", "goblin"],           # 20 declared: shown to all
    ["add", "class-hunter", "--to", "table:bo"],                                      # 21 face-up: Bo shuffles and searches by it
    ["--actor", "bo", "shuffle", "deck:companion", "--by", "class-hunter"],           # 22 a hero's shuffle, by an effect (system seed)
    ["--actor", "ana", "discard", "item-rope"],                                       # 23 face-up in the discard
    ["discard", "--from", "deck:item"],                                               # 24 a refilled card, face-up
    ["--actor", "ana", "bury", "item-lantern"],                                       # 25 never seen by others
    ["add", "item-spear", "--to", "inventory:bo"],                                    # 26
    ["--actor", "bo", "attach", "item-spear", "--to", "companion-falcon"],            # 27 face-up on a hidden host
    ["draw", "deck:companion", "--to", "inventory:bo"],                               # 28 drawn for Bo, unseen by Ana
    ["add", "item-dagger", "--to", "inventory:ana"],                                  # 29
    ["--actor", "ana", "attach", "item-dagger", "--to", "item-sword"],                # 30 face-up on Ana's hidden card
    ["--actor", "bo", "draw", "deck:skill"],                                          # 31 into Bo's hand…
    ["undo", "--seed", "13"],                                                         # 32 …back on the deck, reshuffled
    ["add", "class-rogue", "--to", "table:ana"],                                      # 33 face-up: Ana searches by it
]
REFILL_DRAW = 15
UNDO_OF_A_SEEN_DRAW = 32
# A hero never chooses a seed: the ledger takes one from the system's secure random source
# (``secrets``). For these heroes' steps the session pins what that source gives, so that
# it plays the same on every run (seq -> the seed the system gives).
SYSTEM_SEEDS = {REFILL_DRAW: 11, 22: 5}


def system_seed(seed: int | None):
    """The system's random source giving ``seed`` to the action run inside (none pinned: as is)."""
    return nullcontext() if seed is None else mock.patch("ledger.play.secrets.randbits", return_value=seed)


# -- running the command in this process ---------------------------------------------------------
# -- the campaign ----------------------------------------------------------------------------------
@dataclass
class Played:
    db: Path | str
    last: int
    at: dict[int, Any]                      # seq -> campaign right after it
    events: dict[int, Any]                  # seq -> stored event
    action_json: dict[int, dict] = field(default_factory=dict)  # seq -> --json output of the action
    shown_to_all: set[str] = field(default_factory=set)
    store: str = "sqlite"

    def cards(self) -> list[str]:
        """The cards a sweep reads: every card of the catalog; on PostgreSQL (see ``sampled``)
        those that ever left the box (the others have no history and lie where they began)."""
        if self.store == "sqlite":
            return list(CATALOG_IDS)
        return [card for card in CATALOG_IDS if any(self.at[k].table.zone_of(card) != "box" for k in self.at)]

    def hidden_at(self, viewer: str, k: int) -> set[str]:
        return {card for card in CATALOG_IDS if not can_identify(self.at[k], viewer, card)}

    def never_known(self, viewer: str) -> set[str]:
        """Cards the viewer could identify at no seq, and that no action showed to everyone."""
        hidden = set(CATALOG_IDS)
        for k in range(1, self.last + 1):
            hidden &= self.hidden_at(viewer, k)
        return hidden - self.shown_to_all


@pytest.fixture(scope="module")
def played(store, tmp_path_factory) -> Iterator[Played]:
    with fresh_db(store, tmp_path_factory.mktemp("viewers")) as db:
        p = play(db)
        p.store = store
        yield p


def play(db: Path | str) -> Played:
    action_json: dict[int, dict] = {}
    for seq, args in enumerate(SCRIPT, start=1):
        with system_seed(SYSTEM_SEEDS.get(seq)):
            out = ok(db, "--json", *args)
        action_json[seq] = json.loads(out)
        assert action_json[seq]["seq"] == seq, f"step {seq} {args} recorded as {action_json[seq]['seq']}"
    app = Ledger.open(db)
    try:
        cid = app.resolve(None)
        last = app.last_seq(cid)
        assert last == len(SCRIPT)
        at = {k: app.campaign(cid, at=k) for k in range(1, last + 1)}
        events = {e.seq: e for e in app.actions(cid)}
    finally:
        app.close()
    shown = set()
    for event in events.values():
        shown.update(event.shown_to_all())
    p = Played(db=db, last=last, at=at, events=events, action_json=action_json, shown_to_all=shown)
    _check_the_script_hid_what_it_should(p)
    return p


def _check_the_script_hid_what_it_should(p: Played) -> None:
    """The session really hides cards in each of the ways it means to (else the sweep proves little)."""
    end = p.at[p.last].table
    assert {k: p.events[k].rng for k in SYSTEM_SEEDS} == SYSTEM_SEEDS, "the system seeds were not pinned"
    assert end.zone_of("item-sword") == "table:ana" and end.face("item-sword") == "down"
    assert end.zone_of("companion-falcon") == "table:bo" and end.face("companion-falcon") == "down"
    assert end.zone_of("skill-first-aid") == "inventory:ana"
    assert end.zone_of("companion-wolf") == "deck:companion"
    assert end.zone_of("item-lantern") == "deck:item"
    assert end.zone_of("skill-fireball") == "deck:skill"
    assert end.host("item-spear") == "companion-falcon" and end.face("item-spear") == "up"
    assert end.host("item-dagger") == "item-sword" and end.face("item-sword") == "down"
    assert p.events[UNDO_OF_A_SEEN_DRAW].reshuffled_stacks == ("deck:skill",)
    assert p.events[REFILL_DRAW].refills and p.events[REFILL_DRAW].refills[0].count == 3
    never_public = p.never_known("public")
    for card in ("item-sword", "item-lantern", "skill-first-aid", "companion-wolf", "companion-falcon",
                 "skill-dodge", "companion-horse"):
        assert card in never_public, card
    assert "item-bow" not in never_public and "skill-fireball" not in never_public
    assert "skill-first-aid" in p.never_known("bo") and "skill-first-aid" not in p.never_known("ana")
    assert "companion-wolf" in p.never_known("ana") and "companion-wolf" not in p.never_known("bo")


# -- finding leaks -----------------------------------------------------------------------------------
def leaks(output: str, forbidden: set[str], shown_name_of: str | None = None) -> set[str]:
    """The forbidden cards whose id or catalog name appears in ``output`` (JSON decoded
    too, so escaped names are found). ``shown_name_of``: a card whose own name the output
    may show (``card X`` names X), taken out before names are looked for."""
    texts = [output]
    try:
        texts.append(json.dumps(json.loads(output), ensure_ascii=False))
    except ValueError:
        pass
    found = set()
    for text in texts:
        found |= set(_ID_RE.findall(text)) & forbidden
        if shown_name_of is not None:
            for name in NAMES[shown_name_of]:
                text = text.replace(name, " ")
        found |= {card for card in forbidden if _NAME_RES[card].search(text)}
    return found


FORMS = ([], ["--json"])


def sampled(p: Played, viewer: str, argsets: list) -> tuple[list, tuple]:
    """What a sweep reads, and in which forms: everything, human and ``--json``, on SQLite.
    On PostgreSQL each read opens the store anew (~80 ms, four times SQLite's), and what
    it reads are the same rows, filtered by the same code: ``--json`` only, and every
    argument for ana (a hero with cards of her own hidden from the others), every fifth
    for the public and bo."""
    if p.store == "sqlite":
        return argsets, FORMS
    return (argsets if viewer == "ana" else argsets[::5]), (["--json"],)


def sweep(p: Played, viewer: str, argsets: list[tuple[list[str], set[str], str | None]]) -> list[str]:
    """Runs each read (human and --json: ``sampled``) as the viewer; returns a line per leak."""
    problems = []
    argsets, forms = sampled(p, viewer, argsets)
    for args, forbidden, own in argsets:
        for form in forms:
            full = ["--as", viewer, *form, *args]
            out = ok(p.db, *full)
            found = leaks(out, forbidden, own)
            if found:
                problems.append(f"ledger {' '.join(full)} shows {sorted(found)}")
    return problems


# -- the sweep: every read, every viewer ----------------------------------------------------------------
@pytest.mark.parametrize("viewer", VIEWERS)
def test_zones_now_and_at_every_seq_show_no_card_the_viewer_cannot_identify_then(played, viewer):
    argsets = [(["zones"], played.hidden_at(viewer, played.last), None)]
    argsets += [(["zones", "--at", str(k)], played.hidden_at(viewer, k), None)
                for k in range(JOINS[viewer], played.last + 1)]
    problems = sweep(played, viewer, argsets)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("viewer", VIEWERS)
def test_card_shows_no_card_the_viewer_could_never_identify(played, viewer):
    never = played.never_known(viewer)
    argsets = [(["card", card], never - {card}, card) for card in played.cards()]
    problems = sweep(played, viewer, argsets)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("viewer", VIEWERS)
def test_card_of_a_card_hidden_from_the_viewer_shows_no_place_or_state(played, viewer):
    hidden_now = played.hidden_at(viewer, played.last)
    assert hidden_now
    for card in sorted(hidden_now & set(played.cards())):
        view = json.loads(ok(played.db, "--as", viewer, "--json", "card", card))
        assert view["zone"] is None and view["position"] is None and view["states"] == [], (card, view)
        assert view["attached_to"] is None


@pytest.mark.parametrize("viewer", VIEWERS)
def test_history_whole_and_by_card_shows_no_card_the_viewer_could_never_identify(played, viewer):
    never = played.never_known(viewer)
    argsets = [(["history"], never, None)]
    argsets += [(["history", "--card", card], never, None) for card in played.cards()]
    problems = sweep(played, viewer, argsets)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("viewer", VIEWERS)
def test_explain_of_every_action_shows_no_card_the_viewer_could_never_identify(played, viewer):
    never = played.never_known(viewer)
    argsets = [(["explain", str(k)], never, None) for k in range(JOINS[viewer], played.last + 1)]
    problems = sweep(played, viewer, argsets)
    assert not problems, "\n".join(problems)


def test_the_referee_sees_every_card_the_others_may_not(played):
    """The sweep's counterpart: the hidden ids really are in the referee's outputs, so
    the leak search above is looking at the right text."""
    zones = ok(played.db, "zones")
    history = ok(played.db, "--json", "history")
    for card in ("item-sword", "item-lantern", "skill-first-aid", "companion-wolf", "companion-falcon"):
        assert leaks(zones + history, {card}), card
    assert leaks(ok(played.db, "--json", "explain", str(REFILL_DRAW)), set(played.events[REFILL_DRAW].cards))


# -- actions performed by a hero ---------------------------------------------------------------------
def seeds_in(value: Any, path: str = "") -> list[str]:
    """Where a JSON document carries a seed (a ``seed`` or ``rng`` key with a value)."""
    found = []
    if isinstance(value, dict):
        for key, inner in value.items():
            if key in ("seed", "rng") and inner is not None:
                found.append(f"{path}.{key}={inner}")
            found += seeds_in(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found += seeds_in(inner, f"{path}[{i}]")
    return found


def test_the_json_of_an_action_by_a_hero_names_no_card_that_hero_cannot_see(played):
    problems = []
    for seq, args in enumerate(SCRIPT, start=1):
        if args[:1] != ["--actor"]:
            continue
        hero = args[1]
        forbidden = (played.hidden_at(hero, seq - 1) & played.hidden_at(hero, seq)) \
            - set(played.events[seq].shown_to_all())
        found = leaks(json.dumps(played.action_json[seq]), forbidden)
        if found:
            problems.append(f"seq {seq} ({' '.join(args)}) shows {hero} {sorted(found)}")
    assert not problems, "\n".join(problems)


REAL_ACTIONS = [
    ("bo", ["draw", "deck:skill", "--count", "2"]),                   # cards he will see
    ("ana", ["shuffle", "deck:skill", "--by", "class-rogue"]),        # cards she will not see, given a new order
    ("ana", ["search", "deck:skill", "--take", "skill-dodge", "--by", "class-rogue"]),  # a deck she cannot see, reshuffled
]
REAL_ACTION_SEED = 1  # what the system's random source gives these actions (see SYSTEM_SEEDS)


@pytest.mark.parametrize("hero,args", REAL_ACTIONS, ids=[" ".join(a) for _, a in REAL_ACTIONS])
def test_a_heros_action_through_the_real_command_names_no_other_hidden_card(played, tmp_path, hero, args):
    db = copy_db(played.db, tmp_path)
    with system_seed(REAL_ACTION_SEED):  # the same new order on every run
        result = run_ledger("--actor", hero, "--json", *args, db=db)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["seq"] == played.last + 1
    app = Ledger.open(db)
    try:
        cid = app.resolve(None)
        before, after = app.campaign(cid, at=played.last), app.campaign(cid)
        event = app.event(cid, played.last + 1)
    finally:
        app.close()
    assert event.rng == REAL_ACTION_SEED, "the system seed was not pinned"
    forbidden = {card for card in CATALOG_IDS
                 if not can_identify(before, hero, card) and not can_identify(after, hero, card)}
    forbidden -= set(args)  # a card the hero named himself
    if hero == "ana":  # the stored event itself holds cards she cannot see: they must not reach her
        assert leaks(event.model_dump_json(), forbidden), "the case must involve cards the hero cannot see"
    found = leaks(result.stdout, forbidden)
    assert not found, f"{hero}'s {' '.join(args)} shows {sorted(found)}"
    if hero == "bo":
        assert leaks(result.stdout, set(event.cards)) == set(event.cards), "bo should see the cards he drew"


# The rulebook's own words, which explain quotes ("the refill's seed comes from the system"):
# they name no seed. Any other mention of a seed in a viewer's output is one.
RULE_WORDS = sorted({*HERO_MAY.values(), *(rule.text for rule in RULEBOOK)}, key=len, reverse=True)


def mentions_a_seed(output: str) -> bool:
    for words in RULE_WORDS:
        output = output.replace(words, " ")
    return re.search(r"seed|\brng\b", output, re.IGNORECASE) is not None


def test_seeds_are_shown_to_no_one_but_the_referee(played):
    """A seed (given with --seed or drawn by the ledger) and the public order of the depot
    would let anyone recompute where hidden cards went: only the referee sees seeds."""
    problems = []
    for seq, args in enumerate(SCRIPT, start=1):
        if args[:1] == ["--actor"]:
            found = seeds_in(played.action_json[seq])
            if found:
                problems.append(f"the --json output of seq {seq} ({' '.join(args)}) shows {args[1]} {found}")
    for viewer in VIEWERS:
        seqs, forms = sampled(played, viewer, list(range(JOINS[viewer], played.last + 1)))
        for seq in seqs:
            for form in forms:
                out = ok(played.db, "--as", viewer, *form, "explain", str(seq))
                if mentions_a_seed(out):
                    problems.append(f"explain {seq} as {viewer} {' '.join(form)} mentions a seed: {out.strip()[:300]}")
        history = ok(played.db, "--as", viewer, "--json", "history")
        if mentions_a_seed(history):
            problems.append(f"history as {viewer} mentions a seed")
    assert not problems, "\n".join(problems)
    # the referee, who reviews disputes, does see them
    assert "seed 7" in ok(played.db, "explain", "8")


# -- refusals --------------------------------------------------------------------------------------------
# (actor, arguments, the card whose zone the actor cannot see)
REFUSALS = [
    ("bo", ["send", "skill-first-aid", "--to", "inventory:bo"], "skill-first-aid"),
    ("bo", ["discard", "item-bow"], "item-bow"),
    ("bo", ["exhaust", "item-sword"], "item-sword"),
    ("bo", ["reveal", "item-sword"], "item-sword"),
    ("bo", ["detach", "item-bow"], "item-bow"),
    ("bo", ["search", "discard", "--take", "companion-raven", "--by", "class-hunter"], "companion-raven"),
    ("ana", ["exile", "companion-falcon"], "companion-falcon"),
    ("ana", ["activate", "companion-falcon"], "companion-falcon"),
    ("ana", ["trade", "ana", "--take", "companion-raven", "--give", "item-bow"], "companion-raven"),
    ("ana", ["attach", "companion-horse", "--to", "item-bow"], "companion-horse"),
    ("ana", ["send", "item-lantern", "--to", "table:ana"], "item-lantern"),
    ("ana", ["send", "house-north", "--to", "table:ana"], "house-north"),
    ("bo", ["activate", "skill-riposte"], "skill-riposte"),
    ("bo", ["bury", "entity-lich"], "entity-lich"),
]


@pytest.mark.parametrize("actor,args,card", REFUSALS, ids=[f"{a}-{' '.join(x)}" for a, x, _ in REFUSALS])
def test_a_refusal_for_a_hero_does_not_say_where_a_card_they_cannot_see_is(played, actor, args, card):
    end = played.at[played.last]
    assert not can_identify(end, actor, card), "the case must be about a card the hero cannot see"
    zone = end.table.zone_of(card)
    assert zone not in args
    zone_re = re.compile(r"(?<![\w:-])" + re.escape(zone) + r"(?![\w:-])")
    for form in ([], ["--json"]):
        code, out, err = cli(played.db, "--actor", actor, *form, *args)
        assert code == 1, f"{args} was not refused: {out} {err}"
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), err
        message = err + out
        assert not zone_re.search(message), f"the refusal tells {actor} that {card} is in {zone}: {lines[0]}"
    app = Ledger.open(played.db)
    try:
        assert app.last_seq(app.resolve(None)) == played.last
    finally:
        app.close()


def test_a_search_for_a_card_elsewhere_through_the_real_command_is_recorded_missed_and_says_not_where(played,
                                                                                                    tmp_path):
    """Ruleset 9 (searched-cards): bo's search of deck:skill for the card in ana's hand is
    no refusal (which told a hero, free, what a deck holds) but a search that missed it;
    nothing bo or the public reads says where it is, and the public not which card bo
    looked for. Bo's own history, explain and export name it as the reply to his command
    did (they said "a hidden card not found" of the card he had typed, and his export
    ``"missed": [null]``: found by QA passes)."""
    db = copy_db(played.db, tmp_path)
    result = run_ledger("--actor", "bo", "search", "deck:skill", "--take", "skill-first-aid", "--by", "class-hunter",
                        db=db)
    assert result.returncode == 0 and "skill-first-aid not found" in result.stdout, result.stderr
    assert "inventory:ana" not in result.stderr + result.stdout
    seq = json.loads(ok(db, "--json", "history", "--limit", "1"))[-1]["seq"]
    for viewer, named in (("public", False), ("bo", True)):
        for text, said in ((ok(db, "--as", viewer, "--json", "history", "--limit", "1"), "not found"),
                           (ok(db, "--as", viewer, "--json", "explain", str(seq)), "the search did not find")):
            assert said in text, (viewer, text)
            assert ("skill-first-aid" in text) is named and "inventory:ana" not in text, (viewer, text)
        line = json.loads(ok(db, "--as", viewer, "export").splitlines()[seq])  # after the header
        assert line["seq"] == seq and line["missed"] == ["skill-first-aid" if named else None], (viewer, line)
        assert ("skill-first-aid not found" in line["summary"]) is named, (viewer, line)


def test_a_hero_who_joins_later_reads_the_actions_before_as_the_public_does(played, tmp_path):
    """Found by a QA pass: each action records who saw it (``seen``, ``unnamed``) among the
    viewers of its day, so a hero added later was in none, and her history and card views
    read "a hidden card" where the public's named a card everyone had seen discarded. A
    hero sees at least what everyone sees: of the actions before she joined, exactly the
    public's view (a card the public may not be told of, such as which refilled card was
    drawn, stays untold to her too)."""
    db = copy_db(played.db, tmp_path)
    joined = json.loads(ok(db, "--json", "hero", "add", "cy"))["seq"]
    before = [r for r in json.loads(ok(db, "--as", "public", "--json", "history")) if r["seq"] < joined]
    assert before and any(card is not None for row in before for card in row["cards"])
    assert [r for r in json.loads(ok(db, "--as", "cy", "--json", "history")) if r["seq"] < joined] == before
    refilled = {ch.card for ch in played.events[REFILL_DRAW].changes if getattr(ch, "card", None)}
    for card in sorted({named for row in before for named in row["cards"] if named is not None} | refilled):
        views = {viewer: json.loads(ok(db, "--as", viewer, "--json", "card", card))["history"]
                 for viewer in ("public", "cy")}
        assert views["cy"] == views["public"], card
        rows = {viewer: json.loads(ok(db, "--as", viewer, "--json", "history", "--card", card))
                for viewer in ("public", "cy")}
        assert rows["cy"] == rows["public"], card


@pytest.mark.parametrize("lang,hidden", [("en", "hidden card"), ("pt", "carta oculta")])
def test_the_referees_history_names_every_card_in_every_language(played, lang, hidden):
    """Found by a review: the referee's history said again in another language (from the
    action) hid the cards the public may not be told of (a refilling draw's)."""
    rows = json.loads(ok(played.db, "--lang", lang, "--json", "history"))
    assert all(None not in row["cards"] for row in rows)
    assert not [row["summary"] for row in rows if hidden in row["summary"]]


# -- the witness rule ----------------------------------------------------------------------------------
def test_the_public_summary_of_a_draw_that_refilled_the_deck_names_no_drawn_card(played):
    drawn = set(played.events[REFILL_DRAW].cards)
    assert len(drawn) == 3
    rows = json.loads(ok(played.db, "--as", "public", "--json", "history"))
    row = next(r for r in rows if r["seq"] == REFILL_DRAW)
    assert not leaks(row["summary"], drawn), row["summary"]
    # The depot cards were all seen going into the deck: they may be listed, but alike,
    # so the list cannot tell which of them was drawn.
    depot_cards = {"item-axe", "item-torch", "item-potion"}
    listed = set(row["cards"]) & depot_cards
    assert listed in (set(), depot_cards), row["cards"]
    assert not set(row["cards"]) & (drawn - depot_cards), row["cards"]
    human = ok(played.db, "--as", "public", "history", "--from", str(REFILL_DRAW), "--to", str(REFILL_DRAW))
    assert str(REFILL_DRAW) in human and not leaks(human, drawn), human
    explained = ok(played.db, "--as", "public", "--json", "explain", str(REFILL_DRAW))
    assert not leaks(explained, drawn), explained
    # the depot cards that went into the deck were face-up: their move may be shown
    refilled = {ch.card for ch in played.events[REFILL_DRAW].changes
                if getattr(ch, "card", None) and ch.was.at == "depot"}
    assert len(refilled) == 3
    for card in refilled:
        for entry in json.loads(ok(played.db, "--as", "public", "--json", "history", "--card", card)):
            if entry["seq"] == REFILL_DRAW:
                assert not leaks(entry["summary"], drawn), entry


def test_the_public_cannot_tell_which_depot_cards_a_refilling_draw_took(played):
    """Everyone saw the three depot cards go into the deck; nobody but Ana knows which of
    them she drew. So every public output must treat the three alike at that seq: either
    each one's history shows the draw, or none does; the row names all or none of them."""
    event = played.events[REFILL_DRAW]
    refilled = sorted(ch.card for ch in event.changes if getattr(ch, "card", None) and ch.was.at == "depot")
    taken = sorted(set(refilled) & set(event.cards))
    assert taken and len(taken) < len(refilled), "the draw must take some but not all refilled cards"
    in_card = {card: REFILL_DRAW in json.loads(ok(played.db, "--as", "public", "--json", "card", card))["history"]
               for card in refilled}
    in_history = {card: any(r["seq"] == REFILL_DRAW for r in json.loads(
        ok(played.db, "--as", "public", "--json", "history", "--card", card))) for card in refilled}
    row = next(r for r in json.loads(ok(played.db, "--as", "public", "--json", "history"))
               if r["seq"] == REFILL_DRAW)
    named = {card: card in row["cards"] for card in refilled}
    assert len(set(in_card.values())) == 1, (
        f"card --as public lists seq {REFILL_DRAW} for {sorted(c for c, v in in_card.items() if v)} only: "
        f"the others ({taken}) are the ones Ana drew")
    assert len(set(in_history.values())) == 1, (
        f"history --card lists seq {REFILL_DRAW} for {sorted(c for c, v in in_history.items() if v)} only")
    assert len(set(named.values())) == 1, (
        f"the history row of seq {REFILL_DRAW} names {sorted(c for c, v in named.items() if v)} and hides "
        f"the others: {row['cards']}")


def test_the_order_of_a_history_row_gives_no_hint_about_its_hidden_cards(played):
    """Card ids are listed in a fixed order; a hidden card shown as null in the middle of
    that order would tell where its id sorts among the named ones (between item-potion and
    item-torch, say). The nulls of a row must not sit between named ids."""
    problems = []
    for viewer in VIEWERS:
        for row in json.loads(ok(played.db, "--as", viewer, "--json", "history")):
            marks = "".join("n" if card is None else "c" for card in row["cards"])
            if "cn" in marks and "nc" in marks:
                problems.append(f"as {viewer}, seq {row['seq']}: {row['cards']}")
    assert not problems, "\n".join(problems)


def test_a_heros_own_draw_into_a_deck_they_may_not_look_at_names_no_card_even_to_them(app, sample_catalog, tmp_path):
    """§9: a plain face-down deck stays unseen even by its owner. The actor's own view of an
    action identifies the cards they named, never the cards a draw turned up."""
    from ledger import commands as c
    from ledger.formats import load_format
    from projections.views import recorded_view

    fmt = tmp_path / "own-decks.toml"
    fmt.write_text('name = "own"\n[[stacks]]\nid = "deck:{hero}"\nkind = "deck"\nvisibility = "face-down"\n'
                   "ordered = true\n", encoding="utf-8")
    cid = app.start(sample_catalog, name="Own", fmt=load_format(fmt)).campaign.id
    app.execute(cid, c.AddHero(hero="ana"))
    app.execute(cid, c.Add(cards=("item-torch", "item-rope"), to="deck:item"))
    rec = app.execute(cid, c.Draw(actor="ana", stack="deck:item", to="deck:ana"))
    view = recorded_view(rec.event, rec.campaign, "ana", {})
    assert "item-torch" not in json.dumps(view), view["events"][0]["summary"]
    assert not can_identify(rec.campaign, "ana", "item-torch")


def test_a_hand_is_listed_to_others_without_the_order_its_cards_came_in(game):
    """RULES.md §9: a hand's order means nothing in the game, but it is the order its
    cards were drawn: bo, seeing ana reveal the second card she drew, must not learn from
    its place that it lay second in the deck. The referee and ana keep the order; anyone
    else gets the cards they may identify by id, then the hidden ones."""
    from projections.queries import card_view
    from projections.readmodel import ReadModel
    from projections.views import zones_view

    from .conftest import db_of

    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item", count=3))  # sword, bow, rope: in that order
    game.do(c.Reveal(actor="ana", cards=("item-rope",)))
    campaign = game.campaign
    hand = [entry["id"] for entry in zones_view(campaign, "referee")["zones"]["inventory:ana"]]
    assert hand == ["item-sword", "item-bow", "item-rope"]
    assert [e["id"] for e in zones_view(campaign, "ana")["zones"]["inventory:ana"]] == hand
    for viewer in ("public", "bo"):
        assert [e["id"] for e in zones_view(campaign, viewer)["zones"]["inventory:ana"]] == ["item-rope", None, None]
    model = ReadModel(game.app, db_of(game.app))
    try:
        model.catch_up()
        assert card_view(game.app, model, campaign, "referee", "item-rope")["position"] == 2
        assert card_view(game.app, model, campaign, "ana", "item-rope")["position"] == 2
        assert card_view(game.app, model, campaign, "bo", "item-rope")["position"] == 0
    finally:
        model.close()


@pytest.mark.parametrize("host", ["item-sword", "item-bow", "item-rope"])
def test_a_hands_hidden_cards_are_listed_by_what_hangs_from_them_not_in_the_order_they_came(game, host):
    """RULES.md §9: a card attached to a hidden card of ana's hand lies face-up for all to
    see; were the hidden cards listed in the order ana drew them, where that entry stands
    would tell bo which card of the draw it hangs from (and so what lay where in the deck).
    Whichever card it hangs from, bo's listing is the same."""
    from projections.views import zones_view

    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item", count=3))  # sword, bow, rope: in that order
    game.add("skill-tracking", to="table:ana")
    game.do(c.Attach(actor="ana", card="skill-tracking", host=host))
    assert game.campaign.table.host("skill-tracking") == host
    for viewer in ("public", "bo"):
        listed = zones_view(game.campaign, viewer)["zones"]["inventory:ana"]
        hidden = {"id": None, "face": "down"}
        assert listed == [hidden, hidden, {**hidden, "attached": ["skill-tracking"]}], (viewer, listed)


def test_an_access_effects_card_is_hidden_in_the_changes_too_when_the_viewer_may_not_identify_it(game):
    """An access effect names its card; the summary hid it from a viewer who may not
    identify it, but the location's change carried it whole in the view's changes."""
    from projections.views import recorded_view

    game.do(c.AddLocation(location="village", access={"skill": 1}))
    game.add("companion-wolf", to="table:bo")
    game.add("item-spear", to="table:bo")
    game.do(c.Attach(card="item-spear", host="companion-wolf"))
    game.do(c.Hide(cards=("item-spear",)))
    done = game.do(c.SetAccess(location="village", suit="skill", level=2, by="item-spear"))  # hidden, still active
    for viewer in ("public", "ana"):
        view = recorded_view(done.event, game.campaign, viewer, {})
        assert "item-spear" not in json.dumps(view), (viewer, view["events"][0]["changes"])
    assert "item-spear" in json.dumps(recorded_view(done.event, game.campaign, "referee", {}))


def test_a_redirect_of_a_hidden_card_names_no_placement_rule_to_those_who_may_not_identify_it(tmp_path):
    """Found by a QA pass: the master sends a face-down card to Ana's table and the
    asset-knowledge rule sends it to her inventory; Bo and the public read the rule's name
    and text ("an asset card goes on a table only if the hero's knowledge meets its
    requirement"), which with the public catalog narrowed the hidden card to two. They
    learn where it went, as they see it go, and not which rule sent it; Ana and the
    referee, who may identify it, read the rule."""
    from projections.views import action_view

    db = tmp_path / "demo.db"
    ok(db, "demo")
    ok(db, "add", "item-old-map", "--to", "deck:item")
    ok(db, "send", "item-old-map", "--to", "table:ana")
    rule = "asset-knowledge-placement"
    for viewer, told in (("bo", False), ("public", False), ("ana", True), ("referee", True)):
        history = json.loads(ok(db, "--as", viewer, "--json", "history", "--limit", "1"))
        explained = ok(db, "--as", viewer, "--json", "explain", str(history[-1]["seq"]))
        for shown in (history[-1]["summary"], explained):
            assert (rule in shown) is told and ("knowledge meets" in shown) is (told and shown is explained), \
                (viewer, shown)
            assert "inventory:ana" in shown, (viewer, shown)
    ledger = Ledger.open(db)
    try:
        cid = ledger.resolve(None)
        campaign = ledger.campaign(cid)
        event = ledger.event(cid, campaign.version)
        for viewer, told in (("bo", False), ("public", False), ("ana", True)):
            view = action_view(event, campaign, viewer)
            assert [r["rule"] for r in view["redirects"]] == [rule if told else None], (viewer, view["redirects"])
            assert (rule in json.dumps(view)) is told, viewer
    finally:
        ledger.close()


def test_where_the_master_put_a_card_in_a_face_down_deck_is_the_referees_alone(game):
    """Found by a QA pass: the master sends the torch, which everyone saw on the discard
    pile, to the third place of the face-down item deck; every hero's export, live stream
    and action reply carried the send's ``position``, so each knew the third card drawn
    would be the torch (history, card and explain said only "→ deck:item"). Deck positions
    are the referee's (only the master may put a card into a deck at a place); a face-up
    pile's order is everyone's."""
    from projections.summaries import stored_summary
    from projections.viewer_export import viewer_export
    from projections.views import action_view

    game.add("item-sword", "item-bow", "item-rope", "item-shield", to="deck:item")
    game.add("item-torch", "item-lantern", "item-potion", to="depot")
    game.do(c.Discard(cards=("item-torch", "item-lantern", "item-potion")))
    sent = game.do(c.Send(cards=("item-torch",), to="deck:item", position=3))
    assert game.table.cards_in("deck:item")[2] == "item-torch"
    for viewer in ("public", "ana", "bo"):
        view = action_view(sent.event, sent.campaign, viewer)
        assert view["cards"] == ["item-torch"] and view["to"] == "deck:item", viewer  # seen going in: not hidden
        assert view["position"] is None, (viewer, view)
        lines = [line for line in viewer_export(game.app, game.cid, viewer) if line.get("seq") == sent.event.seq]
        assert [line["position"] for line in lines] == [None], viewer
    assert action_view(sent.event, sent.campaign, "referee")["position"] == "3"
    added = game.add("item-axe", to="deck:item", position=2)
    assert action_view(added.event, added.campaign, "ana")["position"] is None
    # found by a review: nor the order cards named together went in (the next two draws here)
    game.add("item-amulet", "item-helm", to="depot")
    game.do(c.Discard(cards=("item-amulet", "item-helm")))
    pair = game.do(c.Send(cards=("item-helm", "item-amulet"), to="deck:item"))
    assert game.table.cards_in("deck:item")[:2] == ["item-helm", "item-amulet"]
    for viewer in ("public", "ana", "bo"):
        view = action_view(pair.event, pair.campaign, viewer)
        assert view["cards"] == ["item-amulet", "item-helm"], (viewer, view)
        assert "send item-amulet, item-helm → deck:item" in view["summary"], (viewer, view)
    referee = action_view(pair.event, pair.campaign, "referee")  # hers, and the stored summary, in the order named
    assert referee["cards"] == ["item-helm", "item-amulet"] and "send item-helm, item-amulet" in referee["summary"]
    assert stored_summary(pair.event).startswith("send item-helm, item-amulet → deck:item")
    # …nor a search's taken cards put into a deck (the master's: at its bottom, in the order named)
    game.add("item-dagger", "item-spear", to="depot")
    game.do(c.Discard(cards=("item-dagger", "item-spear")))
    taken = game.do(c.Search(stack="discard", take=("item-spear", "item-dagger"), to="deck:item"))
    view = action_view(taken.event, taken.campaign, "bo")
    assert view["taken"] == ["item-dagger", "item-spear"] and "take item-dagger, item-spear" in view["summary"], view
    game.add("item-staff", to="scenario")  # (a card already in the discard pile moved in it is nothing to do: ruleset 14)
    pile = game.do(c.Send(cards=("item-staff",), to="discard", position=2))  # a face-up pile: its order is public
    assert action_view(pile.event, pile.campaign, "bo")["position"] == "2"


def test_a_detach_names_to_its_actor_the_card_she_typed_never_a_host_she_cannot_see(tmp_path):
    """Found by a review: a hero's own view of an action names the cards she named, and a
    detach recorded its host among them, though she types only the card (the table says
    what it hangs from). Detaching her card from a face-down host in her vault named that
    host to her, in the reply and later in her history and explain."""
    fmt = tmp_path / "vault.toml"
    fmt.write_text('name = "vault"\n[[stacks]]\nid = "vault:{hero}"\nkind = "area"\nvisibility = "face-down"\n'
                   'use = "never"\naffected = "none"\n', encoding="utf-8")
    db = tmp_path / "v.db"
    ok(db, "init", "--catalog", str(sample_catalog_path()), "--format", str(fmt))
    ok(db, "hero", "add", "ana", "--knowledge", "3")
    ok(db, "add", "item-dagger", "--to", "vault:ana")
    ok(db, "add", "item-sword", "--to", "table:ana")
    ok(db, "attach", "item-sword", "--to", "item-dagger")
    assert "item-dagger" not in ok(db, "--as", "ana", "--json", "card", "item-dagger").replace(
        '"id": "item-dagger"', ""), "the host must be hidden from ana for this test"
    reply = ok(db, "--actor", "ana", "--json", "detach", "item-sword", "--to", "table:ana")
    seq = json.loads(reply)["seq"]
    history = ok(db, "--as", "ana", "--json", "history", "--limit", "1")
    explained = ok(db, "--as", "ana", "--json", "explain", str(seq))
    for shown in (reply, history, explained):
        assert "item-sword" in shown and "item-dagger" not in shown, shown
