"""Benchmark: the ledger's costs at 10k, 100k and 1M events, beside the floors that
SQLite and a plain eventsourcing application set on the same machine, in the same run.

    python tests/benchmarks/run.py                      # 10k, 100k, 1M (builds take a while)
    python tests/benchmarks/run.py --sizes 10000,100000 # smaller

Campaigns are built once with ``simulate`` (random legal play through the real command
path; built with LEDGER_SYNCHRONOUS=NORMAL to save time) and kept in --dir for reuse.
Every measured append runs at the default durability (WAL, synchronous=FULL). Not
collected by pytest; prints figures and ratios (and each build's refusal rate), and
asserts only that every timed command succeeded.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))  # reads.py beside it

TARGETS = {
    "append_ratio": ">= 0.50 of the raw floor",
    "rebuild_eps": ">= 100,000 events/s",
    "rebuild_ratio": ">= 0.40 of its floor",
    "travel_p95_ms": "<= 50 ms",
    "undo_p50_ms": "<= 20 ms",
    "cli_ms": "<= 150 ms",
    "cli_warm_ms": "<= 150 ms",
    "help_ms": "<= 100 ms",
    "history_card_ms": "flat",
    "history_actor_ms": "flat",
    "card_limit_ms": "flat",
    "explain_ms": "flat",
    "rebuild_rss_mb": "<= 300 MB",
}


def build(path: Path, size: int, smaller: Path | None) -> None:
    """A simulated campaign whose log holds ``size`` events (actions)."""
    os.environ["LEDGER_SYNCHRONOUS"] = "NORMAL"
    from ledger.application import Ledger
    from ledger.interface.simulate import simulate, start_simulation

    if smaller is not None and smaller.exists() and not path.exists():  # grow the smaller one, once
        copy_db(smaller, path)
    ledger = Ledger.open(path, create=True)
    cid = ledger.resolve(None) if ledger.campaigns() else start_simulation(ledger, heroes=3, seed=1)
    have = ledger.campaign(cid).seq
    step, t0 = 10_000, time.perf_counter()
    recorded = refused = 0
    while have < size:
        n = min(step, size - have)
        stats = simulate(ledger, cid, n, seed=have)
        recorded, refused = recorded + stats.recorded, refused + stats.refused
        have = ledger.campaign(cid).seq
        rate = (have) / max(time.perf_counter() - t0, 1e-9)
        print(f"  built {have:,} / {size:,} events ({rate:,.0f}/s so far)", file=sys.stderr, flush=True)
    if recorded:
        print(f"  simulation: {refused:,} of {recorded + refused:,} choices refused "
              f"(refusal rate {refused / (recorded + refused):.1%}); cards by zone kind at the end: {stats.zones}",
              file=sys.stderr, flush=True)
    else:
        print("  simulation: none (the campaign was already built in --dir)", file=sys.stderr, flush=True)
    ledger.close()
    del os.environ["LEDGER_SYNCHRONOUS"]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def remove_db(path: Path) -> None:
    """An SQLite file and its WAL files, if they are there."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def copy_db(source: Path, target: Path) -> None:
    """A copy of an SQLite file with its WAL files, over whatever was at ``target``."""
    remove_db(target)
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{source}{suffix}").exists():
            shutil.copy(f"{source}{suffix}", f"{target}{suffix}")


def raw_sqlite(path: Path) -> sqlite3.Connection:
    """A new SQLite file at ``path`` as the ledger keeps its own: WAL, synchronous=FULL,
    each statement its own transaction unless BEGIN says otherwise."""
    remove_db(path)
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=FULL")
    return raw


def measure_append(path: Path, work: Path, count: int, chunk: int = 50, warm_up: int = 100) -> dict:
    """Actions/s through the ledger API (the time of its ``execute`` calls; also with the
    simulation's choosing of each command), raw sqlite3 rows/s, the rows/s of the ledger's
    own eventsourcing recorder handed stored events already made (the least a recorded
    action costs through the recorder API: no deciding, no hashing, no mapping) and a plain
    eventsourcing application's events/s, measured in alternating chunks so that the disk's mood
    (fsync times drift) weighs on all four alike. All four are timed after ``warm_up``
    untimed appends of their own: a rate is a steady state, and the ledger's first
    actions build pydantic's validators for the events they use (~0.1 s once per
    process, a start-up cost the cold CLI figure counts)."""
    from eventsourcing.persistence import StoredEvent

    from ledger.application import Ledger
    from ledger.interface.simulate import simulate

    ledger = Ledger.open(path)
    cid = ledger.resolve(None)
    sample = [row.state for row in ledger.recorder.select_events(cid, desc=True, limit=200)]

    # The floors append to the log's own table in a copy of the campaign's file: a table of
    # the same size, in a file of the same size, as the ledger's (at 1M a fresh table is
    # quicker to append to than a large one, and would flatter the floor).
    floor_path = work / "append-floor.db"
    remove_db(floor_path)
    copy_db(path, floor_path)
    raw = sqlite3.connect(floor_path, isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=FULL")
    plain = Counters(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": str(floor_path)})
    floor_ledger = Ledger.open(floor_path)  # the ledger's own recorder (FULL), into the floor's copy
    recorder = floor_ledger.recorder
    stream = uuid.uuid4()
    stored = [row for row in ledger.recorder.select_events(cid, desc=True, limit=200)]
    counter = Counter()
    plain.save(counter)

    spent = {"ours": 0.0, "raw": 0.0, "plain": 0.0, "simulated": 0.0, "recorder": 0.0}
    done = {"ours": 0, "raw": 0, "plain": 0, "recorder": 0}

    def record_made(n: int) -> None:
        for _ in range(n):
            done["recorder"] += 1
            row = stored[done["recorder"] % len(stored)]
            recorder.insert_events([StoredEvent(originator_id=stream, originator_version=done["recorder"],
                                                topic=row.topic, state=row.state)])

    execute = ledger.execute

    def timed_execute(campaign: Any, command: Any) -> Any:
        """``Ledger.execute``, timed when it records (the API's cost; the simulation's
        choosing of the command is timed apart, as "with the simulation")."""
        t0 = time.perf_counter()
        recorded = execute(campaign, command)
        spent["ours"] += time.perf_counter() - t0
        return recorded

    simulate(ledger, cid, warm_up, seed=54321)
    record_made(warm_up)
    done["recorder"] = warm_up  # the next versions; counted from here
    for i in range(warm_up):
        raw.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
                    ("warm", i, "t", sample[i % len(sample)]))
        counter.increment()
        plain.save(counter)
    ledger.execute = timed_execute  # type: ignore[method-assign]
    while done["ours"] < count:
        n = min(chunk, count - done["ours"])
        t0 = time.perf_counter()
        stats = simulate(ledger, cid, n, seed=done["ours"] + 12345)
        spent["simulated"] += time.perf_counter() - t0
        done["ours"] += stats.recorded
        t0 = time.perf_counter()
        for _ in range(n):
            done["raw"] += 1
            raw.execute("BEGIN")
            raw.execute("INSERT INTO stored_events (originator_id, originator_version, topic, state) "
                        "VALUES (?, ?, ?, ?)", ("x", done["raw"], "t", sample[done["raw"] % len(sample)]))
            raw.execute("COMMIT")
        spent["raw"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        for _ in range(n):
            counter.increment()
            plain.save(counter)
            done["plain"] += 1
        spent["plain"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        record_made(n)
        spent["recorder"] += time.perf_counter() - t0
    ledger.close()
    floor_ledger.close()
    raw.close()
    plain.close()
    remove_db(floor_path)
    ours, floor, es = (done[k] / spent[k] for k in ("ours", "raw", "plain"))
    made = (done["recorder"] - warm_up) / spent["recorder"]
    return {"append_aps": ours, "append_floor": floor, "append_ratio": ours / floor, "plain_es_aps": es,
            "vs_plain": ours / es, "append_sim_aps": done["ours"] / spent["simulated"],
            "recorder_floor": made, "recorder_ratio": made / floor}


from eventsourcing.application import Application  # noqa: E402
from eventsourcing.domain import Aggregate, event  # noqa: E402


class Counter(Aggregate):
    """The floor's aggregate: one field."""

    def __init__(self) -> None:
        self.value = 0

    @event("Incremented")
    def increment(self) -> None:
        self.value += 1


class Counters(Application):
    pass


REBUILD_CHILD = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
from ledger.application import Ledger
from projections.readmodel import ReadModel
ledger = Ledger.open({path!r})
model = ReadModel(ledger, {path!r})
t0 = time.perf_counter()
n = model.rebuild()
dt = time.perf_counter() - t0
model.close()
ledger.close()
try:  # this process's own peak (ru_maxrss would also count the benchmark's memory, copied by the fork before exec)
    peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"events": n, "seconds": dt, "rss_mb": peak / 1024}}))
"""


def rebuild_floor_sqlite(path: Path) -> tuple[int, float]:
    """The rebuild's floor: raw sqlite3 reading the stored rows and JSON-decoding them
    (rows, rows/s)."""
    raw = sqlite3.connect(path)
    t0 = time.perf_counter()
    rows = 0
    for (state,) in raw.execute("SELECT state FROM stored_events ORDER BY rowid"):
        json.loads(state)
        rows += 1
    dt = time.perf_counter() - t0
    raw.close()
    return rows, rows / dt


def rebuild_write_floor(path: Path, work: Path, batch: int = 5000) -> float:
    """The rebuild's other floor: raw sqlite3 only writing the rows a rebuild writes for
    each action (the rebuilt ``history`` and ``card_actions`` rows, read back; not the few
    ``cards`` and ``zones`` rows of each batch) into empty tables of the same schema in a
    file of their own (WAL, synchronous=FULL, as the ledger's), ``batch`` actions per
    transaction as the rebuild commits them (events/s)."""
    from projections.readmodel import INSERTS

    source = sqlite3.connect(path)
    schemas = [sql for (sql,) in source.execute(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name IN ('history', 'card_actions')")]
    history = source.execute("SELECT campaign, seq, action, actor, time, summary, cards, seen, unnamed, undone_by "
                             "FROM history ORDER BY campaign, seq").fetchall()
    by_action: dict[tuple[str, int], list[tuple]] = {}
    for row in source.execute("SELECT campaign, card, seq, witnesses FROM card_actions"):
        by_action.setdefault((row[0], row[2]), []).append(row)
    source.close()
    batches = []
    for at in range(0, len(history), batch):
        rows = history[at:at + batch]
        batches.append((rows, [ca for h in rows for ca in by_action.get((h[0], h[1]), ())]))
    floor_path = work / "write-floor.db"
    raw = raw_sqlite(floor_path)
    for sql in schemas:
        raw.execute(sql)
    t0 = time.perf_counter()
    for rows, card_actions in batches:
        raw.execute("BEGIN")
        raw.executemany(INSERTS["history"], rows)
        raw.executemany(INSERTS["card_actions"], card_actions)
        raw.execute("COMMIT")
    dt = time.perf_counter() - t0
    raw.close()
    remove_db(floor_path)
    return len(history) / dt


def measure_rebuild(path: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", REBUILD_CHILD.format(root=str(ROOT), path=str(path))],
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    eps = result["events"] / result["seconds"]
    _rows, floor = rebuild_floor_sqlite(path)
    write_floor = rebuild_write_floor(path, path.parent)
    return {"rebuild_eps": eps, "rebuild_floor": floor, "rebuild_ratio": eps / floor, "rebuild_rss_mb": result["rss_mb"],
            "rebuild_write_floor": write_floor, "rebuild_write_ratio": eps / write_floor}


def measure_travel(path: Path, probes: int = 200) -> dict:
    from ledger.application import Ledger
    from projections.views import zones_view

    ledger = Ledger.open(path)
    cid = ledger.resolve(None)
    last = ledger.campaign(cid).seq
    rng = random.Random(7)
    times = []
    for _ in range(probes):
        seq = rng.randint(1, last)
        t0 = time.perf_counter()
        zones_view(ledger.campaign(cid, at=seq), "public")
        times.append((time.perf_counter() - t0) * 1000)
    ledger.close()
    return {"travel_p50_ms": pct(times, 0.5), "travel_p95_ms": pct(times, 0.95)}


def measure_undo(path: Path, count: int = 50) -> dict:
    from ledger import commands as c
    from ledger.application import Ledger

    ledger = Ledger.open(path)
    cid = ledger.resolve(None)
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        ledger.execute(cid, c.Undo())
        times.append((time.perf_counter() - t0) * 1000)
        ledger.execute(cid, c.Redo())
    ledger.close()
    return {"undo_p50_ms": pct(times, 0.5), "undo_p95_ms": pct(times, 0.95)}


def measure_verify(path: Path) -> dict:
    """``verify`` of the whole log as ``ledger verify`` runs it (in parts side by side, one
    process a core, from 20k actions on); it must say the log is intact."""
    from ledger.application import Ledger
    from ledger.audit import verify

    ledger = Ledger.open(path)
    cid = ledger.resolve(None)
    t0 = time.perf_counter()
    report = verify(ledger, cid)
    spent = time.perf_counter() - t0
    ledger.close()
    if not report.ok:
        raise RuntimeError(f"measure_verify: {path} does not verify: {report}")
    return {"verify_aps": report.actions / spent}


def _ledger_command() -> list[str]:
    """The installed `ledger` command, as a player types it (`python -m ledger` adds runpy's
    ~10 ms), if it is this checkout's; else `python -m ledger` run from this checkout."""
    script = Path(sys.executable).with_name("ledger")
    if script.exists():
        found = subprocess.run([sys.executable, "-c", "import ledger; print(ledger.__file__)"], cwd="/",
                               capture_output=True, text=True)
        if found.returncode == 0 and Path(found.stdout.strip()) == ROOT / "ledger" / "__init__.py":
            return [str(script)]
    return [sys.executable, "-m", "ledger"]


def measure_cli(path: Path, runs: int = 5) -> dict:
    """One `ledger draw` process by hero1 (undone after each run), from the asset deck
    holding the most cards, or one the depot refills (so the draw is legal); every
    draw and undo must succeed and record one action."""
    from ledger.application import Ledger
    from ledger.vocabulary import Zone

    ledger = Ledger.open(path)
    cid = ledger.resolve(None)
    campaign = ledger.campaign(cid)
    table = campaign.table
    in_depot = {campaign.card(x).suit for x in table.cards_in(Zone.DEPOT)}
    drawable = [z for z, spec in campaign.zones().items()
                if spec.is_deck and spec.owner is None and spec.suit is not None and spec.suit.is_asset
                and (table.cards_in(z) or spec.suit in in_depot)]
    if not drawable:
        ledger.close()
        raise RuntimeError(f"measure_cli: no asset deck of {path} has cards or a refill in the depot")
    deck = max(drawable, key=lambda z: len(table.cards_in(z)))
    ledger.close()

    def last_seq() -> int:
        ledger = Ledger.open(path)
        try:
            return ledger.last_seq(cid)
        finally:
            ledger.close()

    import tempfile

    command = _ledger_command()
    servers = Path(tempfile.mkdtemp(prefix="ledger-bench-daemon-"))  # no command server of the user's answers
    servers.chmod(0o700)
    env = {**os.environ, "LEDGER_DAEMON_DIR": str(servers), "LEDGER_DAEMON": "auto"}  # cold: none runs yet

    def ledger_cli(*args: str) -> float:
        """Runs one `ledger` process; its milliseconds, once it has recorded one action."""
        before = last_seq()
        t0 = time.perf_counter()
        done = subprocess.run([*command, "--db", str(path), *args],
                              check=False, capture_output=True, text=True, cwd=ROOT, env=env)
        ms = (time.perf_counter() - t0) * 1000
        after = last_seq()
        if done.returncode != 0 or after != before + 1:
            raise RuntimeError(f"measure_cli: `ledger {' '.join(args)}` exited {done.returncode} and took the "
                               f"campaign from seq {before} to {after} (one action expected): {done.stderr.strip()}")
        return ms

    # Bytecode as a regular install has it (pip compiles at install; an editable install
    # writes it on first import, unless PYTHONDONTWRITEBYTECODE is set, as on this machine:
    # then every run compiles ~55 modules again, a quarter of a command's time).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "ledger"), str(ROOT / "projections")],
                   check=True, capture_output=True)
    times = []
    for _ in range(runs):
        times.append(ledger_cli("--actor", "hero1", "draw", deck))
        ledger_cli("undo")
    helps = []
    for _ in range(2 * runs + 1):
        t0 = time.perf_counter()
        subprocess.run([*command, "--help"], check=True, capture_output=True, cwd=ROOT, env=env)
        helps.append((time.perf_counter() - t0) * 1000)
    # the same draws handed to a warm command server (`ledger daemon start`)
    subprocess.run([*command, "daemon", "start"], check=True, capture_output=True, cwd=ROOT,
                   env=env)
    try:
        warm = []
        for _ in range(runs):
            warm.append(ledger_cli("--actor", "hero1", "draw", deck))
            ledger_cli("undo")
    finally:
        subprocess.run([*command, "daemon", "stop"], check=True, capture_output=True,
                       cwd=ROOT, env=env)
        shutil.rmtree(servers, ignore_errors=True)
    return {"cli_ms": statistics.median(times), "cli_warm_ms": statistics.median(warm),
            "help_ms": statistics.median(helps)}


def measure_reads_and_size(path: Path) -> dict:
    """The reads that must stay flat, and bytes per event (tests/benchmarks/reads.py)."""
    from reads import LIMIT, measure_reads, measure_size

    ms = measure_reads(path)["ms"]
    size = measure_size(path)
    per = size["bytes_per_event"]
    return {
        "history_card_ms": ms[f"history --card QUIET --limit {LIMIT}"],
        "history_actor_ms": ms[f"history --actor QUIET --limit {LIMIT}"],
        "card_limit_ms": ms[f"card BUSY --limit {LIMIT}"],
        "explain_ms": ms["explain SEQ (random seqs)"],
        "bytes_event": size["file_bytes_per_event"],
        "bytes_log": per.get("stored_events", {}).get("total", 0),
        "bytes_models": size["read_models_bytes_per_event"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--dir", default="/tmp/ledger-bench")
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--json", dest="json_out", default=None, help="Also write the figures to this file.")
    args = parser.parse_args()
    work = Path(args.dir)
    work.mkdir(parents=True, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[int, dict] = {}
    smaller = None
    for size in sizes:
        base = work / f"campaign-{size}.db"
        print(f"campaign of {size:,} events", file=sys.stderr, flush=True)
        build(base, size, smaller)
        smaller = base
        trial = work / f"trial-{size}.db"
        copy_db(base, trial)
        figures = {}
        figures.update(measure_rebuild(trial))  # also leaves the read models caught up
        figures.update(measure_travel(trial))
        figures.update(measure_undo(trial))
        figures.update(measure_verify(trial))
        figures.update(measure_cli(trial))
        figures.update(measure_reads_and_size(trial))
        figures.update(measure_append(trial, work, args.appends))
        results[size] = figures
        print(json.dumps({size: figures}), file=sys.stderr, flush=True)
    report(results)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))


ROWS = [
    ("append, actions/s (ledger API, FULL)", "append_aps", "{:,.0f}"),
    ("  with the simulation choosing each command", "append_sim_aps", "{:,.0f}"),
    ("append floor: raw sqlite3 rows/s", "append_floor", "{:,.0f}"),
    ("append / floor", "append_ratio", "{:.2f}"),
    ("  the recorder alone, stored events already made, rows/s", "recorder_floor", "{:,.0f}"),
    ("  the recorder alone / floor", "recorder_ratio", "{:.2f}"),
    ("plain eventsourcing app, events/s", "plain_es_aps", "{:,.0f}"),
    ("append / plain eventsourcing", "vs_plain", "{:.2f}"),
    ("rebuild, events/s", "rebuild_eps", "{:,.0f}"),
    ("rebuild floor: read + JSON-decode rows/s", "rebuild_floor", "{:,.0f}"),
    ("rebuild / floor", "rebuild_ratio", "{:.3f}"),
    ("rebuild write floor: raw sqlite3 writing its history and card_actions rows, events/s", "rebuild_write_floor",
     "{:,.0f}"),
    ("rebuild / write floor", "rebuild_write_ratio", "{:.3f}"),
    ("rebuild peak RSS, MB", "rebuild_rss_mb", "{:.0f}"),
    ("time travel p50, ms", "travel_p50_ms", "{:.1f}"),
    ("time travel p95, ms", "travel_p95_ms", "{:.1f}"),
    ("undo p50, ms", "undo_p50_ms", "{:.1f}"),
    ("undo p95, ms", "undo_p95_ms", "{:.1f}"),
    ("verify, actions/s (in parts from 20k actions, one process a core)", "verify_aps", "{:,.0f}"),
    ("one `ledger draw` process, ms", "cli_ms", "{:.0f}"),
    ("  the same through the command server (at a terminal, from the second command on)", "cli_warm_ms", "{:.0f}"),
    ("`ledger --help`, ms", "help_ms", "{:.0f}"),
    ("history --card (a quiet card) --limit 20, ms", "history_card_ms", "{:.2f}"),
    ("history --actor (a quiet hero) --limit 20, ms", "history_actor_ms", "{:.2f}"),
    ("card (the busiest card) --limit 20, ms", "card_limit_ms", "{:.2f}"),
    ("explain SEQ, ms", "explain_ms", "{:.1f}"),
    ("file, bytes per event", "bytes_event", "{:,.0f}"),
    ("  of which the log (stored_events)", "bytes_log", "{:,.0f}"),
    ("  of which the read models", "bytes_models", "{:,.0f}"),
]


def report(results: dict[int, dict]) -> None:
    sizes = sorted(results)
    head = "| figure | " + " | ".join(f"{s:,} events" for s in sizes)
    if len(sizes) > 1:
        head += f" | {sizes[-1]:,} / {sizes[0]:,}"
    print(head + " | target |")
    print("|---" * (len(sizes) + (2 if len(sizes) > 1 else 1) + 1) + "|")
    for label, key, fmt in ROWS:
        cells = [fmt.format(results[s][key]) for s in sizes]
        line = f"| {label} | " + " | ".join(cells)
        if len(sizes) > 1:
            first, last = results[sizes[0]][key], results[sizes[-1]][key]
            line += f" | {last / first:.2f}x" if first else " | –"
        print(line + f" | {TARGETS.get(key, '')} |")
    print(f"\nmachine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, SQLite {sqlite3.sqlite_version}")


if __name__ == "__main__":
    main()
