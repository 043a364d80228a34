"""The read models on PostgreSQL (issue #13): made once however many processes open
a new schema at the same moment (``ledger serve --workers`` starting together)."""

from __future__ import annotations

import threading

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
