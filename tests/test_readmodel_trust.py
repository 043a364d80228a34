"""Read models follow the log or say so (issue 11, part 3; projections/readmodel.py and
projections/consistency.py), on real SQLite files tampered with through raw ``sqlite3``.

- the log's tail cut off (the last 1 or several stored events) after the tables recorded
  it: every command on the campaign refuses in one line, appending nothing, until
  ``ledger rebuild`` accepts the log as it stands (the tables are the one trace of the
  cut the file keeps); then history no longer shows the cut actions and the next action
  takes the freed seq;
- the position moved back or ahead (also with a forged mark): rebuilt, nothing applied
  twice or skipped;
- an edited cards or zones row: rebuilt on the next command;
- a dropped table, a deleted position row, a file from before the marks (migrated without
  a rebuild), a half-migrated one;
- ``compare_with_log`` names the first history, card_actions, cards or zones row that
  differs from the log, and says None for untouched tables (several batches, two campaigns);
- untouched tables are never rebuilt, and the per-command checks read one notification
  and one campaign, never the log; readers racing a writer and a rebuild raise no alarm.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import UUID

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from projections import readmodel
from projections.consistency import compare_with_log
from projections.readmodel import POSITION, TABLES, ReadModel, card_row, mark_of, zone_row

from .conftest import copy_db, run_ledger

CATALOG = load_catalog(sample_catalog_path())
NOTE = "note: the read models did not follow the log ("
DRAWS = 12  # of the 14 item cards: the deck never runs out


# -- the demo campaign, and raw sqlite3 on copies of it -----------------------------------------
class Demo:
    """The demo's file (read-only for the tests: they tamper with copies)."""

    def __init__(self, db: Path):
        self.db = db
        ledger = Ledger.open(db)
        try:
            self.cid = ledger.resolve(None)
            self.slug = ledger.campaign(self.cid).slug
            self.last = ledger.last_seq(self.cid)
        finally:
            ledger.close()


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Demo:
    db = tmp_path_factory.mktemp("demo") / "demo.db"
    result = run_ledger("demo", db=db)
    assert result.returncode == 0, result.stderr
    return Demo(db)


@pytest.fixture
def copy(demo, tmp_path) -> Path:
    """A copy of the demo's file, to tamper with."""
    return copy_db(demo.db, tmp_path)


@contextmanager
def raw(db: Path) -> Iterator[sqlite3.Connection]:
    """Plain sqlite3 on the file, committed at the end: what anyone holding it can do."""
    con = sqlite3.connect(str(db))
    try:
        with con:
            yield con
    finally:
        con.close()


@contextmanager
def opened(db: Path, create: bool = False) -> Iterator[tuple[Ledger, ReadModel]]:
    """The ledger of ``db`` and its read models, closed after."""
    ledger = Ledger.open(db, create=create)
    model = ReadModel(ledger, db)
    try:
        yield ledger, model
    finally:
        model.close()
        ledger.close()


def _ids(cid: UUID) -> list[str]:
    return [cid.hex, str(cid)]


def cut_tail(db: Path, cid: UUID, last: int, count: int) -> None:
    """Deletes the campaign's last ``count`` stored events."""
    with raw(db) as con:
        deleted = con.execute("DELETE FROM stored_events WHERE originator_id IN (?, ?) AND originator_version > ?",
                              [*_ids(cid), last - count]).rowcount
    assert deleted == count


def position_row(db: Path) -> tuple:
    with raw(db) as con:
        return con.execute(f"SELECT position, mark, last_action FROM [{POSITION}]").fetchone()


def set_position(db: Path, position: int, mark: str | None = None, last_action: str | None = None) -> None:
    """Moves the position; with ``mark``/``last_action`` also forges those, as a forger
    who read the code would."""
    with raw(db) as con:
        con.execute(f"UPDATE [{POSITION}] SET position = ?", [position])
        if mark is not None:
            con.execute(f"UPDATE [{POSITION}] SET mark = ?, last_action = ?", [mark, last_action])


def notification(db: Path, position: int):
    ledger = Ledger.open(db)
    try:
        return ledger.recorder.select_notifications(start=position, limit=1)[0]
    finally:
        ledger.close()


def max_notification(db: Path) -> int:
    ledger = Ledger.open(db)
    try:
        return ledger.recorder.max_notification_id()
    finally:
        ledger.close()


# -- what the commands show ---------------------------------------------------------------------
def notes_of(result) -> list[str]:
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr}"
    assert "Traceback" not in result.stdout + result.stderr and "unexpected failure" not in result.stderr
    return [line for line in result.stderr.splitlines() if line.startswith("note:")]


def repaired_once(result, because: str) -> str:
    """The command succeeded and said, in one ``note:`` line, that it rebuilt the tables."""
    notes = notes_of(result)
    assert len(notes) == 1 and len(result.stderr.splitlines()) == 1, result.stderr
    assert notes[0].startswith(NOTE) and notes[0].endswith("); rebuilt them from the log"), notes[0]
    assert because in notes[0], notes[0]
    return notes[0]


def history(db: Path, viewer: str = "public", expect_note: str | None = None) -> list[dict]:
    """``ledger --as VIEWER --json history``; a note only if ``expect_note`` (its reason)."""
    result = run_ledger("--as", viewer, "--json", "history", db=db)
    if expect_note is None:
        assert notes_of(result) == [], result.stderr
    else:
        repaired_once(result, expect_note)
    return json.loads(result.stdout)


def seqs(rows: list[dict]) -> list[int]:
    return [row["seq"] for row in rows]


def assert_tables_follow_the_log(db: Path) -> None:
    """Caught up, and every row is what the log gives."""
    with opened(db) as (ledger, model):
        assert model.position() == ledger.recorder.max_notification_id()
        assert compare_with_log(model) is None


def record_new_action(db: Path, expect_note: str | None = None) -> int:
    """``ledger hero add zed``: its seq."""
    result = run_ledger("--json", "hero", "add", "zed", db=db)
    if expect_note is None:
        assert notes_of(result) == [], result.stderr
    else:
        repaired_once(result, expect_note)
    return json.loads(result.stdout)["seq"]


# -- untouched tables ------------------------------------------------------------------------------
def test_untouched_read_models_are_never_rebuilt(demo, copy, monkeypatch):
    def no_rebuild(self):
        raise AssertionError("untouched tables were rebuilt")

    monkeypatch.setattr(ReadModel, "_reset", no_rebuild)
    position = position_row(copy)
    assert seqs(history(copy)) == list(range(1, demo.last + 1))
    assert seqs(history(copy, "ana")) == list(range(1, demo.last + 1))
    assert notes_of(run_ledger("--as", "public", "card", "item-sword", db=copy)) == []
    assert position_row(copy) == position
    seq = record_new_action(copy)
    assert seq == demo.last + 1
    assert seqs(history(copy, "referee")) == list(range(1, seq + 1))
    assert position_row(copy)[0] == max_notification(copy)
    assert_tables_follow_the_log(copy)


def test_the_per_command_checks_read_one_notification_and_one_campaign_never_the_log(copy, monkeypatch):
    with opened(copy) as (ledger, model):
        model.safe_catch_up()
        limits: list[int] = []
        travels: list[int] = []
        select, campaign = ledger.recorder.select_notifications, ledger.campaign

        def counted_select(*args, **kwargs):
            limits.append(kwargs.get("limit", args[1] if len(args) > 1 else None))
            return select(*args, **kwargs)

        def counted_campaign(cid, at=None):
            if at is not None:
                travels.append(at)
            return campaign(cid, at=at)

        monkeypatch.setattr(ledger.recorder, "select_notifications", counted_select)
        monkeypatch.setattr(ledger, "campaign", counted_campaign)
        assert model.safe_catch_up() == 0 and model.repaired is None
        assert limits == [1], "the position check should read the one notification at the position"
        assert travels == [], "the fold check should use the campaign at hand, not replay the log"


# -- the log's tail cut off ------------------------------------------------------------------------
CUT = "error: the log of campaign {slug} ends at seq {left}, but the read models recorded it up to seq {last}: "


def refused_as_cut(result, demo: Demo, left: int) -> None:
    """One ``error:`` line naming the campaign, where its log ends and what the tables
    recorded, and the two commands that go on from there; exit 1."""
    assert result.returncode == 1, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "unexpected failure" not in result.stderr
    assert result.stderr.splitlines() == [result.stderr.strip()], result.stderr
    assert result.stderr.startswith(CUT.format(slug=demo.slug, left=left, last=demo.last)), result.stderr
    assert "ledger verify" in result.stderr and "ledger rebuild" in result.stderr


@pytest.mark.parametrize("count", [1, 4])
def test_a_cut_tail_stops_every_command_until_rebuild_accepts_the_log_as_it_stands(demo, copy, count):
    """The read models are the one trace of a cut the file keeps: rebuilding them on the
    next command (as earlier ledgers did, with a note) erased it, and an action recorded
    on top took a lost action's seq, after which verify passed. Every command that shows,
    checkpoints, exports or records from the campaign now refuses, appending nothing;
    verify names the first missing seq; ``ledger rebuild`` is the explicit way on."""
    cut_tail(copy, demo.cid, demo.last, count)
    left = demo.last - count
    before = max_notification(copy)
    for command in (["--as", "public", "--json", "history"], ["--as", "ana", "zones"], ["explain", "3"],
                    ["card", "item-sword"], ["checkpoint"], ["--as", "ana", "export", str(copy.parent / "x.jsonl")],
                    ["hero", "add", "zed"], ["--actor", "master", "battle", "start"], ["seat", "add", "ana"]):
        refused_as_cut(run_ledger(*command, db=copy), demo, left)
    assert max_notification(copy) == before, "a refused command appended"
    assert not (copy.parent / "x.jsonl").exists()
    verified = run_ledger("verify", db=copy)
    assert verified.returncode == 1 and f"first bad seq: {left + 1}" in verified.stderr, verified.stderr
    rebuilt = run_ledger("rebuild", db=copy)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rebuilt.stderr.startswith("note: rebuilding accepts a log that lost actions: " +
                                     CUT.format(slug=demo.slug, left=left, last=demo.last)[len("error: "):])
    assert seqs(history(copy)) == list(range(1, left + 1))
    seq = record_new_action(copy)
    assert seq == left + 1
    rows = history(copy, "referee")
    assert seqs(rows) == list(range(1, seq + 1))
    assert (rows[-1]["action"], rows[-1]["actor"]) == ("hero add", "master") and "zed" in rows[-1]["summary"]
    assert_tables_follow_the_log(copy)
    assert run_ledger("verify", db=copy).returncode == 0


def test_a_cut_tail_whose_history_rows_were_deleted_too_is_refused_by_the_position_left(demo, copy):
    """Found by a QA pass: the last action cut from the log and its history and
    card_actions rows deleted with it, so that no history is past its log. The position
    the tables reached (and the last action it names) is still past the log's end: every
    command used to rebuild over it with a note, verify too (exit 0), and the next action
    took the lost seq. It is refused as a cut, until ``ledger rebuild``."""
    cut_tail(copy, demo.cid, demo.last, 1)
    with raw(copy) as con:
        for table in ("history", "card_actions"):
            assert con.execute(f"DELETE FROM [{table}] WHERE seq = ?", [demo.last]).rowcount >= 1
    left = demo.last - 1
    before = max_notification(copy)
    for command in (["--as", "public", "--json", "history"], ["zones"], ["checkpoint"], ["hero", "add", "zed"]):
        refused_as_cut(run_ledger(*command, db=copy), demo, left)
    assert max_notification(copy) == before, "a refused command appended"
    verified = run_ledger("verify", db=copy)
    assert verified.returncode == 1 and CUT.format(slug=demo.slug, left=left, last=demo.last)[len("error: "):] \
        in verified.stderr, verified.stderr
    rebuilt = run_ledger("rebuild", db=copy)
    assert rebuilt.returncode == 0 and "lost actions" in rebuilt.stderr, rebuilt.stderr
    assert seqs(history(copy)) == list(range(1, left + 1))
    assert_tables_follow_the_log(copy)


def test_a_file_whose_log_lost_actions_takes_no_new_campaign_by_init_or_import(demo, copy, tmp_path):
    exported = tmp_path / "other.jsonl"
    assert run_ledger("export", str(exported), db=demo.db).returncode == 0
    cut_tail(copy, demo.cid, demo.last, 1)
    before = max_notification(copy)
    refused_as_cut(run_ledger("--campaign", "new", "init", "--catalog", str(sample_catalog_path()), db=copy),
                   demo, demo.last - 1)
    refused_as_cut(run_ledger("import", str(exported), db=copy), demo, demo.last - 1)
    assert max_notification(copy) == before, "appended before refusing"


def two_campaigns_demo_cut_mid_log(copy: Path, demo: Demo) -> None:
    """Campaign north begun after the demo, then the demo's last action deleted: the
    position (north's) still fits the log."""
    sample = str(sample_catalog_path())
    for command in (["--campaign", "north", "init", "--catalog", sample], ["--campaign", "north", "battle", "start"],
                    ["--campaign", "north", "history"]):
        assert run_ledger(*command, db=copy).returncode == 0
    cut_tail(copy, demo.cid, demo.last, 1)


def test_a_rebuild_for_another_reason_never_erases_a_cut(demo, copy):
    """North's cards row edited: its command would rebuild the tables (the fold check),
    which would forget the demo's cut; they are kept instead, and the action, recorded in
    north's own log (which lost nothing) before the check, is printed with a note naming
    the cut (it used to be an error line, exit 1, though recorded)."""
    two_campaigns_demo_cut_mid_log(copy, demo)
    with raw(copy) as con:
        con.execute("UPDATE cards SET exhausted = 1 WHERE campaign = 'north' AND id = 'item-sword'")
    ended = run_ledger("--campaign", "north", "battle", "end", db=copy)
    assert ended.returncode == 0 and ended.stdout.startswith("seq 3  the battle ends"), ended.stdout
    assert ended.stderr.startswith("note: seq 3 is recorded, but the read models cannot follow the log: "
                                   + CUT.format(slug=demo.slug, left=demo.last - 1, last=demo.last)[len("error: "):]), ended.stderr
    refused_as_cut(run_ledger("--campaign", demo.slug, "battle", "start", db=copy), demo, demo.last - 1)


def test_verify_of_another_campaign_names_the_cut_and_keeps_its_trace(demo, copy):
    two_campaigns_demo_cut_mid_log(copy, demo)
    refused_as_cut(run_ledger("--campaign", "north", "verify", db=copy), demo, demo.last - 1)
    refused_as_cut(run_ledger("--campaign", demo.slug, "battle", "start", db=copy), demo, demo.last - 1)


def test_a_log_emptied_behind_the_tables_says_so_and_takes_no_simulation(demo, copy):
    with raw(copy) as con:
        con.execute("DELETE FROM stored_events")
        con.execute("DELETE FROM stored_snapshots")
    refused = run_ledger("zones", db=copy)  # not "no campaign yet"
    assert refused.returncode == 1 and refused.stderr.startswith(
        f"error: the read models recorded campaign {demo.slug} up to seq {demo.last}, but the log's list of campaigns "
        "no longer names it"), refused.stderr
    refused = run_ledger("simulate", "--actions", "5", db=copy)
    assert refused.returncode == 1 and "no longer names it" in refused.stderr, refused.stderr
    assert max_notification(copy) in (0, None), "simulate wrote before refusing"


def test_a_cut_tail_the_tables_never_caught_up_with_leaves_no_trace_and_stops_nothing(demo, copy):
    """Actions recorded with no catch-up after them (a crash before it), then cut: the
    tables never recorded them, so nothing in the file says they were there (a checkpoint
    kept outside it does), and the campaign goes on from where its log ends."""
    actions_without_catch_up(copy, demo.cid)
    cut_tail(copy, demo.cid, demo.last + 3, 3)
    assert seqs(history(copy)) == list(range(1, demo.last + 1))
    assert record_new_action(copy) == demo.last + 1


def test_a_cut_tail_refused_by_the_tables_names_no_hidden_card_to_a_hero(demo, copy):
    cut_tail(copy, demo.cid, demo.last, 2)
    refused = run_ledger("--as", "ana", "--json", "zones", db=copy)
    refused_as_cut(refused, demo, demo.last - 2)
    assert "item-" not in refused.stderr + refused.stdout and "skill-" not in refused.stderr


@pytest.mark.parametrize("after", ["seat", "checkpoint", "other-campaign"])
def test_a_cut_tail_is_refused_though_the_log_went_on_past_it_in_other_streams(demo, copy, after):
    """Seats, kept checkpoints and other campaigns are events of the same log: once the
    tables followed them, the position still fits the log after the campaign's last
    action is deleted. The campaign at hand is compared with its own history all the
    same (two one-row reads a command), so the cut is refused, not built on."""
    sample = str(sample_catalog_path())
    extra = {"seat": [["seat", "add", "ana"]], "checkpoint": [["checkpoint"]],
             "other-campaign": [["--campaign", "other", "init", "--catalog", sample],
                                ["--campaign", "other", "hero", "add", "bo"]]}[after]
    for command in extra:
        assert run_ledger(*command, db=copy).returncode == 0
    campaign = [] if after != "other-campaign" else ["--campaign", demo.slug]
    assert run_ledger(*campaign, "history", db=copy).returncode == 0  # the tables follow past them
    cut_tail(copy, demo.cid, demo.last, 1)
    with opened(copy) as (_ledger, model):
        assert model.position_problem() is None, "the position alone would not tell"
    before = max_notification(copy)
    for command in (["--actor", "master", "battle", "start"], ["--as", "ana", "zones"], ["checkpoint"]):
        refused_as_cut(run_ledger(*campaign, *command, db=copy), demo, demo.last - 1)
    assert max_notification(copy) == before
    assert run_ledger(*campaign, "verify", db=copy).returncode == 1
    if after == "other-campaign":  # the other campaign goes on (its log lost nothing, and catching up after
        assert run_ledger("--campaign", "other", "hero", "add", "cy", db=copy).returncode == 0  # it rebuilds nothing)
        refused_as_cut(run_ledger(*campaign, "zones", db=copy), demo, demo.last - 1)  # the trace kept


def test_a_campaign_gone_from_the_log_with_its_entry_in_the_list_is_refused(demo, copy):
    """An older copy of the log put back, from before a campaign began: its start and its
    entry in the list of campaigns are gone together (a ledger writes them together), and
    only the read models remember it."""
    sample = str(sample_catalog_path())
    assert run_ledger("--campaign", "other", "init", "--catalog", sample, db=copy).returncode == 0
    assert run_ledger("--campaign", "other", "hero", "add", "bo", db=copy).returncode == 0
    assert run_ledger("--campaign", "other", "history", db=copy).returncode == 0
    with raw(copy) as con:
        gone = con.execute("SELECT min(rowid) FROM stored_events WHERE topic = 'ledger.events:CampaignRegistered' "
                           "AND rowid > (SELECT min(rowid) FROM stored_events WHERE topic = "
                           "'ledger.events:CampaignRegistered')").fetchone()[0]
        con.execute("DELETE FROM stored_events WHERE rowid >= ?", [gone - 1])
    refused = run_ledger("zones", db=copy)  # the only campaign the list names now
    assert refused.returncode == 1 and "campaign other up to seq 2, but the log's list of campaigns no longer " \
        "names it" in refused.stderr, refused.stderr
    assert run_ledger("rebuild", db=copy).returncode == 0
    assert seqs(history(copy)) == list(range(1, demo.last + 1))


def test_last_history_seq_shows_a_tail_cut_and_catching_up_refuses_to_forget_it(demo, copy):
    from ledger.errors import DamagedRecord

    cut_tail(copy, demo.cid, demo.last, 2)
    with opened(copy) as (ledger, model):
        assert model.last_history_seq(demo.slug) == demo.last > ledger.last_seq(demo.cid) == demo.last - 2
        assert model.last_history_seq("no-such-campaign") is None
        assert model.cut_log()[0] == demo.slug
        assert model.cut_log()[1].startswith(f"the log of campaign {demo.slug} ends at seq {demo.last - 2}")
        with pytest.raises(DamagedRecord, match="ledger rebuild accepts"):
            model.refuse_cut_log()
        with pytest.raises(DamagedRecord, match="ledger rebuild accepts"):
            model.safe_catch_up()
        assert model.last_history_seq(demo.slug) == demo.last, "the refused catch-up dropped the rows"
        model.rebuild()
        assert model.last_history_seq(demo.slug) == demo.last - 2 and model.cut_log() is None


def test_a_whole_campaign_cut_from_the_log_is_named_by_its_rows(demo, copy):
    """Every stored event of the campaign deleted (its entry in the list of campaigns
    left): its history rows still name it, as a log ending at seq 0."""
    with opened(copy) as (ledger, model):
        model.safe_catch_up()
    with raw(copy) as con:
        con.execute("DELETE FROM stored_events WHERE originator_id IN (?, ?)", _ids(demo.cid))
    with opened(copy, create=True) as (ledger, model):
        assert model.cut_log()[1].startswith(f"the log of campaign {demo.slug} ends at seq 0, but")


# -- the position moved -------------------------------------------------------------------------------
@pytest.mark.parametrize("forged", [False, True], ids=["mark-left", "mark-forged"])
def test_a_position_moved_back_is_rebuilt_not_applied_twice(demo, copy, forged):
    position = position_row(copy)[0]
    back = position - 3
    if forged:  # the mark and last action of the notification it now names: rows past it are found
        note = notification(copy, back)
        set_position(copy, back, mark_of(note), f"{note.originator_id}:{note.originator_version}")
        because = "is past position"
    else:
        set_position(copy, back)
        because = "no longer points at the stored event"
    assert seqs(history(copy, expect_note=because)) == list(range(1, demo.last + 1))
    assert_tables_follow_the_log(copy)


def actions_without_catch_up(db: Path, cid: UUID) -> None:
    """Three actions recorded with no catch-up (as after a crash before it)."""
    ledger = Ledger.open(db)
    try:
        for hero in ("xi", "yu", "zo"):
            ledger.execute(cid, c.AddHero(hero=hero))
    finally:
        ledger.close()


@pytest.mark.parametrize("forged", [False, True], ids=["mark-left", "mark-forged"])
def test_a_position_moved_ahead_is_rebuilt_not_skipping_actions(demo, copy, forged):
    actions_without_catch_up(copy, demo.cid)
    end = max_notification(copy)
    if forged:  # the end's own mark and last action: the tables lack its history row
        note = notification(copy, end)
        set_position(copy, end, mark_of(note), f"{note.originator_id}:{note.originator_version}")
        because = f"history row seq {demo.last + 3} of campaign {demo.slug} is missing"
    else:
        set_position(copy, end)
        because = "no longer points at the stored event"
    assert seqs(history(copy, expect_note=because)) == list(range(1, demo.last + 4)), "actions were skipped"
    assert_tables_follow_the_log(copy)


@pytest.mark.parametrize("position, because", [
    (10_000, "position 10000 is past the log's end"),
    (-1, "position -1 is not a place in the log"),
    (0, "rows were there before the position's first action"),
])
def test_a_position_outside_the_log_is_rebuilt(demo, copy, position, because):
    set_position(copy, position)
    assert seqs(history(copy, expect_note=because)) == list(range(1, demo.last + 1))
    assert_tables_follow_the_log(copy)


@pytest.mark.parametrize("edit, because", [
    ("UPDATE projection_position SET position = 'abc'", "position 'abc' is not a place in the log"),
    ("UPDATE projection_position SET mark = 5", "no longer points at the stored event"),
    ("UPDATE projection_position SET last_action = 7", "the last action applied, '7', names no action"),
    ("UPDATE projection_position SET last_action = 'garbage'", "the last action applied, 'garbage', names no action"),
    ("UPDATE projection_position SET last_action = replace(last_action, ':36', ':20')",
     "position 37 reached seq 36, yet the last action applied is seq 20"),
    ("INSERT INTO cards (campaign, id) VALUES ('demo', NULL)", "cards row None of campaign demo is not in the log"),
], ids=["position-text", "mark-number", "last-action-number", "last-action-text", "last-action-behind",
        "card-without-id"])
def test_odd_values_in_the_tables_are_rebuilt_never_an_unexpected_failure(demo, copy, edit, because):
    assert (demo.slug, demo.last) == ("demo", 36), "the reasons below name the demo's campaign and last seq"
    with raw(copy) as con:
        con.execute(edit)
    assert seqs(history(copy, expect_note=because)) == list(range(1, demo.last + 1))
    assert_tables_follow_the_log(copy)


# -- edited rows ----------------------------------------------------------------------------------------
def a_card_in(db: Path, slug: str, zone: str) -> str:
    with raw(db) as con:
        return con.execute("SELECT id FROM cards WHERE campaign = ? AND zone = ? ORDER BY id LIMIT 1",
                           [slug, zone]).fetchone()[0]


@pytest.mark.parametrize("edit", ["card zone", "zone count", "card deleted", "card added"])
def test_an_edited_card_or_zone_row_is_rebuilt_on_the_next_command(demo, copy, edit):
    card = a_card_in(copy, demo.slug, "inventory:ana")
    with raw(copy) as con:
        if edit == "card zone":
            con.execute("UPDATE cards SET zone = 'limbo' WHERE campaign = ? AND id = ?", [demo.slug, card])
            because = f"cards row {card} of campaign {demo.slug} differs from the log in its zone"
        elif edit == "zone count":
            con.execute("UPDATE zones SET count = 99 WHERE campaign = ? AND id = 'inventory:ana'", [demo.slug])
            because = f"zones row inventory:ana of campaign {demo.slug} differs from the log in its count"
        elif edit == "card deleted":
            con.execute("DELETE FROM cards WHERE campaign = ? AND id = ?", [demo.slug, card])
            because = f"cards row {card} of campaign {demo.slug} is missing"
        else:
            con.execute("INSERT INTO cards (campaign, id, zone) VALUES (?, 'item-forged', 'inventory:ana')",
                        [demo.slug])
            because = f"cards row item-forged of campaign {demo.slug} is not in the log"
    with opened(copy) as (ledger, model):
        assert because in compare_with_log(model)
    history(copy, expect_note=because)
    assert_tables_follow_the_log(copy)
    history(copy)  # and once rebuilt, no more notes


def a_row_hidden_from_the_public(db: Path, slug: str) -> tuple[int, list[str], str]:
    """A history row (seq, cards, seen) where the public did not see some card take part."""
    with raw(db) as con:
        for seq, cards, seen in con.execute("SELECT seq, cards, seen FROM history WHERE campaign = ? ORDER BY seq",
                                            [slug]):
            if any("public" not in json.loads(seen).get(card, []) for card in json.loads(cards)):
                return seq, json.loads(cards), seen
    raise AssertionError("the demo shows the public every card")


@pytest.mark.parametrize("edit", ["summary", "actor", "seen widened", "undone_by", "deleted", "added",
                                  "card_actions deleted", "card_actions added"])
def test_compare_with_log_names_the_first_history_row_that_differs(demo, copy, edit):
    seq = 12
    slug = demo.slug
    with raw(copy) as con:
        if edit == "summary":
            con.execute("UPDATE history SET summary = 'nothing happened' WHERE campaign = ? AND seq = ?", [slug, seq])
            wanted = f"history row seq {seq} of campaign {slug} differs from the log in its summary"
        elif edit == "actor":
            con.execute("UPDATE history SET actor = 'nobody' WHERE campaign = ? AND seq = ?", [slug, seq])
            wanted = f"history row seq {seq} of campaign {slug} differs from the log in its actor"
        elif edit == "seen widened":
            seq, cards, seen = a_row_hidden_from_the_public(copy, slug)
            wide = json.dumps({card: ["public", *json.loads(seen).get(card, [])] for card in cards})
            con.execute("UPDATE history SET seen = ? WHERE campaign = ? AND seq = ?", [wide, slug, seq])
            wanted = f"history row seq {seq} of campaign {slug} differs from the log in its seen"  # never the values
        elif edit == "undone_by":
            con.execute("UPDATE history SET undone_by = 30 WHERE campaign = ? AND seq = ?", [slug, seq])
            wanted = f"history row seq {seq} of campaign {slug} differs from the log in its undone_by"
        elif edit == "deleted":
            con.execute("DELETE FROM history WHERE campaign = ? AND seq = ?", [slug, seq])
            wanted = f"history row seq {seq} of campaign {slug} is missing"
        elif edit == "added":
            con.execute("INSERT INTO history (campaign, seq, action, actor) VALUES (?, ?, 'draw', 'ana')",
                        [slug, demo.last + 5])
            wanted = f"history row seq {demo.last + 5} of campaign {slug} is not in the log"
        elif edit == "card_actions deleted":
            card = con.execute("SELECT card FROM card_actions WHERE campaign = ? AND seq = ? ORDER BY card LIMIT 1",
                               [slug, seq]).fetchone()[0]
            con.execute("DELETE FROM card_actions WHERE campaign = ? AND card = ? AND seq = ?", [slug, card, seq])
            wanted = f"card_actions row ({card}, seq {seq}) of campaign {slug} is missing"
        else:
            con.execute("INSERT INTO card_actions (campaign, card, seq) VALUES (?, 'item-forged', ?)", [slug, seq])
            wanted = f"card_actions row (item-forged, seq {seq}) of campaign {slug} is not in the log"
    with opened(copy) as (ledger, model):
        found = compare_with_log(model, batch=5)  # several batches
        assert found is not None and found.startswith(wanted), found
        assert "\n" not in found
        model.rebuild()
        assert compare_with_log(model) is None


def test_compare_with_log_undone_by_as_the_later_undos_and_redos_leave_it(tmp_path):
    """The demo undoes nothing: a campaign that undoes, redoes and undoes again."""
    db = tmp_path / "undo.db"
    with opened(db, create=True) as (ledger, model):
        cid = ledger.start(CATALOG, name="Undo", slug="undo").campaign.id
        ledger.execute(cid, c.Add(cards=("item-sword", "item-bow"), to="discard"))
        ledger.execute(cid, c.Undo())
        ledger.execute(cid, c.Redo())
        ledger.execute(cid, c.Add(cards=("item-rope",), to="discard"))
        ledger.execute(cid, c.Undo())
        model.catch_up()
        assert compare_with_log(model, batch=2) is None
        with raw(db) as con:
            undone = con.execute("SELECT seq, undone_by FROM history WHERE undone_by IS NOT NULL").fetchall()
            assert undone == [(5, 6)], undone
            con.execute("UPDATE history SET undone_by = NULL WHERE seq = 5")
            con.execute("UPDATE history SET undone_by = 4 WHERE seq = 2")
        assert compare_with_log(model, batch=2) == (
            "history row seq 2 of campaign undo differs from the log in its undone_by")
        with raw(db) as con:
            con.execute("UPDATE history SET undone_by = NULL WHERE seq = 2")
        assert compare_with_log(model, batch=2) == (
            "history row seq 5 of campaign undo differs from the log in its undone_by")


def test_compare_with_log_keeps_two_campaigns_apart(tmp_path):
    db = tmp_path / "two.db"
    with opened(db, create=True) as (ledger, model):
        north = ledger.start(CATALOG, name="North", slug="north").campaign.id
        south = ledger.start(CATALOG, name="South", slug="south").campaign.id
        for cid, hero, card in ((north, "ana", "item-sword"), (south, "bo", "item-sword"), (north, "cy", "item-bow")):
            ledger.execute(cid, c.AddHero(hero=hero))
            ledger.execute(cid, c.Add(cards=(card,), to=f"inventory:{hero}"))
        model.catch_up()
        assert compare_with_log(model, batch=3) is None
        with raw(db) as con:
            con.execute("UPDATE cards SET face = 'up' WHERE campaign = 'south' AND id = 'item-sword'")
        assert compare_with_log(model, batch=3) == (
            "cards row item-sword of campaign south differs from the log in its face")
        with raw(db) as con:
            con.execute("UPDATE cards SET face = 'down' WHERE campaign = 'south' AND id = 'item-sword'")
            con.execute("INSERT INTO zones (campaign, id) VALUES ('west', 'limbo')")
        assert compare_with_log(model) == "zones row limbo of campaign west is not in the log"


def test_compare_with_log_reports_a_position_that_does_not_follow_the_log(demo, copy):
    set_position(copy, 10_000)
    with opened(copy) as (ledger, model):
        assert compare_with_log(model) == f"position 10000 is past the log's end, {demo.last + 1}"


# -- tables missing, older files --------------------------------------------------------------------------
@pytest.mark.parametrize("table", [*TABLES, POSITION])
def test_a_dropped_table_is_made_again_and_filled_from_the_log(demo, copy, table):
    with raw(copy) as con:
        con.execute(f"DROP TABLE [{table}]")
    assert seqs(history(copy, expect_note=f"table {table} was missing")) == list(range(1, demo.last + 1))
    assert_tables_follow_the_log(copy)


@pytest.mark.parametrize("table", TABLES)
def test_a_dropped_table_is_still_distrusted_after_an_opening_that_stopped_before_its_rebuild(demo, copy, table,
                                                                                             monkeypatch):
    """The opening that makes a missing table again may stop before its catch-up rebuilds
    (the file's lock met by a later step): the next opening must not trust the other
    tables' rows against an empty table made in the meantime."""
    from ledger.errors import FileBusy

    with raw(copy) as con:
        con.execute(f"DROP TABLE [{table}]")

    def lock_met(_self):
        raise FileBusy("the lock was met")

    with monkeypatch.context() as patched:
        patched.setattr(ReadModel, "_add_marks", lock_met)
        ledger = Ledger.open(copy)
        try:
            with pytest.raises(FileBusy):
                ReadModel(ledger, copy)
        finally:
            ledger.close()
    assert seqs(history(copy, expect_note="rows were there before the position's first action")) == list(
        range(1, demo.last + 1))
    assert_tables_follow_the_log(copy)


def test_a_deleted_position_row_is_rebuilt(demo, copy):
    with raw(copy) as con:
        con.execute(f"DELETE FROM [{POSITION}]")
    assert seqs(history(copy, expect_note="the position is missing")) == list(range(1, demo.last + 1))
    assert_tables_follow_the_log(copy)


def test_a_file_from_before_the_marks_gets_them_without_a_rebuild(demo, copy, monkeypatch):
    with raw(copy) as con:
        con.execute(f"ALTER TABLE [{POSITION}] DROP COLUMN mark")
        con.execute(f"ALTER TABLE [{POSITION}] DROP COLUMN last_action")

    def no_rebuild(self):
        raise AssertionError("an older file was rebuilt")

    monkeypatch.setattr(ReadModel, "_reset", no_rebuild)
    assert seqs(history(copy)) == list(range(1, demo.last + 1))
    position, mark, last_action = position_row(copy)
    assert mark == mark_of(notification(copy, position)) and last_action is None
    monkeypatch.undo()
    seq = record_new_action(copy)
    assert position_row(copy)[2] == f"{demo.cid}:{seq}"
    assert_tables_follow_the_log(copy)


def test_one_mark_column_missing_is_no_older_file_and_is_rebuilt(demo, copy):
    with raw(copy) as con:
        con.execute(f"ALTER TABLE [{POSITION}] DROP COLUMN mark")
    assert seqs(history(copy, expect_note=f"column mark of {POSITION} was missing")) == list(
        range(1, demo.last + 1))
    assert_tables_follow_the_log(copy)


# -- racing processes ------------------------------------------------------------------------------------
def test_readers_racing_a_writer_and_a_rebuild_never_take_each_other_for_tampering(tmp_path):
    """Two readers catch up while a writer records and a third process rebuilds twice:
    positions move under each other's feet, legitimately; no reader may call it a repair."""
    db = tmp_path / "race.db"
    app = Ledger.open(db, create=True)
    cid = app.start(CATALOG, name="Race", slug="race").campaign.id
    for hero in ("ana", "bo"):
        app.execute(cid, c.AddHero(hero=hero))
    app.execute(cid, c.Add(cards=tuple(i for i in CATALOG.ids() if i.startswith("item-")), to="deck:item"))
    ReadModel(app, db).close()
    stop = threading.Event()
    errors: list[BaseException] = []
    repairs: list[str] = []

    def writer() -> None:
        ledger = Ledger.open(db)
        try:
            for n in range(DRAWS):
                ledger.execute(cid, c.Draw(actor=("ana", "bo")[n % 2], stack="deck:item"))
                time.sleep(0.003)
        except Exception as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)
        finally:
            ledger.close()
            stop.set()

    def reader() -> None:
        with opened(db) as (ledger, model):
            try:
                while not stop.is_set() or model.position() != ledger.recorder.max_notification_id():
                    model.safe_catch_up()
                    if model.repaired:
                        repairs.append(model.repaired)
            except Exception as exc:  # noqa: BLE001 - reported by the test below
                errors.append(exc)

    def rebuilder() -> None:
        with opened(db) as (_ledger, model):
            try:
                for _ in range(2):
                    time.sleep(0.01)
                    try:
                        model.rebuild(progress=lambda *_: time.sleep(0.001))
                    except readmodel._Raced:
                        pass  # a reader moved the position first: the readers finish the job
                    if model.repaired:
                        repairs.append(model.repaired)
            except Exception as exc:  # noqa: BLE001 - reported by the test below
                errors.append(exc)

    threads = [threading.Thread(target=t) for t in (writer, reader, reader, rebuilder)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    try:
        assert not errors, f"a racing catch-up failed: {errors[0]!r}"
        assert not repairs, f"a legitimate race was taken for tampering: {repairs}"
        model = ReadModel(app, db)
        try:
            model.safe_catch_up()
            assert model.repaired is None
            assert compare_with_log(model) is None
            campaign = app.campaign(cid)
            assert model.last_history_seq("race") == campaign.seq == 4 + DRAWS
            assert all(row == card_row(campaign, row["id"]) for row in model.db["cards"].rows)
            assert all(row == zone_row(campaign, row["id"]) for row in model.db["zones"].rows)
        finally:
            model.close()
    finally:
        app.close()


def test_a_tail_cut_from_the_campaign_not_used_last_is_refused_for_it_while_the_other_goes_on(tmp_path):
    """Two campaigns in one file, the tail of the one not used last cut: the position
    still fits the log, but every command on that campaign compares its history with its
    log and refuses (it used to serve its history and leave the cut to verify); the other
    campaign goes on, and catching up after it rebuilds nothing."""
    db = tmp_path / "two.db"
    sample = str(sample_catalog_path())
    for slug in ("north", "south"):
        assert run_ledger("--campaign", slug, "init", "--catalog", sample, "--name", slug, db=db).returncode == 0
        assert run_ledger("--campaign", slug, "hero", "add", "ana", db=db).returncode == 0
        assert run_ledger("--campaign", slug, "add", "item-sword", "--to", "discard", db=db).returncode == 0
    ledger = Ledger.open(db)
    try:
        north = ledger.resolve("north")
        last = ledger.last_seq(north)
    finally:
        ledger.close()
    cut_tail(db, north, last, 1)
    assert run_ledger("--campaign", "south", "battle", "start", db=db).returncode == 0
    shown = run_ledger("--json", "--campaign", "north", "--as", "public", "history", db=db)
    assert shown.returncode == 1 and json.loads(shown.stdout)["error"]["code"] == "damaged", shown.stdout
    assert shown.stderr.startswith(f"error: the log of campaign north ends at seq {last - 1}, but the read models "
                                   f"recorded it up to seq {last}: ")
    verified = run_ledger("--campaign", "north", "verify", db=db)
    assert verified.returncode == 1 and f"first bad seq: {last}" in verified.stderr
