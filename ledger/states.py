"""A card's states (RULES.md §7), derived from where and how it lies.

Used by the rules (an access effect needs an active card) and by the read side
(``zones``, ``card``), so it lives apart from the rules package and imports only
the campaign and the vocabulary.
"""

from __future__ import annotations

from .campaign import Campaign
from .vocabulary import Role


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
            zone.role == Role.DISCARD and data.has_effect(scope="discard")
        )
        counts = zone.use == "always" or (zone.use == "stack-scope" and stack_effect)
        states.append("active" if up and counts else "inactive")
    else:
        states.append("active" if up else "inactive")
    return states
