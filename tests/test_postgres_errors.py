"""A PostgreSQL database that cannot be used is refused in one line saying why and what
to do, exit 1, never a traceback — and the URL's password is never printed."""

from __future__ import annotations

import inspect
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.conftest import one_error_line, run_ledger
from tests.postgres_support import fresh_schema


@pytest.mark.parametrize("url, says", [
    ("postgresql://postgres:s3cret@127.0.0.1:1/test", "check that the server runs"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/", "write it as postgresql://USER@HOST:PORT/DBNAME"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=Bad-Name", "lower-case letters"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?sslmode=require", "write it as"),
    ("postgresql://postgres:s3cret/x?y@127.0.0.1:5432/test", "write it as"),  # no password to urlsplit
    ("postgresql://postgres@127.0.0.1:5432/test?password=s3cret", "write it as"),  # libpq reads it there too
    # found by a QA pass: PostgreSQL's own schemas were "cannot use … check that the server runs",
    # and an empty ?schema= was read as public
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=pg_catalog", "PostgreSQL's own"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=pg_toast", "PostgreSQL's own"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=information_schema", "PostgreSQL's own"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=", "lower-case letters"),
    # a QA pass: the first of two was taken silently, and a name's fault was not said
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=north&schema=east", "?schema= is given 2 times"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=1north", "not starting with a digit"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=" + "n" * 64, "1 to 63 lower-case letters"),
    # the server answered, and said why: not told to check that it runs (a QA pass)
    ("postgresql://postgres:s3cret@127.0.0.1:5432/no_such_database_here", "does not exist); the server answered"),
])
def test_a_database_that_cannot_be_used_is_one_error_line(url, says):
    done = run_ledger("zones", db=url)
    line = one_error_line(done)
    assert says in line and "s3cret" not in line and "****" in line


def test_a_schema_without_a_campaign_says_how_to_start_one():
    with fresh_schema() as url:
        done = run_ledger("zones", db=url)
        assert "no campaign database at" in one_error_line(done) and "ledger init" in done.stderr


def _cut(monkeypatch) -> None:
    """Every read of the read-model tables meets a connection the server ended (as
    ``pg_terminate_backend`` or a restart does), where the store's own retries do not reach."""
    import psycopg

    from projections.tables import PostgresTables

    def scan(self, sql, params=()):
        raise psycopg.OperationalError("terminating connection due to administrator command")
        yield  # a generator, as the real one

    monkeypatch.setattr(PostgresTables, "scan", scan)


def test_a_connection_lost_under_a_read_is_one_error_line_at_the_cli(monkeypatch):
    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        _cut(monkeypatch)
        line = one_error_line(run_ledger("history", "--limit", "3", db=url))
        assert "could not be used just now" in line and "try again" in line and "unexpected" not in line, line


def test_a_connection_lost_under_a_request_is_a_503_for_a_retry(monkeypatch):
    from fastapi.testclient import TestClient

    from ledger.interface.server.app import create_app
    from tests.server_support import table
    from tests.test_server_api import one_error

    with fresh_schema() as url:
        seated = table(None, db=url)
        with TestClient(create_app(url)) as client:
            _cut(monkeypatch)
            reply = client.get("/api/campaigns/demo/history?limit=3", headers=seated.headers("ana"))
            error = one_error(reply, 503)
            assert error["code"] == "store" and "just now" in error["message"]
            assert reply.headers.get("cache-control") == "no-store" and reply.headers.get("retry-after") == "2"


def test_init_refuses_a_schema_that_holds_something_else(tmp_path):
    """As init refuses a file that is no campaign database: a schema with tables but no
    ledger's log is someone else's; nothing is added to it."""
    import psycopg

    from ledger.catalog import sample_catalog_path

    with fresh_schema() as url:
        schema = url.rsplit("schema=", 1)[1]
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as conn:
            conn.execute(f'CREATE TABLE "{schema}".invoices (id int)')
        line = one_error_line(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "X", db=url))
        assert "holds tables of something else (invoices)" in line, line
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test") as conn:
            tables = {name for (name,) in conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s", [schema])}
        assert tables == {"invoices"}


def test_a_store_table_dropped_by_hand_is_one_error_line_naming_it_for_verify_and_export_too():
    """A PostgreSQL QA pass: with the snapshots' table dropped, verify and export (which
    read it past the ledger's guard) said "unexpected failure … please report it" and
    quoted the SQL; SQLite's file said one line. Every command now names the table."""
    import psycopg

    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        schema = url.rsplit("schema=", 1)[1]
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as conn:
            conn.execute(f'DROP TABLE "{schema}".ledger_snapshots')
        for args in (("verify",), ("export", "-"), ("zones",)):
            line = one_error_line(run_ledger(*args, db=url), what=args)
            assert "the campaign database cannot be used" in line and "ledger_snapshots" in line, line
            assert "SELECT" not in line and "report" not in line, line


def test_a_schema_whose_log_table_was_dropped_is_not_offered_init():
    """A QA pass: with ledger_events dropped by hand, every command said "no campaign
    database … start one with ledger init", and init then refused the schema as another
    program's. A campaign database that lost its log says so (SQLite's file does too)."""
    import psycopg

    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        schema = url.rsplit("schema=", 1)[1]
        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as conn:
            conn.execute(f'DROP TABLE "{schema}".ledger_events CASCADE')
        line = one_error_line(run_ledger("zones", db=url))
        assert "a campaign database that lost its log" in line and "ledger init" not in line, line


@pytest.mark.parametrize("failure, tries", [("no connection", 1), ("broken connection", 3)])
def test_a_server_that_does_not_answer_is_not_asked_again_and_again(monkeypatch, failure, tries):
    """eventsourcing tries each read and write of the log up to ten times, each first
    waiting the pool's whole timeout (5 s) for a connection: with the server down a command
    took ~50 s to say so, and the table server answered no seat meanwhile. The ledger's
    recorders (ledger.pg_recorder) give up at once when the pool found no connection in its
    timeout, and try a connection that broke under a statement three times in all; the
    log's and the snapshots' recorders alike, reading and writing."""
    import psycopg
    import psycopg_pool

    from ledger import commands as c
    from ledger.application import Ledger

    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        ledger = Ledger.open(url)
        try:
            cid = ledger.resolve(None)
            ledger.campaign(cid)  # held in memory: the action below is decided, then fails to be saved
            asked: list[str] = []  # the recorder's method that asked, each time

            def unanswered(*_args, **_kwargs):
                asked.append(next(frame.function for frame in inspect.stack()
                                  if frame.function in ("select_events", "insert_events")))
                if failure == "no connection":
                    raise psycopg_pool.PoolTimeout("couldn't get a connection after 5.00 sec")
                raise psycopg.OperationalError("server closed the connection unexpectedly")

            monkeypatch.setattr(ledger.factory.datastore.pool, "connection", unanswered)
            for step, method in ((lambda: ledger.actions(cid), "select_events"),  # the log's recorder
                                 (lambda: ledger.fit_snapshot(cid), "select_events"),  # the snapshots'
                                 (lambda: ledger.execute(cid, c.Exhaust(cards=("item-sword",))), "insert_events")):
                asked.clear()
                with pytest.raises(Exception) as raised:
                    step()
                assert asked[:tries] == [method] * tries, (failure, asked)
                assert len(asked) <= 2 * tries, asked  # (a write that failed then asks whether it went in)
                if method == "insert_events" and failure == "broken connection":  # it may have gone in
                    assert "may or may not be recorded (ledger history shows which)" in str(raised.value)
                else:  # a read, or a write that never had a connection: nothing was sent
                    assert "connection" in str(raised.value)
        finally:
            monkeypatch.undo()
            ledger.close()


def test_a_lost_listening_connection_is_one_line_in_the_log_and_tried_again_ever_more_patiently(monkeypatch, caplog):
    """The table server LISTENs for actions other processes record; while the database is
    down every try fails: each failure is one warning line (no traceback), and the pause
    before the next try doubles up to LISTEN_PATIENCE (it was a traceback every second)."""
    import asyncio
    import logging
    import types

    import psycopg

    from ledger.interface.server import live

    pauses: list[float] = []
    tries = {"n": 0}

    async def down(env, channel, heard):
        tries["n"] += 1
        if tries["n"] > 8:
            raise asyncio.CancelledError
        raise psycopg.OperationalError("connection failed: Connection refused\n\tIs the server running?")

    async def paused(seconds):
        pauses.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", paused)
    follower = types.SimpleNamespace(wake=asyncio.Event())
    with caplog.at_level(logging.WARNING, logger="ledger.server"), pytest.raises(asyncio.CancelledError):
        asyncio.run(live.Follower._listen(follower, down, {}, "ledger_events"))
    assert pauses == [1, 2, 4, 8, 16, live.LISTEN_PATIENCE, live.LISTEN_PATIENCE, live.LISTEN_PATIENCE]
    records = [r for r in caplog.records if r.name == "ledger.server"]
    assert len(records) == 8 and all(r.exc_info is None for r in records)
    assert all("\n" not in r.getMessage() and "Connection refused" in r.getMessage() for r in records)


def test_a_stopping_server_waits_for_its_following_of_the_log_only_so_long(monkeypatch, caplog):
    """A full run hung for minutes in a test's shutdown, the follower awaiting a task it had
    cancelled (a listening connection caught mid-way, as far as could be told). A task that
    does not end when cancelled now holds the stop STOP_PATIENCE at most, said in the log."""
    import asyncio
    import logging
    import time
    import types

    from ledger.interface.server import live

    monkeypatch.setattr(live, "STOP_PATIENCE", 0.2, raising=False)

    async def deaf() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            await asyncio.sleep(3)  # (as a stuck connection would: the cancel is not heard for a while)

    async def main() -> float:
        follower = types.SimpleNamespace(_task=asyncio.get_running_loop().create_task(deaf()), _listener=None,
                                         streams={})
        await asyncio.sleep(0)
        began = time.monotonic()
        await live.Follower.stop(follower)
        return time.monotonic() - began

    with caplog.at_level(logging.WARNING, logger="ledger.server"):
        loop = asyncio.new_event_loop()
        try:
            waited = loop.run_until_complete(main())
        finally:
            for task in asyncio.all_tasks(loop):
                task.get_coro().close()
            loop.close()
    assert waited < 2, waited
    assert any("did not stop within" in r.getMessage() for r in caplog.records if r.name == "ledger.server")


def test_a_database_that_does_not_answer_is_not_waited_for_again_by_every_request(monkeypatch):
    """The table server does its work one piece at a time: with the database down, each
    request held every seat for the pool's wait (5 s). Once it did not answer, requests are
    refused at once (503, Retry-After) for a few seconds, without asking it; then the next
    one asks again, and works once it answers."""
    import psycopg_pool
    from fastapi.testclient import TestClient

    from ledger.interface.server.app import create_app
    from tests.server_support import table
    from tests.test_server_api import one_error

    with fresh_schema() as url:
        seated = table(None, db=url)
        app = create_app(url)
        with TestClient(app) as client:
            zones = "/api/campaigns/demo/zones"
            assert client.get(zones, headers=seated.headers("ana")).status_code == 200
            pool = app.state.clerk.ledger.factory.datastore.pool
            asked: list[int] = []

            def unanswered(*_args, **_kwargs):
                asked.append(1)
                raise psycopg_pool.PoolTimeout("couldn't get a connection after 5.00 sec")

            monkeypatch.setattr(pool, "connection", unanswered)
            first = client.get(zones, headers=seated.headers("ana"))
            assert one_error(first, 503)["code"] == "store" and asked == [1]
            again = client.post("/api/campaigns/demo/actions", headers=seated.headers("ana"),
                                json={"action": "exhaust", "cards": ["item-sword"]})
            error = one_error(again, 503)
            assert "does not answer just now" in error["message"] and "nothing was recorded" in error["message"]
            assert again.headers.get("retry-after") == "5" and asked == [1]  # not asked again
            clerk = app.state.clerk
            clerk._unanswered_until = 0.0  # the hold is over: asked again, still no answer
            one_error(client.get(zones, headers=seated.headers("ana")), 503)
            assert asked == [1, 1] and clerk._unanswered_until - time.monotonic() > 2 * clerk.UNANSWERED_HOLD - 1
            monkeypatch.undo()  # it answers again
            clerk._unanswered_until = 0.0  # the (longer) hold is over
            assert client.get(zones, headers=seated.headers("ana")).status_code == 200
            assert clerk._hold == clerk.UNANSWERED_HOLD  # back to the first hold
            from ledger.application import Ledger

            ledger = Ledger.open(url)
            try:  # the refused action appended nothing: the demo's last action is still the last
                assert ledger.last_seq(ledger.resolve(None)) == client.get(
                    zones, headers=seated.headers("ana")).json()["seq"] == 36
            finally:
                ledger.close()


def test_following_the_log_while_the_database_is_down_is_one_line_when_it_begins(caplog):
    """The table server looks at the log every second: a storage problem is one warning
    when it begins (not a traceback a second while it lasts), and one when it passes;
    anything else is unexpected and keeps its traceback."""
    import logging
    import types

    from ledger.errors import StoreError
    from ledger.interface.server import live

    follower = types.SimpleNamespace(_failing=False)
    with caplog.at_level(logging.WARNING, logger="ledger.server"):
        for _second in range(3):
            live.Follower._failed(follower, StoreError("the database does not answer just now"))
        live.Follower._failed(follower, RuntimeError("a bug"))
    records = [r for r in caplog.records if r.name == "ledger.server"]
    assert [(r.levelname, r.exc_info is not None) for r in records] == [("WARNING", False), ("ERROR", True)]
    assert "does not answer just now" in records[0].getMessage()


def test_catching_the_read_models_up_while_the_database_is_down_is_one_line_not_a_traceback_a_second(caplog):
    """A QA pass: with PostgreSQL down, the table server's log held a traceback each time it
    tried to catch the read models up ("catching the read models up failed; trying again");
    it is one warning while the trouble stays the same, and it waits to try again. Anything
    else is unexpected and keeps its traceback."""
    import logging
    import types

    import psycopg

    from ledger.interface.server import live

    follower = types.SimpleNamespace(_model_trouble=None, _model_retry_at=0.0)
    with caplog.at_level(logging.WARNING, logger="ledger.server"):
        for _try in range(3):
            try:
                raise psycopg.OperationalError("connection refused")
            except psycopg.OperationalError as exc:
                live.Follower._model_failed(follower, exc)
        assert follower._model_retry_at - time.monotonic() > live.MODEL_RETRY - 1
        live.Follower._model_failed(follower, RuntimeError("a bug"))
    records = [r for r in caplog.records if r.name == "ledger.server"]
    assert [(r.levelname, r.exc_info is not None) for r in records] == [("WARNING", False), ("ERROR", True)]
    assert "could not be used just now" in records[0].getMessage()


def test_inits_at_once_on_a_new_schema_all_start_their_campaigns():
    """Eight ``ledger init`` at once on one new schema: each makes the schema and the tables
    if they are not there, one at a time (PostgreSQL failed some of them side by side —
    "tuple concurrently updated", a duplicate pg_type key — reported as a server that cannot
    be reached); every campaign is started and listed."""
    import json
    import subprocess
    import sys
    from concurrent.futures import ThreadPoolExecutor

    from ledger.catalog import sample_catalog_path

    for _round in range(2):
        with fresh_schema() as url:
            def init(i: int):  # processes of their own, as eight players' machines
                return subprocess.run([sys.executable, "-m", "ledger", "--db", url, "init", "--catalog",
                                       str(sample_catalog_path()), "--name", f"Mesa {i}"],
                                      capture_output=True, text=True, timeout=120)

            with ThreadPoolExecutor(8) as pool:
                done = list(pool.map(init, range(8)))
            assert [d.stderr for d in done if d.returncode != 0] == []
            listed = json.loads(run_ledger("--json", "campaigns", db=url).stdout)
            assert sorted(c["id"] for c in listed) == sorted(f"mesa-{i}" for i in range(8))


@pytest.mark.parametrize("part, says", [("database", 'database "no_such_db_'), ("user", 'role "no_such_role_')])
def test_a_database_or_role_that_does_not_exist_is_named_not_taken_for_a_server_that_is_down(part, says):
    """The pool only says it got no connection in its wait; the line says what PostgreSQL
    said to one direct connection: which database or role does not exist."""
    from urllib.parse import urlsplit, urlunsplit

    from tests.postgres_support import SERVER

    parts = urlsplit(SERVER)
    if part == "database":
        url = urlunsplit(parts._replace(path="/no_such_db_x", query="schema=nowhere"))
    else:
        url = urlunsplit(parts._replace(netloc=f"no_such_role_x@{parts.hostname}:{parts.port or 5432}",
                                        query="schema=nowhere"))
    line = one_error_line(run_ledger("zones", db=url))
    assert says in line and "does not exist" in line, line


@contextmanager
def role_granted(url: str, on_schema: str, grants: list[str]) -> Iterator[str]:
    """The URL of ``url``'s schema as a new role holding ``on_schema`` rights on the schema
    and each of ``grants`` (``... IN SCHEMA``) there; the role is dropped afterwards."""
    import uuid

    import psycopg

    from tests.postgres_support import SERVER, schema_of

    role = f"ledger_test_role_{uuid.uuid4().hex[:8]}"
    schema = schema_of(url)
    with psycopg.connect(SERVER.split("?")[0], autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'GRANT {on_schema} ON SCHEMA "{schema}" TO "{role}"')
        for grant in grants:
            conn.execute(f'GRANT {grant} "{schema}" TO "{role}"')
    try:
        yield url.replace("postgres@", f"{role}@", 1)
    finally:
        with psycopg.connect(SERVER.split("?")[0], autocommit=True) as conn:
            conn.execute(f'DROP OWNED BY "{role}"')
            conn.execute(f'DROP ROLE "{role}"')


@pytest.mark.parametrize("grants", [
    ["SELECT ON ALL TABLES"],
    ["SELECT, INSERT ON ALL TABLES", "USAGE ON ALL SEQUENCES"],  # no right to lock the log for an insert
    ["SELECT, INSERT, UPDATE, DELETE ON ALL TABLES"],  # no use of the notification ids' sequence
], ids=["read-only", "no-lock", "no-sequence"])
def test_a_role_that_may_only_read_is_told_so_when_it_acts_and_nothing_is_recorded(grants):
    """A role short of the rights a write needs: its reads work; an action or a rebuild
    is one line saying the database refused, never 'unexpected failure', nor a passing
    failure to try again ("pipeline aborted": eventsourcing's pipelined insert hides why)."""
    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        with role_granted(url, "USAGE", [f"{grant} IN SCHEMA" for grant in grants]) as reader:
            assert run_ledger("zones", db=reader).returncode == 0
            for args in (["hero", "add", "carl"], ["undo"]) + ((["rebuild"],) if grants == ["SELECT ON ALL TABLES"] else ()):
                line = one_error_line(run_ledger(*args, db=reader), what=args)
                assert "refused (permission denied" in line and "unexpected" not in line, line
            assert run_ledger("--json", "history", "--limit", "1", db=url).stdout.count('"seq": 36') == 1


def test_a_role_with_every_right_but_ownership_is_told_rebuild_is_the_owners():
    """A QA pass: a role granted every right the README lists could act, but rebuild said
    "must be owner of index …" and told it to ask for the very rights it had. Remaking the
    read models' tables and indexes is for their owner, and the line says so."""
    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        grants = ["SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA", "USAGE ON ALL SEQUENCES IN SCHEMA"]
        with role_granted(url, "USAGE, CREATE", grants) as player:
            assert run_ledger("hero", "add", "carl", db=player).returncode == 0  # acting works
            line = one_error_line(run_ledger("rebuild", db=player))
            assert "must be owner" in line and "for the role that owns them" in line, line
            assert "grant it" not in line, line
