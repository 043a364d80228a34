"""The fast rebuild (projections.decoding, ``_Fold._rows_light``) against the fold it
replaced: an action that records who witnessed it gives, decoded light and never
folded, the very rows the fold gives it; what it records is what the table says; and
a log recorded before those facts were kept still rebuilds through the fold."""

from __future__ import annotations

import threading

import pytest

from ledger.application import Ledger
from ledger.interface.simulate import simulate, start_simulation
from ledger.witness import newly_identified, recorded_facts, witnessed
from projections import pipeline, readmodel
from projections.consistency import compare_with_log
from projections.decoding import light_decoder
from projections.readmodel import ReadModel, _Batch, _Fold, card_row, viewers_of
from projections.summaries import summary
from projections.views import action_view


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A simulated campaign of 600 actions (draws, refills, trades, undos, reveals...)."""
    path = tmp_path_factory.mktemp("rebuild") / "sim.db"
    ledger = Ledger.open(path, create=True)
    cid = start_simulation(ledger, heroes=3, seed=5)
    simulate(ledger, cid, 600, seed=5)
    yield ledger, cid, path
    ledger.close()


def _folded_rows(ledger: Ledger, notes: list) -> _Batch:
    """The rows as the fold gives them: every action decoded with pydantic, its
    witnesses set aside (as an action recorded before they were kept), then folded."""
    fold, writer = _Fold(ledger), _Batch()
    for note in notes:
        if light_decoder(note.topic) is None and "CampaignStarted" not in note.topic \
                and "HeroAdded" not in note.topic:
            continue
        event = ledger.mapper.to_domain_event(note).model_copy(update={"seen": None, "unnamed": None})
        fold.apply(event, writer)
    fold._settle(writer)
    return writer


def test_light_actions_give_the_rows_the_fold_gives(played):
    ledger, cid, _ = played
    notes = ledger.recorder.select_notifications(start=1, limit=10_000)
    light, folded = _Fold(ledger).rows_of(notes), _folded_rows(ledger, notes)
    assert light.history == folded.history
    assert sorted(map(repr, light.card_actions)) == sorted(map(repr, folded.card_actions))
    assert light.undone == folded.undone
    (_, mine), = light.campaigns()
    (_, theirs), = folded.campaigns()
    assert mine.campaign.version == theirs.campaign.version == ledger.campaign(cid).version
    # The light batch writes every card its actions may have changed (all of them here).
    assert mine.cards >= theirs.cards
    assert [card_row(mine.campaign, c) for c in sorted(theirs.cards)] == \
        [card_row(theirs.campaign, c) for c in sorted(theirs.cards)]


def test_each_action_records_who_witnessed_it_as_the_table_says(played):
    ledger, cid, _ = played
    campaign = None
    for event in ledger.actions(cid):
        campaign = ledger.project(campaign, [event])
        if event.seq == 1:
            continue
        assert (event.seen, event.unnamed) == witnessed(event, campaign, viewers_of(campaign)), event.seq


def test_the_one_step_back_records_what_witnessed_and_newly_identified_give(played):
    """``recorded_facts`` (the write path's one walk back through an action, in place)
    gives exactly ``witnessed`` and ``newly_identified`` (each walking on its own), and
    what the action recorded; the campaign it walks is left as it was."""
    ledger, cid, _ = played
    campaign = None
    checked = 0
    for event in ledger.actions(cid):
        campaign = ledger.project(campaign, [event])
        if event.seq == 1:
            continue
        viewers = viewers_of(campaign)
        apart = (*witnessed(event, campaign, viewers),
                 newly_identified(event.changes, event.shown_to_all(), campaign, viewers))
        mine = campaign.copy()
        assert recorded_facts(event, mine, viewers) == apart, event.seq
        assert all(getattr(mine.table, part) == getattr(campaign.table, part)
                   for part in mine.table.__slots__), event.seq
        assert apart == (event.seen, event.unnamed, event.identified), event.seq
        checked += bool(event.identified)
    assert checked, "no action identified a hidden card: the comparison saw only empty facts"


def test_light_summaries_read_as_the_events_do(played):
    ledger, _, _ = played
    for note in ledger.recorder.select_notifications(start=1, limit=10_000):
        decode = light_decoder(note.topic)
        if decode is not None:
            light = decode(note.state)
            light.originator_id, light.originator_version = note.originator_id, note.originator_version
            event = ledger.mapper.to_domain_event(note)
            assert (summary(light), light.cards_touched(), light.seq) == \
                (summary(event), event.cards_touched(), event.seq)


def test_a_summary_names_the_attachments_that_left_with_their_host_light_or_not(tmp_path, sample_catalog):
    """Found by a QA pass: "send companion-wolf → inventory:ana" said nothing of the rope
    attached to it, which went to the discard pile in the same action (RULES.md §5). From
    ruleset 16 the summary names it; the stored summaries of older actions stay as written."""
    from ledger import commands as c

    ledger = Ledger.open(tmp_path / "follow.db", create=True)
    try:
        cid = ledger.start(sample_catalog, name="Follow").campaign.id
        ledger.execute(cid, c.AddHero(hero="ana", name="Ana", knowledge=1))
        ledger.execute(cid, c.Add(cards=("companion-wolf", "item-rope"), to="table:ana"))
        ledger.execute(cid, c.Attach(card="item-rope", host="companion-wolf"))
        sent = ledger.execute(cid, c.Send(cards=("companion-wolf",), to="inventory:ana")).event
        note = ledger.recorder.select_notifications(start=sent.seq + 1, limit=1)[0]
        light = light_decoder(note.topic)(note.state)
        said = "send companion-wolf → inventory:ana; item-rope, attached to companion-wolf, went to discard"
        assert summary(light) == summary(sent) == said
        assert summary(sent, hidden={"item-rope"}).endswith("a hidden card, attached to companion-wolf, went to discard")
        assert summary(sent.model_copy(update={"ruleset": 15})) == "send companion-wolf → inventory:ana"
        # an undo of an attach in a hand moves the card off a host that stays: no host left its zone, and
        # naming it would tell everyone what lies in that hand (found by the model-based test)
        ledger.execute(cid, c.Add(cards=("companion-falcon", "item-torch"), to="inventory:ana"))
        ledger.execute(cid, c.Attach(card="item-torch", host="companion-falcon"))
        undone = ledger.execute(cid, c.Undo()).event
        assert "attached to" not in summary(undone) and "companion-falcon" not in summary(undone)
    finally:
        ledger.close()


def test_rebuilt_tables_match_the_log_and_keep_their_indexes(played):
    ledger, _, path = played
    model = ReadModel(ledger, path)
    try:
        assert model.rebuild() > 600
        assert compare_with_log(model) is None
        indexes = {name for (name,) in model.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"idx_history_campaign_actor_seq", "idx_cards_campaign_zone"} <= indexes
    finally:
        model.close()


def test_an_index_a_cut_short_rebuild_dropped_is_built_on_the_next_open(played):
    ledger, _, path = played
    model = ReadModel(ledger, path)
    with model._writing() as db:
        db.execute("DROP INDEX idx_history_campaign_actor_seq")
        db.execute("CREATE INDEX idx_history_campaign_actor ON history (campaign, actor)")  # an older ledger's
    model.close()
    model = ReadModel(ledger, path)
    try:
        indexes = {name for (name,) in model.db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "idx_history_campaign_actor_seq" in indexes
        assert "idx_history_campaign_actor" not in indexes
    finally:
        model.close()


def test_who_witnessed_what_is_the_referees_alone(played):
    ledger, cid, _ = played
    campaign = ledger.campaign(cid)
    event = ledger.event(cid, campaign.version)
    assert event.seen is not None
    for viewer in viewers_of(campaign):
        view = action_view(event, campaign, viewer)
        assert "seen" not in view and "unnamed" not in view
    assert "seen" in action_view(event, campaign, "referee")


TABLES = {"history": "campaign, seq", "card_actions": "campaign, card, seq", "cards": "campaign, id",
          "zones": "campaign, id", "projection_position": "name"}


def _stored(model: ReadModel) -> dict[str, list[tuple]]:
    return {table: model.read(f"SELECT * FROM [{table}] ORDER BY {order}") for table, order in TABLES.items()}


def _rebuilt(played, monkeypatch, run: str | None = None, batch: int = 150
             ) -> tuple[dict[str, list[tuple]], list[bool], list[int]]:
    """The tables after a rebuild of the played campaign in batches of ``batch``
    notifications, with a helper however short the log (``run``: the helper's command
    instead of its own); for each batch offered by the helper whether it was taken, and
    the batches (numbers from 0) the rebuilding process kept for itself."""
    ledger, _, path = played
    monkeypatch.setattr(pipeline, "LONG", 0)
    monkeypatch.setattr(readmodel, "REBUILD_BATCH", batch)
    if run is not None:
        monkeypatch.setattr(pipeline, "_RUN", run)
    taken: list[bool] = []
    kept: list[int] = []
    rows_after, leaves = pipeline.Helper.rows_after, pipeline.Helper.leaves

    def recorded(self, start):
        rows = rows_after(self, start)
        taken.append(rows is not None)
        return rows

    def its_own(self, start):
        mine = leaves(self, start)
        if mine:
            kept.append(start // batch)
        return mine

    monkeypatch.setattr(pipeline.Helper, "rows_after", recorded)
    monkeypatch.setattr(pipeline.Helper, "leaves", its_own)
    model = ReadModel(ledger, path)
    try:
        model.rebuild()
        assert compare_with_log(model) is None
        return _stored(model), taken, kept
    finally:
        model.close()


def test_a_rebuild_with_a_helper_writes_the_rows_a_rebuild_alone_writes(played, monkeypatch):
    """The helper makes its batches and the rebuilding process the others (the first
    while the helper starts, then every SHARE-th), and the rows are a lone rebuild's."""
    ledger, _, path = played
    model = ReadModel(ledger, path)
    try:
        model.rebuild()  # a short log: no helper
        alone = _stored(model)
        batches = -(-ledger.recorder.max_notification_id() // 50)
    finally:
        model.close()
    helped, taken, kept = _rebuilt(played, monkeypatch, batch=50)
    assert helped == alone
    assert batches >= 12 and all(taken)
    assert kept == [k for k in range(batches) if k < pipeline.FIRST or
                    (k - pipeline.FIRST) % pipeline.SHARE == pipeline.SHARE - 1]
    assert len(taken) + len(kept) == batches
    assert not any(t.name == "rebuild helper's batches" for t in threading.enumerate())  # its reader is gone too


def test_a_rebuild_cut_short_leaves_no_helper_behind_and_the_next_catch_up_finishes_it(played, monkeypatch):
    """Ctrl-C in the middle of a rebuild with a helper: the helper process is killed and
    its reader thread gone; the next catch-up applies the rest, and the tables follow the log."""
    ledger, _, path = played
    monkeypatch.setattr(pipeline, "LONG", 0)
    monkeypatch.setattr(readmodel, "REBUILD_BATCH", 50)
    helpers: list = []
    start = pipeline.Helper.__init__

    def kept(self, *args):
        start(self, *args)
        helpers.append((self._process, self._reader))

    writes = {"n": 0}
    write = readmodel._Rows.write

    def interrupted(self, db):
        writes["n"] += 1
        if writes["n"] == 4:  # a batch of the helper's, after the rebuilding process's first two
            raise KeyboardInterrupt
        write(self, db)

    monkeypatch.setattr(pipeline.Helper, "__init__", kept)
    monkeypatch.setattr(readmodel._Rows, "write", interrupted)
    model = ReadModel(ledger, path)
    try:
        with pytest.raises(KeyboardInterrupt):
            model.rebuild()
        [(process, reader)] = helpers
        assert process.poll() is not None and not reader.is_alive()
        monkeypatch.setattr(readmodel._Rows, "write", write)
        model.catch_up()
        assert compare_with_log(model) is None
    finally:
        model.close()


def _card_actions_sql(model: ReadModel) -> str:
    return model.read("SELECT sql FROM sqlite_master WHERE name = 'card_actions'")[0][0]


def test_card_actions_is_stored_once_and_a_rebuild_moves_an_older_file_to_it(played, tmp_path):
    """card_actions is all key: a new file keeps it WITHOUT ROWID (its rows once, not in
    the table and again in its key's index). A file an older ledger made keeps working as
    it is, and a rebuild makes the table again the new way, with the same rows."""
    import sqlite3
    from contextlib import closing

    import sqlite_utils

    ledger, _, path = played
    older = tmp_path / "older.db"
    with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(older)) as copy:
        source.backup(copy)
    with closing(sqlite3.connect(older)) as db, db:  # the read models as an older ledger made them, rows to come
        for table in (*readmodel.TABLES, readmodel.POSITION):
            db.execute(f"DROP TABLE IF EXISTS [{table}]")
        sqlite_utils.Database(db)["card_actions"].create(*readmodel.SCHEMAS["card_actions"])
    again = Ledger.open(older)
    model = ReadModel(again, older)
    try:
        model.catch_up()
        assert "WITHOUT ROWID" not in _card_actions_sql(model) and model.tables.outdated("card_actions")
        assert compare_with_log(model) is None
        before = _stored(model)
        model.rebuild()
        assert "WITHOUT ROWID" in _card_actions_sql(model) and not model.tables.outdated("card_actions")
        assert _stored(model) == before and compare_with_log(model) is None
        with closing(sqlite3.connect(older)) as db, db:
            for table in (*readmodel.TABLES, readmodel.POSITION):
                db.execute(f"DROP TABLE [{table}]")
    finally:
        model.close()
    fresh = ReadModel(again, older)  # a file with no read models yet: made the new way
    try:
        assert "WITHOUT ROWID" in _card_actions_sql(fresh)
    finally:
        fresh.close()
        again.close()


def test_a_helper_that_fails_leaves_the_rows_to_the_rebuild(played, monkeypatch):
    """A helper that cannot start, or stops after its first batch: the rebuild makes
    the rows itself from where the helper left off, and they are the same."""
    ledger, _, path = played
    model = ReadModel(ledger, path)
    try:
        model.rebuild()
        alone = _stored(model)
    finally:
        model.close()
    failing, taken, _kept = _rebuilt(played, monkeypatch, run="raise SystemExit(3)")
    assert taken and not any(taken)
    assert failing == alone
    once = ("import pickle, sys; sys.path[:0] = pickle.load(sys.stdin.buffer); "
            "import projections.pipeline as p; dump = p.pickle.dump; "
            "p.pickle.dump = lambda *a, **k: (dump(*a, **k), setattr(p.pickle, 'dump', None)); p.help_rebuild()")
    stopped, taken, _kept = _rebuilt(played, monkeypatch, run=once, batch=50)
    assert len(taken) > 3 and taken[0] and not any(taken[1:])
    assert stopped == alone


def test_card_actions_of_an_older_ledger_gain_their_witnesses_column_and_read_as_before(tmp_path):
    """A file whose card_actions an older ledger kept (no ``witnesses``): opened, the
    column is added and its rows filled from their history rows' ``seen``, as a rebuild
    fills them (left NULL, they were in every seat's way: tests/test_card_history_channel.py),
    every seat reads the same card histories, verify holds, and the rows of new actions say
    their witnesses; a rebuild changes none of them."""
    import sqlite3
    from contextlib import closing

    from .conftest import json_of, run_ledger, succeeded

    db = tmp_path / "demo.db"
    succeeded(run_ledger("demo", db=db))

    def histories() -> dict:
        return {(who, card): json_of(succeeded(run_ledger("--as", who, "--json", "card", card, db=db)))["history"]
                for who in ("referee", "ana", "bo", "public") for card in ("item-shield", "skill-first-aid", "item-sword")}

    expected = histories()
    with closing(sqlite3.connect(db)) as con, con:
        rows = con.execute("SELECT campaign, card, seq FROM card_actions").fetchall()
        witnessed = con.execute("SELECT * FROM card_actions ORDER BY campaign, card, seq").fetchall()
        con.execute("DROP TABLE card_actions")
        con.execute("CREATE TABLE card_actions (campaign TEXT, card TEXT, seq INTEGER, "
                    "PRIMARY KEY (campaign, card, seq)) WITHOUT ROWID")
        con.executemany("INSERT INTO card_actions VALUES (?, ?, ?)", rows)
    assert histories() == expected
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT campaign, card, seq, witnesses FROM card_actions "
                           "ORDER BY campaign, card, seq").fetchall() == witnessed
    succeeded(run_ledger("verify", db=db))
    succeeded(run_ledger("--actor", "ana", "exhaust", "item-sword", db=db))
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT witnesses FROM card_actions WHERE seq = 37").fetchall() == [(",public,ana,bo,",)]
    succeeded(run_ledger("rebuild", db=db))
    with closing(sqlite3.connect(db)) as con:
        assert con.execute("SELECT count(*) FROM card_actions WHERE witnesses IS NULL").fetchone()[0] == 0
    succeeded(run_ledger("verify", db=db))


def test_a_rebuild_raced_by_another_process_catching_up_goes_on_from_where_that_one_got(played, tmp_path,
                                                                                         monkeypatch):
    """`ledger rebuild` while players record: their commands catch the emptied tables up
    too, so the rebuild's next batch finds the position moved. It goes on from there (it
    used to stop with an unexpected failure, ``_Raced``), and the tables follow the log."""
    from .conftest import copy_db

    _ledger, _cid, source = played
    path = copy_db(source, tmp_path)
    monkeypatch.setattr(readmodel, "REBUILD_BATCH", 50)
    ledger, other = Ledger.open(path), Ledger.open(path)
    model, racing = ReadModel(ledger, path), ReadModel(other, path)
    raced = []

    def progress(done: int, _total: int) -> None:
        if not raced:  # after the rebuild's first batch, another process catches up past it
            raced.append(racing.safe_catch_up())

    try:
        rebuilt = model.rebuild(progress=progress)
        assert raced and raced[0] > 0, "the other process applied nothing: no race"
        assert model.position() == ledger.recorder.max_notification_id()
        # ``ledger rebuild`` says how many stored events it rebuilt from: all, not only its own batches
        assert rebuilt == ledger.recorder.max_notification_id(), rebuilt
        assert compare_with_log(model) is None
    finally:
        model.close()
        racing.close()
        ledger.close()
        other.close()
