"""Live: every recorded action reaches every open stream of its campaign, already
filtered for each seat (SERVER.md ``/stream``).

The follower watches the log's position (the highest notification id: one small query
every ``POLL`` seconds, or at once when this process recorded an action, or, on
PostgreSQL, when any process records one: LISTEN/NOTIFY, ``ledger.postgres``). When it
moves, it reads the new actions of each campaign that has open streams, folds them
into its own copy of the campaign (the one fold, ``Ledger.project``), and builds each
action's view once per viewer and language (``projections.views.recorded_view``: its
summaries are read by a person), encoded once as an event; each stream then gets what
queued up for it in one write. Actions recorded by any process, the CLI's included, are
found the same way. A stream whose seat was
revoked is told so and closed. Under load the follower looks at most every ``PACE``
seconds, and the read models (history, card views) catch up at most every
``MODEL_EVERY`` seconds, at once when it quiets down, and whenever a view needs them.
A worker with no stream open only notes the log's position: with several workers
(``--workers N``), each action would otherwise cost every one of them a look at the
seats and a catch-up of the read models.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from ...errors import LedgerError, first_line, one_line
from ...i18n import ENGLISH, language, speaking
from ...seats import Seat
from .clerk import Clerk

POLL = 0.1  # seconds between looks at the log's position
PACE = 0.02  # seconds: while actions keep coming, at most one look per PACE (each stream gets them in one write)
MODEL_EVERY = 0.5  # seconds: the read models follow the log in batches (history and card views catch up anyway)
MODEL_RETRY = 5  # seconds between tries at catching up that failed for a reason of the file (a damaged record)
QUEUE = 1_000  # actions a slow stream may fall behind before it is closed (its page reloads)
log = logging.getLogger("ledger.server")

LISTEN_PATIENCE = 30.0
"""Seconds at most between two tries at listening again (PostgreSQL's LISTEN/NOTIFY)."""
STOP_PATIENCE = 2.0  # seconds the server waits, when it stops, for its following of the log to end


@dataclass(eq=False)
class Stream:
    """One open stream: its seat, the language it is spoken in (its request's), the queue
    of what it is to be sent (None: closed), and whether it was closed for a revoked seat."""

    seat: Seat
    speaks: str = ENGLISH
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE))
    revoked: bool = False  # closed because its seat was revoked (else: it fell behind, or the log changed)
    stopping: bool = False  # closed because the server stops: the page reconnects when it is back


class Follower:
    def __init__(self, clerk: Clerk):
        self.clerk = clerk
        self.streams: dict[UUID, set[Stream]] = {}
        self.wake = asyncio.Event()
        self._position = -1
        self._copies: dict[UUID, Any] = {}  # the follower's own copy of each followed campaign
        self._modeled = 0.0  # when the read models last caught up
        self._model_behind = False  # the log moved since
        self._model_retry_at = 0.0  # a failed catch-up is tried again from then
        self._model_trouble: str | None = None  # why the last catch-up failed (logged once)
        self._task: asyncio.Task[None] | None = None
        self._listener: asyncio.Task[None] | None = None  # PostgreSQL: LISTEN for announced actions
        self._failing = False  # the last look at the log failed (said once, until it works again)
        self.stopping = False  # the server stops: streams end, and new ones end at once

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())
        env = self.clerk.ledger.env
        if env.get("POSTGRES_DBNAME"):  # PostgreSQL: other workers' actions are announced (LISTEN/NOTIFY)
            from ...postgres import listen

            channel = self.clerk.ledger.recorder.channel_name
            self._listener = asyncio.get_running_loop().create_task(self._listen(listen, env, channel))

    async def _listen(self, listen: Any, env: Any, channel: str) -> None:
        """Wakes the loop whenever any process records an action; polling stays the fallback.
        A lost listening connection (the database restarting, or down) is one line in the log,
        and is tried again after a pause that doubles, to LISTEN_PATIENCE, while it keeps
        failing (a traceback a second for as long as the server was down, before)."""
        pause = 1.0
        while True:
            began = time.monotonic()
            try:
                await listen(env, channel, self.wake.set)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 — whatever it was, polling goes on
                if time.monotonic() - began > LISTEN_PATIENCE:  # it had been listening: a new outage
                    pause = 1.0
                log.warning("listening for announced actions failed (%s); polling meanwhile, listening again "
                            "in %.0f s", first_line(exc), pause)
                await asyncio.sleep(pause)
                pause = min(2 * pause, LISTEN_PATIENCE)

    async def stop(self) -> None:
        """Stops following the log. Its tasks are cancelled and waited for, up to
        STOP_PATIENCE: a listening connection caught mid-way (connecting, closing) once
        held a test's shutdown for ever, and a stopping server waits for nothing."""
        tasks = [task for task in (self._task, self._listener) if task is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            _done, pending = await asyncio.wait(tasks, timeout=STOP_PATIENCE)
            if pending:
                log.warning("following the log did not stop within %.0f s; stopping without it", STOP_PATIENCE)
        for streams in self.streams.values():
            for stream in streams:
                end(stream)

    def end_streams(self) -> None:
        """The server stops (SIGTERM, Ctrl+C): every open stream ends now, as its page's
        reconnection will find the server again. uvicorn's graceful shutdown waits for open
        connections, and a stream never ends on its own: after 2 s it cancelled each one,
        logging ~60 lines of traceback for every page open."""
        self.stopping = True
        for streams in self.streams.values():
            for stream in streams:
                stream.stopping = True
                end(stream)

    async def open(self, seat: Seat) -> Stream:
        """A stream of ``seat``'s campaign: every action recorded from now on is sent to it."""
        stream = Stream(seat, language())  # spoken as the request that opened it
        await self.clerk(self._follow, seat.campaign)
        self.streams.setdefault(seat.campaign, set()).add(stream)
        if self.stopping:  # (a request that came in on a kept-alive connection meanwhile, or while it was followed)
            stream.stopping = True
            end(stream)
        return stream

    def close(self, stream: Stream) -> None:
        streams = self.streams.get(stream.seat.campaign)
        if streams is not None:
            streams.discard(stream)

    # -- the loop ---------------------------------------------------------------
    async def _run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self.wake.wait(), POLL)
            except TimeoutError:
                pass
            self.wake.clear()
            try:
                sends = await self.clerk(self._poll)
            except Exception as exc:  # a passing storage problem: look again at the next poll
                self._failed(exc)
                await asyncio.sleep(1)
                continue
            if self._failing:
                log.warning("following the log again")
                self._failing = False
            for stream, payload in sends:
                try:
                    stream.queue.put_nowait(payload)
                except asyncio.QueueFull:  # a stream that stopped reading: closed, its page reloads
                    self.close(stream)
                    end(stream)
            if self._model_behind and self.streams and time.monotonic() >= self._model_retry_at \
                    and (not sends or time.monotonic() - self._modeled >= MODEL_EVERY):
                try:  # once per MODEL_EVERY under load, at once when it quiets down
                    await self.clerk(self.clerk.model)
                    self._model_behind, self._modeled, self._model_trouble = False, time.monotonic(), None
                except Exception as exc:
                    self._model_failed(exc)
            if sends:
                await asyncio.sleep(PACE)

    def _model_failed(self, exc: Exception) -> None:
        """A failed catch-up of the read models: a damaged record (it stays until the master
        sees to it), a table of the store dropped, or the database down (until it is back)
        is one line, said again only when the trouble changes, and tried again every
        ``MODEL_RETRY`` s (a QA pass: a traceback a second while PostgreSQL was down);
        anything else is unexpected, with its traceback."""
        from ...postgres import connection_lost, missing_relation

        lost = (missing_relation(exc) or connection_lost(exc)) if not isinstance(exc, LedgerError) else None
        if not isinstance(exc, LedgerError) and lost is None:
            log.exception("catching the read models up failed; trying again")
            self._model_retry_at = time.monotonic() + 1
            return
        trouble = str(lost or exc)
        if trouble != self._model_trouble:
            with speaking(ENGLISH):
                log.warning("catching the read models up failed (%s); trying again every %d s",
                            one_line(trouble)[:300], MODEL_RETRY)
        self._model_trouble, self._model_retry_at = trouble, time.monotonic() + MODEL_RETRY

    def _failed(self, exc: Exception) -> None:
        """A failed look at the log: a storage problem (the database down, a connection cut)
        is one line when it begins, not one a second while it lasts; anything else is
        unexpected, and logged with its traceback."""
        from ...postgres import connection_lost

        if not isinstance(exc, LedgerError) and connection_lost(exc) is None:
            log.exception("following the log failed; trying again")
        elif not self._failing:
            log.warning("following the log failed (%s); trying again every second until it works",
                        one_line(str(exc))[:300])
        self._failing = True

    # -- the clerk's work ---------------------------------------------------------
    def _follow(self, cid: UUID) -> None:
        if cid not in self._copies:
            self._copies[cid] = self.clerk.ledger.campaign(cid).copy()

    def _poll(self) -> list[tuple[Stream, str | None]]:
        """The new actions of every followed campaign, each as every open stream of it
        is to receive it (a stream's copy of the campaign starts when it opens, so it
        misses nothing recorded after that)."""
        ledger = self.clerk.ledger
        top = ledger.stored_event_count()
        if top == self._position:
            return []
        if top < self._position:  # the log lost notifications (cut behind our back): no copy is to be trusted;
            log.warning("the log shrank from notification %d to %d; its streams are closed", self._position, top)
            self._position, self._copies = top, {}  # the pages reload, and their streams start from the log
            return [(stream, None) for streams in self.streams.values() for stream in streams]
        if not self._copies:  # no stream open here: nothing to build (other workers' streams are theirs)
            self._position = top
            return []
        seats = self.clerk.seats
        seats.refresh()
        news = {cid: ledger.actions(cid, gt=copy.version) for cid, copy in self._copies.items()}
        self._position = top  # only once read: a failed read is tried again at the next poll
        self._model_behind = True
        watched = {cid: list(streams) for cid, streams in self.streams.items()}
        sends: list[tuple[Stream, str | None]] = []
        for cid, events in news.items():
            streams = watched.get(cid, [])
            for stream in streams:
                if not seats.holds(stream.seat):
                    stream.revoked = True
                    sends.append((stream, None))
            try:
                sends += self._views(cid, events, streams)
            except Exception:  # one campaign's failure: its streams reload, the others go on
                log.exception("building the views of campaign %s failed; its streams are closed", cid)
                self._copies.pop(cid, None)
                sends += [(stream, None) for stream in streams]
        return sends

    def _views(self, cid: UUID, events: list[Any], streams: list[Stream]) -> list[tuple[Stream, str | None]]:
        """The new actions of one campaign as each of its streams is to receive them; its
        copy moves on only once they are all built."""
        from projections.views import recorded_view

        from ...integrity import checked_chain

        copy = self._copies[cid].copy()
        sends: list[tuple[Stream, str | None]] = []
        for event in checked_chain(events, copy.last_hash):  # one edited in the file is neither sent nor signed
            copy = self.clerk.ledger.project(copy, [event])
            checkpoint = self.clerk.checkpoint(cid, event.seq, event.hash)
            views: dict[tuple[str, str], str] = {}
            for stream in streams:
                key = (stream.seat.viewer, stream.speaks)
                if key not in views:
                    with speaking(stream.speaks):
                        views[key] = sse(recorded_view(event, copy, stream.seat.viewer, checkpoint))
                sends.append((stream, views[key]))
        self._copies[cid] = copy
        return sends


def end(stream: Stream) -> None:
    """Tells a stream it is closed (a full queue is replaced: the stream ends at once)."""
    try:
        stream.queue.put_nowait(None)
    except asyncio.QueueFull:
        stream.queue = asyncio.Queue(1)
        stream.queue.put_nowait(None)


def sse(view: dict[str, Any]) -> str:
    """An action's view as one Server-Sent Event, encoded once for every stream of its viewer."""
    return f"id: {view['seq']}\nevent: action\ndata: {json.dumps(view)}\n\n"
