"""A record nobody can quietly rewrite (issue 11; README "a record you can trust").

Each attack of the issue is played here as someone with write access to the database
file (raw ``sqlite3``) or to an export would play it, and must now fail loudly, naming
the right seq: a cut tail, an edited snapshot, a history rewritten from some seq on and
re-decided and re-hashed (a whole other valid campaign), a cut or re-chained export.
What the file alone cannot show (a rewrite whose every witness in the file was deleted
too) is caught by a checkpoint a player kept, and that limit is tested as well.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import threading
from pathlib import Path

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.audit import verify
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.errors import BadCatalog
from ledger.rulebook import RULESET
from ledger.snapshots import DIGEST_EVERY, digest
from ledger.transfer import import_campaign

from .conftest import copy_db, json_of, last_seq, one_error_line, run_ledger, run_ledger_process, succeeded

SAMPLE = str(sample_catalog_path())


# -- campaigns to attack ------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("demo") / "campaign.db"
    succeeded(run_ledger("demo", db=db))
    return db


@pytest.fixture(scope="module")
def long_db(tmp_path_factory) -> Path:
    """A simulated campaign past seq 100: it has a snapshot at 100, anchored in the chain."""
    db = tmp_path_factory.mktemp("long") / "campaign.db"
    succeeded(run_ledger("simulate", "--actions", "110", "--seed", "3", db=db))
    return db


@pytest.fixture
def demo(demo_db, tmp_path) -> Path:
    return copy_db(demo_db, tmp_path)


@pytest.fixture
def long(long_db, tmp_path) -> Path:
    return copy_db(long_db, tmp_path)


def checkpoint_of(db: Path) -> dict:
    return json_of(succeeded(run_ledger("--json", "checkpoint", db=db)))


def raw(db: Path, sql: str, params=()) -> int:
    con = sqlite3.connect(str(db))
    try:
        with con:
            return con.execute(sql, params).rowcount
    finally:
        con.close()


def cut_tail(db: Path, count: int) -> int:
    """Deletes the last ``count`` actions of the campaign; returns the first seq deleted."""
    last = last_seq(db)
    first = last - count + 1
    deleted = raw(db, "DELETE FROM stored_events WHERE originator_version >= ? AND topic LIKE 'ledger.events:%' "
                      "AND topic NOT LIKE '%CampaignRegistered' AND topic NOT LIKE '%CheckpointTaken'", [first])
    assert deleted == count
    return first


def forget_witnesses(db: Path) -> None:
    """Deletes what the file keeps besides the log: checkpoints, snapshots, read models."""
    raw(db, "DELETE FROM stored_events WHERE topic LIKE '%CheckpointTaken'")
    raw(db, "DELETE FROM stored_snapshots")
    for table in ("history", "card_actions", "cards", "zones"):
        raw(db, f"DELETE FROM {table}")
    raw(db, "UPDATE projection_position SET position = 0")


def verify_fails(db: Path, *args: str) -> tuple[str, dict]:
    result = run_ledger("--json", "verify", *args, db=db)
    line = one_error_line(result)
    return line, json.loads(result.stdout)


# -- checkpoints --------------------------------------------------------------------------
def test_checkpoint_prints_the_seq_and_the_head_hash_of_the_latest_action(demo):
    kept = checkpoint_of(demo)
    ledger = Ledger.open(demo)
    try:
        cid = ledger.resolve(None)
        last = ledger.last_seq(cid)
        assert kept == {"seq": last, "head": ledger.event(cid, last).hash}
    finally:
        ledger.close()
    human = succeeded(run_ledger("checkpoint", db=demo)).stdout
    assert f"ledger verify --expect {last}:{kept['head']}" in human


def test_every_view_of_the_public_or_a_hero_carries_the_latest_checkpoint(demo):
    kept = checkpoint_of(demo)
    for viewer in ("public", "ana"):
        for args in (["zones"], ["zones", "--at", "3"], ["card", "item-sword"], ["explain", "5"]):
            view = json_of(succeeded(run_ledger("--json", "--as", viewer, *args, db=demo)))
            assert view["checkpoint"] == kept, (viewer, args)
        human = succeeded(run_ledger("--as", viewer, "history", "--limit", "2", db=demo)).stdout
        assert f"checkpoint {kept['seq']}:{kept['head']}" in human
    recorded = json_of(succeeded(run_ledger("--json", "--actor", "ana", "draw", "deck:skill", db=demo)))
    assert recorded["checkpoint"]["seq"] == kept["seq"] + 1 == recorded["seq"]
    assert recorded["checkpoint"] == checkpoint_of(demo)


def test_verify_expect_passes_for_a_checkpoint_the_log_still_holds(demo):
    kept = checkpoint_of(demo)
    succeeded(run_ledger("draw", "deck:skill", "--to", "inventory:ana", db=demo))
    out = json_of(succeeded(run_ledger("--json", "verify", "--expect", f"{kept['seq']}:{kept['head']}", db=demo)))
    assert out["ok"] and out["actions"] == kept["seq"] + 1


@pytest.mark.parametrize("bad", ["12", "12:abc", "0:" + "0" * 64, "x:" + "0" * 64, "12:" + "g" * 64])
def test_a_malformed_expected_checkpoint_gets_a_one_line_error(demo, bad):
    line = one_error_line(run_ledger("verify", "--expect", bad, db=demo))
    assert "SEQ:HEAD" in line


# -- tail truncation ----------------------------------------------------------------------
@pytest.mark.parametrize("count", [1, 5])
def test_a_cut_tail_fails_verify_against_a_players_checkpoint_naming_the_first_missing_seq(demo, count):
    kept = checkpoint_of(demo)
    forget_witnesses(demo)  # the forger also deletes everything in the file that remembers the tail
    first = cut_tail(demo, count)
    line, report = verify_fails(demo, "--expect", f"{kept['seq']}:{kept['head']}")
    assert report["bad_seq"] == first and f"first bad seq: {first}" in line
    assert "actions are missing" in line


def test_a_cut_tail_with_every_witness_in_the_file_deleted_too_needs_a_kept_checkpoint(demo):
    """The limit, stated as a test: the file alone cannot remember what was cut from it."""
    forget_witnesses(demo)
    cut_tail(demo, 3)
    assert json_of(succeeded(run_ledger("--json", "verify", db=demo)))["ok"]


@pytest.mark.parametrize("count", [1, 7])
def test_a_cut_tail_fails_verify_by_the_checkpoint_kept_in_the_file(demo, count):
    checkpoint_of(demo)  # ledger checkpoint keeps it in the file too
    first = cut_tail(demo, count)
    line, report = verify_fails(demo)
    assert report["bad_seq"] == first and "actions are missing" in line


def test_a_cut_tail_fails_verify_by_the_read_models_that_recorded_it(demo):
    first = cut_tail(demo, 2)
    line, report = verify_fails(demo)
    assert report["bad_seq"] == first and "read models" in line


def test_a_cut_tail_fails_verify_by_a_snapshot_past_the_end(long):
    last = last_seq(long)
    raw(long, "DELETE FROM history")  # no other witness
    raw(long, "UPDATE projection_position SET position = 0")
    first = cut_tail(long, last - DIGEST_EVERY + 1)  # seq 100, where the snapshot is, and every later one
    _line, report = verify_fails(long)
    assert report["bad_seq"] == first == DIGEST_EVERY


# -- snapshots ----------------------------------------------------------------------------
def _edit_snapshot(db: Path, reseal: bool) -> int:
    """Moves a card inside the snapshot at seq 100 (and, with ``reseal``, writes the
    snapshot's own digest again, as a forger who read the code would)."""
    con = sqlite3.connect(str(db))
    try:
        (state,) = con.execute("SELECT state FROM stored_snapshots WHERE originator_version = ?",
                               [DIGEST_EVERY]).fetchone()
        data = json.loads(state)
        stacks = data["state"]["table"]["stacks"] if "state" in data else data["table"]["stacks"]
        source = next(z for z, cards in stacks.items() if z != "discard" and cards)
        stacks.setdefault("discard", []).append(stacks[source].pop())
        snapshot = data["state"] if "state" in data else data
        if reseal:
            snapshot["digest"] = digest(snapshot)
        with con:
            con.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?",
                        [json.dumps(data).encode(), DIGEST_EVERY])
    finally:
        con.close()
    return DIGEST_EVERY


def test_unfit_snapshots_cost_a_load_two_actions_each_not_every_action_after_them(tmp_path):
    """A QA pass: with a few bytes changed in each of the 205 snapshots of a 20k-action file,
    each unfit snapshot read every action after it, and every command took 8 minutes. A
    load checks a snapshot against its own action and the one before it; only the one that
    fits reads on. Here all six are unfit: the load reads the log once from the start, plus
    two actions a snapshot, and gives the table of the untouched file."""
    db = tmp_path / "c.db"
    succeeded(run_ledger("simulate", "--actions", "640", "--seed", "5", db=db))
    (tmp_path / "untouched").mkdir()
    untouched = copy_db(db, tmp_path / "untouched")
    assert raw(db, "UPDATE stored_snapshots SET state = replace(state, '\"live_head\":', '\"live_head\":1') "
                   "WHERE originator_version % 100 = 0") >= 6
    ledger = Ledger.open(db)
    try:
        cid = ledger.resolve(None)
        read = []
        get = ledger.events.get

        def counted(*args, **kwargs):
            for event in get(*args, **kwargs):
                read.append(event.originator_version)
                yield event

        ledger.events.get = counted  # type: ignore[method-assign]
        table = ledger.campaign(cid).table.to_dict()
        last = ledger.last_seq(cid)
    finally:
        ledger.close()
    assert len(read) <= last + 2 * 6, f"{len(read)} actions read for a log of {last}"
    expected = Ledger.open(untouched)
    try:
        assert table == expected.campaign(cid).table.to_dict()
    finally:
        expected.close()


@pytest.mark.parametrize("reseal", [False, True], ids=["edited", "edited-and-its-digest-rewritten"])
def test_an_edited_snapshot_is_ignored_when_loading_and_verify_names_its_seq(long, tmp_path, reseal):
    (tmp_path / "untouched").mkdir()
    untouched = copy_db(long, tmp_path / "untouched")
    seq = _edit_snapshot(long, reseal)
    for args in (["zones"], ["zones", "--at", str(seq + 3)], ["zones", "--at", str(seq)]):
        assert run_ledger("--json", *args, db=long).stdout == run_ledger("--json", *args, db=untouched).stdout
    line, report = verify_fails(long)
    assert report["bad_seq"] == seq and "snapshot" in line
    ledger = Ledger.open(long)
    try:
        battle_on = ledger.campaign(ledger.resolve(None)).table.battle
    finally:
        ledger.close()
    recorded = json_of(succeeded(run_ledger("--json", "battle", "end" if battle_on else "start", db=long)))
    assert recorded["seq"] == last_seq(untouched) + 1  # the next action is recorded at its own seq


def test_the_action_at_every_hundredth_seq_records_the_digest_of_the_state_its_snapshot_holds(long):
    ledger = Ledger.open(long)
    try:
        cid = ledger.resolve(None)
        event = ledger.event(cid, DIGEST_EVERY)
        (snapshot,) = ledger.snapshots.get(cid, gt=DIGEST_EVERY - 1, lte=DIGEST_EVERY)
        assert event.state_digest is not None and event.state_digest == digest(snapshot.state, ordered=True)
        assert snapshot.state["digest"] == digest(snapshot.state)  # its own: a check against damage, not a forger
        assert ledger.event(cid, DIGEST_EVERY - 1).state_digest is None
        assert snapshot.state["last_hash"] == event.hash
    finally:
        ledger.close()


@pytest.fixture(scope="module")
def long_db_ruleset_4(tmp_path_factory) -> Path:
    """``long_db`` as a ledger of ruleset 4 recorded it: its state digests sort the heroes away."""
    from ledger.interface.simulate import simulate, start_simulation
    from ledger.rulesets import decided_under

    db = tmp_path_factory.mktemp("long4") / "campaign.db"
    ledger = Ledger.open(db, create=True)
    try:
        with decided_under(4):
            cid = start_simulation(ledger, heroes=3, seed=3)
            simulate(ledger, cid, 110, seed=3)
    finally:
        ledger.close()
    return db


def _reorder_heroes_in_snapshot(db: Path) -> list[str]:
    """The heroes of the snapshot at seq 100 put in the reverse order, its own digest
    written again (as a forger who read the code would); returns the new order."""
    con = sqlite3.connect(str(db))
    try:
        (stored,) = con.execute("SELECT state FROM stored_snapshots WHERE originator_version = ?",
                                [DIGEST_EVERY]).fetchone()
        data = json.loads(stored)
        snapshot = data["state"]
        heroes = snapshot["table"]["heroes"]
        snapshot["table"]["heroes"] = dict(reversed(list(heroes.items())))
        assert digest(snapshot) == snapshot["digest"]  # the canonical JSON sorts keys: the same digest
        with con:
            con.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?",
                        [json.dumps(data).encode(), DIGEST_EVERY])
    finally:
        con.close()
    return list(snapshot["table"]["heroes"])


def _witnesses_of_the_next_action(db: Path) -> dict:
    """Records the master exiling a face-up card (every viewer sees it go); returns who
    the action records as having seen it, in the order it records them."""
    ledger = Ledger.open(db)
    try:
        cid = ledger.resolve(None)
        table = ledger.campaign(cid).table
        card = next(card for card in sorted(table.face_up) if not table.where[card].startswith("on:"))
        ledger.execute(cid, c.Exile(actor="master", cards=(card,)))
        return dict(ledger.event(cid, ledger.last_seq(cid)).seen)
    finally:
        ledger.close()


@pytest.mark.parametrize("ruleset", [RULESET, 4], ids=["current-ruleset", "ruleset-4"])
def test_a_snapshot_with_its_heroes_reordered_is_named_by_verify_not_the_honest_actions_after_it(
        long, long_db_ruleset_4, tmp_path, ruleset):
    """The order of the heroes orders each card's witnesses in the actions recorded
    after a snapshot. From ruleset 5 the digest the chain holds covers that order, so
    loading passes over a snapshot whose heroes were reordered and the next action
    records its witnesses as an honest ledger would; a log of ruleset 4 cannot tell
    when loading, but verify, which compares every snapshot with the fold in full,
    names the snapshot's seq in either case, not the actions recorded after it."""
    db = long if ruleset == RULESET else copy_db(long_db_ruleset_4, tmp_path)
    (tmp_path / "untouched").mkdir()
    untouched = copy_db(db, tmp_path / "untouched")
    heroes = _reorder_heroes_in_snapshot(db)
    zones = run_ledger("--json", "zones", db=db).stdout, run_ledger("--json", "zones", db=untouched).stdout
    honest, recorded = _witnesses_of_the_next_action(untouched), _witnesses_of_the_next_action(db)
    assert any(len(who) > 2 for who in honest.values())  # several heroes saw it: their order shows
    if ruleset == RULESET:
        assert recorded == honest and zones[0] == zones[1]
    else:  # the snapshot was loaded: its order of the heroes is the witnesses' order
        assert recorded != honest and [v for v in next(iter(recorded.values())) if v != "public"] == heroes
    assert succeeded(run_ledger("verify", db=untouched))
    line, report = verify_fails(db)
    assert report["bad_seq"] == DIGEST_EVERY and "snapshot" in line, line


# -- a rewritten history: another valid campaign from seq N on ------------------------------
def _two_histories(tmp_path: Path) -> tuple[Path, Path, int]:
    """The same campaign up to seq N - 1, then another shuffle result at N and the same
    actions after it: B is a whole valid campaign, re-decided and re-hashed."""
    a, b = tmp_path / "a" / "campaign.db", tmp_path / "b" / "campaign.db"
    a.parent.mkdir()
    b.parent.mkdir()
    ledger = Ledger.open(a, create=True)
    try:
        start = ledger.start(load_catalog(sample_catalog_path()), name="Rewritten")
        cid = start.campaign.id
        ledger.execute(cid, c.AddHero(hero="ana", name="Ana", knowledge=1))
        ledger.execute(cid, c.Add(cards=("skill-meditation", "skill-tracking", "skill-first-aid",
                                         "skill-persuade", "skill-riposte"), to="deck:skill"))
    finally:
        ledger.close()
    copy_db(a, b.parent)
    later = [c.Draw(actor="ana", stack="deck:skill"), c.Draw(actor="ana", stack="deck:skill"),
             c.StartBattle(), c.EndBattle()]
    seqs = []
    for db, seed in ((a, 1), (b, 2)):
        ledger = Ledger.open(db)
        try:
            cid = ledger.resolve(None)
            seqs.append(ledger.execute(cid, c.Shuffle(stack="deck:skill", seed=seed)).seq)
            for command in later:
                ledger.execute(cid, command)
            assert verify(ledger, cid).ok
        finally:
            ledger.close()
    assert seqs[0] == seqs[1]
    return a, b, seqs[0]


def test_a_history_rewritten_and_rehashed_from_seq_n_fails_against_a_players_checkpoint(tmp_path):
    a, b, n = _two_histories(tmp_path)
    kept = checkpoint_of(a)
    assert checkpoint_of(b)["head"] != kept["head"]
    shutil.copy(b, a)  # the forger puts the rewritten campaign in place of the real one
    for suffix in ("-wal", "-shm"):
        Path(f"{a}{suffix}").unlink(missing_ok=True)
    assert json_of(succeeded(run_ledger("--json", "verify", db=a)))["ok"]  # valid by itself
    line, report = verify_fails(a, "--expect", f"{kept['seq']}:{kept['head']}")
    assert report["bad_seq"] == kept["seq"] and "rewritten at or before" in line


def test_an_expected_checkpoint_inside_the_log_names_the_seq_it_was_taken_at(tmp_path):
    a, b, n = _two_histories(tmp_path)
    ledger = Ledger.open(a)
    try:
        cid = ledger.resolve(None)
        at_n = ledger.event(cid, n).hash
    finally:
        ledger.close()
    line, report = verify_fails(b, "--expect", f"{n}:{at_n}")
    assert report["bad_seq"] == n


@pytest.mark.parametrize("shift", [-3, 2, 40])
def test_a_held_checkpoint_given_the_wrong_seq_is_named_at_the_seq_the_log_holds_it_not_a_rewrite(demo, shift):
    """A seq mistyped (or copied from another checkpoint), before, after or past the log's
    end: the record was not changed, and verify says where the log holds that head."""
    kept = checkpoint_of(demo)
    succeeded(run_ledger("draw", "deck:skill", "--to", "inventory:ana", db=demo))
    wrong = kept["seq"] + shift
    line, report = verify_fails(demo, "--expect", f"{wrong}:{kept['head']}")
    assert report["held_at"] == kept["seq"] and report["bad_seq"] is None and not report["ok"]
    assert f"names seq {wrong}, but its head is the log's head at seq {kept['seq']}" in line
    assert "rewritten" not in line and "not intact" not in line and "missing" not in line
    exported, imported = demo.parent / "e.jsonl", demo.parent / "imported.db"
    succeeded(run_ledger("export", str(exported), db=demo))
    line = one_error_line(run_ledger("import", str(exported), "--expect", f"{wrong}:{kept['head']}", db=imported))
    assert f"head is the log's head at seq {kept['seq']}" in line and "is bad" not in line
    assert not imported.exists()


def test_two_held_checkpoints_given_the_wrong_seqs_are_both_named_and_one_beside_a_real_finding_too(demo):
    """From a QA pass: with two checkpoints mistyped, the second was called a rewrite, and
    one mistyped beside a real mismatch blamed the wrong seq. Each is corrected in turn."""
    ledger = Ledger.open(demo)
    try:
        cid = ledger.resolve(None)
        at_20, at_30 = ledger.event(cid, 20).hash, ledger.event(cid, 30).hash
    finally:
        ledger.close()
    line, report = verify_fails(demo, "--expect", f"21:{at_20}", "--expect", f"31:{at_30}")
    assert report["bad_seq"] is None and report["held_at"] == 20, report
    assert "names seq 21, but its head is the log's head at seq 20" in line
    assert "names seq 31, but its head is the log's head at seq 30" in line and "rewritten" not in line
    line, report = verify_fails(demo, "--expect", f"21:{at_20}", "--expect", f"30:{'a' * 64}")
    assert report["bad_seq"] == 30 and "rewritten at or before seq 30" in line, line
    assert "the checkpoint you hold for seq 21 is the log's head at seq 20" in line


def test_a_held_checkpoint_that_fails_on_a_file_with_a_row_stored_as_text_is_still_reported(demo):
    """From a review: the hint's look through the stored rows took every row for bytes, and a
    row SQLite holds as text (which verify reads) made a failing --expect an unexpected failure."""
    kept = checkpoint_of(demo)
    with sqlite3.connect(demo) as db:
        db.execute("UPDATE stored_events SET state = CAST(state AS TEXT) WHERE originator_version = 5")
    db.close()
    assert json_of(succeeded(run_ledger("--json", "verify", db=demo)))["ok"]
    line, report = verify_fails(demo, "--expect", f"{kept['seq'] - 2}:{'a' * 64}")
    assert report["bad_seq"] == kept["seq"] - 2 and "rewritten" in line
    line, report = verify_fails(demo, "--expect", f"{kept['seq'] - 2}:{kept['head']}")
    assert report["held_at"] == kept["seq"], line


def test_an_undo_over_an_action_whose_link_was_forged_forward_is_refused_not_endless(demo):
    """From a review: anyone holding the file can re-hash an action whose prev_live (the
    action in force before it) names itself; undo walked that link forever (a table
    server's worker hung). A link that is not older names the record changed."""
    from ledger.integrity import chain_hash

    ledger = Ledger.open(demo)
    try:
        cid = ledger.resolve(None)
        last = ledger.last_seq(cid)
        forged = ledger.event(cid, last).model_copy(update={"prev_live": last})
        head = chain_hash(ledger.event(cid, last - 1).hash, forged)
    finally:
        ledger.close()
    with sqlite3.connect(demo) as db:
        (state,) = db.execute("SELECT state FROM stored_events WHERE originator_version = ? AND topic LIKE "
                              "'%:CardActivated'", [last]).fetchone()
        record = json.loads(state)
        record.update(prev_live=last, hash=head)
        db.execute("UPDATE stored_events SET state = ? WHERE originator_version = ? AND state = ?",
                   [json.dumps(record, separators=(",", ":")).encode(), last, state])
    db.close()
    for args in (["undo"], ["undo", "--to", str(last - 3)]):
        line = one_error_line(run_ledger_process(*args, db=demo, timeout=60))  # a child: an endless walk times out
        assert f"seq {last} names seq {last} as the action in force before it" in line, line


def test_a_rewritten_log_whose_text_holds_the_checkpoints_head_is_still_a_rewrite(tmp_path):
    """The seq a hint would name is looked for in the stored bytes, which the forger writes:
    here a hero's name is the real head of seq N. Only a whole second verify at that seq
    would make it a hint, and it fails: the head is computed, not read."""
    a, b, n = _two_histories(tmp_path)
    ledger = Ledger.open(a)
    try:
        at_n = ledger.event(ledger.resolve(None), n).hash
    finally:
        ledger.close()
    ledger = Ledger.open(b)
    try:
        planted = ledger.execute(ledger.resolve(None), c.AddHero(hero="zed", name=at_n)).seq
    finally:
        ledger.close()
    line, report = verify_fails(b, "--expect", f"{n}:{at_n}")
    assert report["bad_seq"] == n and report["held_at"] is None and planted != n
    assert "rewritten at or before" in line


# -- signing ------------------------------------------------------------------------------
@pytest.fixture
def key(tmp_path) -> dict:
    path = tmp_path / "keys" / "signing-key.pem"
    made = json_of(succeeded(run_ledger("--json", "keys", "init", env={"LEDGER_KEY": str(path)})))
    assert made["key"] == str(path) and len(made["public"]) == 44
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    return {"path": path, "public": made["public"], "env": {"LEDGER_KEY": str(path)}}


def test_keys_init_never_overwrites_a_key_and_keys_show_prints_the_public_key(key):
    before = key["path"].read_bytes()
    one_error_line(run_ledger("keys", "init", env=key["env"]))
    assert key["path"].read_bytes() == before
    shown = json_of(succeeded(run_ledger("--json", "keys", "show", env=key["env"])))
    assert shown["public"] == key["public"]


def test_keys_show_without_a_key_says_how_to_make_one(tmp_path):
    line = one_error_line(run_ledger("keys", "show", env={"LEDGER_KEY": str(tmp_path / "none.pem")}))
    assert "ledger keys init" in line


def test_an_action_or_view_under_a_key_that_cannot_be_read_says_its_checkpoint_is_not_signed(demo, tmp_path):
    """Found by a QA pass: ``checkpoint`` and ``export`` refuse a key they cannot read, but
    an action or a view printed its checkpoint unsigned without a word, so the master
    handed out unsigned checkpoints unawares. They still go on, with one ``note:`` line."""
    bad = tmp_path / "bad.pem"
    bad.write_text("not a key\n")
    env = {"LEDGER_KEY": str(bad)}
    for args in (["--json", "hero", "add", "cy"], ["--json", "zones"]):
        result = succeeded(run_ledger(*args, db=demo, env=env))
        assert "signature" not in json.loads(result.stdout)["checkpoint"], args
        assert result.stderr.splitlines() == [
            f"note: {bad} is not a signing key (make one with ledger keys init); the checkpoint shown is not signed"]
    assert str(bad) in one_error_line(run_ledger("checkpoint", db=demo, env=env))


def test_a_key_signs_no_log_that_contradicts_a_checkpoint_it_signed_kept_in_the_database(demo, key, tmp_path):
    """A QA pass: an action edited and re-hashed in the file (its chain holds) was signed by
    the master's checkpoint and export, though his own signed checkpoint kept in the file named
    another hash at that seq. His key now refuses, saying so, and nothing is written; a
    checkpoint without a key vouches for nothing and is handed out; verify names the seq."""
    from datetime import datetime, timedelta

    from eventsourcing.persistence import StoredEvent

    from ledger.integrity import chain_hash

    kept = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo, env=key["env"])))
    last = kept["seq"]
    ledger = Ledger.open(demo)
    try:
        cid = ledger.resolve(None)
        with sqlite3.connect(demo) as db:
            (topic, state) = db.execute("SELECT topic, state FROM stored_events WHERE originator_version = ? AND "
                                        "CAST(state AS TEXT) LIKE ?", [last, f'%"hash":"{kept["head"]}"%']).fetchone()
        record = json.loads(state)
        moved = datetime.fromisoformat(record["timestamp"]) + timedelta(seconds=1)  # any edit, re-hashed
        record["timestamp"] = moved.isoformat()
        forged = ledger.mapper.to_domain_event(StoredEvent(originator_id=cid, originator_version=last, topic=topic,
                                                           state=json.dumps(record).encode()))
        record["hash"] = chain_hash(ledger.event(cid, last - 1).hash, forged)
    finally:
        ledger.close()
    assert raw(demo, "UPDATE stored_events SET state = ? WHERE originator_version = ? AND state = ?",
               [json.dumps(record, separators=(",", ":")).encode(), last, state]) == 1
    for args in (["checkpoint"], ["export", str(tmp_path / "signed.jsonl")]):
        line = one_error_line(run_ledger(*args, db=demo, env=key["env"]), what=args)
        assert f"the log's hash at seq {last} is not the one your key signed there" in line, line
    assert not (tmp_path / "signed.jsonl").exists()
    to_stdout = run_ledger("export", db=demo, env=key["env"])
    assert to_stdout.returncode == 1 and to_stdout.stdout == "", to_stdout.stdout[:200]  # not a line written
    keyless = {"LEDGER_KEY": str(tmp_path / "none.pem")}
    unsigned = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo, env=keyless)))
    assert unsigned["head"] == record["hash"] and "signature" not in unsigned
    # a view, and an action's reply, are still served (review): their checkpoint unsigned, and said so
    for args in (["--json", "zones"], ["--json", "--actor", "ana", "exhaust", "item-sword"]):
        done = run_ledger(*args, db=demo, env=key["env"])
        assert done.returncode == 0, (args, done.stderr)
        assert "signature" not in json_of(done)["checkpoint"], args
        assert f"note: the log's hash at seq {last} is not the one your key signed" in done.stderr, done.stderr
    line, report = verify_fails(demo)
    assert report["bad_seq"] == last, line


def test_a_key_signs_no_log_cut_below_a_checkpoint_it_signed_and_a_forged_signature_binds_it_to_nothing(demo, key):
    """A review: a checkpoint the key signed at a seq the log no longer reaches (a cut, then
    rebuild) let the key sign the shorter log, a fork of what it vouched for; and a kept row
    claiming the key with a signature that does not hold (anyone can write one) must not
    bind it: it is passed over."""
    from ledger.checkpoints import Checkpoint, take
    from ledger.signing import load_signer

    ledger = Ledger.open(demo)
    try:
        cid = ledger.resolve(None)
        last = ledger.last_seq(cid)
        ledger.keep(cid, Checkpoint(last + 3, "ab" * 32, key["public"], "AAAA"))  # forged: holds for nothing
        assert "signature" in checkpoint_of_with(demo, key)  # still signed
        ledger.keep(cid, take(cid, last + 3, "cd" * 32, load_signer(key["path"])))  # signed, past the log's end
    finally:
        ledger.close()
    line = one_error_line(run_ledger("checkpoint", db=demo, env=key["env"]))
    assert f"your key signed seq {last + 3} in a checkpoint kept in this database, but the log now ends at seq " \
           f"{last}" in line, line


def checkpoint_of_with(db: Path, key: dict) -> dict:
    return json_of(succeeded(run_ledger("--json", "checkpoint", db=db, env=key["env"])))


def test_with_signed_by_a_checkpoint_past_the_end_that_the_key_did_not_sign_is_named_as_such(demo, key):
    """A QA pass: a checkpoint anyone can write into the file (no key) naming seq 50 made
    ``verify --signed-by MASTER`` of an honest record, signed to its end, say actions were
    missing. It may be a cut, or a plant: the line says both, and that the key did not sign
    it; plain verify, which trusts the file's checkpoints, says actions are missing."""
    from ledger.checkpoints import Checkpoint

    kept = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo, env=key["env"])))
    ledger = Ledger.open(demo)
    try:
        ledger.keep(ledger.resolve(None), Checkpoint(kept["seq"] + 14, "ab" * 32))
    finally:
        ledger.close()
    line, report = verify_fails(demo, "--signed-by", key["public"])
    assert report["bad_seq"] == kept["seq"] + 1, report
    assert f"the log ends at seq {kept['seq']} but the checkpoint #2 kept in this file (seq {kept['seq'] + 14}), " \
           "which the key you trust did not sign" in line and "or that checkpoint was put there" in line, line
    line, report = verify_fails(demo)
    assert "actions are missing" in line, line


def test_a_signed_checkpoint_verifies_and_a_forged_signature_fails_at_its_seq(demo, key):
    kept = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo, env=key["env"])))
    assert kept["key"] == key["public"] and kept["signature"]
    report = json_of(succeeded(run_ledger("--json", "verify", "--signed-by", key["public"], db=demo)))
    assert report["signed_to"] == kept["seq"]
    ledger = Ledger.open(demo)
    try:
        (row,) = [s for s in ledger.recorder.select_notifications(start=1, limit=10_000)
                  if s.topic.endswith("CheckpointTaken")]
    finally:
        ledger.close()
    state = json.loads(row.state)
    state["signature"] = state["signature"][:10] + ("A" if state["signature"][10] != "A" else "B") + \
        state["signature"][11:]
    raw(demo, "UPDATE stored_events SET state = ? WHERE topic LIKE '%CheckpointTaken'", [json.dumps(state).encode()])
    line, report = verify_fails(demo)
    assert report["bad_seq"] == kept["seq"] and "signature that does not hold" in line


def test_an_unsigned_checkpoint_after_signed_ones_says_it_is_not_signed(demo, key, tmp_path):
    """From a QA pass: a master whose key was not at hand (another machine, $LEDGER_KEY
    unset) took unsigned checkpoints of a campaign whose earlier ones were signed, unawares."""
    succeeded(run_ledger("checkpoint", db=demo, env=key["env"]))
    elsewhere = succeeded(run_ledger("checkpoint", db=demo, env={"LEDGER_KEY": str(tmp_path / "none.pem")}))
    assert "this checkpoint is not signed" in elsewhere.stderr and key["public"] in elsewhere.stderr
    assert "signed" not in succeeded(run_ledger("checkpoint", db=demo, env=key["env"])).stderr


def test_verify_signed_by_another_key_fails(demo, key, tmp_path):
    succeeded(run_ledger("checkpoint", db=demo, env=key["env"]))
    other = json_of(succeeded(run_ledger("--json", "keys", "init", env={"LEDGER_KEY": str(tmp_path / "o.pem")})))
    line, report = verify_fails(demo, "--signed-by", other["public"])
    assert "no checkpoint kept in this file is signed by the key you trust" in line, line
    # no finding about the log (found by a QA pass: it said "not intact", with a first bad seq)
    assert "not intact" not in line and "first bad seq" not in line, line
    assert report["unvouched"] is True and report["bad_seq"] is None and report["ok"] is False


def test_verify_signed_by_passes_over_checkpoints_of_no_key_or_another_but_checks_them(demo, key, tmp_path):
    """A QA pass: the README's order (a checkpoint, then keys init, then a signed checkpoint)
    made every `verify --signed-by` fail on the first, unsigned one, and anyone holding the
    file could break it for everyone with a checkpoint signed by a key of their own. Those
    vouch for nothing, but are still checked against the log as plain verify checks them."""
    first = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo)))  # before the master had a key
    succeeded(run_ledger("hero", "add", "zed", db=demo))
    json_of(succeeded(run_ledger("--json", "keys", "init", env={"LEDGER_KEY": str(tmp_path / "f.pem")})))
    succeeded(run_ledger("checkpoint", db=demo, env={"LEDGER_KEY": str(tmp_path / "f.pem")}))  # someone else's
    line, report = verify_fails(demo, "--signed-by", key["public"])  # nothing of the master's yet
    assert "no checkpoint kept in this file is signed by the key you trust" in line, line
    signed = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo, env=key["env"])))
    report = json_of(succeeded(run_ledger("--json", "verify", "--signed-by", key["public"], db=demo)))
    assert report["ok"] and report["signed_to"] == signed["seq"] and report["signed_keys"] == [key["public"]]
    # one of no key that the log does not match: plain verify says so; under --signed-by, where
    # the trusted key vouches for the log past it (a review), it was put there, and is passed over
    _spoil(demo, first["head"])
    assert verify_fails(demo)[1]["bad_seq"] == first["seq"]
    assert json_of(succeeded(run_ledger("--json", "verify", "--signed-by", key["public"], db=demo)))["ok"]
    # past what the trusted key vouches for, it is a finding, said as one of two things
    succeeded(run_ledger("hero", "add", "yan", db=demo))
    later = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo)))
    _spoil(demo, later["head"])
    line, report = verify_fails(demo, "--signed-by", key["public"])
    assert report["bad_seq"] == later["seq"] and "a checkpoint the key you trust did not sign" in line \
        and "or that checkpoint was put there" in line, line


def _spoil(db: Path, head: str) -> None:
    """The kept checkpoint naming ``head`` names another head."""
    ledger = Ledger.open(db)
    try:
        (row,) = [s for s in ledger.recorder.select_notifications(start=1, limit=10_000)
                  if s.topic.endswith("CheckpointTaken") and json.loads(s.state).get("head") == head]
    finally:
        ledger.close()
    changed = row.state.replace(head.encode(), b"0" * len(head))
    assert raw(db, "UPDATE stored_events SET state = ? WHERE state = ?", [changed, row.state]) == 1


def test_verify_signed_by_a_file_with_no_signed_checkpoint_says_nothing_vouches_not_that_the_log_is_bad(demo, key):
    line, report = verify_fails(demo, "--signed-by", key["public"])
    assert "the key you trust does not vouch for this file's record" in line and "not intact" not in line \
        and "first bad seq" not in line, line
    assert report["unvouched"] is True and report["bad_seq"] is None and report["campaign"] != "?"


def test_verify_names_the_key_that_signed_the_checkpoints_it_found(demo, key, tmp_path):
    """Anyone holding the file can sign a checkpoint with a key of their own: the ok line
    names the key, for the players to compare with the master's."""
    succeeded(run_ledger("checkpoint", db=demo, env=key["env"]))
    master_to = last_seq(demo)
    forger = json_of(succeeded(run_ledger("--json", "keys", "init", env={"LEDGER_KEY": str(tmp_path / "f.pem")})))
    succeeded(run_ledger("--actor", "ana", "draw", "deck:skill", db=demo))  # recorded after the master's checkpoint
    succeeded(run_ledger("checkpoint", db=demo, env={"LEDGER_KEY": str(tmp_path / "f.pem")}))
    result = succeeded(run_ledger("verify", db=demo, env={"COLUMNS": "1000"}))
    # each key with its own reach (a QA pass: "signed by MASTER, OTHER hold up to seq 37" read as the master's)
    assert f"checkpoints signed by {key['public']} hold up to seq {master_to}; checkpoints signed by " \
           f"{forger['public']} hold up to seq {master_to + 1}" in result.stdout, result.stdout
    report = json_of(succeeded(run_ledger("--json", "verify", db=demo)))
    assert report["signed_keys"] == [key["public"], forger["public"]]
    assert report["signed_upto"] == {key["public"]: master_to, forger["public"]: master_to + 1}


# -- export and import --------------------------------------------------------------------
def export_lines(db: Path, *args: str, env=None) -> list[str]:
    return succeeded(run_ledger(*args, "export", db=db, env=env)).stdout.splitlines()


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_an_export_ends_with_a_trailer_holding_the_count_and_the_head(demo):
    lines = export_lines(demo)
    trailer = json.loads(lines[-1])["trailer"]
    assert trailer == {"count": len(lines) - 1, "head": checkpoint_of(demo)["head"]}


def test_a_signed_export_imports_with_signed_by_and_an_unsigned_one_does_not(demo, key, tmp_path):
    signed = write(tmp_path / "signed.jsonl", export_lines(demo, env=key["env"]))
    trailer = json.loads(signed.read_text().splitlines()[-1])["trailer"]
    assert trailer["key"] == key["public"]
    succeeded(run_ledger("import", str(signed), "--signed-by", key["public"], db=tmp_path / "one.db"))
    unsigned = write(tmp_path / "unsigned.jsonl", export_lines(demo))
    line = one_error_line(run_ledger("import", str(unsigned), "--signed-by", key["public"], db=tmp_path / "two.db"))
    assert "not signed by the key you trust" in line
    assert not (tmp_path / "two.db").exists()


def test_an_export_cut_at_a_signed_checkpoint_with_that_checkpoint_as_its_trailer_is_refused(demo, key, tmp_path):
    """Found by a QA pass: a checkpoint's signature and an export trailer's signed the same
    bytes, so anyone holding the file could cut an export at a checkpoint the master signed
    (kept in the file, or carried by any --json view) and put that checkpoint as its
    trailer: import --signed-by took it as the master's whole export. A trailer signs its
    own statement ("this export ends here")."""
    kept = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo, env=key["env"])))
    assert kept["key"] == key["public"]
    succeeded(run_ledger("--actor", "ana", "draw", "deck:skill", db=demo))  # the action the cut would hide
    lines = export_lines(demo)  # exported by someone without the key
    trailer = {"count": kept["seq"], "head": kept["head"], "key": kept["key"], "signature": kept["signature"]}
    cut = write(tmp_path / "cut.jsonl", lines[:kept["seq"]] + [json.dumps({"trailer": trailer})])
    line = one_error_line(run_ledger("import", str(cut), "--signed-by", key["public"], db=tmp_path / "cut.db"))
    assert "a checkpoint's signature, not an export's" in line and f"up to seq {kept['seq']}" in line
    assert not (tmp_path / "cut.db").exists()
    whole = write(tmp_path / "whole.jsonl", export_lines(demo, env=key["env"]))  # the master's own export
    succeeded(run_ledger("import", str(whole), "--signed-by", key["public"], db=tmp_path / "whole.db"))


def kept_in(db: Path) -> list[tuple]:
    ledger = Ledger.open(db)
    try:
        return [(k.seq, k.head, k.key, k.signature) for k in ledger.kept_checkpoints(ledger.resolve(None))]
    finally:
        ledger.close()


def test_an_imported_copy_keeps_the_checkpoints_its_export_carries_so_verify_signed_by_holds_there(
        demo, key, tmp_path):
    """Found by a QA pass: a player imported the master's signed export with --signed-by,
    then `verify --signed-by` on the copy said the master's key vouched for nothing (the
    checkpoints kept in the file stayed behind). The trailer carries them, and a signed
    export one at its end, signed as a checkpoint."""
    kept = json_of(succeeded(run_ledger("--json", "checkpoint", db=demo, env=key["env"])))
    succeeded(run_ledger("--actor", "ana", "draw", "deck:skill", db=demo))
    count = last_seq(demo)
    signed = write(tmp_path / "signed.jsonl", export_lines(demo, env=key["env"]))
    carried = json.loads(signed.read_text().splitlines()[-1])["trailer"]["checkpoints"]
    assert [c["seq"] for c in carried] == [kept["seq"], count]
    copy = tmp_path / "copy.db"
    succeeded(run_ledger("import", str(signed), "--signed-by", key["public"], db=copy))
    report = json_of(succeeded(run_ledger("--json", "verify", "--signed-by", key["public"], db=copy)))
    assert report["ok"] and report["signed_upto"] == {key["public"]: count}
    assert kept_in(copy)[0] == kept_in(demo)[0] and len(kept_in(copy)) == 2
    # exported without the key: the master's checkpoint kept in the file still vouches in the copy, to its seq
    unsigned = write(tmp_path / "unsigned.jsonl", export_lines(demo))
    other = tmp_path / "other.db"
    succeeded(run_ledger("import", str(unsigned), db=other))
    report = json_of(succeeded(run_ledger("--json", "verify", "--signed-by", key["public"], db=other)))
    assert report["signed_upto"] == {key["public"]: kept["seq"]}
    assert kept_in(other) == kept_in(demo)


def test_an_export_whose_carried_checkpoint_was_changed_or_names_a_cut_seq_is_refused(demo, key, tmp_path):
    succeeded(run_ledger("--json", "checkpoint", db=demo, env=key["env"]))
    lines = export_lines(demo)
    trailer = json.loads(lines[-1])
    forged = json.loads(lines[-1])
    forged["trailer"]["checkpoints"][0]["head"] = "0" * 64
    line = one_error_line(run_ledger("import", str(write(tmp_path / "f.jsonl", lines[:-1] + [json.dumps(forged)])),
                                     db=tmp_path / "f.db"))
    assert "seq 36 is bad" in line and "carries a signature that does not hold" in line
    # cut short, the trailer rewritten by hand for the cut (no key vouches for it): the carried
    # checkpoint still names the seq the file no longer reaches
    cut = dict(trailer["trailer"], count=last_seq(demo) - 2,
               head=json.loads(lines[-4])["event"]["hash"])
    line = one_error_line(run_ledger("import", str(write(tmp_path / "c.jsonl", lines[:-3] + [json.dumps(
        {"trailer": cut})])), db=tmp_path / "c.db"))
    assert "actions are missing" in line
    for bad in ([{"seq": True, "head": "x"}], [{"seq": 3, "head": "x", "key": "k"}], "all"):
        odd = dict(trailer["trailer"], checkpoints=bad)
        line = one_error_line(run_ledger("import", str(write(tmp_path / "o.jsonl", lines[:-1] + [json.dumps(
            {"trailer": odd})])), db=tmp_path / "o.db"))
        assert "the trailer's checkpoints must each hold a seq and a head" in line
    assert not any(p.suffix == ".db" for p in tmp_path.iterdir() if p.name != demo.name)


@pytest.mark.parametrize("cut", [1, 4])
def test_an_export_cut_short_is_refused(demo, tmp_path, cut):
    lines = export_lines(demo)
    without_trailer = write(tmp_path / "cut.jsonl", lines[:-1 - cut])
    assert "no trailer" in one_error_line(run_ledger("import", str(without_trailer), db=tmp_path / "a.db"))
    with_trailer = write(tmp_path / "cut2.jsonl", lines[:-1 - cut] + lines[-1:])
    assert "cut off" in one_error_line(run_ledger("import", str(with_trailer), db=tmp_path / "b.db"))
    assert not (tmp_path / "a.db").exists() and not (tmp_path / "b.db").exists()


def test_a_rewritten_export_with_the_old_trailer_or_a_forged_signature_is_refused(tmp_path, key):
    a, b, _n = _two_histories(tmp_path)
    real = export_lines(a, env=key["env"])
    forged = export_lines(b)
    rechained = write(tmp_path / "rechained.jsonl", forged[:-1] + real[-1:])
    n = len(forged) - 1  # the real trailer carries the master's checkpoint at its end, signed
    line = one_error_line(run_ledger("import", str(rechained), db=tmp_path / "x.db"))
    assert f"seq {n} is bad" in line and "the record was rewritten" in line
    bare = json.loads(real[-1])
    del bare["trailer"]["checkpoints"]
    rechained = write(tmp_path / "rechained2.jsonl", forged[:-1] + [json.dumps(bare)])
    assert "trailer's head" in one_error_line(run_ledger("import", str(rechained), db=tmp_path / "x2.db"))
    trailer = json.loads(forged[-1])
    real_trailer = json.loads(real[-1])["trailer"]
    trailer["trailer"].update(key=real_trailer["key"], signature=real_trailer["signature"])
    resigned = write(tmp_path / "resigned.jsonl", forged[:-1] + [json.dumps(trailer)])
    assert "signature does not hold" in one_error_line(run_ledger("import", str(resigned), db=tmp_path / "y.db"))


def test_import_with_expect_refuses_a_rewritten_export(tmp_path):
    a, b, _n = _two_histories(tmp_path)
    kept = checkpoint_of(a)
    forged = write(tmp_path / "forged.jsonl", export_lines(b))
    line = one_error_line(run_ledger("import", str(forged), "--expect", f"{kept['seq']}:{kept['head']}",
                                     db=tmp_path / "x.db"))
    assert f"seq {kept['seq']} is bad" in line


def test_a_viewers_export_cannot_be_imported(demo, tmp_path):
    public = write(tmp_path / "public.jsonl", export_lines(demo, "--as", "public"))
    line = one_error_line(run_ledger("import", str(public), db=tmp_path / "x.db"))
    assert "what public may know" in line and "referee" in line


def test_a_viewers_export_ends_with_the_same_trailer_as_the_full_one(demo):
    full = json.loads(export_lines(demo)[-1])
    public = export_lines(demo, "--as", "public")
    assert json.loads(public[0])["export"]["viewer"] == "public"
    assert json.loads(public[-1]) == full


def test_import_reads_the_file_as_a_stream_and_stops_at_the_first_bad_line(demo, tmp_path):
    """A never-ending file (a pipe that is written to for as long as it is read): an
    import that read it all before checking would never return."""
    first = export_lines(demo)[0]
    pipe = tmp_path / "endless.jsonl"
    os.mkfifo(pipe)
    stop = threading.Event()

    def endless() -> None:
        try:
            with pipe.open("w") as out:
                out.write(first + "\n" + "this is not an exported action\n")
                while not stop.is_set():
                    out.write('{"campaign_id": "x", "seq": 3}\n' * 1000)
        except (BrokenPipeError, OSError):
            pass

    writer = threading.Thread(target=endless, daemon=True)
    writer.start()
    try:
        with pytest.raises(BadCatalog, match="line 2: not an exported action"):
            import_campaign(pipe, tmp_path / "x.db")
    finally:
        stop.set()
        writer.join(timeout=10)
    assert not (tmp_path / "x.db").exists() or not Ledger.open(tmp_path / "x.db").campaigns()


def test_export_into_a_missing_folder_gets_a_one_line_error(demo, tmp_path):
    line = one_error_line(run_ledger("export", str(tmp_path / "no" / "such" / "out.jsonl"), db=demo))
    assert "cannot write the export" in line and "unexpected" not in line


def test_import_into_a_missing_folder_names_the_file_asked_for_not_a_scratch_file(demo, tmp_path):
    export = tmp_path / "out.jsonl"
    succeeded(run_ledger("export", str(export), db=demo))
    target = tmp_path / "no" / "such" / "x.db"
    line = one_error_line(run_ledger("import", str(export), "--db", str(target)))
    assert f"no folder {target.parent} for the database {target} " in line and ".import-" not in line, line


def test_refused_actions_in_a_long_lived_ledger_leave_the_snapshot_at_seq_100_checking_out(tmp_path):
    """A refused action may empty a stack before it is refused; its rollback puts the
    stack back, at the end of the table's stacks. That order is no part of the state
    (nothing recorded reads it), so the digest at seq 100 of a ledger that refused such
    an action (the table server's, say, which keeps its campaigns in memory) is the one
    verify, folding from the start, gets back, and loading uses the snapshot there."""
    from ledger.errors import LedgerError

    ledger = Ledger.open(tmp_path / "campaign.db", create=True)
    try:
        cid = ledger.start(load_catalog(SAMPLE), name="r", slug="r").campaign.id
        for hero in ("ana", "bo"):
            ledger.execute(cid, c.AddHero(hero=hero))
        ledger.execute(cid, c.Add(cards=("item-sword",), to="scenario"))  # alone there
        ledger.execute(cid, c.Add(cards=("item-bow",), to="limbo"))
        live = ledger.campaign(cid)
        before = list(live.table.stacks)
        with pytest.raises(LedgerError):  # the sword goes first, then the bow is refused: already in limbo
            ledger.execute(cid, c.Exile(actor="master", cards=("item-sword", "item-bow")))
        assert list(live.table.stacks) != before and ledger.last_seq(cid) == 5  # the stacks' order did change
        while ledger.last_seq(cid) < DIGEST_EVERY:
            ledger.execute(cid, c.Hide(cards=("item-sword",)) if live.table.face("item-sword") == "up"
                           else c.Reveal(cards=("item-sword",)))
        assert ledger.fit_snapshot(cid, DIGEST_EVERY)[0].originator_version == DIGEST_EVERY
        assert verify(ledger, cid).ok
    finally:
        ledger.close()


def test_a_rollback_puts_a_hero_back_in_their_place_among_the_heroes(long):
    """The order of the heroes orders what later actions record: a refused action that
    took a hero away (as an undo of their arrival does) leaves them where they were."""
    from ledger.changes import HeroChanged
    from ledger.play import Play

    ledger = Ledger.open(long)
    try:
        campaign = ledger.campaign(ledger.resolve(None))
        order = list(campaign.table.heroes)
        first = order[0]
        play = Play(campaign, "master")
        play.apply(HeroChanged(hero=first, was=campaign.table.heroes[first], now=None))
        play.rollback()
        assert list(campaign.table.heroes) == order
    finally:
        ledger.close()


def plant_snapshot(db: Path, seq: int, state: dict) -> None:
    """A forger's snapshot at ``seq`` holding ``state`` (its own digest written again to
    match), stored as the ledger stores the one at DIGEST_EVERY."""
    state["digest"] = digest(state)
    con = sqlite3.connect(str(db))
    try:
        originator, topic, stored = con.execute("SELECT originator_id, topic, state FROM stored_snapshots "
                                                "WHERE originator_version = ?", [DIGEST_EVERY]).fetchone()
        data = json.loads(stored)
        data["originator_version"], data["state"] = seq, state
        with con:
            con.execute("INSERT INTO stored_snapshots (originator_id, originator_version, topic, state) "
                        "VALUES (?, ?, ?, ?)", [originator, seq, topic, json.dumps(data).encode()])
    finally:
        con.close()


def test_a_snapshot_forged_where_no_action_records_a_digest_is_named_by_verify_and_no_read_fails(long, tmp_path):
    """Only every hundredth action anchors a snapshot in the chain; one put in between
    (its own digest and head right, its table no table at all) cannot crash a read:
    loading folds from the start instead, and verify names its seq."""
    (tmp_path / "untouched").mkdir()
    untouched = copy_db(long, tmp_path / "untouched")
    seq = DIGEST_EVERY + 5
    ledger = Ledger.open(long)
    try:
        state = ledger.campaign(ledger.resolve(None), at=seq).snapshot()
    finally:
        ledger.close()
    state["table"]["stacks"] = 5
    plant_snapshot(long, seq, state)
    for args in (["zones"], ["zones", "--at", str(seq + 1)]):
        assert succeeded(run_ledger("--json", *args, db=long)).stdout == run_ledger("--json", *args, db=untouched).stdout
    line, report = verify_fails(long)
    assert report["bad_seq"] == seq and "snapshot" in line, line


def test_a_well_formed_snapshot_forged_where_no_action_records_a_digest_is_never_served(long, tmp_path):
    """A forger who writes a snapshot between the anchored seqs, with a table that folds
    well (a deck's order turned over, say) and its own digest and head right, is not
    believed by any read (the table now, time travel past it) before verify is run:
    nothing in the chain anchors a snapshot there, so loading passes it over."""
    (tmp_path / "untouched").mkdir()
    untouched = copy_db(long, tmp_path / "untouched")
    seq = DIGEST_EVERY + 5
    ledger = Ledger.open(long)
    try:
        state = ledger.campaign(ledger.resolve(None), at=seq).snapshot()
    finally:
        ledger.close()
    decks = [zone for zone, cards in state["table"]["stacks"].items() if zone.startswith("deck:") and len(cards) > 1]
    assert decks, "the campaign has a deck of two cards or more to turn over"
    state["table"]["stacks"][decks[0]].reverse()
    plant_snapshot(long, seq, state)
    for args in (["zones"], ["zones", "--at", str(seq)], ["zones", "--at", str(seq + 1)]):
        assert succeeded(run_ledger("--json", *args, db=long)).stdout == run_ledger("--json", *args, db=untouched).stdout
    line, report = verify_fails(long)
    assert report["bad_seq"] == seq and "snapshot" in line, line


def test_a_snapshot_forged_in_the_older_rules_part_of_an_upgraded_log_is_never_served(tmp_path):
    """Actions recorded under rules older than 3 record no digest (a log begun then, whose
    rules were raised later): a snapshot forged between two of their hundredth seqs is
    passed over all the same, since the ledger takes none there, and the table the next
    actions are decided on is the log's."""
    from ledger.interface.simulate import simulate, start_simulation
    from ledger.rulesets import decided_under

    db = tmp_path / "upgraded.db"
    app = Ledger.open(db, create=True)
    try:
        with decided_under(2):
            cid = start_simulation(app, heroes=2, seed=1)
            simulate(app, cid, 150 - app.last_seq(cid), seed=1)  # seqs up to 150 under ruleset 2
        simulate(app, cid, 20, seed=2)  # then the current rules
        assert (app.event(cid, 150).ruleset, app.event(cid, 151).ruleset) == (2, RULESET)
        state = app.campaign(cid, at=150).snapshot()
        honest = app.campaign(cid).table.to_dict()
    finally:
        app.close()
    decks = [zone for zone, cards in state["table"]["stacks"].items() if zone.startswith("deck:") and len(cards) > 1]
    state["table"]["stacks"][decks[0]].reverse()
    plant_snapshot(db, 150, state)
    app = Ledger.open(db)
    try:
        assert app.fit_snapshot(cid)[0].originator_version == DIGEST_EVERY
        assert app.campaign(cid).table.to_dict() == honest
    finally:
        app.close()


@pytest.mark.parametrize("column, state", [("state", b"\x00"), ("state", b"{}"), ("state", b'{"actor": 1}'),
                                           ("topic", "ledger.events:NoSuchEvent"), ("topic", "no.such.module:X"),
                                           ("state", '{"actor": "master"}')],
                         ids=["not-json", "empty", "wrong-field", "unknown-event", "unknown-module", "text"])
def test_a_damaged_action_row_gives_one_line_naming_its_seq_and_verify_names_it(demo, column, state):
    """An action row whose bytes were changed cannot be read back: every command says so
    in one line naming its seq (never an unexpected failure, nor a field error as if the
    user had typed it), and verify names that seq as the first bad one."""
    raw(demo, f"UPDATE stored_events SET {column} = ? WHERE originator_version = 12 AND topic LIKE 'ledger.events:%'",
        [state])
    for args in (["zones"], ["--as", "bo", "zones", "--at", "5"], ["history", "--limit", "3"], ["battle", "start"]):
        line = one_error_line(run_ledger(*args, db=demo))
        assert "seq 12 cannot be read" in line and "verify" in line, (args, line)
    line, report = verify_fails(demo)
    assert report["bad_seq"] == 12 and "cannot be read" in line


# -- actions that claim older rules, or leave out facts their rules record ---------------------------
def _append_as(db: Path, version: int, *commands: c.Command) -> int:
    """Records commands as a ledger of rules ``version`` would (a forger's own ledger, or
    an outdated one); returns the seq of the first."""
    from ledger.rulesets import decided_under

    ledger = Ledger.open(db)
    try:
        cid = ledger.resolve(None)
        first = ledger.last_seq(cid) + 1
        with decided_under(version):
            for command in commands:
                ledger.execute(cid, command)
    finally:
        ledger.close()
    return first


@pytest.mark.parametrize("version", [1, RULESET - 1])
def test_an_action_that_claims_older_rules_than_the_one_before_it_is_named_by_verify(demo, version):
    """Older rules let a hero do what the rules now refuse (choose a shuffle's seed,
    search without an effect, take back a draw that showed her a card): a ledger never
    goes back to older rules, so verify names the first action that claims them, even
    with a checkpoint kept before it (the actions were appended, nothing was rewritten)."""
    kept = checkpoint_of(demo)
    seq = _append_as(demo, version, c.Shuffle(actor="ana", stack="deck:skill", seed=7) if version < 2
                     else c.Exhaust(actor="ana", cards=("item-sword",)))
    line, report = verify_fails(demo, "--expect", f"{kept['seq']}:{kept['head']}")
    assert report["bad_seq"] == seq and "older rules" in line, line


def test_an_action_that_claims_rules_newer_than_the_ledger_knows_is_not_passed_unchecked(demo):
    seq = _append_as(demo, RULESET + 1, c.Exhaust(actor="ana", cards=("item-sword",)))
    line, report = verify_fails(demo)
    assert report["bad_seq"] == seq and "newer ledger" in line, line


def test_an_action_edited_to_claim_newer_rules_than_the_action_after_it_is_named_changed_not_newer(demo):
    """A QA pass: an action edited to claim rules newer than the ledger knows (its hash not
    recomputed) was told as "check the campaign with a newer ledger", though the action after
    it was of this ledger's rules, and a ledger never goes back to older rules: verify names
    it changed. The latest action, with none after it, is still told as newer."""
    from .test_verify import read_state, write_state

    seq = _append_as(demo, RULESET, c.Exhaust(actor="ana", cards=("item-sword",)),
                     c.Restore(actor="ana", cards=("item-sword",)))
    ledger = Ledger.open(demo)
    cid = ledger.resolve(None)
    ledger.close()
    state = json.loads(read_state(demo, cid, seq))
    state["ruleset"] = RULESET + 1
    write_state(demo, cid, seq, json.dumps(state, separators=(",", ":")).encode())
    line, report = verify_fails(demo)
    assert report["bad_seq"] == seq and "newer ledger" not in line, line
    assert f"though seq {seq + 1} after it was decided under rules {RULESET}" in line and "was changed" in line, line


def test_an_action_of_newer_rules_that_hash_it_otherwise_is_told_as_newer_not_as_damaged(demo):
    """Newer rules may hash an action differently (ruleset 10 began hashing its kind): a
    ledger that meets one says so, in verify and in every command, rather than call the
    file changed."""
    from .test_verify import read_state, write_state

    seq = _append_as(demo, RULESET + 1, c.Exhaust(actor="ana", cards=("item-sword",)))
    ledger = Ledger.open(demo)
    cid = ledger.resolve(None)
    ledger.close()
    state = json.loads(read_state(demo, cid, seq))
    state["hash"] = "0" * 64  # as a scheme this ledger does not know would hash it
    write_state(demo, cid, seq, json.dumps(state, separators=(",", ":")).encode())
    line, report = verify_fails(demo)
    assert report["bad_seq"] == seq and "newer ledger" in line, line
    line = one_error_line(run_ledger("zones", db=demo))
    assert f"seq {seq}" in line and "newer ledger" in line and "changed" not in line, line


def test_a_fact_the_actions_rules_always_record_left_out_and_resealed_is_named(demo):
    """ana's draw showed her a hidden card (``identified``); the forger empties that fact,
    which the event hashes only when it is not empty, and seals the action again, so that
    ana may take the draw back and find the deck's order as she saw it. Empty would pass
    for an action recorded before such facts were kept: not under the rules it claims."""
    from .test_verify import read_state, reseal_from, write_state

    seq = _append_as(demo, RULESET, c.Draw(actor="ana", stack="deck:skill"))
    ledger = Ledger.open(demo)
    cid = ledger.resolve(None)
    ledger.close()
    state = json.loads(read_state(demo, cid, seq))
    assert state.pop("identified") == {"ana": [state["changes"][0]["card"]]}
    write_state(demo, cid, seq, json.dumps(state, separators=(",", ":")).encode())
    reseal_from(demo, cid, seq)
    line, report = verify_fails(demo)
    assert report["bad_seq"] == seq and "does not replay" in line, line


def test_every_fact_added_later_says_from_which_rules_it_is_always_recorded():
    """``ActionRecorded.LATER_FROM``: verify keeps an empty later fact out of the
    comparison only for actions of older rules; a new fact without its ruleset would
    open the door again."""
    from ledger import events as e

    classes = [cls for cls in vars(e).values() if isinstance(cls, type) and issubclass(cls, e.ActionRecorded)]
    for cls in classes:
        for name in cls.later:
            assert name in cls.model_fields and 2 <= cls.LATER_FROM[name] <= RULESET, (cls.__name__, name)


# -- the campaign's name and slug: said by its start, in the chain ------------------------------------
@pytest.mark.parametrize("field", ["name", "slug"])
def test_a_snapshots_name_or_slug_is_not_believed_the_starts_is(long, field):
    """A snapshot's digest covers its table and bookkeeping, not the campaign's name and
    slug, which never change after its start: a forged name in the snapshots showed in
    every view, with verify ok; a forged slug emptied every history."""
    before = json_of(succeeded(run_ledger("--json", "history", "--limit", "3", db=long)))
    title = succeeded(run_ledger("zones", db=long)).stdout.splitlines()[0]
    con = sqlite3.connect(str(long))
    try:
        with con:
            for seq, state in con.execute("SELECT originator_version, state FROM stored_snapshots").fetchall():
                data = json.loads(state)
                snapshot = data["state"] if "state" in data else data
                snapshot[field] = "Forged Campaign" if field == "name" else "other"
                con.execute("UPDATE stored_snapshots SET state = ? WHERE originator_version = ?",
                            [json.dumps(data).encode(), seq])
    finally:
        con.close()
    assert succeeded(run_ledger("zones", db=long)).stdout.splitlines()[0] == title
    assert json_of(succeeded(run_ledger("--json", "history", "--limit", "3", db=long))) == before
    assert "Forged" not in succeeded(run_ledger("--as", "public", "zones", db=long)).stdout
    succeeded(run_ledger("verify", db=long))


def test_a_campaign_listed_under_another_name_is_named_by_verify(demo):
    """``ledger campaigns`` reads the list of campaigns, a log apart from the campaign's
    own chain: a name changed there is named by verify (the start, in the chain, says
    the true one)."""
    raw(demo, "UPDATE stored_events SET state = json_set(state, '$.name', 'Forged') "
              "WHERE topic LIKE '%CampaignRegistered%'")
    assert "Forged" in succeeded(run_ledger("campaigns", db=demo)).stdout
    line, report = verify_fails(demo)
    assert report["bad_seq"] == 1 and "list of campaigns" in line and "Forged" in line, line


@pytest.mark.parametrize("topic", ["CampaignRegistered", "SeatOpened", "CheckpointTaken"])
def test_a_damaged_record_of_the_files_own_logs_is_named_for_what_it_is(demo, topic):
    """The list of campaigns, the seats and the checkpoints are logs of the file, apart
    from the campaign's actions: a damaged record of theirs is not "the record at seq 1",
    which verify would then look for in the campaign's log in vain."""
    succeeded(run_ledger("seat", "add", "ana", db=demo))
    succeeded(run_ledger("checkpoint", db=demo))
    assert raw(demo, "UPDATE stored_events SET state = ? WHERE topic LIKE ?", [b"\x00", f"%:{topic}"]) >= 1
    log = {"CampaignRegistered": "list of campaigns", "SeatOpened": "seats", "CheckpointTaken": "checkpoints"}[topic]
    met = False
    for args in (["zones"], ["verify"], ["seat", "list"]):
        result = run_ledger(*args, db=demo)
        if result.returncode == 0:  # a command that reads none of that log
            continue
        line = one_error_line(result)
        assert line.startswith("error: a record of the database's") and log in line and "seq" not in line \
            and "copy" in line, (args, line)
        met = True
    assert met, f"no command met the damaged {topic} record"


def test_init_over_a_start_its_list_of_campaigns_does_not_name_says_so(tmp_path):
    """A file whose list of campaigns lost the entry of a campaign it holds (edited, or
    damaged): init of that campaign again fails on its own seq 1, which is no race with
    other writers, and says what it found, at once, appending nothing. (A list that lost
    every entry is refused by every command: tests/test_readmodel_damage.py.)"""
    db = tmp_path / "c.db"
    succeeded(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "Oeste", db=db))
    succeeded(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "Norte", db=db))
    assert raw(db, "DELETE FROM stored_events WHERE topic = 'ledger.events:CampaignRegistered' "
                   "AND originator_version = 2") == 1
    before = raw(db, "UPDATE stored_events SET topic = topic")
    line = one_error_line(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "Norte", db=db))
    assert "holds the start of a campaign 'norte' that its list of campaigns does not name" in line, line
    assert "other writers" not in line
    assert raw(db, "UPDATE stored_events SET topic = topic") == before  # nothing appended
    succeeded(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "Sul", db=db))


# -- an action edited in the file, its hash left as it was ---------------------------------
ACTION_AT = ("SELECT state FROM stored_events WHERE originator_version = ? AND topic LIKE 'ledger.events:%' "
             "AND topic NOT LIKE '%CampaignRegistered' AND topic NOT LIKE '%CheckpointTaken'")
"""The stored state of the campaign's action at a seq (not the lists' entries at that version)."""


def _edit_action(db: Path, seq: int, **fields: object) -> None:
    """Rewrites fields of the stored action at ``seq`` (its hash left as it was: a forger
    who edits the JSON, as one with the file and sqlite3 would)."""
    con = sqlite3.connect(str(db))
    try:
        (state,) = con.execute(ACTION_AT, [seq]).fetchone()
        data = json.loads(state)
        data.update(fields)
        with con:
            con.execute("UPDATE stored_events SET state = ? WHERE originator_version = ? AND state = ?",
                        [json.dumps(data).encode(), seq, state])
    finally:
        con.close()


@pytest.mark.parametrize("args", [
    ["zones"], ["--as", "ana", "zones"], ["--as", "public", "--json", "zones"], ["zones", "--at", "5"],
    ["history", "--limit", "3"], ["card", "item-sword"], ["checkpoint"], ["export", "out.jsonl"],
    ["--actor", "ana", "draw", "deck:item"], ["undo"],
])
def test_an_action_edited_in_the_file_is_refused_by_every_command_never_shown_or_acted_on(demo, args):
    """Loading checks the actions it folds against the chain (those after the snapshot
    it starts from): an action whose JSON was changed without its hash is named, in one
    line, by every command that would show it or act on it; nothing is recorded, no
    checkpoint or export is made of it, and verify names the same seq."""
    seq = last_seq(demo) - 3
    _edit_action(demo, seq, actor="bo" if _action_json(demo, seq)["actor"] == "ana" else "ana")
    before = last_seq(demo)
    line = one_error_line(run_ledger(*args, db=demo, cwd=demo.parent), what=args)
    assert f"seq {seq} " in line and "hash" in line
    assert last_seq(demo) == before and not (demo.parent / "out.jsonl").exists()
    _line, report = verify_fails(demo)
    assert report["bad_seq"] == seq


def _action_json(db: Path, seq: int) -> dict:
    con = sqlite3.connect(str(db))
    try:
        (state,) = con.execute(ACTION_AT, [seq]).fetchone()
        return json.loads(state)
    finally:
        con.close()


def test_a_snapshot_forged_with_the_digest_in_its_action_rewritten_too_is_refused(long):
    """A forger who edits the snapshot at seq 100, reseals it, and writes its digest into
    the action at 100 (whose hash it no longer matches) is named there, not served."""
    seq = _edit_snapshot(long, reseal=True)
    con = sqlite3.connect(str(long))
    try:
        (state,) = con.execute("SELECT state FROM stored_snapshots WHERE originator_version = ?", [seq]).fetchone()
    finally:
        con.close()
    data = json.loads(state)
    _edit_action(long, seq, state_digest=digest(data["state"] if "state" in data else data, ordered=True))
    for args in (["zones"], ["zones", "--at", str(seq + 3)]):
        line = one_error_line(run_ledger(*args, db=long), what=args)
        assert f"seq {seq} " in line and "hash" in line
    _line, report = verify_fails(long)
    assert report["bad_seq"] == seq


def test_a_long_lived_ledger_refuses_an_action_edited_after_it_first_read_it(long):
    """The table server keeps one ledger open for hours: an action edited in the file after
    it first loaded that stretch of the log is refused at the next load, not trusted."""
    from ledger.errors import DamagedRecord

    ledger = Ledger.open(long)
    try:
        cid = ledger.resolve(None)
        ledger.campaign(cid, at=108)
        _edit_action(long, 105, actor="bo" if _action_json(long, 105)["actor"] == "ana" else "ana")
        with pytest.raises(DamagedRecord, match="seq 105 "):
            ledger.campaign(cid, at=107)
    finally:
        ledger.close()


def test_the_table_servers_live_stream_sends_no_action_edited_in_the_file(demo):
    """The follower folds each new action into its copy and sends it, with a signed
    checkpoint, to every stream: an action whose JSON was changed after it was hashed
    is sent to nobody (the streams are closed, to reload and meet the refusal)."""
    from ledger.interface.server.clerk import Clerk
    from ledger.interface.server.live import Follower, Stream

    clerk = Clerk(str(demo))
    try:
        follower = Follower(clerk)
        cid = clerk.ledger.resolve(None)
        follower._follow(cid)

        class Seat:
            viewer, campaign = "public", cid

        stream = Stream.__new__(Stream)
        stream.seat, stream.speaks, stream.queue = Seat(), "en", None
        follower.streams[cid] = {stream}
        clerk.seats.holds = lambda _seat: True
        follower._position = clerk.ledger.stored_event_count()
        seq = last_seq(demo) + 1
        succeeded(run_ledger("hero", "add", "zed", db=demo))
        _edit_action(demo, seq, hero="forged")
        sends = follower._poll()
        assert sends == [(stream, None)], sends
    finally:
        clerk.close()


def test_an_actions_kind_changed_in_the_file_is_refused_by_every_command_from_ruleset_10(demo):
    """An exhaust and a restore (a hide and an exile, a battle's start and end) record the
    same fields; only the stored topic says which it was. From ruleset 10 the hash covers
    the kind of action, so a topic changed in the file breaks the chain: every command
    refuses in one line rather than show an exhaust that never happened, and verify names
    the seq."""
    succeeded(run_ledger("restore", "companion-wolf", db=demo))
    seq = last_seq(demo)
    assert raw(demo, "UPDATE stored_events SET topic = 'ledger.events:CardsExhausted' "
                     "WHERE originator_version = ? AND topic = 'ledger.events:CardsRestored'", [seq]) == 1
    for args in (["zones"], ["--as", "bo", "history", "--limit", "3"], ["explain", str(seq)], ["card", "companion-wolf"]):
        line = one_error_line(run_ledger(*args, db=demo))
        assert f"seq {seq}" in line and "hash" in line, (args, line)
    line, report = verify_fails(demo)
    assert report["bad_seq"] == seq


def test_the_hash_of_an_action_is_pinned_for_each_way_of_hashing_it():
    """What the chain hashes is the record's contract: a renamed action or a field hashed
    otherwise would silently break every stored hash. Pinned for an action of ruleset 9
    (fields only) and of ruleset 10 (its kind too, ``integrity.KIND_HASHED_FROM``)."""
    from datetime import datetime, timezone
    from uuid import UUID

    from ledger.events import CardsExhausted, CardsRestored
    from ledger.integrity import GENESIS, chain_hash

    exhausted = CardsExhausted(originator_id=UUID(int=7), originator_version=12, actor="ana", cards=("item-sword",),
                               timestamp=datetime(2026, 12, 3, tzinfo=timezone.utc), ruleset=10)
    assert chain_hash(GENESIS, exhausted) == "f3efb59239a5d99a1a9016837916aa92fed7827fa40f5e0ef15cb3f89081e78c"
    older = exhausted.model_copy(update={"ruleset": 9})
    assert chain_hash(GENESIS, older) == "8679aad43ff4899605e730dd72beea68faf5119666e3e29bc99a0c4ef81c9a2e"
    restored = CardsRestored(**{k: getattr(exhausted, k) for k in ("originator_id", "originator_version", "actor",
                                                                     "cards", "timestamp", "ruleset")})
    assert chain_hash(GENESIS, restored) != chain_hash(GENESIS, exhausted)  # the same fields, another kind
    assert chain_hash(GENESIS, restored.model_copy(update={"ruleset": 9})) == chain_hash(GENESIS, older)


def test_a_topic_changed_to_name_another_module_is_refused_without_importing_it(demo):
    """A record's topic names the class its JSON is read into; resolved as eventsourcing
    resolves topics, a topic changed in the file to ``this:s`` imported the module ``this``
    (printing to stdout) and any other it named, running its code. Only the ledger's own
    event classes are looked up: the record is refused in one line, nothing imported."""
    import sys

    sys.modules.pop("this", None)
    assert raw(demo, "UPDATE stored_events SET topic = 'this:s' WHERE originator_version = 12 "
                     "AND topic LIKE 'ledger.events:%'") == 1
    for args in (["zones"], ["--json", "history"], ["rebuild"]):
        shown = run_ledger(*args, db=demo)
        assert "Beautiful is better" not in shown.stdout + shown.stderr, args
        if args == ["rebuild"]:  # the file's other campaigns are followed on; this one stops there
            assert shown.returncode == 0 and "stopped following campaign demo at seq 12: that action cannot be " \
                "read" in shown.stderr, shown.stderr
            continue
        line = one_error_line(shown)
        assert "seq 12 cannot be read" in line, (args, line)
    line, report = verify_fails(demo)
    assert report["bad_seq"] == 12
    assert "this" not in sys.modules
