"""Card states (RULES.md §7) as refusals: which cards turn over or sideways. The
states themselves are derived in ``ledger.states`` (the read side uses them too)."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import RuleBroken
from ..states import card_states
from ..visibility import where_for

__all__ = ["card_states", "may_exhaust", "not_already_face", "not_already_tilted"]


def may_exhaust(campaign: Campaign, actor: str, card: str) -> None:
    """RULES.md §7: cards in a stack, the box or limbo have no state; attached cards'
    states are disregarded: only cards on a table, in an extra zone or the scenario
    turn sideways."""
    if campaign.table.host(card) is not None:
        raise RuleBroken(f"card {card} is attached; an attached card is neither restored nor exhausted")
    zone = campaign.zone_of(card)
    if zone.kind != "area":
        raise RuleBroken(
            f"card {card} is not on a table, in an extra zone or in the scenario "
            f"({where_for(campaign, actor, card)}); only cards there are exhausted or restored"
        )


def not_already_face(campaign: Campaign, card: str, face: str) -> None:
    """RULES.md §7: a card is revealed only if hidden, and hidden only if revealed."""
    if campaign.table.face(card) == face:
        raise RuleBroken(f"card {card} is already face-{face}")


def not_already_tilted(campaign: Campaign, card: str, exhausted: bool) -> None:
    """RULES.md §7: a card is exhausted only if restored, and restored only if exhausted."""
    if campaign.table.spot(card).exhausted == exhausted:
        raise RuleBroken(f"card {card} is already {'exhausted' if exhausted else 'restored'}")
