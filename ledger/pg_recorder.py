"""eventsourcing's PostgreSQL recorder, with a patience that ends when the server does.

eventsourcing tries each read and write of the log up to ten times when the connection
fails, and each try first waits for the pool to give it a connection (``POSTGRES_CONNECT_
TIMEOUT``, 5 s, ``ledger.postgres``). With the server down, one command then took 42–52 s
to say so, and the table server, whose requests run one after another, answered no seat
meanwhile. Here a try that could not get a connection at all (the pool waited its whole
timeout: nobody answers) is not tried again; a connection that broke under a statement (a
server restarted, a connection it ended) is tried again twice, on a fresh one. The SQL and
everything else are eventsourcing's own (``ledger.postgres`` names ``LedgerPostgresFactory``
as the ``PERSISTENCE_MODULE``: its recorders of the log and of the snapshots are these).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import wraps
from typing import Any

from eventsourcing.persistence import InterfaceError, OperationalError, ProgrammingError
from eventsourcing.postgres import PostgresAggregateRecorder, PostgresApplicationRecorder, PostgresFactory
from psycopg.errors import PipelineAborted
from psycopg_pool import PoolTimeout

ATTEMPTS = 3
"""Tries of one read or write whose connection broke (eventsourcing's own: 10)."""

PAUSE = 0.2
"""Seconds between two tries (eventsourcing's own)."""


def _patient(recorder: type, name: str) -> Callable[..., Any]:
    """``RECORDER.NAME`` without eventsourcing's retries (the function its ``retry``
    decorator wraps), tried again as this module says."""
    plain = getattr(recorder, name).__wrapped__

    @wraps(plain)
    def tried(self: Any, *args: Any, **kwargs: Any) -> Any:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                return plain(self, *args, **kwargs)
            except (InterfaceError, OperationalError) as exc:  # eventsourcing's, around psycopg's
                if isinstance(exc.__cause__, PipelineAborted):  # a statement before it failed: was it refused?
                    _may_write(self)
                if attempt == ATTEMPTS or isinstance(exc.__cause__, PoolTimeout):
                    raise  # (no connection in the pool's whole timeout: the server is not there)
                time.sleep(PAUSE)
        raise AssertionError("unreachable")

    return tried


def _may_write(recorder: Any) -> None:
    """Raises eventsourcing's ``ProgrammingError`` around psycopg's ``InsufficientPrivilege``
    if the URL's role may not insert into the recorder's table. A write in a pipeline
    whose first statement was refused for want of a privilege (a read-only role) may
    surface only as "pipeline aborted", which reads as a broken connection: asked here,
    the database says which it was (``ledger.postgres.refused_privilege`` words it)."""
    from psycopg.errors import InsufficientPrivilege

    table = f"{recorder.datastore.schema}.{recorder.events_table_name}"
    try:
        with recorder.datastore.get_connection() as conn:
            # eventsourcing locks the table (IN EXCLUSIVE MODE: UPDATE, DELETE or TRUNCATE), then
            # inserts (INSERT, and USAGE on the sequence of its notification ids)
            row = conn.execute(
                "SELECT has_table_privilege(%(t)s, 'INSERT') AND has_table_privilege(%(t)s, 'UPDATE, DELETE, TRUNCATE') "
                "AND coalesce(has_sequence_privilege(pg_get_serial_sequence(%(t)s, 'notification_id'), 'USAGE'), true) "
                "AS allowed", {"t": table}).fetchone()
    except Exception:  # noqa: BLE001 — the question is a courtesy: the original failure stands
        return
    if row is not None and not row["allowed"]:
        raise ProgrammingError(f"permission denied for table {recorder.events_table_name}") from \
            InsufficientPrivilege(f"permission denied for table {recorder.events_table_name}")


class LedgerPostgresRecorder(PostgresApplicationRecorder):
    """The recorder of a ledger's log on PostgreSQL."""

    insert_events = _patient(PostgresApplicationRecorder, "insert_events")
    select_events = _patient(PostgresApplicationRecorder, "select_events")
    select_notifications = _patient(PostgresApplicationRecorder, "select_notifications")
    max_notification_id = _patient(PostgresApplicationRecorder, "max_notification_id")


class LedgerSnapshotRecorder(PostgresAggregateRecorder):
    """The recorder of a ledger's snapshots on PostgreSQL."""

    insert_events = _patient(PostgresAggregateRecorder, "insert_events")
    select_events = _patient(PostgresAggregateRecorder, "select_events")


class LedgerPostgresFactory(PostgresFactory):
    """eventsourcing's PostgreSQL persistence with the recorders above."""

    aggregate_recorder_class = LedgerSnapshotRecorder
    application_recorder_class = LedgerPostgresRecorder
