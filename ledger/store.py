"""The SQLite event store as the ledger configures it: eventsourcing's own SQLite
infrastructure, with two settings of ours on every connection.

- ``synchronous``: ``FULL`` by default (WAL mode; every committed action is on disk
  before the command returns), or ``NORMAL`` (``LEDGER_SYNCHRONOUS=NORMAL``): much
  faster, still never corrupt, but the last actions before a power loss may be lost.
- write transactions begin as writers (``BEGIN IMMEDIATE``), so two processes never
  deadlock upgrading a read lock to a write lock; they wait their turn instead.
- one connection per process (a pool of one), so a process has a single writing
  connection and its writes are serialised: the WAL-reset corruption bug of SQLite
  before 3.51.3 needs several writing connections and cannot happen.

Selected with ``PERSISTENCE_MODULE=ledger.store:LedgerSQLiteFactory``; everything
else is eventsourcing's, so the recorder API is the same as on PostgreSQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from eventsourcing.persistence import Environment
from eventsourcing.sqlite import (
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteCursor,
    SQLiteFactory,
    SQLiteTransaction,
)

SYNCHRONOUS_MODES = ("FULL", "NORMAL")


class WriterFirstTransaction(SQLiteTransaction):
    """eventsourcing's SQLite transaction, except that a writing one begins IMMEDIATE."""

    def __enter__(self) -> SQLiteCursor:
        cursor = self.connection.cursor()
        cursor.execute("BEGIN IMMEDIATE" if self.commit else "BEGIN")
        return cursor


class LedgerConnection(SQLiteConnection):
    @contextmanager
    def transaction(self, *, commit: bool) -> Iterator[SQLiteCursor]:
        with WriterFirstTransaction(self, commit=commit) as curs, curs:
            yield curs


class LedgerConnectionPool(SQLiteConnectionPool):
    def __init__(self, *, synchronous: str = "FULL", **kwargs: Any):
        self.synchronous = synchronous
        super().__init__(**kwargs)

    def _create_connection(self) -> SQLiteConnection:
        plain = super()._create_connection()
        raw: sqlite3.Connection = plain._sqlite_conn
        raw.execute(f"PRAGMA synchronous={self.synchronous}")
        return LedgerConnection(sqlite_conn=raw, max_age=self.max_age)


class LedgerSQLiteFactory(SQLiteFactory):
    SYNCHRONOUS = "LEDGER_SYNCHRONOUS"

    def __init__(self, env: Environment | Any):
        super().__init__(env)
        mode = (self.env.get(self.SYNCHRONOUS) or "FULL").upper()
        if mode not in SYNCHRONOUS_MODES:
            raise OSError(f"LEDGER_SYNCHRONOUS={mode}: use FULL or NORMAL")
        old = self.datastore.pool
        # One connection per process, for reading and writing alike: writes are
        # serialised on it, and the read models write through it too.
        self.datastore.pool = LedgerConnectionPool(
            synchronous=mode, db_name=old.db_name, lock_timeout=old.lock_timeout,
            pool_size=1, max_overflow=0, pool_timeout=60.0,
        )
        old.close()
