"""Errors as the server replies them (SERVER.md "Errors"): always ``{"error": {"code",
"message"}}`` and one line; 422 for input that is not an action (bad JSON, unknown
action, wrong types, huge numbers), 409 for an action the rules refuse (the CLI's
message), 401/403 for seats, 503 when the file cannot be used now, 500 when a record in
it is damaged (it stays so until the file is restored: no use retrying); never a
traceback."""

from __future__ import annotations

import json
import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException

from ...errors import BadInput, DamagedRecord, LedgerError, StoreError, UnknownCampaign, one_line, problem
from ...i18n import _, speaking

log = logging.getLogger("ledger.server")
EXAMPLE = '{"action": "draw", "stack": "deck:item"}'


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    """What every error reply carries."""

    error: ErrorDetail


class Refused(Exception):
    """A reply other than 200, with its status, code and message."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, one_line(message), headers


def reply(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": one_line(message)}}, status_code=status,
                        headers=headers)


def status_of(exc: LedgerError) -> int:
    if isinstance(exc, DamagedRecord):
        return 500
    if isinstance(exc, StoreError):
        return 503
    if isinstance(exc, BadInput | UnknownCampaign):
        return 422
    return 409


def retry_after(status: int) -> dict[str, str] | None:
    """A 503 (the file or database busy, or not answering, just now) says when to ask again."""
    return {"Retry-After": "5"} if status == 503 else None


def first_problem(errors: Any) -> str:
    """One line for the first thing wrong with a request: where, and what."""
    # a key the action does not take says more than the field it then lacks ("card" for "cards")
    errors = sorted(errors or (), key=lambda e: e.get("type") != "extra_forbidden")
    err = errors[0] if errors else {"loc": (), "msg": "not understood"}
    if err.get("type") == "union_tag_invalid":
        from .bodies import ACTIONS

        given = (err.get("ctx") or {}).get("tag", "?")
        body = err.get("input")
        if isinstance(body, dict) and not isinstance(body.get("action"), str):  # null, a number, a list
            return _("\"action\" is the action's name, as text; actions are: {actions}").format(
                actions=", ".join(ACTIONS))
        return _("unknown action {given!r}; actions are: {actions}").format(given=given, actions=", ".join(ACTIONS))
    if err.get("type") == "union_tag_not_found":
        return _("say which action with \"action\": NAME (e.g. {example})").format(example=EXAMPLE)
    if err.get("type") == "json_invalid":
        return _("the body is not valid JSON")
    if tuple(err.get("loc", ())) == ("body",) and err.get("type") in ("missing", "model_attributes_type", "dict_type"):
        return _("the body is a JSON object: {shape} (e.g. {example})").format(shape='{"action": NAME, ...}',
                                                                          example=EXAMPLE)
    where = [str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path")]
    # a tagged union puts the action's name first: "draw.count" reads as "count"
    from .bodies import ACTIONS

    action = where[0] if where and where[0] in ACTIONS else None
    if action is not None:
        where = where[1:]
    if err.get("type") == "extra_forbidden" and action is not None and len(where) == 1:
        return no_such_field(action, where[0])
    if where[-2:-1] == ["position"] and len(where) == 2:  # a branch of top|bottom|N: the CLI's words, not pydantic's
        given = json.dumps(err.get("input"), ensure_ascii=False)  # as the body wrote it, not as Python would
        given = given if len(given) <= 60 else given[:59] + "…"  # cut first: a body may hold a megabyte
        given = "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in given)
        return _("{field}: {problem}").format(field="position", problem=_(
            "{value!r} is not top, bottom or a number (1 = top)").format(value=_AsWritten(given)))
    msg = problem(err)  # pydantic's words, in the request's language (ledger.errors.PROBLEMS)
    return _("{field}: {problem}").format(field=".".join(where), problem=msg) if where else msg


class _AsWritten(str):
    """A value as a JSON body wrote it, for a message that shows a value with ``!r``."""

    def __repr__(self) -> str:
        return str(self)


def no_such_field(action: str, field: str) -> str:
    """A key the action does not take: the fields it does take, the likeliest first
    (``"card"`` for discard's ``"cards"``)."""
    import difflib

    from .bodies import BODIES

    field = field if len(field) <= 40 else field[:40] + "…"  # a key of 10,000 letters is not said whole
    body = next(body for body in BODIES if body.model_fields["action"].annotation.__args__[0] == action)
    fields = [info.alias or name for name, info in body.model_fields.items() if name != "action"]
    near = difflib.get_close_matches(field, fields, n=1, cutoff=0.6)
    takes = ", ".join(sorted(fields, key=lambda name: name not in near))
    if near:
        return _("{field}: {action} takes no such field; did you mean {near}? It takes: {fields}").format(
            field=field, action=action, near=near[0], fields=takes)
    if not fields:
        return _("{field}: {action} takes no field but \"action\"").format(field=field, action=action)
    return _("{field}: {action} takes no such field; it takes: {fields}").format(
        field=field, action=action, fields=takes)


async def _seat_first(request: Request) -> JSONResponse | None:
    """The seat's refusal (401, 403, 429) for an API request whose body FastAPI could
    not even parse, which it reports before the endpoint's ``seated`` dependency runs:
    identity first, so a request without a seat learns nothing of what the endpoint takes.
    None when the request has a seat of its campaign (or is no campaign's API request)."""
    campaign = request.path_params.get("campaign")
    if campaign is None or not request.url.path.startswith("/api/"):
        return None
    from .seating import seat_in

    try:
        await seat_in(request, campaign)
    except Refused as exc:
        return reply(exc.status, exc.code, exc.message, exc.headers)
    return None


def install(app: FastAPI, db: str = "") -> None:
    @app.exception_handler(Refused)
    async def refused(_request: Request, exc: Refused) -> JSONResponse:
        return reply(exc.status, exc.code, exc.message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        seat_refused = await _seat_first(request)
        if seat_refused is not None:
            return seat_refused
        if request.method == "POST" and "json" not in request.headers.get("content-type", "").lower():
            # FastAPI reads such a body as no JSON at all (curl -d sends a form's type)
            return reply(422, "bad-input", _("send the body as JSON, with the header Content-Type: application/json"))
        return reply(422, "bad-input", first_problem(exc.errors()))

    @app.exception_handler(ValidationError)
    async def invalid_command(_request: Request, exc: ValidationError) -> JSONResponse:
        return reply(422, "bad-input", first_problem(exc.errors()))

    @app.exception_handler(LedgerError)
    async def refusal(_request: Request, exc: LedgerError) -> JSONResponse:
        status = status_of(exc)
        return reply(status, exc.code, str(exc), headers=retry_after(status))

    from ...postgres import is_postgres

    if is_postgres(db):
        import psycopg
        from eventsourcing.persistence import PersistenceError

        from ...postgres import connection_lost, missing_relation, refused_privilege

        async def lost(request: Request, exc: Exception) -> JSONResponse:
            """The database could not be used just now (a connection cut under a read):
            503, for a retry, as any storage failure; a role refused what it asked: 500,
            saying so; anything else is unexpected."""
            denied = refused_privilege(exc) or missing_relation(exc)  # a role's refusal, a table dropped
            if denied is not None:
                log.error("%s", denied)
                return reply(500, denied.code, str(denied))
            found = connection_lost(exc)
            if found is None:
                return await unexpected(request, exc)
            log.warning("%s", found)
            return reply(503, found.code, str(found), headers={"Retry-After": "2"})

        for kind in (psycopg.OperationalError, psycopg.InterfaceError, PersistenceError):
            app.add_exception_handler(kind, lost)

    @app.exception_handler(HTTPException)
    async def http(_request: Request, exc: HTTPException) -> JSONResponse:
        if exc.status_code == 400:  # a body FastAPI could not parse (e.g. a number of 5000 digits)
            return await _seat_first(_request) or reply(422, "bad-input", _("the body is not valid JSON"))
        if exc.status_code == 413:  # a body that grew too large as it came (app.BodyLimit)
            return reply(413, "too-large", str(exc.detail))
        if exc.status_code == 404 and not _request.url.path.startswith("/api/") \
                and "text/html" in _request.headers.get("accept", ""):  # a person's browser: a page (a QA pass)
            from .pages import not_found_page

            return not_found_page(_request)
        message = {404: _("no such page or endpoint (see /openapi.json)"),
                   405: _("that method is not allowed here (see /openapi.json)")}.get(exc.status_code, str(exc.detail))
        headers = dict(exc.headers or {})
        allowed = [method.strip() for method in headers.get("Allow", "").split(",") if method.strip()]
        if "GET" in allowed and "HEAD" not in allowed and not _request.url.path.endswith("/stream"):
            headers["Allow"] = ", ".join([*allowed, "HEAD"])  # app.HeadAsGet answers it, but for a stream
        return reply(exc.status_code, "http", message, headers or None)  # a 405's Allow, say

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        # replied by Starlette's outermost middleware, outside the request's language: spoken again here
        from .speech import language_of, tag

        code, _asked = language_of(request.scope)
        log.exception("unexpected failure")
        with speaking(code):
            return reply(500, "internal", _("unexpected failure; the server's log has the details"),
                         headers={"Content-Language": tag(code), "Vary": "Accept-Language, Cookie",
                                  "Cache-Control": "no-store"})
