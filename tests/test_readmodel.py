"""The read-model tables (projections/readmodel.py) on real SQLite files, and (all but the
SQLite file's own checks and the hypothesis sessions) on PostgreSQL schemas.

- the tables exist with their primary keys and any ``sqlite3`` client can browse them;
- ``cards`` and ``zones`` rows are what the shared fold says (``card_row``/``zone_row``
  of the live campaign), over long random sessions;
- ``rebuild`` writes exactly the rows that catching up action by action wrote;
- exactly once: actions recorded with no catch-up (a crash between saving and updating
  the tables) are applied by the next catch-up, and a second catch-up applies nothing;
- a failure in the middle of a batch rolls back rows and position together;
- two ReadModel objects on one file never duplicate or skip an action;
- one file holding two campaigns keeps their rows apart.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.errors import LedgerError
from ledger.interface.demo import script as demo_script
from projections import readmodel
from projections.readmodel import ReadModel, card_row, zone_row

from .conftest import _Postgres, cli, is_postgres, read_tables, run_ledger, schema_of
from .test_properties import Session, draw_command, stock_decks

pytestmark = pytest.mark.both_stores

CATALOG = load_catalog(sample_catalog_path())
CATALOG_IDS = CATALOG.ids()
SAMPLE = str(sample_catalog_path())
TABLES = ("cards", "zones", "history", "card_actions")
ORDER = {
    "cards": "campaign, id",
    "zones": "campaign, id",
    "history": "campaign, seq",
    "card_actions": "campaign, card, seq",
}


# -- helpers ---------------------------------------------------------------------
def dump(path: Path | str) -> dict[str, list[tuple]]:
    """Every row of the four read-model tables, read from outside the ledger (plain sqlite3)."""
    return {t: read_tables(path, f"SELECT * FROM [{t}] ORDER BY {ORDER[t]}") for t in TABLES}


def history_seqs(path: Path | str, slug: str) -> list[int]:
    return [r[0] for r in read_tables(path, "SELECT seq FROM history WHERE campaign = ? ORDER BY seq", [slug])]


def position_of(path: Path | str) -> int:
    return read_tables(path, "SELECT position FROM projection_position")[0][0]


def assert_rows_are_the_fold(model: ReadModel, campaign) -> None:
    """Every cards row equals card_row, every zones row equals zone_row, nothing more."""
    slug = campaign.slug
    cards = {r["id"]: r for r in model.rows("SELECT * FROM cards WHERE campaign = ?", [slug])}
    assert set(cards) == set(CATALOG_IDS), "the cards table misses cards or has extra ones"
    for card in CATALOG_IDS:
        assert cards[card] == card_row(campaign, card), f"cards row of {card} disagrees with the fold"
    zones = {r["id"]: r for r in model.rows("SELECT * FROM zones WHERE campaign = ?", [slug])}
    assert set(zones) == set(campaign.zones()), "the zones table misses zones or has extra ones"
    for zone in campaign.zones():
        assert zones[zone] == zone_row(campaign, zone), f"zones row of {zone} disagrees with the fold"


def scripted_session(app: Ledger, cid, after_each=None) -> None:
    """The demo's actions (decks, depot refill, redirects, search, attach, trades, battle,
    access effect, activation), refusals skipped."""
    for _, command in demo_script():
        try:
            app.execute(cid, command)
        except LedgerError:
            continue
        if after_each is not None:
            after_each()


# -- the tables ---------------------------------------------------------------------
@pytest.mark.sqlite_only
def test_read_model_tables_have_their_primary_keys_and_plain_sqlite3_can_browse_them(game, db_path):
    game.add("item-sword", "item-bow", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item"))
    model = ReadModel(game.app, db_path)
    model.catch_up()
    model.close()

    con = sqlite3.connect(str(db_path))
    try:
        def pk(table: str) -> list[str]:
            info = con.execute(f"PRAGMA table_info([{table}])").fetchall()
            return [row[1] for row in sorted((r for r in info if r[5]), key=lambda r: r[5])]

        assert pk("cards") == ["campaign", "id"]
        assert pk("zones") == ["campaign", "id"]
        assert pk("history") == ["campaign", "seq"]
        assert pk("card_actions")[:2] == ["campaign", "card"] and "seq" in pk("card_actions")
        assert pk("projection_position") == ["name"]

        assert con.execute("SELECT count(*) FROM cards").fetchone()[0] == len(CATALOG_IDS)
        assert con.execute("SELECT zone, position, face FROM cards WHERE id = 'item-sword'").fetchone() == (
            "inventory:ana", 0, "down")
        assert con.execute("SELECT zone FROM cards WHERE id = 'item-bow'").fetchone() == ("deck:item",)
        assert con.execute("SELECT count FROM zones WHERE id = 'deck:item'").fetchone() == (1,)
        assert con.execute("SELECT count FROM zones WHERE id = 'inventory:ana'").fetchone() == (1,)
        rows = con.execute("SELECT seq, action, actor FROM history ORDER BY seq").fetchall()
        assert rows == [(1, "init", "master"), (2, "hero add", "master"), (3, "hero add", "master"),
                        (4, "add", "master"), (5, "draw", "ana")]
        assert con.execute("SELECT seq FROM card_actions WHERE card = 'item-sword' ORDER BY seq").fetchall() == [
            (4,), (5,)]
        # a primary key really is one: the same action cannot be written twice
        with pytest.raises(sqlite3.IntegrityError):
            con.execute("INSERT INTO history (campaign, seq, action) SELECT campaign, seq, action FROM history "
                        "WHERE seq = 5")
    finally:
        con.close()


def test_every_action_recorded_through_the_command_leaves_the_tables_caught_up(db_path):
    db = db_path
    for args in (
        ["init", "--catalog", SAMPLE, "--name", "Tabelas"],
        ["hero", "add", "ana", "--knowledge", "1"],
        ["add", "item-sword", "item-bow", "--to", "deck:item"],
        ["--actor", "ana", "draw", "deck:item"],
        ["--actor", "ana", "send", "item-sword", "--to", "table:ana"],
    ):
        result = run_ledger(*args, db=db)
        assert result.returncode == 0, result.stderr
        # no read command in between: the action itself caught the tables up
        ledger = Ledger.open(db)
        try:
            max_id = ledger.recorder.max_notification_id()
        finally:
            ledger.close()
        assert position_of(db) == max_id
    assert history_seqs(db, "tabelas") == [1, 2, 3, 4, 5]
    assert read_tables(db, "SELECT zone, face FROM cards WHERE id = 'item-sword'") == [("table:ana", "up")]


# -- the same fold ----------------------------------------------------------------------
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_card_and_zone_rows_equal_the_shared_fold_of_the_live_campaign_after_a_long_random_session(data):
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(Path(tmp) / "campaign.db")
        model = ReadModel(session.app, session.path)
        try:
            stock_decks(data, session)
            for _ in range(data.draw(st.integers(40, 90), label="steps")):
                session.step(draw_command(data, session.campaign))
                if data.draw(st.integers(0, 9), label="catch up now") == 0:
                    model.catch_up(batch=data.draw(st.integers(1, 6), label="batch"))
            model.catch_up(batch=data.draw(st.integers(1, 50), label="last batch"))
            campaign = session.app.campaign(session.cid)
            assert_rows_are_the_fold(model, campaign)
            assert history_seqs(session.path, campaign.slug) == list(range(1, campaign.seq + 1))
        finally:
            model.close()
            session.close()


def test_an_attached_cards_row_follows_its_host_turning_face_down_and_up(game, db_path):
    """An attached card's states follow its host's face (RULES.md §7: attached to a hidden
    card it is inactive), though the action turning the host never names it."""
    model = ReadModel(game.app, db_path)
    try:
        game.add("companion-wolf", to="table:ana")
        game.add("item-torch", to="inventory:ana")
        game.do(c.Attach(actor="ana", card="item-torch", host="companion-wolf"))
        states = "SELECT states FROM cards WHERE campaign = 'test' AND id = 'item-torch'"
        model.catch_up()
        assert model.read(states) == [("attached active",)]
        game.do(c.Hide(actor="ana", cards=("companion-wolf",)))
        model.catch_up()
        assert model.read(states) == [("attached inactive",)]
        assert_rows_are_the_fold(model, game.campaign)
        game.do(c.Reveal(actor="ana", cards=("companion-wolf",)))
        model.catch_up()
        assert_rows_are_the_fold(model, game.campaign)
    finally:
        model.close()


# -- rebuild ------------------------------------------------------------------------------
def test_rebuild_writes_the_same_rows_as_catching_up_after_every_action_of_the_demo(db_path):
    path = db_path
    app = Ledger.open(path, create=True)
    model = ReadModel(app, path)
    try:
        cid = app.start(CATALOG, name="Demo").campaign.id
        model.catch_up()
        scripted_session(app, cid, after_each=model.catch_up)
        incremental = dump(path)
        position = model.position()
        assert len(incremental["history"]) == app.last_seq(cid) > 30

        assert model.rebuild() == app.recorder.max_notification_id()
        assert dump(path) == incremental, "rebuild disagrees with the tables caught up action by action"
        assert model.position() == position
        # a second ReadModel (another process) rebuilding gets the very same rows too
        other_ledger = Ledger.open(path)
        other = ReadModel(other_ledger, path)
        other.rebuild()
        other.close()
        other_ledger.close()
        assert dump(path) == incremental
    finally:
        model.close()
        app.close()


@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_rebuild_writes_the_same_rows_as_catching_up_after_every_action_of_a_random_session(data):
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(Path(tmp) / "campaign.db")
        model = ReadModel(session.app, session.path)
        try:
            model.catch_up()
            stock_decks(data, session)
            model.catch_up()
            for _ in range(data.draw(st.integers(20, 50), label="steps")):
                session.step(draw_command(data, session.campaign))
                model.catch_up()
            incremental = dump(session.path)
            model.rebuild()
            assert dump(session.path) == incremental
        finally:
            model.close()
            session.close()


# -- exactly once -------------------------------------------------------------------------
def test_actions_saved_without_catch_up_are_applied_by_the_next_catch_up_exactly_once(game, db_path):
    model = ReadModel(game.app, db_path)
    model.catch_up()
    assert history_seqs(db_path, "test") == [1, 2, 3]
    # as after a crash between saving the action and updating the tables: nothing caught up
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item", count=2))
    game.do(c.Send(actor="ana", cards=("item-sword",), to="table:ana"))
    game.do(c.Exile(cards=("item-rope",)))
    assert history_seqs(db_path, "test") == [1, 2, 3]

    assert model.catch_up() == 4
    assert history_seqs(db_path, "test") == [1, 2, 3, 4, 5, 6, 7]
    assert model.position() == game.app.recorder.max_notification_id()
    assert_rows_are_the_fold(model, game.campaign)
    rows = dump(db_path)
    position = model.position()

    assert model.catch_up() == 0, "a second catch-up applied something again"
    assert dump(db_path) == rows and model.position() == position

    # a new ReadModel (the next process) starts from the stored position, not from 0
    other = ReadModel(Ledger.open(db_path), db_path)
    try:
        assert other.catch_up() == 0
        assert dump(db_path) == rows
        game.do(c.Exile(cards=("item-bow",)))
        assert other.catch_up() >= 1
        assert model.catch_up() == 0
    finally:
        other.close()
    assert history_seqs(db_path, "test") == [1, 2, 3, 4, 5, 6, 7, 8]
    assert read_tables(db_path, "SELECT count(*) FROM card_actions WHERE card = 'item-bow'") == [(3,)]
    model.close()


def test_a_read_command_catches_up_actions_recorded_through_python(game, db_path):
    game.add("item-sword", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item"))
    code, out, err = cli(db_path, "--json", "history")
    assert code == 0, err
    assert [row["seq"] for row in json.loads(out)] == [1, 2, 3, 4, 5]
    assert history_seqs(db_path, "test") == [1, 2, 3, 4, 5]
    code, out, err = cli(db_path, "--json", "card", "item-sword")
    assert code == 0, err
    assert json.loads(out)["history"] == [4, 5]


# -- a failure in the middle of a batch ------------------------------------------------------
def fail_writes_to(path: Path | str, table: str, when: str = "1") -> None:
    """A real failure of the database: a trigger that aborts any row written to ``table``
    (SQLite's ``RAISE(ABORT)``; PostgreSQL's ``RAISE EXCEPTION`` in a trigger function)."""
    if is_postgres(path):
        schema = schema_of(str(path))
        _Postgres.execute(f'CREATE FUNCTION "{schema}".fail_{table}() RETURNS trigger LANGUAGE plpgsql AS '
                          f"$$ BEGIN RAISE EXCEPTION 'disk unplugged while writing {table}'; END $$")
        _Postgres.execute(f'CREATE TRIGGER fail_{table} BEFORE INSERT OR UPDATE ON "{schema}"."{table}" FOR EACH ROW '
                          f'WHEN ({"true" if when == "1" else when}) EXECUTE FUNCTION "{schema}".fail_{table}()')
        return
    con = sqlite3.connect(str(path))
    try:
        for op in ("INSERT", "UPDATE"):
            con.execute(f"CREATE TRIGGER fail_{table}_{op.lower()} BEFORE {op} ON [{table}] "
                        f"WHEN {when} BEGIN SELECT RAISE(ABORT, 'disk unplugged while writing {table}'); END")
        con.commit()
    finally:
        con.close()


def heal(path: Path | str) -> None:
    if is_postgres(path):
        schema = schema_of(str(path))
        for (name,) in _Postgres.execute("SELECT proname FROM pg_proc JOIN pg_namespace n ON n.oid = pronamespace "
                                         "WHERE nspname = %s AND proname LIKE 'fail\\_%%'", [schema]):
            _Postgres.execute(f'DROP FUNCTION "{schema}"."{name}" CASCADE')  # and its triggers
        return
    con = sqlite3.connect(str(path))
    try:
        for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'fail_%'")\
                .fetchall():
            con.execute(f"DROP TRIGGER [{name}]")
        con.commit()
    finally:
        con.close()


@pytest.mark.parametrize("failing", ["zone_row", "cards", "zones", "history", "card_actions"])
def test_a_failure_while_writing_a_batch_rolls_back_its_rows_and_the_position_together(
        game, db_path, monkeypatch, failing):
    model = ReadModel(game.app, db_path)
    model.catch_up()
    game.add("item-sword", "item-bow", "item-rope", to="deck:item")
    game.do(c.Draw(actor="ana", stack="deck:item", count=2))
    game.do(c.Send(actor="ana", cards=("item-sword",), to="table:ana"))
    before_rows, before_position = dump(db_path), model.position()

    if failing == "zone_row":  # the batch write computes its zone rows, and that fails
        def broken(*args, **kwargs):
            raise RuntimeError("disk unplugged while computing zone rows")
        monkeypatch.setattr(readmodel, "zone_row", broken)
    else:  # SQLite refuses a row of that table in the middle of the transaction
        fail_writes_to(db_path, failing)
    with pytest.raises(Exception, match="disk unplugged"):
        model.catch_up()
    assert dump(db_path) == before_rows, f"rows written before {failing} failed were kept"
    assert position_of(db_path) == before_position, "the position moved although its rows were rolled back"
    assert model.position() == before_position

    monkeypatch.undo()
    heal(db_path)
    assert model.catch_up() == 3
    assert history_seqs(db_path, "test") == [1, 2, 3, 4, 5, 6]
    assert_rows_are_the_fold(model, game.campaign)
    model.close()


def test_a_batch_failing_after_earlier_batches_committed_keeps_rows_and_position_in_step(game, db_path):
    model = ReadModel(game.app, db_path)
    model.catch_up()
    game.add("item-sword", "item-bow", "item-rope", "item-axe", to="deck:item")
    for _ in range(4):
        game.do(c.Draw(actor="ana", stack="deck:item"))
    fail_writes_to(db_path, "history", when="NEW.seq = 7")
    with pytest.raises(Exception, match="disk unplugged"):
        model.catch_up(batch=2)
    position = position_of(db_path)
    notes = game.app.recorder.select_notifications(start=1, limit=10_000)
    expected = sorted(n.originator_version for n in notes if n.id <= position and n.originator_id == game.cid)
    assert history_seqs(db_path, "test") == expected, "rows committed without their position, or the reverse"
    assert 3 < len(expected) < 7, "the batches before the failing one should have been kept"
    heal(db_path)
    model.catch_up()
    assert history_seqs(db_path, "test") == list(range(1, 9))
    assert_rows_are_the_fold(model, game.campaign)
    model.close()


# -- two readers of one file -------------------------------------------------------------------
def test_two_read_models_catching_up_one_after_the_other_never_duplicate_or_skip(game, db_path):
    first = ReadModel(Ledger.open(db_path), db_path)
    second = ReadModel(Ledger.open(db_path), db_path)
    try:
        game.add("item-sword", "item-bow", "item-rope", "item-axe", "item-torch", to="deck:item")
        first.catch_up()
        game.do(c.Draw(actor="ana", stack="deck:item", count=2))
        second.catch_up()
        game.do(c.Draw(actor="bo", stack="deck:item"))
        game.do(c.Send(actor="ana", cards=("item-sword",), to="table:ana"))
        first.safe_catch_up()  # its in-memory campaign is behind what second applied
        game.do(c.Discard(actor="bo", cards=("item-rope",)))
        second.safe_catch_up()
        first.safe_catch_up()
        assert history_seqs(db_path, "test") == list(range(1, 9))
        assert first.position() == second.position() == game.app.recorder.max_notification_id()
        assert_rows_are_the_fold(first, game.campaign)
        rows = dump(db_path)
        first.rebuild()
        assert dump(db_path) == rows
    finally:
        first.close()
        second.close()


def test_two_read_models_catching_up_concurrently_never_duplicate_or_skip(game, db_path):
    game.add(*[i for i in CATALOG_IDS if i.startswith("item-")], to="deck:item")
    game.add(*[i for i in CATALOG_IDS if i.startswith("skill-")], to="deck:skill")
    ReadModel(game.app, db_path).close()  # the tables exist, as after ledger init
    stop = threading.Event()
    errors: list[BaseException] = []
    applied = {"a": 0, "b": 0}

    def writer() -> None:
        ledger = Ledger.open(db_path)
        try:
            for n in range(24):
                hero = ("ana", "bo")[n % 2]
                ledger.execute(game.cid, c.Draw(actor=hero, stack=("deck:item", "deck:skill")[n // 12]))
                time.sleep(0.002)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            ledger.close()
            stop.set()

    def reader(name: str) -> None:
        ledger = Ledger.open(db_path)
        model = ReadModel(ledger, db_path)
        try:
            while True:
                done = stop.is_set()
                # what this call committed: the batches it reported before returning, or
                # before another model's batch made it stop (_Raced)
                committed = [0]
                try:
                    model.catch_up(batch=2, progress=lambda n, _end: committed.__setitem__(0, n))
                except readmodel._Raced:
                    model._campaigns.clear()
                applied[name] += committed[0]
                if done and model.position() == ledger.recorder.max_notification_id():
                    break
        except BaseException as exc:
            errors.append(exc)
        finally:
            model.close()
            ledger.close()

    threads = [threading.Thread(target=writer), threading.Thread(target=reader, args=("a",)),
               threading.Thread(target=reader, args=("b",))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, f"a concurrent catch-up failed: {errors[0]!r}"
    assert history_seqs(db_path, "test") == list(range(1, 5 + 24 + 1)), "an action was skipped or duplicated"
    dupes = read_tables(db_path, "SELECT card, seq, count(*) FROM card_actions GROUP BY campaign, card, seq "
                        "HAVING count(*) > 1")
    assert not dupes
    assert applied["a"] + applied["b"] == game.app.recorder.max_notification_id(), (
        f"the two read models applied {applied} notifications between them")
    model = ReadModel(game.app, db_path)
    try:
        assert model.position() == game.app.recorder.max_notification_id()
        assert_rows_are_the_fold(model, game.campaign)
        rows = dump(db_path)
        model.rebuild()
        assert dump(db_path) == rows
    finally:
        model.close()


# -- two campaigns in one file ------------------------------------------------------------------
def test_one_database_holding_two_campaigns_keeps_their_rows_apart(app, db_path):
    north = app.start(CATALOG, name="North", slug="north").campaign.id
    south = app.start(CATALOG, name="South", slug="south").campaign.id
    app.execute(north, c.AddHero(hero="ana", knowledge=1))
    app.execute(south, c.AddHero(hero="bo"))
    app.execute(north, c.Add(cards=("item-sword", "item-bow"), to="deck:item"))
    app.execute(south, c.Add(cards=("item-sword",), to="depot"))
    app.execute(north, c.Draw(actor="ana", stack="deck:item"))
    app.execute(south, c.Draw(actor="bo", stack="deck:item"))  # refilled from south's depot
    app.execute(north, c.Exile(cards=("item-bow",)))
    model = ReadModel(app, db_path)
    try:
        model.catch_up()
        assert history_seqs(db_path, "north") == [1, 2, 3, 4, 5]
        assert history_seqs(db_path, "south") == [1, 2, 3, 4]
        north_campaign, south_campaign = app.campaign(north), app.campaign(south)
        assert_rows_are_the_fold(model, north_campaign)
        assert_rows_are_the_fold(model, south_campaign)
        zone = "SELECT zone FROM cards WHERE campaign = ? AND id = 'item-sword'"
        assert read_tables(db_path, zone, ["north"]) == [("inventory:ana",)]
        assert read_tables(db_path, zone, ["south"]) == [("inventory:bo",)]
        heroes_zones = "SELECT id FROM zones WHERE campaign = ? AND id LIKE 'inventory:%'"
        assert read_tables(db_path, heroes_zones, ["north"]) == [("inventory:ana",)]
        assert read_tables(db_path, heroes_zones, ["south"]) == [("inventory:bo",)]
        actions = "SELECT seq FROM card_actions WHERE campaign = ? AND card = 'item-sword' ORDER BY seq"
        assert read_tables(db_path, actions, ["north"]) == [(3,), (4,)]
        assert read_tables(db_path, actions, ["south"]) == [(3,), (4,)]
        assert read_tables(db_path, "SELECT count(*) FROM cards") == [(2 * len(CATALOG_IDS),)]
    finally:
        model.close()
    code, out, err = cli(db_path, "--campaign", "south", "--json", "history")
    assert code == 0, err
    assert [(r["seq"], r["action"]) for r in json.loads(out)] == [
        (1, "init"), (2, "hero add"), (3, "add"), (4, "draw")]
    code, out, err = cli(db_path, "--campaign", "north", "--json", "card", "item-bow")
    assert code == 0, err
    assert json.loads(out)["history"] == [3, 5] and json.loads(out)["zone"] == "limbo"
