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
- a lock held by another program is waited for ``LEDGER_LOCK_TIMEOUT`` seconds (default
  30; any number above 0, fractions too: the tests use a fraction of a second).
- a storage failure (full disk, read-only file, folder or disk, lock held too long, no
  permission, I/O error) is raised as one ``StoreError`` naming the file, the cause and
  what to do (``ledger.storage_errors``), saying whether the command recorded anything
  before it failed (``LedgerConnectionPool.saves``).
- a campaign file on a read-only disk can still be read (``frozen_uri``), which SQLite
  cannot do for a WAL database without its ``-wal`` and ``-shm`` files otherwise.

Selected with ``PERSISTENCE_MODULE=ledger.store:LedgerSQLiteFactory``; everything
else is eventsourcing's, so the recorder API is the same as on PostgreSQL.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from eventsourcing.persistence import Environment, PersistenceError, StoredEvent
from eventsourcing.sqlite import (
    SQLiteApplicationRecorder,
    SQLiteConnection,
    SQLiteConnectionPool,
    SQLiteCursor,
    SQLiteFactory,
    SQLiteTransaction,
)

from .errors import StoreError
from .i18n import _
from .storage_errors import READ_ONLY_DISK, database_failure, path_problem

SYNCHRONOUS_MODES = ("FULL", "NORMAL")
LOCK_TIMEOUT = "LEDGER_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT = 30.0


def lock_timeout(env: Mapping[str, str] | None = None) -> float:
    """Seconds to wait for a lock another program holds on the file: ``LEDGER_LOCK_TIMEOUT``
    in ``env`` (default: the process's environment), or 30."""
    text = ((os.environ if env is None else env).get(LOCK_TIMEOUT) or "").strip()
    if not text:
        return DEFAULT_LOCK_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds <= 86400:
        raise StoreError(_("{setting}={value}: use a number of seconds above 0 (default 30)").format(
            setting=LOCK_TIMEOUT, value=text))
    return seconds


def frozen_uri(path: Path) -> str | None:
    """An SQLite URI that reads the campaign file ``path`` as it stands, when it is on a
    read-only disk and has no ``-wal`` file: SQLite reads a WAL database only through its
    ``-shm`` file, which it cannot create there, unless told the file cannot change
    (``immutable=1``; no locks, no ``-shm``). That holds on a read-only disk, where no
    one writes; a ``-wal`` file would hold actions not yet in the file, so then ``None``."""
    problem = path_problem(path)
    if problem is None or problem.kind != READ_ONLY_DISK or Path(f"{path}-wal").exists():
        return None
    return f"{path.absolute().as_uri()}?immutable=1"


def probe(db_name: str, seconds: float) -> tuple[str, set[str], int]:
    """The journal mode, table names and page size of the SQLite database ``db_name`` (a
    path, or a ``file:`` URI), through a connection of its own that writes nothing."""
    connection = sqlite3.connect(db_name, timeout=seconds, uri=db_name.startswith("file:"))
    try:
        mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        page = connection.execute("PRAGMA page_size").fetchone()[0]
    finally:
        connection.close()
    return mode, names, page


def cut_short(path: Path, page_size: int) -> bool:
    """Does the database file end partway through a page, with no WAL beside it that
    could still hold that page (a file whose end was lost: a copy cut short, a damaged
    disk)? SQLite would read the missing bytes as zeros, silently."""
    try:
        size = path.stat().st_size
        wal = Path(f"{path}-wal")
        frames = wal.exists() and wal.stat().st_size > 32  # more than a WAL header
    except OSError:
        return False
    return page_size > 0 and size % page_size != 0 and not frames


def file_of(db_name: str) -> str:
    """The file an SQLite database name (a path, or a ``file:`` URI) is about."""
    if not db_name.startswith("file:"):
        return db_name
    return unquote(urlsplit(db_name).path)


class WriterFirstTransaction(SQLiteTransaction):
    """eventsourcing's SQLite transaction, except that a writing one begins IMMEDIATE."""

    def __enter__(self) -> SQLiteCursor:
        cursor = self.connection.cursor()
        cursor.execute("BEGIN IMMEDIATE" if self.commit else "BEGIN")
        return cursor


class LedgerConnection(SQLiteConnection):
    def __init__(self, *, pool: LedgerConnectionPool, **kwargs: Any):
        self.pool = pool
        super().__init__(**kwargs)

    @contextmanager
    def transaction(self, *, commit: bool) -> Iterator[SQLiteCursor]:
        try:
            with WriterFirstTransaction(self, commit=commit) as curs, curs:
                yield curs
        except (PersistenceError, sqlite3.Error) as exc:
            found = self.pool.failure(exc, writing=commit)
            if found is None:
                raise
            raise found from None


class LedgerConnectionPool(SQLiteConnectionPool):
    def __init__(self, *, synchronous: str = "FULL", **kwargs: Any):
        self.synchronous = synchronous
        self.saves = 0  # write transactions that stored events through this pool (one ledger, one command)
        super().__init__(**kwargs)
        if "immutable=1" in self.db_name:  # read as it stands (frozen_uri): a WAL file, whatever SQLite says
            self.is_journal_mode_wal = True

    def _create_connection(self) -> SQLiteConnection:
        try:
            plain = super()._create_connection()
            raw: sqlite3.Connection = plain._sqlite_conn
            raw.execute(f"PRAGMA synchronous={self.synchronous}")
        except (PersistenceError, sqlite3.Error) as exc:
            found = self.failure(exc, writing=not os.path.exists(file_of(self.db_name)))  # a new file: init
            if found is None:
                raise
            raise found from None
        return LedgerConnection(pool=self, sqlite_conn=raw, max_age=self.max_age)

    def failure(self, exc: BaseException, *, writing: bool) -> StoreError | None:
        """``exc`` as the one-line ``StoreError`` of its storage problem (naming the file,
        the cause, what to do, and whether anything was recorded), or ``None`` when it is
        none (a lost race, a missing table, a bug: the callers handle those)."""
        return database_failure(exc, file_of(self.db_name), writing=writing, recorded=self.saves,
                                lock_timeout=float(self.lock_timeout) if self.lock_timeout else None)


class LedgerApplicationRecorder(SQLiteApplicationRecorder):
    """eventsourcing's recorder, counting the saves that committed (``LedgerConnectionPool.saves``),
    and reading each originator id into a UUID once (a log names few: its campaigns and
    logs), not once per row: a rebuild reads every row of the log."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._ids: dict[str, Any] = {}

    def convert_originator_id(self, originator_id: str) -> Any:
        found = self._ids.get(originator_id)
        if found is None:
            try:
                found = super().convert_originator_id(originator_id)
            except (ValueError, TypeError, AttributeError) as exc:  # a row no ledger wrote (every log's id is a
                # UUID's text; NULL or bytes are possible too): the file was edited
                from .errors import DamagedRecord, one_line

                raise DamagedRecord(_("a record of the database belongs to no log of the ledger's (its id {id} is no "
                                      "UUID): the database was changed or damaged; restore it from a copy").format(
                    id=one_line(repr(originator_id)[:40])), exc) from None
            if len(self._ids) < 100_000:
                self._ids[originator_id] = found
        return found

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        ids = super().insert_events(stored_events, **kwargs)
        pool = self.datastore.pool
        if isinstance(pool, LedgerConnectionPool):
            pool.saves += 1
        return ids


class LedgerSQLiteFactory(SQLiteFactory):
    SYNCHRONOUS = "LEDGER_SYNCHRONOUS"
    application_recorder_class = LedgerApplicationRecorder

    def __init__(self, env: Environment | Any):
        super().__init__(env)
        mode = (self.env.get(self.SYNCHRONOUS) or "FULL").upper()
        if mode not in SYNCHRONOUS_MODES:
            raise OSError(_("{setting}={value}: use FULL or NORMAL").format(setting=self.SYNCHRONOUS, value=mode))
        old = self.datastore.pool
        # One connection per process, for reading and writing alike: writes are
        # serialised on it, and the read models write through it too.
        self.datastore.pool = LedgerConnectionPool(
            synchronous=mode, db_name=old.db_name, lock_timeout=lock_timeout(self.env),  # type: ignore[arg-type]
            pool_size=1, max_overflow=0, pool_timeout=60.0,
        )
        old.close()
