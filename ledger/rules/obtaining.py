"""Obtaining a sheet card by its mechanic (seed 000 "Restrição de Local"; RULES.md §8):
Progressão and Incorporação need a location that allows them, like trading, and the
same access rule (``trading.access_admits``) decides the card's level against it. Where
the card comes from and what it costs the seeds leave open: the master decides, the
ledger records it (README "Obtaining sheet cards")."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import BadInput, RuleBroken
from ..i18n import _
from ..terms import suit_word
from ..vocabulary import Zone


def obtains_sheet_only(campaign: Campaign, card: str) -> None:
    """Progression and incorporation obtain sheet cards (house, class, entity); asset cards
    are traded."""
    data = campaign.card(card)
    if not data.suit.is_sheet:
        raise RuleBroken(_("{card} is an asset card ({suit}); progression and incorporation obtain sheet cards (house, "
                           "class, entity); asset cards are traded (ledger trade)").format(
            card=card, suit=suit_word(data.suit)))


def obtained_from(campaign: Campaign, hero: str, card: str) -> str:
    """The card comes from where it lies now, the master's choice, but not from another
    hero's zones (that hero's card) nor from this hero's own (obtained already)."""
    zone = campaign.zone_of(card)
    if zone.owner == hero:
        raise RuleBroken(_("{card} is already in {zone}, {hero}'s own").format(card=card, zone=zone.id, hero=hero))
    if zone.owner is not None:
        raise RuleBroken(_("{card} is in {zone}, {owner}'s; a hero obtains a card nobody holds").format(
            card=card, zone=zone.id, owner=zone.owner))
    return zone.id


def obtained_to(campaign: Campaign, hero: str, to: str | None) -> str:
    """RULES.md §5: a sheet card lies on a table or in an extra zone: the hero's table
    unless their extra zone is named."""
    allowed = (Zone.table(hero), Zone.extra(hero))
    chosen = to or allowed[0]
    if chosen not in allowed:
        raise BadInput(_("--to {zone}: an obtained sheet card goes to {table} or {extra}").format(
            zone=chosen, table=allowed[0], extra=allowed[1]))
    campaign.zone(chosen)
    return chosen
