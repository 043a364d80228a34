"""``verify`` of a long log in parts side by side (ledger.audit: ``_part_starts``,
``_check_parts``, ``check_part``): each part a process of its own, starting from a
snapshot that checks out. Whatever was done to the log, the report must be the one a
single pass gives: the same first bad seq, the same reason, the same head. The log here
is short (1,500 actions) and the parts forced small, so that the parts are really used."""

from __future__ import annotations

import json
import logging
import shutil
import sys
from pathlib import Path
from uuid import UUID

import pytest

from ledger import audit
from ledger.application import Ledger
from ledger.audit import Report, _part_starts, verify
from ledger.interface.simulate import simulate, start_simulation

from .conftest import raw_events
from .test_verify import bump_digit, read_state, reseal_from, write_state

SIZE = 1_500
JOBS = 3
SPLIT = 600  # parts of at least 150 actions


@pytest.fixture(scope="module")
def long_log(store, tmp_path_factory) -> tuple[Path, UUID]:
    folder = tmp_path_factory.mktemp("parts")
    db = folder / "long.db"
    ledger = Ledger.open(db, create=True)
    try:
        cid = start_simulation(ledger, heroes=3, seed=1)
        simulate(ledger, cid, SIZE, seed=2)
    finally:
        ledger.close()
    return db, cid


@pytest.fixture
def copy(long_log, tmp_path) -> Path:
    db, _cid = long_log
    shutil.copy(db, tmp_path / "long.db")
    return tmp_path / "long.db"


class _Told(logging.Handler):
    """Keeps what ``ledger.audit`` logs when it falls back to one pass (why a part failed)."""

    def __init__(self, into: list[str]) -> None:
        super().__init__(logging.INFO)
        self.into = into

    def emit(self, record: logging.LogRecord) -> None:
        self.into.append(record.getMessage())


def in_parts(ledger: Ledger, cid: UUID, split: int = SPLIT) -> Report:
    """``verify`` in parts, which must give its report itself, not leave the log to one
    pass (as it does when a part fails for a reason that is no finding about the log)."""
    passes: list[int | None] = []
    check_log = audit._check_log

    def counted(*args, stop=None, **kwargs):
        passes.append(stop)
        return check_log(*args, stop=stop, **kwargs)

    starts = _part_starts(ledger, cid, JOBS, split)
    fallbacks: list[str] = []
    told = _Told(fallbacks)
    audit._check_log = counted
    audit.log.addHandler(told)
    audit.log.setLevel(logging.INFO)
    try:
        report = verify(ledger, cid, jobs=JOBS, split_from=split)
    finally:
        audit._check_log = check_log
        audit.log.removeHandler(told)
        audit.log.setLevel(logging.NOTSET)
    # (nothing at all when the log is refused before any action is checked)
    assert passes in ([], [starts[0]] if starts else [None]), \
        f"this process checked {passes}, not only its part; {fallbacks or 'no reason logged'}"
    return report


def both_ways(db: Path, cid: UUID) -> tuple[Report, Report, list[int]]:
    """The report of one pass, the report in parts, and where the parts began."""
    ledger = Ledger.open(db)
    try:
        return verify(ledger, cid, jobs=1), in_parts(ledger, cid), _part_starts(ledger, cid, JOBS, SPLIT)
    finally:
        ledger.close()


def test_a_long_log_checked_in_parts_gives_the_report_of_one_pass(long_log, copy):
    _db, cid = long_log
    one, parts, starts = both_ways(copy, cid)
    assert len(starts) == JOBS - 1 and all(seq % 100 == 0 for seq in starts), starts
    assert one.ok and parts == one


@pytest.fixture(scope="module")
def refusing_log(tmp_path_factory) -> tuple[Path, UUID]:
    """A log whose writer refused, early on, an action that had emptied a stack before it
    was refused: the rollback put the stack back at the end of the table's stacks, an
    order no fold from the start has, and that the snapshots after it keep."""
    from ledger import commands as c
    from ledger.errors import LedgerError

    db = tmp_path_factory.mktemp("refusing") / "long.db"
    ledger = Ledger.open(db, create=True)
    try:
        cid = start_simulation(ledger, heroes=3, seed=1)
        simulate(ledger, cid, 496 - ledger.last_seq(cid), seed=2)  # the refusal a few actions before seq 500
        table = ledger.campaign(cid).table
        alone = next(cards[0] for zone, cards in table.stacks.items()
                     if len(cards) == 1 and zone not in ("box", "limbo") and not zone.startswith("on:"))
        if not table.cards_in("limbo"):
            exiled = next(cards[-1] for zone, cards in table.stacks.items()
                          if len(cards) > 1 and zone != "box" and not zone.startswith("on:"))
            ledger.execute(cid, c.Exile(actor="master", cards=(exiled,)))
        before = list(table.stacks)
        with pytest.raises(LedgerError):
            ledger.execute(cid, c.Exile(actor="master", cards=(alone, table.cards_in("limbo")[0])))
        assert list(table.stacks) != before
        simulate(ledger, cid, SIZE - ledger.last_seq(cid), seed=3)
    finally:
        ledger.close()
    return db, cid


def test_a_log_whose_writer_refused_actions_is_checked_in_parts(refusing_log):
    """The order of the stacks is no part of the state (``ledger.snapshots.ORDERED``): the
    parts on either side of a seq agree on the state there although the writer's order
    of the stacks was not the fold's, so the parts are used, not left to one pass."""
    db, cid = refusing_log
    ledger = Ledger.open(db)
    try:
        start = _part_starts(ledger, cid, JOBS, SPLIT)[0]
        stored, _later = ledger.fit_snapshot(cid, start)
        folded = ledger.project(None, ledger.events.get(cid, gt=0, lte=start))
        assert stored.originator_version == start
        assert list(stored.state["table"]["stacks"]) != list(folded.table.to_dict()["stacks"])  # the writer's order
        one = verify(ledger, cid, jobs=1)
        assert one.ok and in_parts(ledger, cid) == one
    finally:
        ledger.close()


def starts_of(db: Path, cid: UUID) -> list[int]:
    ledger = Ledger.open(db)
    try:
        return _part_starts(ledger, cid, JOBS, SPLIT)
    finally:
        ledger.close()


def _seq_near(db: Path, cid: UUID, seq: int, marker: bytes) -> int:
    """The first action at or after ``seq`` whose stored JSON holds ``marker``."""
    while marker not in read_state(db, cid, seq):
        seq += 1
    return seq


WHERE = ["in the first part", "just before a part's snapshot", "at a part's snapshot", "a part's first action",
         "in the last part"]


def _seq_for(where: str, starts: list[int], last: int) -> int:
    """A part checks the actions after its snapshot's seq up to the next part's snapshot
    (which it checks too): the seqs on either side of where parts meet."""
    return {"in the first part": last // 5, "just before a part's snapshot": starts[1] - 1,
            "at a part's snapshot": starts[1], "a part's first action": starts[1] + 1,
            "in the last part": last * 9 // 10}[where]


@pytest.mark.parametrize("how", ["a changed byte", "a changed move, every hash after it made again"])
@pytest.mark.parametrize("where", WHERE)
def test_a_tampered_log_is_reported_in_parts_as_in_one_pass(long_log, copy, where, how):
    _db, cid = long_log
    ledger = Ledger.open(copy)
    try:
        starts = _part_starts(ledger, cid, JOBS, SPLIT)
        last = ledger.last_seq(cid)
    finally:
        ledger.close()
    seq = _seq_for(where, starts, last)
    if how == "a changed byte":
        write_state(copy, cid, seq, bump_digit(read_state(copy, cid, seq), b'"timestamp":"20'))
    else:
        seq = _seq_near(copy, cid, seq, b'"index":')
        write_state(copy, cid, seq, bump_digit(read_state(copy, cid, seq), b'"index":'))
        reseal_from(copy, cid, seq)
        reanchor_snapshots(copy, cid)  # as a careful forger would: the parts still begin where they did
    one, parts, now = both_ways(copy, cid)
    assert one.bad_seq == seq, one
    assert now == starts or seq in starts, (now, starts)  # the action at a part's start moved it
    assert parts == one


def reanchor_snapshots(db: Path, cid: UUID) -> None:
    """Every snapshot made to name the head the log now holds at its seq."""
    with raw_events(db) as run:
        rows = run("SELECT originator_version, state FROM stored_snapshots").fetchall()
    for seq, stored in rows:
        snapshot = json.loads(bytes(stored))
        snapshot["state"]["last_hash"] = json.loads(read_state(db, cid, seq))["hash"]
        with raw_events(db) as run:
            run("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?",
                [json.dumps(snapshot, separators=(",", ":")).encode(), seq])


def _snapshot_at(db: Path, seq: int) -> dict:
    with raw_events(db) as run:
        return json.loads(bytes(run("SELECT state FROM stored_snapshots WHERE originator_version = ?",
                                    [seq]).fetchone()[0]))


def _write_snapshot(db: Path, seq: int, stored: bytes) -> None:
    with raw_events(db) as run:
        assert run("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?", [stored, seq]).rowcount == 1


def test_a_snapshot_whose_heroes_were_reordered_is_reported_in_parts_as_in_one_pass(long_log, copy):
    """The order of the heroes in a snapshot orders each card's witnesses in the actions
    recorded after it; the canonical JSON of its own digest sorts it away, the digest its
    seq's action records (ruleset 5) does not: no part begins from it, and the part that
    checks its seq names it, as one pass does."""
    _db, cid = long_log
    seq = starts_of(copy, cid)[1]
    snapshot = _snapshot_at(copy, seq)
    heroes = snapshot["state"]["table"]["heroes"]
    snapshot["state"]["table"]["heroes"] = dict(reversed(list(heroes.items())))
    _write_snapshot(copy, seq, json.dumps(snapshot, separators=(",", ":")).encode())
    one, parts, starts = both_ways(copy, cid)
    assert seq not in starts
    assert one.bad_seq == seq and "snapshot" in one.reason, one
    assert parts == one


@pytest.mark.parametrize("what", ["a snapshot", "an action"])
def test_what_cannot_be_read_where_a_part_would_begin_is_reported_as_in_one_pass(long_log, copy, what):
    _db, cid = long_log
    seq = starts_of(copy, cid)[1]
    if what == "a snapshot":
        stored = json.dumps(_snapshot_at(copy, seq), separators=(",", ":")).encode()
        _write_snapshot(copy, seq, stored[: len(stored) // 2])  # cut short: no longer JSON
    else:
        seq += 3  # between the snapshot and where the part would begin
        write_state(copy, cid, seq, read_state(copy, cid, seq)[:-10])
    one, parts, starts = both_ways(copy, cid)
    assert one.bad_seq == seq, one
    assert parts == one


def test_a_row_put_before_the_campaign_start_is_named(long_log, copy):
    """A row at seq 0 (a forged start with another format, say) is no part of the log:
    loading takes the campaign's catalog and format from seq 1 itself, and verify names
    the row, in one pass as in parts."""
    _db, cid = long_log
    with raw_events(copy) as run:
        run("INSERT INTO stored_events SELECT originator_id, 0, topic, state FROM stored_events "
            "WHERE originator_version = 1")
    one, parts, _starts = both_ways(copy, cid)
    assert one.bad_seq == 1 and "seq 0" in one.reason, one
    assert parts == one


def test_a_changed_snapshot_where_a_part_would_begin_is_reported_as_in_one_pass(long_log, copy):
    """The snapshot no longer checks out: no part begins there, and the part that checks
    its seq names it, as one pass does."""
    _db, cid = long_log
    seq = starts_of(copy, cid)[1]
    with raw_events(copy) as run:
        state = bytes(run("SELECT state FROM stored_snapshots WHERE originator_version = ?", [seq]).fetchone()[0])
        changed = bump_digit(state, b'"live_head":')
        assert run("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?", [changed, seq]).rowcount == 1
    one, parts, starts = both_ways(copy, cid)
    assert seq not in starts and len(starts) == JOBS - 1
    assert one.bad_seq == seq and "snapshot" in (one.reason or ""), one
    assert parts == one


@pytest.mark.parametrize("python", ["false", "/no/such/python"])
def test_parts_that_cannot_run_leave_the_log_checked_in_one_pass(long_log, copy, monkeypatch, python):
    """A part's process that fails at once or cannot start (here: no Python where it is
    looked for) is no finding about the log: the whole log is checked in one pass, with
    the same report."""
    _db, cid = long_log
    ledger = Ledger.open(copy)
    try:
        expected = verify(ledger, cid, jobs=1)
        assert len(_part_starts(ledger, cid, JOBS, SPLIT)) == JOBS - 1  # parts are tried
        monkeypatch.setattr(sys, "executable", shutil.which(python) or python)
        assert verify(ledger, cid, jobs=JOBS, split_from=SPLIT) == expected
    finally:
        ledger.close()


@pytest.mark.both_stores
def test_parts_report_as_one_pass_on_either_store(db_path):
    """Each part's process opens the store again from the ledger's settings: an SQLite file
    or a PostgreSQL schema alike; a tampered action in the last part is named."""
    ledger = Ledger.open(db_path, create=True)
    try:
        cid = start_simulation(ledger, heroes=2, seed=3)
        simulate(ledger, cid, 900, seed=4)
        assert len(_part_starts(ledger, cid, JOBS, 400)) == JOBS - 1
        one = verify(ledger, cid, jobs=1)
        assert one.ok and in_parts(ledger, cid, 400) == one
        seq = ledger.last_seq(cid) - 50
    finally:
        ledger.close()
    write_state(db_path, cid, seq, bump_digit(read_state(db_path, cid, seq), b'"timestamp":"20'))
    ledger = Ledger.open(db_path)
    try:
        one = verify(ledger, cid, jobs=1)
        assert one.bad_seq == seq and in_parts(ledger, cid, 400) == one
    finally:
        ledger.close()


def test_loading_passes_over_a_snapshot_that_cannot_be_read(long_log, copy):
    """Time travel (and every load) folds from the snapshot before one that cannot be
    read, as from one that does not check out."""
    _db, cid = long_log
    ledger = Ledger.open(copy)
    try:
        expected = ledger.campaign(cid, at=1005).table.to_dict()
    finally:
        ledger.close()
    stored = json.dumps(_snapshot_at(copy, 1000), separators=(",", ":")).encode()
    _write_snapshot(copy, 1000, stored[: len(stored) // 2])
    ledger = Ledger.open(copy)
    try:
        assert ledger.fit_snapshot(cid, 1005)[0].originator_version == 900
        assert ledger.campaign(cid, at=1005).table.to_dict() == expected
    finally:
        ledger.close()
