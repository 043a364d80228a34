"""One campaign's damaged log stops the read models for that campaign only
(projections/readmodel.py, ``_Fold._break``): the tables keep its rows up to the action
they cannot follow (one that cannot be read, or out of order in the file), its reads
are refused in one line naming it, and the file's other campaigns are recorded, shown
and verified as before. Before, the first such action stopped the catch-up of the
whole file: every campaign's history, every action's read models (an action recorded,
then reported as an error) and every ``verify``.

Each attack is made with plain ``sqlite3`` on a copy of a real file holding two
campaigns (``demo`` and ``beta``); a rebuild with a helper process stops where a rebuild
alone does, whichever process meets the damage.
"""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import sample_catalog_path
from ledger.interface.simulate import simulate, start_simulation
from projections import pipeline, readmodel
from projections.consistency import compare_with_log
from projections.readmodel import ReadModel

from .conftest import copy_db, json_of, one_error_line, run_ledger, succeeded
from .test_readmodel_damage import forget_tables, raw
from .test_readmodel_trust import opened

SAMPLE = str(sample_catalog_path())


@pytest.fixture(scope="module")
def two_db(tmp_path_factory) -> Path:
    """The demo campaign and a second one, ``beta``, with a hero and a few actions."""
    db = tmp_path_factory.mktemp("two") / "campaign.db"
    succeeded(run_ledger("demo", db=db))
    succeeded(run_ledger("init", "--catalog", SAMPLE, "--name", "Beta", db=db))
    for args in (["hero", "add", "ana"], ["add", "item-sword", "item-rope", "item-torch", "--to", "deck:item"],
                 ["--actor", "ana", "draw", "deck:item"]):
        succeeded(run_ledger("--campaign", "beta", *args, db=db))
    return db


@pytest.fixture
def two(two_db, tmp_path) -> Path:
    return copy_db(two_db, tmp_path)


def unreadable(db: Path, slug: str, seq: int) -> None:
    """Action ``seq`` of campaign ``slug`` made unreadable (its actor a number)."""
    cid = campaign_id(db, slug)
    raw(db, "UPDATE stored_events SET state = replace(state, ?, ?) WHERE originator_id = ? AND originator_version = ?",
        ['"actor":"', '"actor":5,"was":"', cid, seq])


def campaign_id(db: Path, slug: str) -> str:
    return next(cid for cid, state in raw(db, "SELECT originator_id, state FROM stored_events "
                                              "WHERE topic LIKE '%:CampaignStarted'")
                if json.loads(bytes(state))["slug"] == slug)


def swap(db: Path, one: int, other: int) -> None:
    """Notifications ``one`` and ``other`` change places in the log (their rowids)."""
    raw(db, "UPDATE stored_events SET rowid = -1 WHERE rowid = ?", [one])
    raw(db, "UPDATE stored_events SET rowid = ? WHERE rowid = ?", [one, other])
    raw(db, "UPDATE stored_events SET rowid = ? WHERE rowid = -1", [other])


def beta_works(db: Path) -> None:
    """Campaign beta is recorded, shown and verified with no word of the other's damage."""
    before = json_of(succeeded(run_ledger("--campaign", "beta", "--json", "history", db=db)))
    drawn = succeeded(run_ledger("--campaign", "beta", "--actor", "ana", "draw", "deck:item", db=db))
    assert drawn.stdout.startswith(f"seq {before[-1]['seq'] + 1}  draw"), drawn.stdout
    for args in (["--json", "history"], ["card", "item-sword"], ["--as", "ana", "history"], ["verify"]):
        result = succeeded(run_ledger("--campaign", "beta", *args, db=db))
        assert result.stderr == "", (args, result.stderr)
    after = json_of(succeeded(run_ledger("--campaign", "beta", "--json", "history", db=db)))
    assert after[:-1] == before and after[-1]["action"] == "draw"


@pytest.mark.parametrize("how", ["rebuild", "catch-up"])
def test_an_unreadable_action_of_one_campaign_stops_only_that_campaign(two, how):
    if how == "catch-up":  # actions of demo the read models have not applied yet (a crash before it)
        ledger = Ledger.open(two)
        try:
            cid = ledger.resolve("demo")
            for hero in ("xi", "yu"):
                ledger.execute(cid, c.AddHero(hero=hero))
            seq = ledger.last_seq(cid)
        finally:
            ledger.close()
    else:
        seq = 20
    unreadable(two, "demo", seq)
    if how == "rebuild":
        rebuilt = succeeded(run_ledger("rebuild", db=two))  # before: refused, and every campaign with it
        assert f"note: the read models stopped following campaign demo at seq {seq}: that action cannot be " \
               "read" in rebuilt.stderr, rebuilt.stderr
        assert json_of(succeeded(run_ledger("--json", "rebuild", db=two)))["stopped"] == [
            {"campaign": "demo", "seq": seq, "why": "unreadable"}]
    else:  # beta's next action catches up over demo's damage: recorded, and said so (before: "error:")
        drawn = succeeded(run_ledger("--campaign", "beta", "--actor", "ana", "draw", "deck:item", db=two))
        assert drawn.stdout.startswith("seq ") and "stopped following campaign demo" in drawn.stderr
        succeeded(run_ledger("--campaign", "beta", "undo", db=two))
    beta_works(two)
    assert raw(two, "SELECT max(seq) FROM history WHERE campaign = 'demo'")[0][0] == seq - 1
    line = one_error_line(run_ledger("--campaign", "demo", "history", db=two))
    assert "campaign demo" in line or f"seq {seq}" in line, line
    with opened(two) as (_ledger, model):
        assert compare_with_log(model) is None


def test_actions_out_of_order_in_one_campaign_stop_only_that_campaign(two):
    cid = campaign_id(two, "demo")
    (one,), (other,) = (raw(two, "SELECT rowid FROM stored_events WHERE originator_id = ? AND originator_version = ?",
                            [cid, seq])[0] for seq in (28, 29))
    swap(two, one, other)
    succeeded(run_ledger("rebuild", db=two))
    beta_works(two)
    for args in (["history"], ["card", "item-shield"], ["--as", "ana", "history"]):  # it would show 27 undone
        line = one_error_line(run_ledger("--campaign", "demo", *args, db=two))
        assert "stopped following campaign demo at seq 29: its log is out of order" in line, line
    drawn = succeeded(run_ledger("--campaign", "demo", "--actor", "ana", "draw", "deck:item", db=two))
    assert drawn.stdout.startswith("seq 37  draw") and drawn.stderr.startswith(  # the write side needs no rows
        "note: seq 37 is recorded, but the read models cannot follow the log: the read models stopped following "
        "campaign demo at seq 29"), drawn.stderr
    verified = run_ledger("--campaign", "demo", "--json", "verify", db=two)
    assert json.loads(verified.stdout)["bad_seq"] == 29 and "not intact" in one_error_line(verified)
    swap(two, one, other)  # the file mended: rebuild follows it again
    assert json_of(succeeded(run_ledger("--json", "rebuild", db=two)))["stopped"] == []
    succeeded(run_ledger("--campaign", "demo", "verify", db=two))


def test_a_stop_the_tables_claim_and_the_log_does_not_is_found_by_verify_and_rebuilt(two):
    """Someone with the file writes a stop for campaign beta (its reads refused): verify
    names it and rebuilds, and beta reads again."""
    raw(two, "INSERT INTO projection_position (name, position, mark, last_action) VALUES (?, 2, 'order', ?)",
        ["damaged beta", campaign_id(two, "beta")])
    assert "campaign beta at seq 2" in one_error_line(run_ledger("--campaign", "beta", "history", db=two))
    line = one_error_line(run_ledger("--campaign", "beta", "verify", db=two))
    assert "say they stopped following campaign beta at seq 2, but its log can be followed" in line, line
    beta_works(two)


def rowid_of(db: Path, slug: str, seq: int) -> int:
    return raw(db, "SELECT rowid FROM stored_events WHERE originator_id = ? AND originator_version = ?",
               [campaign_id(db, slug), seq])[0][0]


def demo_works(db: Path, hero: str = "zed") -> None:
    """Campaign demo is recorded (``hero`` joins), shown and verified."""
    succeeded(run_ledger("--campaign", "demo", "hero", "add", hero, db=db))
    for args in (["--json", "history"], ["verify"]):
        assert succeeded(run_ledger("--campaign", "demo", *args, db=db)).stderr == "", args


def test_a_campaign_whose_start_was_deleted_stops_alone(two):
    """Found by a QA pass: the fold's load of it failed as no ledger error (AggregateNotFoundError),
    an "unexpected failure" of every command of the file, after the rebuild had emptied the tables."""
    raw(two, "DELETE FROM stored_events WHERE rowid = ?", [rowid_of(two, "beta", 1)])
    rebuilt = succeeded(run_ledger("--json", "rebuild", db=two))
    assert json_of(rebuilt)["stopped"] == [{"campaign": "beta", "seq": 2, "why": "order"}], rebuilt.stdout
    demo_works(two)
    assert "unexpected" not in one_error_line(run_ledger("--campaign", "beta", "history", db=two))


def test_a_copy_of_an_action_under_another_id_stops_that_stream_alone(two):
    """A beta action copied under a new stream id (no start, no entry in the list):
    stopped under its id; the campaigns go on, and an action recorded meanwhile says so."""
    raw(two, "INSERT INTO stored_events (originator_id, originator_version, topic, state) SELECT ?, "
             "originator_version, topic, state FROM stored_events WHERE rowid = ?",
        ["a" * 32, rowid_of(two, "beta", 4)])
    drawn = succeeded(run_ledger("--campaign", "demo", "hero", "add", "yu", db=two))  # before: unexpected failure
    assert drawn.stdout.startswith("seq 37") and "stopped following campaign aaaaaaaa-" in drawn.stderr, drawn.stderr
    beta_works(two)
    demo_works(two)


def test_the_first_two_actions_of_a_campaign_swapped_stop_it_alone_and_verify_the_others(two):
    """Found by a QA pass: the fold took seq 2 as the campaign's first, and verify of every
    other campaign then failed on it."""
    swap(two, rowid_of(two, "beta", 1), rowid_of(two, "beta", 2))
    assert json_of(succeeded(run_ledger("--json", "rebuild", db=two)))["stopped"] == [
        {"campaign": "beta", "seq": 2, "why": "order"}]
    demo_works(two)


def test_an_action_edited_without_its_hash_stops_nothing_and_the_stops_do_not_depend_on_the_batches(two):
    """The read models leave the hash chain to verify: what they make of a campaign must not
    depend on where a batch ends (found by a QA pass: a stop found by a load at the end of a
    batch, at a seq that depended on it, made verify of every campaign fail every time)."""
    rowid = rowid_of(two, "beta", 4)
    state = bytes(raw(two, "SELECT state FROM stored_events WHERE rowid = ?", [rowid])[0][0]).decode()
    at = state.index('"timestamp":"') + len('"timestamp":"2026-')
    raw(two, "UPDATE stored_events SET state = ? WHERE rowid = ?",
        [(state[:at] + ("01" if state[at:at + 2] != "01" else "02") + state[at + 2:]).encode(), rowid])
    for batch in (1, 3, 7, 50):
        with opened(two) as (_ledger, model):
            forget_tables(model)
            model.catch_up(batch=batch)
            assert model.damaged() == []
            for other in (2, 5, 1000):
                assert compare_with_log(model, batch=other) is None, (batch, other)
    demo_works(two)
    assert "seq 4 does not match its hash" in one_error_line(run_ledger("--campaign", "beta", "verify", db=two))


def test_a_long_lived_process_follows_a_campaign_mended_and_rebuilt_by_another(two):
    """Found by a QA pass: the table server's read models kept the stop another process's
    rebuild had cleared, and left the campaign's new actions out of its history, silently."""
    rowid = rowid_of(two, "beta", 4)
    kept = raw(two, "SELECT state FROM stored_events WHERE rowid = ?", [rowid])[0][0]
    unreadable(two, "beta", 4)
    with opened(two) as (ledger, model):
        model.rebuild()  # (its fold then met every action from the log's start; a second QA pass)
        assert [b.slug for b in model.damaged()] == ["beta"]
        raw(two, "UPDATE stored_events SET state = ? WHERE rowid = ?", [kept, rowid])  # mended
        assert json_of(succeeded(run_ledger("--json", "rebuild", db=two)))["stopped"] == []
        recorded = ledger.execute(ledger.resolve("beta"), c.AddHero(hero="zed"))  # right after the rebuild's end
        model.safe_catch_up(recorded)
        assert model.damaged() == [] and model.repaired is None
        assert model.last_history_seq("beta") == ledger.last_seq(ledger.resolve("beta"))


@pytest.mark.parametrize("forged", ["no id", "another name"])
def test_a_forged_stop_never_hides_actions_silently(two, forged):
    """Found by a QA pass: a stop row with no id made every command an unexpected failure;
    one naming another campaign but carrying beta's id left beta's new actions out silently.
    verify finds either (the log is intact: the tables were changed) and rebuilds."""
    row = ["damaged beta", None] if forged == "no id" else ["damaged zzz", str(UUID(campaign_id(two, "beta")))]
    raw(two, "INSERT INTO projection_position (name, position, mark, last_action) VALUES (?, 2, 'order', ?)", row)
    succeeded(run_ledger("--campaign", "demo", "hero", "add", "zed", db=two))
    line = one_error_line(run_ledger("--campaign", "beta", "history", db=two))
    assert "stopped following campaign beta at seq 2" in line, line
    line = one_error_line(run_ledger("--campaign", "beta", "verify", db=two))
    assert "the log is intact, but the read-model tables did not match it" in line and \
        "stopped following campaign" in line and "but its log can be followed" in line, line
    beta_works(two)  # verify rebuilt the tables


# -- a rebuild with a helper process ---------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A simulated campaign of 400 actions."""
    path = tmp_path_factory.mktemp("played") / "sim.db"
    ledger = Ledger.open(path, create=True)
    try:
        simulate(ledger, start_simulation(ledger, heroes=2, seed=7), 400, seed=7)
    finally:
        ledger.close()
    return path


def _rebuilt(path: Path, monkeypatch, helped: bool) -> tuple[dict, list]:
    """The tables and the stops after a rebuild in batches of 50 notifications, with a
    helper (making batches 2, 3, 4, 6, 7, 8, 10…) or alone."""
    monkeypatch.setattr(pipeline, "LONG", 0 if helped else 10**9)
    monkeypatch.setattr(readmodel, "REBUILD_BATCH", 50)
    ledger = Ledger.open(path)
    model = ReadModel(ledger, path)
    try:
        model.rebuild()
        assert compare_with_log(model) is None
        tables = {table: model.read(f"SELECT * FROM [{table}] ORDER BY 1, 2, 3") for table in readmodel.TABLES}
        return tables, [(b.slug, b.seq, b.kind) for b in model.damaged()]
    finally:
        model.close()
        ledger.close()


# Batches of 50: 0, 1, 5, 9… are the rebuilding process's, 2, 3, 4, 6… the helper's.
@pytest.mark.parametrize("note", [100, 150, 250, 300])  # the last of batches 1, 2, 4 and 5
def test_a_rebuild_with_a_helper_stops_where_a_rebuild_alone_does(played, tmp_path, monkeypatch, note):
    """The last action of a batch swapped with the first of the next."""
    db = copy_db(played, tmp_path)
    swap(db, note, note + 1)
    helped, stops = _rebuilt(db, monkeypatch, helped=True)
    alone, alone_stops = _rebuilt(db, monkeypatch, helped=False)
    assert stops == alone_stops and len(stops) == 1 and stops[0][2] == "order", stops
    assert helped == alone


def test_a_helpers_batch_that_starts_out_of_order_stops_where_a_rebuild_alone_does(played, tmp_path, monkeypatch):
    """The first action of the helper's first batch (notification 101) given another seq:
    the helper has not seen the batches before and makes its rows; the rebuilding
    process finds, writing them, that the tables lack the seq before (and the helper's
    fold stops the campaign at the next action, which does not follow the changed one)."""
    db = copy_db(played, tmp_path)
    raw(db, "UPDATE stored_events SET originator_version = 100000 WHERE rowid = 101")
    helped, stops = _rebuilt(db, monkeypatch, helped=True)
    alone, alone_stops = _rebuilt(db, monkeypatch, helped=False)
    assert stops == alone_stops == [("simulation", 100000, "order")]
    assert helped == alone


@pytest.mark.parametrize("note", [120, 180, 260])  # in batches 2, 3 (the helper's) and 5 (the other's)
def test_a_rebuild_with_a_helper_stops_at_an_unreadable_action_where_a_rebuild_alone_does(played, tmp_path,
                                                                                            monkeypatch, note):
    db = copy_db(played, tmp_path)
    (cid, seq), = raw(db, "SELECT originator_id, originator_version FROM stored_events WHERE rowid = ?", [note])
    raw(db, "UPDATE stored_events SET state = replace(state, '\"actor\":\"', '\"actor\":5,\"was\":\"') "
            "WHERE rowid = ?", [note])
    helped, stops = _rebuilt(db, monkeypatch, helped=True)
    alone, alone_stops = _rebuilt(db, monkeypatch, helped=False)
    assert stops == alone_stops == [("simulation", seq, "unreadable")]
    assert helped == alone


@pytest.mark.parametrize("rowid", [100, 153])  # the last action of a batch of 100, one in the middle
def test_an_action_only_the_light_read_takes_is_taken_by_every_batching(played, tmp_path, rowid):
    """An unknown field in a stored action: the light (msgspec) read of a long batch takes
    it, pydantic (a short batch, a load) does not. Found by a second QA pass: a long batch
    could not write the campaign's cards, forgot its last seq and stopped it one batch on
    ("out of order"), so the stops depended on the batching and verify of every campaign
    failed each time. A short batch takes it light too; the cards and zones rows wait for
    a batch that can read the campaign whole."""
    db = copy_db(played, tmp_path)
    raw(db, "UPDATE stored_events SET state = CAST('{\"zzz\":1,' || substr(CAST(state AS TEXT), 2) AS BLOB) "
            "WHERE rowid = ?", [rowid])
    for batch in (1, 50, 100, 150, 5000):
        with opened(db) as (_ledger, model):
            forget_tables(model)
            model.catch_up(batch=batch)
            assert model.damaged() == [], batch
            for other in (33, 100, 1000):
                assert compare_with_log(model, batch=other) is None, (batch, other)


@pytest.mark.parametrize("rowid", [101, 150])  # the first of a batch of 100, one in the middle
def test_a_gap_in_the_notification_ids_stops_the_campaign_whatever_the_batching(played, tmp_path, rowid):
    """A deleted action leaves a gap in the notification ids (PostgreSQL's lost races leave
    gaps too): a batch read right after the last is still the next one. Found by a second
    QA pass: a gap at a batch's start made the fold forget, and verify of every other
    campaign failed on this one ("not intact")."""
    db = copy_db(played, tmp_path)
    (seq,), = raw(db, "SELECT originator_version FROM stored_events WHERE rowid = ?", [rowid])
    raw(db, "DELETE FROM stored_events WHERE rowid = ?", [rowid])
    for batch in (1, 100, 1000):
        with opened(db) as (_ledger, model):
            forget_tables(model)
            model.catch_up(batch=batch)
            assert [(b.slug, b.seq, b.kind) for b in model.damaged()] == [("simulation", seq + 1, "order")], batch
            for other in (50, 100, 1000):
                assert compare_with_log(model, batch=other) is None, (batch, other)


def test_an_action_whose_topic_names_no_class_stops_its_campaign_there_whatever_the_batching(played, tmp_path):
    """A long batch took a topic it did not know for a record of no campaign and skipped it,
    then stopped the campaign at the next action as out of order; a short batch, at this one."""
    db = copy_db(played, tmp_path)
    (seq,), = raw(db, "SELECT originator_version FROM stored_events WHERE rowid = 153")
    raw(db, "UPDATE stored_events SET topic = 'this:s' WHERE rowid = 153")
    for batch in (1, 100, 5000):
        with opened(db) as (_ledger, model):
            forget_tables(model)
            model.catch_up(batch=batch)
            assert [(b.slug, b.seq, b.kind) for b in model.damaged()] == [("simulation", seq, "unreadable")], batch
            for other in (33, 1000):
                assert compare_with_log(model, batch=other) is None, (batch, other)


def _edit_first_change(db: Path, rowid: int, edit: str) -> None:
    """The first card change of the action at ``rowid`` edited (its hash left as it was)."""
    state = json.loads(bytes(raw(db, "SELECT state FROM stored_events WHERE rowid = ?", [rowid])[0][0]))
    change = next(ch for ch in state["changes"] if ch.get("kind") == "card")
    if edit == "attached to itself":
        change["now"]["at"] = f"on:{change['card']}"
    elif edit == "a card not in the catalog":
        change["card"] = "zzz-nope"
    else:  # "a zone that is not there"
        change["now"]["at"] = "nowhere"
    raw(db, "UPDATE stored_events SET state = ? WHERE rowid = ?", [json.dumps(state).encode(), rowid])


@pytest.mark.parametrize("edit", ["attached to itself", "a card not in the catalog", "a zone that is not there"])
def test_an_action_edited_into_what_no_fold_takes_breaks_no_catch_up(played, tmp_path, edit):
    """Found by a third QA pass: a card attached to itself made every command of the file
    loop for ever (``Table.hanging_from``); a card or zone that is not there made every
    command an unexpected failure (the cards rows of that campaign)."""
    db = copy_db(played, tmp_path)
    rowid = next(r for (r,) in raw(db, "SELECT rowid FROM stored_events WHERE rowid > 150 AND CAST(state AS TEXT) "
                                       "LIKE '%\"kind\":\"card\"%' ORDER BY rowid LIMIT 1"))
    _edit_first_change(db, rowid, edit)
    for batch in (1, 100, 5000):
        with opened(db) as (_ledger, model):
            forget_tables(model)
            model.catch_up(batch=batch)  # no loop, no exception: that campaign's rows as far as they go
            compare_with_log(model, batch=1000)  # a line or None, never an exception
    assert "seq" in one_error_line(run_ledger("verify", db=db))  # the chain names the edited action


def test_two_stops_under_one_name_are_kept_and_compared_as_the_first(two):
    """A copy of beta's start under another id (a second stream of that name), then beta's
    seqs 3 and 4 swapped: two stops under the name beta. Found by a third QA pass: the
    tables kept the first, verify compared the last, and every verify failed."""
    raw(two, "INSERT INTO stored_events (originator_id, originator_version, topic, state) SELECT ?, "
             "originator_version, topic, state FROM stored_events WHERE rowid = ?",
        ["b" * 32, rowid_of(two, "beta", 1)])
    swap(two, rowid_of(two, "beta", 3), rowid_of(two, "beta", 4))
    succeeded(run_ledger("rebuild", db=two))
    demo_works(two)
    demo_works(two, hero="yan")  # verify twice: the tables' stops are the log's


def test_verify_compares_the_rows_of_its_own_campaign(two):
    """Another campaign's rows are its own verify's finding (a value edited in another
    campaign's log that every reader takes can make its rows differ by where a load
    starts, found by a third QA pass: verify of every campaign failed, every time);
    rows of a campaign the log does not hold at all are still every verify's."""
    raw(two, "UPDATE cards SET exhausted = 1 WHERE campaign = 'demo' AND id = 'item-sword'")
    succeeded(run_ledger("--campaign", "beta", "verify", db=two))
    line = one_error_line(run_ledger("--campaign", "demo", "verify", db=two))
    assert "cards row item-sword of campaign demo differs" in line, line
    raw(two, "INSERT INTO history (campaign, seq, action, actor, time, summary, cards, seen, unnamed) "
             "VALUES ('ghost', 1, 'init', 'master', '2026-01-01T00:00:00+00:00', 'x', '[]', '{}', '{}')")
    line = one_error_line(run_ledger("--campaign", "beta", "verify", db=two))
    assert "recorded campaign ghost up to seq 1, but the log's list of campaigns no longer names it" in line, line
