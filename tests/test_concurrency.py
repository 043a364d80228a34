"""Concurrent writers on one SQLite campaign file on disk (issue item 3), with real processes;
and on one PostgreSQL schema (``--db URL``): the shared campaign with 2 writers and a
reader (``test_on_postgresql_...``), the last card raced by 4 heroes, and 2 Python API
writers. Two campaigns in one database stay SQLite's: on PostgreSQL they are kept apart by
the same originator ids, and the shared campaign races its writers there.

Each writer is a child ``python -c`` process that runs the real ``ledger`` command
(``ledger.interface.cli.main``, the code path of ``python -m ledger``) in a loop, one command
after another, and prints one JSON line per command: its exit status, the seq it
recorded (``--json``), and what it wrote to stdout/stderr. The children wait for a
"go" file so that they really start together.

The workload mixes actions that only conflict on the version (each hero turns their
own card face-up and face-down again; shuffles of a shared deck with seeds), which
must all be recorded (a lost race is decided again on the new state), with actions
that conflict on the state (every writer discards the same cards of the scenario, in
the same order), of which exactly one per card may be recorded, the others refused
with one ``error:`` line.

Checks afterwards: the recorded actions are exactly the ones the children reported
(no lost, no duplicated), seqs are contiguous, ``ledger verify`` exits 0, no child
ever printed ``database is locked``, a traceback or ``OperationalError``, one
``ledger --json history`` lists every seq once, and the ``cards``/``zones`` tables
equal the fold of the campaign.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from projections.readmodel import ReadModel, card_row, zone_row

from .conftest import fresh_db, read_tables, run_ledger

pytestmark = pytest.mark.both_stores

CATALOG = load_catalog(sample_catalog_path())
CATALOG_IDS = CATALOG.ids()
FORBIDDEN = ("database is locked", "Traceback", "OperationalError")

# Each hero's own card (in their inventory): only that hero turns it over.
OWN_CARDS = ["item-sword", "item-bow", "item-rope", "item-potion", "item-shield", "item-axe", "item-helm",
             "item-dagger"]
# Cards every writer tries to discard from the scenario, in the same order.
RACE_CARDS = [card for card in CATALOG_IDS if card.startswith(("event-", "companion-"))]
SHUFFLED_DECK = "deck:skill"

# The child: runs ledger commands in this process, one JSON line per command.
WRITER = r"""
import contextlib, io, json, os, sys, time, traceback
os.environ["COLUMNS"] = "200"
from eventsourcing.persistence import IntegrityError
from ledger.application import Ledger
from ledger.interface.cli import main

db, go, stop, plan_path = sys.argv[1:5]
with open(plan_path) as f:
    plan = json.load(f)

lost_races = 0
_save = Ledger.save
def counting_save(self, *args, **kwargs):
    global lost_races
    try:
        return _save(self, *args, **kwargs)
    except IntegrityError:
        lost_races += 1
        raise
Ledger.save = counting_save

def run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(["--db", db, *argv])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        code = -1
        err.write(traceback.format_exc())
    return code, out.getvalue(), err.getvalue()

def report(tag, argv, code, out, err):
    seq = None
    if code == 0 and "--json" in argv:
        try:
            seq = json.loads(out)["seq"]
        except Exception:
            seq = None
    print(json.dumps({"tag": tag, "argv": argv, "code": code, "seq": seq, "stdout": out, "stderr": err}),
          flush=True)

open(plan_path + ".ready", "w").close()  # imported and ready: the parent says go when all are
limit = time.time() + 60
while not os.path.exists(go) and time.time() < limit:
    time.sleep(0.002)

if plan.get("loop"):  # a reader: the same commands again and again until told to stop
    runs = 0
    while not os.path.exists(stop) and time.time() < limit:
        for tag, argv in plan["loop"]:
            code, out, err = run(argv)
            runs += 1
            if code != 0 or err:
                report(tag, argv, code, out, err)
    print(json.dumps({"reader_runs": runs}), flush=True)
else:
    for tag, argv in plan["steps"]:
        code, out, err = run(argv)
        report(tag, argv, code, out, err)
    print(json.dumps({"lost_races": lost_races}), flush=True)
"""


# -- helpers ---------------------------------------------------------------------
def prepare(path: Path | str, slugs: tuple[str, ...], heroes: int) -> dict[str, int]:
    """Campaigns with heroes h1..hN (each owning one face-down card in their inventory),
    a shuffled deck with every skill card, and the race cards in the scenario. The
    read-model tables exist and are caught up. Returns each campaign's last seq."""
    app = Ledger.open(path, create=True)
    last = {}
    try:
        for slug in slugs:
            cid = app.start(CATALOG, name=slug.title(), slug=slug).campaign.id
            for i in range(heroes):
                app.execute(cid, c.AddHero(hero=f"h{i + 1}", knowledge=1))
                app.execute(cid, c.Add(cards=(OWN_CARDS[i],), to=f"inventory:h{i + 1}"))
            skills = tuple(card for card in CATALOG_IDS if card.startswith("skill-"))
            app.execute(cid, c.Add(cards=skills, to=SHUFFLED_DECK))
            app.execute(cid, c.Add(cards=tuple(RACE_CARDS), to="scenario"))
            last[slug] = app.last_seq(cid)
        model = ReadModel(app, path)
        model.catch_up()
        model.close()
    finally:
        app.close()
    return last


def writer_plan(slug: str | None, hero: int, rounds: int, race: list[str]) -> list[tuple[str, list[str]]]:
    """Per round: turn the hero's own card over (reveal, then hide next round); every
    third round shuffle the shared deck; every round try to discard the next race card."""
    pre = ["--campaign", slug] if slug else []
    own = OWN_CARDS[hero - 1]
    steps: list[tuple[str, list[str]]] = []
    for r in range(rounds):
        verb = "reveal" if r % 2 == 0 else "hide"
        steps.append(("own", [*pre, "--json", "--actor", f"h{hero}", verb, own]))
        if r % 3 == hero % 3:
            steps.append(("shuffle", [*pre, "--json", "shuffle", SHUFFLED_DECK, "--seed", str(hero * 1000 + r)]))
        if r < len(race):
            steps.append((f"race:{race[r]}", [*pre, "--json", "discard", race[r]]))
    return steps


@dataclass
class Line:
    child: int
    tag: str
    argv: list[str]
    code: int
    seq: int | None
    stdout: str
    stderr: str


@dataclass
class Run:
    db: Path | str
    before: dict[str, int]
    lines: list[Line] = field(default_factory=list)
    raw: dict[int, tuple[str, str]] = field(default_factory=dict)  # child -> (stdout, stderr)
    lost_races: int = 0
    reader_runs: int = 0
    seconds: float = 0.0
    rounds: int = 0  # of each writer's plan (the shared campaign)

    def campaign_of(self, line: Line) -> str:
        if "--campaign" in line.argv:
            return line.argv[line.argv.index("--campaign") + 1]
        (only,) = self.before
        return only


def wait_until_ready(files: list[Path], procs: list[subprocess.Popen], timeout: float = 60) -> None:
    """Until every child has imported the ledger and said so (its file exists), so that
    they really start together when the parent says go."""
    deadline = time.monotonic() + timeout
    while not all(f.exists() for f in files):
        dead = [p.args for p in procs if p.poll() is not None]
        assert not dead, f"a child ended before it was ready: {dead}"
        assert time.monotonic() < deadline, "the children were not ready after a minute"
        time.sleep(0.01)


def run_children(db: Path | str, plans: list[dict], tmp: Path, timeout: float = 80) -> Run:
    go, stop = tmp / "go", tmp / "stop"
    procs = []
    for i, plan in enumerate(plans):
        plan_file = tmp / f"plan{i}.json"
        plan_file.write_text(json.dumps(plan))
        out = open(tmp / f"child{i}.out", "w")
        err = open(tmp / f"child{i}.err", "w")
        env = {**os.environ}
        env.pop("LEDGER_DB", None)
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(go), str(stop), str(plan_file)],
                                stdout=out, stderr=err, env=env, cwd=str(tmp))
        procs.append((proc, out, err, "loop" in plan))
    wait_until_ready([Path(f"{tmp / f'plan{i}.json'}.ready") for i in range(len(plans))], [p for p, *_ in procs])
    started = time.monotonic()
    go.write_text("go")
    deadline = started + timeout
    try:
        for proc, _, _, is_reader in procs:
            if not is_reader:
                proc.wait(timeout=max(1.0, deadline - time.monotonic()))
        stop.write_text("stop")
        for proc, _, _, is_reader in procs:
            if is_reader:
                proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        for proc, out, err, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            out.close()
            err.close()
    run = Run(db=db, before={}, seconds=time.monotonic() - started)
    for i, (proc, _, _, _) in enumerate(procs):
        stdout = (tmp / f"child{i}.out").read_text()
        stderr = (tmp / f"child{i}.err").read_text()
        run.raw[i] = (stdout, stderr)
        assert proc.returncode == 0, f"child {i} exited {proc.returncode}\nstderr: {stderr[-3000:]}"
        for text in stdout.splitlines():
            data = json.loads(text)
            if "lost_races" in data:
                run.lost_races += data["lost_races"]
            elif "reader_runs" in data:
                run.reader_runs += data["reader_runs"]
            else:
                run.lines.append(Line(child=i, **data))
    return run


def slug_uuid(db: Path | str, slug: str):
    app = Ledger.open(db)
    try:
        return app.resolve(slug)
    finally:
        app.close()


def assert_no_forbidden_output(run: Run) -> None:
    for child, (stdout, stderr) in run.raw.items():
        for bad in FORBIDDEN:
            assert bad not in stdout and bad not in stderr, (
                f"child {child} printed {bad!r}:\n{(stdout + stderr)[:4000]}")


def assert_refusals_are_one_error_line(run: Run) -> None:
    for line in run.lines:
        assert line.code in (0, 1), f"{line.argv}: exit {line.code}\n{line.stderr}"
        if line.code != 0:
            lines = line.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("error: "), (
                f"{line.argv}: wanted one 'error: ' line, got:\n{line.stderr}")
        else:
            assert line.stderr == "", f"{line.argv} succeeded but wrote to stderr:\n{line.stderr}"


def assert_log_is_exactly_what_children_reported(run: Run) -> None:
    """Per campaign: the seqs the children reported are distinct, and together with the
    prepared actions they are 1..last with nothing missing and nothing extra."""
    app = Ledger.open(run.db)
    try:
        for slug, before in run.before.items():
            reported = [line.seq for line in run.lines if line.code == 0 and run.campaign_of(line) == slug]
            assert None not in reported, "a recorded action printed no seq"
            dupes = {seq: n for seq, n in Counter(reported).items() if n > 1}
            assert not dupes, f"{slug}: seqs reported by more than one command: {dupes}"
            cid = app.resolve(slug)
            last = app.last_seq(cid)
            assert last == before + len(reported), (
                f"{slug}: the log ends at seq {last}, but {before} prepared + {len(reported)} reported actions")
            assert sorted(reported) == list(range(before + 1, last + 1)), f"{slug}: reported seqs are not contiguous"
            stored = [event.seq for event in app.actions(cid)]
            assert stored == list(range(1, last + 1)), f"{slug}: stored seqs are not 1..{last}"
            # each reported seq is the action that command asked for
            by_seq = {event.seq: event for event in app.actions(cid)}
            for line in run.lines:
                if line.code == 0 and run.campaign_of(line) == slug:
                    event = by_seq[line.seq]
                    assert event.command is not None
                    verb = line.argv[line.argv.index("--json") + 1:]
                    verb = verb[2:] if verb[0] == "--actor" else verb
                    expected = {"reveal": "Reveal", "hide": "Hide", "shuffle": "Shuffle",
                                "discard": "Discard", "draw": "Draw"}[verb[0]]
                    assert event.command["type"] == expected, f"seq {line.seq}: {event.command} for {line.argv}"
    finally:
        app.close()


def assert_read_models_follow_the_log(run: Run) -> None:
    """One ``ledger --json history`` per campaign shows every seq once; the cards and
    zones tables are the fold of the campaign."""
    for slug in run.before:
        result = run_ledger("--campaign", slug, "--json", "history", db=run.db)
        assert result.returncode == 0, result.stderr
        seqs = [row["seq"] for row in json.loads(result.stdout)]
        dupes = {seq: n for seq, n in Counter(seqs).items() if n > 1}
        assert not dupes, f"{slug}: history lists seqs more than once: {dupes}"
        app = Ledger.open(run.db)
        try:
            cid = app.resolve(slug)
            last = app.last_seq(cid)
            assert seqs == list(range(1, last + 1)), f"{slug}: history is not seq 1..{last} in order"
            campaign = app.campaign(cid)
            cards = {r["id"]: r for r in read_tables(run.db, "SELECT * FROM cards WHERE campaign = ?", [slug],
                                                     as_dicts=True)}
            zones = {r["id"]: r for r in read_tables(run.db, "SELECT * FROM zones WHERE campaign = ?", [slug],
                                                     as_dicts=True)}
            history = [r[0] for r in read_tables(run.db, "SELECT seq FROM history WHERE campaign = ? ORDER BY seq",
                                                 [slug])]
            assert history == list(range(1, last + 1))
            assert set(cards) == set(CATALOG_IDS)
            for card in CATALOG_IDS:
                assert cards[card] == card_row(campaign, card), f"{slug}: cards row of {card} disagrees with the fold"
            assert set(zones) == set(campaign.zones())
            for zone in campaign.zones():
                assert zones[zone] == zone_row(campaign, zone), f"{slug}: zones row of {zone} disagrees with the fold"
        finally:
            app.close()


def assert_verifies(db: Path | str, slugs) -> None:
    for slug in slugs:
        result = run_ledger("--campaign", slug, "verify", db=db)
        assert result.returncode == 0, f"verify {slug}: {result.stdout}{result.stderr}"
        assert result.stdout.startswith("ok: ")


# -- one campaign, 2 and 4 writers (and a reader) ------------------------------------
ROUNDS = 100


@pytest.fixture(scope="module", params=[2, 4], ids=["2-writers", "4-writers"])
def shared_campaign_run(request, disk_tmp_path_factory) -> Run:
    writers = request.param
    tmp = disk_tmp_path_factory.mktemp(f"shared{writers}")
    return shared_run(tmp / "campaign.db", tmp, writers, ROUNDS)


def shared_run(db: Path | str, tmp: Path, writers: int, rounds: int) -> Run:
    before = prepare(db, ("north",), heroes=writers)
    plans = [{"steps": writer_plan(None, hero, rounds, RACE_CARDS)} for hero in range(1, writers + 1)]
    plans.append({"loop": [("zones", ["zones"]), ("public zones", ["--as", "public", "--json", "zones"]),
                           ("card", ["card", OWN_CARDS[0]])]})
    run = run_children(db, plans, tmp)
    run.before = before
    run.rounds = rounds
    ok = sum(1 for line in run.lines if line.code == 0)
    refused = sum(1 for line in run.lines if line.code != 0)
    print(f"\n[{writers} writers] {len(run.lines)} commands: {ok} recorded, {refused} refused, "
          f"{run.lost_races} lost races decided again, {run.reader_runs} reader runs, {run.seconds:.1f}s")
    return run


def test_concurrent_writers_print_no_lock_error_traceback_or_operational_error(shared_campaign_run):
    assert_no_forbidden_output(shared_campaign_run)


def test_concurrent_writers_refusals_are_one_error_line_each(shared_campaign_run):
    assert_refusals_are_one_error_line(shared_campaign_run)


def test_concurrent_writers_lose_and_duplicate_no_action_and_seqs_stay_contiguous(shared_campaign_run):
    assert_log_is_exactly_what_children_reported(shared_campaign_run)


def test_actions_still_legal_after_a_lost_race_are_recorded_transparently(shared_campaign_run):
    """Turning one's own card over and shuffling conflict only on the version: every one
    of them must be recorded, however often another writer got there first."""
    run = shared_campaign_run
    failed = [(line.argv, line.stderr.strip()) for line in run.lines
              if line.tag in ("own", "shuffle") and line.code != 0]
    assert sum(1 for line in run.lines if line.tag in ("own", "shuffle")) > 0
    assert run.lost_races > 0, "no save ever lost a race: the writers did not really overlap"
    assert not failed, f"{len(failed)} legal actions were refused: {failed[:5]}"


def test_a_card_every_writer_discards_at_once_is_discarded_exactly_once_and_the_others_refused(
        shared_campaign_run):
    run = shared_campaign_run
    writers = len(run.raw) - 1
    raced = [card for card in RACE_CARDS[:run.rounds]]
    for card in raced:
        attempts = [line for line in run.lines if line.tag == f"race:{card}"]
        assert len(attempts) == writers
        winners = [line for line in attempts if line.code == 0]
        assert len(winners) == 1, (
            f"{card}: {len(winners)} writers discarded it: {[(w.child, w.seq) for w in winners]}; "
            f"refusals: {[(a.child, a.stderr.strip()) for a in attempts if a.code != 0]}")
        for loser in attempts:
            if loser.code != 0:
                assert loser.code == 1, f"{card}: exit {loser.code}: {loser.stderr}"
                assert loser.stderr.startswith("error: ") and f"{card} is already in discard" in loser.stderr, (
                    f"{card}: the loser (child {loser.child}) was refused with: {loser.stderr!r}")
    app = Ledger.open(run.db)
    try:
        table = app.campaign(app.resolve("north")).table
        assert [card for card in raced if table.zone_of(card) != "discard"] == []
    finally:
        app.close()


def test_each_hero_s_own_card_lies_as_its_last_recorded_turn_left_it(shared_campaign_run):
    run = shared_campaign_run
    writers = len(run.raw) - 1
    app = Ledger.open(run.db)
    try:
        table = app.campaign(app.resolve("north")).table
        for hero in range(1, writers + 1):
            card = OWN_CARDS[hero - 1]
            turns = [line for line in run.lines if line.tag == "own" and card in line.argv and line.code == 0]
            assert turns, f"h{hero} recorded no turn of {card}"
            last = max(turns, key=lambda line: line.seq)
            expected = "up" if "reveal" in last.argv else "down"
            assert table.face(card) == expected, f"{card} is face-{table.face(card)} after seq {last.seq} {last.argv}"
            # turns alternate: no two recorded turns of the same card in a row did the same thing
            verbs = ["reveal" if "reveal" in line.argv else "hide" for line in sorted(turns, key=lambda l: l.seq)]
            assert all(a != b for a, b in zip(verbs, verbs[1:])), f"{card}: {verbs}"
    finally:
        app.close()


def test_concurrently_written_log_verifies(shared_campaign_run):
    assert_verifies(shared_campaign_run.db, shared_campaign_run.before)


def test_after_concurrent_writers_history_lists_every_seq_once_and_tables_equal_the_fold(shared_campaign_run):
    assert_read_models_follow_the_log(shared_campaign_run)


def test_readers_running_during_the_writes_never_fail(shared_campaign_run):
    run = shared_campaign_run
    reader = len(run.raw) - 1
    failures = [line for line in run.lines if line.child == reader]
    assert not failures, f"{len(failures)} reader runs failed, e.g. {failures[0].argv}: {failures[0].stderr}"
    assert run.reader_runs >= 3, "the reader hardly ran while the writers wrote"


SHARED_CHECKS = [
    test_concurrent_writers_print_no_lock_error_traceback_or_operational_error,
    test_concurrent_writers_refusals_are_one_error_line_each,
    test_concurrent_writers_lose_and_duplicate_no_action_and_seqs_stay_contiguous,
    test_actions_still_legal_after_a_lost_race_are_recorded_transparently,
    test_a_card_every_writer_discards_at_once_is_discarded_exactly_once_and_the_others_refused,
    test_each_hero_s_own_card_lies_as_its_last_recorded_turn_left_it,
    test_concurrently_written_log_verifies,
    test_after_concurrent_writers_history_lists_every_seq_once_and_tables_equal_the_fold,
    test_readers_running_during_the_writes_never_fail,
]


def test_on_postgresql_two_writers_and_a_reader_pass_every_check_of_the_shared_campaign(disk_tmp_path):
    """The shared campaign on one PostgreSQL schema (the children's ``--db URL``), put through
    every check above. A command costs there ~9 times SQLite's (each opens the store anew:
    new connections, the read models' catalog checks), so the run is played once, in one
    test (a module fixture is played by every test process that runs one of its tests):
    2 writers for 40 rounds, which still lose races all along, and a reader; 4 writers would
    add no code path."""
    with fresh_db("postgres", disk_tmp_path) as db:
        run = shared_run(db, disk_tmp_path, 2, 40)
        for check in SHARED_CHECKS:
            check(run)


# -- the last card of a deck, raced by 4 heroes --------------------------------------
def test_four_heroes_drawing_the_last_card_of_a_deck_at_once_give_it_to_exactly_one(store, disk_tmp_path):
    with fresh_db(store, disk_tmp_path) as db:
        four_heroes_draw_the_last_card(db, disk_tmp_path)


def four_heroes_draw_the_last_card(db: Path | str, disk_tmp_path: Path) -> None:
    app = Ledger.open(db, create=True)
    decks = ["deck:item", "deck:skill", "deck:companion", "deck:event"]
    try:
        cid = app.start(CATALOG, name="Last card", slug="last").campaign.id
        for i in range(4):
            app.execute(cid, c.AddHero(hero=f"h{i + 1}", knowledge=1))
        lone = {}
        for deck in decks:
            suit = deck.split(":")[1]
            lone[deck] = next(card for card in CATALOG_IDS if card.startswith(suit + "-")
                              and card not in OWN_CARDS)
            app.execute(cid, c.Add(cards=(lone[deck],), to=deck))
        before = app.last_seq(cid)
        model = ReadModel(app, db)
        model.catch_up()
        model.close()
    finally:
        app.close()
    plans = [{"steps": [(f"draw:{deck}", ["--json", "--actor", f"h{hero}", "draw", deck]) for deck in decks]}
             for hero in range(1, 5)]
    run = run_children(db, plans, disk_tmp_path)
    run.before = {"last": before}
    assert_no_forbidden_output(run)
    assert_refusals_are_one_error_line(run)
    for deck in decks:
        attempts = [line for line in run.lines if line.tag == f"draw:{deck}"]
        assert len(attempts) == 4
        winners = [line for line in attempts if line.code == 0]
        assert len(winners) == 1, f"{deck}: drawn by {len(winners)} heroes"
        for loser in attempts:
            if loser.code != 0:
                assert f"{deck} is empty" in loser.stderr, loser.stderr
    assert_log_is_exactly_what_children_reported(run)
    app = Ledger.open(db)
    try:
        campaign = app.campaign(app.resolve("last"))
        for deck in decks:
            holders = [hero for hero in ("h1", "h2", "h3", "h4")
                       if lone[deck] in campaign.table.cards_in(f"inventory:{hero}")]
            assert len(holders) == 1, f"{lone[deck]} is in {holders}"
    finally:
        app.close()
    assert_verifies(db, ["last"])


# -- two campaigns in one file, two writers each ---------------------------------------
@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def two_campaigns_run(request, disk_tmp_path_factory) -> Iterator[Run]:
    """Two campaigns in one database, two writers each: 4 writers at once (on PostgreSQL,
    10 rounds each, since every command there opens its own connections)."""
    tmp = disk_tmp_path_factory.mktemp("two")
    rounds = 30 if request.param == "sqlite" else 10
    with fresh_db(request.param, tmp, "campaigns.db") as db:
        before = prepare(db, ("north", "south"), heroes=2)
        plans = [{"steps": writer_plan(slug, hero, rounds, RACE_CARDS)} for slug in ("north", "south")
                 for hero in (1, 2)]
        run = run_children(db, plans, tmp)
        run.before, run.rounds = before, rounds
        print(f"\n[two campaigns, {request.param}] {len(run.lines)} commands, {run.lost_races} lost races, "
              f"{run.seconds:.1f}s")
        yield run


def test_two_campaigns_in_one_file_written_at_once_keep_their_logs_apart_and_whole(two_campaigns_run):
    run = two_campaigns_run
    assert_no_forbidden_output(run)
    assert_refusals_are_one_error_line(run)
    assert_log_is_exactly_what_children_reported(run)
    failed = [(line.argv, line.stderr) for line in run.lines if line.tag in ("own", "shuffle") and line.code != 0]
    assert not failed, f"legal actions refused: {failed[:5]}"
    for slug in ("north", "south"):
        for card in RACE_CARDS[:run.rounds]:
            attempts = [line for line in run.lines if line.tag == f"race:{card}" and run.campaign_of(line) == slug]
            assert sum(1 for line in attempts if line.code == 0) == 1, f"{slug}: {card}"
    assert_verifies(run.db, ("north", "south"))


def test_two_campaigns_written_at_once_have_history_and_tables_equal_to_their_folds(two_campaigns_run):
    assert_read_models_follow_the_log(two_campaigns_run)


# -- long-lived Python API writers (the in-memory copy, decided again after a lost race) --
API_WRITER = r"""
import json, os, sys, time
from ledger import commands as c
from ledger.application import Ledger
from ledger.errors import LedgerError

db, go, hero, card, rounds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
app = Ledger.open(db)
cid = app.resolve("north")
open(f"{go}.{hero}", "w").close()  # ready: the parent says go when all are
limit = time.time() + 60
while not os.path.exists(go) and time.time() < limit:
    time.sleep(0.002)
for r in range(rounds):
    command = (c.Reveal if r % 2 == 0 else c.Hide)(actor=hero, cards=(card,))
    try:
        rec = app.execute(cid, command)
    except LedgerError as exc:
        print(json.dumps({"error": f"{exc.__class__.__name__}: {exc}"}), flush=True)
    else:
        print(json.dumps({"seq": rec.seq}), flush=True)
app.close()
"""


API_WRITERS = [("sqlite", 2), ("sqlite", 4), ("postgres", 2)]  # 4 on PostgreSQL: the same code paths again


@pytest.mark.parametrize("where,writers", API_WRITERS, ids=[f"{where}-{n}" for where, n in API_WRITERS])
def test_python_api_writers_keeping_their_ledger_open_record_every_turn_exactly_once(where, disk_tmp_path, writers):
    """A ``Ledger`` kept open decides on its in-memory copy first; when another process
    saved in between, the save fails and the command is decided again on the new state.
    Turning one's own card over is always legal, so nothing may be refused or lost."""
    with fresh_db(where, disk_tmp_path) as db:
        api_writers(db, disk_tmp_path, writers)


def api_writers(db: Path | str, disk_tmp_path: Path, writers: int) -> None:
    before = prepare(db, ("north",), heroes=writers)["north"]
    rounds = 100
    go = disk_tmp_path / "go"
    env = {**os.environ}
    procs = [subprocess.Popen([sys.executable, "-c", API_WRITER, str(db), str(go), f"h{hero}",
                               OWN_CARDS[hero - 1], str(rounds)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for hero in range(1, writers + 1)]
    wait_until_ready([Path(f"{go}.h{hero}") for hero in range(1, writers + 1)], procs)
    go.write_text("go")
    outputs = [proc.communicate(timeout=80) for proc in procs]
    seqs: list[int] = []
    errors: list[str] = []
    for proc, (out, err) in zip(procs, outputs):
        for bad in FORBIDDEN:
            assert bad not in out + err, f"a writer printed {bad!r}:\n{(out + err)[:3000]}"
        assert proc.returncode == 0, err
        for text in out.splitlines():
            data = json.loads(text)
            if "seq" in data:
                seqs.append(data["seq"])
            else:
                errors.append(data["error"])
    assert not errors, f"{len(errors)} of {writers * rounds} legal turns refused, e.g. {errors[:3]}"
    assert len(seqs) == writers * rounds
    assert sorted(seqs) == list(range(before + 1, before + writers * rounds + 1)), "lost or duplicated seqs"
    app = Ledger.open(db)
    try:
        assert app.last_seq(app.resolve("north")) == before + writers * rounds
    finally:
        app.close()
    assert_verifies(db, ["north"])
