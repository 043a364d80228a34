"""The language each request is spoken in (issue 16): the seat's choice if it made one
(``?lang=pt|en``, which the pages' switcher links to and a ``ledger_lang`` cookie then
remembers on that device), else what the request's ``Accept-Language`` prefers among
the languages the ledger speaks (``ledger.i18n.negotiate``: API clients say it there),
else English.

``Speaking`` is a plain ASGI middleware, not Starlette's ``BaseHTTPMiddleware``: the
request runs inside ``ledger.i18n.speaking(code)`` in the same task, so the language's
``ContextVar`` reaches the endpoints, the exception handlers, a response's stream and
whatever they hand to a thread (each copies the context); requests served at once each
keep their own. Every reply says its language in ``Content-Language``, and that it
varies with ``Accept-Language`` and ``Cookie`` (which a cache must key it on). Who the request
is (its seat) is none of this module's business: a language widens nothing.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import cookie_parser

from ...i18n import ENGLISH, LOCALES, negotiate, parse_language, speaking

COOKIE = "ledger_lang"
QUERY = "lang"
KEEP_DAYS = 365


def tag(code: str) -> str:
    """A language's tag for HTML's ``lang`` and ``Content-Language`` (``pt-BR``, ``en``)."""
    return LOCALES.get(code, code).replace("_", "-")


def language_of(scope: Any) -> tuple[str, str | None]:
    """The language a request is spoken in, and the one it chose with ``?lang=`` (to be
    remembered in the cookie), or None when it chose none there: ``?lang=`` given twice is
    no choice (an API request is refused for it, and must not change the seat's language)."""
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    given = query.get(QUERY, [])
    asked = parse_language(given[0]) if len(given) == 1 else None
    if asked:
        return asked, asked
    headers = Headers(scope=scope)
    kept = parse_language(cookie_parser(headers.get("cookie", "")).get(COOKIE))
    if kept:
        return kept, None
    return negotiate(headers.get("accept-language")) or ENGLISH, None


def choice_cookie(code: str, secure: bool) -> str:
    """The ``Set-Cookie`` value that remembers a seat's choice of language on its device."""
    return (f"{COOKIE}={code}; Max-Age={KEEP_DAYS * 86400}; Path=/; SameSite=Lax; HttpOnly"
            + ("; Secure" if secure else ""))


class Speaking:
    """Runs each HTTP request in its language (``language_of``) and labels its reply."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        code, asked = language_of(scope)

        async def labelled(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                headers.setdefault("Content-Language", tag(code))
                headers.add_vary_header("Accept-Language")
                headers.add_vary_header("Cookie")  # the ledger_lang cookie beats Accept-Language
                if asked:
                    headers.append("Set-Cookie", choice_cookie(asked, scope.get("scheme") == "https"))
            await send(message)

        with speaking(code):
            await self.app(scope, receive, labelled)
