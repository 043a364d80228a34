"""Heroes (RULES.md §1, §5): joining a campaign and changing knowledge."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import RuleBroken
from ..i18n import _


def new_hero(campaign: Campaign, hero: str) -> None:
    """RULES.md §1: a hero joins a campaign once."""
    if hero in campaign.table.heroes:
        raise RuleBroken(_("hero {hero} is already in this campaign").format(hero=hero))


def knowledge_changes(campaign: Campaign, hero: str, knowledge: int) -> None:
    """RULES.md §1 (CONHECIMENTO): a knowledge change must change the hero's knowledge."""
    if campaign.table.heroes[hero].knowledge == knowledge:
        raise RuleBroken(_("hero {hero}'s knowledge is already {knowledge}").format(hero=hero, knowledge=knowledge))
