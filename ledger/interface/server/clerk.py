"""The clerk: the one thread of a server process that touches the campaign file.

The ledger, its read models and the seats book hold SQLite connections and in-memory
copies of campaigns, which belong to one thread; every request hands its work to the
clerk (``await clerk(fn, ...)``) and the event loop stays free for streams. A request
records an action in about a millisecond, so one clerk keeps up with a table of
players; more server processes (``ledger serve --workers N``) each have their own,
and the store's own concurrency control keeps them apart, as between CLI processes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar
from uuid import UUID

from ...errors import LedgerError

T = TypeVar("T")
log = logging.getLogger("ledger.server")


class Clerk:
    """Runs functions on the clerk's thread; opens the file there on first use."""

    def __init__(self, db: str):
        self.db = db
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="ledger-clerk")
        self._ledger: Any = None
        self._model: Any = None
        self._seats: Any = None
        self._signer: Any = None
        self._slugs: dict[UUID, str] = {}

    async def __call__(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, partial(fn, *args))

    # -- what lives on the clerk's thread (call only through the clerk) ------------
    @property
    def ledger(self) -> Any:
        if self._ledger is None:
            from ...application import Ledger

            self._ledger = Ledger.open(self.db)
        return self._ledger

    @property
    def seats(self) -> Any:
        if self._seats is None:
            from ...seats import SeatBook

            self._seats = SeatBook(self.ledger)
        return self._seats

    def model(self, recorded: Any = None) -> Any:
        """The read models, caught up with the log (rebuilt, with a log line, if they
        did not follow it: ``projections.readmodel``)."""
        from projections.readmodel import ReadModel

        if self._model is None:
            self._model = ReadModel(self.ledger, self.db)
        self._model.safe_catch_up(recorded)
        if self._model.repaired:
            log.warning("the read models did not follow the log (%s); rebuilt them", self._model.repaired)
        return self._model

    def signer(self) -> Any:
        """The master's signing key if the server's user has one, for checkpoints; a key
        it may not read leaves them unsigned (as for the CLI's views)."""
        if self._signer is None:
            from ...signing import key_path, load_signer

            try:
                self._signer = load_signer(key_path()) or False
            except LedgerError:
                self._signer = False
        return self._signer or None

    def slug(self, cid: UUID) -> str:
        if cid not in self._slugs:
            self._slugs = {e.campaign_id: e.slug for e in self.ledger.campaigns()}
        return self._slugs[cid]

    def checkpoint(self, cid: UUID, seq: int, head: str) -> dict[str, Any]:
        from ...checkpoints import take

        return take(cid, seq, head, self.signer()).as_dict()

    def close(self) -> None:
        """Closes the file's connections (on the clerk's thread), then the thread."""

        def shut() -> None:
            if self._model is not None:
                self._model.close()
            if self._ledger is not None:
                self._ledger.close()

        self._pool.submit(shut).result()
        self._pool.shutdown()
