"""Stacks as data (RULES.md §3): the standard campaign format's zones, and a format file
that gives each hero decks and a discard pile of their own."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger import commands as c
from ledger.errors import BadCatalog, NotAllowed, RuleBroken
from ledger.formats import load_format, standard_format
from ledger.vocabulary import Suit

from .conftest import Game

pytestmark = pytest.mark.both_stores

HEROES = ("ana", "bo")
SUITS = [str(s) for s in Suit]

PERSONAL_FORMAT = """\
name = "personal-decks"
discard_to = "discard:{owner}"
bury_to = "deck:{suit}:{owner}"

[[stacks]]
id = "deck:{suit}:{hero}"
kind = "deck"
visibility = "face-down"
ordered = true

[[stacks]]
id = "discard:{hero}"
kind = "pile"
visibility = "face-up"
use = "stack-scope"
affected = "owner"
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# -- the standard format ------------------------------------------------------------
def test_standard_format_has_exactly_the_zones_of_rules_section_3(game):
    expected = {"box", "discard", "depot", "scenario", "limbo"}
    expected |= {f"deck:{suit}" for suit in SUITS}
    expected |= {f"{kind}:{hero}" for kind in ("table", "inventory", "extra") for hero in HEROES}
    assert set(game.campaign.zones()) == expected


@pytest.mark.parametrize("suit", SUITS)
def test_standard_campaign_deck_is_face_down_ordered_and_unowned(game, suit):
    zone = game.campaign.zones()[f"deck:{suit}"]
    assert zone.kind == "deck" and zone.is_deck and zone.is_stack
    assert zone.visibility == "face-down"
    assert zone.ordered is True
    assert zone.owner is None
    assert zone.suit == suit
    assert zone.entry_face == "down"


@pytest.mark.parametrize("pile", ["discard", "depot"])
def test_standard_discard_and_depot_are_face_up_unordered_unowned_piles(game, pile):
    zone = game.campaign.zones()[pile]
    assert zone.kind == "pile" and zone.is_stack and not zone.is_deck
    assert zone.visibility == "face-up"
    assert zone.ordered is False
    assert zone.owner is None
    assert zone.entry_face == "up"


@pytest.mark.parametrize("hero", HEROES)
@pytest.mark.parametrize("kind", ["table", "inventory", "extra"])
def test_standard_hero_zones_are_owned_by_their_hero(game, kind, hero):
    zone = game.campaign.zones()[f"{kind}:{hero}"]
    assert zone.owner == hero
    assert not zone.is_stack
    assert zone.in_play


def test_standard_inventory_is_hidden_but_its_owner_may_look(game):
    zone = game.campaign.zones()["inventory:ana"]
    assert zone.kind == "hand"
    assert zone.visibility == "face-down-controller-may-look"


def test_standard_table_and_extra_zone_are_face_up_areas(game):
    zones = game.campaign.zones()
    for zid in ("table:ana", "extra:ana"):
        assert zones[zid].kind == "area" and zones[zid].visibility == "face-up"


@pytest.mark.parametrize("zid, kind", [("scenario", "area"), ("limbo", "limbo"), ("box", "box")])
def test_standard_shared_zones_have_no_owner(game, zid, kind):
    zone = game.campaign.zones()[zid]
    assert zone.kind == kind
    assert zone.owner is None
    assert not zone.is_stack


def test_scenario_is_in_play_but_limbo_and_box_are_not(game):
    zones = game.campaign.zones()
    assert zones["scenario"].in_play
    assert not zones["limbo"].in_play and not zones["box"].in_play


def test_standard_discard_and_bury_destinations(game):
    fmt = game.campaign.format
    assert fmt == standard_format()
    assert (fmt.discard_to, fmt.bury_to) == ("discard", "deck:{suit}")


def test_hero_zones_appear_when_a_hero_is_added(game):
    assert "table:cy" not in game.campaign.zones()
    game.do(c.AddHero(hero="cy"))
    zones = game.campaign.zones()
    assert {zones[z].owner for z in ("table:cy", "inventory:cy", "extra:cy")} == {"cy"}


def test_standard_discard_sends_an_inventory_card_to_the_campaign_discard(game):
    game.add("item-sword", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item"))
    game.do(c.Discard(actor="ana", cards=("item-sword",)))
    assert game.zone("item-sword") == "discard"


# -- a format with per-hero decks and discard piles ---------------------------------
@pytest.fixture
def personal_format(tmp_path):
    return load_format(write(tmp_path, "personal.toml", PERSONAL_FORMAT))


@pytest.fixture
def personal(app, sample_catalog, personal_format) -> Game:
    rec = app.start(sample_catalog, name="Personal", fmt=personal_format)
    g = Game(app, rec.campaign.id)
    g.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
    g.do(c.AddHero(hero="bo", name="Bo", knowledge=0))
    return g


def test_format_file_keeps_the_standard_stacks_and_its_settings(personal_format):
    assert personal_format.name == "personal-decks"
    assert personal_format.discard_to == "discard:{owner}"
    assert personal_format.bury_to == "deck:{suit}:{owner}"
    ids = [s.id for s in personal_format.stacks]
    assert ids[: len(standard_format().stacks)] == [s.id for s in standard_format().stacks]
    assert ids[-2:] == ["deck:{suit}:{hero}", "discard:{hero}"]


@pytest.mark.parametrize("hero", HEROES)
@pytest.mark.parametrize("suit", SUITS)
def test_per_hero_deck_exists_for_every_suit_owned_by_that_hero(personal, hero, suit):
    zone = personal.campaign.zones()[f"deck:{suit}:{hero}"]
    assert zone.owner == hero
    assert zone.kind == "deck" and zone.visibility == "face-down" and zone.ordered
    assert zone.suit == suit


@pytest.mark.parametrize("hero", HEROES)
def test_per_hero_discard_pile_exists_owned_by_that_hero(personal, hero):
    zone = personal.campaign.zones()[f"discard:{hero}"]
    assert zone.owner == hero
    assert zone.kind == "pile" and zone.visibility == "face-up" and not zone.ordered


def test_format_file_adds_to_the_standard_zones_without_removing_any(personal, game):
    standard = set(game.campaign.zones())
    extended = set(personal.campaign.zones())
    assert standard < extended
    added = {f"deck:{s}:{h}" for s in SUITS for h in HEROES} | {f"discard:{h}" for h in HEROES}
    assert extended - standard == added


def test_format_is_kept_when_the_campaign_is_reopened(personal, db_path):
    from ledger.application import Ledger

    fresh = Ledger.open(db_path)
    try:
        zones = fresh.campaign(personal.cid).zones()
        assert zones["discard:bo"].owner == "bo"
        assert fresh.campaign(personal.cid).format.discard_to == "discard:{owner}"
    finally:
        fresh.close()


def test_discard_from_a_heros_inventory_goes_to_that_heros_discard_pile(personal):
    personal.add("item-sword", to="deck:item:ana")
    personal.do(c.Draw(actor="ana", stack="deck:item:ana"))
    assert personal.zone("item-sword") == "inventory:ana"
    personal.do(c.Discard(actor="ana", cards=("item-sword",)))
    assert personal.zone("item-sword") == "discard:ana"
    assert personal.cards("discard") == []
    assert personal.cards("discard:bo") == []
    assert personal.table.face("item-sword") == "up"


def test_bury_from_a_heros_inventory_goes_to_the_bottom_of_that_heros_suit_deck(personal):
    personal.add("item-sword", "item-bow", to="deck:item:ana")
    personal.do(c.Draw(actor="ana", stack="deck:item:ana"))
    assert personal.cards("deck:item:ana") == ["item-bow"]
    personal.add("item-rope", to="deck:item:ana", position="top")
    personal.do(c.Bury(actor="ana", cards=("item-sword",)))
    assert personal.zone("item-sword") == "deck:item:ana"
    assert personal.cards("deck:item:ana") == ["item-rope", "item-bow", "item-sword"]
    assert personal.table.face("item-sword") == "down"
    assert "item-sword" not in personal.cards("deck:item")


def test_bury_follows_the_cards_suit_into_the_heros_deck(personal):
    personal.add("skill-fireball", to="deck:skill:bo")
    personal.do(c.Draw(actor="bo", stack="deck:skill:bo"))
    personal.do(c.Bury(actor="bo", cards=("skill-fireball",)))
    assert personal.cards("deck:skill:bo") == ["skill-fireball"]
    assert personal.cards("deck:skill:ana") == [] and personal.cards("deck:skill") == []


def test_hero_draws_from_their_own_deck(personal):
    personal.add("item-sword", to="deck:item:bo")
    personal.do(c.Draw(actor="bo", stack="deck:item:bo"))
    assert personal.zone("item-sword") == "inventory:bo"


def test_hero_may_not_draw_from_another_heros_deck(personal):
    personal.add("item-sword", to="deck:item:ana")
    err = personal.refuse(c.Draw(actor="bo", stack="deck:item:ana"), NotAllowed)
    assert "ana" in str(err)
    assert personal.zone("item-sword") == "deck:item:ana"


def test_hero_may_not_search_another_heros_discard_pile(personal):
    personal.add("item-sword", to="discard:ana")
    personal.refuse(c.Search(actor="bo", stack="discard:ana", take=("item-sword",)), NotAllowed)


def test_buries_where_allowed_a_hero_buries_into_their_own_deck_not_another_heros(personal):
    """Rule buries-where-allowed (§5): ana buries into her own deck (where bury puts her
    cards in this format), never into bo's, nor into another suit's; the master into any
    deck of the card's suit (ruleset 14: a deck holds one suit, a hero's own too)."""
    personal.add("item-sword", "item-bow", "item-rope", to="inventory:ana")
    for deck in ("deck:item:bo", "deck:skill:bo", "deck:skill"):
        message = str(personal.refuse(c.Bury(actor="ana", cards=("item-sword",), to=deck), NotAllowed))
        assert deck in message and "deck:item:ana" in message
    own_other_suit = str(personal.refuse(c.Bury(actor="ana", cards=("item-sword",), to="deck:skill:ana"), RuleBroken))
    assert "its own is deck:item:ana" in own_other_suit, own_other_suit  # a deck of her own, of another suit
    personal.do(c.Bury(actor="ana", cards=("item-sword",), to="deck:item:ana"))  # a deck of her own
    personal.do(c.Bury(actor="ana", cards=("item-bow",)))
    assert personal.zone("item-bow") == "deck:item:ana"
    personal.do(c.Bury(cards=("item-rope",), to="deck:item:bo"))  # the master
    assert personal.zone("item-rope") == "deck:item:bo"


def test_master_may_draw_from_a_heros_deck_for_them(personal):
    personal.add("item-sword", to="deck:item:ana")
    personal.do(c.Draw(stack="deck:item:ana", to="inventory:ana"))
    assert personal.zone("item-sword") == "inventory:ana"


@pytest.mark.parametrize("template, hero, taken", [
    ("deck:{hero}", "item", "deck:item"),
    ("{hero}", "discard", "discard"),
    ("{hero}", "depot", "depot"),
    ("{hero}", "limbo", "limbo"),
    ("{hero}", "scenario", "scenario"),
])
def test_hero_zones_new_a_hero_id_that_would_name_a_zone_of_the_campaign_is_refused(
        app, sample_catalog, tmp_path, template, hero, taken):
    """A QA pass: in a format with a stack per hero (deck:{hero}), hero "item" was added and
    her deck replaced the campaign's item deck, which she then looked through as her own.
    Ruleset 15 refuses the hero id (older campaigns decide as they were decided)."""
    from ledger.rulesets import decided_under

    text = f'name = "personal"\n{_stack(template, "deck", "face-down-controller-may-look", "ordered = true")}'
    fmt = load_format(write(tmp_path, "personal.toml", text))
    game = Game(app, app.start(sample_catalog, name="P", fmt=fmt).campaign.id)
    before = game.campaign.zones()[taken]
    err = str(game.refuse(c.AddHero(hero=hero, name="X"), RuleBroken))
    assert f"would name {taken}, a zone this campaign has already" in err and template in err, err
    assert game.campaign.zones()[taken] == before and before.owner is None
    game.do(c.AddHero(hero="ana", name="Ana"))  # another id is fine
    assert game.campaign.zones()[template.replace("{hero}", "ana")].owner == "ana"
    with decided_under(14):  # as recorded before ruleset 15
        game.do(c.AddHero(hero=hero, name="X"))
    assert game.campaign.zones()[taken].owner == hero


def test_hero_zones_new_a_hero_id_that_would_name_where_a_cards_attachments_lie_is_refused(app, sample_catalog,
                                                                                         tmp_path):
    """A review: with a format's stack on:{hero}, hero "item-sword" got the zone where the
    cards attached to item-sword lie (a card attached to it showed twice)."""
    fmt = load_format(write(tmp_path, "on.toml", f'name = "on"\n{_stack("on:{hero}", "area", "face-up")}'))
    game = Game(app, app.start(sample_catalog, name="On", fmt=fmt).campaign.id)
    err = str(game.refuse(c.AddHero(hero="item-sword", name="X"), RuleBroken))
    assert "would name on:item-sword, where the cards attached to item-sword lie" in err, err
    game.do(c.AddHero(hero="ana", name="Ana"))  # no card's id: a zone of her own


# -- bad format files ---------------------------------------------------------------
def _stack(zid: str, kind: str, visibility: str, extra: str = "") -> str:
    return f'[[stacks]]\nid = "{zid}"\nkind = "{kind}"\nvisibility = "{visibility}"\n{extra}'


BAD_FORMATS = [
    ("deck-declared-face-up", _stack("deck:{suit}:{hero}", "deck", "face-up"), ["visibility"]),
    ("pile-declared-face-down", _stack("discard:{hero}", "pile", "face-down"), ["visibility"]),
    ("pile-declared-controller-may-look", _stack("discard:{hero}", "pile", "face-down-controller-may-look"), ["visibility"]),
    ("unknown-kind", _stack("discard:{hero}", "heap", "face-up"), ["kind"]),
    ("unknown-visibility", _stack("discard:{hero}", "pile", "sideways"), ["visibility"]),
    ("unknown-setting", _stack("discard:{hero}", "pile", "face-up", "colour = 'red'\n"), ["colour"]),
    ("malformed-stack-id", _stack("Discard Pile", "pile", "face-up"), ["Discard Pile"]),
    ("clash-with-standard-discard", _stack("discard", "pile", "face-up"), ["discard"]),
    ("clash-with-standard-deck-template", _stack("deck:{suit}", "deck", "face-down"), ["deck:{suit}"]),
    ("clash-with-a-standard-deck", _stack("deck:item", "pile", "face-up"), ["deck:item"]),
    ("clash-with-hero-inventory", _stack("inventory:{hero}", "area", "face-up"), ["inventory"]),
    ("stack-named-twice", _stack("discard:{hero}", "pile", "face-up") + "\n" + _stack("discard:{hero}", "pile",
                                                                                          "face-up"), ["discard:{hero}"]),
    ("unknown-placeholder", 'discard_to = "discard:{foo}"\n', ["discard_to", "{foo}", "{suit}", "{owner}"]),
    ("unbalanced-brace", 'bury_to = "deck:{suit"\n', ["bury_to", "deck:{suit"]),
    ("discard-to-names-no-zone", 'discard_to = "discard:{owner}"\n', ["discard_to", "names no zone"]),
    ("bury-to-names-no-zone", 'bury_to = "deck:nowhere"\n', ["bury_to", "deck:nowhere"]),
    ("invalid-toml", 'name = "broken\n[[stacks]\n', ["not valid TOML"]),
    ("unknown-top-level-key", 'colour = "red"\n', ["colour"]),
]


@pytest.mark.parametrize("text, must_name", [pytest.param(t, m, id=n) for n, t, m in BAD_FORMATS])
def test_bad_format_file_is_refused_in_one_line_naming_the_file(tmp_path, text, must_name):
    path = write(tmp_path, "bad-format.toml", text)
    with pytest.raises(BadCatalog) as info:
        load_format(path)
    message = str(info.value)
    assert "\n" not in message, f"message spans several lines: {message!r}"
    assert message.count(str(path)) == 1, f"message does not name the file once: {message!r}"
    for part in must_name:
        assert part in message, f"{part!r} not in {message!r}"


def test_a_format_file_saved_with_a_byte_order_mark_loads(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + PERSONAL_FORMAT.encode("utf-8"))
    assert load_format(path).name == "personal-decks"


def test_missing_format_file_is_refused_naming_the_file(tmp_path):
    path = tmp_path / "absent.toml"
    with pytest.raises(BadCatalog, match="no such format file") as info:
        load_format(path)
    assert str(path) in str(info.value)


def test_format_file_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'name = "Forma\xe7\xe3o"\n')
    with pytest.raises(BadCatalog, match="not UTF-8 text") as info:
        load_format(path)
    assert str(path) in str(info.value)


# -- decks a hero may look through ----------------------------------------------------
@pytest.fixture
def looking(app, sample_catalog, tmp_path) -> Game:
    """Per-hero decks whose owner may look through them (``face-down-controller-may-look``)."""
    text = PERSONAL_FORMAT.replace('visibility = "face-down"\nordered = true',
                                   'visibility = "face-down-controller-may-look"\nordered = true')
    assert text != PERSONAL_FORMAT
    rec = app.start(sample_catalog, name="Looking", fmt=load_format(write(tmp_path, "looking.toml", text)))
    g = Game(app, rec.campaign.id)
    g.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
    g.do(c.AddHero(hero="bo", name="Bo", knowledge=0))
    return g


@pytest.mark.parametrize("command", [
    c.Send(actor="ana", cards=("item-rope",), to="inventory:ana"),
    c.Discard(actor="ana", cards=("item-rope",)),
    c.Exile(actor="ana", cards=("item-rope",)),
    c.Exhaust(actor="ana", cards=("item-rope",)),
    c.Send(actor="ana", cards=("item-rope",), to="deck:item:ana", position="top"),
], ids=["send-to-hand", "discard", "exile", "exhaust", "send-to-top"])
def test_controls_card_a_hero_takes_no_card_out_of_a_face_down_deck_by_name_even_their_own(looking, command):
    """Rule controls-card (§3, §4; ruleset 8): a deck keeps its order and is searched only
    by an effect, so a hero who may look through her own deck still takes its cards by
    drawing or by a search --by, never by naming one (a free search); the master may."""
    looking.add("item-sword", "item-bow", "item-rope", to="deck:item:ana")
    message = str(looking.refuse(command, NotAllowed))
    assert "item-rope" in message and "deck:item:ana" in message and "draw" in message
    looking.do(c.Draw(actor="ana", stack="deck:item:ana"))  # from the top, as a draw takes it
    assert looking.zone("item-sword") == "inventory:ana"
    looking.do(c.Send(cards=("item-rope",), to="inventory:ana"))  # the master
    assert looking.zone("item-rope") == "inventory:ana"


@pytest.mark.parametrize("position", ["top", 1, "bottom"])
def test_sends_to_own_zone_a_hero_puts_no_card_she_names_into_a_face_down_deck_at_a_place_she_picks(looking, position):
    """Rule sends-to-own-zone (§3; ruleset 8): a hero's own face-down deck is no zone she
    stacks: a card she names goes into it by bury, where bury puts it (its bottom); a draw
    into it moves a card nobody saw; the master may put a card anywhere."""
    looking.add("item-bow", to="deck:item")
    looking.add("item-rope", "item-torch", to="deck:item:ana")
    looking.add("item-sword", to="inventory:ana")
    command = c.Send(actor="ana", cards=("item-sword",), to="deck:item:ana", position=position)
    message = str(looking.refuse(command, NotAllowed))
    assert "deck:item:ana" in message and "bury" in message
    looking.do(c.Bury(actor="ana", cards=("item-sword",), to="deck:item:ana"))
    assert looking.cards("deck:item:ana") == ["item-rope", "item-torch", "item-sword"]
    looking.do(c.Draw(actor="ana", stack="deck:item", to="deck:item:ana"))
    assert looking.zone("item-bow") == "deck:item:ana"
    looking.add("item-potion", to="inventory:ana")
    looking.do(c.Send(cards=("item-potion",), to="deck:item:ana", position="top"))  # the master
    assert looking.cards("deck:item:ana")[0] == "item-potion"


def test_shuffles_unseen_order_a_hero_does_not_shuffle_her_own_deck_she_may_look_through(looking):
    """Rule shuffles-unseen-order (§9; ruleset 10): shuffling a deck she may look through,
    looking, and shuffling again until the order suits her would be picking it, one
    recorded shuffle at a time (and a search that takes nothing — named nothing, or only
    cards that are elsewhere — is such a shuffle, as is one that puts the card it takes
    straight back); the master shuffles it. A search that takes a card still reshuffles it;
    a deck she cannot look through she shuffles as before."""
    looking.add("item-sword", "item-bow", "item-rope", to="deck:item:ana")
    message = str(looking.refuse(c.Shuffle(actor="ana", stack="deck:item:ana"), NotAllowed))
    assert "deck:item:ana" in message and "master" in message
    looking.add("item-staff", to="inventory:ana")
    looking.do(c.Reveal(cards=("item-staff",)))  # active, hers: an effect that lets her search
    searching = c.Search(actor="ana", stack="deck:item:ana", by="item-staff")  # taking nothing: only a shuffle
    assert str(looking.refuse(searching, NotAllowed)) == message
    looking.add("item-spear", to="inventory:bo")  # hidden from her: named, it is missed, and nothing is taken
    missing = c.Search(actor="ana", stack="deck:item:ana", by="item-staff", take=("item-spear",))
    assert str(looking.refuse(missing, NotAllowed)) == message
    back = c.Search(actor="ana", stack="deck:item:ana", by="item-staff", take=("item-bow",), to="deck:item:ana")
    assert "bury" in str(looking.refuse(back, NotAllowed))  # straight back in, the deck reshuffled: refused too
    looking.do(c.Search(actor="ana", stack="deck:item:ana", by="item-staff", take=("item-bow",)))  # takes one
    looking.do(c.Shuffle(stack="deck:item:ana"))  # the master
    looking.add("item-axe", "item-shield", to="deck:item")
    looking.do(c.Shuffle(actor="ana", stack="deck:item", by="item-staff"))  # a campaign deck: by an effect


@pytest.mark.parametrize("shuffling", [
    c.Search(actor="ana", stack="deck:item:ana", by="item-staff", take=("item-helm",)),
], ids=["search-reshuffle"])
def test_left_nothing_to_chance_a_hero_takes_back_no_shuffle_whose_new_order_she_could_look_at(looking, shuffling):
    """Rule left-nothing-to-chance (§9; ruleset 9): a hero who may look through her own
    deck saw the order a search's reshuffle left it in (and, under ruleset 9, a shuffle of
    it); taking it back and searching again until the order suits her would be picking
    it. A shuffle of a deck she cannot look through she may take back (she saw nothing),
    and the master may take back either."""
    # ten cards: under ruleset 9 a shuffle that left five as they were (1 in 120) recorded no
    # new order, and there was then nothing to refuse
    looking.add("item-sword", "item-bow", "item-rope", "item-torch", "item-potion", "item-spear", "item-helm",
                "item-old-map", "item-amulet", "item-dagger", to="deck:item:ana")
    looking.add("item-staff", to="inventory:ana")
    looking.do(c.Reveal(cards=("item-staff",)))  # revealed in her inventory: active, hers
    before = looking.cards("deck:item:ana")
    done = looking.do(shuffling)
    message = str(looking.refuse(c.Undo(actor="ana"), NotAllowed))
    assert f"seq {done.seq}" in message and "deck:item:ana" in message and "master" in message
    looking.do(c.Undo())  # the master
    assert looking.cards("deck:item:ana") == before
    looking.add("item-axe", "item-shield", to="deck:item")  # the campaign's deck: nobody looks through it
    looking.do(c.Shuffle(actor="ana", stack="deck:item", by="item-staff"))
    looking.do(c.Undo(actor="ana"))
    assert looking.cards("deck:item") == ["item-axe", "item-shield"]


# -- ruleset 14 with decks of a hero's own: a refusal names no card she does not see ------------
def test_draws_into_its_suit_a_heros_draw_into_her_deck_of_another_suit_is_refused_by_the_decks_alone(personal):
    """A review: the suit of a drawn card was judged after it was drawn, and the refusal
    named the face-down top card (nothing recorded: as often as she liked). Now the two
    decks decide, before any card is drawn."""
    from ledger.errors import LedgerError

    personal.add("skill-dodge", "skill-stealth", "skill-tracking", to="deck:skill")
    err = str(personal.refuse(c.Draw(actor="ana", stack="deck:skill", to="deck:item:ana"), LedgerError))
    assert "deck:skill" in err and "deck:item:ana" in err and "skill-" not in err.replace("deck:skill", ""), err


@pytest.fixture
def unordered(app, sample_catalog, tmp_path):
    """The personal format with hero decks that keep no order (so a hero may search into hers)."""
    fmt = load_format(write(tmp_path, "u.toml", PERSONAL_FORMAT.replace("ordered = true\n", "")))
    game = Game(app, app.start(sample_catalog, name="U", fmt=fmt).campaign.id)
    game.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
    return game


def test_deck_holds_its_suit_a_heros_search_is_judged_by_the_catalog_before_it_looks(unordered):
    """A review: a search into her own deck of another suit was refused for a card it found
    and recorded (missed) for one it did not: a free probe of the deck. Now every card named
    is judged by its suit in the catalog, wherever it lies, before the search looks."""
    from ledger.errors import LedgerError

    unordered.add("skill-tracking", to="table:ana")
    unordered.add("skill-dodge", "skill-stealth", to="deck:skill")
    before = unordered.app.stored_event_count()
    for named in ("skill-dodge", "skill-fireball"):  # in the deck, and not
        err = unordered.refuse(c.Search(actor="ana", stack="deck:skill", take=(named,), to="deck:item:ana",
                                        by="skill-tracking"), LedgerError)
        assert f"card {named} is of suit skill" in str(err)
    assert unordered.app.stored_event_count() == before


def test_deck_holds_its_suit_a_format_that_buries_every_card_in_one_deck_still_buries(app, sample_catalog, tmp_path):
    """A review: a format whose bury_to names one deck ("deck:event") could bury nothing but
    events under ruleset 14, refused in words naming that very deck as the card's own."""
    fmt = load_format(write(tmp_path, "b.toml", 'name = "graveyard"\nbury_to = "deck:event"\n'))
    game = Game(app, app.start(sample_catalog, name="B", fmt=fmt).campaign.id)
    game.add("item-sword", to="discard")
    game.do(c.Bury(cards=("item-sword",)))
    assert game.zone("item-sword") == "deck:event"
