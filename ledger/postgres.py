"""PostgreSQL as the campaign database: ``--db postgresql://USER[:PASSWORD]@HOST[:PORT]/DBNAME``
(and ``?schema=NAME`` to keep several ledgers apart in one database; default ``public``).

Events go through eventsourcing's own PostgreSQL infrastructure (psycopg 3 and its
pool), so the recorder API is the one the SQLite store offers, and the read models
keep their tables in the same schema (``projections.tables.PostgresTables``). Several
processes may record at once: a save that loses the race for a seq fails on the
primary key and is decided again, as on SQLite.

psycopg is imported only when a PostgreSQL database is named.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from .errors import StoreError, first_line
from .i18n import _

SCHEMES = ("postgresql://", "postgres://")
_SCHEMA = re.compile(r"[a-z_][a-z0-9_]{0,62}")


def is_postgres(db: Any) -> bool:
    """Does ``--db`` name a PostgreSQL database (a URL) rather than an SQLite file?"""
    return isinstance(db, str) and db.startswith(SCHEMES)


def shown(url: str) -> str:
    """The URL as it may be printed: without its password, however it is written (a
    password holding an unencoded ``/`` or ``?`` is no password to ``urlsplit``: then
    everything between ``://`` and the last ``@`` is hidden but the user)."""
    scheme, sep, rest = url.partition("://")
    if sep and "@" in rest:
        login, _at, place = rest.rpartition("@")
        user, colon, _password = login.partition(":")
        url = f"{scheme}://{user}{':****' if colon else ''}@{place}"
    # libpq takes a password from the query too (?password=...)
    return re.sub(r"([?&][^=&]*pass[^=&]*=)[^&]*", r"\1****", url, flags=re.IGNORECASE)


def postgres_env(url: str) -> dict[str, str]:
    """eventsourcing's settings for the database a URL names; a bad URL is refused in
    one line saying how it is written. ``init`` makes the schema (``making``)."""
    parts = urlsplit(url)
    dbname = unquote(parts.path.lstrip("/"))
    query = parse_qs(parts.query, keep_blank_values=True)  # ?schema= (empty) is refused, not read as public
    schema = (query.get("schema") or ["public"])[0]
    if schema.startswith("pg_") or schema == "information_schema":  # PostgreSQL's own (pg_catalog, pg_toast…)
        raise StoreError(_("{db}: schema {schema} is PostgreSQL's own; name a schema of your own with ?schema=NAME "
                           "(lower-case letters, digits, _)").format(db=shown(url), schema=schema))
    try:
        port = parts.port or 5432
    except ValueError:
        port = None
    if len(query.get("schema", ())) > 1:  # a QA pass: ?schema=north&schema=east was read as north
        raise StoreError(_("{db}: ?schema= is given {n} times; give it once").format(
            db=shown(url), n=len(query["schema"])))
    if schema and not _SCHEMA.fullmatch(schema):  # said what is wrong with it (a QA pass)
        raise StoreError(_("{db}: schema {schema!r} is no schema name the ledger uses: 1 to 63 lower-case letters, "
                           "digits and _, not starting with a digit").format(db=shown(url), schema=schema[:80]))
    if not dbname or "/" in dbname or not parts.hostname or port is None or not schema or set(query) - {"schema"}:
        raise StoreError(_("{db} is not a PostgreSQL database the ledger can use; write it as "
                           "postgresql://USER@HOST:PORT/DBNAME, optionally ?schema=NAME (lower-case letters, digits, "
                           "_)").format(db=shown(url)))
    env = {
        # eventsourcing's, whose recorders give up at once when the server does not answer
        "PERSISTENCE_MODULE": "ledger.pg_recorder:LedgerPostgresFactory",
        "POSTGRES_DBNAME": dbname,
        "POSTGRES_HOST": parts.hostname,
        "POSTGRES_PORT": str(port),
        "POSTGRES_USER": unquote(parts.username or "postgres"),
        "POSTGRES_PASSWORD": unquote(parts.password or ""),
        "POSTGRES_SCHEMA": schema,
        "POSTGRES_CONNECT_TIMEOUT": "5",
        # The pool opens POOL_SIZE connections at once and grows on demand up to POOL_SIZE +
        # MAX_OVERFLOW (8, for the table server's workers). One to begin with: a ledger
        # command uses one, and each connection is a server process to start (4 of them made
        # every command cost the server ~1.7 times the CPU, and the command ~1.3 times the time).
        "POSTGRES_POOL_SIZE": "1",
        "POSTGRES_MAX_OVERFLOW": "7",
    }
    return env


@contextmanager
def making(env: dict[str, str], url: str) -> Iterator[None]:
    """``init`` on a schema: makes the schema (eventsourcing makes only the tables), one
    maker at a time, until the block (which makes the tables) ends. Two inits at once
    made them side by side, and PostgreSQL failed one of them ("tuple concurrently
    updated", a duplicate key in pg_type: its CREATE ... IF NOT EXISTS and eventsourcing's
    CREATE OR REPLACE FUNCTION are not safe to run twice at once), reported as a server
    that cannot be reached. The lock is an advisory lock for this database and schema,
    held by a connection of its own (closing it lets it go, whatever happens)."""
    import psycopg

    key = int.from_bytes(hashlib.sha256(
        f"campaign-ledger {env['POSTGRES_DBNAME']} {env['POSTGRES_SCHEMA']}".encode()).digest()[:8], "big", signed=True)
    try:
        conn = connect(env, autocommit=True)
    except psycopg.Error as exc:
        raise StoreError(unreachable(url, exc)) from None
    with conn:
        try:
            conn.execute("SELECT pg_advisory_lock(%s)", [key])
            _create_schema(conn, env, url)
        except psycopg.Error as exc:
            raise StoreError(unreachable(url, exc)) from None
        yield


def _create_schema(conn: Any, env: dict[str, str], url: str) -> None:
    """Makes the schema, unless it holds tables of something else."""
    conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{env["POSTGRES_SCHEMA"]}"')
    tables = _tables_in(conn, env)
    if tables and "ledger_events" not in tables:  # as init refuses a file that is no campaign database
        raise StoreError(_("schema {schema} of {db} holds tables of something else ({tables}); name an empty schema, "
                           "or one a ledger made, with ?schema=NAME").format(
            schema=env["POSTGRES_SCHEMA"], db=shown(url), tables=", ".join(sorted(tables)[:5])))


def _tables_in(conn: Any, env: dict[str, str]) -> set[str]:
    """The tables of the schema ``env`` names."""
    return {name for (name,) in conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", [env["POSTGRES_SCHEMA"]])}


LEDGER_TABLES = frozenset({"ledger_snapshots", "projection_position", "history", "card_actions", "cards", "zones"})
"""Tables a ledger makes beside its log (``ledger_events``): a schema holding some of them
without the log is a campaign database that lost it, not one to start."""


def lost_its_log(env: dict[str, str]) -> bool:
    """Does the schema hold a ledger's other tables without its log (dropped by hand)?"""
    import psycopg

    try:
        with connect(env, autocommit=True) as conn:
            tables = _tables_in(conn, env)
    except psycopg.Error:
        return False
    return "ledger_events" not in tables and bool(tables & LEDGER_TABLES)


def unreachable(url: str, exc: BaseException) -> str:
    """One line: the PostgreSQL database cannot be used, why, and what to do. When the
    connection pool only says it got none in its wait, one direct connection is tried to
    learn why (no such database or role, a refused password, no server at that port)."""
    error = (_why_no_connection(url) if unanswered(exc) else None) or first_line(exc)
    if "FATAL:" in error:  # the server answered, and refused: no such database or role, a wrong password (a QA pass:
        # it was told to check that the server runs)
        return _("cannot use the PostgreSQL database {db} ({error}); the server answered: check that the URL names a "
                 "database and a role it has, with the right password").format(db=shown(url), error=error)
    return _("cannot use the PostgreSQL database {db} ({error}); check that the server runs (e.g. pg_ctlcluster 15 "
             "main start, or service postgresql start) and that the URL names a database you may use").format(
        db=shown(url), error=error)


def connect(env: dict[str, str], **options: Any) -> Any:
    """A psycopg connection of its own (no pool) to the database ``env`` names
    (``postgres_env``), waiting for it as long as the pool would."""
    import psycopg

    return psycopg.connect(dbname=env["POSTGRES_DBNAME"], host=env["POSTGRES_HOST"], port=env["POSTGRES_PORT"],
                           user=env["POSTGRES_USER"], password=env["POSTGRES_PASSWORD"],
                           connect_timeout=int(env["POSTGRES_CONNECT_TIMEOUT"]), **options)


def _why_no_connection(url: str) -> str | None:
    """What PostgreSQL says to one direct connection to ``url`` (its first line), or None
    if that one connects."""
    import psycopg

    try:
        connect(postgres_env(url)).close()
    except psycopg.Error as exc:
        return first_line(exc)
    return None


def refused_privilege(exc: BaseException) -> StoreError | None:
    """A PostgreSQL refusal of something the URL's role may not do (a read-only role, no
    rights on the schema or a table), however it was wrapped: one line naming it and
    what to do; None for anything else. Nothing is imported for it."""
    psycopg = sys.modules.get("psycopg")
    cause = _cause(exc, psycopg.errors.InsufficientPrivilege, 6) if psycopg is not None else None
    if cause is None:
        return None
    if str(cause).startswith("must be owner"):  # a role with every right but ownership: rebuild, a repair
        return StoreError(_("the PostgreSQL database refused ({error}): making the read models' tables and "
                            "indexes again (rebuild, or a repair of a damaged one) is for the role that owns them; "
                            "run it with the owner's URL").format(error=first_line(cause)))
    return StoreError(_("the PostgreSQL database refused ({error}): the URL's role may not do this; ask the "
                        "database's owner to grant it USAGE and CREATE on the schema, SELECT, INSERT, UPDATE and "
                        "DELETE on its tables and USAGE on its sequences, or use another role (an action is recorded whole or not at all: "
                        "ledger history shows which)").format(error=first_line(cause)))


def missing_relation(exc: BaseException) -> StoreError | None:
    """A table or column of the store that PostgreSQL does not have (dropped by hand),
    however it was wrapped: one line naming it, as SQLite's "no such table" is said; None
    for anything else (verify and export read the snapshots' table unguarded: it was an
    unexpected failure quoting the SQL, a QA pass). Nothing is imported for it."""
    psycopg = sys.modules.get("psycopg")
    cause = _cause(exc, psycopg.errors.UndefinedTable | psycopg.errors.UndefinedColumn, 6) if psycopg else None
    if cause is None:
        return None
    return StoreError(_("the campaign database cannot be used ({reason})").format(reason=first_line(cause)))


def _cause(exc: BaseException, kind: Any, depth: int) -> BaseException | None:
    """The first exception of ``kind`` among ``exc`` and the ``depth`` - 1 causes (or
    contexts) below it: eventsourcing wraps psycopg's errors in its own."""
    cause: BaseException | None = exc
    for _depth in range(depth):
        if cause is None or isinstance(cause, kind):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def connection_lost(exc: BaseException) -> StoreError | None:
    """A PostgreSQL failure that reached a command or a request unnamed (a read-model
    query whose connection was cut, the server restarting): one line saying the database
    could not be used just now, for a retry; None for anything else. Nothing is imported
    for it: a process that never loaded psycopg met no psycopg failure."""
    psycopg = sys.modules.get("psycopg")
    if psycopg is None:
        return None
    cause = _cause(exc, psycopg.OperationalError | psycopg.InterfaceError, 5)
    if cause is None:
        return None
    return StoreError(_("the PostgreSQL database could not be used just now ({error}); try again (an action is "
                        "recorded whole or not at all: ledger history shows which)").format(error=first_line(cause)))


def unanswered(exc: BaseException) -> bool:
    """Whether ``exc`` came of a PostgreSQL server that did not answer at all: the pool
    found no connection in its whole wait (``ledger.pg_recorder``), however it was wrapped
    on its way up. Nothing is imported for it."""
    pool = sys.modules.get("psycopg_pool")
    cause: BaseException | None = exc
    for _depth in range(6):
        if pool is None or cause is None:
            return False
        if isinstance(cause, pool.PoolTimeout):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


# -- live updates -----------------------------------------------------------------------
async def listen(env: Any, channel: str, heard: Any) -> None:
    """Calls ``heard()`` whenever a process records an action: eventsourcing's PostgreSQL
    recorder NOTIFYs ``channel`` (``recorder.channel_name``) in the transaction that
    inserts events, so it is heard once they are committed. Runs until cancelled, on a
    connection of its own in autocommit (LISTEN holds no transaction). The channel is
    the events table's name: ledgers in other schemas of the database share it (a
    needless look at the log, never a missed action)."""
    import psycopg

    conn = await psycopg.AsyncConnection.connect(
        dbname=env.get("POSTGRES_DBNAME"), host=env.get("POSTGRES_HOST"), port=env.get("POSTGRES_PORT"),
        user=env.get("POSTGRES_USER"), password=env.get("POSTGRES_PASSWORD") or "", autocommit=True,
        connect_timeout=int(float(env.get("POSTGRES_CONNECT_TIMEOUT") or 5)))  # a host that does not answer
    try:
        await conn.execute(f'LISTEN "{channel}"')
        async for _notice in conn.notifies():
            heard()
    finally:
        await conn.close()
