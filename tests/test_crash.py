"""Crash safety: a child process records actions on a real SQLite campaign file and is
killed with SIGKILL at random moments; the campaign is continued by the next child.

Two kinds of child take turns:

- a small script (``CHILD_SCRIPT``, run with ``python -c``) that plays random legal
  actions through the Python API (``Ledger.open`` + ``start_simulation`` + one
  ``simulate(..., actions=1)`` at a time), prints ``committed SEQ`` (flushed) after
  each action returns, and brings the read models up to date every other action, as
  a ``ledger`` command does after recording; it is killed 0.05-1.0 s after it says
  it is ready;
- every fourth time, the real command ``ledger --db PATH --json simulate --actions
  100000 --seed S``, killed 0.05-1.5 s after it starts (it never gets to update the
  read models, so they are left far behind).

After each kill (the ``ledger`` commands run by the parent, in its own process, on the
file the killed child left; the campaign file is on disk, see ``disk_tmp_path``):

- ``ledger --db PATH verify`` exits 0 (hash chain intact, every action replays, seqs
  contiguous), and the parent finds seqs 1..last, all readable;
- every seq the child reported as committed is in the log (nothing lost), and the
  log never shrinks between kills;
- nothing half-written is visible: no snapshot beyond the last action, one campaign
  registered, and the read-model tables as the kill left them are exactly the fold
  of the log up to the position they record (history 1..k, cards and zones = the
  campaign at seq k);
- the read models catch up on the next command: ``ledger --db PATH --json history
  --limit 1`` returns the last seq, then ``cards``/``zones``/``history`` equal the
  fold of the whole log and the position is the last notification;
- no "database is locked" (or any other error) reaches the user.

``LEDGER_SOAK_KILLS`` sets the number of kills (default 20); ``LEDGER_CRASH_SEED``
fixes the random delays and seeds (the seed used is printed). For 200+ kills run
``python tests/soak/run_crash_soak.py``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ledger.application import Ledger
from projections.readmodel import NAME, card_row, zone_row

from .conftest import run_ledger

ROOT = Path(__file__).resolve().parents[1]
KILLS = int(os.environ.get("LEDGER_SOAK_KILLS", "20"))
SEED = int(os.environ.get("LEDGER_CRASH_SEED", str(random.randrange(2**31))))
CLI_EVERY = 4  # every fourth child is the real `ledger simulate` command

CHILD_SCRIPT = r"""
import sys
from ledger.application import Ledger
from ledger.interface.simulate import simulate, start_simulation
from projections.readmodel import ReadModel

path, seed = sys.argv[1], int(sys.argv[2])
ledger = Ledger.open(path, create=True)
cid = start_simulation(ledger, heroes=3, seed=seed) if not ledger.campaigns() else ledger.resolve(None)
model = ReadModel(ledger, path)
print("ready", ledger.last_seq(cid), flush=True)
n = 0
while True:
    simulate(ledger, cid, actions=1, seed=seed * 1_000_003 + n)
    n += 1
    print("committed", ledger.last_seq(cid), flush=True)
    if n % 2 == 0:
        model.safe_catch_up()
"""


@dataclass
class Cycle:
    """One child, killed: what it reported and what the checks found."""

    number: int
    kind: str
    delay: float
    reported: list[int] = field(default_factory=list)
    before: int = 0  # last seq before the child
    after: int = 0  # last seq after the kill
    lost: list[int] = field(default_factory=list)
    verify_ok: bool = True
    problems: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return (f"kill {self.number} ({self.kind}, {self.delay:.2f}s): log {self.before} -> {self.after}, "
                f"child reported up to {max(self.reported, default=None)}")


@dataclass
class Figures:
    kills: int = 0
    committed: int = 0
    reported: int = 0
    lost: int = 0
    verify_failures: int = 0
    failed_kills: int = 0

    def summary(self) -> str:
        return (f"kills: {self.kills}, actions committed: {self.committed}, lost: {self.lost}, "
                f"verify failures: {self.verify_failures}")

    def details(self) -> str:
        return f"reported committed by the children: {self.reported}, kills with problems: {self.failed_kills}"


def _child_env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("LEDGER_DB", None)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


class CrashRig:
    """Runs children on one campaign file, kills them, and checks the file after each."""

    def __init__(self, path: Path, seed: int):
        self.path = Path(path)
        self.rng = random.Random(seed)
        self.figures = Figures()
        self.last = 0

    # -- one child ---------------------------------------------------------------
    def cycle(self, number: int) -> Cycle:
        use_cli = self.last > 0 and number % CLI_EVERY == CLI_EVERY - 1
        child_seed = self.rng.randrange(2**31)
        if use_cli:
            delay = self.rng.uniform(0.05, 1.5)
            argv = [sys.executable, "-m", "ledger", "--db", str(self.path), "--json", "simulate",
                    "--actions", "100000", "--seed", str(child_seed)]
        else:
            delay = self.rng.uniform(0.05, 1.0)
            argv = [sys.executable, "-c", CHILD_SCRIPT, str(self.path), str(child_seed)]
        cycle = Cycle(number, "ledger simulate" if use_cli else "script", delay, before=self.last)

        lines: list[str] = []
        errors: list[str] = []
        ready = threading.Event()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                cwd=ROOT, env=_child_env())

        def read_out() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                if line.startswith("ready"):
                    ready.set()
            ready.set()

        def read_err() -> None:
            assert proc.stderr is not None
            errors.append(proc.stderr.read())

        readers = [threading.Thread(target=read_out, daemon=True), threading.Thread(target=read_err, daemon=True)]
        for reader in readers:
            reader.start()
        if not use_cli:
            if not ready.wait(timeout=120):
                cycle.problems.append("the child never said it was ready")
        time.sleep(delay)
        alive = proc.poll() is None
        if alive:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
        for reader in readers:
            reader.join(timeout=60)
        if not alive or proc.returncode != -signal.SIGKILL:
            cycle.problems.append(
                f"the child ended by itself (exit {proc.returncode}) before the kill: {''.join(errors)[-2000:]}"
            )
        # a line the kill cut short ("committed" without its seq, or no newline) was never reported
        cycle.reported = [int(parts[1]) for line in lines if line.endswith("\n")
                          and len(parts := line.split()) == 2 and parts[0] == "committed" and parts[1].isdigit()]
        self.figures.kills += 1 if alive else 0
        self.check(cycle)
        self.figures.reported += len(cycle.reported)
        self.figures.lost += len(cycle.lost)
        self.figures.verify_failures += 0 if cycle.verify_ok else 1
        self.figures.committed += max(0, cycle.after - cycle.before)
        self.figures.failed_kills += 1 if cycle.problems else 0
        self.last = max(self.last, cycle.after)
        return cycle

    # -- the checks after a kill ---------------------------------------------------
    def check(self, cycle: Cycle) -> None:
        problems = cycle.problems
        app = Ledger.open(self.path)
        try:
            entries = app.campaigns()
            if len(entries) != 1:
                problems.append(f"{len(entries)} campaigns registered, expected 1")
                return
            cid = entries[0].campaign_id
            seqs = [event.seq for event in app.actions(cid)]  # every stored action decodes
            last = seqs[-1] if seqs else 0
            cycle.after = last
            if seqs != list(range(1, last + 1)):
                problems.append(f"the log's seqs are not 1..{last}: {_gaps(seqs)}")
            if last < cycle.before:
                problems.append(f"the log shrank from seq {cycle.before} to {last}")
            cycle.lost = [seq for seq in cycle.reported if seq > last]
            if cycle.lost:
                problems.append(f"the child reported seqs {cycle.lost[:5]}... as committed, the log ends at {last}")
            if cycle.reported != sorted(cycle.reported):
                problems.append("the child's reported seqs go backwards")
            snapshots = [s.originator_version for s in app.snapshots.recorder.select_events(cid)]  # type: ignore[union-attr]
            if snapshots and max(snapshots) > last:
                problems.append(f"a snapshot at seq {max(snapshots)} is past the last action {last}")
            # the read models as the kill left them: the fold up to their own position
            self.check_read_models(app, cid, problems, caught_up=False)
        finally:
            app.close()

        done = run_ledger("--json", "verify", db=self.path)
        if done.returncode != 0:
            cycle.verify_ok = False
            problems.append(f"ledger verify exited {done.returncode}: {done.stdout.strip()} {done.stderr.strip()}")
        else:
            report = json.loads(done.stdout)
            if not report["ok"] or report["actions"] != last:
                cycle.verify_ok = False
                problems.append(f"ledger verify reports {report}, the log holds {last} actions")
        _no_error_text(done, "verify", problems)

        done = run_ledger("--json", "history", "--limit", "1", db=self.path)
        if done.returncode != 0:
            problems.append(f"ledger history exited {done.returncode}: {done.stderr.strip()}")
        else:
            rows = json.loads(done.stdout)
            if [row["seq"] for row in rows] != [last]:
                problems.append(f"ledger history --limit 1 shows {[r['seq'] for r in rows]}, the log ends at {last}")
        _no_error_text(done, "history", problems)

        app = Ledger.open(self.path)
        try:
            self.check_read_models(app, cid, problems, caught_up=True)
        finally:
            app.close()

    def check_read_models(self, app: Ledger, cid, problems: list[str], caught_up: bool) -> None:
        """The read-model tables equal the fold of the log up to their position (all
        of it once ``caught_up``): nothing half-applied is visible."""
        when = "after the next command" if caught_up else "as the kill left them"
        tables = read_tables(self.path)
        if tables is None:
            if caught_up:
                problems.append("the read-model tables do not exist after a command")
            return
        position, history, cards, zones = tables
        top = app.recorder.max_notification_id() or 0
        if caught_up and position != top:
            problems.append(f"read models {when}: position {position}, the log's last notification is {top}")
        if position > top:
            problems.append(f"read models {when}: position {position} is past the log's end ({top})")
            return
        k = 0
        if position:
            notes = []
            start = 1
            while start <= position:
                page = app.recorder.select_notifications(start=start, limit=1000, stop=position)
                if not page:
                    break
                notes.extend(page)
                start = page[-1].id + 1
            k = max((n.originator_version for n in notes if n.originator_id == cid), default=0)
        if caught_up and k != app.last_seq(cid):
            problems.append(f"read models {when} reach seq {k}, the log ends at {app.last_seq(cid)}")
        if history != list(range(1, k + 1)):
            problems.append(f"read models {when}: history holds {_gaps(history)}, expected seqs 1..{k}")
        if k == 0:
            if cards or zones:
                problems.append(f"read models {when}: rows without a position")
            return
        campaign = app.campaign(cid, at=k)
        expected_cards = {card: card_row(campaign, card) for card in campaign.catalog.ids()}
        expected_zones = {zone: zone_row(campaign, zone) for zone in campaign.zones()}
        if cards != expected_cards:
            wrong = sorted(c for c in set(cards) | set(expected_cards) if cards.get(c) != expected_cards.get(c))
            problems.append(f"read models {when}: cards rows differ from the fold at seq {k} for {wrong[:5]}")
        if zones != expected_zones:
            wrong = sorted(z for z in set(zones) | set(expected_zones) if zones.get(z) != expected_zones.get(z))
            problems.append(f"read models {when}: zones rows differ from the fold at seq {k} for {wrong[:5]}")


def read_tables(path: Path) -> tuple[int, list[int], dict[str, Any], dict[str, Any]] | None:
    """The read-model tables of the (only) campaign, read in one transaction."""
    db = sqlite3.connect(path, timeout=30)
    db.row_factory = sqlite3.Row
    try:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "projection_position" not in names:
            return None
        db.execute("BEGIN")
        row = db.execute("SELECT position FROM projection_position WHERE name = ?", [NAME]).fetchone()
        position = row[0] if row else 0
        history = [r[0] for r in db.execute("SELECT seq FROM history ORDER BY seq")]
        cards = {r["id"]: dict(r) for r in db.execute("SELECT * FROM cards")}
        zones = {r["id"]: dict(r) for r in db.execute("SELECT * FROM zones")}
        db.execute("COMMIT")
        return position, history, cards, zones
    finally:
        db.close()


def _gaps(seqs: list[int]) -> str:
    if not seqs:
        return "nothing"
    missing = sorted(set(range(1, max(seqs) + 1)) - set(seqs))
    doubled = sorted({s for s in seqs if seqs.count(s) > 1}) if len(seqs) != len(set(seqs)) else []
    return f"{len(seqs)} seqs up to {max(seqs)}, missing {missing[:5]}, twice {doubled[:5]}"


def _no_error_text(done: subprocess.CompletedProcess, what: str, problems: list[str]) -> None:
    text = (done.stdout + done.stderr).lower()
    for bad in ("locked", "traceback", "unexpected failure"):
        if bad in text:
            problems.append(f"ledger {what} printed {bad!r}: {done.stderr.strip()[:500]}")


def test_sigkill_at_random_moments_loses_nothing_and_leaves_nothing_half_written(disk_tmp_path):
    print(f"crash test seed: LEDGER_CRASH_SEED={SEED}")
    rig = CrashRig(disk_tmp_path / "campaign.db", SEED)
    for number in range(KILLS):
        cycle = rig.cycle(number)
        assert not cycle.problems, (
            f"{cycle.describe()} (LEDGER_CRASH_SEED={SEED}):\n  " + "\n  ".join(cycle.problems)
        )
    print(rig.figures.summary(), "|", rig.figures.details())
    assert rig.figures.kills == KILLS >= 1
    # the kills must land while actions are being recorded, not only at start-up
    assert rig.figures.reported >= KILLS, f"the children reported too few commits: {rig.figures.summary()}"
    assert rig.figures.committed >= 2 * KILLS, rig.figures.summary()


def test_the_crash_checks_see_a_lost_action_and_a_half_written_read_model(disk_tmp_path):
    """The checks themselves can fail: a child that reports a seq the log does not
    hold is caught, and read-model rows that disagree with the fold are caught."""
    rig = CrashRig(disk_tmp_path / "campaign.db", 1)
    first = rig.cycle(0)
    assert not first.problems, first.problems
    cycle = Cycle(1, "fake", 0.0, before=rig.last, reported=[rig.last + 5])
    rig.check(cycle)
    assert cycle.lost == [rig.last + 5] and any("reported" in p for p in cycle.problems)
    # a half-written batch: a card row moved without its position
    db = sqlite3.connect(disk_tmp_path / "campaign.db")
    with db:
        db.execute("UPDATE cards SET zone = 'limbo', position = 99 WHERE rowid = (SELECT min(rowid) FROM cards)")
    db.close()
    problems: list[str] = []
    app = Ledger.open(disk_tmp_path / "campaign.db")
    try:
        rig.check_read_models(app, app.resolve(None), problems, caught_up=False)
    finally:
        app.close()
    assert any("cards rows differ" in p for p in problems), problems




DYING_SETUP_SCRIPT = r"""
import os, signal, sys
from ledger.application import Ledger
from ledger.interface.simulate import start_simulation

path, die_after = sys.argv[1], int(sys.argv[2])


class DiesAfterSeq(Ledger):
    # a real SIGKILL, at a chosen moment: right after action `die_after` is committed
    def start(self, *args, **kwargs):
        return self._maybe_die(super().start(*args, **kwargs))

    def execute(self, *args, **kwargs):
        return self._maybe_die(super().execute(*args, **kwargs))

    def _maybe_die(self, recorded):
        print("committed", recorded.seq, flush=True)
        if recorded.seq >= die_after:
            os.kill(os.getpid(), signal.SIGKILL)
        return recorded


start_simulation(DiesAfterSeq.open(path, create=True), heroes=3, seed=0)
"""


def test_a_simulation_killed_while_it_sets_up_its_campaign_can_be_continued(disk_tmp_path):
    """``ledger simulate`` on a new file records the campaign's setup (init, heroes,
    locations, cards into the decks, travels) as separate actions. Killed (SIGKILL)
    right after one of them, it leaves a campaign half set up; ``ledger simulate`` on
    that file must then continue the campaign (or refuse with a clear message), never
    fail with an internal error, and the log must verify."""
    from ledger.interface.simulate import start_simulation

    reference = Ledger.open(disk_tmp_path / "reference.db", create=True)
    try:
        setup_actions = reference.last_seq(start_simulation(reference, heroes=3, seed=0))
    finally:
        reference.close()
    failures = []
    for die_after in sorted({1, 2, 5, 8, setup_actions // 2, setup_actions - 1}):
        path = disk_tmp_path / f"setup-{die_after}.db"
        child = subprocess.run([sys.executable, "-c", DYING_SETUP_SCRIPT, str(path), str(die_after)],
                               capture_output=True, text=True, cwd=ROOT, env=_child_env(), timeout=120)
        assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
        app = Ledger.open(path)
        try:
            assert app.last_seq(app.resolve(None)) == die_after, "an action committed before the kill is missing"
        finally:
            app.close()
        done = run_ledger("--json", "simulate", "--actions", "5", "--seed", "1", db=path)
        if done.returncode != 0 and json.loads(done.stdout or "{}").get("error", {}).get("code") in ("internal", None):
            failures.append(f"killed after seq {die_after} of the {setup_actions} setup actions: "
                            f"`ledger simulate` then exits {done.returncode}: {done.stderr.strip()}")
        verified = run_ledger("verify", db=path)
        assert verified.returncode == 0, verified.stderr
    assert not failures, "\n".join(failures)


DYING_CREATE_SCRIPT = r"""
import os, signal, sys
from ledger import store
from ledger.application import Ledger

path, moment = sys.argv[1], sys.argv[2]
if moment == "first-connection":
    # a real SIGKILL right after the new file's first connection is made (the store
    # has switched the file to WAL), before any table is created
    make = store.LedgerConnectionPool._create_connection

    def make_and_die(self):
        connection = make(self)
        os.kill(os.getpid(), signal.SIGKILL)
        return connection

    store.LedgerConnectionPool._create_connection = make_and_die
Ledger.open(path, create=True)
os.kill(os.getpid(), signal.SIGKILL)  # "tables-created": the store is ready, no campaign yet
"""


@pytest.mark.parametrize("moment", ["first-connection", "tables-created"])
def test_a_kill_while_a_new_campaign_file_is_created_leaves_a_file_init_can_use(disk_tmp_path, moment):
    """``ledger init`` (or ``ledger simulate``) on a new file first creates the SQLite
    store. Killed while it does, the file it leaves holds no campaign and nothing else:
    the next ``ledger init`` on that path must start the campaign there."""
    path = disk_tmp_path / "campaign.db"
    child = subprocess.run([sys.executable, "-c", DYING_CREATE_SCRIPT, str(path), moment],
                           capture_output=True, text=True, cwd=ROOT, env=_child_env(), timeout=120)
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    catalog = ROOT / "ledger" / "data" / "sample_catalog.toml"
    done = run_ledger("init", "--catalog", str(catalog), db=path)
    assert done.returncode == 0, (
        f"killed at {moment} while creating {path.name} ({path.stat().st_size if path.exists() else 0} bytes "
        f"left), then `ledger init` on it: {done.stderr.strip()}"
    )
    assert run_ledger("verify", db=path).returncode == 0
