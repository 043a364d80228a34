"""Where the read-model tables live: beside the event store, in the same database, so
that rows and their position commit in one transaction with nothing in between.

Two stores, one interface (``Tables``): SQLite (the campaign file; sqlite-utils makes
the tables, a plain sqlite3 connection reads them, the event store's own connection
writes them) and PostgreSQL (eventsourcing's psycopg pool, for reading and writing).
The read models write their SQL once, in SQLite's spelling (``[name]``, ``?`` and
``:name`` parameters, ``INSERT OR IGNORE``, ``CROSS JOIN ... ON``); ``PostgresTables`` says it in
PostgreSQL's. The SQL is the ledger's own, never a player's, so that short list is all
the translation there is.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import Any, Protocol

Columns = dict[str, type]


class Writer(Protocol):
    """One write transaction: ``execute`` (returns a cursor: ``rowcount``, ``fetchone``)
    and ``executemany``."""

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any: ...

    def executemany(self, sql: str, rows: Sequence[Any]) -> Any: ...


class Tables(Protocol):
    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]: ...

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]: ...

    def scan(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[list[str], tuple[Any, ...]]]: ...

    def reading(self) -> Any: ...

    def writing(self) -> Any: ...

    def table_names(self, writer: Writer | None = None) -> set[str]: ...

    def index_names(self, writer: Writer | None = None) -> set[str]: ...

    def column_names(self, table: str, writer: Writer | None = None) -> set[str]: ...

    def columns(self, tables: tuple[str, ...], writer: Writer | None = None) -> dict[str, set[str]]: ...

    def create(self, writer: Writer, table: str, columns: Columns, pk: str | tuple[str, ...]) -> None: ...

    def outdated(self, table: str, writer: Writer | None = None) -> bool: ...

    def close(self) -> None: ...


SQLITE_TYPES = {str: "TEXT", int: "INTEGER", float: "FLOAT"}  # as sqlite-utils spells them
KEYED = frozenset({"card_actions"})  # kept in their key's B-tree (``SQLiteTables.create``): a key and a short text


class SQLiteTables:
    """The tables in the campaign's SQLite file."""

    def __init__(self, datastore: Any, path: str):
        self.datastore = datastore
        self.path = path
        # for reading only: writes go through ``writing``. Used by one thread at a time (a
        # command; the server's clerk, whose work is done on its event loop), not always the
        # one that opened it (an ASGI test client may run each request in a thread of its own).
        self.conn = sqlite3.connect(path, check_same_thread=False)
        self.conn.execute("PRAGMA busy_timeout = 30000")

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params).fetchall()

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        cursor = self.conn.execute(sql, params)
        names = [column[0] for column in cursor.description]
        return [dict(zip(names, row)) for row in cursor]

    def scan(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[list[str], tuple[Any, ...]]]:
        """The rows a read gives, one at a time (a caller that stops early reads no more),
        each with the column names."""
        cursor = self.conn.execute(sql, params)
        names = [column[0] for column in cursor.description]
        for row in cursor:
            yield names, row

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction: whatever is read inside it is one moment's."""
        conn = self.conn
        if conn.in_transaction:
            yield
            return
        conn.execute("BEGIN")
        try:
            yield
        finally:
            if conn.in_transaction:
                conn.execute("ROLLBACK")  # it wrote nothing

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the event store's own connection, begun as a writer:
        a process has a single writing connection and its writes are serialised (so the
        WAL-reset bug of SQLite < 3.51.3, which needs several writing connections, cannot
        happen). Never reach the recorder inside it: its pool has that one connection."""
        with self.datastore.transaction(commit=True) as cursor:
            yield cursor.sqlite_cursor.connection

    def table_names(self, writer: Writer | None = None) -> set[str]:
        return self._names("table", writer)

    def index_names(self, writer: Writer | None = None) -> set[str]:
        return self._names("index", writer)

    def _names(self, kind: str, writer: Writer | None) -> set[str]:
        db = writer or self.conn
        return {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = ?", [kind])}

    def column_names(self, table: str, writer: Writer | None = None) -> set[str]:
        return {row[1] for row in (writer or self.conn).execute(f"PRAGMA table_info([{table}])")}

    def columns(self, tables: tuple[str, ...], writer: Writer | None = None) -> dict[str, set[str]]:
        """The columns of each of these tables (a missing table: none)."""
        return {table: self.column_names(table, writer) for table in tables}

    def create(self, writer: Writer, table: str, columns: Columns, pk: str | tuple[str, ...]) -> None:
        """The table, if it is not there: made by sqlite-utils, except a table that is all
        key, or all but a short text (``KEYED``: ``card_actions``), which is made ``WITHOUT
        ROWID`` (sqlite-utils cannot): its rows are then stored once, in the key's B-tree,
        not in the table and again in its key's index (half the bytes, the same lookups)."""
        keys = (pk,) if isinstance(pk, str) else tuple(pk)
        if set(keys) == set(columns) or table in KEYED:
            spec = ", ".join(f"[{name}] {SQLITE_TYPES[kind]}" for name, kind in columns.items())
            writer.execute(f"CREATE TABLE IF NOT EXISTS [{table}] ({spec}, PRIMARY KEY "
                           f"({', '.join(f'[{key}]' for key in keys)})) WITHOUT ROWID")
            return
        import sqlite_utils  # only where a table is made

        sqlite_utils.Database(writer, execute_plugins=False, recursive_triggers=False)[table].create(
            columns, pk=pk, if_not_exists=True)

    def outdated(self, table: str, writer: Writer | None = None) -> bool:
        """Is ``table`` kept as an older ledger made it: a table that is all key (or
        ``KEYED``) stored with a rowid (``create`` says why not)? A rebuild makes it again."""
        db = writer or self.conn
        found = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [table]).fetchone()
        all_key = all(column[5] for column in db.execute(f"PRAGMA table_info([{table}])"))  # pk: its place in the key
        return found is not None and (all_key or table in KEYED) and "WITHOUT ROWID" not in found[0].upper()

    def close(self) -> None:
        self.conn.close()


class PostgresTables:
    """The tables in the campaign's PostgreSQL schema, beside eventsourcing's."""

    TYPES = {str: "TEXT", int: "BIGINT", float: "DOUBLE PRECISION"}

    def __init__(self, datastore: Any):
        self.datastore = datastore
        self.schema = datastore.schema
        self._held: Any = None  # the cursor of the read transaction in course

    def read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        return self._run(sql, params)[1]

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        names, found = self._run(sql, params)
        return [dict(zip(names, row)) for row in found]

    def scan(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple[list[str], tuple[Any, ...]]]:
        """The rows a read gives, a page at a time from a server-side cursor (a caller that
        stops early has the server read no more), each with the column names."""
        from psycopg.rows import tuple_row

        with self.datastore.get_connection() as conn, conn.transaction(force_rollback=True):
            conn.execute(f'SET LOCAL search_path TO "{self.schema}"')
            with conn.cursor(name="ledger_scan", row_factory=tuple_row) as cursor:
                cursor.itersize = 100
                cursor.execute(postgres_sql(sql), params)
                names = [column.name for column in cursor.description or ()]
                for row in cursor:
                    yield names, row

    def _run(self, sql: str, params: Sequence[Any]) -> tuple[list[str], list[tuple[Any, ...]]]:
        if self._held is not None:
            return _fetched(self._held.execute(postgres_sql(sql), params))
        with self.datastore.transaction(commit=False) as cursor:
            self._in_schema(cursor)
            return _fetched(cursor.execute(postgres_sql(sql), params))

    def _in_schema(self, cursor: Any) -> None:
        """Rows come as tuples, and names the read models' SQL leaves bare are the
        campaign schema's (eventsourcing names its own tables in full)."""
        from psycopg.rows import tuple_row

        cursor.row_factory = tuple_row
        cursor.execute(f'SET LOCAL search_path TO "{self.schema}"')

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction (REPEATABLE READ: one snapshot for all its reads)."""
        if self._held is not None:
            yield
            return
        with self.datastore.get_connection() as conn, conn.transaction(force_rollback=True):
            cursor = conn.cursor()
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            self._in_schema(cursor)
            self._held = cursor
            try:
                yield
            finally:
                self._held = None

    @contextmanager
    def writing(self) -> Iterator[_PostgresWriter]:
        with self.datastore.transaction(commit=True) as cursor:
            self._in_schema(cursor)
            writer = _PostgresWriter(cursor)
            self._one_writer(writer)
            yield writer

    def _one_writer(self, writer: Writer) -> None:
        """Read-model writes of a schema take turns, as SQLite's writers do (``BEGIN
        IMMEDIATE``): a lock named after the schema, held until the transaction ends. Two
        processes catching up at once otherwise deadlock, one resetting rows the other is
        writing; and two making the tables at once collide in PostgreSQL's catalog."""
        writer.execute("SELECT pg_advisory_xact_lock(hashtext(?))", [f"ledger tables {self.schema}"])

    def table_names(self, writer: Writer | None = None) -> set[str]:
        return {name for (name,) in self._catalog(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = ?", [self.schema], writer)}

    def index_names(self, writer: Writer | None = None) -> set[str]:
        return {name for (name,) in self._catalog(
            "SELECT indexname FROM pg_indexes WHERE schemaname = ?", [self.schema], writer)}

    def column_names(self, table: str, writer: Writer | None = None) -> set[str]:
        return {name for (name,) in self._catalog(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = ? AND table_name = ?",
            [self.schema, table], writer)}

    def columns(self, tables: tuple[str, ...], writer: Writer | None = None) -> dict[str, set[str]]:
        """The columns of each of these tables (a missing table: none), in one catalog query."""
        found: dict[str, set[str]] = {table: set() for table in tables}
        for table, column in self._catalog(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ?",
                [self.schema], writer):
            if table in found:
                found[table].add(column)
        return found

    def _catalog(self, sql: str, params: list[Any], writer: Writer | None) -> list[tuple[Any, ...]]:
        if writer is None:
            return self.read(sql, params)
        return writer.execute(sql, params).fetchall()

    def create(self, writer: Writer, table: str, columns: Columns, pk: str | tuple[str, ...]) -> None:
        """``CREATE TABLE IF NOT EXISTS``, inside ``writing`` (one process at a time: the
        second finds the table made)."""
        keys = (pk,) if isinstance(pk, str) else pk
        spec = ", ".join(f'"{name}" {self.TYPES[kind]}' for name, kind in columns.items())
        writer.execute(f'CREATE TABLE IF NOT EXISTS "{table}" ({spec}, PRIMARY KEY ({", ".join(keys)}))')

    def outdated(self, table: str, writer: Writer | None = None) -> bool:
        """Never: PostgreSQL has kept its tables one way only (``SQLiteTables.outdated``)."""
        return False

    def close(self) -> None:
        pass  # the pool is the event store's


class _PostgresWriter:
    COPY_FROM = 64
    """Rows from which an insert of positional rows is sent with ``COPY`` (a rebuild's
    batches: ~4x quicker than psycopg's ``executemany``, which sends each row as a statement
    of its own) rather than row by row (the few rows of one action caught up)."""

    def __init__(self, cursor: Any):
        self.cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        self.cursor.execute(postgres_sql(sql), params)
        return self.cursor

    def executemany(self, sql: str, rows: Sequence[Any]) -> Any:
        insert = _plain_insert(sql) if len(rows) >= self.COPY_FROM else None
        if insert is None:
            self.cursor.executemany(postgres_sql(sql), rows)
        else:
            self._copy(*insert, rows)
        return self.cursor

    def _copy(self, table: str, columns: str, or_ignore: bool, rows: Sequence[Any]) -> None:
        """The rows inserted with ``COPY``, as ``INSERT`` would (a row whose key is taken
        fails the transaction); ``or_ignore`` (``INSERT OR IGNORE``): copied into a scratch
        table of this transaction, then inserted from it, rows whose key is taken left out."""
        into = f"ledger_copy_{table}" if or_ignore else table
        if or_ignore:
            self.cursor.execute(f'CREATE TEMP TABLE IF NOT EXISTS "{into}" (LIKE "{table}") ON COMMIT DROP')
        with self.cursor.copy(f'COPY "{into}" ({columns}) FROM STDIN') as copy:
            for row in rows:
                copy.write_row(row)
        if or_ignore:
            self.cursor.execute(f'INSERT INTO "{table}" ({columns}) SELECT {columns} FROM "{into}" '
                                "ON CONFLICT DO NOTHING")
            self.cursor.execute(f'TRUNCATE "{into}"')


_INSERT = re.compile(r"INSERT (OR IGNORE )?INTO \[?(\w+)\]? \(([\w, ]+)\) VALUES \(\?(?:, ?\?)*\)")


@lru_cache(maxsize=64)
def _plain_insert(sql: str) -> tuple[str, str, bool] | None:
    """The table, columns and ``OR IGNORE`` of an ``INSERT [OR IGNORE] INTO t (a, b) VALUES
    (?, ?)`` of the read models' (nothing else: no ``ON CONFLICT ... DO UPDATE``, no named
    parameters), which ``COPY`` may do; None for any other statement."""
    found = _INSERT.fullmatch(sql)
    if found is None or found.group(3).count(",") != sql.count("?") - 1:
        return None
    return found.group(2), found.group(3), bool(found.group(1))


def _fetched(cursor: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
    if cursor.description is None:
        return [], []
    return [column.name for column in cursor.description], cursor.fetchall()


def open_tables(ledger: Any, path: Any) -> Tables:
    """The tables of the store ``ledger`` keeps its events in (``path``: an SQLite file's)."""
    datastore = ledger.factory.datastore
    if type(datastore).__module__.startswith("eventsourcing.postgres"):
        return PostgresTables(datastore)
    return SQLiteTables(datastore, str(path))


_NAMED = re.compile(r"(?<![:\w]):(\w+)")


@lru_cache(maxsize=512)
def postgres_sql(sql: str) -> str:
    """The ledger's SQLite spelling of a statement in PostgreSQL's: ``[name]`` quoted
    names, ``?`` and ``:name`` parameters, ``INSERT OR IGNORE``, and ``CROSS JOIN ... ON``
    (SQLite's inner join that keeps the left table the outer loop; PostgreSQL allows no
    ``ON`` after ``CROSS JOIN``, and plans the join order itself)."""
    if sql.startswith("INSERT OR IGNORE INTO"):
        sql = "INSERT INTO" + sql[len("INSERT OR IGNORE INTO"):] + " ON CONFLICT DO NOTHING"
    sql = sql.replace(" CROSS JOIN ", " JOIN ")
    sql = re.sub(r"\[(\w+)\]", r'"\1"', sql)
    sql = sql.replace("%", "%%").replace("?", "%s")
    return _NAMED.sub(r"%(\1)s", sql)
