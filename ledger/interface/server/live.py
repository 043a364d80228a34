"""Live: every recorded action reaches every open stream of its campaign, already
filtered for each seat (SERVER.md ``/stream``).

The follower watches the log's position (the highest notification id: one small query
every ``POLL`` seconds, or at once when this process recorded an action). When it
moves, it reads the new actions of each campaign that has open streams, folds them
into its own copy of the campaign (the one fold, ``Ledger.project``), and builds each
action's view once per viewer (``projections.views.recorded_view``). Actions recorded by
any process, the CLI's included, are found the same way. A stream whose seat was
revoked is told so and closed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from ...seats import Seat
from .clerk import Clerk

POLL = 0.1  # seconds between looks at the log's position
QUEUE = 10_000  # actions a slow stream may fall behind before it is closed
log = logging.getLogger("ledger.server")


@dataclass(eq=False)
class Stream:
    """One open stream: its seat and the queue of what it is to be sent (None: closed)."""

    seat: Seat
    queue: asyncio.Queue[dict[str, Any] | None] = field(default_factory=lambda: asyncio.Queue(QUEUE))


class Follower:
    def __init__(self, clerk: Clerk):
        self.clerk = clerk
        self.streams: dict[UUID, set[Stream]] = {}
        self.wake = asyncio.Event()
        self._position = -1
        self._copies: dict[UUID, Any] = {}  # the follower's own copy of each followed campaign
        self._lock = threading.Lock()  # the streams are opened on the event loop, listed on the clerk
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        for streams in self.streams.values():
            for stream in streams:
                stream.queue.put_nowait(None)

    async def open(self, seat: Seat) -> Stream:
        """A stream of ``seat``'s campaign: every action recorded from now on is sent to it."""
        stream = Stream(seat)
        await self.clerk(self._follow, seat.campaign)
        with self._lock:
            self.streams.setdefault(seat.campaign, set()).add(stream)
        return stream

    def close(self, stream: Stream) -> None:
        with self._lock:
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
            except Exception:  # a passing storage problem: look again at the next poll
                log.exception("following the log failed; trying again")
                await asyncio.sleep(1)
                continue
            for stream, payload in sends:
                try:
                    stream.queue.put_nowait(payload)
                except asyncio.QueueFull:  # a stream that stopped reading: closed, its page reloads
                    self.close(stream)
                    stream.queue = asyncio.Queue(1)
                    stream.queue.put_nowait(None)

    # -- on the clerk's thread ----------------------------------------------------
    def _follow(self, cid: UUID) -> None:
        if cid not in self._copies:
            self._copies[cid] = self.clerk.ledger.campaign(cid).copy()

    def _poll(self) -> list[tuple[Stream, dict[str, Any] | None]]:
        """The new actions of every followed campaign, each as every open stream of it
        is to receive it. The streams are listed after the actions are read, so a
        stream opened meanwhile misses nothing recorded after it opened."""
        from projections.views import recorded_view

        ledger = self.clerk.ledger
        top = ledger.stored_event_count()
        if top == self._position:
            return []
        self._position = top
        seats = self.clerk.seats
        seats.refresh()
        news = {cid: ledger.actions(cid, gt=copy.version) for cid, copy in self._copies.items()}
        with self._lock:
            watched = {cid: list(streams) for cid, streams in self.streams.items()}
        sends: list[tuple[Stream, dict[str, Any] | None]] = []
        for cid, events in news.items():
            streams = watched.get(cid, [])
            for stream in streams:
                if not seats.holds(stream.seat):
                    sends.append((stream, None))
            copy = self._copies[cid]
            for event in events:
                copy = ledger.project(copy, [event])
                checkpoint = self.clerk.checkpoint(cid, event.seq, event.hash)
                views: dict[str, dict[str, Any]] = {}
                for stream in streams:
                    viewer = stream.seat.viewer
                    if viewer not in views:
                        views[viewer] = recorded_view(event, copy, viewer, checkpoint)
                    sends.append((stream, views[viewer]))
            self._copies[cid] = copy
        return sends
