"""The read models on PostgreSQL (issue #13): made once however many processes open
a new schema at the same moment (``ledger serve --workers`` starting together); a rebuild's
batches written with COPY (issue #14)."""

from __future__ import annotations

import threading

import pytest

from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from projections.readmodel import INSERTS, ReadModel
from projections.tables import _PostgresWriter
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


def test_a_rebuild_copies_its_batches_and_writes_the_rows_catching_up_action_by_action_wrote():
    """A rebuild's batches go in with COPY (``_PostgresWriter.COPY_FROM`` rows or more); one
    action caught up at a time, row by row: both give the same rows, the log's."""
    from ledger.interface.simulate import simulate, start_simulation
    from projections.consistency import compare_with_log
    from tests.test_readmodel import dump

    with fresh_schema() as url:
        ledger = Ledger.open(url, create=True)
        model = ReadModel(ledger, url)
        try:
            cid = start_simulation(ledger, heroes=3, seed=3)
            model.catch_up()
            for seed in range(120):
                simulate(ledger, cid, 1, seed=seed)
                model.catch_up()
            caught_up = dump(url)
            assert len(caught_up["history"]) > _PostgresWriter.COPY_FROM
            assert len(caught_up["card_actions"]) > _PostgresWriter.COPY_FROM
            assert model.rebuild() == ledger.recorder.max_notification_id()
            assert dump(url) == caught_up
            assert compare_with_log(model) is None
        finally:
            model.close()
            ledger.close()


def test_copied_rows_of_an_insert_or_ignore_leave_out_the_rows_whose_key_is_taken_and_a_plain_insert_refuses_them():
    from eventsourcing.persistence import IntegrityError

    with fresh_schema() as url:
        ledger = Ledger.open(url, create=True)
        ledger.start(load_catalog(sample_catalog_path()), slug="north")
        model = ReadModel(ledger, url)
        try:
            model.catch_up()
            rows = [("north", f"card-{n}", n, ",ana,") for n in range(100)]
            with model.tables.writing() as db:
                db.executemany(INSERTS["card_actions"], rows[:30])
                db.executemany(INSERTS["card_actions"], rows)  # 30 taken, 70 new: copied, 30 left out
            assert model.read("SELECT count(*) FROM card_actions WHERE campaign = 'north'")[0][0] == 100
            history = [("north", 1000 + n, "draw", "ana", "2026-12-04T00:00:00", "x", "[]", None, None, None)
                       for n in range(100)]
            with pytest.raises(IntegrityError, match="history_pkey"):
                with model.tables.writing() as db:
                    db.executemany(INSERTS["history"], history[:1])
                    db.executemany(INSERTS["history"], history)  # seq 1000 taken: refused, as INSERT is
            assert model.read("SELECT count(*) FROM history WHERE seq >= 1000")[0][0] == 0  # all rolled back
        finally:
            model.close()
            ledger.close()
