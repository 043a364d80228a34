"""The game's small vocabulary: suits, faces, zone roles and ids, effects, hero ids
and viewers.

Every other module speaks these names (RULES.md §1); nothing else defines them. A
zone id is built with ``Zone``'s constructors (``Zone.inventory("ana")``), never
with an f-string, and parsed with ``Zone.parse``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Literal

from .errors import BadInput, UnknownZone
from .i18n import _


class Suit(StrEnum):
    """The seven suits. Sheet cards (white) and asset cards (black)."""

    HOUSE = "house"
    CLASS = "class"
    ENTITY = "entity"
    ITEM = "item"
    SKILL = "skill"
    COMPANION = "companion"
    EVENT = "event"

    @property
    def is_sheet(self) -> bool:
        return self in SHEET_SUITS

    @property
    def is_asset(self) -> bool:
        return not self.is_sheet


SHEET_SUITS = frozenset({Suit.HOUSE, Suit.CLASS, Suit.ENTITY})

Face = Literal["up", "down"]

# -- who acts and who looks ----------------------------------------------------
MASTER = "master"  # the actor who runs the campaign
REFEREE = "referee"  # the viewer who sees everything
PUBLIC = "public"  # the viewer who sees what everyone at the table sees
RESERVED_NAMES = frozenset({MASTER, REFEREE, PUBLIC})

# -- zones ---------------------------------------------------------------------
class Role(StrEnum):
    """What a zone is in the game: the first part of its id (``deck`` of ``deck:item``)."""

    BOX = "box"
    DECK = "deck"
    DISCARD = "discard"
    DEPOT = "depot"
    TABLE = "table"
    INVENTORY = "inventory"
    EXTRA = "extra"
    SCENARIO = "scenario"
    LIMBO = "limbo"


# How a zone behaves (a format's ``kind`` of stack): a deck or pile is a stack, a
# hand is an inventory, an area a table, extra zone or the scenario.
ZoneKind = Literal["deck", "pile", "hand", "area", "limbo", "box"]
Visibility = Literal["face-up", "face-down", "face-down-controller-may-look"]
Use = Literal["never", "stack-scope", "always"]  # when a stack's face-up cards' effects count
Affected = Literal["none", "owner", "all"]  # who receives those effects

# -- card effects (RULES.md §6, §7) ----------------------------------------------
EffectKind = Literal["activate", "auto"]
# card: the card's own effect; attachment: works while attached ("Do Anexo");
# anywhere / discard: stack effects that count from any stack / from a discard pile.
EffectScope = Literal["card", "attachment", "anywhere", "discard"]
Task = Literal["discard", "bury"]

_HERO_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_ZONE_PART = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def _id_like(text: Any) -> str:
    """``text`` as an id might be typed for it, or "" if that is no id either: accents
    dropped and lower case (``Zé`` -> ``ze``), for the likeliest id a refusal offers."""
    if not isinstance(text, str):
        return ""
    import unicodedata

    plain = "".join(ch for ch in unicodedata.normalize("NFKD", text.strip()) if not unicodedata.combining(ch))
    plain = plain.lower().replace(" ", "-")
    return plain if _HERO_ID.fullmatch(plain) and plain not in RESERVED_NAMES else ""


def check_hero_id(hero: str) -> str:
    """A hero id is short, lower-case, and not one of the reserved names."""
    if not isinstance(hero, str) or not _HERO_ID.fullmatch(hero):
        like = _id_like(hero)
        raise BadInput(
            _("{hero} is not a hero id; use up to 32 lower-case letters without accents (a-z), digits, '-' or '_' "
              "(e.g. {example})").format(hero=repr(hero), example=like or "ana")
        )
    if hero in RESERVED_NAMES:
        raise BadInput(_("{hero} is a reserved name; pick another hero id").format(hero=repr(hero)))
    return hero


def check_location_id(location: str) -> str:
    """A location id is short and lower-case, like a hero id (e.g. village)."""
    if not isinstance(location, str) or not _HERO_ID.fullmatch(location):
        like = _id_like(location)
        raise BadInput(
            _("{location} is not a location id; use up to 32 lower-case letters without accents (a-z), digits, '-' "
              "or '_' (e.g. {example})").format(location=repr(location), example=like or "village")
        )
    return location


def check_suit(suit: str) -> Suit:
    try:
        return Suit(suit)
    except ValueError:
        suits = ", ".join(Suit)
        raise BadInput(_("{suit} is not a suit; suits are {suits}").format(suit=repr(suit), suits=suits)) from None


@dataclass(frozen=True, order=True)
class Zone:
    """A zone id such as ``deck:item`` or ``inventory:ana``; parse and str round-trip.

    The constructors below give the ids of the zones every campaign has, as the
    strings the table is keyed by: ``Zone.inventory("ana") == "inventory:ana"``."""

    role: str
    args: tuple[str, ...] = ()

    BOX: ClassVar[str] = Role.BOX.value
    DISCARD: ClassVar[str] = Role.DISCARD.value
    DEPOT: ClassVar[str] = Role.DEPOT.value
    SCENARIO: ClassVar[str] = Role.SCENARIO.value
    LIMBO: ClassVar[str] = Role.LIMBO.value

    @staticmethod
    def deck(suit: str) -> str:
        return f"{Role.DECK}:{suit}"

    @staticmethod
    def table(hero: str) -> str:
        return f"{Role.TABLE}:{hero}"

    @staticmethod
    def inventory(hero: str) -> str:
        return f"{Role.INVENTORY}:{hero}"

    @staticmethod
    def extra(hero: str) -> str:
        return f"{Role.EXTRA}:{hero}"

    @staticmethod
    def hero_zones(hero: str) -> tuple[str, str, str]:
        """The zones a hero brings to the table: their table, inventory and extra zone."""
        return Zone.table(hero), Zone.inventory(hero), Zone.extra(hero)

    @classmethod
    def parse(cls, text: str) -> Zone:
        parts = text.split(":") if isinstance(text, str) else []
        if not parts or not all(_ZONE_PART.fullmatch(p) for p in parts):
            raise UnknownZone(
                _("{text} is not a zone id; zone ids look like deck:item, discard, inventory:ana, table:ana").format(
                    text=repr(text))
            )
        return cls(parts[0], tuple(parts[1:]))

    def __str__(self) -> str:
        return ":".join((self.role, *self.args))

    def __repr__(self) -> str:
        return f"Zone.parse({str(self)!r})"


# Cards attached to a host live in a container named after the host. It is not
# a zone a player names; a card's zone is its host's zone.
ATTACHED_PREFIX = "on:"


def attached_container(host: str) -> str:
    """The container of the cards attached to ``host`` (``on:<host>``)."""
    return ATTACHED_PREFIX + host


def host_of(container: str) -> str | None:
    return container[len(ATTACHED_PREFIX):] if container.startswith(ATTACHED_PREFIX) else None
