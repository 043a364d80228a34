"""The primitive changes an action makes to the table, each with what it was and
what it is now, so that every change can be applied exactly and inverted exactly.

Every recorded action carries its list of changes. The fold (``fold.py``) applies
them; undo applies their inverses in reverse order. A change is applied, never
checked: the rules decided before it existed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from .vocabulary import Face


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Primitive(Frozen):
    """A change of the table that can be inverted exactly."""

    def cards(self) -> tuple[str, ...]:
        """The cards this change moves, turns or reorders."""
        return ()


class Spot(Frozen):
    """Where a card is and how it lies: container (a zone id, or ``on:<host>`` for
    an attachment), index in it (0 = top of a deck), face, whether exhausted, and the
    heroes a face-down card was shown to where it lies (``reveal --to``; RULES.md §9).
    ``shown`` is left out of the record while empty, so that actions recorded before
    it existed keep their exact form (and hashes)."""

    at: str
    index: int
    face: Face
    exhausted: bool = False
    shown: tuple[str, ...] = ()

    @model_serializer(mode="wrap")
    def _without_empty_shown(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        if not self.shown:
            data.pop("shown", None)
        return data


class CardChanged(Primitive):
    """A card moved, turned, or was exhausted/restored: one card, before and after."""

    kind: Literal["card"] = "card"
    card: str
    was: Spot
    now: Spot

    def inverse(self) -> CardChanged:
        return CardChanged(card=self.card, was=self.now, now=self.was)

    def onto(self, spot: Spot, may_show: Callable[[str], bool]) -> CardChanged:
        """This change made again to the card where it lies now (``spot``): what it changed
        (place, face, exhausted, whom it was shown to) it changes from there; what it left
        alone stays as it is now. An undo or redo applies a change recorded earlier on a
        table that a shuffle may have changed since (an undone action's undo shuffles a
        deck again: new places, nobody shown a card of it), so its ``was`` is where the
        card lies then, never the old record's (RULES.md §9: read back, a stale ``was``
        would show a card to a hero who no longer knows where it is). Whom it is shown to
        changes by the heroes the change took off or put on (``reveal --to`` each hero
        apart); a hero it would show the card to again — back where it lay, or shown
        anew — is shown it only if ``may_show(container)``: not in a deck shuffled again
        since the change was recorded, whose order that hero never saw."""
        was, now = self.was, self.now
        moved = (was.at, was.index) != (now.at, now.index)
        at, index = (now.at, now.index) if moved else (spot.at, spot.index)
        face = now.face if was.face != now.face else spot.face
        if face == "up":
            shown: tuple[str, ...] = ()
        elif moved:  # back where it lay, shown to whom it was shown there
            shown = now.shown
        elif spot.shown == was.shown:
            shown = now.shown
        else:
            shown = tuple(sorted((set(spot.shown) - (set(was.shown) - set(now.shown)))
                                 | (set(now.shown) - set(was.shown))))
        if set(shown) - set(() if moved else spot.shown) and not may_show(at):
            shown = tuple(hero for hero in shown if hero in spot.shown and not moved)
        return CardChanged(card=self.card, was=spot, now=Spot(
            at=at, index=index, face=face, shown=shown,
            exhausted=now.exhausted if was.exhausted != now.exhausted else spot.exhausted))

    def cards(self) -> tuple[str, ...]:
        return (self.card,)


class StackReordered(Primitive):
    """A stack's order changed (a shuffle): the whole order before and after, top first."""

    kind: Literal["order"] = "order"
    stack: str
    was: tuple[str, ...]
    now: tuple[str, ...]

    def inverse(self) -> StackReordered:
        return StackReordered(stack=self.stack, was=self.now, now=self.was)

    def onto(self, order: tuple[str, ...], keep: bool = False) -> StackReordered:
        """This change made again to the stack as it is ordered now (``CardChanged.onto``);
        ``keep``: the stack keeps that order (an undo shuffled it again since the change was
        recorded: the old order, which someone saw, does not come back over the new one).
        Kept or not, the change is recorded, so that the record does not tell which."""
        return StackReordered(stack=self.stack, was=order, now=order if keep else self.now)

    def cards(self) -> tuple[str, ...]:
        return self.was


class Hero(Frozen):
    """A hero at the table: display name, knowledge level, and location (if any)."""

    name: str
    knowledge: int = 0
    location: str | None = None


class HeroChanged(Primitive):
    """A hero joined (was None), left (now None), or changed knowledge or location."""

    kind: Literal["hero"] = "hero"
    hero: str
    was: Hero | None
    now: Hero | None

    def inverse(self) -> HeroChanged:
        return HeroChanged(hero=self.hero, was=self.now, now=self.was)


class AccessEffect(Frozen):
    """An effect that sets a location's access level for a suit, and the card causing it."""

    level: int
    by: str


class Location(Frozen):
    """A location: an access level 0–3 per suit (unlisted suits 0), and the effects
    that currently change some of them (they apply during battle too)."""

    access: dict[str, int] = {}
    effects: dict[str, AccessEffect] = {}


class LocationChanged(Primitive):
    """A location was added (was None) or its access effects changed."""

    kind: Literal["location"] = "location"
    location: str
    was: Location | None
    now: Location | None

    def inverse(self) -> LocationChanged:
        return LocationChanged(location=self.location, was=self.now, now=self.was)


class BattleChanged(Primitive):
    """A battle started (now True) or ended (now False)."""

    kind: Literal["battle"] = "battle"
    was: bool
    now: bool

    def inverse(self) -> BattleChanged:
        return BattleChanged(was=self.now, now=self.was)


Change = Annotated[
    Union[CardChanged, StackReordered, HeroChanged, LocationChanged, BattleChanged],
    Field(discriminator="kind"),
]
