"""Commands: what a player asks for, in the imperative. Validated for shape here
(pydantic); checked against the rules when the action is decided (``actions.py``).
"""


from functools import cache
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from .i18n import _
from .vocabulary import MASTER, Face

Position = Literal["top", "bottom"] | int


class Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when a command type is first used
    actor: str = MASTER
    # Options added after campaigns were first recorded: left out of the stored
    # command while unused, so older records decide again to exactly what they hold.
    later: ClassVar[tuple[str, ...]] = ()

    def to_record(self) -> dict[str, Any]:
        """The command as stored in its event: its ``type`` and its fields."""
        record = self.model_dump(mode="json")
        for name in self.later:
            if getattr(self, name) == type(self).model_fields[name].get_default():
                record.pop(name, None)
        return record


class AddHero(Command):
    type: Literal["AddHero"] = "AddHero"
    hero: str
    name: str | None = None
    knowledge: int = Field(default=0, ge=0, le=100)


class SetKnowledge(Command):
    type: Literal["SetKnowledge"] = "SetKnowledge"
    hero: str
    knowledge: int = Field(ge=0, le=100)


def _distinct(cards: tuple[str, ...]) -> tuple[str, ...]:
    """Each card named once (a card named twice would be refused as already moved)."""
    seen = set()
    for card in cards:
        if card in seen:
            raise ValueError(_("card {card} is named twice").format(card=card))
        seen.add(card)
    return cards


class Cards(Command):
    cards: tuple[str, ...] = Field(min_length=1)

    _distinct_cards = field_validator("cards")(_distinct)


class Add(Cards):
    type: Literal["Add"] = "Add"
    to: str
    position: Position = "top"


class Draw(Command):
    type: Literal["Draw"] = "Draw"
    stack: str
    count: int = Field(default=1, ge=1, le=10_000)
    to: str | None = None
    seed: int | None = None  # for a refill's shuffle


class Send(Cards):
    type: Literal["Send"] = "Send"
    to: str
    position: Position | None = None
    face: Face | None = None


class Discard(Command):
    type: Literal["Discard"] = "Discard"
    cards: tuple[str, ...] = ()
    stack: str | None = None  # discard from the top of this deck instead
    count: int = Field(default=1, ge=1, le=10_000)
    seed: int | None = None  # for a refill's shuffle

    _distinct_cards = field_validator("cards")(_distinct)


class Bury(Cards):
    type: Literal["Bury"] = "Bury"
    to: str | None = None


class Exile(Cards):
    type: Literal["Exile"] = "Exile"


class Shuffle(Command):
    type: Literal["Shuffle"] = "Shuffle"
    later: ClassVar[tuple[str, ...]] = ("by",)
    stack: str
    seed: int | None = None
    by: str | None = None  # the card whose effect lets a hero shuffle a stack nobody owns (ruleset 17)


class Search(Command):
    type: Literal["Search"] = "Search"
    later: ClassVar[tuple[str, ...]] = ("by",)
    stack: str
    take: tuple[str, ...] = ()
    to: str | None = None
    seed: int | None = None
    by: str | None = None  # the card whose effect lets a hero search

    # before anything is looked up: a refusal after the cards were found would tell a hero
    # that a hidden card is in the stack
    _distinct_take = field_validator("take")(_distinct)


class Reveal(Cards):
    type: Literal["Reveal"] = "Reveal"
    later: ClassVar[tuple[str, ...]] = ("to",)
    to: tuple[str, ...] = ()  # only these heroes see the cards (RULES.md §9); empty: everyone

    @field_validator("to")
    @classmethod
    def _distinct_heroes(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        if len(set(v)) != len(v):
            raise ValueError(_("a hero is named twice"))
        return v


class Hide(Cards):
    type: Literal["Hide"] = "Hide"


class Exhaust(Cards):
    type: Literal["Exhaust"] = "Exhaust"


class Restore(Cards):
    type: Literal["Restore"] = "Restore"


class Attach(Command):
    type: Literal["Attach"] = "Attach"
    card: str
    host: str


class Detach(Command):
    type: Literal["Detach"] = "Detach"
    card: str
    to: str | None = None


class AddLocation(Command):
    type: Literal["AddLocation"] = "AddLocation"
    location: str
    access: dict[str, int] = {}


class SetLocation(Command):
    """Correct a location's own access levels (the suits named; the others keep theirs)."""

    type: Literal["SetLocation"] = "SetLocation"
    location: str
    access: dict[str, int] = {}


class Travel(Command):
    type: Literal["Travel"] = "Travel"
    hero: str
    location: str


class StartBattle(Command):
    type: Literal["StartBattle"] = "StartBattle"


class EndBattle(Command):
    type: Literal["EndBattle"] = "EndBattle"


class SetAccess(Command):
    """An effect changes a location's access level for a suit, or ``clear`` removes it
    (from ruleset 16 a clear says so: a level left out was a clear, by mistake too)."""

    type: Literal["SetAccess"] = "SetAccess"
    later: ClassVar[tuple[str, ...]] = ("clear",)
    location: str
    suit: str
    level: int | None = None  # 0-3: the rules say so, in the words of location add (rules.access_levels)
    by: str | None = None
    clear: bool = False


class Trade(Command):
    type: Literal["Trade"] = "Trade"
    hero: str
    take: tuple[str, ...] = Field(min_length=1)
    give: tuple[str, ...] = ()
    attach: dict[str, str] = {}  # taken card -> companion it is attached to


class Obtain(Command):
    """A hero obtains a sheet card by its mechanic (Progressão, Incorporação): the master
    records it, with where it goes and what it cost (as given, not enforced)."""

    type: Literal["Obtain"] = "Obtain"
    hero: str
    card: str
    by: Literal["progression", "incorporation"]
    to: str | None = None
    cost: str | None = Field(default=None, max_length=500)


class Activate(Command):
    type: Literal["Activate"] = "Activate"
    card: str
    effect: int | None = Field(default=None, ge=1)
    hero: str | None = None  # who activates, when the master records it
    target: str | None = Field(default=None, max_length=500)
    note: str | None = Field(default=None, max_length=2000)
    action_points: int | None = Field(default=None, ge=0, le=100)
    energies: dict[str, int] = {}
    by: str | None = None  # the card whose effect lets a hero activate one of the scenario (ruleset 17)
    later: ClassVar[tuple[str, ...]] = ("by",)


class Undo(Command):
    """Take back the latest action still in force, or every action after ``to``."""

    type: Literal["Undo"] = "Undo"
    later: ClassVar[tuple[str, ...]] = ("keep_order", "seed", "seq")
    to: int | None = Field(default=None, ge=1)
    keep_order: bool = False  # the master's decision: seen decks are not reshuffled
    seed: int | None = None  # the master's, for the reshuffle of seen decks (tests and demos)
    seq: int | None = Field(default=None, ge=1)  # the action meant: refused unless it is the latest in force (18)


class Redo(Command):
    type: Literal["Redo"] = "Redo"


AnyCommand = Annotated[
    Union[
        AddHero, SetKnowledge, Add, Draw, Send, Discard, Bury, Exile, Shuffle, Search, Reveal, Hide,
        Exhaust, Restore, Attach, Detach, AddLocation, SetLocation, Travel, StartBattle, EndBattle, SetAccess,
        Trade, Obtain, Activate, Undo, Redo,
    ],
    Field(discriminator="type"),
]


@cache
def _decoder() -> TypeAdapter[Command]:
    """The union's validator, built when first needed (building it builds every
    command's: a recorded action needs only its own command's, ``defer_build``)."""
    return TypeAdapter(AnyCommand)


def from_record(record: dict[str, Any]) -> Command:
    """The command a stored event records, ready to be decided again (its ``type``
    picks the model: a discriminated union, so nothing else can be named)."""
    return _decoder().validate_python(record)
