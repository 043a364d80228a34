"""The clerk: what of a server process touches the campaign file, in one place.

The ledger, its read models and the seats book hold SQLite connections and in-memory
copies of campaigns; every request hands its work to the clerk (``await clerk(fn,
...)``). The work runs on the event loop itself: recording an action takes about a
millisecond, and measured under load (tests/benchmarks/server_load.py) a thread of its
own cost more than the work, in GIL hand-offs (3.9 ms of CPU per action against 2.7 ms
inline, 225 against 350 actions/s). Streams are served between two pieces of work.
A piece of work that meets the file's write lock held by another program (the master's
``ledger rebuild`` or ``import``, a script, another server process) waits for it off the
event loop: SQLite itself waits only ``SQLITE_WAIT``, then the piece sleeps (``asyncio``)
and tries again, ever less often up to ``LOCK_STEP``, while the other requests and streams
are served, up to ``LEDGER_LOCK_TIMEOUT`` (30 s) in all; only that request then gets its
503. Actions (``in_turn``) meet the lock one at a time, in the order they came: a hero's
draw and the master's undo meant for it are not swapped. Waiting inside SQLite, as before,
held every seat.
More server processes (``ledger serve --workers N``) each have their own clerk, and the
store's own concurrency control keeps them apart, as between CLI processes.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar
from uuid import UUID

from ...errors import DamagedRecord, FileBusy, LedgerError, StoreError
from ...i18n import ENGLISH, _, speaking
from .fairness import AT_WORK, FairShare

T = TypeVar("T")
log = logging.getLogger("ledger.server")

SEATED: contextvars.ContextVar[UUID | None] = contextvars.ContextVar("campaign_at_work", default=None)
"""The campaign of the seat whose request is being served (set with ``fairness.AT_WORK``
once the request is seated); None for the server's own work."""


class Clerk:
    """Does the work that needs the campaign file; opens it on first use."""

    UNANSWERED_HOLD = 5.0
    """Seconds during which work is refused at once after the database did not answer; it
    doubles, to UNANSWERED_HOLD_MAX, while each ask after it goes unanswered too (each
    such ask holds every seat for the pool's wait), and is back to this once it answers."""
    UNANSWERED_HOLD_MAX = 60.0
    SQLITE_WAIT = 0.02
    """Seconds SQLite itself waits for the file's write lock (a wait that holds the event loop):
    enough for another server process's own transaction (``--workers N``; 5 ms cost two
    workers a fifth of their actions/s, redoing decisions), short beside a 30 s wait."""
    LOCK_STEP = 0.05
    """The longest sleep between two tries at the lock (the first ones come sooner)."""

    def __init__(self, db: str):
        from ...postgres import is_postgres
        from ...store import lock_timeout

        self.db = db
        # LEDGER_LOCK_TIMEOUT: how long in all a piece of work waits for the file's lock
        self.lock_patience = 0.0 if is_postgres(db) else lock_timeout()
        self._turn = asyncio.Lock()  # actions meet the file's lock in the order they came (first come, first served)
        self._unanswered_until = 0.0  # monotonic time until which the database is taken to be down
        self._hold = self.UNANSWERED_HOLD  # the next hold, if it does not answer
        self.fair = FairShare()  # each seat's share of this time
        self._in_hand: dict[str, list[Any]] = {}  # seat -> [its lock, its requests in hand]: one at a time
        self._ledger: Any = None
        self._model: Any = None
        self._seats: Any = None
        self._signer: Any = None
        self._slugs: dict[UUID, str] = {}

    async def __call__(self, fn: Callable[..., T], *args: Any, in_turn: bool = False,
                       still_asked: Callable[[], Awaitable[bool]] | None = None) -> T:
        """Does ``fn(*args)`` with the file (a coroutine, so that callers need not know
        where it runs: a thread of its own would be one line here). ``in_turn``: an
        action, done after the actions that came before it (``_turn``). ``still_asked``:
        whether its client still waits for the answer; one that left while the action
        waited (for its turn or for the file's lock) is not done (its player may well have
        asked again).

        A PostgreSQL server that did not answer (the pool waited its whole timeout, ~5 s,
        for a connection) is not asked again for ``UNANSWERED_HOLD`` seconds, longer while
        it keeps not answering: meanwhile every piece of work is refused at once (503 for a
        retry), rather than holding every seat for another wait; the first piece after
        that asks again. A seat's request is done only within the seat's share of this
        time (``fairness``: 429), and not at all on a campaign whose log lost actions the
        read models recorded (``ReadModel.refuse_cut_log``, the campaign's own check: two
        one-row reads; recording an action checks the whole file). A cut in another
        campaign of the file, met by a catch-up (which would rebuild over it) or by
        recording, stops this seat too, but is not named to it: seats do not learn of
        other campaigns."""
        seat, came = AT_WORK.get(), time.monotonic()  # its patience runs from here, every wait included
        if seat is None:
            return await self._served(seat, fn, args, in_turn, still_asked, came)
        # A seat's requests are served one at a time, each after the requests of other seats
        # that came meanwhile: ten histories sent at once were served back to back, ahead of
        # every other seat, until the share's check stopped them (~5 s of the master's page
        # held; found by a QA pass). Holding its turn, a request first lets the other requests
        # that are ready reach the clerk: the seat's own queue behind it, the others' go first.
        entry = self._in_hand.setdefault(seat, [asyncio.Lock(), 0])
        entry[1] += 1
        try:
            async with entry[0]:
                await asyncio.sleep(0)
                self.fair.check(seat)  # within its share of this time (``fairness``)
                return await self._served(seat, fn, args, in_turn, still_asked, came)
        finally:
            entry[1] -= 1
            if not entry[1]:
                self._in_hand.pop(seat, None)

    async def _served(self, seat: Any, fn: Callable[..., T], args: tuple[Any, ...], in_turn: bool,
                      still_asked: Callable[[], Awaitable[bool]] | None, came: float) -> T:
        if time.monotonic() < self._unanswered_until:
            raise StoreError(_("the database does not answer just now; nothing was recorded, try again in a few "
                               "seconds"))
        if not in_turn:
            return await self._tried(seat, fn, args, came, still_asked)
        async with self._turn:
            return await self._tried(seat, fn, args, came, still_asked)

    async def _tried(self, seat: Any, fn: Callable[..., T], args: tuple[Any, ...], came: float,
                     still_asked: Callable[[], Awaitable[bool]] | None) -> T:
        """``fn(*args)``, tried again while another program holds the file's write lock
        (``FileBusy``: nothing of it was written), sleeping between tries so that other
        work is served, until ``lock_patience`` after ``came``, or until its client left."""
        pause = self.SQLITE_WAIT
        while True:
            if still_asked is not None and time.monotonic() - came > self.SQLITE_WAIT and not await still_asked():
                raise FileBusy(_("the request was given up while it waited; nothing was recorded"))
            try:
                return self._do(seat, fn, args)
            except FileBusy:
                recorded = self._ledger.saves if self._ledger is not None else 0
                while True:  # asleep until the lock looks free: the work (a catch-up's folding) is not redone meanwhile
                    if recorded or time.monotonic() - came >= self.lock_patience:
                        raise self._busy(recorded) from None
                    pause = min(2 * pause, self.LOCK_STEP)
                    await asyncio.sleep(pause)
                    if self._lock_free():
                        break

    def _lock_free(self) -> bool:
        """Can this process take the file's write lock just now? (A write transaction that
        writes nothing, waiting ``SQLITE_WAIT`` at most.)"""
        try:
            with self.ledger.factory.datastore.transaction(commit=True):
                pass
        except FileBusy:
            return False
        return True

    def _busy(self, recorded: int) -> FileBusy:
        """The 503 of a piece of work that waited ``lock_patience`` for the lock in vain
        (or recorded before meeting it), saying how many actions it recorded: its own."""
        from ...storage_errors import LOCKED, Problem, problem_message

        waited = None if recorded else self.lock_patience  # one that recorded did not wait it out
        return FileBusy(problem_message(Problem(LOCKED, seconds=waited), self.db, recorded=recorded))

    def _do(self, seat: Any, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        """One try at ``fn(*args)`` (``__call__``). Of a try that met the file's lock, the
        seat's share of the server's time (``fairness``) counts the work, not SQLite's wait."""
        began = time.perf_counter()
        locked_out = False
        seated = SEATED.get()
        if self._ledger is not None:
            self._ledger.begin_work()  # a storage error counts this piece's actions, not the process's
        try:
            if seated is not None:  # nothing shown or recorded on a log that lost actions
                slug = self._slug_of(seated)
                self.read_models().refuse_cut_log(None if slug is None else (seated, slug), whole_file=False)
            done = fn(*args)
        except Exception as exc:
            from ...postgres import unanswered

            locked_out = isinstance(exc, FileBusy)
            if unanswered(exc):
                self._unanswered_until = time.monotonic() + self._hold
                self._hold = min(2 * self._hold, self.UNANSWERED_HOLD_MAX)
            if seated is not None and isinstance(exc, DamagedRecord) and exc.campaign not in (
                    None, self._slug_of(seated)):  # another campaign's damage (a cut, its order): not named here
                raise DamagedRecord(_("the campaign file was changed or damaged, and nothing is shown or recorded "
                                      "from it until the master sees to it (ledger verify says what happened)"),
                                    exc) from None
            raise
        else:
            self._hold = self.UNANSWERED_HOLD
            return done
        finally:
            if seat is not None:  # a try that met the lock: its work counted, not SQLite's wait
                spent = time.perf_counter() - began
                self.fair.used(seat, max(0.0, spent - self.SQLITE_WAIT) if locked_out else spent)

    # -- the file's objects (used only through the clerk) --------------------------
    @property
    def ledger(self) -> Any:
        if self._ledger is None:
            from ...application import Ledger

            self._ledger = Ledger.open(self.db, lock_wait=self.SQLITE_WAIT)
            self._ledger.held_checked = True  # long-lived beside other writers: its copies checked before use
        return self._ledger

    @property
    def seats(self) -> Any:
        if self._seats is None:
            from ...seats import SeatBook

            self._seats = SeatBook(self.ledger)
        return self._seats

    def read_models(self) -> Any:
        """The read models as they stand (not caught up)."""
        from projections.readmodel import ReadModel

        if self._model is None:
            self._model = ReadModel(self.ledger, self.db)
        return self._model

    def model(self, recorded: Any = None) -> Any:
        """The read models, caught up with the log (rebuilt, with a log line, if they
        did not follow it: ``projections.readmodel``)."""
        self.read_models().safe_catch_up(recorded)
        if self._model.repaired:
            # the server's log is English whatever the request speaks (the reason is the read
            # model's, which keeps it English); formatted here, inside that language
            with speaking(ENGLISH):
                log.warning("the read models did not follow the log (%s); rebuilt them", self._model.repaired)
        if self._model.stopped:  # that campaign's reads are refused in these words; the others go on
            from projections.readmodel import stopped_at

            with speaking(ENGLISH):
                for found in self._model.stopped:
                    log.warning("%s", stopped_at(found.slug, found.seq, found.kind))
        return self._model

    def model_of(self, slug: str, seq: int) -> Any:
        """The read models for a view of campaign ``slug`` up to its action ``seq``: caught
        up; while another program holds the file's write lock, as they stand if they hold
        that campaign up to ``seq`` already (what they lag behind is then other campaigns'
        actions or the file's own records: seats, checkpoints), else the wait goes on."""
        try:
            return self.model()
        except FileBusy:
            model = self.read_models()
            if not model.distrusted and model.position_problem() is None \
                    and (model.last_history_seq(slug) or 0) >= seq:
                return model  # (tables found not to follow the log are never read as they stand)
            raise

    def signer(self) -> Any:
        """The master's signing key if the server's user has one, for checkpoints; a key
        it may not read leaves them unsigned, and a warning in the server's log says so
        (as a ``note:`` line does for the CLI's views)."""
        if self._signer is None:
            from ...signing import key_path, load_signer

            try:
                self._signer = load_signer(key_path()) or False
            except LedgerError as exc:
                log.warning("%s; the checkpoints served are not signed", exc)
                self._signer = False
        return self._signer or None

    def slug(self, cid: UUID) -> str:
        if cid not in self._slugs:
            self._slugs = {e.campaign_id: e.slug for e in self.ledger.campaigns()}
        return self._slugs[cid]

    def _slug_of(self, cid: UUID) -> str | None:
        try:
            return self.slug(cid)
        except KeyError:  # a seat of a campaign the list no longer names
            return None

    def checkpoint(self, cid: UUID, seq: int | None = None, head: str | None = None) -> dict[str, Any]:
        """The checkpoint right after action ``seq`` (whose hash is ``head``; left out: the
        campaign's latest): signed, unless the key's own earlier signature kept in the
        database contradicts the log (``Ledger.vouched``), then unsigned, and the server's
        log says why."""
        checkpoint, broken = self.ledger.vouched(cid, self.signer(), seq, head)
        if broken is not None:
            log.warning("checkpoint of campaign %s left unsigned: %s", cid, broken)
        return checkpoint.as_dict()

    def latest_checkpoint(self, cid: UUID) -> dict[str, Any]:
        """The campaign's latest checkpoint, which every view carries (as the CLI's do)."""
        return self.checkpoint(cid)

    def close(self) -> None:
        """Closes the file's connections."""
        if self._model is not None:
            self._model.close()
        if self._ledger is not None:
            self._ledger.close()
