"""A PostgreSQL schema of its own for a test (dropped after it): the server at
``$LEDGER_TEST_POSTGRES`` (default: the machine's, postgresql://postgres@127.0.0.1:5432/test).
If it cannot be reached the test fails, saying how to start it: never skipped."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

SERVER = os.environ.get("LEDGER_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def schema_of(url: str) -> str:
    """The schema a test URL names (every URL these helpers give names one)."""
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(url).query)["schema"][0]


@contextmanager
def fresh_schema() -> Iterator[str]:
    """The URL of a new, empty schema on the test server; dropped afterwards (the shared
    fixtures' ``new_schema`` and ``drop_schema``: one connection, one message when the
    server is down)."""
    from tests.conftest import drop_schema, new_schema

    url = new_schema()
    try:
        yield url
    finally:
        drop_schema(url)
