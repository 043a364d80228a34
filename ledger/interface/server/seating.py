"""Who a request is (SERVER.md "Seats"): the seat its token opens, from the session
cookie the join page set or an ``Authorization: Bearer`` header, and nothing else.
No token or one not in force: 401. A seat asking for another campaign: 403, the same
whether that campaign exists or not. Failed token attempts are counted per client
address; past ``LIMIT`` within ``WINDOW`` seconds, every token from it that is no seat gets
429 (behind a proxy, the address it forwards, when ``ledger serve --proxy`` names it),
while a seat's token is served: players behind one address (a home's router, a proxy) are
not locked out by one of them, or by a stranger, sending bad tokens (a QA pass: ten bad
tokens locked out the whole table, master too, a minute at a time). A token is 192 random
bits: holding guessers back protects no seat, it spares the server their noise.
"""

from __future__ import annotations

import time
from collections import deque
from uuid import UUID

from fastapi import Request

from ...i18n import _
from ...seats import Seat
from .clerk import SEATED, Clerk
from .errors import Refused
from .fairness import AT_WORK

BEARER = {"WWW-Authenticate": 'Bearer realm="ledger"'}
"""A 401 says how to authenticate (RFC 9110): a seat's token, as ``Authorization: Bearer``."""

COOKIE = "ledger_seat"  # and the port: ``cookie_name``
LIMIT = 10  # failed attempts per address per window
WINDOW = 60.0  # seconds
MEMORY = 10_000  # addresses remembered before the stale ones are forgotten


class Doorman:
    """Counts failed token attempts per client address (in this server process)."""

    def __init__(self, limit: int = LIMIT, window: float = WINDOW):
        self.limit, self.window = limit, window
        self._failures: dict[str, deque[float]] = {}

    def _recent(self, address: str) -> deque[float]:
        now = time.monotonic()
        failures = self._failures.setdefault(address, deque())
        while failures and now - failures[0] > self.window:
            failures.popleft()
        if not failures:
            del self._failures[address]
            return deque()
        return failures

    def check(self, address: str) -> None:
        failures = self._recent(address)
        if len(failures) >= self.limit:
            wait = int(self.window - (time.monotonic() - failures[0])) + 1
            raise Refused(429, "too-many-attempts",
                          _("too many failed attempts from this address; try again in {wait} s").format(wait=wait),
                          headers={"Retry-After": str(wait)})

    def failed(self, address: str) -> None:
        if len(self._failures) >= MEMORY:  # many addresses at once: forget those whose window has passed
            for known in list(self._failures):
                self._recent(known)
        self._failures.setdefault(address, deque()).append(time.monotonic())


def cookie_name(request: Request) -> str:
    """The seat cookie's name at the server this request reached: ``ledger_seat_PORT``.
    Browsers send a host's cookies to every port of it, so two servers on one machine
    (two campaigns, each its own ``ledger serve``) would otherwise each take the other's
    seat from the browser: joining one would sign it out of the other."""
    port = request.url.port or (443 if request.url.scheme == "https" else 80)
    return f"{COOKIE}_{port}"


def token_of(request: Request) -> str | None:
    """The seat's token: a ``Bearer`` header's (wrong or empty, it seats nobody), else the
    join cookie's. Another scheme (a proxy's Basic authentication, say) is no seat's and
    leaves the cookie to speak."""
    header = request.headers.get("authorization")
    if header is not None:
        scheme, _sep, token = header.partition(" ")
        if scheme.lower() == "bearer":
            return token.strip()
    return request.cookies.get(cookie_name(request))


async def seat_of(request: Request, token: str | None = None) -> Seat:
    """The seat of this request (or of ``token``, for the join page)."""
    clerk: Clerk = request.app.state.clerk
    doorman: Doorman = request.app.state.doorman
    address = request.client.host if request.client else "unknown"
    token = token if token is not None else token_of(request)
    if not token:
        raise Refused(401, "no-seat", _("no seat: open the join link the master gave you, "
                                        "or send Authorization: Bearer TOKEN"), headers=BEARER)
    seat = await clerk(clerk.seats.find, token) if len(token) <= 200 else None
    if seat is None:
        doorman.check(address)  # past the limit: 429, and not counted again
        doorman.failed(address)
        raise Refused(401, "no-seat",
                      _("this link or token is not (or no longer) a seat; ask the master for a new one"),
                      headers=BEARER)
    AT_WORK.set(f"{seat.campaign}:{seat.who}")  # the rest of the request's work counts against the seat's share
    SEATED.set(seat.campaign)  # and is done only on a log that lost nothing (``Clerk``)
    # (the seat's, whichever of its links: a player with two links has one share, as one person)
    return seat


async def seat_in(request: Request, campaign: str) -> tuple[Seat, UUID]:
    """The seat of this request, which must be one of ``campaign`` (its id, the slug)."""
    seat = await seat_of(request)
    clerk: Clerk = request.app.state.clerk
    slug = await clerk(clerk.slug, seat.campaign)
    if campaign != slug:
        raise Refused(403, "other-campaign",
                      _("this seat is for campaign {slug!r}, not {campaign!r}").format(slug=slug, campaign=campaign))
    return seat, seat.campaign
