"""A PostgreSQL schema of its own for a test (dropped after it): the server at
``$LEDGER_TEST_POSTGRES`` (default: the machine's, postgresql://postgres@127.0.0.1:5432/test).
If it cannot be reached the test fails, saying how to start it: never skipped."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

SERVER = os.environ.get("LEDGER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def _connect():
    import psycopg

    try:
        return psycopg.connect(SERVER, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is not reachable at {SERVER} ({str(exc).strip().splitlines()[0]}): start it "
                    "(pg_ctlcluster 15 main start, or service postgresql start) or name another server with "
                    "LEDGER_TEST_POSTGRES=postgresql://USER@HOST:PORT/DBNAME", pytrace=False)


@contextmanager
def fresh_schema() -> Iterator[str]:
    """The URL of a new, empty schema on the test server; dropped afterwards."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    with _connect() as conn:
        conn.execute(f'CREATE SCHEMA "{name}"')
    try:
        yield f"{SERVER}?schema={name}"
    finally:
        with _connect() as conn:
            conn.execute(f'DROP SCHEMA "{name}" CASCADE')
