"""A card's states (RULES.md §7), derived from where and how it lies.

Used by the rules (an access effect needs an active card, and holds while it is one) and
by the read side (``zones``, ``card``, the access a location's effects give), so it lives
apart from the rules package and imports only the campaign and the vocabulary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .campaign import Campaign
from .rulesets import ruleset
from .vocabulary import Role, Zone

if TYPE_CHECKING:
    from .catalog import Effect
    from .formats import ZoneSpec

EFFECTS_LAST_WHILE_ACTIVE_FROM = 13
"""The ruleset from which an access effect is in force only while its card is active: an
event card discarded or exiled from the scenario no longer opens the discard pile (under
older rules it did until the master cleared it, and a hero traded at a level the table no
longer allowed)."""


def counts_in_stack(zone: ZoneSpec, effect: Effect) -> bool:
    """Seed 002 ("Ativa"): of a card revealed in a stack, only its stack effects (@anywhere,
    and @discard in a discard pile) may be used, and only where the stack's ``use`` lets
    its face-up cards' effects count: ``stack-scope`` as just said, ``always`` any stack
    effect, ``never`` none. The one test behind both a card's ``active`` state in a stack
    and an activation from one (``rules.activation.effect_usable``)."""
    if zone.use == "never" or effect.scope not in ("anywhere", "discard"):
        return False
    return zone.use == "always" or effect.scope == "anywhere" or zone.role == Role.DISCARD


def affected_by(campaign: Campaign, card: str) -> tuple[str, ...] | None:
    """Seed 001 ("Afetados"): the heroes a stack card's effects reach, by its stack's
    ``affected`` setting (``none``; ``owner``: the stack's owner; ``all``: every hero);
    None for a card that is not in a stack (its controller's effects reach whom the
    card says)."""
    zone = campaign.zone_of(card)
    if not zone.is_stack or campaign.table.host(card) is not None:
        return None
    if zone.affected == "all":
        return tuple(campaign.table.heroes)
    if zone.affected == "owner" and zone.owner is not None:
        return (zone.owner,)
    return ()


def card_states(campaign: Campaign, card: str) -> list[str]:
    """RULES.md §7: a card's states, derived from where and how it lies.

    Revealed/hidden and restored/exhausted disregard attached cards; cards in a stack
    are neither restored nor exhausted; cards in limbo are exiled and neither active
    nor inactive; the box is outside the campaign (a hidden card, nothing more).
    Decision: an extra zone counts like a table; a face-up card in a stack is active
    only when one of its effects counts there (``counts_in_stack``).
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
    if zone.is_stack:  # active when one of its effects counts there (counts_in_stack)
        if ruleset() >= 3:
            counts = any(counts_in_stack(zone, effect) for effect in data.effects)
        else:  # as decided before ruleset 3 (verify decides older actions again under it)
            stack_effect = data.has_effect(scope="anywhere") or (
                zone.role == Role.DISCARD and data.has_effect(scope="discard"))
            counts = zone.use == "always" or (zone.use == "stack-scope" and stack_effect)
        states.append("active" if up and counts else "inactive")
    else:
        states.append("active" if up else "inactive")
    return states


def is_active(campaign: Campaign, card: str) -> bool:
    """RULES.md §7: is the card in the campaign and active (its effects available)?"""
    return campaign.table.zone_of(card) != Zone.BOX and "active" in card_states(campaign, card)


def effect_in_force(campaign: Campaign, by: str) -> bool:
    """RULES.md §8: an effect on a location's access holds while ``by``, the card that
    causes it, is active (from ruleset 13; before, until the master cleared it)."""
    return ruleset() < EFFECTS_LAST_WHILE_ACTIVE_FROM or is_active(campaign, by)
