"""Benchmark: what each read of the CLI costs, and how many bytes each event takes, on
one campaign file (issue #14: every read flat from 10k to 1M events).

    python tests/benchmarks/reads.py FILE [FILE...]     # e.g. /tmp/ledger-bench/c100000.db
    python tests/benchmarks/reads.py --json FILE

``measure_reads(path)``: the median milliseconds of each read, through the library
functions the CLI's ``history``, ``card`` and ``explain`` call (the process start-up
and the printing left out), on the file's only (or first) campaign, as the referee
unless the name says otherwise. The file's read models are caught up first (built, if
the file has none yet: that is not measured). ``measure_size(path)``: bytes per event
of each table and its indexes, from SQLite's ``dbstat`` table. Work on a copy of a
campaign file you want to keep as it is (with its ``-wal`` file): catching up writes.

Not collected by pytest; prints figures, asserts nothing. ``tests/test_query_plans.py``
is what fails when a read's plan stops being a lookup.
"""

from __future__ import annotations

import argparse
import inspect
import json
import random
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after $PYTHONPATH: another tree of the code can be measured

LIMIT = 20
REPEAT = 25
ABSENT = "nobody-acted"  # an actor with no action: a lookup finds nothing at once, a scan reads it all
READ_MODEL_TABLES = ("history", "card_actions", "cards", "zones", "projection_position")


def _median_ms(read: Callable[[], Any], repeat: int = REPEAT) -> float:
    read()  # warm: the first call fills caches the rest share (as one CLI run would not)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        read()
        times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 3)


def measure_reads(path: str | Path, repeat: int = REPEAT) -> dict[str, Any]:
    """Median ms of each read on the campaign in ``path``, with what was read (``picked``)."""
    from ledger.application import Ledger
    from projections.explain import explain
    from projections.queries import card_view, history_view
    from projections.readmodel import ReadModel

    ledger = Ledger.open(path)
    model = ReadModel(ledger, path)
    try:
        model.safe_catch_up()
        cid = ledger.resolve(None)
        campaign = ledger.campaign(cid)
        slug, last = campaign.slug, campaign.seq
        # The busiest and the quietest card and hero: a lookup costs the same for each, a
        # scan filtered afterwards costs more the rarer the rows it looks for.
        counts = model.db.execute("SELECT card, count(*) FROM card_actions WHERE campaign = ? "
                                  "GROUP BY card ORDER BY 2 DESC, 1", [slug]).fetchall()
        actors = model.db.execute("SELECT actor, count(*) FROM history WHERE campaign = ? AND actor != 'master' "
                                  "GROUP BY actor ORDER BY 2 DESC, 1", [slug]).fetchall()
        busy_card, quiet_card = counts[0][0], counts[-1][0]
        busy_hero, quiet_hero = actors[0][0], actors[-1][0]
        card_limit = "limit" in inspect.signature(card_view).parameters

        def history(viewer: str = "referee", **filters: Any) -> Callable[[], Any]:
            def read() -> Any:
                now = ledger.campaign(cid)  # as the CLI's history does
                return history_view(ledger, model, cid, now.slug, viewer, limit=LIMIT, **filters)
            return read

        def card(name: str, limit: int | None = None) -> Callable[[], Any]:
            def read() -> Any:
                now = ledger.campaign(cid)  # as the CLI's card does
                now.card(name)
                return card_view(ledger, model, now, "referee", name, **({"limit": limit} if limit else {}))
            return read

        rng = random.Random(14)
        seqs = [rng.randint(2, last) for _ in range(repeat + 1)]

        def explain_one() -> Any:  # a different seq each time: explain SEQ of any action
            seq = seqs.pop() if seqs else rng.randint(2, last)
            after = ledger.campaign(cid, at=seq)
            event = ledger.event(cid, seq)
            before = ledger.campaign(cid, at=seq - 1)
            return explain(event, before, after, "referee")

        reads = {
            f"history --limit {LIMIT}": history(),
            f"history --card BUSY --limit {LIMIT}": history(card=busy_card),
            f"history --card QUIET --limit {LIMIT}": history(card=quiet_card),
            f"--as BUSY-hero history --card BUSY --limit {LIMIT}": history(busy_hero, card=busy_card),
            f"history --actor BUSY --limit {LIMIT}": history(actor=busy_hero),
            f"history --actor QUIET --limit {LIMIT}": history(actor=quiet_hero),
            f"history --actor master --limit {LIMIT}": history(actor="master"),
            f"history --actor ABSENT --limit {LIMIT} (no action by them)": history(actor=ABSENT),
            "card BUSY (every action)": card(busy_card),
            "card QUIET (every action)": card(quiet_card),
        }
        if card_limit:
            reads[f"card BUSY --limit {LIMIT}"] = card(busy_card, LIMIT)
        reads |= {
            "explain SEQ (random seqs)": explain_one,
            "campaign now, cold (snapshot + tail)": lambda: ledger.campaign(cid, at=last),
            "read-model check before each read (nothing to catch up)": model.safe_catch_up,
        }
        figures = {name: _median_ms(read, repeat) for name, read in reads.items()}
        return {
            "events": last,
            "picked": {"BUSY card": [busy_card, counts[0][1]], "QUIET card": [quiet_card, counts[-1][1]],
                       "BUSY hero": [busy_hero, actors[0][1]], "QUIET hero": [quiet_hero, actors[-1][1]]},
            "ms": figures,
        }
    finally:
        model.close()
        ledger.close()


def measure_size(path: str | Path) -> dict[str, Any]:
    """Bytes per stored event of each table and of its indexes (pages, as SQLite's
    ``dbstat`` counts them), and of the whole file. Reads only."""
    conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True)
    try:
        events = conn.execute("SELECT count(*) FROM stored_events").fetchone()[0] or 1
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        free = conn.execute("PRAGMA freelist_count").fetchone()[0]
        owner = {name: table for name, table in conn.execute("SELECT name, tbl_name FROM sqlite_master "
                                                             "WHERE type IN ('table', 'index')")}
        try:
            sized = conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()
            method = "dbstat"
        except sqlite3.OperationalError:  # an SQLite built without SQLITE_ENABLE_DBSTAT_VTAB
            sized, method = _payload_estimate(conn, owner), "payload estimate (no dbstat)"
        tables: dict[str, dict[str, Any]] = {}
        for name, size in sized:
            table = owner.get(name, name)
            entry = tables.setdefault(table, {"table": 0, "indexes": {}})
            if name == table:
                entry["table"] += size
            else:
                entry["indexes"][name] = size
        per_event: dict[str, Any] = {}
        for table, entry in sorted(tables.items(), key=lambda item: -item[1]["table"] - sum(item[1]["indexes"].values())):
            indexes = {name: round(size / events, 1) for name, size in entry["indexes"].items()}
            per_event[table] = {"table": round(entry["table"] / events, 1), "indexes": indexes,
                                "total": round((entry["table"] + sum(entry["indexes"].values())) / events, 1)}
        read_models = sum(v["total"] for k, v in per_event.items() if k in READ_MODEL_TABLES)
        return {"events": events, "method": method, "bytes_per_event": per_event,
                "read_models_bytes_per_event": round(read_models, 1),
                "file_bytes_per_event": round(pages * page_size / events, 1),
                "free_pages": free, "file_bytes": pages * page_size}
    finally:
        conn.close()


def _payload_estimate(conn: sqlite3.Connection, owner: dict[str, str]) -> list[tuple[str, int]]:
    """Without ``dbstat``: each table's stored bytes summed column by column (no page
    overhead, no indexes)."""
    sized = []
    for name, table in owner.items():
        if name != table or name.startswith("sqlite_"):
            continue
        columns = [row[1] for row in conn.execute(f"PRAGMA table_info([{table}])")]
        total = " + ".join(f"coalesce(sum(length(CAST([{c}] AS BLOB))), 0)" for c in columns) or "0"
        sized.append((table, conn.execute(f"SELECT {total} FROM [{table}]").fetchone()[0]))
    return sized


def report(path: str, reads: dict[str, Any], size: dict[str, Any]) -> None:
    print(f"{path}: {reads['events']:,} actions, {size['events']:,} stored events")
    print("  picked: " + ", ".join(f"{k} {v[0]} ({v[1]} rows)" for k, v in reads["picked"].items()))
    print("  read (median ms):")
    for name, ms in reads["ms"].items():
        print(f"    {ms:9.3f}  {name}")
    print(f"  bytes per event ({size['method']}):")
    for table, entry in size["bytes_per_event"].items():
        indexes = ", ".join(f"{k} {v}" for k, v in entry["indexes"].items())
        print(f"    {entry['total']:9.1f}  {table} (table {entry['table']}" + (f"; {indexes}" if indexes else "") + ")")
    print(f"    {size['read_models_bytes_per_event']:9.1f}  read models altogether")
    print(f"    {size['file_bytes_per_event']:9.1f}  the whole file ({size['file_bytes']:,} bytes, "
          f"{size['free_pages']} free pages)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="campaign files (work on copies: catching up writes)")
    parser.add_argument("--json", action="store_true", help="one JSON object per file")
    parser.add_argument("--repeat", type=int, default=REPEAT, help=f"runs of each read (default {REPEAT})")
    args = parser.parse_args(argv)
    for path in args.files:
        reads = measure_reads(path, args.repeat)
        size = measure_size(path)
        if args.json:
            print(json.dumps({"file": path, "reads": reads, "size": size}))
        else:
            report(path, reads, size)


if __name__ == "__main__":
    main()
