"""Obtaining a sheet card by its mechanic (seed 000 "Restrição de Local"; RULES.md §8):
Progressão and Incorporação need a location that allows them, like trading, and the
same access rule (``trading.access_admits``) decides the card's level against it. Where
the card comes from and what it costs the seeds leave open: the master decides, the
ledger records it (README "Obtaining sheet cards")."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import BadInput, RuleBroken
from ..vocabulary import Zone


def obtains_sheet_only(campaign: Campaign, card: str) -> None:
    """Progression and incorporation obtain sheet cards (house, class, entity); asset cards
    are traded."""
    data = campaign.card(card)
    if not data.suit.is_sheet:
        raise RuleBroken(f"{card} is an asset card ({data.suit}); progression and incorporation obtain sheet "
                         "cards (house, class, entity); asset cards are traded (ledger trade)")


def obtained_from(campaign: Campaign, hero: str, card: str) -> str:
    """The card comes from where it lies now, the master's choice, but not from another
    hero's zones (that hero's card) nor from this hero's own (obtained already)."""
    zone = campaign.zone_of(card)
    if zone.owner == hero:
        raise RuleBroken(f"{card} is already in {zone.id}, {hero}'s own")
    if zone.owner is not None:
        raise RuleBroken(f"{card} is in {zone.id}, {zone.owner}'s; a hero obtains a card nobody holds")
    return zone.id


def obtained_to(campaign: Campaign, hero: str, to: str | None) -> str:
    """RULES.md §5: a sheet card lies on a table or in an extra zone: the hero's table
    unless their extra zone is named."""
    allowed = (Zone.table(hero), Zone.extra(hero))
    chosen = to or allowed[0]
    if chosen not in allowed:
        raise BadInput(f"--to {chosen}: an obtained sheet card goes to {allowed[0]} or {allowed[1]}")
    campaign.zone(chosen)
    return chosen
