"""Commands: what a player asks for, in the imperative. Validated for shape here
(pydantic); checked against the rules when the action is decided (``actions.py``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .vocabulary import MASTER, Face

Position = Literal["top", "bottom"] | int


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    actor: str = MASTER

    def to_record(self) -> dict[str, Any]:
        """The command as stored in its event: its type and its fields."""
        return {"type": type(self).__name__, **self.model_dump(mode="json")}


def from_record(record: dict[str, Any]) -> Command:
    """The command a stored event records, ready to be decided again."""
    fields = dict(record)
    kind = globals().get(str(fields.pop("type", "")))
    if not (isinstance(kind, type) and issubclass(kind, Command)):
        raise ValueError(f"unknown command type {record.get('type')!r}")
    return kind.model_validate(fields)


class AddHero(Command):
    hero: str
    name: str | None = None
    knowledge: int = Field(default=0, ge=0, le=100)


class SetKnowledge(Command):
    hero: str
    knowledge: int = Field(ge=0, le=100)


class Cards(Command):
    cards: tuple[str, ...] = Field(min_length=1)

    @field_validator("cards")
    @classmethod
    def _distinct(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        seen = set()
        for card in v:
            if card in seen:
                raise ValueError(f"card {card} is named twice")
            seen.add(card)
        return v


class Add(Cards):
    to: str
    position: Position = "top"


class Draw(Command):
    stack: str
    count: int = Field(default=1, ge=1, le=10_000)
    to: str | None = None
    seed: int | None = None  # for a refill's shuffle


class Send(Cards):
    to: str
    position: Position | None = None
    face: Face | None = None


class Discard(Command):
    cards: tuple[str, ...] = ()
    stack: str | None = None  # discard from the top of this deck instead
    count: int = Field(default=1, ge=1, le=10_000)
    seed: int | None = None  # for a refill's shuffle


class Bury(Cards):
    to: str | None = None


class Exile(Cards):
    pass


class Shuffle(Command):
    stack: str
    seed: int | None = None


class Search(Command):
    stack: str
    take: tuple[str, ...] = ()
    to: str | None = None
    seed: int | None = None


class Reveal(Cards):
    pass


class Hide(Cards):
    pass


class Exhaust(Cards):
    pass


class Restore(Cards):
    pass


class Attach(Command):
    card: str
    host: str


class Detach(Command):
    card: str
    to: str | None = None


class AddLocation(Command):
    location: str
    access: dict[str, int] = {}


class Travel(Command):
    hero: str
    location: str


class StartBattle(Command):
    pass


class EndBattle(Command):
    pass


class SetAccess(Command):
    """An effect changes a location's access level for a suit (``level`` None clears it)."""

    location: str
    suit: str
    level: int | None = Field(default=None, ge=0, le=3)
    by: str | None = None


class Trade(Command):
    hero: str
    take: tuple[str, ...] = Field(min_length=1)
    give: tuple[str, ...] = ()
    attach: dict[str, str] = {}  # taken card -> companion it is attached to


class Activate(Command):
    card: str
    effect: int | None = Field(default=None, ge=1)
    hero: str | None = None  # who activates, when the master records it
    target: str | None = Field(default=None, max_length=500)
    note: str | None = Field(default=None, max_length=2000)
    action_points: int | None = Field(default=None, ge=0, le=100)
    energies: dict[str, int] = {}


class Undo(Command):
    """Take back the latest action still in force, or every action after ``to``."""

    to: int | None = Field(default=None, ge=1)


class Redo(Command):
    pass
