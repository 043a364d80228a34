"""A long-lived process (a table server worker) holds its campaign in memory: when
another process has recorded since, an action must be decided on the newer state, not
refused on the old one (a worker's copy said the card was still exhausted)."""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.errors import LedgerError

pytestmark = pytest.mark.both_stores


def test_an_action_refused_on_a_stale_copy_is_decided_again_on_the_newer_state(db_path):
    worker, other = Ledger.open(db_path, create=True), None
    try:
        cid = worker.start(load_catalog(sample_catalog_path()), slug="north").campaign.id
        worker.execute(cid, c.AddHero(hero="bo"))
        worker.execute(cid, c.Add(cards=("companion-wolf",), to="table:bo"))
        worker.execute(cid, c.Exhaust(actor="bo", cards=("companion-wolf",)))
        other = Ledger.open(db_path)
        other.execute(cid, c.Restore(actor="bo", cards=("companion-wolf",)))  # the worker does not know
        recorded = worker.execute(cid, c.Exhaust(actor="bo", cards=("companion-wolf",)))
        assert recorded.seq == 6 and "companion-wolf" in worker.campaign(cid).table.exhausted
        with pytest.raises(LedgerError, match="exhausted"):  # a true refusal still stands
            worker.execute(cid, c.Exhaust(actor="bo", cards=("companion-wolf",)))
        assert worker.last_seq(cid) == 6
    finally:
        worker.close()
        if other is not None:
            other.close()
