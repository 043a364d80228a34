"""Each seat's fair share of the table server's time.

A server process does its work one piece at a time (``clerk``): a seat that asks for
heavy reads back to back (a history of 5,000 entries in Portuguese takes ~0.5 s) would
hold every other seat at the table meanwhile, their actions and their live streams.
So while other seats are asking too, each seat may use at most ``SHARE`` of the clerk's
time over the last ``WINDOW`` seconds; past it, its requests get 429 with ``Retry-After``
until its share frees up, while every other seat is served as before. A seat alone at
the server (the master's script, say) is not held back. A page and its live stream use
a few milliseconds a minute; the limit is only ever met by a seat that asks for nothing
but work. The time is counted per seat (its campaign and who it is, whichever of its
links asks), in this server process.
"""

from __future__ import annotations

import contextvars
import math
import time
from collections import deque

from ...i18n import _
from .errors import Refused

SHARE = 0.5
"""The most of the clerk's time one seat may take over ``WINDOW``."""

WINDOW = 10.0
"""Seconds over which a seat's time is counted."""

AT_WORK: contextvars.ContextVar[str | None] = contextvars.ContextVar("seat_at_work", default=None)
"""The seat (``campaign:who``) whose request is being served, set once the request is
seated (``seating.seat_of``); None for the server's own work (following the log)."""


class FairShare:
    """The clerk's time each seat used recently."""

    def __init__(self, share: float = SHARE, window: float = WINDOW):
        self.share, self.window = share, window
        self._used: dict[str, deque[tuple[float, float]]] = {}  # seat -> (when it ended, seconds)

    def _recent(self, seat: str, now: float) -> deque[tuple[float, float]]:
        used = self._used.get(seat)
        if used is None:
            return deque()
        while used and now - used[0][0] > self.window:
            used.popleft()
        if not used:
            del self._used[seat]
        return used

    def check(self, seat: str) -> None:
        """Refuses (429) a seat that used more than its share over the window while another
        seat asked for work in it too."""
        now = time.monotonic()
        used = self._recent(seat, now)
        spent = sum(seconds for _ended, seconds in used)
        if spent <= self.share * self.window or not self._others(seat, now):
            return
        over, wait = spent - self.share * self.window, 0.0
        for ended, seconds in used:  # the wait until enough of it has left the window
            over -= seconds
            wait = ended + self.window - now
            if over < 0:
                break
        wait_s = max(1, math.ceil(wait))
        raise Refused(429, "too-busy",
                      _("this seat asked for more of the server's time than its share; try again in {wait} s "
                        "(the other seats are being served)").format(wait=wait_s),
                      headers={"Retry-After": str(wait_s)})

    def _others(self, seat: str, now: float) -> bool:
        """Did another seat ask for work within the window?"""
        return any(self._recent(other, now) for other in list(self._used) if other != seat)

    def used(self, seat: str, seconds: float) -> None:
        self._used.setdefault(seat, deque()).append((time.monotonic(), seconds))
        if len(self._used) > 10_000:  # many seats at once: forget those whose window has passed
            now = time.monotonic()
            for known in list(self._used):
                self._recent(known, now)
