"""The pages (SERVER.md "Pages"): ``/join/TOKEN`` seats a browser, ``/`` is the table as
the seat sees it. The page is a template and plain JavaScript (``static/table.js``)
that reads the same JSON API and stream as any other client; nothing is fetched from
outside at run time.

Each page is in its request's language (``speech``): the templates' texts through
Jinja2's i18n extension and ``ledger.i18n``, and the script's texts (``_("...")`` in
``static/table.js``, extracted from it once) translated here and embedded in the page
as JSON, which the script reads, with the game's words it shows (``page_words``: the
suits' names from ``ledger.terms``, and the seat's own zones); the other zones' names
come with each zones reply (``zone_names``). A switcher on every page links to
``?lang=pt|en``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from ...errors import DamagedRecord, StoreError
from ...i18n import LANGUAGES, _, language, ngettext, pgettext, translations
from ...terms import ACTIONS, action_name, pgettext_noop, suit_name, suit_word
from ...vocabulary import Role, Suit
from .clerk import Clerk
from .errors import Refused, retry_after, status_of
from .seating import COOKIE, cookie_name, seat_of, token_of
from .speech import QUERY, tag

HERE = Path(__file__).parent
SCRIPT = HERE / "static" / "table.js"
_environment = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                                  autoescape=jinja2.select_autoescape(), extensions=["jinja2.ext.i18n"])
_environment.install_gettext_callables(_, ngettext, newstyle=True)  # type: ignore[attr-defined]
_environment.policies["ext.i18n.trimmed"] = True  # as the texts are extracted (ledger.locale.catalogs.OPTIONS)
templates = Jinja2Templates(env=_environment)
SESSION_DAYS = 30
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    # the origin alone, never a path (a join page's /join/TOKEN); not no-referrer, with which
    # browsers send "Origin: null" on a page's own form posts (``_same_origin``)
    "Referrer-Policy": "strict-origin",
    "X-Frame-Options": "DENY",  # frame-ancestors, for browsers older than it
    "Cache-Control": "no-store",
}
OWN_ZONES = {
    # TRANSLATORS: the zones of the hero a page is for, each a whole text (its gender right): "Sua Mesa"
    Role.TABLE: pgettext_noop("own zone", "Your Table"),
    Role.INVENTORY: pgettext_noop("own zone", "Your Inventory"),
    Role.EXTRA: pgettext_noop("own zone", "Your Extra Zone"),
}
"""The name of each zone a hero brings to the table, on that hero's own page."""


def routes() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/join/{token}", response_class=HTMLResponse)
    async def join(request: Request, token: str) -> Response:
        """Seats this browser. A link followed from a page of another site (a chat app's
        page, or one made to look like it) only offers the seat: the player takes it with
        the offer's button, so that no site can quietly put a browser in a seat it did not
        ask for (and have its player act as someone else). A link opened from outside the
        browser or typed seats it at once, as it does a script (``_opened_here``)."""
        seated = await _seat_to_join(request, token)
        if isinstance(seated, Response):
            return seated
        seat, slug = seated
        if not _opened_here(request, token):
            return _page(request, "join.html", {"who": seat.who, "campaign": slug})
        # A page, not a redirect: a join link opened from another site (a chat app) is a
        # cross-site navigation, and a SameSite=Strict cookie set on it would not be sent
        # with a redirect that follows; the page's own link to / is same-site.
        return _seated(request, _page(request, "joined.html", {"who": seat.who, "campaign": slug}), token)

    @router.post("/join/{token}", response_class=HTMLResponse)
    async def take_seat(request: Request, token: str) -> Response:
        """The offer's button (``join``): only from this server's own page."""
        if not _same_origin(request):
            return _page(request, "message.html", {
                "title": _("Join the table"), "message": _("take a seat from its join link's own page"),
                "hint": _("Open your join link on this device and take the seat with the button on its page.")},
                status=403)
        seated = await _seat_to_join(request, token)
        if isinstance(seated, Response):
            return seated
        seat, slug = seated
        return _seated(request, _page(request, "joined.html", {"who": seat.who, "campaign": slug}), token)

    @router.get("/", response_class=HTMLResponse)
    async def table(request: Request) -> Response:
        try:
            seat = await seat_of(request)
        except Refused as refused:
            message, title = refused.message, _("Join the table")
            if refused.status == 401 and not token_of(request):  # a person, not a script: no word of headers
                message = _("this device holds no seat yet: open the join link the master gave you")
            elif refused.status == 401:  # a seat this browser held, revoked since (a QA pass: "Join the table")
                title = _("Not a seat")
            return _page(request, "message.html", {"title": title, "message": message}, status=refused.status)
        clerk: Clerk = request.app.state.clerk

        def about() -> dict[str, Any]:
            campaign = clerk.ledger.campaign(seat.campaign)
            return {"campaign": campaign.slug, "name": campaign.name, "heroes": list(campaign.table.heroes),
                    "zones": list(campaign.zones())}

        try:
            context = await clerk(about)
        except (Refused, StoreError) as busy:
            return _not_now(request, busy)
        context.update(who=seat.who, viewer=seat.viewer, actor=seat.actor or "", texts=script_texts())
        return _page(request, "table.html", context)

    @router.post("/leave")
    async def leave(request: Request) -> Response:
        """This browser forgets its seat (the cookie; the seat stays until the master
        revokes it): the table page's "Leave" button, on a shared device. Only from this
        server's own pages: a form on another site cannot send a player away."""
        if not _same_origin(request):
            return _page(request, "message.html", {
                "title": _("Leave the table"), "message": _("leave from the table's own page"),
                "hint": _("Use the Leave button on the table page.")}, status=403)
        response = _page(request, "message.html", {
            "title": _("You left the table"),
            "message": _("This browser no longer holds your seat; your join link seats you again.")})
        _drop_cookies(request, response, (cookie_name(request), *_older_cookie(request)))
        return response

    return router


async def _seat_to_join(request: Request, token: str) -> tuple[Any, str] | Response:
    """The seat a join link names and its campaign's slug, or the page that says why not."""
    try:
        seat = await seat_of(request, token)
    except Refused as refused:
        if refused.status == 429:  # the link may be good: this address is made to wait, not told it is wrong
            return _page(request, "message.html", {
                "title": _("Wait a moment"), "message": refused.message,
                "hint": _("Then open your join link again.")}, status=429)
        return _page(request, "message.html", {"title": _("Not a seat"), "message": refused.message},
                     status=refused.status)
    clerk: Clerk = request.app.state.clerk
    try:
        return seat, await clerk(clerk.slug, seat.campaign)
    except (Refused, StoreError) as busy:
        return _not_now(request, busy)


def _seated(request: Request, response: Response, token: str) -> Response:
    response.set_cookie(cookie_name(request), token, max_age=SESSION_DAYS * 86400, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https", path="/")
    _drop_cookies(request, response, _older_cookie(request))
    return response


def _drop_cookies(request: Request, response: Any, names: tuple[str, ...]) -> None:
    """Tells the browser to forget these seat cookies (set as ``set_cookie`` sets one)."""
    for name in names:
        response.delete_cookie(name, path="/", secure=request.url.scheme == "https", httponly=True, samesite="strict")


def _older_cookie(request: Request) -> tuple[str, ...]:
    """The seat cookie an older server set without its port (``ledger_seat``), if this
    browser still holds one: a token no server reads any more, dropped when the browser
    joins or leaves, rather than kept in it for months."""
    return (COOKIE,) if COOKIE in request.cookies else ()


def _opened_here(request: Request, token: str) -> bool:
    """Was this join not started by a page of another site? Browsers say where a
    navigation came from in ``Sec-Fetch-Site`` (``none``: typed, a bookmark, a link opened
    from another program), but only to secure origins (https, this machine): on a plain
    http address (a LAN's) they say nothing, and neither does an old browser, so a page
    (``Accept: text/html``) that does not say gets the offer. A same-origin join is the
    join page's own language switch, so only of the seat it holds already. A client that
    asks for no page (a script) is taken at its word."""
    site = request.headers.get("sec-fetch-site")
    if site is None:
        return "text/html" not in request.headers.get("accept", "")
    return site == "none" or (site == "same-origin" and request.cookies.get(cookie_name(request)) == token)


def _same_origin(request: Request) -> bool:
    """Does a browser's form post come from this server's own page? Browsers say so in
    ``Sec-Fetch-Site``, or else in ``Origin``; a client that sends neither is no page
    of another site (it can only drop a cookie it holds itself)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = request.headers.get("origin")
    # the host only: behind a proxy that ends TLS (and no --proxy), the page is https and
    # the request that reaches the server http
    return origin is None or origin.partition("://")[2] == request.url.netloc


def mount_static(app: Any) -> None:
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")


@cache
def script_messages() -> tuple[tuple[str | tuple[str, ...], str | None], ...]:
    """The texts of ``static/table.js`` (its ``_``, ``ngettext``, ``pgettext``, ``npgettext``), as
    ``python -m ledger.locale`` extracts them for the catalog: (message, context)."""
    from babel.messages.extract import extract

    from ...locale.catalogs import KEYWORDS

    with SCRIPT.open("rb") as source:
        return tuple((message, context) for _line, message, _comments, context
                     in extract("javascript", source, keywords=KEYWORDS))


def script_texts() -> dict[str, Any]:
    """The script's texts in the language being spoken, for the page to embed: each text
    by its English id (a ``pgettext``'s as its context, U+0004 and its id), a plural as
    its forms for 0, 1 and 2 or more (each language the ledger speaks has one form for
    every n ≥ 2)."""
    texts: dict[str, Any] = {}
    for message, context in script_messages():
        if isinstance(message, tuple):
            singular, plural = message[0], message[1]
            if context:
                spoken = translations(language())
                texts[f"{context}\x04{singular}"] = [spoken.npgettext(context, singular, plural, n) for n in (0, 1, 2)]
            else:
                texts[singular] = [ngettext(singular, plural, n) for n in (0, 1, 2)]
        elif context:
            texts[f"{context}\x04{message}"] = pgettext(context, message)
        else:
            texts[message] = _(message)
    return {"lang": tag(language()), "texts": texts, "words": page_words()}


def page_words() -> dict[str, dict[str, str]]:
    """The game's words the script shows, in the language being spoken (``ledger.terms``,
    where they live): each suit's name ("Habilidade") and as a part of a text
    ("habilidade 2"), the seat's own zones by role ("Seu Inventário"), and each recorded
    action's name ("compra" for ``draw``: the history shows it beside the summary)."""
    return {"suits": {str(suit): suit_name(suit) for suit in Suit},
            "suit_words": {str(suit): suit_word(suit) for suit in Suit},
            "own_zones": {str(role): pgettext(*text) for role, text in OWN_ZONES.items()},
            "actions": {action: action_name(action) for action in ACTIONS}}


def _not_now(request: Request, busy: Refused | StoreError) -> Response:
    """The page a seat gets when the server cannot serve it just now (past its share of the
    server's time: 429; the database busy or not answering: 503), with its Retry-After,
    instead of the API's JSON."""
    if isinstance(busy, DamagedRecord):  # no use asking again: the API's own reply (500, damaged)
        raise busy
    if isinstance(busy, Refused):
        status, message, headers = busy.status, busy.message, busy.headers
    else:
        status, message, headers = status_of(busy), str(busy), retry_after(status_of(busy))
    response = _page(request, "message.html", {"title": _("Not just now"), "message": message}, status=status)
    response.headers.update(headers or {})
    return response


def not_found_page(request: Request) -> Response:
    """What a browser gets for an address the server has no page at: a page, not the API's
    JSON, with the way to the table."""
    return _page(request, "message.html", {
        "title": _("No such page"), "message": _("this server has no page at {path}").format(path=request.url.path),
        "hint": _("The table is at / (open your join link first if this device holds no seat).")}, status=404)


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    spoken = language()
    context = {**context, "lang": tag(spoken),
               "languages": [{"code": code, "name": name, "tag": tag(code), "href": _switch(request, code),
                              "current": code == spoken} for code, name in LANGUAGES.items()]}
    response = templates.TemplateResponse(request, name, context, status_code=status)
    response.headers.update(SECURITY_HEADERS)
    return response


def _switch(request: Request, code: str) -> str:
    """This page in another language: ``?lang=`` (the other parameters kept), relative, so
    that a join page does not write its token into itself."""
    query = [(k, v) for k, v in request.query_params.multi_items() if k != QUERY] + [(QUERY, code)]
    return "?" + urlencode(query)
