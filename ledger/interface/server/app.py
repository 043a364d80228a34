"""The table server's application (SERVER.md): the JSON API, the stream and the pages,
over the same ledger, rules and projections as the CLI.

Every route finds its seat first (``seating``), then has the clerk do its work
(``clerk``): the seat's viewer decides what a reply may show, and its actor who acts;
nothing in the request can widen either.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import re
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated, Any
from uuid import UUID

from fastapi import Body, Depends, FastAPI, Path, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BeforeValidator
from starlette.exceptions import HTTPException

from ...i18n import N_, _
from ...seats import Seat
from ...terms import zone_name
from ...texts import escaped
from ...vocabulary import REFEREE
from . import errors, pages
from .bodies import ActionBody, named_once
from .clerk import Clerk
from .errors import ErrorBody, Refused
from .live import Follower
from .seating import Doorman, seat_in
from .speech import Speaking

log = logging.getLogger("ledger.server")
_JOIN = re.compile(r"/join/[^\s?\"]+")


def _in_digits(value: Any) -> Any:
    """A number in a query or a path is written in ASCII digits only: ``1_0``, ``+3``, `` 3``
    and ``3.0``, which Python's int() would read, are refused, as a body's ``"2"`` is
    (SERVER.md "Errors": a value of the wrong type is refused, never converted)."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError(_("a whole number written in digits (e.g. 12)"))
    return value


DIGITS = BeforeValidator(_in_digits)
SEQ = Query(ge=1, le=2**53, description="A seq: right after that action.")
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorBody, "description": text} for status, text in (
        (401, "no seat: no token, or one not in force"), (403, "a seat of another campaign, or not allowed"),
        (409, "refused under the rules"), (413, "a body too large"), (422, "not a request this endpoint takes"),
        (429, "too many failed token attempts, or a seat past its share of the server's time"), (500, "a record in the campaign file is damaged (`ledger verify` names it)"),
        (503, "the campaign file cannot be used now"))
}
HISTORY_MAX = 5_000
"""The most history entries one request gets (the latest, oldest first; ``to`` pages back):
the work runs on the event loop, and a whole long history would hold every other seat."""
MAX_BODY = 1_000_000  # bytes: an action's body is a few hundred; a larger one is refused before it is read whole
TOO_LARGE = N_("the body is too large for an action (at most {limit} bytes)")
UNSEEN = {"model": ErrorBody, "description": "no such card that this seat can see"}
CAMPAIGN = Annotated[str, Path(description="The campaign's id (as ledger campaigns lists it).", max_length=64)]


async def seated(request: Request, campaign: CAMPAIGN) -> tuple[Seat, UUID]:
    """The request's seat, of this campaign: found before anything else of the request is
    read (a request without a seat is a 401 whatever its body). A query that gives a
    parameter twice (``?at=5&at=6``) is refused: it is not one question."""
    found = await seat_in(request, campaign)
    _one_question(request)
    return found


def _one_question(request: Request) -> None:
    """Refuses a query that gives a parameter twice (``?at=5&at=6``: which is asked?), in
    one pass (a query of 5,000 keys costs 5,000 looks)."""
    given: set[str] = set()
    for key, _value in request.query_params.multi_items():
        if key in given:
            raise Refused(422, "bad-input", _("{name} is given more than once; give it once").format(
                name=repr(key if len(key) <= 40 else key[:40] + "…")))
        given.add(key)


SEATED = Annotated[tuple[Seat, UUID], Depends(seated)]


async def _each_field_once(request: Request, _seated: SEATED) -> None:
    """Refuses a body that names a key twice in one object (``bodies.named_once``), after the
    seat is known (no token: 401 before the body is read) and before the body is checked
    against the action it names: a parser keeps the last of two keys, so that check would
    complain of the wrong thing (``{"action": "draw", "stack": ..., "action": "undo"}``)."""
    twice = named_once(await request.body())
    if twice is not None:
        raise Refused(422, "bad-input", _("the body names {field!r} twice; name each field once").format(
            field=twice))


def create_app(db: str) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.clerk = Clerk(db)
        app.state.doorman = Doorman()
        app.state.follower = Follower(app.state.clerk)
        await app.state.clerk(lambda: app.state.clerk.ledger)  # a file it cannot use fails the start
        app.state.follower.start()
        _streams_end_on_exit(app.state.follower)
        try:
            yield
        finally:
            await app.state.follower.stop()
            app.state.clerk.close()

    app = FastAPI(title="Campaign ledger — table server", version="1", lifespan=lifespan,
                  description="Every seat at the table reaches its campaign: see SERVER.md.",
                  docs_url=None, redoc_url=None,
                  redirect_slashes=False)  # a path with a trailing slash is no path here: 404, not a 307 to the Host said

    errors.install(app, db)
    app.add_middleware(BodyLimit)
    app.add_middleware(PerSeat)
    app.add_middleware(HeadAsGet)
    app.add_middleware(Speaking)  # the outermost: every reply, a refused body's too, in the request's language
    app.include_router(api_routes())
    app.include_router(pages.routes())
    pages.mount_static(app)
    return app


def _streams_end_on_exit(follower: Follower) -> None:
    """On SIGTERM or Ctrl+C, every open stream ends at once (``Follower.end_streams``),
    so that uvicorn's graceful shutdown finds no connection left to cancel. The handler
    uvicorn installed for this worker is wrapped (uvicorn puts the one before it back when
    it stops); a server not run by uvicorn in the main thread (a test's client) is left alone."""
    import asyncio
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous = signal.getsignal(signum)
        if not callable(previous):
            continue

        def handler(number: int, frame: Any, previous: Any = previous) -> None:
            try:  # first: the handler before may raise
                loop.call_soon_threadsafe(follower.end_streams)
            except RuntimeError:  # the loop already closed: nothing left to end
                pass
            previous(number, frame)

        signal.signal(signum, handler)


class PerSeat:
    """Every API reply is what one seat may see: ``Cache-Control: no-store``, so that no
    cache between the table and a player keeps it (the pages say so themselves)."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return

        async def private(message: Any) -> None:
            if message["type"] == "http.response.start":
                from starlette.datastructures import MutableHeaders

                MutableHeaders(scope=message).setdefault("Cache-Control", "no-store")
            await send(message)

        await self.app(scope, receive, private)


class HeadAsGet:
    """``HEAD`` of any page or endpoint answers as its ``GET`` would (same status and
    headers, a seat's refusal too), without the body: ``curl -I`` and health checks. Not
    for a stream, whose body never ends: 405 there, as for any other method it does not take."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD" or scope["path"].endswith("/stream"):
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Any) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)


class BodyLimit:
    """A body larger than ``MAX_BODY`` is refused with the API's one-line 413: at once when
    its Content-Length says so, else as soon as that much of it has arrived."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        if not declared.isdigit() or int(declared) > MAX_BODY:
            await errors.reply(413, "too-large", too_large())(scope, receive, send)
            return
        received = 0

        async def counted() -> Any:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > MAX_BODY:
                    raise HTTPException(413, too_large())  # replied by errors.install's handler
            return message

        await self.app(scope, counted, send)


def api_routes() -> Any:
    from fastapi import APIRouter

    api = APIRouter(prefix="/api/campaigns/{campaign}", responses=ERRORS)

    @api.get("/zones", summary="Every zone as the seat sees it, now or right after seq `at`")
    async def zones(request: Request, seated: SEATED, at: Annotated[int | None, DIGITS, SEQ] = None) -> dict[str, Any]:
        seat, cid = seated
        clerk: Clerk = request.app.state.clerk

        def view() -> dict[str, Any]:
            from projections.views import card_faces, facts_as_of, zones_view

            from ...rules.placement import sheet_zones

            found = clerk.ledger.campaign(cid, at=at)
            data = zones_view(found, seat.viewer)
            data["cards"] = card_faces(found, data)
            data.update(facts_as_of(clerk.ledger, cid, found, seat.viewer, at))
            names = {hero: facts["name"] or hero for hero, facts in data["heroes"].items()}  # "Ana's Table", to read
            data["zone_names"] = {zone: zone_name(zone, names) for zone in data["zones"]}
            # how a card sent there lies unless asked otherwise: the page asks before a hero's
            # card only she sees is sent where the table sees it
            data["zone_faces"] = {zone: found.zone(zone).entry_face for zone in data["zones"] if zone != "box"}
            data["sheet_zones"] = sheet_zones(found, data["zones"])  # elsewhere a sheet card goes to the discard pile
            data["in_force"] = found.live_head  # the latest action in force: what the page's Undo names
            data["checkpoint"] = clerk.latest_checkpoint(cid)
            return data

        return await clerk(view)

    @api.get("/catalog", summary="Every card of the campaign's catalog (or those of `ids`): id, name, suit, level")
    async def catalog(
        request: Request, seated: SEATED,
        ids: Annotated[str | None, Query(max_length=20_000, description="Only these cards, ids separated by commas "
                                                                        "(those the catalog lacks are left out)")] = None,
    ) -> dict[str, Any]:
        """The catalog is no secret to whoever plays (a hero names the cards she searches a
        face-down deck for by their ids, and the rules refuse only an id it lacks); where each
        card lies is. The public seat, which only watches, is not given it: its other replies
        do not say whether a card it never saw exists. ``ids``: the page names the few cards
        its history lists and no zone shows it now, without the whole of a large catalog."""
        seat, cid = seated
        if seat.actor is None:
            raise Refused(403, "read-only", _("the public seat watches; the catalog is for the seats that play"))
        clerk: Clerk = request.app.state.clerk

        def view() -> dict[str, Any]:
            listed = clerk.ledger.campaign(cid).catalog.cards
            asked = dict.fromkeys(i.strip() for i in (ids or "").split(","))
            cards = listed.values() if ids is None else [listed[i] for i in asked if i in listed]
            return {"cards": {card.id: {"name": card.shown_name, "suit": str(card.suit), "level": card.level}
                              for card in cards}}

        return await clerk(view)

    @api.get("/cards/{card}", summary="One card as the seat may see it, now or right after seq `at`",
             responses={404: UNSEEN})
    async def card(request: Request, seated: SEATED, card: Annotated[str, Path(max_length=100)],
                   at: Annotated[int | None, DIGITS, SEQ] = None) -> dict[str, Any]:
        seat, cid = seated
        clerk: Clerk = request.app.state.clerk

        def view() -> dict[str, Any]:
            from projections.queries import card_view, witnessed_seqs

            found = clerk.ledger.campaign(cid, at=at)
            model = clerk.model_of(found.slug, found.seq)
            if card not in found.catalog.cards:  # the steps of a card never seen, to read the same
                witnessed_seqs(model, found.slug, card, found.seq, seat.viewer)
                raise _unseen(card)
            data = card_view(clerk.ledger, model, found, seat.viewer, card)
            if data.get("hidden") and not data["history"]:
                raise _unseen(card)  # never seen by this seat: it reads as a card that does not exist
            data["checkpoint"] = clerk.latest_checkpoint(cid)
            return data

        return await clerk(view)

    @api.get("/history", summary="The seat's history of the campaign, oldest first: the latest `limit` entries "
             f"(at most {HISTORY_MAX:,}; page back with `to`)", responses={404: UNSEEN})
    async def history(
        request: Request, seated: SEATED,
        start: Annotated[int | None, DIGITS, Query(alias="from", ge=1, le=2**53)] = None,
        to: Annotated[int | None, DIGITS, Query(ge=1, le=2**53)] = None,
        card: Annotated[str | None, Query(min_length=1, max_length=100)] = None,
        actor: Annotated[str | None, Query(max_length=100)] = None,
        limit: Annotated[int | None, DIGITS, Query(ge=1, le=2**53)] = None,
    ) -> list[dict[str, Any]]:
        seat, cid = seated
        clerk: Clerk = request.app.state.clerk
        if start is not None and to is not None and start > to:
            raise Refused(422, "bad-input", _("from {start} is after to {end}: give the earlier action as from").format(
                start=start, end=to))

        def view() -> list[dict[str, Any]]:
            from projections.queries import acted_nowhere, history_view

            found = clerk.ledger.campaign(cid)
            if card is not None and seat.viewer == REFEREE and card not in found.catalog.cards:
                raise _unseen(card)
            model = clerk.model_of(found.slug, found.seq)
            rows = history_view(clerk.ledger, model, cid, found.slug, seat.viewer, start=start, end=to,
                                card=card, actor=actor, limit=min(limit or HISTORY_MAX, HISTORY_MAX))
            if actor is not None and not rows and acted_nowhere(clerk.ledger, model, found, seat.viewer, actor):
                raise Refused(422, "bad-input", _("actor {actor}: not the master nor a hero of this campaign "
                                                  "(heroes: {heroes})").format(
                    actor=repr(actor), heroes=", ".join(found.table.heroes) or "—"))
            return rows

        return await clerk(view)

    @api.get("/explain/{seq}", summary="Which rules an action was checked against, as the seat may see it")
    async def explain(request: Request, seated: SEATED, seq: Annotated[int, DIGITS, Path(ge=1, le=2**53)]
                      ) -> dict[str, Any]:
        seat, cid = seated
        clerk: Clerk = request.app.state.clerk

        def view() -> dict[str, Any]:
            from projections.explain import explain as explain_action

            after = clerk.ledger.campaign(cid, at=seq)
            event = clerk.ledger.event(cid, seq)
            before = clerk.ledger.campaign(cid, at=seq - 1) if seq > 1 else None
            data = explain_action(event, before, after, seat.viewer)
            data["checkpoint"] = clerk.latest_checkpoint(cid)
            return data

        return await clerk(view)

    @api.get("/checkpoint", summary="The campaign's head hash now, for anyone to keep")
    async def checkpoint(request: Request, seated: SEATED) -> dict[str, Any]:
        _seat, cid = seated
        clerk: Clerk = request.app.state.clerk
        return await clerk(clerk.latest_checkpoint, cid)

    @api.post("/actions", summary="Record an action as the seat's actor")
    async def act(request: Request, seated: SEATED, _once: Annotated[None, Depends(_each_field_once)],
                  body: Annotated[ActionBody, Body()]) -> dict[str, Any]:
        seat, cid = seated
        if seat.actor is None:  # (a malformed body is told so first, as to any other seat)
            raise Refused(403, "read-only", _("the public seat only reads; actions come from the master and heroes"))
        command = body.command(seat.actor)
        clerk: Clerk = request.app.state.clerk

        def record() -> dict[str, Any]:
            from projections.views import recorded_view

            clerk.read_models().refuse_cut_log()  # the whole file: nothing recorded on a log that lost actions
            rec = clerk.ledger.execute(cid, command)  # the read models follow in batches (live.MODEL_EVERY)
            checkpoint = clerk.checkpoint(cid, rec.seq, rec.event.hash)
            return recorded_view(rec.event, rec.campaign, seat.viewer, checkpoint)

        data = await clerk(record, in_turn=True, still_asked=lambda: _still_asked(request))
        request.app.state.follower.wake.set()  # every open stream hears of it now
        return data

    @api.get("/stream", summary="Server-Sent Events: one `action` event per recorded action, for this seat",
             response_class=StreamingResponse, responses={200: {"content": {"text/event-stream": {}}}})
    async def stream(request: Request, seated: SEATED) -> StreamingResponse:
        seat, _cid = seated
        follower: Follower = request.app.state.follower
        opened = await follower.open(seat)

        async def events() -> AsyncIterator[str]:
            import asyncio

            try:
                yield "retry: 1000\n: connected\n\n"
                while True:
                    try:
                        data = await asyncio.wait_for(opened.queue.get(), 15)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    parts = []
                    while data is not None:  # what has queued up goes in one write
                        parts.append(data)
                        if opened.queue.empty():
                            break
                        data = opened.queue.get_nowait()
                    if parts:
                        yield "".join(parts)
                    if data is None and opened.stopping:  # no "closed": the page reconnects, not reloads
                        return
                    if data is None:
                        # a revoked seat is told so; a page that fell behind (or saw the log change)
                        # only reloads to catch up, and must not think it was thrown out
                        reason = (_("this seat was revoked") if opened.revoked
                                  else _("this page fell behind the table"))
                        yield f"event: closed\ndata: {json.dumps({'reason': reason})}\n\n"
                        return
            finally:
                follower.close(opened)

        return StreamingResponse(events(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    return api


def too_large() -> str:
    return _(TOO_LARGE).format(limit=MAX_BODY)


def _unseen(card: str) -> Refused:
    return Refused(404, "unknown-card", _("no card {card} that this seat can see").format(card=card))


def app_from_env() -> FastAPI:
    """The application for ``uvicorn --factory`` (each worker process builds its own)."""
    return create_app(os.environ["LEDGER_DB"])


class _NoTokens(logging.Filter):
    """The access log never prints a join link's token (``/join/****``), nor a character
    a client sent that is not printable (behind ``--proxy`` the client's address is the
    X-Forwarded-For the proxy passes on): written as its code, it never drives the
    terminal the server runs in (``ledger.texts.escaped``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(escaped(_JOIN.sub("/join/****", a)) if isinstance(a, str) else a
                                for a in record.args)
        return True


def _trusted(proxy: str | None) -> str | None:
    """uvicorn's ``forwarded_allow_ips`` for ``--proxy``: an IPv4 proxy also as the
    IPv4-mapped address a dual-stack socket (``--host ::``) sees it connect from."""
    if proxy is None or ":" in proxy:
        return proxy
    return f"{proxy},::ffff:{proxy}"


def run(db: str, host: str = "127.0.0.1", port: int = 8000, workers: int = 1, proxy: str | None = None) -> None:
    """``ledger serve``: uvicorn on ``host:port``, ``workers`` processes. ``proxy``: the
    address of a proxy in front, whose X-Forwarded-For (and -Proto) uvicorn takes as the
    client's, from that address only: failed tokens are then counted per player, not
    per proxy (``seating.Doorman``)."""
    import uvicorn

    from ...postgres import is_postgres

    os.environ["LEDGER_DB"] = db if is_postgres(db) else os.path.abspath(db)
    log_config = copy.deepcopy(uvicorn.config.LOGGING_CONFIG)  # every worker process logs through it
    log_config.setdefault("filters", {})["no_tokens"] = {"()": f"{__name__}._NoTokens"}
    log_config["handlers"]["access"]["filters"] = ["no_tokens"]
    config = uvicorn.Config("ledger.interface.server.app:app_from_env", factory=True, host=host, port=port,
                            log_config=log_config, workers=workers, log_level="info", timeout_graceful_shutdown=2,
                            proxy_headers=proxy is not None, forwarded_allow_ips=_trusted(proxy))
    if workers == 1:
        server = uvicorn.Server(config)
        server.run()
        if not server.started:
            sys.exit(3)  # uvicorn's STARTUP_FAILURE, as uvicorn.run exits
        return
    from uvicorn.supervisors import Multiprocess

    Multiprocess(config, sockets=[as_tcp(config.bind_socket())]).run()  # as uvicorn.run, but for the socket


def as_tcp(sock: socket.socket) -> socket.socket:
    """The listening socket of ``--workers N``, marked TCP (protocol 6): the workers'
    accepted sockets inherit it, and asyncio turns Nagle's algorithm off (TCP_NODELAY)
    only for those. uvicorn binds it with protocol 0 (its issue #3149), and every
    keep-alive request then waited ~40 ms on the client's delayed ACK: a GET took 44 ms
    with two workers against 1.7 ms with one."""
    if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.proto != socket.IPPROTO_TCP:
        return socket.socket(sock.family, sock.type, socket.IPPROTO_TCP, fileno=sock.detach())
    return sock


async def _still_asked(request: Request) -> bool:
    """Does the client of ``request`` still wait for its answer?"""
    return not await request.is_disconnected()

