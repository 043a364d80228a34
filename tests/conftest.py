"""Shared fixtures: a real campaign database per test (an SQLite file, or for the
modules marked ``both_stores`` also a PostgreSQL schema of its own: ``store``,
``db_path``), and a ``Game`` helper that records actions and checks that refusals
append nothing; ``run_ledger`` (the ``ledger`` command, in this process) and
``run_ledger_process`` (in a child process), and the checks the command tests share
(``succeeded``, ``one_error_line``, ``json_error``...)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from ledger import commands as c
from ledger.application import Ledger, Recorded
from ledger.campaign import Campaign
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.errors import LedgerError
from ledger.postgres import is_postgres, shown

# The tests read the ledger in English (its message ids) whatever this machine's locale;
# the tests of other languages set --lang, $LEDGER_LANG or the locale themselves.
os.environ["LEDGER_LANG"] = "en"

# Soak scripts (tests/soak/) and benchmarks (tests/benchmarks/) are run by hand.
collect_ignore_glob = ["soak/*", "benchmarks/*"]

# Where the tests' files go (tmp_path, tempfile): $LEDGER_TEST_TMPDIR if set (e.g.
# ``LEDGER_TEST_TMPDIR=/tmp`` to run on disk), else the in-memory /dev/shm when the
# machine has a roomy one. Every action is committed with synchronous=FULL, and on a
# slow virtual disk each of the suite's thousands of fsyncs costs ~5 ms. The code and
# its settings are the same either way; the crash and concurrency tests, which are
# about files on a disk, always use one (``disk_tmp_path``).
SHM = Path("/dev/shm")
SHM_ROOM = 2 * 1024**3
DISK_TMPDIR = tempfile.gettempdir()  # before pytest_configure: the system's own temporary directory


def _test_tmpdir() -> str | None:
    chosen = os.environ.get("LEDGER_TEST_TMPDIR")
    if chosen:
        return chosen
    try:
        if SHM.is_dir() and os.access(SHM, os.W_OK) and shutil.disk_usage(SHM).free >= SHM_ROOM:
            return str(SHM)
    except OSError:
        pass
    return None


def pytest_configure(config) -> None:
    tmpdir = _test_tmpdir()
    if tmpdir is not None:
        tempfile.tempdir = tmpdir  # read by pytest's tmp_path_factory and by tempfile
    # PostgreSQL (the both_stores modules): commits do not wait for the server's disk, as the
    # SQLite files are in memory (a session setting of the tests' connections, not the server's).
    os.environ.setdefault("PGOPTIONS", "-c synchronous_commit=off")
    # No test signs with a key of this machine's user (ledger.signing): the key is
    # looked for where there is none, unless a test makes one (tests/test_record_trust.py).
    os.environ["LEDGER_KEY"] = str(Path(tempfile.gettempdir()) / f"no-key-here-{os.getpid()}" / "signing-key.pem")
    # No command of the suite is handed to a warm command server this machine's user may
    # have running (ledger daemon start): the tests of that server start their own.
    # nor starts one of its own for later commands (a developer's terminal; tests/test_daemon.py)
    os.environ["LEDGER_DAEMON_DIR"] = str(Path(tempfile.gettempdir()) / f"no-command-server-{os.getpid()}")
    os.environ["LEDGER_DAEMON"] = "off"
    config.addinivalue_line("markers", "both_stores: the module's (or test's) campaign databases are an SQLite file "
                            "and a PostgreSQL schema in turn (the ``store`` fixture; tests/conftest.py)")
    config.addinivalue_line("markers", "sqlite_only: this test of a both_stores module is about the SQLite file")


# -- the two stores ------------------------------------------------------------------------------
# A module marked ``pytestmark = pytest.mark.both_stores`` runs each test that uses ``store``
# (through ``db_path``, ``app``, ``game``, ``new_db``... or itself) twice: on an SQLite file, and
# on a PostgreSQL schema no other test sees while it runs (``db_path``: the test process's scratch
# schema, emptied after each test; ``fresh_db``, ``new_db``, ``copy_db``: a new ``t_<hex>``,
# dropped after it) on the server at $LEDGER_TEST_POSTGRES (default
# postgresql://postgres@127.0.0.1:5432/test). If that server cannot be reached, those tests fail
# saying how to start it: never skipped. Other tests, and those marked ``sqlite_only``, use an
# SQLite file only.
STORES = ("sqlite", "postgres")


def pytest_generate_tests(metafunc) -> None:
    if "store" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_stores") \
            and not metafunc.definition.get_closest_marker("sqlite_only"):
        metafunc.parametrize("store", STORES, ids=list(STORES), indirect=True)


@pytest.fixture(scope="module")
def store(request) -> str:
    """``sqlite`` or ``postgres``: where this test's campaign databases are (module scope,
    so that a module's shared campaign may be made once per store)."""
    return getattr(request, "param", "sqlite")


class _Postgres:
    """This process's connection to the test server (``$LEDGER_TEST_POSTGRES``), for making,
    emptying and dropping schemas; a server found unreachable fails every later test at once."""

    conn: Any = None
    down: str | None = None
    scratch: str | None = None  # this process's schema for ``db_path``, emptied after each test

    @classmethod
    def connection(cls) -> Any:
        from tests.postgres_support import SERVER

        if cls.conn is None and cls.down is None:
            import psycopg

            try:
                cls.conn = psycopg.connect(SERVER, autocommit=True, connect_timeout=5)
            except psycopg.OperationalError as exc:
                reason = str(exc).strip().splitlines()[0]
                cls.down = (f"PostgreSQL is not reachable at {shown(SERVER)} ({reason}): start it (pg_ctlcluster "
                            "15 main start, or service postgresql start) or name another server with "
                            "LEDGER_TEST_POSTGRES=postgresql://USER@HOST:PORT/DBNAME")
            else:
                cls.conn.execute("SET lock_timeout = '20s'")  # a lock a test left held: an error, not a hang
        if cls.down is not None:
            pytest.fail(cls.down, pytrace=False)
        return cls.conn

    @classmethod
    def execute(cls, sql: str, params: Any = None) -> list[tuple]:
        conn = cls.connection()
        try:
            cursor = conn.execute(sql, params)
            return cursor.fetchall() if cursor.description else []
        except Exception:
            if conn.closed or conn.broken:
                cls.conn = None  # connect again next time (the server may have been restarted)
            raise

    @classmethod
    def take_scratch(cls) -> str:
        """The URL of an empty campaign database: this process's scratch schema, with
        eventsourcing's tables (making them costs more than emptying them)."""
        if cls.scratch is None:
            url = new_schema()
            Ledger.open(url, create=True).close()
            cls.scratch = url
        return cls.scratch

    @classmethod
    def empty_scratch(cls) -> None:
        """The scratch schema as ``take_scratch`` made it, in one statement: every other table
        (the read models') and function (a test's triggers') dropped, eventsourcing's tables
        emptied, notification ids from 1 again. If that fails the schema is dropped, and the
        next test gets a new one."""
        url, schema = cls.scratch, schema_of(cls.scratch)
        try:
            cls.execute(f"""DO $$ DECLARE name text; BEGIN
                FOR name IN SELECT tablename FROM pg_tables WHERE schemaname = '{schema}'
                        AND tablename NOT IN ('ledger_events', 'ledger_snapshots') LOOP
                    EXECUTE format('DROP TABLE %I.%I CASCADE', '{schema}', name);
                END LOOP;
                FOR name IN SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = pronamespace
                        WHERE nspname = '{schema}' AND proname NOT LIKE 'es\\_%' LOOP
                    EXECUTE 'DROP FUNCTION ' || name || ' CASCADE';
                END LOOP;
                TRUNCATE "{schema}".ledger_events, "{schema}".ledger_snapshots RESTART IDENTITY;
            END $$""")
        except Exception:
            cls.scratch = None
            drop_schema(url)
            raise

    @classmethod
    def drop_scratch(cls) -> None:
        if cls.scratch is not None and cls.conn is not None:
            url, cls.scratch = cls.scratch, None
            drop_schema(url)


def pytest_sessionfinish(session) -> None:
    if _Postgres.conn is not None:
        try:
            _Postgres.drop_scratch()
        finally:
            _Postgres.conn.close()


def new_schema() -> str:
    """The URL of a new, empty schema on the test server (``drop_schema`` it after)."""
    from tests.postgres_support import SERVER

    name = f"t_{uuid.uuid4().hex[:16]}"
    _Postgres.execute(f'CREATE SCHEMA "{name}"')
    return f"{SERVER}?schema={name}"


def drop_schema(url: str) -> None:
    _Postgres.execute(f'DROP SCHEMA IF EXISTS "{schema_of(url)}" CASCADE')


def schema_of(url: str) -> str:
    from tests.postgres_support import schema_of as named

    return named(url)


@contextmanager
def fresh_db(store: str, folder: Path, name: str = "campaign.db") -> Iterator[Path | str]:
    """A database where none is yet: ``folder / name`` (SQLite), or the URL of a new, empty
    schema (PostgreSQL), dropped on leaving."""
    if store == "sqlite":
        yield Path(folder) / name
        return
    url = new_schema()
    try:
        yield url
    finally:
        drop_schema(url)


@pytest.fixture
def db_path(store: str, tmp_path: Path) -> Iterator[Path | str]:
    """This test's campaign database: ``campaign.db`` in tmp_path (not made yet), or on
    PostgreSQL the URL of a schema holding eventsourcing's tables, empty (this process's
    scratch schema, emptied again after the test: no other test sees its rows, and xdist's
    processes each have their own)."""
    if store == "sqlite":
        yield tmp_path / "campaign.db"
        return
    yield _Postgres.take_scratch()
    _Postgres.empty_scratch()


@pytest.fixture
def new_db(store: str, tmp_path: Path) -> Iterator:
    """``new_db(name)``: another database of this test's store, where none is yet (an
    SQLite file ``tmp_path / name``, or a new schema, dropped after the test)."""
    made: list[str] = []

    def make(name: str = "campaign.db") -> Path | str:
        if store == "sqlite":
            return tmp_path / name
        made.append(new_schema())
        return made[-1]

    yield make
    for url in made:
        drop_schema(url)


def db_of(app: Ledger) -> Path | str:
    """The database ``app`` was opened on, to open it again: the SQLite file's name, or the
    PostgreSQL URL (with its schema)."""
    env = app.env
    if env.get("POSTGRES_DBNAME"):
        from urllib.parse import quote

        user = quote(env["POSTGRES_USER"], safe="")
        password = f":{quote(env['POSTGRES_PASSWORD'], safe='')}" if env.get("POSTGRES_PASSWORD") else ""
        return (f"postgresql://{user}{password}@{env['POSTGRES_HOST']}:{env['POSTGRES_PORT']}/"
                f"{quote(env['POSTGRES_DBNAME'], safe='')}?schema={env['POSTGRES_SCHEMA']}")
    return env["SQLITE_DBNAME"]


class DiskTmpPathFactory:
    """``tmp_path_factory.mktemp`` in the system's temporary directory on disk."""

    def __init__(self, base: Path):
        self.base = base
        self.made = 0

    def mktemp(self, name: str) -> Path:
        self.made += 1
        path = self.base / f"{name}{self.made}"
        path.mkdir()
        return path


@pytest.fixture(scope="session")
def disk_tmp_path_factory():
    """Directories on disk even when the other tests' files are in memory: for the crash
    and concurrency tests, whose subject (and figures) is a file on a real disk, with
    its fsyncs. Removed at the end of the session."""
    base = Path(tempfile.mkdtemp(prefix="ledger-tests-", dir=DISK_TMPDIR))
    yield DiskTmpPathFactory(base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def disk_tmp_path(disk_tmp_path_factory, request) -> Path:
    """``tmp_path``, on disk (see ``disk_tmp_path_factory``)."""
    return disk_tmp_path_factory.mktemp(re.sub(r"\W", "_", request.node.name)[:40])


class Game:
    """A started campaign on a real database (an SQLite file or a PostgreSQL schema)."""

    def __init__(self, app: Ledger, cid):
        self.app = app
        self.cid = cid

    @property
    def campaign(self) -> Campaign:
        return self.app.campaign(self.cid)

    @property
    def table(self):
        return self.campaign.table

    def do(self, command: c.Command) -> Recorded:
        return self.app.execute(self.cid, command)

    def refuse(self, command: c.Command, error: type[LedgerError] = LedgerError) -> LedgerError:
        """Runs a command that must be refused; checks that nothing was appended and
        that the in-memory table is exactly as before. Returns the error."""
        before_count = self.app.stored_event_count()
        before_seq = self.app.last_seq(self.cid)
        before_table = self.campaign.table.to_dict()
        with pytest.raises(error) as info:
            self.do(command)
        assert self.app.stored_event_count() == before_count, "a refused action appended events"
        assert self.app.last_seq(self.cid) == before_seq
        assert self.campaign.table.to_dict() == before_table, "a refused action changed the table"
        assert self.stored_table(before_seq) == before_table, "the stored record no longer gives the table"
        return info.value

    def stored_table(self, seq: int) -> dict:
        """The table after ``seq``, the last action, as the database gives it: loaded by a
        new ``Ledger`` (a new process's view) from an SQLite file; on PostgreSQL, where opening
        one costs ~20 ms, by this one from the stored snapshot and actions
        (``campaign(at=seq)``, which reads the store, never the copy in memory)."""
        if is_postgres(db_of(self.app)):
            return self.app.campaign(self.cid, at=seq).table.to_dict()
        fresh = Ledger.open(db_of(self.app))
        try:
            return fresh.campaign(self.cid).table.to_dict()
        finally:
            fresh.close()

    def zone(self, card: str) -> str:
        return self.table.zone_of(card)

    def cards(self, zone: str) -> list[str]:
        return list(self.table.cards_in(zone))

    def add(self, *cards: str, to: str, position="top") -> Recorded:
        return self.do(c.Add(cards=cards, to=to, position=position))

    EFFECTS = {"ana": "skill-stealth", "bo": "skill-quick-strike"}
    """A card of each hero's whose effect allows a shuffle (``shuffle_as``): knowledge 0."""

    def shuffle_as(self, hero: str, stack: str, **fields) -> Recorded:
        """A hero's shuffle of a stack nobody owns, by the effect of a card of hers (from
        ruleset 17 it needs one, ``rules.shuffle_allowed``), put face-up on her table first."""
        card = self.EFFECTS[hero]
        if self.zone(card) != f"table:{hero}":
            self.add(card, to=f"table:{hero}")
        return self.do(c.Shuffle(actor=hero, stack=stack, by=card, **fields))


@pytest.fixture
def app(db_path: Path | str):
    # A PostgreSQL db_path has its tables already: making them again would cost ~60 ms a test.
    ledger = Ledger.open(db_path, create=not is_postgres(db_path))
    yield ledger
    ledger.close()


@pytest.fixture(scope="session")
def sample_catalog():
    """The sample catalog, read once (~25 ms a read; nothing changes a ``Catalog``)."""
    return load_catalog(sample_catalog_path())


@pytest.fixture
def game(app: Ledger, sample_catalog) -> Game:
    """The sample catalog, heroes ana (knowledge 1) and bo (knowledge 0)."""
    rec = app.start(sample_catalog, name="Test")
    g = Game(app, rec.campaign.id)
    g.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
    g.do(c.AddHero(hero="bo", name="Bo", knowledge=0))
    return g


# -- the ``ledger`` command ------------------------------------------------------------------
def _argv(args: tuple, db: Path | str | None) -> list[str]:
    return (["--db", str(db)] if db is not None else []) + [str(a) for a in args]


def _exit_status(code: object, err) -> int:
    """What a process exiting with ``sys.exit(code)`` reports as its status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    err.write(f"{code}\n")  # sys.exit("message"): the message goes to stderr, status 1
    return 1


def run_ledger(*args: str, db: Path | str | None = None, cwd: Path | None = None,
               env: dict | None = None) -> subprocess.CompletedProcess:
    """``ledger [--db DB] ARGS`` run in this process (DB: a file, or a PostgreSQL URL): the code
    path of ``python -m ledger`` (``ledger.interface.cli.main``) inside click's ``CliRunner``
    isolation. Returns what a child process would: ``returncode``, ``stdout``, ``stderr`` (a
    ``CompletedProcess``).

    Like a child process it starts from this process's environment without
    ``$LEDGER_DB``, plus ``env`` (which may set ``LEDGER_DB``), in ``cwd``; the
    environment, the working directory and the standard streams are restored after, and
    any ``Ledger`` the command left open is closed, as the end of a process would.
    An exception that escapes ``main`` is reported as a child would (a traceback on
    stderr, status 1), so that the tests' "no traceback" checks still see it."""
    from click.testing import CliRunner

    from ledger.interface.cli import main

    argv = _argv(args, db)
    overrides: dict[str, str | None] = {"LEDGER_DB": None, **(env or {})}
    old_cwd = os.getcwd()
    opened: list[Ledger] = []
    real_open = Ledger.open.__func__  # type: ignore[attr-defined]

    def tracking_open(cls, *a, **kw):
        ledger = real_open(cls, *a, **kw)
        opened.append(ledger)
        return ledger

    code = 0
    with CliRunner().isolation(env=overrides) as (out, err, _), \
            mock.patch.object(Ledger, "open", classmethod(tracking_open)):
        if cwd is not None:
            os.chdir(cwd)  # a missing cwd raises here, as it would in subprocess.run
        try:
            main(argv)
        except SystemExit as exc:
            code = _exit_status(exc.code, sys.stderr)
        except Exception:  # a crash, as a child process would show it
            sys.stderr.write(traceback.format_exc())
            code = 1
        finally:
            os.chdir(old_cwd)
            for ledger in opened:  # what the end of a process does to a ledger left open
                ledger.close()
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    return subprocess.CompletedProcess(["ledger", *argv], code, stdout.decode("utf-8", "replace"),
                                       stderr.decode("utf-8", "replace"))


def run_ledger_process(*args: str, db: Path | str | None = None, cwd: Path | None = None,
                       env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m ledger [--db DB] ARGS`` in a child process, for the tests where the
    process boundary is the point (a fresh interpreter replaying the file). Same
    environment rule as ``run_ledger``: no inherited ``$LEDGER_DB``, plus ``env``."""
    full_env = {k: v for k, v in os.environ.items() if k != "LEDGER_DB"}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "ledger", *_argv(args, db)], capture_output=True, text=True,
                          cwd=cwd, env=full_env, timeout=timeout)


def cli(db: Path | str, *args: str) -> tuple[int, str, str]:
    """``ledger --db DB ARGS`` in this process: (exit status, stdout, stderr). A wide
    terminal, so that no id is wrapped across lines in the human tables."""
    result = run_ledger(*args, db=db, env={"COLUMNS": "1000"})
    return result.returncode, result.stdout, result.stderr


def ok(db: Path | str, *args: str) -> str:
    """``ledger --db DB ARGS`` must succeed, without a traceback: its stdout."""
    code, out, err = cli(db, *args)
    assert code == 0, f"ledger {' '.join(args)} exited {code}: {err}"
    assert "Traceback" not in out + err
    return out


# -- what the tests check of a command's result -------------------------------------------------
def succeeded(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    assert "Traceback" not in result.stdout + result.stderr
    return result


def one_error_line(result: subprocess.CompletedProcess, exit_codes=(1,), what: object = None) -> str:
    """The contract for a refusal: the exit status, one ``error: `` line, no traceback.
    ``what``: named in the failure messages (the arguments, say)."""
    about = "" if what is None else f"{what!r}: "
    assert result.returncode in exit_codes, (
        f"{about}exit {result.returncode}, wanted {exit_codes}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    assert "Traceback" not in result.stdout + result.stderr, f"{about}a traceback reached the user:\n{result.stderr}"
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"{about}wanted one stderr line, got {len(lines)}:\n{result.stderr}"
    assert lines[0].startswith("error: ") and len(lines[0]) > len("error: "), f"{about}{result.stderr!r}"
    return lines[0]


def json_of(result: subprocess.CompletedProcess):
    """stdout must be exactly one JSON document."""
    return json.loads(result.stdout)


def json_error(result: subprocess.CompletedProcess) -> dict:
    """A refusal with ``--json``: one ``error:`` line, and stdout the same error as JSON."""
    line = one_error_line(result)
    doc = json_of(result)
    assert set(doc) == {"error"}, doc
    assert set(doc["error"]) >= {"code", "message"}, doc
    assert isinstance(doc["error"]["code"], str) and doc["error"]["code"]
    assert isinstance(doc["error"]["message"], str) and doc["error"]["message"]
    assert line == f"error: {doc['error']['message']}"
    return doc["error"]


def last_seq(db: Path | str) -> int:
    """The seq of the latest action of the only campaign in ``db``."""
    ledger = Ledger.open(db)
    try:
        return ledger.last_seq(ledger.resolve(None))
    finally:
        ledger.close()


def stored_events(db: Path | str) -> int:
    """How many events ``db`` holds (every campaign and log): a refusal must not change it."""
    ledger = Ledger.open(db)
    try:
        return ledger.stored_event_count()
    finally:
        ledger.close()


@contextmanager
def raw_events(db: Path | str) -> Iterator[Any]:
    """Raw SQL on a database's stored events, as a forger (or a test looking under the
    ledger) would run it, in one transaction: yields ``run(sql, params)``, which returns the
    cursor (``fetchall``, ``fetchone``, ``rowcount``). The SQL is written for the SQLite file
    (table ``stored_events``, ``rowid``, ``?`` parameters); on PostgreSQL it is run on the
    schema's ``ledger_events`` (``notification_id`` for ``rowid``)."""
    if is_postgres(db):
        schema = schema_of(str(db))
        conn = _Postgres.connection()

        def run_pg(sql: str, params: Any = ()) -> Any:
            sql = sql.replace("stored_events", f'"{schema}".ledger_events').replace("rowid", "notification_id")
            return conn.execute(sql.replace("?", "%s"), params)

        with conn.transaction():
            yield run_pg
        return
    import sqlite3

    con = sqlite3.connect(str(db))
    try:
        with con:
            yield con.execute
    finally:
        con.close()


def read_tables(db: Path | str, sql: str, params: Any = (), *, as_dicts: bool = False) -> list:
    """A read of a database's read-model tables from outside the ledger (``sqlite3`` on the
    file, or the test server's connection in the schema), SQL in SQLite's spelling: the rows
    as tuples, or as dicts (``as_dicts``)."""
    if is_postgres(db):
        from projections.tables import postgres_sql

        conn = _Postgres.connection()
        with conn.transaction(force_rollback=True):
            conn.execute(f'SET LOCAL search_path TO "{schema_of(str(db))}"')
            cursor = conn.execute(postgres_sql(sql), params)
            rows = cursor.fetchall()
            names = [column.name for column in cursor.description]
    else:
        import sqlite3

        con = sqlite3.connect(str(db))
        try:
            cursor = con.execute(sql, params)
            rows = cursor.fetchall()
            names = [column[0] for column in cursor.description]
        finally:
            con.close()
    return [dict(zip(names, row)) for row in rows] if as_dicts else rows


def stored_rows(db: Path | str, cid) -> dict[int, tuple]:
    """The stored rows of a campaign, straight from the database: seq -> (row id, topic, state)."""
    with raw_events(db) as run:
        rows = run("SELECT originator_version, rowid, topic, state FROM stored_events WHERE originator_id IN (?, ?)",
                   [cid.hex, str(cid)]).fetchall()
    return {seq: (rowid, topic, bytes(state)) for seq, rowid, topic, state in rows}


def copy_db(src: Path | str, dst_dir: Path) -> Path | str:
    """A copy of a campaign database: of an SQLite file (with its ``-wal``/``-shm``) in
    ``dst_dir``, same name; of a PostgreSQL schema, a new schema (dropped after the test,
    ``_drop_copies``) holding the same rows, the stored events with their notification ids."""
    if is_postgres(src):
        return _copy_schema(str(src))
    dst = Path(dst_dir) / Path(src).name
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copy(f"{src}{suffix}", f"{dst}{suffix}")
    return dst


_COPIES: list[str] = []


def _copy_schema(src: str) -> str:
    """eventsourcing's tables (and its functions and types) made by opening the new schema,
    its rows copied over; every other table (the read models') copied as it is."""
    dst = new_schema()
    _COPIES.append(dst)
    Ledger.open(dst, create=True).close()
    old, new = schema_of(src), schema_of(dst)
    for table in ("ledger_events", "ledger_snapshots"):
        _Postgres.execute(f'INSERT INTO "{new}".{table} SELECT * FROM "{old}".{table}')
    _Postgres.execute(f"SELECT setval('\"{new}\".ledger_events_notification_id_seq', "
                      f'COALESCE((SELECT MAX(notification_id) FROM "{new}".ledger_events), 0) + 1, false)')
    rows = _Postgres.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s "
                             "AND tablename NOT IN ('ledger_events', 'ledger_snapshots')", [old])
    for (table,) in rows:
        _Postgres.execute(f'CREATE TABLE "{new}"."{table}" (LIKE "{old}"."{table}" INCLUDING ALL)')
        _Postgres.execute(f'INSERT INTO "{new}"."{table}" SELECT * FROM "{old}"."{table}"')
    return dst


@pytest.fixture(autouse=True)
def _drop_copies() -> Iterator[None]:
    """Drops the PostgreSQL copies a test made (``copy_db``)."""
    yield
    while _COPIES:
        drop_schema(_COPIES.pop())
