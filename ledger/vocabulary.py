"""The game's small vocabulary: suits, faces, zone ids, hero ids and viewers.

Every other module speaks these names (RULES.md §1); nothing else defines them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from .errors import UnknownZone, BadInput


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
ASSET_SUITS = frozenset({Suit.ITEM, Suit.SKILL, Suit.COMPANION, Suit.EVENT})

Face = Literal["up", "down"]
FACES: tuple[Face, ...] = ("up", "down")

MASTER = "master"
REFEREE = "referee"
PUBLIC = "public"
RESERVED_NAMES = frozenset({MASTER, REFEREE, PUBLIC})

_HERO_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_ZONE_PART = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")

# The zone kinds a player names; a format may add stacks of these kinds.
ZONE_KINDS = ("box", "deck", "discard", "depot", "table", "inventory", "extra", "scenario", "limbo")


def check_hero_id(hero: str) -> str:
    """A hero id is short, lower-case, and not one of the reserved names."""
    if not isinstance(hero, str) or not _HERO_ID.fullmatch(hero):
        raise BadInput(
            f"{hero!r} is not a hero id; use lower-case letters, digits, '-' or '_' (e.g. ana)"
        )
    if hero in RESERVED_NAMES:
        raise BadInput(f"{hero!r} is a reserved name; pick another hero id")
    return hero


def check_location_id(location: str) -> str:
    """A location id is short and lower-case, like a hero id (e.g. village)."""
    if not isinstance(location, str) or not _HERO_ID.fullmatch(location):
        raise BadInput(
            f"{location!r} is not a location id; use lower-case letters, digits, '-' or '_' (e.g. village)"
        )
    return location


def check_suit(suit: str) -> Suit:
    try:
        return Suit(suit)
    except ValueError:
        raise BadInput(f"{suit!r} is not a suit; suits are {', '.join(Suit)}") from None


@dataclass(frozen=True, order=True)
class Zone:
    """A zone id such as ``deck:item`` or ``inventory:ana``; parse and str round-trip."""

    kind: str
    args: tuple[str, ...] = ()

    @classmethod
    def parse(cls, text: str) -> Zone:
        parts = text.split(":") if isinstance(text, str) else []
        if not parts or not all(_ZONE_PART.fullmatch(p) for p in parts):
            raise UnknownZone(
                f"{text!r} is not a zone id; zone ids look like deck:item, discard, "
                "inventory:ana, table:ana"
            )
        return cls(parts[0], tuple(parts[1:]))

    def __str__(self) -> str:
        return ":".join((self.kind, *self.args))

    def __repr__(self) -> str:
        return f"Zone.parse({str(self)!r})"


# Cards attached to a host live in a container named after the host. It is not
# a zone a player names; a card's zone is its host's zone.
ATTACHED_PREFIX = "on:"


def attached_container(host: str) -> str:
    return ATTACHED_PREFIX + host


def host_of(container: str) -> str | None:
    return container[len(ATTACHED_PREFIX):] if container.startswith(ATTACHED_PREFIX) else None
