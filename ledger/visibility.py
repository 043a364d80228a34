"""Who may identify which card (RULES.md §9). The one place that decides it, used
by error messages on the write side and by every read-side view.

- ``referee`` (and the ``master`` actor) see everything, deck order included.
- a hero sees public cards, plus the face-down cards in zones their hero controls
  that allow the controller a look (inventory, own table and extra zone, a deck
  that says ``face-down-controller-may-look``), and the face-down cards revealed to
  them alone (``reveal --to``) while those stay where they were shown; a plain
  face-down deck stays unseen even by its owner.
- ``public`` sees face-up cards. The box is nobody's business but the referee's.
"""

from __future__ import annotations

from .campaign import Campaign
from .i18n import N_, _
from .vocabulary import MASTER, PUBLIC, REFEREE


def sees_everything(viewer: str) -> bool:
    """The referee (a viewer) and the master (an actor) see every card, deck order included."""
    return viewer in (REFEREE, MASTER)


def can_identify(campaign: Campaign, viewer: str, card: str) -> bool:
    """Whether ``viewer`` may know which card ``card`` is, where it lies now."""
    if sees_everything(viewer):
        return True
    everyone, heroes, controller = identified_by(campaign, card)
    return everyone or (viewer != PUBLIC and (viewer == controller or viewer in heroes))


def identified_by(campaign: Campaign, card: str) -> tuple[bool, tuple[str, ...], str | None]:
    """Who of the viewers that do not see everything may know which card ``card`` is,
    where it lies now, as ``(everyone, heroes it is shown to, the hero whose zone lets
    them look)``; ``public`` is only ever among ``everyone``. The one rule
    ``can_identify`` and ``identifying`` apply."""
    zone = campaign.zone_of(card)
    if zone.kind == "box":
        return False, (), None
    table = campaign.table
    if card in table.face_up:
        return True, (), None
    # revealed to them (reveal --to), where it lies; or a look their own zone allows
    return False, table.shown.get(card, ()), zone.owner if zone.visibility != "face-down" else None


def identifying(campaign: Campaign, card: str, blind: list[str]) -> list[str]:
    """Those of ``blind`` (viewers who do not see everything) who may identify ``card``
    where it lies now: ``can_identify`` for several viewers at once."""
    everyone, heroes, controller = identified_by(campaign, card)
    if everyone:
        return blind
    if controller is None and not heroes:
        return []
    return [v for v in blind if v != PUBLIC and (v == controller or v in heroes)]


# What a viewer is told of a card they cannot see (or that is not there); translated where shown.
UNSEEN_PLACE = N_("you cannot see where it is")


def where_for(campaign: Campaign, viewer: str, card: str) -> str:
    """A phrase saying where a card is, or nothing that gives it away."""
    if can_identify(campaign, viewer, card):
        return _("it is in {zone}").format(zone=campaign.table.zone_of(card))
    return _(UNSEEN_PLACE)
