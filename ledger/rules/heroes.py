"""Heroes (RULES.md §1, §5): joining a campaign and changing knowledge."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import RuleBroken
from ..i18n import _
from ..rulesets import ruleset
from ..vocabulary import host_of


def new_hero(campaign: Campaign, hero: str) -> None:
    """RULES.md §1: a hero joins a campaign once."""
    if hero in campaign.table.heroes:
        raise RuleBroken(_("hero {hero} is already in this campaign").format(hero=hero))


def hero_zones_new(campaign: Campaign, hero: str) -> None:
    """RULES.md §3 (ruleset 15): the zones a format makes for each hero (``deck:{hero}``,
    ``{hero}``) are the new hero's own. A hero id that would name a zone the campaign has
    already (hero ``item`` and ``deck:{hero}``: ``deck:item``), or the place of the cards
    attached to a card (``on:{hero}`` and hero ``item-sword``), is refused: before, the
    hero's zone replaced the campaign's, so she looked through the item deck as her own
    and its suit was no longer checked."""
    if ruleset() < 15:
        return
    zones = campaign.zones()
    for zone, stack in campaign.format.hero_zones(hero).items():
        if host_of(zone) in campaign.catalog:  # on:CARD holds the cards attached to CARD
            raise RuleBroken(_("hero id {hero} would name {zone}, where the cards attached to {card} lie (the "
                               "format makes {stack} for each hero); pick another hero id").format(
                hero=repr(hero), zone=zone, card=host_of(zone), stack=stack))
        if zone in zones:
            raise RuleBroken(_("hero id {hero} would name {zone}, a zone this campaign has already (the format makes "
                               "{stack} for each hero); pick another hero id").format(
                hero=repr(hero), zone=zone, stack=stack))


def knowledge_changes(campaign: Campaign, hero: str, knowledge: int) -> None:
    """RULES.md §1 (CONHECIMENTO): a knowledge change must change the hero's knowledge."""
    if campaign.table.heroes[hero].knowledge == knowledge:
        raise RuleBroken(_("hero {hero}'s knowledge is already {knowledge}").format(hero=hero, knowledge=knowledge))
