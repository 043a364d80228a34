"""The read models on PostgreSQL (issue #13): made once however many processes open
a new schema at the same moment (``ledger serve --workers`` starting together)."""

from __future__ import annotations

import threading

import pytest

from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from projections.readmodel import ReadModel
from tests.postgres_support import fresh_schema


def test_workers_opening_a_new_schema_together_make_its_tables_once():
    with fresh_schema() as url:
        ledger = Ledger.open(url, create=True)
        ledger.start(load_catalog(sample_catalog_path()), slug="north")
        ledger.close()
        openers = 6
        gate, failures = threading.Barrier(openers), []

        def open_the_read_models() -> None:
            mine = Ledger.open(url)
            try:
                gate.wait()
                model = ReadModel(mine, url)
                model.safe_catch_up()
                model.close()
            except Exception as exc:  # noqa: BLE001 — every failure is the finding
                failures.append(exc)
            finally:
                mine.close()

        threads = [threading.Thread(target=open_the_read_models) for _ in range(openers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        ledger = Ledger.open(url)
        model = ReadModel(ledger, url)
        try:
            assert model.read("SELECT count(*) FROM history")[0][0] == 1
        finally:
            model.close()
            ledger.close()


@pytest.mark.parametrize("cut", ["its last actions", "the whole log"])
def test_a_demo_schema_whose_log_lost_actions_is_not_played_over_and_stops_every_command(cut):
    """On PostgreSQL ``ledger demo`` plays into the schema as it stands (no file to
    remove), so it first asks the read models whether the log lost actions they recorded:
    a demo whose tail was deleted, or its whole log with its entry in the list of
    campaigns (which the demo would otherwise start again over), is refused in one line,
    appending nothing, as every other command on it is (README "What is detected")."""
    import psycopg

    from tests.conftest import one_error_line, run_ledger
    from tests.postgres_support import SERVER, schema_of

    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        ledger = Ledger.open(url)
        try:
            cid = ledger.resolve(None)
            last = ledger.last_seq(cid)
        finally:
            ledger.close()
        left = last - 3 if cut == "its last actions" else 0
        with psycopg.connect(SERVER, autocommit=True) as conn:
            table = f'"{schema_of(url)}".ledger_events'
            if cut == "its last actions":
                conn.execute(f"DELETE FROM {table} WHERE originator_id = %s AND originator_version > %s", [cid, left])
            else:
                conn.execute(f"DELETE FROM {table}")
            count = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            commands = (["demo"], ["history"]) + ((["--actor", "ana", "draw", "deck:item"],) if left else ())
            for args in commands:
                line = one_error_line(run_ledger(*args, db=url), what=args)
                if left:
                    assert f"ends at seq {left}" in line and f"up to seq {last}" in line, (args, line)
                else:
                    assert f"recorded campaign demo up to seq {last}" in line and "no longer names it" in line, line
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == count, "a refused command appended"


def test_an_older_schemas_rows_without_witnesses_are_filled_and_walked_by_the_index_of_witnessed_rows():
    """The migration of tests/test_card_history_channel.py on PostgreSQL: card_actions rows an
    older ledger left NULL are filled from the history at the next command, as a rebuild
    writes them, and the partial index of the rows some seat may have witnessed is made."""
    import psycopg

    from projections.readmodel import WITNESSED_INDEX
    from tests.conftest import run_ledger
    from tests.postgres_support import schema_of

    with fresh_schema() as url:
        assert run_ledger("demo", db=url).returncode == 0
        schema = schema_of(url)
        with psycopg.connect(url.split("?")[0], autocommit=True) as conn:
            rows = f'"{schema}".card_actions'
            rebuilt = conn.execute(f"SELECT campaign, card, seq, witnesses FROM {rows} ORDER BY 1, 2, 3").fetchall()
            assert [row for row in rebuilt if row[3] == ","] and [row for row in rebuilt if row[3] != ","]
            conn.execute(f'DROP INDEX "{schema}".{WITNESSED_INDEX}')
            conn.execute(f"UPDATE {rows} SET witnesses = NULL")
            done = run_ledger("--as", "ana", "card", "item-sword", db=url)
            assert done.returncode == 0, done.stderr
            assert conn.execute(f"SELECT campaign, card, seq, witnesses FROM {rows} ORDER BY 1, 2, 3").fetchall() \
                == rebuilt
            made = conn.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND indexname = %s",
                                [schema, WITNESSED_INDEX]).fetchone()
            assert made is not None and "WHERE" in made[0], made
