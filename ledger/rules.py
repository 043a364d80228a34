"""The rules of RULES.md, each once, as functions of the campaign's state.

Rules decide; they never change state. Each returns what the rule says (a
destination, a face) or raises a ``LedgerError`` whose message carries the state
that made the action illegal. Tests are named after these functions' rules.
"""

from __future__ import annotations

from .campaign import Campaign
from .catalog import Card
from .errors import CardNotThere, NotAllowed, RuleBroken
from .formats import VALUE_UNITS, ZoneSpec
from .visibility import sees_everything, where_for
from .vocabulary import Face

# Where a sheet card may be (RULES.md §5), by the role a zone id names. The box and
# limbo are outside play, so a sheet card may rest there too (Decision).
SHEET_CARD_ZONES = frozenset({"table", "deck", "discard", "extra", "box", "limbo"})

REFILL_LIMIT = 100  # RULES.md §4: up to 100 cards of the suit from the depot


# -- §5 where cards may be ----------------------------------------------------
def discard_pile_for(campaign: Campaign, card: str) -> str:
    """RULES.md §5: ``discard`` sends a card to its format's discard pile."""
    return _resolve(campaign, campaign.format.discard_to, card, fallback="discard")


def bury_deck_for(campaign: Campaign, card: str) -> str:
    """RULES.md §5: ``bury`` puts a card at the bottom of its suit's campaign deck."""
    suit = campaign.card(card).suit
    return _resolve(campaign, campaign.format.bury_to, card, fallback=f"deck:{suit}")


def _resolve(campaign: Campaign, template: str, card: str, fallback: str) -> str:
    owner = None
    if card in campaign.table.where:
        owner = campaign.zone_of(card).owner
    zid = template.replace("{suit}", str(campaign.card(card).suit)).replace("{owner}", owner or "")
    return zid if zid in campaign.zones() else fallback


def sheet_card_placement(campaign: Campaign, card: Card, zone: ZoneSpec) -> str | None:
    """A sheet card may only be on a table, in a deck, in a discard pile, attached or
    in an extra zone; sent anywhere else it goes to the discard pile instead."""
    if card.suit.is_sheet and zone.role not in SHEET_CARD_ZONES:
        return discard_pile_for(campaign, card.id)
    return None


def asset_knowledge_placement(campaign: Campaign, card: Card, zone: ZoneSpec) -> str | None:
    """An asset card goes on a hero's table only if the hero's knowledge meets its
    requirement; otherwise it goes to that hero's inventory instead."""
    if card.suit.is_asset and zone.role == "table" and zone.owner is not None:
        hero = campaign.table.heroes.get(zone.owner)
        if hero is not None and hero.knowledge < (card.knowledge or 0):
            return f"inventory:{zone.owner}"
    return None


PLACEMENT_RULES = (
    ("sheet-card-placement", sheet_card_placement,
     "a sheet card may only be on a table, in a deck, in a discard pile, attached or in an extra zone"),
    ("asset-knowledge-placement", asset_knowledge_placement,
     "an asset card goes on a table only if the hero's knowledge meets its requirement"),
)


def placement(campaign: Campaign, card_id: str, zone_id: str) -> tuple[str, str | None]:
    """Where a card sent to ``zone_id`` really goes, and the rule that redirected it."""
    card = campaign.card(card_id)
    for name, rule, _ in PLACEMENT_RULES:
        redirect = rule(campaign, card, campaign.zone(zone_id))
        if redirect is not None and redirect != zone_id:
            return redirect, name
    return zone_id, None


def rule_text(name: str) -> str:
    return next(text for n, _, text in PLACEMENT_RULES if n == name)


# -- §3 stacks ----------------------------------------------------------------
def entry_face(zone: ZoneSpec, asked: Face | None) -> Face:
    """A card entering a stack takes the stack's orientation, however it gets
    there; elsewhere it lies as asked, or as the zone usually shows its cards."""
    if zone.is_stack:
        if asked is not None and asked != zone.entry_face:
            raise RuleBroken(
                f"{zone.id} is a face-{zone.entry_face} stack: a card entering it is "
                f"face-{zone.entry_face}; send it without --face, then turn it with "
                f"{'reveal' if asked == 'up' else 'hide'} if an effect says so"
            )
        return zone.entry_face
    return asked or zone.entry_face


def may_use_stack(campaign: Campaign, actor: str, zone: ZoneSpec, doing: str) -> None:
    """Only the owner of a stack (or of a hero's zone) may use its cards; anyone may
    use a stack with no owner. The master runs the campaign and may do anything."""
    if sees_everything(actor) or zone.owner is None or zone.owner == actor:
        return
    raise NotAllowed(
        f"{zone.id} belongs to {zone.owner}; {actor} may not {doing} it "
        f"(act as --actor {zone.owner} or --actor master)"
    )


def must_be_in(campaign: Campaign, actor: str, card: str, zone_id: str, doing: str) -> None:
    """The card must be in the named zone; the message says where it is only if the
    actor may see it there."""
    if campaign.table.zone_of(card) != zone_id:
        raise CardNotThere(
            f"card {card} is not in {zone_id} ({where_for(campaign, actor, card)}); {doing}"
        )


def must_be_in_campaign(campaign: Campaign, actor: str, card: str, doing: str) -> None:
    """Cards in the box are not (yet) in the campaign; ``add`` brings them in."""
    if campaign.table.zone_of(card) == "box":
        raise CardNotThere(
            f"card {card} is in the box, not in the campaign; add it to a stack first "
            f"(ledger add {card} --to deck:{campaign.card(card).suit}) before you {doing} it"
        )


def must_be_deck(zone: ZoneSpec, doing: str) -> None:
    if not zone.is_deck:
        hint = "take a card from it with search" if zone.kind == "pile" else "name a deck such as deck:item"
        raise RuleBroken(f"{zone.id} is not a deck; {doing} works on decks ({hint})")


def must_be_stack(zone: ZoneSpec, doing: str) -> None:
    if not zone.is_stack:
        raise RuleBroken(f"{zone.id} is not a stack; {doing} works on decks and piles")


# -- §7 card states ------------------------------------------------------------
def may_exhaust(campaign: Campaign, actor: str, card: str) -> None:
    """Cards in a stack, the box or limbo have no state; attached cards' states are
    disregarded: only cards on a table, in an extra zone or the scenario turn sideways."""
    if campaign.table.host(card) is not None:
        raise RuleBroken(f"card {card} is attached; an attached card is neither restored nor exhausted")
    zone = campaign.zone_of(card)
    if zone.kind != "area":
        raise RuleBroken(
            f"card {card} is not on a table, in an extra zone or in the scenario "
            f"({where_for(campaign, actor, card)}); only cards there are exhausted or restored"
        )


def card_states(campaign: Campaign, card: str) -> list[str]:
    """RULES.md §7: a card's states, derived from where and how it lies.

    Revealed/hidden and restored/exhausted disregard attached cards; cards in a stack
    are neither restored nor exhausted; cards in limbo are exiled and neither active
    nor inactive; the box is outside the campaign (a hidden card, nothing more).
    Decision: an extra zone counts like a table; a face-up card in a stack is active
    only when the stack's ``use`` lets its effects count (``stack-scope``: cards with
    @anywhere effects, or @discard ones in a discard pile; ``never``: none).
    """
    table = campaign.table
    data = campaign.card(card)
    up = card in table.face_up
    host = table.host(card)
    if host is not None:
        live = table.face(host) == "up" and data.has_effect(scope="attachment")
        return ["attached", "active" if live else "inactive"]
    zone = campaign.zone_of(card)
    states = ["revealed" if up else "hidden"]
    if zone.kind == "box":
        return states
    if not zone.is_stack and zone.kind != "limbo":
        states.append("exhausted" if card in table.exhausted else "restored")
    if zone.kind == "limbo":
        states.append("exiled")
        return states
    if zone.is_stack:
        # The stack's `use` says when its face-up cards' effects count.
        stack_effect = data.has_effect(scope="anywhere") or (
            zone.role == "discard" and data.has_effect(scope="discard")
        )
        counts = zone.use == "always" or (zone.use == "stack-scope" and stack_effect)
        states.append("active" if up and counts else "inactive")
    else:
        states.append("active" if up else "inactive")
    return states


# -- §8 trading with the discard pile ------------------------------------------
TRADE_PILE = "discard"  # the campaign discard pile: trades take cards from it


def effective_access(campaign: Campaign, location: str, suit: str) -> tuple[int, str]:
    """A location's access level for a suit, and why: an effect on the location sets
    it (during battle too); otherwise a battle closes every discard pile (0);
    otherwise the location's own level (unlisted suits 0)."""
    place = campaign.table.locations[location]
    effect = place.effects.get(suit)
    if effect is not None:
        return effect.level, f"effect of {effect.by}"
    if campaign.table.battle:
        return 0, "battle"
    return place.access.get(suit, 0), "location"


def access_admits(campaign: Campaign, location: str, card: str) -> None:
    """A card may be obtained only if its level is at most the access level of the
    hero's location for its suit; access 0 admits nothing."""
    data = campaign.card(card)
    level, why = effective_access(campaign, location, str(data.suit))
    if level == 0 or data.level > level:
        reason = {"battle": " (a battle is on)", "location": ""}.get(why, f" ({why})")
        raise RuleBroken(
            f"{card} is level {data.level}; access for {data.suit} at {location} is {level}{reason}"
            + ("; access 0 admits nothing" if level == 0 else "")
        )


def controlled_by(campaign: Campaign, hero: str, card: str) -> bool:
    """A hero controls the cards in their inventory, on their table and in their extra
    zone, and the cards attached to those."""
    zone = campaign.zone_of(card)
    return zone.owner == hero and zone.kind in ("hand", "area")


def settle_trade(campaign: Campaign, taken: tuple[str, ...], given: tuple[str, ...]) -> list[dict]:
    """Each value type is settled on its own: for every type among the taken cards the
    given cards of that type must total at least as much; a given card of a type that
    nothing taken has pays for nothing (value types never mix)."""
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


# -- §6 activation ---------------------------------------------------------------
def knowledge_meets(campaign: Campaign, hero: str, card: str) -> None:
    """A hero activates an asset card only if their knowledge meets its requirement."""
    need = campaign.card(card).knowledge or 0
    have = campaign.table.heroes[hero].knowledge
    if have < need:
        raise RuleBroken(f"{card} needs knowledge {need}; {hero}'s knowledge is {have}")


def after_activation_from_inventory(campaign: Campaign, card: str) -> str:
    """Activated from the inventory a card is discarded, unless its task keyword
    (discard, bury) says where it goes; the task wins."""
    if campaign.card(card).task == "bury":
        return bury_deck_for(campaign, card)
    return discard_pile_for(campaign, card)
