"""The game's vocabulary (RULES.md §1-2): zone ids, hero ids, suits and their groups."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import commands as c
from ledger.errors import BadInput, UnknownZone
from ledger.vocabulary import (
    RESERVED_NAMES,
    SHEET_SUITS,
    Role,
    Suit,
    Zone,
    check_hero_id,
)

# One zone id of every kind a campaign names (standard format and per-hero formats).
EVERY_KIND_OF_ZONE_ID = [
    ("box", "box", ()),
    ("deck:item", "deck", ("item",)),
    ("deck:companion:ana", "deck", ("companion", "ana")),
    ("discard", "discard", ()),
    ("discard:ana", "discard", ("ana",)),
    ("depot", "depot", ()),
    ("table:ana", "table", ("ana",)),
    ("inventory:bo", "inventory", ("bo",)),
    ("extra:hero-2", "extra", ("hero-2",)),
    ("scenario", "scenario", ()),
    ("limbo", "limbo", ()),
]

part = st.from_regex(r"[a-z0-9][a-z0-9_-]{0,63}", fullmatch=True)
zone_ids = st.builds(
    lambda kind, args: ":".join((kind, *args)),
    st.sampled_from([str(r) for r in Role]),
    st.lists(part, max_size=3),
)


# -- zone ids -----------------------------------------------------------------------
@pytest.mark.parametrize("text, kind, args", EVERY_KIND_OF_ZONE_ID)
def test_zone_parse_splits_role_and_args(text, kind, args):
    zone = Zone.parse(text)
    assert zone.role == kind
    assert zone.args == args
    assert zone == Zone(kind, args)


@pytest.mark.parametrize("text", [t for t, _, _ in EVERY_KIND_OF_ZONE_ID])
def test_zone_str_round_trips_for_every_kind_of_zone_id(text):
    assert str(Zone.parse(text)) == text
    assert Zone.parse(str(Zone.parse(text))) == Zone.parse(text)


@pytest.mark.parametrize("text", [t for t, _, _ in EVERY_KIND_OF_ZONE_ID])
def test_zone_repr_pastes_back(text):
    zone = Zone.parse(text)
    assert eval(repr(zone), {"Zone": Zone}) == zone


@settings(max_examples=200, deadline=None)
@given(zone_ids)
def test_generated_valid_zone_ids_round_trip_through_parse_str_and_repr(text):
    zone = Zone.parse(text)
    assert str(zone) == text
    assert zone.role in set(Role)
    assert eval(repr(zone), {"Zone": Zone}) == zone


@settings(max_examples=100, deadline=None)
@given(zone_ids, zone_ids)
def test_distinct_zone_ids_parse_to_distinct_zones(a, b):
    assert (Zone.parse(a) == Zone.parse(b)) == (a == b)


def test_zones_are_hashable_and_ordered():
    zones = {Zone.parse("deck:item"), Zone.parse("deck:item"), Zone.parse("discard")}
    assert len(zones) == 2
    assert sorted([Zone.parse("limbo"), Zone.parse("box")]) == [Zone.parse("box"), Zone.parse("limbo")]


MALFORMED_ZONE_IDS = [
    "",
    ":",
    "deck:",
    ":item",
    "deck::item",
    "Deck:item",
    "deck:Item",
    "deck item",
    "deck: item",
    "deck:item ",
    " deck:item",
    "deck:item\n",
    "-deck",
    "_discard",
    "deck:-item",
    "table:ana/../bo",
    "inventory:ana;drop",
    "deck:" + "x" * 65,
    "inventário:ana",
    "deck:item:",
]


@pytest.mark.parametrize("text", MALFORMED_ZONE_IDS)
def test_malformed_zone_id_is_refused_with_unknown_zone(text):
    with pytest.raises(UnknownZone) as info:
        Zone.parse(text)
    message = str(info.value)
    assert repr(text) in message
    assert "deck:item" in message  # shows what a zone id looks like


@pytest.mark.parametrize("value", [None, 3, b"deck:item", ("deck", "item")])
def test_non_string_zone_id_is_refused_with_unknown_zone(value):
    with pytest.raises(UnknownZone):
        Zone.parse(value)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=20))
def test_zone_parse_accepts_only_well_formed_ids(text):
    import re

    well_formed = all(re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", p) for p in text.split(":"))
    if well_formed:
        assert str(Zone.parse(text)) == text
    else:
        with pytest.raises(UnknownZone):
            Zone.parse(text)


def test_part_of_64_characters_is_the_longest_accepted():
    assert Zone.parse("deck:" + "x" * 64).args == ("x" * 64,)


# -- hero ids ------------------------------------------------------------------------
@pytest.mark.parametrize("hero", ["ana", "bo", "a", "7", "hero-2", "dona_maria", "a" * 32])
def test_well_formed_hero_id_is_accepted(hero):
    assert check_hero_id(hero) == hero


@pytest.mark.parametrize("hero", ["master", "referee", "public"])
def test_reserved_names_are_refused_as_hero_ids(hero):
    with pytest.raises(BadInput, match="reserved"):
        check_hero_id(hero)


def test_reserved_names_are_master_referee_and_public():
    assert RESERVED_NAMES == {"master", "referee", "public"}


@pytest.mark.parametrize(
    "hero",
    ["", "Ana", "ANA", "ana bo", " ana", "ana ", "ana\n", "-ana", "_ana", "a" * 33,
     "ana:bo", "table:ana", "ana.bo", "ána", "ana'; drop table", "ana/bo"],
)
def test_badly_shaped_hero_id_is_refused(hero):
    with pytest.raises(BadInput) as info:
        check_hero_id(hero)
    assert repr(hero) in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("hero", [None, 3, ["ana"]])
def test_non_string_hero_id_is_refused(hero):
    with pytest.raises(BadInput):
        check_hero_id(hero)


@settings(max_examples=100, deadline=None)
@given(st.from_regex(r"[a-z0-9][a-z0-9_-]{0,31}", fullmatch=True).filter(lambda h: h not in RESERVED_NAMES))
def test_every_valid_hero_id_makes_valid_zone_ids(hero):
    assert check_hero_id(hero) == hero
    for kind in ("table", "inventory", "extra", "discard"):
        assert Zone.parse(f"{kind}:{hero}").args == (hero,)


@pytest.mark.parametrize("hero", ["master", "Ana", "ana bo"])
def test_adding_a_hero_with_a_bad_id_is_refused_and_records_nothing(game, hero):
    game.refuse(c.AddHero(hero=hero), BadInput)
    assert hero not in game.table.heroes


# -- suits ---------------------------------------------------------------------------
def test_there_are_exactly_seven_suits():
    assert [str(s) for s in Suit] == ["house", "class", "entity", "item", "skill", "companion", "event"]


def test_sheet_suits_are_house_class_and_entity():
    assert SHEET_SUITS == {Suit.HOUSE, Suit.CLASS, Suit.ENTITY}
    assert {s for s in Suit if s.is_sheet} == {Suit("house"), Suit("class"), Suit("entity")}


def test_asset_suits_are_item_skill_companion_and_event():
    assert {s for s in Suit if s.is_asset} == {Suit("item"), Suit("skill"), Suit("companion"), Suit("event")}


@pytest.mark.parametrize("suit", list(Suit))
def test_every_suit_is_in_exactly_one_group(suit):
    assert suit.is_sheet != suit.is_asset


def test_suit_values_are_their_ids():
    assert Suit("companion") is Suit.COMPANION
    assert f"deck:{Suit.ITEM}" == "deck:item"
    with pytest.raises(ValueError):
        Suit("spell")


def test_zone_constructors_build_the_ids_parse_reads():
    assert Zone.inventory("ana") == "inventory:ana" == str(Zone("inventory", ("ana",)))
    assert Zone.table("bo") == "table:bo" and Zone.extra("bo") == "extra:bo"
    assert Zone.deck(Suit.ITEM) == "deck:item" == str(Zone.parse("deck:item"))
    assert Zone.hero_zones("ana") == ("table:ana", "inventory:ana", "extra:ana")
    assert (Zone.BOX, Zone.DISCARD, Zone.DEPOT, Zone.SCENARIO, Zone.LIMBO) == (
        "box", "discard", "depot", "scenario", "limbo")
