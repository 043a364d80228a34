"""Where cards may be (RULES.md §5): the placement rules that redirect a card sent
somewhere it may not be, and where ``discard`` and ``bury`` send a card."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..campaign import Campaign
from ..catalog import Card
from ..changes import CardChanged
from ..errors import RuleBroken
from ..formats import ZoneSpec, destination
from ..i18n import _, ngettext
from ..rulesets import ruleset
from ..terms import suit_word
from ..vocabulary import Role, Zone

# Where a sheet card may be (RULES.md §5), by the role a zone id names. The box and
# limbo are outside play, so a sheet card may rest there too (Decision).
SHEET_CARD_ZONES = frozenset({Role.TABLE, Role.DECK, Role.DISCARD, Role.EXTRA, Role.BOX, Role.LIMBO})


def discard_pile_for(campaign: Campaign, card: str) -> str:
    """RULES.md §5 (Decision): ``discard`` sends a card to its format's discard pile."""
    return _resolve(campaign, campaign.format.discard_to, card, fallback=Zone.DISCARD)


def bury_deck_for(campaign: Campaign, card: str) -> str:
    """RULES.md §5 (Decision): ``bury`` puts a card at the bottom of its suit's campaign deck."""
    suit = campaign.card(card).suit
    return _resolve(campaign, campaign.format.bury_to, card, fallback=Zone.deck(suit))


def _resolve(campaign: Campaign, template: str, card: str, fallback: str) -> str:
    """A format's destination template (``deck:{suit}``, ``discard:{owner}``) for a card."""
    owner = None
    if card in campaign.table.where:
        owner = campaign.zone_of(card).owner
    zid = destination(template, str(campaign.card(card).suit), owner or "")
    return zid if zid in campaign.zones() else fallback


def deck_holds_its_suit(campaign: Campaign, card: str, zone: ZoneSpec) -> None:
    """RULES.md §2, seed 001 (ruleset 14): each campaign deck holds the cards of one suit
    ("um para cartas de cada naipe"): a card goes into a deck of its own suit only (a deck
    that names no suit, a format's own, takes any). Under older rules any card went into any
    deck: a typo (deck:skill for deck:item) put an item among the skills without a word.
    Its own deck is where ``bury`` puts it (a format's hero decks: the hero's of its suit)."""
    if ruleset() < 14 or not zone.is_deck or zone.suit is None:
        return
    suit = campaign.card(card).suit
    own = bury_deck_for(campaign, card)
    if suit != zone.suit and own != zone.id:  # (a format that buries every card in one deck: that one)
        raise RuleBroken(_("card {card} is of suit {suit} and {zone} holds only cards of suit {holds} (each deck "
                           "holds one suit); its own is {own}").format(
            card=card, suit=suit_word(str(suit)), zone=zone.id, holds=suit_word(str(zone.suit)), own=own))


def searched_in_its_suit(campaign: Campaign, card: str, stack: ZoneSpec) -> None:
    """RULES.md §2, seed 001 (ruleset 14): a search of a deck of one suit looks for cards of
    that suit, judged by the catalog before it looks (so it tells no one anything): a
    hero's search of deck:skill for an item was recorded as a miss, reshuffling the deck,
    and only the master could take it back. (A card of another suit put into a deck under
    older rules is taken out by the master, who may send any card.)"""
    if ruleset() < 14 or not stack.is_deck or stack.suit is None:
        return
    suit = campaign.card(card).suit
    if suit != stack.suit:
        raise RuleBroken(_("card {card} is of suit {suit} and {stack} holds only cards of suit {holds}, so a search "
                           "there cannot find it; its deck is {own}").format(
            card=card, suit=suit_word(str(suit)), stack=stack.id, holds=suit_word(str(stack.suit)),
            own=bury_deck_for(campaign, card)))


def draws_elsewhere(stack: ZoneSpec, to: ZoneSpec) -> None:
    """RULES.md §4 (ruleset 14): a draw takes cards out of the deck: one into the very deck
    it draws from only moved its top card to the bottom (recorded as a draw)."""
    if ruleset() >= 14 and stack.id == to.id:
        raise RuleBroken(_("a draw from {stack} into {stack} takes nothing out of it; to put its top card at the "
                           "bottom, send it there with --position bottom").format(stack=stack.id))


def draws_into_its_suit(stack: ZoneSpec, to: ZoneSpec) -> None:
    """RULES.md §2, seed 001 (ruleset 14): a draw into a deck of one suit is from a deck of
    that suit. Decided by the two decks, before a card is drawn: the drawn cards are unseen,
    and a refusal that named one of another suit would show it (and, nothing recorded, any
    number of times)."""
    if ruleset() < 14 or not to.is_deck or to.suit is None or stack.suit == to.suit:
        return
    raise RuleBroken(_("a draw from {stack} cannot go into {to}: {to} holds only cards of suit {holds} (each deck "
                       "holds one suit)").format(stack=stack.id, to=to.id, holds=suit_word(str(to.suit))))


def sheet_zones(campaign: Campaign, zones: Iterable[str]) -> list[str]:
    """Those of ``zones`` where a sheet card may lie (the rule below), for a page to say
    when a send would take one to the discard pile instead."""
    return [zone for zone in zones if campaign.zone(zone).role in SHEET_CARD_ZONES]


def sheet_card_placement(campaign: Campaign, card: Card, zone: ZoneSpec) -> str | None:
    """RULES.md §5: a sheet card may only be on a table, in a deck, in a discard pile,
    attached or in an extra zone; sent anywhere else it goes to the discard pile instead."""
    if card.suit.is_sheet and zone.role not in SHEET_CARD_ZONES:
        return discard_pile_for(campaign, card.id)
    return None


def asset_knowledge_placement(campaign: Campaign, card: Card, zone: ZoneSpec) -> str | None:
    """RULES.md §5: an asset card goes on a hero's table only if the hero's knowledge
    meets its requirement; otherwise it goes to that hero's inventory instead."""
    if card.suit.is_asset and zone.role == Role.TABLE and zone.owner is not None:
        hero = campaign.table.heroes.get(zone.owner)
        if hero is not None and hero.knowledge < (card.knowledge or 0):
            return Zone.inventory(zone.owner)
    return None


# The placement rules, in the order they are tried, by the name a ``Redirect`` records
# (their text is in ``ledger.rulebook``).
PLACEMENT_RULES = (
    ("sheet-card-placement", sheet_card_placement),
    ("asset-knowledge-placement", asset_knowledge_placement),
)


def placement(campaign: Campaign, card_id: str, zone_id: str) -> tuple[str, str | None]:
    """RULES.md §5: where a card sent to ``zone_id`` really goes, and the name of the
    placement rule that redirected it (None if none did)."""
    card = campaign.card(card_id)
    for name, rule in PLACEMENT_RULES:
        redirect = rule(campaign, card, campaign.zone(zone_id))
        if redirect is not None and redirect != zone_id:
            return redirect, name
    return zone_id, None


def not_already_in(campaign: Campaign, card: str, zone_id: str) -> None:
    """A card is discarded or exiled only if it is not in that pile (or limbo) already."""
    if campaign.table.zone_of(card) == zone_id:
        raise RuleBroken(_("card {card} is already in {zone}").format(card=card, zone=zone_id))


def moves_something(campaign: Campaign, changes: Sequence[object], cards: tuple[str, ...], to: str) -> None:
    """A send must move or turn at least one card; one that changes nothing is refused,
    naming where the cards lie (where a placement rule sends them, if not ``to``). From
    ruleset 14, a card moved within a pile that keeps no order (the discard pile) is not
    moved: sending a card to the discard pile it lies in was recorded each time, while
    ``--position top`` on it was refused as nothing to do."""
    if ruleset() >= 14:
        changes = [ch for ch in changes if not _within_unordered_pile(campaign, ch)]
    if changes:
        return
    zones = {campaign.zone_of(card).id for card in cards}
    where = zones.pop() if len(zones) == 1 else to
    target = campaign.zones().get(to)
    if where == to and ruleset() >= 14 and target is not None and target.is_stack and not target.ordered:
        raise RuleBroken(ngettext("nothing to do: {cards} already lies in {zone}, a pile that keeps no order (a "
                                  "position means nothing there)",
                                  "nothing to do: {cards} already lie in {zone}, a pile that keeps no order (a "
                                  "position means nothing there)", len(cards)).format(cards=", ".join(cards), zone=to))
    if where != to:
        raise RuleBroken(ngettext("nothing to do: {cards} already lies that way in {zone}, where a placement rule "
                                  "sends it instead of {to}",
                                  "nothing to do: {cards} already lie that way in {zone}, where a placement rule "
                                  "sends them instead of {to}", len(cards)).format(
            cards=", ".join(cards), zone=where, to=to) + _why_redirected(campaign, cards[0], to))
    raise RuleBroken(ngettext("nothing to do: {cards} already lies that way in {zone}",
                              "nothing to do: {cards} already lie that way in {zone}", len(cards)).format(
        cards=", ".join(cards), zone=to))


def _why_redirected(campaign: Campaign, card: str, to: str) -> str:
    """Why a placement rule sends ``card`` elsewhere than ``to``, and what would let it go
    there, for a refusal (a QA pass: "a placement rule sends it instead" left a player
    guessing which rule, and what to do)."""
    if to not in campaign.zones():
        return ""
    _where, rule = placement(campaign, card, to)
    if rule == "asset-knowledge-placement":
        hero = campaign.zone(to).owner
        return _(": {card} needs knowledge {need} to lie on {to}, and {hero}'s knowledge is {have} (the master "
                 "changes a hero's knowledge)").format(card=card, need=campaign.card(card).knowledge or 0, to=to,
                                                        hero=hero, have=campaign.table.heroes[hero].knowledge)
    if rule == "sheet-card-placement":
        return _(": a sheet card lies only on a table, in a deck or a discard pile, attached, or in an extra zone")
    return ""


def _within_unordered_pile(campaign: Campaign, change: object) -> bool:
    """A card that stayed in a pile keeping no order, lying as it lay: no change in the game."""
    if not isinstance(change, CardChanged) or change.was.at != change.now.at:
        return False
    zones = campaign.zones()
    zone = zones.get(change.now.at)
    return zone is not None and zone.is_stack and not zone.ordered and \
        change.was.model_copy(update={"index": 0}) == change.now.model_copy(update={"index": 0})
