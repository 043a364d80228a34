"""Benchmark: the table server (SERVER.md) under load — recorded actions/s, action
latency and live-stream delivery delay — beside the CLI's per-action cost, measured in
the same run (issue #12).

    python tests/benchmarks/server_load.py                 # 10 s, 50 streams, 4 clients (~25 s in all)
    python tests/benchmarks/server_load.py --seconds 20 --workers 2 --json figures.json

What it does: plays the demo campaign into a scratch file and opens seats for master,
public, ana and bo (``tests.server_support.table``); starts the real server
(``ledger serve``, ``tests.server_support.serving``); opens --streams SSE streams
(``GET /api/campaigns/demo/stream``), spread round-robin over the four seats, in one
child process; then --clients clients (asyncio tasks in this process, one keep-alive
connection each) record actions back to back for --warmup + --seconds. Every client
toggles cards only it touches, so its actions stay legal forever:

    ana     exhaust / restore item-sword         (her own table card)
    bo      restore / exhaust companion-wolf     (his own table card)
    master  send item-bow  scenario <-> limbo
    master  draw deck:skill --to scenario / bury the drawn card
    master  send event-festival  limbo <-> scenario        (5th client)
    master  send item-amulet  discard <-> limbo              (6th client)

Delivery delay: for each seq recorded in the measured window and each stream, the
stream's arrival time of that seq's ``action`` event minus the moment just before the
POST that recorded it was sent (``time.monotonic``: one clock for both processes).
Every stream must receive every seq recorded while it was open; missing ones are
counted. Afterwards, with the server stopped, the same file gives the CLI's cost per
action (``ledger --actor ana exhaust|restore item-sword`` processes), ``Ledger.execute``'s,
and the server's per-action work function by function (the clerk's functions called in
this process, wall and CPU time).

The load generator shares the machine's cores with the server, so it is kept lean: by
default bare asyncio HTTP/1.1 (``--http raw``: a POST is one write and a read of status
and body; a stream is an ``asyncio.Protocol`` that only scans for ``id:`` lines), about
a quarter of the CPU per action that ``httpx.AsyncClient`` needs (``--http httpx``). The
CPU seconds of the server (split into its event-loop thread and its other threads: the
clerk), of the action clients (this process), of the stream reader and of every other
process on the machine are read from /proc over the measured window and printed.

Not collected by pytest; prints figures, ratios and whether the targets are met.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

CAMPAIGN = "demo"
SEATS = ("master", "public", "ana", "bo")
TARGETS = {"actions_per_s": 300.0, "delivery_p95_ms": 250.0}
EVENT_ID = re.compile(rb"id: (\d+)\nevent: action\n")


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# -- the action clients' loops ------------------------------------------------------
class Loop:
    """One client's endless legal play: who it acts as and its next body."""

    def __init__(self, who: str, bodies: list[dict[str, Any]]):
        self.who, self.bodies, self.i = who, bodies, 0

    def next_body(self) -> dict[str, Any]:
        return self.bodies[self.i % len(self.bodies)]

    def done(self, reply: dict[str, Any] | None) -> None:
        self.i += 1


class DrawBury(Loop):
    """The master draws the top skill into the scenario, then buries it again."""

    def __init__(self) -> None:
        super().__init__("master", [])
        self.drawn: str | None = None

    def next_body(self) -> dict[str, Any]:
        if self.drawn is None:
            return {"action": "draw", "stack": "deck:skill", "to": "scenario"}
        return {"action": "bury", "cards": [self.drawn]}

    def done(self, reply: dict[str, Any] | None) -> None:
        if self.drawn is not None:
            self.drawn = None
        elif reply is not None:
            self.drawn = reply["events"][0]["changes"][0]["card"]


def loops(count: int) -> list[Loop]:
    def toggle(who: str, first: str, second: str, card: str) -> Loop:
        return Loop(who, [{"action": first, "cards": [card]}, {"action": second, "cards": [card]}])

    made = [
        toggle("ana", "exhaust", "restore", "item-sword"),
        toggle("bo", "restore", "exhaust", "companion-wolf"),
        Loop("master", [{"action": "send", "cards": ["item-bow"], "to": "scenario"},
                        {"action": "send", "cards": ["item-bow"], "to": "limbo"}]),
        DrawBury(),
        Loop("master", [{"action": "send", "cards": ["event-festival"], "to": "limbo"},
                        {"action": "send", "cards": ["event-festival"], "to": "scenario"}]),
        Loop("master", [{"action": "send", "cards": ["item-amulet"], "to": "limbo"},
                        {"action": "send", "cards": ["item-amulet"], "to": "discard"}]),
    ]
    if not 1 <= count <= len(made):
        raise SystemExit(f"--clients must be 1..{len(made)} (each client needs cards of its own)")
    return made[:count]


class RawConnection:
    """One keep-alive HTTP/1.1 connection on asyncio streams: writes a request, reads the
    status and the body (Content-Length or chunked), nothing more: the lean client."""

    def __init__(self, base: str):
        self.host, _, port = base.removeprefix("http://").partition(":")
        self.port = int(port or 80)
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, headers: bytes, body: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(b"POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\n"
                          b"Content-Length: %d\r\n\r\n%s" % (path.encode(), self.host.encode(), headers,
                                                                len(body), body))
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
        if length:
            data = await self.reader.readexactly(int(length.group(1)))
        else:  # chunked
            parts = []
            while size := int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16):
                parts.append((await self.reader.readexactly(size + 2))[:-2])
            await self.reader.readuntil(b"\r\n")
            data = b"".join(parts)
        if re.search(rb"(?i)\r\nconnection: *close", head):
            await self.close()
        return status, data

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.reader = self.writer = None


async def run_clients(base: str, tokens: dict[str, str], count: int, warmup: float, seconds: float,
                      http: str = "raw") -> tuple[list[tuple[int, float, float, bool]], dict[int, int]]:
    """Runs the clients; returns (seq, sent, replied, in the measured window) per recorded
    action, and the refused or failed POSTs by status."""
    import httpx

    path = f"/api/campaigns/{CAMPAIGN}/actions"
    records: list[tuple[int, float, float, bool]] = []
    failures: dict[int, int] = {}
    start = time.monotonic() + warmup
    end = start + seconds

    async def client(loop: Loop, pool: httpx.AsyncClient | None) -> None:
        raw = RawConnection(base)
        headers = {"Authorization": f"Bearer {tokens[loop.who]}"}
        raw_headers = f"Authorization: Bearer {tokens[loop.who]}\r\n".encode()
        try:
            while True:
                body = loop.next_body()
                sent = time.monotonic()
                if sent >= end:
                    return
                if pool is not None:
                    reply = await pool.post(base + path, json=body, headers=headers)
                    status, content = reply.status_code, reply.content
                else:
                    status, content = await raw.post(path, raw_headers, json.dumps(body).encode())
                replied = time.monotonic()
                if status == 200:
                    data = json.loads(content)
                    records.append((data["seq"], sent, replied, sent >= start))
                    loop.done(data)
                else:
                    failures[status] = failures.get(status, 0) + 1
                    if sum(failures.values()) == 1:
                        print(f"  refused: {status} {content[:200]!r} for {body}", file=sys.stderr)
                    loop.done(None)
        finally:
            await raw.close()

    if http == "httpx":
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        async with httpx.AsyncClient(limits=limits, timeout=30) as pool:
            await asyncio.gather(*(client(loop, pool) for loop in loops(count)))
    else:
        await asyncio.gather(*(client(loop, None) for loop in loops(count)))
    return records, failures


# -- the stream reader (a child process) -----------------------------------------------
def stream_reader() -> None:
    """``--role streams``: reads a JSON line (base, tokens, streams, http) from stdin,
    opens the streams, says ``ready``, and on a second line ({"last", "grace"}) waits
    until every stream has seen seq ``last`` (or ``grace`` seconds), then prints one JSON
    line: for each stream, its seat and the [seq, arrival] of every action event it got."""
    asyncio.run(_stream_reader(json.loads(sys.stdin.readline())))


class Heard:
    """What one stream received: (seq, arrival) of each action event, and why it ended."""

    def __init__(self, progress: asyncio.Event):
        self.got: list[tuple[int, float]] = []
        self.closed: str | None = None
        self.connected = asyncio.Event()
        self.progress = progress
        self._tail = b""

    def feed(self, chunk: bytes, now: float) -> None:
        """Whole SSE events only (an event's ``id:`` line is never split; the rest waits)."""
        buf = self._tail + chunk
        cut = buf.rfind(b"\n\n") + 2
        if cut >= 2:
            before = len(self.got)
            self.got.extend((int(m.group(1)), now) for m in EVENT_ID.finditer(buf, 0, cut))
            if b"event: closed" in buf[:cut]:
                self.closed = "closed by the server"
            buf = buf[cut:]
            if len(self.got) != before:
                self.progress.set()
        self._tail = buf

    def end(self, why: str) -> None:
        self.closed = self.closed or why
        self.connected.set()
        self.progress.set()


class RawStream(asyncio.Protocol):
    """One SSE stream on a bare asyncio transport: the leanest reader (no HTTP parsing
    beyond the status line; chunk-size lines fall between events and are skipped)."""

    def __init__(self, request: bytes, heard: Heard):
        self.request, self.heard, self.head = request, heard, b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.monotonic()
        if self.heard.connected.is_set():
            self.heard.feed(data, now)
            return
        self.head += data
        if b"\r\n\r\n" in self.head:
            head, _, rest = self.head.partition(b"\r\n\r\n")
            if head[9:12] != b"200":
                self.heard.end(f"status {head[9:12].decode()}")
                assert self.transport is not None
                self.transport.close()
                return
            self.heard.connected.set()
            self.heard.feed(rest, now)

    def connection_lost(self, exc: Exception | None) -> None:
        self.heard.end(f"connection lost: {exc}" if exc else "ended")


async def _stream_reader(conf: dict[str, Any]) -> None:
    import httpx

    base, path = conf["base"], f"/api/campaigns/{CAMPAIGN}/stream"
    seats = [SEATS[i % len(SEATS)] for i in range(conf["streams"])]
    progress = asyncio.Event()
    heard = [Heard(progress) for _ in seats]
    host, _, port = base.removeprefix("http://").partition(":")

    async def read_httpx(i: int, pool: httpx.AsyncClient) -> None:
        headers = {"Authorization": f"Bearer {conf['tokens'][seats[i]]}"}
        try:
            async with pool.stream("GET", base + path, headers=headers) as reply:
                if reply.status_code != 200:
                    heard[i].end(f"status {reply.status_code}")
                    return
                heard[i].connected.set()
                async for chunk in reply.aiter_raw():
                    heard[i].feed(chunk, time.monotonic())
            heard[i].end("ended")
        except Exception as exc:  # noqa: BLE001 — reported, not raised
            heard[i].end(f"{type(exc).__name__}: {exc}")

    async def read_raw(i: int) -> asyncio.Transport:
        request = (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n"
                   f"Authorization: Bearer {conf['tokens'][seats[i]]}\r\n\r\n").encode()
        transport, _ = await asyncio.get_running_loop().create_connection(
            lambda: RawStream(request, heard[i]), host, int(port))
        return transport

    limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
    async with httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(30, read=None)) as pool:
        if conf["http"] == "httpx":
            tasks = [asyncio.create_task(read_httpx(i, pool)) for i in range(len(seats))]
            transports = []
        else:
            tasks, transports = [], [await read_raw(i) for i in range(len(seats))]
        await asyncio.gather(*(h.connected.wait() for h in heard))
        print("ready", flush=True)
        line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        stop = json.loads(line)
        deadline = time.monotonic() + stop["grace"]
        while time.monotonic() < deadline:
            if all(h.closed or (h.got and h.got[-1][0] >= stop["last"]) for h in heard):
                break
            progress.clear()
            try:
                await asyncio.wait_for(progress.wait(), max(0.01, deadline - time.monotonic()))
            except TimeoutError:
                break
        for transport in transports:
            transport.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    out = {"seats": seats, "got": [h.got for h in heard],
           "closed": [h.closed for h in heard if h.closed and h.closed not in ("ended", "connection lost: None")]}
    sys.stdout.write(json.dumps(out) + "\n")
    sys.stdout.flush()


# -- CPU accounting ----------------------------------------------------------------
TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str] | None:
    return _stat_path(f"/proc/{pid}/stat")


def _stat_path(path: str) -> list[str] | None:
    try:
        text = Path(path).read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()  # fields from the 3rd (state) on


def cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return 0.0 if fields is None else (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def thread_cpu(pids: list[int]) -> tuple[float, float]:
    """CPU seconds of the processes' main threads (a uvicorn worker's event loop) and of
    their other threads (the clerk's)."""
    main = other = 0.0
    for pid in pids:
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            fields = _stat_path(f"/proc/{pid}/task/{tid}/stat")
            if fields is None:
                continue
            spent = (int(fields[11]) + int(fields[12])) / TICK
            if int(tid) == pid:
                main += spent
            else:
                other += spent
    return main, other


def machine_busy() -> float:
    """CPU seconds the whole machine has spent busy (all cores, /proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / TICK


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it (uvicorn's workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, []))
    return found


def problems_in(lines: Any) -> list[str]:
    """The lines of the server's log that say something went wrong."""
    found = []
    for raw in lines:
        line = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
        if "Traceback" in line or "ERROR" in line or "WARNING" in line or '" 500' in line:
            found.append(line.rstrip())
    return found


# -- the CLI's and the in-process costs ------------------------------------------------
def ready_sword(db: Path) -> None:
    """Leaves ana's sword as the timed loops begin: not exhausted (the load may have
    stopped either way)."""
    from ledger import commands as c
    from ledger.application import Ledger

    ledger = Ledger.open(db)
    cid = ledger.resolve(CAMPAIGN)
    if "item-sword" in ledger.campaign(cid).table.exhausted:
        ledger.execute(cid, c.Restore(actor="ana", cards=["item-sword"]))
    ledger.close()


def measure_cli(db: Path, runs: int) -> dict[str, float]:
    ready_sword(db)
    times = []
    for i in range(runs):
        action = "exhaust" if i % 2 == 0 else "restore"
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "ledger", "--db", str(db), "--actor", "ana", action,
                               "item-sword"], check=False, capture_output=True, text=True, cwd=ROOT)
        times.append((time.perf_counter() - t0) * 1000)
        if done.returncode != 0:
            raise RuntimeError(f"ledger {action} failed: {done.stderr}")
    return {"cli_ms": statistics.median(times), "cli_p95_ms": pct(times, 0.95)}


def measure_inprocess(db: Path, tokens: dict[str, str], count: int, streams: int) -> dict[str, float]:
    """Per action, wall and CPU: ``Ledger.execute`` alone; then, on a clerk's own thread,
    the clerk's work for one POST (seat lookup and slug; app.py's ``record``: execute,
    read models, checkpoint and the reply's view), the follower's (fold and one view per
    viewer) and the event loop's JSON encoding of each stream's copy."""
    from ledger.application import Ledger
    from ledger.interface.server.clerk import Clerk

    count += count % 2  # each loop ends where the next begins: the sword not exhausted
    ready_sword(db)
    ledger = Ledger.open(db)
    cid = ledger.resolve(CAMPAIGN)
    figures: dict[str, float] = {}
    ledger.execute(cid, sword(0)), ledger.execute(cid, sword(1))
    spent = Spent()
    with spent():
        for i in range(count):
            ledger.execute(cid, sword(i))
    spent.put(figures, "execute", count)
    ledger.close()

    clerk = Clerk(str(db))
    _clerk_costs(clerk, cid, tokens, count, streams, figures)
    clerk.close()
    return figures


def sword(i: int) -> Any:
    from ledger import commands as c

    return (c.Exhaust if i % 2 == 0 else c.Restore)(actor="ana", cards=["item-sword"])


class Spent:
    """Wall and CPU time (of the calling thread) spent inside ``with spent():``, summed."""

    def __init__(self) -> None:
        self.wall = self.cpu = 0.0

    @contextlib.contextmanager
    def __call__(self) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            self.wall += time.perf_counter() - wall
            self.cpu += time.thread_time() - cpu

    def put(self, figures: dict[str, float], name: str, items: int) -> None:
        """``NAME_ms`` (wall) and ``NAME_cpu_ms`` per item."""
        figures[f"{name}_ms"] = self.wall * 1000 / max(items, 1)
        figures[f"{name}_cpu_ms"] = self.cpu * 1000 / max(items, 1)


def _clerk_costs(clerk: Any, cid: Any, tokens: dict[str, str], count: int, streams: int,
                 figures: dict[str, float]) -> None:
    from ledger.interface.server.live import Follower, Stream
    from projections.views import recorded_view

    seat = clerk.seats.find(tokens["ana"])
    clerk.slug(cid)
    spent = Spent()
    with spent():
        for _ in range(count):
            clerk.seats.find(tokens["ana"])
            clerk.slug(cid)
    spent.put(figures, "seat", count)

    def record(i: int, catch_up: bool = True) -> Any:  # app.py's record() (catch_up: as it was at first)
        rec = clerk.ledger.execute(cid, sword(i))
        if catch_up:
            clerk.model(rec)
        checkpoint = clerk.checkpoint(cid, rec.seq, rec.event.hash)
        return recorded_view(rec.event, rec.campaign, seat.viewer, checkpoint)

    record(0), record(1)
    for name, catch_up in (("record", True), ("record_no_model", False)):
        spent = Spent()
        with spent():
            for i in range(count):
                record(i, catch_up)
        spent.put(figures, name, count)
    clerk.model()
    spent = Spent()  # the read models caught up once per 20 actions: the catch-ups alone timed
    for i in range(count):
        record(i, catch_up=False)
        if i % 20 == 19 or i == count - 1:
            with spent():
                clerk.model()
    spent.put(figures, "model_every_20", count)

    figures.update(dict.fromkeys(("follow_ms", "follow_cpu_ms", "follow_batch_ms", "follow_batch_cpu_ms",
                                  "encode_ms", "encode_cpu_ms", "event_bytes"), 0.0))
    if not streams:
        return
    follower = Follower(clerk)
    follower._follow(cid)
    found = [clerk.seats.find(tokens[SEATS[i % len(SEATS)]]) for i in range(streams)]
    follower.streams[cid] = {Stream(s) for s in found}
    follower._poll()  # caught up
    spent = Spent()
    for i in range(count):  # a poll per action (the most it can cost: under load polls are paced)
        record(i, catch_up=False)
        with spent():
            follower._poll()
    spent.put(figures, "follow", count)
    for i in range(count):
        record(i, catch_up=False)
    spent = Spent()
    with spent():  # one poll for them all
        sends = follower._poll()
    spent.put(figures, "follow_batch", count)
    payloads = [p for _s, p in sends[-streams:] if p is not None]
    if payloads and isinstance(payloads[0], str):  # a follower that encodes each view once: nothing left to do
        figures["event_bytes"] = statistics.mean(len(p) for p in payloads)
        return
    spent = Spent()
    with spent():
        for _ in range(20):
            for data in payloads:
                f"id: {data['seq']}\nevent: action\ndata: {json.dumps(data)}\n\n"
    spent.put(figures, "encode", 20)
    figures["event_bytes"] = statistics.mean(len(json.dumps(p)) for p in payloads)


def measure_commit_floor(folder: Path, count: int) -> dict[str, float]:
    """One durable commit (raw sqlite3, WAL, synchronous=FULL: an fsync) in the same folder."""
    import sqlite3

    path = folder / "commit-floor.db"
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("PRAGMA journal_mode=WAL")
    raw.execute("PRAGMA synchronous=FULL")
    raw.execute("CREATE TABLE t (state BLOB)")
    t0 = time.perf_counter()
    for _ in range(count):
        raw.execute("BEGIN IMMEDIATE")
        raw.execute("INSERT INTO t VALUES (?)", (b"x" * 600,))
        raw.execute("COMMIT")
    spent = (time.perf_counter() - t0) * 1000 / count
    raw.close()
    return {"commit_floor_ms": spent}


# -- the run -----------------------------------------------------------------------------
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="measured load (default 10)")
    parser.add_argument("--warmup", type=float, default=1.0, help="load before measuring (default 1)")
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--clients", type=int, default=4, help="1..6 (default 4)")
    parser.add_argument("--workers", type=int, default=1, help="ledger serve --workers (default 1)")
    parser.add_argument("--http", default="raw", choices=["raw", "httpx"],
                        help="the load generator's HTTP: bare asyncio (default, the leanest) or httpx.AsyncClient")
    parser.add_argument("--cli-runs", type=int, default=6, help="ledger processes timed (default 6)")
    parser.add_argument("--inprocess", type=int, default=200, help="actions timed in process (default 200)")
    parser.add_argument("--grace", type=float, default=5.0, help="seconds streams may take to catch up")
    parser.add_argument("--dir", default=None, help="keep the campaign file here (default: a temporary folder)")
    parser.add_argument("--json", dest="json_out", default=None, help="also write the figures to this file")
    parser.add_argument("--role", default="main", choices=["main", "streams"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.role == "streams":
        stream_reader()
        return
    loops(args.clients)  # refuses a count it cannot play
    if args.dir:
        Path(args.dir).mkdir(parents=True, exist_ok=True)
        for old in Path(args.dir).glob("demo.db*"):
            old.unlink()
        figures = run(Path(args.dir), args)
    else:
        with tempfile.TemporaryDirectory(prefix="ledger-load-") as tmp:
            figures = run(Path(tmp), args)
    report(figures, args)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2))


def run(tmp: Path, args: argparse.Namespace) -> dict[str, Any]:
    from tests.server_support import server as serving
    from tests.server_support import table

    t0 = time.perf_counter()
    seated = table(tmp)
    print(f"demo played, seats open ({time.perf_counter() - t0:.1f} s)", file=sys.stderr, flush=True)
    figures: dict[str, Any] = {}
    with serving(seated.db, args.workers, tmp) as (base, proc, logged):  # the ``ledger serve`` child, its log
        kept: list[bytes] = []
        server = descendants(proc.pid)
        reader = subprocess.Popen([sys.executable, __file__, "--role", "streams"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, cwd=ROOT)
        assert reader.stdin is not None and reader.stdout is not None
        reader.stdin.write(json.dumps({"base": base, "tokens": seated.tokens, "streams": args.streams,
                                        "http": args.http}) + "\n")
        reader.stdin.flush()
        if reader.stdout.readline().strip() != "ready":
            raise RuntimeError("the stream reader did not start")
        print(f"{args.streams} streams open; {args.clients} clients recording for "
              f"{args.warmup:g} + {args.seconds:g} s", file=sys.stderr, flush=True)

        cpu: dict[str, float] = {}
        window: dict[str, float] = {}

        async def load() -> Any:
            async def sample(at: float, name: str) -> None:
                await asyncio.sleep(max(0.0, at - time.monotonic()))
                server_now = descendants(server[0])  # workers included
                cpu[name + "_server"] = sum(cpu_seconds(p) for p in server_now)
                cpu[name + "_loop"], cpu[name + "_threads"] = thread_cpu(server_now)
                cpu[name + "_clients"] = cpu_seconds(os.getpid())
                cpu[name + "_reader"] = cpu_seconds(reader.pid)
                cpu[name + "_machine"] = machine_busy()
                window[name] = time.monotonic()

            started = time.monotonic()
            tasks = [asyncio.create_task(sample(started + args.warmup, "start")),
                     asyncio.create_task(sample(started + args.warmup + args.seconds, "end"))]
            result = await run_clients(base, seated.tokens, args.clients, args.warmup, args.seconds, args.http)
            await asyncio.gather(*tasks)
            return result

        records, failures = asyncio.run(load())
        last = max(seq for seq, *_ in records)
        reader.stdin.write(json.dumps({"last": last, "grace": args.grace}) + "\n")
        reader.stdin.flush()
        heard = json.loads(reader.stdout.readline())
        reader.wait(10)
        kept = Path(logged).read_bytes().splitlines()
    problems = problems_in(kept)

    # -- the figures of the load ----------------------------------------------------
    measured = [r for r in records if r[3]]
    span = window["end"] - window["start"]
    fifth = span / 5
    first = sum(1 for r in measured if r[1] < window["start"] + fifth) / fifth
    last_fifth = sum(1 for r in measured if r[1] >= window["end"] - fifth) / fifth
    latencies = [(replied - sent) * 1000 for _seq, sent, replied, _m in measured]
    sent_at = {seq: sent for seq, sent, _r, _m in records}
    replied_at = {seq: replied for seq, _s, replied, _m in records}
    measured_seqs = {seq for seq, *_ in measured}
    delays, after_reply, missing, extra = [], [], 0, 0
    for got in heard["got"]:
        arrivals = {seq: at for seq, at in got}
        missing += sum(1 for seq in sent_at if seq not in arrivals)
        extra += sum(1 for seq in arrivals if seq not in sent_at)
        for seq in measured_seqs:
            if seq in arrivals:
                delays.append((arrivals[seq] - sent_at[seq]) * 1000)
                after_reply.append((arrivals[seq] - replied_at[seq]) * 1000)
    server_cpu = cpu["end_server"] - cpu["start_server"]
    loop_cpu = cpu["end_loop"] - cpu["start_loop"]
    threads_cpu = cpu["end_threads"] - cpu["start_threads"]
    client_cpu = cpu["end_clients"] - cpu["start_clients"]
    reader_cpu = cpu["end_reader"] - cpu["start_reader"]
    other_cpu = max(0.0, cpu["end_machine"] - cpu["start_machine"] - server_cpu - client_cpu - reader_cpu)
    figures.update({
        "actions": len(measured), "seconds": span, "actions_per_s": len(measured) / span,
        "first_fifth_per_s": first, "last_fifth_per_s": last_fifth,
        "failures": failures, "latency_p50_ms": pct(latencies, 0.5), "latency_p95_ms": pct(latencies, 0.95),
        "latency_max_ms": max(latencies, default=float("nan")),
        "delivery_p50_ms": pct(delays, 0.5), "delivery_p95_ms": pct(delays, 0.95),
        "delivery_max_ms": max(delays, default=float("nan")),
        "after_reply_p50_ms": pct(after_reply, 0.5), "after_reply_p95_ms": pct(after_reply, 0.95),
        "deliveries": len(delays), "expected_deliveries": len(sent_at) * len(heard["got"]),
        "missing": missing, "unexpected": extra,
        "streams_closed": heard["closed"], "server_problems": problems[:20],
        "server_cpu_s": server_cpu, "loop_cpu_s": loop_cpu, "threads_cpu_s": threads_cpu, "client_cpu_s": client_cpu, "reader_cpu_s": reader_cpu,
        "other_cpu_s": other_cpu,
        "cores": os.cpu_count(), "workers": args.workers, "streams": args.streams, "clients": args.clients, "http": args.http,
    })

    # -- the CLI and the in-process costs, server stopped, same file --------------------
    print("timing the CLI and the in-process costs", file=sys.stderr, flush=True)
    figures.update(measure_cli(seated.db, args.cli_runs))
    figures.update(measure_inprocess(seated.db, seated.tokens, args.inprocess, args.streams))
    figures.update(measure_commit_floor(tmp, args.inprocess))
    return figures


def report(f: dict[str, Any], args: argparse.Namespace) -> None:
    span, n = f["seconds"], max(f["actions"], 1)
    cores = f["cores"] or 1

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"

    def both(name: str) -> str:  # wall (CPU) per action
        return f"{f[name + '_ms']:.2f} ({f[name + '_cpu_ms']:.2f})"

    aps_ok = f["actions_per_s"] >= TARGETS["actions_per_s"]
    delivery_ok = f["delivery_p95_ms"] <= TARGETS["delivery_p95_ms"] or not f["streams"]
    complete = f["missing"] == 0 and not f["streams_closed"]
    per = 1000 / n
    model_ms, model_cpu = f["record_ms"] - f["record_no_model_ms"], f["record_cpu_ms"] - f["record_no_model_cpu_ms"]
    load = [
        ("recorded actions/s", f"{f['actions_per_s']:,.0f}", f">= {TARGETS['actions_per_s']:.0f}: {met(aps_ok)}"),
        ("actions/s in the window's first / last fifth", f"{f['first_fifth_per_s']:,.0f} / {f['last_fifth_per_s']:,.0f}",
         "a rate that falls as the log grows shows here"),
        ("actions recorded in the window / refused or failed", f"{f['actions']:,} / {sum(f['failures'].values()):,}",
         ""),
        ("action latency p50 / p95 / max, ms (POST round trip)",
         f"{f['latency_p50_ms']:.1f} / {f['latency_p95_ms']:.1f} / {f['latency_max_ms']:.0f}", ""),
        ("stream delivery p50 / p95 / max, ms (from just before the POST)",
         f"{f['delivery_p50_ms']:.1f} / {f['delivery_p95_ms']:.1f} / {f['delivery_max_ms']:.0f}",
         f"p95 <= {TARGETS['delivery_p95_ms']:.0f}: {met(delivery_ok)}"),
        ("stream delivery after the POST's reply p50 / p95, ms",
         f"{f['after_reply_p50_ms']:.1f} / {f['after_reply_p95_ms']:.1f}", ""),
        ("deliveries received / expected (missing)",
         f"{f['expected_deliveries'] - f['missing']:,} / {f['expected_deliveries']:,} ({f['missing']:,})",
         "every stream got every seq: " + ("yes" if complete else "NO")),
        ("stream events sent per s (actions x streams)", f"{f['actions_per_s'] * f['streams']:,.0f}", ""),
    ]
    cpu = [
        ("server: event-loop thread (the clerk's work included) + other threads = total, core-s",
         f"{f['loop_cpu_s']:.1f} + {f['threads_cpu_s']:.1f} = {f['server_cpu_s']:.1f}",
         f"{f['server_cpu_s'] / span:.2f} cores busy"),
        ("server CPU per action, ms: event loop + other threads = total",
         f"{f['loop_cpu_s'] * per:.2f} + {f['threads_cpu_s'] * per:.2f} = {f['server_cpu_s'] * per:.2f}",
         (f"a process runs its Python on ~1 core (one GIL): <= {1000 / max(f['server_cpu_s'] * per, 1e-9):,.0f} "
          "actions/s at this cost" + (" with one worker" if f["workers"] > 1 else ""))),
        ("load generator: action clients + stream reader, core-s",
         f"{f['client_cpu_s']:.1f} + {f['reader_cpu_s']:.1f}",
         f"{(f['client_cpu_s'] + f['reader_cpu_s']) * per:.2f} ms per action"),
        ("other processes on the machine, core-s", f"{f['other_cpu_s']:.1f}",
         f"of {cores * span:.1f} core-s in the window"),
    ]
    costs = [
        ("one `ledger --actor ana exhaust|restore` process, ms (median / p95)",
         f"{f['cli_ms']:.0f} / {f['cli_p95_ms']:.0f}", "interpreter start and imports included"),
        ("Ledger.execute, ms per action, wall (CPU)", both("execute"), "one durable commit"),
        ("floor: one durable commit (raw sqlite3, WAL, FULL), ms", f"{f['commit_floor_ms']:.2f}", "an fsync"),
        ("clerk, per request: seat lookup + slug, wall (CPU)", both("seat"), "a seats-log query each time"),
        ("clerk, per POST: record() with the read models caught up at each action, wall (CPU)", both("record"),
         "execute + read models + checkpoint + view"),
        ("  of which the read models' catch-up, wall (CPU)", f"{model_ms:.2f} ({model_cpu:.2f})",
         "a second durable commit, and the fold checked card by card"),
        ("  the read models caught up once per 20 actions instead (as the server does), per action",
         both("model_every_20"), "live.MODEL_EVERY: in batches under load"),
        (f"follower, a poll per action ({f['streams']} streams, 4 viewers), wall (CPU)", both("follow"),
         "a POST wakes it; under load it looks at most every live.PACE"),
        (f"follower, one poll for {args.inprocess} actions, per action, wall (CPU)", both("follow_batch"), ""),
        (f"event loop: JSON-encode one action for {f['streams']} streams, wall (CPU)", both("encode"),
         f"{f['event_bytes']:,.0f} bytes per event"),
    ]
    ratios = [
        ("HTTP action latency p50 / Ledger.execute wall", f"{f['latency_p50_ms'] / f['execute_ms']:.1f}x", ""),
        ("server CPU per action / Ledger.execute CPU", f"{f['server_cpu_s'] * per / f['execute_cpu_ms']:.1f}x", ""),
        ("HTTP actions/s / CLI processes per s", f"{f['actions_per_s'] * f['cli_ms'] / 1000:.0f}x", ""),
        ("HTTP actions/s / Ledger.execute per s (one thread)", f"{f['actions_per_s'] * f['execute_ms'] / 1000:.2f}",
         ""),
    ]
    print(f"\n{f['streams']} streams over {', '.join(SEATS)}; {f['clients']} clients; ledger serve --workers "
          f"{f['workers']}; {span:.1f} s measured after {args.warmup:g} s of warm-up; load generator HTTP: {f['http']}")
    for title, rows in (("the server under load", load), ("CPU in the measured window (/proc)", cpu),
                        ("per-action costs, same file, server stopped", costs), ("ratios", ratios)):
        print(f"\n| {title} | value | target / note |\n|---|---|---|")
        for label, value, note in rows:
            print(f"| {label} | {value} | {note} |")
    if f["failures"]:
        print(f"\nrefused or failed POSTs by status: {f['failures']}")
    if f["server_problems"]:
        print("\nthe server logged:\n  " + "\n  ".join(f["server_problems"]))
    if f["streams_closed"]:
        print(f"\nstreams that ended early: {f['streams_closed']}")
    print(f"\nCPU accounting: the load generator shares the {cores} cores with the server. Its CPU (this "
          "process: the action clients; one child process: the stream reader) and the server's (ledger serve "
          "and its workers, split by thread) are read from /proc over the measured window: together "
          f"{(f['server_cpu_s'] + f['client_cpu_s'] + f['reader_cpu_s']) / span:.2f} of {cores} cores, other "
          f"processes {f['other_cpu_s'] / span:.2f}. A busy machine measures less; the CPU per action figures "
          "vary less than the rates. Delivery times include the stream reader's own lag.")
    print(f"targets: {TARGETS['actions_per_s']:.0f} actions/s {met(aps_ok)}; delivery p95 "
          f"<= {TARGETS['delivery_p95_ms']:.0f} ms {met(delivery_ok)}; every stream got every action: "
          + ("yes" if complete else "NO"))
    print(f"machine: {cores} cores, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
