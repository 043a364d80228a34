"""Domain events: what happened, named in the past tense, frozen pydantic models.

One recorded action is one stored event of the campaign aggregate, so an action's
sequence number (``seq``) is the aggregate version (1 = ``CampaignStarted``) and an
action is saved atomically. Each event carries the parameters the player gave, the
primitive ``changes`` it made (enough to replay and to undo it exactly), and the
facts a later ``explain`` needs (redirects, refills).
"""


from datetime import datetime, timezone
from typing import Any, ClassVar, Protocol
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from .catalog import Card
from .changes import CardChanged, Change, StackReordered
from .commitments import Commitment
from .formats import Format
from .vocabulary import Face


class LogBooks(Protocol):
    """What the log's bookkeeping tracks (the campaign holds it): the latest action
    still in force, and the undos a redo may take back (latest last)."""

    live_head: int | None
    redo_stack: list[int]


def _now() -> datetime:
    return datetime.now(timezone.utc)


class DomainEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built when an event type is first used

    originator_id: UUID
    originator_version: int
    timestamp: datetime = Field(default_factory=_now)


class Redirect(BaseModel):
    """A placement rule sent a card somewhere other than asked (RULES.md §5)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    card: str
    asked: str
    actual: str
    rule: str


class Refill(BaseModel):
    """An empty deck was refilled from the depot within the action (RULES.md §4)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    deck: str
    source: str
    count: int


class ActionRecorded(DomainEvent):
    """Base of every recorded action.

    ``command`` is what the player asked (so ``verify`` can decide the action again
    from the state before it) and ``rng`` the seed of any randomness it used;
    ``prev_live`` is the latest action still in force before this one (undo walks
    these links back, never the whole log); ``identified`` says who was shown which
    hidden cards; ``hash`` chains this action to the one
    before it (SHA-256 over the previous hash and this event's canonical content).
    """

    action: ClassVar[str] = "action"
    undoable: ClassVar[bool] = True
    # Facts added after campaigns were first recorded: left out of the hash (and of
    # a replay's comparison) while empty, so older records keep their hashes.
    later: ClassVar[tuple[str, ...]] = ("ruleset", "identified", "commitments", "state_digest", "seen", "unnamed")
    # The ruleset from which every ledger records each of those facts (of every event
    # class): an action of that ruleset or a later one that leaves it empty says that it
    # is empty, so ``verify`` compares it as it is (forged, a draw that showed a hero a
    # card would otherwise pass for one recorded before ``identified`` was kept).
    LATER_FROM: ClassVar[dict[str, int]] = {
        "ruleset": 2, "identified": 2, "commitments": 2, "allowed_by": 2, "keep_order": 2, "reshuffled_stacks": 2,
        "state_digest": 3, "seen": 4, "unnamed": 4, "to": 4, "affected": 4, "missed": 9,
    }

    actor: str
    changes: tuple[Change, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    refills: tuple[Refill, ...] = ()
    command: dict[str, Any] | None = None
    rng: int | None = None
    prev_live: int | None = None
    ruleset: int = 1  # the rules it was decided under (ledger.rulebook.RULESET)
    # Which viewers (public, heroes) this action let identify which hidden cards:
    # a fact about the action, decided when it is recorded (fair-play undo).
    identified: dict[str, tuple[str, ...]] = {}
    # Commitments to the new order of each face-down deck the action shuffled.
    commitments: tuple[Commitment, ...] = ()
    # On every action whose seq is a multiple of ledger.snapshots.DIGEST_EVERY: the
    # digest of the campaign's state right after it, which anchors a snapshot taken
    # there to the hash chain (ledger.snapshots). Referee-only, like the hash.
    state_digest: str | None = None
    # Who witnessed the action, card by card (ledger.witness.witnessed): for each card
    # it touched, the viewers (public, heroes) who saw it take part, and of those, who
    # may not be told what became of it. Facts about the action, decided when it is
    # recorded, so that its history rows need no replay of the table. Referee-only (the
    # keys name cards). None on actions recorded before they were kept.
    seen: dict[str, tuple[str, ...]] | None = None
    unnamed: dict[str, tuple[str, ...]] | None = None
    hash: str = ""

    @property
    def seq(self) -> int:
        return self.originator_version

    def named_cards(self) -> tuple[str, ...]:
        """The cards the action's parameters name (each event type says which)."""
        return ()

    def named_by_actor(self) -> tuple[str, ...]:
        """The cards the actor named in the command, which the actor's own view of the
        action may always identify: the parameters' cards, but never the cards a draw
        (or a discard from the top of a deck) turned up, which the actor did not choose."""
        return self.named_cards()

    def cards_touched(self) -> set[str]:
        """Every card the action names or changes (its place in card histories)."""
        cards = set(self.named_cards())
        for change in self.changes:
            cards.update(change.cards())
        cards.update(r.card for r in self.redirects)
        return cards

    def containers_touched(self) -> set[str]:
        """Every container (a zone, a stack, ``on:<host>``) the action's changes take a card
        from, put one in, or reorder."""
        containers: set[str] = set()
        for change in self.changes:
            if isinstance(change, CardChanged):
                containers.update((change.was.at, change.now.at))
            elif isinstance(change, StackReordered):
                containers.add(change.stack)
        return containers

    def cards_mentioned(self) -> set[str]:
        """Every card the record of the action names: those it touched, and any other its
        parameters name without touching it (a trade's companions): what a view of the
        action must hide from whoever may not identify it."""
        return self.cards_touched()

    def shown_to_all(self) -> tuple[str, ...]:
        """Cards this action shows to everyone at the table, wherever they end up."""
        return ()

    def keep_books(self, books: LogBooks) -> None:
        """Moves the log's bookkeeping past this action: an action that may be
        undone becomes the latest in force and ends any chance to redo."""
        if self.undoable:
            books.live_head = self.seq
            books.redo_stack.clear()


class CampaignStarted(ActionRecorded):
    action: ClassVar[str] = "init"
    undoable: ClassVar[bool] = False
    name: str
    slug: str
    catalog: tuple[Card, ...]
    format: Format


class HeroAdded(ActionRecorded):
    action: ClassVar[str] = "hero add"
    hero: str


class KnowledgeChanged(ActionRecorded):
    action: ClassVar[str] = "hero knowledge"
    hero: str
    knowledge: int


class CardsAdded(ActionRecorded):
    action: ClassVar[str] = "add"
    cards: tuple[str, ...]
    to: str
    position: str

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class CardsDrawn(ActionRecorded):
    action: ClassVar[str] = "draw"
    stack: str
    count: int
    to: str
    cards: tuple[str, ...] = ()
    seed: int | None = None

    def named_cards(self) -> tuple[str, ...]:
        return self.cards

    def named_by_actor(self) -> tuple[str, ...]:
        return ()


class CardsSent(ActionRecorded):
    action: ClassVar[str] = "send"
    cards: tuple[str, ...]
    to: str
    position: str
    face: Face | None = None

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class CardsDiscarded(ActionRecorded):
    action: ClassVar[str] = "discard"
    cards: tuple[str, ...]
    stack: str | None = None
    seed: int | None = None

    def named_cards(self) -> tuple[str, ...]:
        return self.cards

    def named_by_actor(self) -> tuple[str, ...]:
        return () if self.stack is not None else self.cards


class CardsBuried(ActionRecorded):
    action: ClassVar[str] = "bury"
    cards: tuple[str, ...]
    to: str | None = None

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class CardsExiled(ActionRecorded):
    action: ClassVar[str] = "exile"
    cards: tuple[str, ...]

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class StackShuffled(ActionRecorded):
    action: ClassVar[str] = "shuffle"
    later: ClassVar[tuple[str, ...]] = (*ActionRecorded.later, "allowed_by")
    stack: str
    seed: int | None = None
    allowed_by: str | None = None  # the active card whose effect let a hero shuffle (ruleset 17)

    def named_cards(self) -> tuple[str, ...]:
        return (self.allowed_by,) if self.allowed_by else ()


class StackSearched(ActionRecorded):
    action: ClassVar[str] = "search"
    later: ClassVar[tuple[str, ...]] = (*ActionRecorded.later, "allowed_by", "missed")
    stack: str
    taken: tuple[str, ...]
    to: str | None
    reshuffled: bool
    seed: int | None = None
    allowed_by: str | None = None  # the active card whose effect let a hero search
    # The cards a hero's search named that the stack did not hold (from ruleset 9: her
    # search happened, and found them missing, rather than a refusal that cost nothing).
    missed: tuple[str, ...] = ()

    def named_cards(self) -> tuple[str, ...]:
        return self.taken + ((self.allowed_by,) if self.allowed_by else ()) + self.missed


class CardsRevealed(ActionRecorded):
    action: ClassVar[str] = "reveal"
    cards: tuple[str, ...]
    to: tuple[str, ...] = ()  # shown only to these heroes (reveal --to); empty: turned face-up
    later: ClassVar[tuple[str, ...]] = (*ActionRecorded.later, "to")

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class CardsHidden(ActionRecorded):
    action: ClassVar[str] = "hide"
    cards: tuple[str, ...]

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class CardsExhausted(ActionRecorded):
    action: ClassVar[str] = "exhaust"
    cards: tuple[str, ...]

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class CardsRestored(ActionRecorded):
    action: ClassVar[str] = "restore"
    cards: tuple[str, ...]

    def named_cards(self) -> tuple[str, ...]:
        return self.cards


class CardAttached(ActionRecorded):
    action: ClassVar[str] = "attach"
    card: str
    host: str

    def named_cards(self) -> tuple[str, ...]:
        return (self.card, self.host)


class CardDetached(ActionRecorded):
    action: ClassVar[str] = "detach"
    card: str
    host: str
    to: str

    def named_cards(self) -> tuple[str, ...]:
        return (self.card, self.host)

    def named_by_actor(self) -> tuple[str, ...]:
        return (self.card,)  # the host is the table's answer, which may be a card she cannot see


class CampaignSnapshot(DomainEvent):
    """The table at a version, so loading never replays from the start."""

    topic: str = "ledger.campaign:Campaign"
    state: dict[str, Any]


class CampaignRegistered(DomainEvent):
    """An entry of the campaigns log: a database may hold several campaigns."""

    slug: str
    campaign_id: UUID
    name: str


class CheckpointTaken(DomainEvent):
    """An entry of a campaign's checkpoints log: its head hash at a seq, as handed
    out to be kept (``ledger checkpoint``), signed when the ledger has a key."""

    seq: int
    head: str
    key: str | None = None
    signature: str | None = None


class SeatOpened(DomainEvent):
    """An entry of the seats log: a seat at the table server for ``who`` (master, public
    or a hero) in a campaign; only the hash of its token is kept (``ledger.seats``)."""

    campaign_id: UUID
    who: str
    token_hash: str


class SeatRevoked(DomainEvent):
    """An entry of the seats log: every token of ``who``'s seat in a campaign stops working."""

    campaign_id: UUID
    who: str


class LocationAdded(ActionRecorded):
    action: ClassVar[str] = "location add"
    location: str


class LocationSet(ActionRecorded):
    """The master corrected a location's own access levels (ruleset 17): ``access`` the
    suits named, at their new levels; the location's other suits kept theirs."""

    action: ClassVar[str] = "location set"
    location: str
    access: dict[str, int]


class HeroTravelled(ActionRecorded):
    action: ClassVar[str] = "travel"
    hero: str
    location: str


class BattleStarted(ActionRecorded):
    action: ClassVar[str] = "battle start"


class BattleEnded(ActionRecorded):
    action: ClassVar[str] = "battle end"


class AccessChanged(ActionRecorded):
    """An effect set (or cleared, ``level`` None) a location's access for a suit."""

    action: ClassVar[str] = "access"
    location: str
    suit: str
    level: int | None
    by: str | None
    affected: tuple[str, ...] | None = None  # the heroes an effect from a stack card reaches (ruleset 3)
    later: ClassVar[tuple[str, ...]] = (*ActionRecorded.later, "affected")

    def named_cards(self) -> tuple[str, ...]:
        return (self.by,) if self.by else ()


class Settlement(BaseModel):
    """One value type of a trade: the suits involved and the sums given and taken."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    type: str
    suits: tuple[str, ...]
    give: int
    take: int


class AccessUsed(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    suit: str
    level: int
    source: str


class TradeCompleted(ActionRecorded):
    """A full action: cards taken from the discard pile, paid for type by type."""

    action: ClassVar[str] = "trade"
    hero: str
    taken: tuple[str, ...]
    given: tuple[str, ...]
    attach: dict[str, str] = {}
    location: str
    battle: bool
    access: tuple[AccessUsed, ...]
    settlement: tuple[Settlement, ...]

    def named_cards(self) -> tuple[str, ...]:
        return self.taken + self.given

    def cards_mentioned(self) -> set[str]:
        return super().cards_mentioned() | set(self.attach.values())  # the companions: maybe face-down in a hand


class SheetCardObtained(ActionRecorded):
    """A hero obtained a sheet card by its mechanic at a location that allows it (seed 000)."""

    action: ClassVar[str] = "obtain"
    hero: str
    card: str
    mechanic: str
    source: str
    to: str
    location: str
    battle: bool
    access: AccessUsed
    cost: str | None = None

    def named_cards(self) -> tuple[str, ...]:
        return (self.card,)


class CardActivated(ActionRecorded):
    action: ClassVar[str] = "activate"
    card: str
    hero: str | None
    effect: int
    effect_kind: str
    source: str
    went_to: str | None = None
    target: str | None = None
    note: str | None = None
    action_points: int | None = None
    energies: dict[str, int] = {}
    affected: tuple[str, ...] | None = None  # the heroes a stack card's effect reaches (ruleset 3)
    allowed_by: str | None = None  # the active card whose effect let a hero activate this one (ruleset 17)
    later: ClassVar[tuple[str, ...]] = (*ActionRecorded.later, "affected", "allowed_by")

    def named_cards(self) -> tuple[str, ...]:
        return (self.card,) + ((self.allowed_by,) if self.allowed_by else ())

    def shown_to_all(self) -> tuple[str, ...]:
        return (self.card,)  # an activation is declared at the table


class ActionUndone(ActionRecorded):
    """Actions taken back: their changes inverted, newest first. They stay in the log."""

    action: ClassVar[str] = "undo"
    undoable: ClassVar[bool] = False
    later: ClassVar[tuple[str, ...]] = (*ActionRecorded.later, "keep_order", "reshuffled_stacks")
    targets: tuple[int, ...]
    live_head: int | None  # the latest action still in force after this undo
    # Face-down decks the taken-back actions had let someone see into, shuffled
    # again in this undo (fair play); unless the master decided to keep the order.
    reshuffled_stacks: tuple[str, ...] = ()
    keep_order: bool = False

    def keep_books(self, books: LogBooks) -> None:
        books.live_head = self.live_head
        books.redo_stack.append(self.seq)


class ActionRedone(ActionRecorded):
    """What the latest undo took back, applied again."""

    action: ClassVar[str] = "redo"
    undoable: ClassVar[bool] = False
    undo: int
    targets: tuple[int, ...]

    def keep_books(self, books: LogBooks) -> None:
        books.live_head = self.targets[0]
        if books.redo_stack and books.redo_stack[-1] == self.undo:
            books.redo_stack.pop()


def event_class(topic: str) -> type[DomainEvent] | None:
    """The class a stored record's topic names, if it is one of the ledger's own event
    classes (``ledger.events:Name``); else None, and nothing is imported. A topic is read
    from the file, where anyone may change it: resolving it as eventsourcing does would
    import whatever module it names, running its code (``this:s`` printed to stdout)."""
    module, _, name = topic.partition(":")
    found = globals().get(name) if module == __name__ else None
    return found if isinstance(found, type) and issubclass(found, DomainEvent) else None
