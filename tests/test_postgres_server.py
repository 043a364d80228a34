"""The table server on PostgreSQL (issue #13): four ``ledger serve`` workers on one
database; an action any process records reaches every worker's streams at once
(LISTEN/NOTIFY, ``ledger.postgres``), filtered per seat, as on SQLite."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from tests.postgres_support import fresh_schema
from tests.server_support import WHO, serving, table
from tests.test_server_live import Listener, _arrivals


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    with fresh_schema() as url:
        logs = tmp_path_factory.mktemp("pglive")
        seated = table(logs, db=url)
        with serving(url, workers=4, logs=logs) as base:
            # Several streams per seat: the four workers share them out, so each serves some.
            listeners = {f"{who}{i}": Listener(base, seated.headers(who)) for who in WHO for i in range(3)}
            yield seated, base, listeners


def test_an_action_at_the_cli_reaches_every_workers_streams_within_a_second(live):
    seated, _base, listeners = live
    sent = time.monotonic()
    out = json.loads(seated.ledger("--json", "--actor", "ana", "draw", "deck:item"))
    got = _arrivals(listeners, out["seq"], sent)
    drawn = out["events"][0]["cards"][0]
    for name, data in got.items():
        if name.startswith(("ana", "master")):
            assert data["events"][0]["cards"] == [drawn], name
        else:  # a face-down draw into Ana's hand: nobody else learns which
            assert drawn not in json.dumps(data), name


def test_actions_through_either_worker_reach_every_stream(live):
    seated, base, listeners = live
    for _ in range(6):  # the requests land on several workers
        sent = time.monotonic()
        reply = httpx.post(f"{base}/api/campaigns/demo/actions", headers=seated.headers("bo"),
                           json={"action": "exhaust", "cards": ["companion-wolf"]}, timeout=10)
        if reply.status_code == 409:
            reply = httpx.post(f"{base}/api/campaigns/demo/actions", headers=seated.headers("bo"),
                               json={"action": "restore", "cards": ["companion-wolf"]}, timeout=10)
        assert reply.status_code == 200, reply.text
        got = _arrivals(listeners, reply.json()["seq"], sent)
        assert len(got) == len(listeners)


def test_a_recorded_action_is_heard_by_listeners_once_committed():
    """eventsourcing's recorder NOTIFYs in the transaction that inserts the events; a
    listener hears it once committed. (The channel is the events table's name, shared by
    every schema of the database: other tests' actions may be heard too, so this checks
    that ours is heard, not that nothing else is.)"""
    import asyncio

    from ledger import commands as c
    from ledger.application import Ledger
    from ledger.catalog import load_catalog, sample_catalog_path
    from ledger.postgres import listen

    with fresh_schema() as url:
        ledger = Ledger.open(url, create=True)
        try:
            cid = ledger.start(load_catalog(sample_catalog_path()), slug="north").campaign.id

            async def heard_after_recording() -> float:
                heard = asyncio.Event()
                task = asyncio.create_task(listen(ledger.env, ledger.recorder.channel_name, heard.set))
                await asyncio.sleep(0.3)  # listening
                heard.clear()
                sent = time.monotonic()
                await asyncio.to_thread(ledger.execute, cid, c.AddHero(hero="ana"))
                await asyncio.wait_for(heard.wait(), 2)
                task.cancel()
                return time.monotonic() - sent

            assert asyncio.run(heard_after_recording()) < 2
        finally:
            ledger.close()
