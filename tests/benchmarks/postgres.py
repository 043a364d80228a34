"""Benchmark: the ledger on PostgreSQL beside the ledger on SQLite, in one run (issue #13
item 5): appends, read-model rebuilds and the table server with several workers.

    python tests/benchmarks/postgres.py --quick        # small sizes, about a minute
    python tests/benchmarks/postgres.py                # full: a few minutes
    python tests/benchmarks/postgres.py --json figures.json --clients 8 --seconds 10

PostgreSQL: the server at $LEDGER_TEST_POSTGRES (default
postgresql://postgres@127.0.0.1:5432/test); every schema this run makes (``t_...``,
``tests.postgres_support.fresh_schema``) is dropped at the end, and every server it
starts is stopped. SQLite files go to --dir (default /tmp/ledger-pg-bench), at the
default durability (WAL, synchronous=FULL) wherever something is timed.

1. Append: actions/s through ``Ledger.execute`` (driven by ``simulate``: random legal
   play, ~0% refused) on PostgreSQL and on SQLite, beside a plain eventsourcing
   application (one aggregate, one ``@event`` method, as tests/benchmarks/run.py's
   ``Counters``) on the same PostgreSQL server (a schema of its own) and on SQLite;
   the four take turns in chunks (their order rotated each turn) so the machine's
   mood weighs on all alike.
2. Rebuild: events/s of ``ReadModel(ledger, db).rebuild()`` (in a child process, as
   run.py does) for the same campaign on both stores: built once into SQLite by
   ``simulate`` (kept in --dir for reuse), exported, and imported with
   ``ledger.transfer.import_campaign`` into a fresh SQLite file and a fresh PostgreSQL
   schema, so both hold the same log; beside each store's floor (the stored events
   read and JSON-decoded: sqlite3 on ``stored_events``, psycopg on
   ``"SCHEMA".ledger_events``).
3. Server: 20 campaigns in one database (``start_simulation`` + a little ``simulate``,
   a seat for each hero), ``ledger serve --workers N`` in a child process, then
   --clients clients (asyncio, one keep-alive connection each: server_load.py's lean
   ``RawConnection``) record actions back to back for --warmup + --seconds. Each client
   owns one or more "lanes" (a campaign, a hero seat and a card on that hero's table)
   and goes round them, the hero exhausting then restoring the card: always legal, as
   no one else touches it. Lanes cover all 20 campaigns (one hero per campaign, more
   heroes when there are more than 20 clients). PostgreSQL with 1, 2, 4 workers and
   SQLite with 1, 2 workers, the same campaigns and lanes. Afterwards the campaigns'
   seqs must have grown by exactly the 200 replies, and refusals are counted (0
   expected). CPU seconds of the server, the load generator and PostgreSQL's processes
   (all of them: other users of the server count too) come from /proc.

Not collected by pytest; prints figures and ratios, and asserts only that every timed
action succeeded.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


# The lean HTTP client and /proc accounting of the SQLite server-load benchmark.
from tests.benchmarks.server_load import (
    RawConnection,
    cpu_seconds,
    descendants,
    machine_busy,
    pct,
    problems_in,
)

CAMPAIGNS = 20

SIZES = {  # --quick / full
    "quick": {"appends": 300, "chunk": 25, "rebuild": 3000, "repeats": 1, "played": 20, "seconds": 3.0,
              "warmup": 1.0},
    "full": {"appends": 2000, "chunk": 50, "rebuild": 20000, "repeats": 2, "played": 100, "seconds": 10.0,
             "warmup": 2.0},
}


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def load_avg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def unlink_sqlite(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def pg_connect(url: str) -> Any:
    import psycopg

    parts = urlsplit(url)
    return psycopg.connect(dbname=parts.path.lstrip("/"), host=parts.hostname, port=parts.port or 5432,
                           user=parts.username or "postgres", password=parts.password or "", autocommit=True)


def pg_env(url: str) -> dict[str, str]:
    """eventsourcing's settings for a plain application in the URL's schema (the ledger's own)."""
    from ledger.postgres import postgres_env

    return postgres_env(url)


# -- 1. append ---------------------------------------------------------------------------
from tests.benchmarks.run import REBUILD_CHILD, Counter, Counters, rebuild_floor_sqlite  # noqa: E402 — run.py's plain application (the floor)
from tests.postgres_support import schema_of  # noqa: E402


def measure_append(work: Path, pg_ledger_url: str, pg_plain_url: str, count: int, chunk: int) -> dict[str, Any]:
    """Actions/s through the ledger API on PostgreSQL and on SQLite, and a plain
    eventsourcing application's events/s on each, in turns of ``chunk``."""
    from ledger.application import Ledger
    from ledger.interface.simulate import simulate, start_simulation

    sqlite_path = work / "append-ledger.db"
    plain_path = work / "append-plain.db"
    unlink_sqlite(sqlite_path)
    unlink_sqlite(plain_path)
    ledgers = {"pg": Ledger.open(pg_ledger_url, create=True), "sqlite": Ledger.open(sqlite_path, create=True)}
    cids = {}
    for name, ledger in ledgers.items():  # the same campaign on both, warmed up alike
        cids[name] = start_simulation(ledger, heroes=3, seed=1)
        simulate(ledger, cids[name], 100, seed=1)
    with pg_connect(pg_plain_url) as conn:
        conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema_of(pg_plain_url)}"')
    plains = {"pg": Counters(env=pg_env(pg_plain_url)),
              "sqlite": Counters(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(plain_path)})}
    counters = {}
    for name, app in plains.items():
        counters[name] = Counter()
        app.save(counters[name])
        for _ in range(20):
            counters[name].increment()
            app.save(counters[name])

    def ledger_turn(name: str) -> Any:
        def turn(n: int, seed: int) -> tuple[int, int]:
            stats = simulate(ledgers[name], cids[name], n, seed=seed)
            return stats.recorded, stats.refused
        return turn

    def plain_turn(name: str) -> Any:
        def turn(n: int, seed: int) -> tuple[int, int]:
            for _ in range(n):
                counters[name].increment()
                plains[name].save(counters[name])
            return n, 0
        return turn

    turns = {"ledger_pg": ledger_turn("pg"), "ledger_sqlite": ledger_turn("sqlite"),
             "plain_pg": plain_turn("pg"), "plain_sqlite": plain_turn("sqlite")}
    spent = dict.fromkeys(turns, 0.0)
    done = dict.fromkeys(turns, 0)
    refused = dict.fromkeys(turns, 0)
    rates: dict[str, list[float]] = {k: [] for k in turns}
    order = list(turns)
    i = 0
    while done["ledger_pg"] < count:
        n = min(chunk, count - done["ledger_pg"])
        for name in order[i % len(order):] + order[:i % len(order)]:  # rotated each turn
            t0 = time.perf_counter()
            recorded, no = turns[name](n, 12345 + done[name])
            dt = time.perf_counter() - t0
            if recorded != n:
                raise RuntimeError(f"append {name}: {recorded} of {n} actions recorded")
            spent[name] += dt
            done[name] += recorded
            refused[name] += no
            rates[name].append(n / dt)
        i += 1
    for ledger in ledgers.values():
        ledger.close()
    for app in plains.values():
        app.close()
    unlink_sqlite(sqlite_path)
    unlink_sqlite(plain_path)
    aps = {k: done[k] / spent[k] for k in turns}
    return {
        "append_pg": aps["ledger_pg"], "append_sqlite": aps["ledger_sqlite"],
        "plain_pg": aps["plain_pg"], "plain_sqlite": aps["plain_sqlite"],
        "append_spread": {k: [pct(v, 0.1), pct(v, 0.9)] for k, v in rates.items()},
        "append_refused": {"pg": refused["ledger_pg"], "sqlite": refused["ledger_sqlite"]},
        "append_count": count, "append_chunk": chunk,
    }


# -- 2. rebuild --------------------------------------------------------------------------
def build_campaign(path: Path, size: int) -> None:
    """A simulated campaign of ``size`` actions in an SQLite file (kept for reuse; built
    with LEDGER_SYNCHRONOUS=NORMAL to save time: nothing is timed here)."""
    from ledger.application import Ledger
    from ledger.interface.simulate import simulate, start_simulation

    os.environ["LEDGER_SYNCHRONOUS"] = "NORMAL"
    try:
        ledger = Ledger.open(path, create=True)
        cid = ledger.resolve(None) if ledger.campaigns() else start_simulation(ledger, heroes=3, seed=1)
        have, t0, refused = ledger.campaign(cid).seq, time.perf_counter(), 0
        while have < size:
            stats = simulate(ledger, cid, min(5000, size - have), seed=have)
            refused += stats.refused
            have = ledger.campaign(cid).seq
            say(f"  built {have:,} / {size:,} actions ({have / (time.perf_counter() - t0):,.0f}/s; "
                f"{refused} refused)")
        ledger.close()
    finally:
        del os.environ["LEDGER_SYNCHRONOUS"]




def rebuild_once(db: str) -> dict[str, float]:
    done = subprocess.run([sys.executable, "-c", REBUILD_CHILD.format(root=str(ROOT), path=db)],
                          check=False, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"rebuild of {db} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def floor_postgres(url: str) -> tuple[int, float]:
    with pg_connect(url) as conn:
        t0 = time.perf_counter()
        rows = 0
        with conn.cursor() as cur:
            cur.execute(f'SELECT state FROM "{schema_of(url)}".ledger_events ORDER BY notification_id')
            for (state,) in cur:
                json.loads(state)
                rows += 1
        dt = time.perf_counter() - t0
    return rows, rows / dt


def measure_rebuild(work: Path, pg_url: str, size: int, repeats: int) -> dict[str, Any]:
    from ledger.application import Ledger
    from ledger.transfer import export, import_campaign

    base = work / f"rebuild-{size}.db"
    say(f"rebuild: a campaign of {size:,} actions in {base}")
    build_campaign(base, size)
    exported = work / f"rebuild-{size}.jsonl"
    ledger = Ledger.open(base)
    with exported.open("w") as out:
        export(ledger, ledger.resolve(None), out)
    ledger.close()
    copy = work / "rebuild-sqlite.db"
    unlink_sqlite(copy)
    t0 = time.perf_counter()
    import_campaign(exported, copy)
    say(f"  imported into {copy} ({time.perf_counter() - t0:.1f} s)")
    t0 = time.perf_counter()
    import_campaign(exported, pg_url)
    say(f"  into schema {schema_of(pg_url)} ({time.perf_counter() - t0:.1f} s)")
    best: dict[str, dict[str, Any]] = {}
    for _ in range(repeats):  # alternated; the best of each kept (the least disturbed)
        for name, db in (("sqlite", str(copy)), ("pg", pg_url)):
            got = rebuild_once(db)
            got["eps"] = got["events"] / got["seconds"]
            rows, floor = rebuild_floor_sqlite(copy) if name == "sqlite" else floor_postgres(pg_url)
            got["floor"], got["floor_rows"] = floor, rows
            say(f"  rebuild {name}: {got['events']:,} events in {got['seconds']:.2f} s; floor {floor:,.0f} rows/s")
            prev = best.get(name)
            if prev is None:
                best[name] = got
            else:
                prev["eps"] = max(prev["eps"], got["eps"])
                prev["floor"] = max(prev["floor"], got["floor"])
                prev["rss_mb"] = max(prev["rss_mb"], got["rss_mb"])
    unlink_sqlite(copy)
    out: dict[str, Any] = {"rebuild_size": size}
    for name, got in best.items():
        out.update({f"rebuild_{name}": got["eps"], f"rebuild_floor_{name}": got["floor"],
                    f"rebuild_ratio_{name}": got["eps"] / got["floor"], f"rebuild_rss_{name}": got["rss_mb"],
                    f"rebuild_events_{name}": got["events"], f"rebuild_rows_{name}": got["floor_rows"]})
    return out


# -- 3. the server -------------------------------------------------------------------------
@dataclass
class Lane:
    """A hero seat's endless legal play in one campaign: exhaust, restore, exhaust…"""

    campaign: str
    hero: str
    token: str
    card: str
    exhausted: bool = False

    def body(self) -> bytes:
        return json.dumps({"action": "restore" if self.exhausted else "exhaust", "cards": [self.card]}).encode()


def toggles(ledger: Any, cid: Any, hero: str, card: str) -> bool:
    """Can the hero exhaust and restore the card (left restored)?"""
    from ledger import commands as c
    from ledger.errors import LedgerError

    try:
        if card in ledger.campaign(cid).table.exhausted:
            ledger.execute(cid, c.Restore(actor=hero, cards=(card,)))
        ledger.execute(cid, c.Exhaust(actor=hero, cards=(card,)))
        ledger.execute(cid, c.Restore(actor=hero, cards=(card,)))
        return True
    except LedgerError:
        return False


def lane_card(ledger: Any, cid: Any, hero: str) -> str | None:
    """A card on the hero's table the hero can toggle; if none is, one the hero sends
    there from their inventory, or the master from a deck."""
    from ledger import commands as c
    from ledger.errors import LedgerError
    from ledger.vocabulary import MASTER, Zone

    table = ledger.campaign(cid).table
    for card in table.cards_in(Zone.table(hero)):
        if toggles(ledger, cid, hero, card):
            return card
    decks = [z for z in ledger.campaign(cid).zones() if z.startswith("deck:")]
    candidates = [(hero, x) for x in table.cards_in(f"inventory:{hero}")]  # the hero puts one down
    candidates += [(MASTER, x) for z in decks for x in table.cards_in(z)[:3]]  # or the master deals one
    for actor, card in candidates:
        try:
            ledger.execute(cid, c.Send(actor=actor, cards=(card,), to=Zone.table(hero)))
        except LedgerError:
            continue
        if card in ledger.campaign(cid).table.cards_in(Zone.table(hero)) and toggles(ledger, cid, hero, card):
            return card
    return None


def build_tables(db: str, played: int) -> list[Lane]:
    """CAMPAIGNS simulated campaigns (c0…c19) and a seat for each hero with a card to
    toggle; the lanes, one hero per campaign first, then the others."""
    from ledger.application import Ledger
    from ledger.interface.simulate import simulate, start_simulation
    from ledger.seats import open_seat

    ledger = Ledger.open(db, create=True)
    first: list[Lane] = []
    more: list[Lane] = []
    for i in range(CAMPAIGNS):
        slug = f"c{i}"
        cid = start_simulation(ledger, heroes=3, seed=i, slug=slug)
        simulate(ledger, cid, played, seed=i)
        lanes = []
        for hero in ledger.campaign(cid).table.heroes:
            card = lane_card(ledger, cid, hero)
            if card is not None:
                lanes.append(Lane(slug, hero, open_seat(ledger, cid, hero), card))
        if not lanes:
            raise RuntimeError(f"campaign {slug}: no hero has a card it can exhaust and restore")
        first.append(lanes[0])
        more.extend(lanes[1:])
    from projections.readmodel import ReadModel

    model = ReadModel(ledger, db)  # the read models made and caught up, as any ledger command leaves them
    model.catch_up()
    model.close()
    ledger.close()
    return first + more


def seqs(db: str) -> dict[str, int]:
    from ledger.application import Ledger

    ledger = Ledger.open(db)
    try:
        return {e.slug: ledger.last_seq(e.campaign_id) for e in ledger.campaigns()}
    finally:
        ledger.close()


def serve(db: str, workers: int, logs: Path, timeout: float = 30.0) -> Any:
    """``ledger --db DB serve --workers N`` on a free port, every worker started (tests/server_support.py);
    yields (base URL, process, log path); stops it after."""
    from tests.server_support import server

    return server(db, workers, logs, timeout)


def postgres_pids() -> list[int]:
    """Every PostgreSQL server process on the machine (its backends included)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if Path(f"/proc/{entry}/comm").read_text().strip() == "postgres":
                    found.append(int(entry))
            except OSError:
                continue
    return found


def is_worker(pid: int) -> bool:
    """One of uvicorn's worker processes (started by multiprocessing's spawn; not its
    resource tracker, not the supervisor)."""
    try:
        return b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def cpu_of(pids: list[int]) -> dict[int, float]:
    return {p: cpu_seconds(p) for p in pids}


async def drive(base: str, lanes: list[Lane], clients: int, warmup: float, seconds: float,
                cpu: dict[str, Any], server_pid: int) -> tuple[list[tuple[float, float, bool]], dict[int, int]]:
    """--clients clients, each going round its lanes, for warmup + seconds; returns
    (sent, replied, in the window) per recorded action and the other replies by status."""
    records: list[tuple[float, float, bool]] = []
    failures: dict[int, int] = {}
    started = time.monotonic()
    start, end = started + warmup, started + warmup + seconds
    used = lanes[:max(clients, CAMPAIGNS)]

    def sample(name: str) -> None:
        server = descendants(server_pid)
        cpu[name] = {"server": cpu_of(server), "workers": [p for p in server if is_worker(p)],
                     "clients": cpu_seconds(os.getpid()),
                     "postgres": sum(cpu_of(postgres_pids()).values()), "machine": machine_busy(),
                     "at": time.monotonic(), "load": load_avg()}

    async def sampler() -> None:
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        sample("start")
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        sample("end")

    async def client(mine: list[Lane]) -> None:
        conn = RawConnection(base)
        headers = {lane.campaign + lane.hero: f"Authorization: Bearer {lane.token}\r\n".encode() for lane in mine}
        i = 0
        try:
            while True:
                lane = mine[i % len(mine)]
                i += 1
                path = f"/api/campaigns/{lane.campaign}/actions"
                sent = time.monotonic()
                if sent >= end:
                    return
                status, content = await conn.post(path, headers[lane.campaign + lane.hero], lane.body())
                replied = time.monotonic()
                if status == 200:
                    records.append((sent, replied, sent >= start))
                    lane.exhausted = not lane.exhausted
                else:
                    failures[status] = failures.get(status, 0) + 1
                    if sum(failures.values()) <= 3:
                        say(f"  refused: {status} {content[:300]!r} ({lane.hero} in {lane.campaign}, "
                            f"{lane.body().decode()})")
        finally:
            await conn.close()

    task = asyncio.create_task(sampler())
    await asyncio.gather(*(client(used[k::clients]) for k in range(clients)))
    await task
    return records, failures


def measure_server(store: str, db: str, lanes: list[Lane], workers: int, clients: int, warmup: float,
                   seconds: float, logs: Path) -> dict[str, Any]:
    before = seqs(db)
    cpu: dict[str, Any] = {}
    with serve(db, workers, logs) as (base, proc, log_path):
        records, failures = asyncio.run(drive(base, lanes, clients, warmup, seconds, cpu, proc.pid))
    after = seqs(db)
    grown = sum(after[s] - before.get(s, 0) for s in after)
    if grown != len(records):
        raise RuntimeError(f"{store} with {workers} workers: {len(records)} actions recorded (200 replies), "
                           f"but the campaigns' seqs grew by {grown}")
    problems = problems_in(log_path.read_bytes().splitlines())
    measured = [r for r in records if r[2]]
    span = cpu["end"]["at"] - cpu["start"]["at"]
    latencies = [(replied - sent) * 1000 for sent, replied, _m in measured]
    n = max(len(measured), 1)
    s0, s1 = cpu["start"]["server"], cpu["end"]["server"]
    per_process = {p: s1[p] - s0.get(p, 0.0) for p in s1}
    server_cpu = sum(per_process.values())
    busy_workers = sorted((v for p, v in per_process.items() if p in cpu["start"]["workers"]),
                          reverse=True)
    client_cpu = cpu["end"]["clients"] - cpu["start"]["clients"]
    # (a backend that exits in the window takes its CPU seconds with it: never below 0)
    pg_cpu = max(0.0, cpu["end"]["postgres"] - cpu["start"]["postgres"])
    machine = cpu["end"]["machine"] - cpu["start"]["machine"]
    # the load generator's own CPU is in "clients"; the PostgreSQL processes' in "postgres"
    other = max(0.0, machine - server_cpu - client_cpu - (pg_cpu if store == "pg" else 0.0))
    return {
        "store": store, "workers": workers, "clients": clients, "lanes": len(lanes[:max(clients, CAMPAIGNS)]),
        "actions": len(measured), "seconds": span, "aps": len(measured) / span,
        "p50_ms": pct(latencies, 0.5), "p95_ms": pct(latencies, 0.95), "max_ms": max(latencies, default=float("nan")),
        "refused": failures, "recorded_total": len(records),
        "server_cpu_ms": server_cpu * 1000 / n, "pg_cpu_ms": pg_cpu * 1000 / n, "client_cpu_ms": client_cpu * 1000 / n,
        "server_cores": server_cpu / span, "pg_cores": pg_cpu / span, "other_cores": other / span,
        "worker_cpu_s": [round(v, 2) for v in busy_workers] if workers > 1 else [round(server_cpu, 2)],
        "load": cpu["start"]["load"], "problems": problems[:10], "log": str(log_path),
    }


# -- the run -------------------------------------------------------------------------------
def pg_settings(url: str) -> str:
    with pg_connect(url) as conn:
        got = {name: conn.execute(f"SHOW {name}").fetchone()[0]
               for name in ("server_version", "synchronous_commit", "fsync", "shared_buffers")}
    return (f"PostgreSQL {got['server_version'].split()[0]} (synchronous_commit={got['synchronous_commit']}, "
            f"fsync={got['fsync']}, shared_buffers={got['shared_buffers']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (about a minute)")
    parser.add_argument("--dir", default="/tmp/ledger-pg-bench", help="SQLite files and server logs")
    parser.add_argument("--appends", type=int, default=None, help="actions per contender (quick 300, full 2000)")
    parser.add_argument("--rebuild", type=int, default=None, help="actions in the rebuilt campaign "
                                                                   "(quick 3,000, full 20,000)")
    parser.add_argument("--seconds", type=float, default=None, help="measured server load per setting "
                                                                     "(quick 3, full 10)")
    parser.add_argument("--warmup", type=float, default=None, help="server load before measuring (quick 1, full 2)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent server clients (default 8)")
    parser.add_argument("--pg-workers", default="1,2,4")
    parser.add_argument("--sqlite-workers", default="1,2")
    parser.add_argument("--only", default="append,rebuild,server", help="which parts (default all three)")
    parser.add_argument("--json", dest="json_out", default=None, help="also write the figures to this file")
    args = parser.parse_args()
    size = dict(SIZES["quick" if args.quick else "full"])
    for key in ("appends", "rebuild", "seconds", "warmup"):
        if getattr(args, key) is not None:
            size[key] = getattr(args, key)
    parts = set(args.only.split(","))
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    random.seed(0)

    from tests.postgres_support import fresh_schema

    figures: dict[str, Any] = {"mode": "quick" if args.quick else "full", "load_start": load_avg()}
    say(f"load average at the start: {figures['load_start']}")
    with contextlib.ExitStack() as schemas:
        def schema() -> str:
            return schemas.enter_context(fresh_schema())

        from tests.postgres_support import SERVER

        figures["postgres"] = pg_settings(SERVER)
        if "append" in parts:
            say(f"append: {size['appends']} actions per contender, turns of {size['chunk']}")
            figures["append"] = measure_append(work, schema(), schema(), size["appends"], size["chunk"])
            figures["append"]["load"] = load_avg()
            say(f"  {json.dumps(figures['append'])}")
        if "rebuild" in parts:
            figures["rebuild"] = measure_rebuild(work, schema(), size["rebuild"], size["repeats"])
            figures["rebuild"]["load"] = load_avg()
        if "server" in parts:
            runs = []
            logs = work / "server-logs"  # kept: a server that logs a problem can be read after
            shutil.rmtree(logs, ignore_errors=True)
            logs.mkdir()
            for store, counts in (("pg", args.pg_workers), ("sqlite", args.sqlite_workers)):
                if store == "pg":
                    db = schema()
                else:
                    db = str(work / "server-sqlite.db")
                    unlink_sqlite(Path(db))
                t0 = time.perf_counter()
                lanes = build_tables(db, size["played"])
                say(f"server on {store}: {CAMPAIGNS} campaigns, {len(lanes)} hero seats with a card to toggle "
                    f"({time.perf_counter() - t0:.1f} s)")
                for workers in (int(w) for w in counts.split(",") if w):
                    say(f"  {store}, {workers} worker(s), {args.clients} clients: "
                        f"{size['warmup']:g} + {size['seconds']:g} s (load {load_avg()})")
                    got = measure_server(store, db, lanes, workers, args.clients, size["warmup"],
                                         size["seconds"], logs)
                    say(f"    {got['aps']:,.0f} actions/s, p50 {got['p50_ms']:.1f} ms, refused {got['refused']}")
                    runs.append(got)
                if store == "sqlite":
                    unlink_sqlite(Path(db))
            figures["server"] = runs
    figures["load_end"] = load_avg()
    report(figures)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2))


def report(f: dict[str, Any]) -> None:
    print(f"\n{f['mode']} run")
    if "append" in f or "rebuild" in f:
        print("\n| figure | PostgreSQL | SQLite | PostgreSQL / SQLite |\n|---|---|---|---|")

        def row(label: str, pg: float, lite: float, fmt: str) -> None:
            print(f"| {label} | {fmt.format(pg)} | {fmt.format(lite)} | {pg / lite:.2f} |")

    if "append" in f:
        a = f["append"]
        row("append, actions/s (ledger API, simulate)", a["append_pg"], a["append_sqlite"], "{:,.0f}")
        row("plain eventsourcing app (one @event), events/s", a["plain_pg"], a["plain_sqlite"], "{:,.0f}")
        row("append / plain eventsourcing, same store", a["append_pg"] / a["plain_pg"],
            a["append_sqlite"] / a["plain_sqlite"], "{:.2f}")
    if "rebuild" in f:
        r = f["rebuild"]
        row(f"rebuild, events/s ({r['rebuild_events_pg']:,} / {r['rebuild_events_sqlite']:,} events)",
            r["rebuild_pg"], r["rebuild_sqlite"], "{:,.0f}")
        row("rebuild floor: read + JSON-decode the stored events, rows/s", r["rebuild_floor_pg"],
            r["rebuild_floor_sqlite"], "{:,.0f}")
        row("rebuild / floor", r["rebuild_ratio_pg"], r["rebuild_ratio_sqlite"], "{:.3f}")
        row("rebuild peak RSS (child process), MB", r["rebuild_rss_pg"], r["rebuild_rss_sqlite"], "{:.0f}")
    if "append" in f:
        a = f["append"]
        spread = "; ".join(f"{k} {lo:,.0f}–{hi:,.0f}" for k, (lo, hi) in a["append_spread"].items())
        print(f"\nappend: {a['append_count']:,} actions per contender in turns of {a['append_chunk']}; refused "
              f"choices (timed, not counted) PostgreSQL {a['append_refused']['pg']}, SQLite "
              f"{a['append_refused']['sqlite']}; per-turn rate p10–p90: {spread}; load at the end: {a['load']}")
    if "rebuild" in f:
        r = f["rebuild"]
        print(f"rebuild: a simulated campaign of {r['rebuild_size']:,} actions, exported, imported into a new SQLite "
              f"file and a new PostgreSQL schema "
              f"(floor rows: PostgreSQL {r['rebuild_rows_pg']:,}, SQLite {r['rebuild_rows_sqlite']:,}); "
              f"load at the end: {r['load']}")
    if "server" in f:
        runs = f["server"]
        first = {run["store"]: run for run in runs if run["workers"] == 1}
        print(f"\n| server, {CAMPAIGNS} campaigns | actions/s | vs 1 worker | POST p50 / p95 / max, ms | refused "
              "| server CPU ms/action | PostgreSQL CPU ms/action | CPU s per worker | other procs, cores "
              "| load avg (1/5/15) |\n|---|---|---|---|---|---|---|---|---|---|")
        for run in runs:
            one = first.get(run["store"])
            versus = f"{run['aps'] / one['aps']:.2f}x" if one else "–"
            refused = ", ".join(f"{k}: {v}" for k, v in run["refused"].items()) or "0"
            pg_ms = f"{run['pg_cpu_ms']:.2f}" if run["store"] == "pg" else f"({run['pg_cpu_ms']:.2f})"
            name = "PostgreSQL" if run["store"] == "pg" else "SQLite"
            print(f"| {name}, {run['workers']} worker{'s' if run['workers'] > 1 else ''} | {run['aps']:,.0f} "
                  f"| {versus} | {run['p50_ms']:.1f} / {run['p95_ms']:.1f} / {run['max_ms']:.0f} | {refused} "
                  f"| {run['server_cpu_ms']:.2f} | {pg_ms} | {' + '.join(f'{v:.1f}' for v in run['worker_cpu_s'])} "
                  f"| {run['other_cores']:.2f} | {run['load']} |")
        r0 = runs[0]
        print(f"\nserver: {r0['clients']} clients (one keep-alive connection each) over {r0['lanes']} hero seats "
              f"in {CAMPAIGNS} campaigns, a hero exhausting / restoring a card on their table; "
              f"{r0['seconds']:.1f} s measured per setting. PostgreSQL CPU: every postgres process on the "
              "machine (in brackets for SQLite runs: others' use of the server). Other procs: the machine's busy "
              "CPU minus the server's, the load generator's and (PostgreSQL runs) postgres's. Load generator CPU "
              "per action: " + ", ".join(f"{run['client_cpu_ms']:.2f} ms" for run in runs)
              + ". Every 200 reply was checked against the campaigns' seqs afterwards.")
        for run in runs:
            if run["problems"]:
                print(f"the server ({run['store']}, {run['workers']} workers) logged (see {run['log']}):\n  "
                      + "\n  ".join(run["problems"]))
    from importlib.metadata import version as installed

    version = installed("eventsourcing")
    print(f"\nmachine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}, "
          f"{f.get('postgres', 'PostgreSQL ?')} on the same machine, eventsourcing {version}; load average "
          f"(1/5/15 min) {f['load_start']} at the start, {f['load_end']} at the end")


if __name__ == "__main__":
    main()
