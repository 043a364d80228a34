"""Locations, battle and access levels (RULES.md §8): the places heroes travel to,
and how much of each discard pile a location lets a hero reach."""

from __future__ import annotations

from ..campaign import Campaign
from ..changes import Location
from ..errors import BadInput, RuleBroken, UnknownZone
from ..i18n import _
from ..states import effect_in_force, is_active
from ..vocabulary import check_location_id, check_suit
from .fair_play import has_an_effect


def known_location(campaign: Campaign, location: str) -> Location:
    """A location must exist in the campaign; returns it."""
    check_location_id(location)
    found = campaign.table.locations.get(location)
    if found is None:
        known = ", ".join(campaign.table.locations) or _("none yet; add one with location add")
        raise UnknownZone(_("no location {location} in this campaign (locations: {known})").format(
            location=repr(location), known=known))
    return found


def new_location(campaign: Campaign, location: str) -> None:
    """A location is added once."""
    if location in campaign.table.locations:
        raise RuleBroken(_("location {location} already exists").format(location=location))


def access_levels(access: dict[str, int]) -> dict[str, int]:
    """RULES.md §8: a location has an access level 0–3 for each deck (suit); returns
    them by suit."""
    levels = {}
    for suit, level in access.items():
        if not 0 <= level <= 3:
            raise BadInput(_("access for {suit} is {level}; access levels go from 0 to 3").format(
                suit=suit, level=level))
        levels[str(check_suit(suit))] = level
    return levels


def access_changes(place: Location, location: str, levels: dict[str, int]) -> None:
    """A correction of a location's access levels names some suit and changes something
    (nothing recorded for nothing)."""
    if not levels:
        raise BadInput(_("say which access levels to set, e.g. --access item=2"))
    if all(place.access.get(suit, 0) == level for suit, level in levels.items()):
        raise RuleBroken(_("location {location} has those access levels already ({levels})").format(
            location=location, levels=", ".join(f"{suit}={level}" for suit, level in levels.items())))


def not_already_at(campaign: Campaign, hero: str, location: str) -> None:
    """A hero travels only to a location they are not at."""
    if campaign.table.heroes[hero].location == location:
        others = [place for place in campaign.table.locations if place != location]
        raise RuleBroken((_("{hero} is already at {location}; the other locations: {others}") if others else
                          _("{hero} is already at {location}, the only location (add another with location add)"))
                         .format(hero=hero, location=location, others=", ".join(others)))


def battle_toggles(campaign: Campaign, on: bool) -> None:
    """RULES.md §8: a battle starts only when none is on, and ends only when one is on."""
    if campaign.table.battle == on:
        raise RuleBroken(_("a battle is already on; end it with battle end") if on
                         else _("no battle is on; start one with battle start"))


def has_access_effect(place: Location, location: str, suit: str) -> None:
    """Only an effect on a location's access that is recorded can be cleared."""
    if suit not in place.effects:
        raise RuleBroken(_("no effect changes the access for {suit} at {location}").format(
            suit=suit, location=location))


def effect_source_active(campaign: Campaign, card: str) -> None:
    """RULES.md §8: effects (an event card in the scenario, say) may modify a location's
    access level; such an effect comes from an active card (§7)."""
    campaign.card(card)
    if not is_active(campaign, card):
        raise RuleBroken(_("card {card} is not active (its effects are not available); an access effect comes from "
                           "an active card, such as a face-up event in the scenario").format(card=card))
    has_an_effect(campaign, card, search=False)


def effective_access(campaign: Campaign, location: str, suit: str) -> tuple[int, str]:
    """RULES.md §8: a location's access level for a suit, and why: an effect on the
    location sets it (during battle too) while its card is active (``effect_in_force``);
    otherwise a battle closes every discard pile (0); otherwise the location's own level
    (unlisted suits 0)."""
    place = campaign.table.locations[location]
    effect = place.effects.get(suit)
    if effect is not None and effect_in_force(campaign, effect.by):
        return effect.level, f"effect of {effect.by}"
    if campaign.table.battle:
        return 0, "battle"
    return place.access.get(suit, 0), "location"
