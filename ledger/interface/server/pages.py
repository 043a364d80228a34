"""The pages (SERVER.md "Pages"): ``/join/TOKEN`` seats a browser, ``/`` is the table as
the seat sees it. The page is a template and plain JavaScript (``static/table.js``)
that reads the same JSON API and stream as any other client; nothing is fetched from
outside at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from .clerk import Clerk
from .errors import Refused
from .seating import COOKIE, seat_of

HERE = Path(__file__).parent
templates = Jinja2Templates(directory=HERE / "templates")
SESSION_DAYS = 30
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def routes() -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/join/{token}", response_class=HTMLResponse)
    async def join(request: Request, token: str) -> Response:
        try:
            seat = await seat_of(request, token)
        except Refused as refused:
            return _page(request, "message.html", {"title": "Not a seat", "message": refused.message},
                         status=refused.status)
        clerk: Clerk = request.app.state.clerk
        slug = await clerk(clerk.slug, seat.campaign)
        # A page, not a redirect: a join link opened from another site (a chat app) is a
        # cross-site navigation, and a SameSite=Strict cookie set on it would not be sent
        # with a redirect that follows; the page's own link to / is same-site.
        response = _page(request, "joined.html", {"who": seat.who, "campaign": slug})
        response.set_cookie(COOKIE, token, max_age=SESSION_DAYS * 86400, httponly=True, samesite="strict",
                            secure=request.url.scheme == "https", path="/")
        return response

    @router.get("/", response_class=HTMLResponse)
    async def table(request: Request) -> Response:
        try:
            seat = await seat_of(request)
        except Refused as refused:
            return _page(request, "message.html", {"title": "Join the table", "message": refused.message},
                         status=refused.status)
        clerk: Clerk = request.app.state.clerk

        def about() -> dict[str, Any]:
            campaign = clerk.ledger.campaign(seat.campaign)
            return {"campaign": campaign.slug, "name": campaign.name, "heroes": list(campaign.table.heroes),
                    "zones": list(campaign.zones())}

        context = await clerk(about)
        context.update(who=seat.who, viewer=seat.viewer, actor=seat.actor or "")
        return _page(request, "table.html", context)

    @router.get("/leave")
    async def leave() -> Response:
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(COOKIE, path="/")
        return response

    return router


def mount_static(app: Any) -> None:
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")


def _page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    response = templates.TemplateResponse(request, name, context, status_code=status)
    response.headers.update(SECURITY_HEADERS)
    return response
