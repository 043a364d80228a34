"""Card states (RULES.md §7) as refusals: which cards turn over or sideways. The
states themselves are derived in ``ledger.states`` (the read side uses them too)."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import RuleBroken
from ..i18n import _, ngettext
from ..states import card_states
from ..visibility import can_identify, where_for

__all__ = ["card_states", "may_exhaust", "not_already_face", "not_already_tilted", "shown_to_new_eyes"]


def may_exhaust(campaign: Campaign, actor: str, card: str) -> None:
    """RULES.md §7: cards in a stack, the box or limbo have no state; attached cards'
    states are disregarded: only cards on a table, in an extra zone or the scenario
    turn sideways."""
    if campaign.table.host(card) is not None:
        raise RuleBroken(_("card {card} is attached; an attached card is neither restored nor exhausted").format(
            card=card))
    zone = campaign.zone_of(card)
    if zone.kind != "area":
        raise RuleBroken(_("card {card} is not on a table, in an extra zone or in the scenario ({where}); only cards "
                           "there are exhausted or restored").format(card=card, where=where_for(campaign, actor, card)))


def not_already_face(campaign: Campaign, card: str, face: str) -> None:
    """RULES.md §7: a card is revealed only if hidden, and hidden only if revealed."""
    if campaign.table.face(card) == face:
        text = _("card {card} is already face-up") if face == "up" else _("card {card} is already face-down")
        raise RuleBroken(text.format(card=card))


def shown_to_new_eyes(campaign: Campaign, card: str, heroes: tuple[str, ...]) -> None:
    """RULES.md §9 ("cards revealed to them"): a card is revealed to chosen heroes only
    while it lies face-down in the campaign, and to at least one who cannot see it yet."""
    zone = campaign.zone_of(card)
    if zone.kind == "box":
        raise RuleBroken(_("card {card} is in the box, not in the campaign; add it first").format(card=card))
    if campaign.table.face(card) == "up":
        raise RuleBroken(_("card {card} is face-up: everyone sees it already").format(card=card))
    if all(can_identify(campaign, hero, card) for hero in heroes):
        raise RuleBroken(ngettext("{heroes} can see card {card} already", "{heroes} can see card {card} already",
                                  len(heroes)).format(heroes=", ".join(heroes), card=card))


def not_already_tilted(campaign: Campaign, card: str, exhausted: bool) -> None:
    """RULES.md §7: a card is exhausted only if restored, and restored only if exhausted."""
    if campaign.table.spot(card).exhausted == exhausted:
        text = _("card {card} is already exhausted") if exhausted else _("card {card} is already restored")
        raise RuleBroken(text.format(card=card))
