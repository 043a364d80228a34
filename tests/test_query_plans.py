"""Every read is a lookup: its cost must not grow with the campaign (issue #14).

``EXPLAIN QUERY PLAN`` of each statement the reads run, on a real campaign file with its
read models built (the demo's): the filtered lookup starts from the index that holds
its filter (card_actions' primary key for a card, history's (campaign, actor, seq) for
an actor, a primary key otherwise) and walks it in the order asked for, so that the
latest N rows are read and no more: no ``SCAN`` of the history, card_actions or stored
events, and no ``TEMP B-TREE`` sorting every matching row. The plans are those of the
SQL ``projections.queries`` builds, and the tests check that this is the SQL the
``ledger`` command runs (traced on its connections). No timings: the benchmark is
tests/benchmarks/reads.py.
"""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from rich.console import Console

from ledger.interface.demo import DEMO_SLUG, run_demo
from projections.consistency import card_actions_between
from projections.queries import card_actions_query, history_query
from projections.readmodel import WITNESSED_INDEX

from .conftest import json_of, run_ledger

BIG_TABLES = ("history", "card_actions", "stored_events", "stored_snapshots")


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo campaign, its read models built (``run_demo`` catches them up)."""
    path = tmp_path_factory.mktemp("plans") / "demo.db"
    run_demo(path, Console(file=io.StringIO())).close()
    return path


@pytest.fixture(scope="module")
def conn(demo: Path):
    connection = sqlite3.connect(f"{demo.absolute().as_uri()}?mode=ro", uri=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def last(conn) -> int:
    return conn.execute("SELECT max(seq) FROM history WHERE campaign = ?", [DEMO_SLUG]).fetchone()[0]


def plan_of(conn: sqlite3.Connection, sql: str, params: list[Any] = ()) -> list[str]:
    return [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql, list(params))]


def assert_walks_an_index(plan: list[str]) -> None:
    """No full pass over a table that grows with the log, and no sort of all the rows found."""
    for step in plan:
        assert not any(step.startswith(f"SCAN {t}") for t in BIG_TABLES), f"full scan: {step} in {plan}"
        assert not step.startswith(("SCAN h", "SCAN a")), f"full scan: {step} in {plan}"
        assert "TEMP B-TREE" not in step, f"sorts every matching row: {step} in {plan}"


def assert_lookup(plan: list[str], first: str, constraint: str, *then: str) -> None:
    """The outer loop searches ``first`` (an alias) by an index whose leading columns are
    ``constraint``, then each of ``then`` (alias, constraint) by its key."""
    assert_walks_an_index(plan)
    assert plan[0].startswith(f"SEARCH {first} USING ") and f"({constraint}" in plan[0], \
        f"the outer loop is not a lookup by {constraint}: {plan}"
    assert len(plan) == 1 + len(then), plan
    for step, (alias, key) in zip(plan[1:], then):
        assert step.startswith(f"SEARCH {alias} USING ") and f"({key})" in step, f"not a key lookup: {step} in {plan}"


BY_SEQ = ("h", "campaign=? AND seq=?")


@pytest.mark.parametrize("filters, first, constraint, then", [
    # history --card CARD [--limit N]: from the card's rows of card_actions, newest first
    ({"card": "item-sword"}, "a", "campaign=? AND card=? AND seq<?", [BY_SEQ]),
    ({"card": "item-sword", "start": 5, "end": 30}, "a", "campaign=? AND card=? AND seq>? AND seq<?", [BY_SEQ]),
    ({"card": "item-sword", "actor": "ana"}, "a", "campaign=? AND card=? AND seq<?", [BY_SEQ]),
    # history --actor WHO: from history's (campaign, actor, seq) index, in seq order
    ({"actor": "ana"}, "h", "campaign=? AND actor=? AND seq<?", []),
    ({"actor": "master", "start": 5}, "h", "campaign=? AND actor=? AND seq>? AND seq<?", []),
    ({"actor": "bo", "start": 5, "end": 30}, "h", "campaign=? AND actor=? AND seq>? AND seq<?", []),
    # history [--from] [--to] --limit N: history's primary key, newest first
    ({}, "h", "campaign=? AND seq<?", []),
    ({"start": 5, "end": 30}, "h", "campaign=? AND seq>? AND seq<?", []),
])
def test_history_reads_are_lookups(conn, last, filters, first, constraint, then):
    sql, params = history_query(DEMO_SLUG, last, **filters)
    assert_lookup(plan_of(conn, sql, params), first, constraint, *then)
    # and the rows are the right ones, newest first (the same as a plain filter would give)
    got = [row[1] for row in conn.execute(sql, params)]
    wanted = [seq for (seq,) in conn.execute(
        "SELECT seq FROM history WHERE campaign = ? AND seq BETWEEN ? AND ? AND actor = coalesce(?, actor) "
        "AND (? IS NULL OR seq IN (SELECT seq FROM card_actions WHERE campaign = ? AND card = ?)) ORDER BY seq DESC",
        [DEMO_SLUG, filters.get("start", 1), filters.get("end", last), filters.get("actor"),
         filters.get("card"), DEMO_SLUG, filters.get("card")])]
    assert got == wanted and got


def test_card_history_is_a_lookup(conn, last):
    """The referee's needs card_actions alone; a seat's skips the rows it did not witness
    in card_actions, then reads the history rows of the others by key."""
    sql, params = card_actions_query(DEMO_SLUG, "item-sword", last)
    assert_lookup(plan_of(conn, sql, params), "a", "campaign=? AND card=? AND seq<?")
    sql, params = card_actions_query(DEMO_SLUG, "item-sword", last, "bo")
    assert_lookup(plan_of(conn, sql, params), "a", "campaign=? AND card=? AND seq<?", BY_SEQ)
    assert_walks_what_a_seat_may_have_witnessed(plan_of(conn, sql, params))


def assert_walks_what_a_seat_may_have_witnessed(plan: list[str]) -> None:
    """A seat's card history walks the index of the rows some seat may have witnessed, never
    the rows only the referee saw (tests/test_card_history_channel.py: what they would tell)."""
    assert f"USING COVERING INDEX {WITNESSED_INDEX} " in plan[0], plan


def _by_card_and_seq(plan: list[str]) -> bool:
    return len(plan) == 1 and plan[0].startswith("SEARCH card_actions USING ") \
        and "(campaign=? AND card=? AND seq>? AND seq<?)" in plan[0]


def test_verify_compares_card_actions_by_key(conn, last):
    """``verify`` compares a batch's card_actions rows with the stored ones by a key lookup
    per card; by the campaign alone, each batch walked every row of the campaign (a 1M
    log's comparison grew with the square of its length)."""
    cards = [card for (card,) in conn.execute("SELECT DISTINCT card FROM card_actions WHERE campaign = ?",
                                              [DEMO_SLUG])]
    sql, params = card_actions_between(DEMO_SLUG, cards, 1, last)
    assert cards and _by_card_and_seq(plan_of(conn, sql, params))
    walked = "SELECT card, seq FROM card_actions WHERE campaign = ? AND seq BETWEEN ? AND ?"
    assert not _by_card_and_seq(plan_of(conn, walked, [DEMO_SLUG, 1, last]))


def test_the_checker_refuses_the_plans_that_grew_with_the_log(conn, last):
    """The plans these reads had before (issue #14): history walked by seq with card_actions
    probed per row, and an actor's rows sorted after the fact. Both must fail."""
    walked = ("SELECT h.* FROM history h JOIN card_actions a ON a.campaign = h.campaign AND a.seq = h.seq "
              "AND a.card = ? WHERE h.campaign = ? AND h.seq <= ? ORDER BY h.seq DESC")
    with pytest.raises(AssertionError):
        assert_lookup(plan_of(conn, walked, ["item-sword", DEMO_SLUG, last]), "a", "campaign=? AND card=?", BY_SEQ)
    sorted_after = "SELECT h.* FROM history h NOT INDEXED WHERE h.campaign = ? AND h.actor = ? ORDER BY h.seq DESC"
    with pytest.raises(AssertionError):
        assert_walks_an_index(plan_of(conn, sorted_after, [DEMO_SLUG, "ana"]))


# -- what the ``ledger`` command runs -----------------------------------------------------
def _literal(value: Any) -> str:
    return "'" + value.replace("'", "''") + "'" if isinstance(value, str) else str(value)


def _expanded(sql: str, params: list[Any]) -> str:
    """The statement as SQLite's trace shows it, its parameters written in."""
    parts = sql.split("?")
    assert len(parts) == len(params) + 1
    return "".join(part + _literal(value) for part, value in zip(parts, params)) + parts[-1]


def traced(demo: Path, *args: str) -> list[str]:
    """Every statement ``ledger --db DEMO ARGS`` ran (on any SQLite connection it opened)."""
    statements: list[str] = []
    connect = sqlite3.connect

    def tracing(*a: Any, **k: Any) -> sqlite3.Connection:
        connection = connect(*a, **k)
        connection.set_trace_callback(statements.append)
        return connection

    with mock.patch("sqlite3.connect", tracing):
        done = run_ledger(*args, db=demo)
    assert done.returncode == 0, done.stderr
    return statements


def _reads_of_big_tables(statements: list[str]) -> list[str]:
    return [s for s in statements if s.lstrip().upper().startswith("SELECT") and any(t in s for t in BIG_TABLES)]


@pytest.mark.parametrize("args, filters, first, constraint", [
    (["history", "--card", "item-sword", "--limit", "20"], {"card": "item-sword"}, "a",
     "campaign=? AND card=? AND seq<?"),
    (["history", "--actor", "ana", "--limit", "20"], {"actor": "ana"}, "h", "campaign=? AND actor=? AND seq<?"),
    (["--as", "ana", "history", "--card", "item-axe", "--actor", "master", "--from", "3", "--limit", "2"],
     {"card": "item-axe", "actor": "master", "start": 3, "viewer": "ana"}, "a",
     "campaign=? AND card=? AND seq>? AND seq<?"),
    (["history", "--limit", "20"], {}, "h", "campaign=? AND seq<?"),
])
def test_the_history_command_runs_that_sql(demo, conn, last, args, filters, first, constraint):
    statements = traced(demo, *args)
    sql, params = history_query(DEMO_SLUG, last, **filters)
    assert _expanded(sql, params) in statements, "the CLI's history ran other SQL than history_query's"
    assert_lookup(plan_of(conn, _expanded(sql, params)), first, constraint, *([BY_SEQ] if "card" in filters else []))
    if "card" in filters and "viewer" in filters:
        assert_walks_what_a_seat_may_have_witnessed(plan_of(conn, _expanded(sql, params)))
    for statement in _reads_of_big_tables(statements):  # and nothing else it read scanned the log
        assert_walks_an_index(plan_of(conn, statement))


@pytest.mark.parametrize("viewer", ["referee", "ana"])
def test_the_card_command_runs_that_sql(demo, conn, last, viewer):
    statements = traced(demo, "--as", viewer, "--json", "card", "item-axe", "--limit", "2")
    sql, params = card_actions_query(DEMO_SLUG, "item-axe", last, viewer)
    assert _expanded(sql, params) in statements, "the CLI's card ran other SQL than card_actions_query's"
    if viewer != "referee":
        assert_walks_what_a_seat_may_have_witnessed(plan_of(conn, _expanded(sql, params)))
    for statement in _reads_of_big_tables(statements):
        assert_walks_an_index(plan_of(conn, statement))


def test_the_explain_command_reads_by_key(demo, conn):
    """``explain SEQ`` reads the stored events (the action, and the campaign before and
    after it from a snapshot): each by its key, none of them by a pass over the log."""
    reads = _reads_of_big_tables(traced(demo, "explain", "27"))
    assert any("stored_events" in s for s in reads)
    for statement in reads:
        plan = plan_of(conn, statement)
        assert_walks_an_index(plan)
        assert all(step.startswith("SEARCH ") for step in plan), plan


def test_card_limit_keeps_the_latest_actions(demo):
    """``card CARD --limit N``: the latest N of the actions ``card CARD`` lists, oldest
    first (as ``history --limit``), for every viewer; the rest of the view unchanged."""
    for viewer in ("referee", "public", "ana", "bo"):
        for card in ("item-axe", "item-sword"):
            full = json_of(run_ledger("--json", "--as", viewer, "card", card, db=demo))
            for limit in (1, 2, 1000):
                cut = json_of(run_ledger("--json", "--as", viewer, "card", card, "--limit", str(limit), db=demo))
                assert cut == {**full, "history": full["history"][-limit:]}
            assert len(full["history"]) >= 2 or viewer != "referee"
    refused = run_ledger("card", "item-axe", "--limit", "0", db=demo)
    assert refused.returncode == 1 and refused.stderr.startswith("error: ")


def test_a_limited_read_pulls_no_more_rows_than_it_shows(demo):
    """A lookup that walks the right index still costs the whole table if the rows are all
    fetched before the limit is applied: the reads stop once they have their N."""
    from ledger.application import Ledger
    from projections.queries import card_view, history_view
    from projections.readmodel import ReadModel

    ledger = Ledger.open(demo)
    model = ReadModel(ledger, demo)
    pulled = []
    real_scan = model.tables.scan

    def counting_scan(sql, params=()):
        for row in real_scan(sql, params):
            pulled.append(row)
            yield row

    try:
        cid = ledger.resolve(DEMO_SLUG)
        campaign = ledger.campaign(cid)
        with mock.patch.object(model.tables, "scan", counting_scan):
            shown = history_view(ledger, model, cid, campaign.slug, "referee", limit=3)
            assert len(shown) == 3 and len(pulled) == 3
            pulled.clear()
            shown = history_view(ledger, model, cid, campaign.slug, "referee", actor="master", limit=2)
            assert len(shown) == 2 and len(pulled) == 2
            pulled.clear()
            busiest = model.read("SELECT card FROM card_actions GROUP BY card ORDER BY count(*) DESC LIMIT 1")[0][0]
            view = card_view(ledger, model, campaign, "referee", busiest, limit=2)
            assert len(view["history"]) == 2 and len(pulled) == 2
    finally:
        model.close()
        ledger.close()
