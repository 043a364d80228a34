"""A save whose commit went through but whose reply was lost (a dropped connection):
eventsourcing's PostgreSQL recorder tries the insert again, which then finds the seq
taken — by the very action it saved. The ledger must record the command once and say so,
not decide it again on a state that already holds it (an audit recorded two draws for one
asked, an undo that took back two actions, and a discard reported refused though saved).

The store is real (an SQLite file, or a PostgreSQL schema); the fault is injected where
the recorder would raise: the insert is made, then ``IntegrityError`` is raised once.
"""

from __future__ import annotations

import pytest
from eventsourcing.persistence import IntegrityError

from ledger import commands as c
from ledger.audit import verify

from .conftest import Game

pytestmark = pytest.mark.both_stores


def _reply_lost_once(game: Game) -> list[int]:
    """Makes the next insert of the ledger's events go in, then fail as a retry would."""
    recorder = game.app.recorder
    insert = recorder.insert_events
    lost: list[int] = []

    def inserted_then_lost(*args, **kwargs):
        result = insert(*args, **kwargs)
        if not lost:
            lost.append(1)
            raise IntegrityError("duplicate key value violates unique constraint (the retry after a lost reply)")
        return result

    recorder.insert_events = inserted_then_lost
    return lost


@pytest.mark.parametrize("command", [
    c.Draw(actor="ana", stack="deck:item"),
    c.Discard(actor="ana", cards=("item-axe",)),
    c.Undo(),
], ids=["draw", "discard", "undo"])
def test_an_action_whose_reply_was_lost_is_recorded_once_and_reported_recorded(game, command):
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.add("item-axe", to="inventory:ana")
    before = game.campaign.seq
    lost = _reply_lost_once(game)
    done = game.do(command)
    assert lost, "the fault was not injected"
    assert done.seq == before + 1 == game.app.last_seq(game.cid), "recorded twice (or not at all)"
    assert game.app.event(game.cid, done.seq).hash == done.event.hash
    assert verify(game.app, game.cid).ok


@pytest.mark.parametrize("went_in", [True, False], ids=["committed", "not-committed"])
def test_an_action_whose_connection_was_lost_under_its_commit_is_reported_as_the_log_holds_it(game, went_in):
    """A QA pass (a proxy cut before PostgreSQL every second or two): past the recorder's
    retries the connection error reached the command, which said "try again" for an
    action that was recorded: a retry recorded it twice. The log is asked: an action that
    went in is reported recorded; one that did not is the error it was, nothing recorded."""
    psycopg = pytest.importorskip("psycopg")
    game.add("item-sword", "item-bow", to="deck:item")
    before = game.campaign.seq
    recorder = game.app.recorder
    insert = recorder.insert_events
    cut: list[int] = []

    def cut_under_the_commit(*args, **kwargs):
        result = insert(*args, **kwargs) if went_in else None
        if not cut:
            cut.append(1)
            raise psycopg.OperationalError("server closed the connection unexpectedly")
        return result

    recorder.insert_events = cut_under_the_commit
    if went_in:
        done = game.do(c.Draw(actor="ana", stack="deck:item"))
        assert done.seq == before + 1 == game.app.last_seq(game.cid), "recorded twice (or not at all)"
        assert game.app.event(game.cid, done.seq).hash == done.event.hash
        assert game.zone(done.event.changes[0].card) == "inventory:ana"
    else:
        with pytest.raises(psycopg.OperationalError):
            game.do(c.Draw(actor="ana", stack="deck:item"))
        assert game.app.last_seq(game.cid) == before
    assert cut, "the fault was not injected"
    assert verify(game.app, game.cid).ok


def test_two_inits_at_once_of_different_campaigns_both_start(db_path, sample_catalog):
    """Each start takes the next entry of the file's list of campaigns; one made between
    another's reading of the list and its save takes that entry first: the other is
    listed after it, not refused as a database that cannot be used (an audit: 11 of 24
    parallel inits failed so on PostgreSQL)."""
    from ledger.application import Ledger

    first, second = Ledger.open(db_path, create=True), Ledger.open(db_path)
    try:
        save = second.save
        raced: list[bool] = []

        def after_another_start(*items, **kwargs):
            if not raced:
                raced.append(True)
                first.start(sample_catalog, name="North")  # lands between the list's read and this save
            return save(*items, **kwargs)

        second.save = after_another_start
        second.start(sample_catalog, name="South")
        assert raced
        assert sorted(entry.slug for entry in second.campaigns()) == ["north", "south"]
        for cid in (entry.campaign_id for entry in second.campaigns()):
            assert verify(second, cid).ok
    finally:
        first.close()
        second.close()
