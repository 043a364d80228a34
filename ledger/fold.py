"""The one fold: the state of the table and how a change is applied to it.

The aggregate, time travel, undo and the read models all apply changes through
``Table.apply``, so they cannot disagree. Applying never raises and never
checks a rule; it only does what the change says.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .changes import (
    BattleChanged,
    CardChanged,
    Change,
    Hero,
    HeroChanged,
    Location,
    LocationChanged,
    Spot,
    StackReordered,
)
from .vocabulary import host_of


class Table:
    """Where every card is (containers of card ids, top first), which cards lie
    face-up, which are exhausted, which face-down ones were shown to which heroes, the
    heroes, the locations, and whether a battle is on."""

    __slots__ = ("stacks", "where", "face_up", "exhausted", "shown", "heroes", "locations", "battle")

    def __init__(self) -> None:
        self.stacks: dict[str, list[str]] = {}
        self.where: dict[str, str] = {}
        self.face_up: set[str] = set()
        self.exhausted: set[str] = set()
        self.shown: dict[str, tuple[str, ...]] = {}  # card -> heroes it was shown to where it lies
        self.heroes: dict[str, Hero] = {}
        self.locations: dict[str, Location] = {}
        self.battle: bool = False

    @classmethod
    def new(cls, card_ids: Iterable[str]) -> Table:
        """The start position: every card in the box, face-down."""
        table = cls()
        box = list(card_ids)
        table.stacks["box"] = box
        table.where = dict.fromkeys(box, "box")
        return table

    def copy(self) -> Table:
        """An independent copy (a reader may step it back and forth freely)."""
        twin = Table()
        twin.stacks = {k: list(v) for k, v in self.stacks.items()}
        twin.where = dict(self.where)
        twin.face_up = set(self.face_up)
        twin.exhausted = set(self.exhausted)
        twin.shown = dict(self.shown)
        twin.heroes = dict(self.heroes)
        twin.locations = dict(self.locations)
        twin.battle = self.battle
        return twin

    # -- applying -------------------------------------------------------------
    def apply(self, change: Change) -> None:
        _APPLY[type(change)](self, change)

    def apply_all(self, changes: Iterable[Change]) -> None:
        for change in changes:
            self.apply(change)

    def _card(self, c: CardChanged) -> None:
        card, was, now = c.card, c.was, c.now
        if was.at != now.at or was.index != now.index:
            src = self.stacks.get(was.at, [])
            if 0 <= was.index < len(src) and src[was.index] == card:
                del src[was.index]
            elif card in src:
                src.remove(card)
            if not src:
                self.stacks.pop(was.at, None)
            dst = self.stacks.setdefault(now.at, [])
            dst.insert(now.index, card)
            self.where[card] = now.at
        if now.face == "up":
            self.face_up.add(card)
        else:
            self.face_up.discard(card)
        if now.exhausted:
            self.exhausted.add(card)
        else:
            self.exhausted.discard(card)
        if now.shown:
            self.shown[card] = now.shown
        else:
            self.shown.pop(card, None)

    def _order(self, c: StackReordered) -> None:
        if c.now:
            self.stacks[c.stack] = list(c.now)
        else:
            self.stacks.pop(c.stack, None)

    def _hero(self, c: HeroChanged) -> None:
        if c.now is None:
            self.heroes.pop(c.hero, None)
        else:
            self.heroes[c.hero] = c.now

    def _location(self, c: LocationChanged) -> None:
        if c.now is None:
            self.locations.pop(c.location, None)
        else:
            self.locations[c.location] = c.now

    def _battle(self, c: BattleChanged) -> None:
        self.battle = c.now

    # -- reading --------------------------------------------------------------
    def cards_in(self, container: str) -> list[str]:
        return self.stacks.get(container, [])

    def spot(self, card: str) -> Spot:
        at = self.where[card]
        return Spot(
            at=at,
            index=self.stacks[at].index(card),
            face="up" if card in self.face_up else "down",
            exhausted=card in self.exhausted,
            shown=self.shown.get(card, ()),
        )

    def face(self, card: str) -> str:
        return "up" if card in self.face_up else "down"

    def zone_of(self, card: str) -> str:
        """The zone a card is in; an attached card is in its host's zone."""
        at = self.where[card]
        seen = 0
        while (host := host_of(at)) is not None and seen < 10_000:
            at = self.where[host]
            seen += 1
        return at

    def host(self, card: str) -> str | None:
        return host_of(self.where[card])

    def attached(self, host: str) -> list[str]:
        return self.stacks.get("on:" + host, [])

    def hanging_from(self, host: str) -> list[str]:
        """Every card attached to ``host``, directly or through another attached card:
        each attachment followed by its own, depth first. Each card once: a log edited
        to attach a card to itself (or round a ring) gives no endless walk."""
        found: list[str] = []
        met = {host}
        todo = list(reversed(self.attached(host)))
        while todo:
            card = todo.pop()
            if card in met:
                continue
            met.add(card)
            found.append(card)
            todo.extend(reversed(self.attached(card)))
        return found

    # -- snapshots ------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = {
            "stacks": {k: list(v) for k, v in self.stacks.items() if v},
            "face_up": sorted(self.face_up),
            "exhausted": sorted(self.exhausted),
            "heroes": {k: v.model_dump() for k, v in self.heroes.items()},
            "locations": {k: v.model_dump() for k, v in self.locations.items()},
            "battle": self.battle,
        }
        if self.shown:  # only when some card was shown: older snapshots and digests keep their form
            data["shown"] = {card: list(heroes) for card, heroes in sorted(self.shown.items())}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        table = cls()
        table.stacks = {k: list(v) for k, v in data["stacks"].items()}
        table.where = {card: k for k, cards in table.stacks.items() for card in cards}
        table.face_up = set(data["face_up"])
        table.exhausted = set(data["exhausted"])
        table.heroes = {k: Hero.model_validate(v) for k, v in data["heroes"].items()}
        table.locations = {k: Location.model_validate(v) for k, v in data.get("locations", {}).items()}
        table.battle = bool(data.get("battle", False))
        table.shown = {card: tuple(heroes) for card, heroes in data.get("shown", {}).items()}
        return table

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Table) and self.to_dict() == other.to_dict()


# One way to apply each kind of change (the fold's dispatch).
_APPLY = {
    CardChanged: Table._card,
    StackReordered: Table._order,
    HeroChanged: Table._hero,
    LocationChanged: Table._location,
    BattleChanged: Table._battle,
}
