"""Trading with the discard pile (RULES.md §8): which cards trade, who gives what,
the location's access levels, and settling the values type by type."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import CardNotThere, RuleBroken
from ..i18n import _, ngettext
from ..terms import suit_word, value_type_name, value_unit_name
from ..visibility import can_identify, where_for
from ..vocabulary import Suit, Zone
from .locations import effective_access
from .words import activity

TRADE_PILE = Zone.DISCARD  # the campaign discard pile: trades take cards from it


def trades_assets_only(campaign: Campaign, cards: tuple[str, ...]) -> None:
    """RULES.md §8: a hero trades asset cards; sheet cards never trade."""
    for card in cards:
        if campaign.card(card).suit.is_sheet:
            raise RuleBroken(_("{card} is a sheet card ({suit}); sheet cards never trade").format(
                card=card, suit=suit_word(campaign.card(card).suit)))


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
            raise CardNotThere(_("{hero} does not control card {card} ({where}); a hero gives cards from their "
                                 "inventory, their table, their extra zone, or attached to their cards").format(
                hero=hero, card=card, where=where_for(campaign, actor, card)))


def trading_location(campaign: Campaign, hero: str, doing: str = "trading") -> str:
    """RULES.md §8, seed 000: trading with a discard pile (and obtaining sheet cards by
    progression or incorporation) needs a location that allows it; returns the hero's
    location. ``doing``: ``trading``, or the mechanic (``progression``, ``incorporation``)."""
    location = campaign.table.heroes[hero].location
    if location is None:
        # TRANSLATORS: {doing} is trading, progression or incorporation (translated as "activity").
        raise RuleBroken(_("{hero} is at no location; {doing} needs one that allows it (ledger travel {hero} "
                           "LOCATION)").format(hero=hero, doing=activity(doing)))
    return location


def access_admits(campaign: Campaign, location: str, card: str) -> None:
    """RULES.md §8: a card may be obtained only if its level is at most the access
    level of the hero's location for its suit; access 0 admits nothing."""
    data = campaign.card(card)
    level, why = effective_access(campaign, location, str(data.suit))
    if level == 0 or data.level > level:
        text = _("{card} is level {level}; access for {suit} at {location} is {access}")
        text = text.format(card=card, level=data.level, suit=suit_word(data.suit), location=location, access=level)
        if why == "battle":
            text += " " + _("(a battle is on)")
        elif why != "location":  # an effect's: "effect of CARD", as events record it
            text += " " + _("(effect of {card})").format(card=why.removeprefix("effect of "))
        if level == 0:
            # TRANSLATORS: added after "... access for item at village is 0".
            text += _("; access 0 admits nothing")
        raise RuleBroken(text)


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
            raise RuleBroken(ngettext(
                "{cards} ({type}) pays for nothing: no {suits} card is taken, and value types never mix",
                "{cards} ({type}) pay for nothing: no {suits} card is taken, and value types never mix",
                len(payers)).format(cards=", ".join(payers), type=value_type_name(entry["type"]),
                                    suits="/".join(map(suit_word, entry["suits"]))))
    for entry in sums.values():
        unit = value_unit_name(entry["type"])
        if entry["give"] < entry["take"]:
            # TRANSLATORS: {suits} e.g. "item" or "companion/event"; {unit} e.g. "price" or "XP".
            raise RuleBroken(_("{suits}: give {give} {unit} < take {take} {unit} (each value type is settled on its "
                               "own)").format(suits="/".join(map(suit_word, entry["suits"])), give=entry["give"],
                                              take=entry["take"], unit=unit))
    return list(sums.values())


def companion_takes(campaign: Campaign, hero: str, taken: str, companion: str, given: tuple[str, ...]) -> None:
    """RULES.md §8: a card taken may be attached to one of the hero's companions: a
    companion card the hero controls, and that does not leave in this very trade."""
    campaign.card(companion)
    if campaign.card(companion).suit != Suit.COMPANION or not controlled_by(campaign, hero, companion):
        raise RuleBroken(_("{companion} is not a companion card {hero} controls; taken cards attach to one").format(
            companion=companion, hero=hero))
    leaving = set(given)
    for card in given:
        leaving.update(campaign.table.hanging_from(card))
    if companion in leaving:
        raise RuleBroken(_("{companion} leaves with the cards given in this trade; attach {taken} elsewhere").format(
            companion=companion, taken=taken))

