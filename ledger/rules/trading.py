"""Trading with the discard pile (RULES.md §8): which cards trade, who gives what,
the location's access levels, and settling the values type by type."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import CardNotThere, RuleBroken
from ..formats import VALUE_UNITS
from ..visibility import can_identify, where_for
from ..vocabulary import Suit, Zone
from .locations import effective_access

TRADE_PILE = Zone.DISCARD  # the campaign discard pile: trades take cards from it


def trades_assets_only(campaign: Campaign, cards: tuple[str, ...]) -> None:
    """RULES.md §8: a hero trades asset cards; sheet cards never trade."""
    for card in cards:
        if campaign.card(card).suit.is_sheet:
            raise RuleBroken(f"{card} is a sheet card ({campaign.card(card).suit}); sheet cards never trade")


def controlled_by(campaign: Campaign, hero: str, card: str) -> bool:
    """RULES.md §6, §8: a hero controls the cards in their inventory, on their table and
    in their extra zone, and the cards attached to those."""
    zone = campaign.zone_of(card)
    return zone.owner == hero and zone.kind in ("hand", "area")


def gives_controlled(campaign: Campaign, actor: str, hero: str, cards: tuple[str, ...]) -> None:
    """RULES.md §8: the cards a hero gives are cards of their own: cards they control
    (and can see)."""
    for card in cards:
        if not controlled_by(campaign, hero, card) or not can_identify(campaign, hero, card):
            raise CardNotThere(
                f"{hero} does not control card {card} ({where_for(campaign, actor, card)}); a hero gives "
                "cards from their inventory, their table, or attached to their cards"
            )


def trading_location(campaign: Campaign, hero: str, doing: str = "trading") -> str:
    """RULES.md §8, seed 000: trading with a discard pile (and obtaining sheet cards by
    progression or incorporation) needs a location that allows it; returns the hero's
    location."""
    location = campaign.table.heroes[hero].location
    if location is None:
        raise RuleBroken(f"{hero} is at no location; {doing} needs one that allows it (ledger travel {hero} LOCATION)")
    return location


def access_admits(campaign: Campaign, location: str, card: str) -> None:
    """RULES.md §8: a card may be obtained only if its level is at most the access
    level of the hero's location for its suit; access 0 admits nothing."""
    data = campaign.card(card)
    level, why = effective_access(campaign, location, str(data.suit))
    if level == 0 or data.level > level:
        reason = {"battle": " (a battle is on)", "location": ""}.get(why, f" ({why})")
        raise RuleBroken(
            f"{card} is level {data.level}; access for {data.suit} at {location} is {level}{reason}"
            + ("; access 0 admits nothing" if level == 0 else "")
        )


def settle_trade(campaign: Campaign, taken: tuple[str, ...], given: tuple[str, ...]) -> list[dict]:
    """RULES.md §8: each value type is settled on its own: for every type among the
    taken cards the given cards of that type must total at least as much; a given card
    of a type that nothing taken has pays for nothing (value types never mix)."""
    fmt = campaign.format

    def vtype(card: str) -> str:
        return fmt.value_type(campaign.card(card).suit)

    sums: dict[str, dict] = {}
    for side, cards in (("take", taken), ("give", given)):
        for card in cards:
            data = campaign.card(card)
            entry = sums.setdefault(vtype(card), {"type": vtype(card), "suits": [], "take": 0, "give": 0})
            entry[side] += data.value or 0
            if str(data.suit) not in entry["suits"]:
                entry["suits"].append(str(data.suit))
    taken_types = {vtype(card) for card in taken}
    for entry in sums.values():
        if entry["type"] not in taken_types:
            payers = [c for c in given if vtype(c) == entry["type"]]
            raise RuleBroken(
                f"{', '.join(payers)} ({entry['type']}) pay(s) for nothing: no {'/'.join(entry['suits'])} "
                "card is taken, and value types never mix"
            )
    for entry in sums.values():
        unit = VALUE_UNITS.get(entry["type"], entry["type"])
        if entry["give"] < entry["take"]:
            raise RuleBroken(
                f"{'/'.join(entry['suits'])}: give {entry['give']} {unit} < take {entry['take']} {unit}"
                " (each value type is settled on its own)"
            )
    return list(sums.values())


def companion_takes(campaign: Campaign, hero: str, taken: str, companion: str, given: tuple[str, ...]) -> None:
    """RULES.md §8: a card taken may be attached to one of the hero's companions: a
    companion card the hero controls, and that does not leave in this very trade."""
    campaign.card(companion)
    if campaign.card(companion).suit != Suit.COMPANION or not controlled_by(campaign, hero, companion):
        raise RuleBroken(f"{companion} is not a companion card {hero} controls; taken cards attach to one")
    leaving = set(given)
    for card in given:
        leaving.update(_attached_under(campaign, card))
    if companion in leaving:
        raise RuleBroken(f"{companion} leaves with the cards given in this trade; attach {taken} elsewhere")


def _attached_under(campaign: Campaign, host: str) -> list[str]:
    """Every card attached to a host, directly or through other attachments."""
    found, todo = [], [host]
    while todo:
        for card in campaign.table.attached(todo.pop()):
            found.append(card)
            todo.append(card)
    return found
