"""The rules of RULES.md, each once, as functions of the campaign's state.

Rules decide; they never change state. Each returns what the rule says (a
destination, a face) or raises a ``LedgerError`` whose message carries the state
that made the action illegal. Tests are named after these functions' rules.
"""

from __future__ import annotations

from .campaign import Campaign
from .catalog import Card
from .errors import CardNotThere, NotAllowed, RuleBroken
from .formats import ZoneSpec
from .visibility import sees_everything, where_for
from .vocabulary import Face, Zone

# Where a sheet card may be (RULES.md §5), by the role a zone id names. The box and
# limbo are outside play, so a sheet card may rest there too (Decision).
SHEET_CARD_ZONES = frozenset({"table", "deck", "discard", "extra", "box", "limbo"})

REFILL_LIMIT = 100  # RULES.md §4: up to 100 cards of the suit from the depot


def role(zone: ZoneSpec) -> str:
    """What a zone is in the game: the first part of its id (deck, discard, table…)."""
    return Zone.parse(zone.id).kind


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
    if card.suit.is_sheet and role(zone) not in SHEET_CARD_ZONES:
        return discard_pile_for(campaign, card.id)
    return None


def asset_knowledge_placement(campaign: Campaign, card: Card, zone: ZoneSpec) -> str | None:
    """An asset card goes on a hero's table only if the hero's knowledge meets its
    requirement; otherwise it goes to that hero's inventory instead."""
    if card.suit.is_asset and role(zone) == "table" and zone.owner is not None:
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


STATES = ("revealed", "hidden", "restored", "exhausted", "attached", "exiled", "active", "inactive")


def card_states(campaign: Campaign, card: str) -> list[str]:
    """RULES.md §7: a card's states, derived from where and how it lies.

    Revealed/hidden and restored/exhausted disregard attached cards; cards in a stack
    are neither restored nor exhausted; cards in limbo are exiled and neither active
    nor inactive; the box is outside the campaign (a hidden card, nothing more).
    Decision: an extra zone counts like a table; a face-up card in a stack without
    stack-scope effects is inactive.
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
        stack_effect = data.has_effect(scope="anywhere") or (
            role(zone) == "discard" and data.has_effect(scope="discard")
        )
        states.append("active" if up and stack_effect else "inactive")
    else:
        states.append("active" if up else "inactive")
    return states
