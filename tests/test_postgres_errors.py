"""A PostgreSQL database that cannot be used is refused in one line saying why and what
to do, exit 1, never a traceback — and the URL's password is never printed."""

from __future__ import annotations

import pytest

from tests.conftest import one_error_line, run_ledger
from tests.postgres_support import fresh_schema


@pytest.mark.parametrize("url, says", [
    ("postgresql://postgres:s3cret@127.0.0.1:1/test", "check that the server runs"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/", "write it as postgresql://USER@HOST:PORT/DBNAME"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?schema=Bad-Name", "lower-case letters"),
    ("postgresql://postgres:s3cret@127.0.0.1:5432/test?sslmode=require", "write it as"),
])
def test_a_database_that_cannot_be_used_is_one_error_line(url, says):
    done = run_ledger("zones", db=url)
    line = one_error_line(done)
    assert says in line and "s3cret" not in line and "****" in line


def test_a_schema_without_a_campaign_says_how_to_start_one():
    with fresh_schema() as url:
        done = run_ledger("zones", db=url)
        assert "no campaign database at" in one_error_line(done) and "ledger init" in done.stderr
