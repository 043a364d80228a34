"""Seats at the table server (SERVER.md "Seats"): who may reach a campaign from their
own device, and as whom.

A seat is a campaign, a ``who`` (``master``, ``public`` or a hero id) and the SHA-256 of
a random token (192 bits from ``secrets``). The token is handed out once, in a join URL,
and never stored. Seats live in the file's seats log, an eventsourcing log reached
through the recorder API like the checkpoints log, so that a seat revoked at the CLI
stops working at a running server's next request (``SeatBook.refresh`` reads only what
was appended since it last looked).

A seat fixes both who acts and whose view is shown: ``Seat.actor`` and ``Seat.viewer``.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from uuid import UUID, uuid5

from eventsourcing.persistence import IntegrityError

from .errors import BadInput
from .events import SeatOpened, SeatRevoked
from .i18n import _
from .vocabulary import MASTER, PUBLIC, REFEREE

if TYPE_CHECKING:
    from eventsourcing.application import EventSourcedLog

    from .application import Ledger

TOKEN_BYTES = 24  # 192 bits: SERVER.md asks for at least 128


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """What is stored of a token. A plain hash is enough: a token is 192 random bits,
    so there is no small space of guesses a slow hash would protect."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Seat:
    """One token's seat: the campaign, and who it acts and sees as."""

    campaign: UUID
    who: str
    token_hash: str
    opened: datetime

    @property
    def actor(self) -> str | None:
        """Who this seat acts as: the master, a hero, or nobody (``public`` only reads)."""
        return None if self.who == PUBLIC else self.who

    @property
    def viewer(self) -> str:
        """Whose view this seat is shown: the master sees as the referee."""
        return REFEREE if self.who == MASTER else self.who


def _log(ledger: Ledger) -> EventSourcedLog[SeatOpened]:
    from eventsourcing.application import EventSourcedLog

    from .application import NAMESPACE

    return EventSourcedLog(ledger.events, uuid5(NAMESPACE, "seats"), SeatOpened)


def open_seat(ledger: Ledger, cid: UUID, who: str) -> str:
    """A new seat for ``who`` in the campaign; returns its token (shown once, never stored).
    Earlier tokens of the same seat keep working until ``revoke_seat``."""
    check_who(ledger, cid, who)
    token = new_token()
    log = _log(ledger)

    def entry() -> SeatOpened:
        return log.trigger_event(campaign_id=cid, who=who, token_hash=token_hash(token))

    _append(ledger, entry)
    return token


def revoke_seat(ledger: Ledger, cid: UUID, who: str) -> int:
    """Every token of ``who``'s seat stops working; returns how many there were."""
    book = SeatBook(ledger)
    count = sum(1 for seat in book.seats(cid) if seat.who == who)
    if not count:
        raise BadInput(_("{who} has no seat in this campaign (see ledger seat list)").format(who=who))
    log = _log(ledger)
    _append(ledger, lambda: log._trigger_event(SeatRevoked, campaign_id=cid, who=who))
    return count


def check_who(ledger: Ledger, cid: UUID, who: str) -> None:
    if who in (MASTER, PUBLIC):
        return
    if who == REFEREE:
        raise BadInput(_("the master's seat is 'master' (it sees as the referee); WHO is master, public or a hero id"))
    campaign = ledger.campaign(cid)
    lowered = who.strip().lower()  # seat add Master, seat add ' Ana'
    if lowered in (MASTER, PUBLIC, REFEREE) or lowered in campaign.table.heroes:
        near = MASTER if lowered == REFEREE else lowered
        if near != who:
            raise BadInput(_("no seat {who}: did you mean {near}? (WHO is master, public or a hero id)").format(
                who=repr(who), near=near))
    campaign.check_hero(who)


def _append(ledger: Ledger, entry: object) -> None:
    """Saves a seats-log entry, made again at the next version when another process
    appended one at the same moment."""
    for _attempt in range(50):
        try:
            ledger._guard(lambda: ledger.save(entry()))  # type: ignore[operator]
            return
        except IntegrityError:
            continue
    raise BadInput(_("other processes kept changing the seats; try again"))


class SeatBook:
    """Every seat in force, read from the seats log and kept up to date incrementally."""

    def __init__(self, ledger: Ledger):
        self._ledger = ledger
        self._log = _log(ledger)
        self._version = 0
        self._by_hash: dict[str, Seat] = {}

    def refresh(self) -> None:
        """Reads what the seats log gained since the last look (one small query)."""
        for event in self._ledger._guard(lambda: list(self._log.get(gt=self._version))):
            self._version = event.originator_version
            if isinstance(event, SeatRevoked):
                self._by_hash = {h: s for h, s in self._by_hash.items()
                                 if (s.campaign, s.who) != (event.campaign_id, event.who)}
            else:
                self._by_hash[event.token_hash] = Seat(event.campaign_id, event.who, event.token_hash,
                                                       event.timestamp)

    def find(self, token: str) -> Seat | None:
        """The seat a token opens, if it is in force."""
        self.refresh()
        return self._by_hash.get(token_hash(token))

    def holds(self, seat: Seat) -> bool:
        """Whether a seat found earlier is still in force (as of the last refresh)."""
        return seat.token_hash in self._by_hash

    def seats(self, cid: UUID) -> list[Seat]:
        self.refresh()
        return sorted((s for s in self._by_hash.values() if s.campaign == cid), key=lambda s: s.opened)
