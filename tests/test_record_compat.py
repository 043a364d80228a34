"""Campaigns recorded by an earlier version of the ledger stay valid: facts added to
events later (``identified``, shuffle commitments) are left out of the hash while
empty, and ``verify`` does not ask an old action for facts it could not record."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.audit import verify
from ledger.errors import BadCatalog
from ledger.transfer import import_campaign

OLD_EXPORT = Path(__file__).parent / "data" / "demo_v0_1.jsonl"  # `ledger demo`, exported by v0.1


def test_an_export_without_a_trailer_is_refused_unless_asked_for_as_an_old_one(tmp_path):
    with pytest.raises(BadCatalog, match="no trailer line.*--without-trailer"):
        import_campaign(OLD_EXPORT, tmp_path / "old.db")
    assert not (tmp_path / "old.db").exists()


def test_a_campaign_exported_by_the_first_version_imports_and_verifies(tmp_path):
    report = import_campaign(OLD_EXPORT, tmp_path / "old.db", untrailed_ok=True)
    assert report.ok and report.actions == 36
    app = Ledger.open(tmp_path / "old.db")
    try:
        cid = app.resolve(None)
        assert verify(app, cid).ok
        assert all(not event.identified for event in app.actions(cid))
    finally:
        app.close()


def test_an_old_campaign_goes_on_with_new_actions_that_record_who_saw_what(tmp_path):
    from ledger import commands as c

    import_campaign(OLD_EXPORT, tmp_path / "old.db", untrailed_ok=True)
    app = Ledger.open(tmp_path / "old.db")
    try:
        cid = app.resolve(None)
        done = app.execute(cid, c.Draw(actor="bo", stack="deck:skill"))
        assert done.event.identified == {"bo": done.event.cards}
        assert verify(app, cid).ok
    finally:
        app.close()


@pytest.mark.both_stores
@pytest.mark.parametrize("loaded", ["held", "fresh", "from-a-snapshot-at-the-head"])
def test_a_ledger_records_nothing_in_a_campaign_a_newer_ledger_recorded_in(game, loaded):
    """A QA pass: a table server left running on an older version recorded 80 actions after
    one an updated CLI had recorded under newer rules; each claimed the older rules after
    newer ones, and verify called the campaign forged, for good. An older ledger refuses
    to record there (appending nothing) and says to update."""
    from ledger import commands as c
    from ledger.errors import OutdatedLedger
    from ledger.rulebook import RULESET
    from ledger.rulesets import decided_under

    from .conftest import db_of

    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    if loaded == "from-a-snapshot-at-the-head":  # the newer action is the 100th: a snapshot is taken after it
        game.add("companion-wolf", to="table:ana")
        while game.campaign.seq < Ledger.SNAPSHOT_INTERVAL - 1:
            game.do((c.Restore if "companion-wolf" in game.table.exhausted else c.Exhaust)(cards=("companion-wolf",)))
    with decided_under(RULESET + 1):  # as a newer ledger records it
        game.do(c.Draw(actor="ana", stack="deck:item"))
    if loaded == "from-a-snapshot-at-the-head":
        assert game.app.fit_snapshot(game.cid)[0].originator_version == game.campaign.seq
    if loaded != "held":
        game.app = Ledger.open(db_of(game.app))
    try:
        err = game.refuse(c.Draw(actor="bo", stack="deck:item"), OutdatedLedger)
        assert f"(rules {RULESET + 1}; this one knows {RULESET}): update campaign-ledger" in str(err)
        assert game.campaign.seq == game.app.last_seq(game.cid)  # it still reads it
    finally:
        if loaded != "held":
            game.app.close()


def test_an_action_a_newer_ledger_recorded_that_this_one_cannot_read_is_said_to_be_newer_not_damaged(tmp_path):
    """A review: a newer ledger's action with a field (or a kind of action) this one lacks
    was "cannot be read: the database was changed or damaged"; it names the newer rules."""
    import json
    import sqlite3

    from ledger.rulebook import RULESET

    from .conftest import one_error_line, run_ledger, succeeded

    db = tmp_path / "campaign.db"
    succeeded(run_ledger("demo", db=db))
    con = sqlite3.connect(db)
    rowid, state = con.execute("SELECT rowid, state FROM stored_events WHERE originator_version = 10 "
                               "AND topic LIKE 'ledger.events:%'").fetchone()
    data = json.loads(state)
    data.update(ruleset=RULESET + 1, a_later_fact=1)
    with con:
        con.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", [json.dumps(data).encode(), rowid])
    con.close()
    for args in (("zones",), ("verify",)):
        line = one_error_line(run_ledger(*args, db=db))
        assert f"seq 10 was recorded by a newer campaign-ledger (rules {RULESET + 1}; this one knows {RULESET})" \
               in line and "damaged" not in line, (args, line)
