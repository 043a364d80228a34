"""What the read side needs from the write side, as protocols: the read models
follow a log and fold it with the campaign's own fold, but never import the
application that decides actions (``ledger.application.Ledger`` fits these)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol
from uuid import UUID

from ledger.campaign import Campaign
from ledger.events import ActionRecorded


class EventLog(Protocol):
    """A campaign database: its notification log (eventsourcing's recorder and
    mapper), the one fold, and campaigns at any seq."""

    recorder: Any
    mapper: Any
    factory: Any

    def project(self, campaign: Campaign | None, events: Iterable[object]) -> Campaign | None: ...

    def campaign(self, cid: UUID, at: int | None = None, checked: bool = True) -> Campaign: ...

    def event(self, cid: UUID, seq: int) -> ActionRecorded: ...

    def actions(self, cid: UUID, gt: int | None = None, lte: int | None = None) -> list[ActionRecorded]: ...

    def campaigns(self) -> list[Any]: ...

    def last_seq(self, cid: UUID) -> int: ...

    def stream_of(self, slug: str) -> UUID: ...


class Recorded(Protocol):
    """An action the write path has just recorded: its seq, its event, and the
    campaign right after it."""

    seq: int
    event: ActionRecorded
    campaign: Campaign
