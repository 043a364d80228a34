"""Attaching cards to cards (RULES.md §1 "anexo", §5): what may host a card, and
which attachments make no sense. What happens to a host's attachments when it
leaves is a move (``Play.place``), not a refusal."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import RuleBroken
from ..i18n import _
from ..vocabulary import Zone


def not_attached_to_itself(card: str, host: str) -> None:
    """A card cannot be attached to itself."""
    if card == host:
        raise RuleBroken(_("card {card} cannot be attached to itself").format(card=card))


def host_in_play(campaign: Campaign, host: str) -> None:
    """RULES.md §5: a host is in play: on a table, in an inventory, in an extra zone or
    in the scenario."""
    if not campaign.zone_of(host).in_play or campaign.table.zone_of(host) == Zone.BOX:
        raise RuleBroken(_("card {card} is not in play; a host must be on a table, in an inventory, in an extra "
                           "zone or in the scenario").format(card=host))


def no_attachment_cycle(campaign: Campaign, card: str, host: str) -> None:
    """No cycles: the host may not hang (directly or not) from the card."""
    up = campaign.table.host(host)
    while up is not None:
        if up == card:
            raise RuleBroken(_("card {host} is attached to {card}; attach the other way round").format(
                host=host, card=card))
        up = campaign.table.host(up)


def not_already_attached(campaign: Campaign, card: str, host: str) -> None:
    """A card already attached to a host is not attached to it again."""
    if campaign.table.host(card) == host:
        raise RuleBroken(_("card {card} is already attached to {host}").format(card=card, host=host))


def must_be_attached(campaign: Campaign, card: str) -> str:
    """Only an attached card is detached; returns its host."""
    host = campaign.table.host(card)
    if host is None:
        raise RuleBroken(_("card {card} is not attached to any card").format(card=card))
    return host
