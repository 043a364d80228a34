"""Hidden cards stay hidden, even from a stopwatch: how much work a seat's card history
takes must not tell which card another hero drew.

The attack an audit made (README, "Read models"): shuffle a face-down deck many times,
let another hero draw from it, shuffle it many times more, then time the card history of
each card the deck held. Every shuffle touches every card still in the deck, and nobody
but the referee sees it touch them; the drawn card alone misses the shuffles after the
draw. A seat's card history once walked those rows (passing over each it did not witness),
so the drawn card's answer came quicker. Now it walks an index holding only the rows some
seat may have witnessed (``readmodel.WITNESSED_INDEX``).

No timings (they would make a flaky test): the work is counted in SQLite virtual-machine
steps (``set_progress_handler``), which do not drift.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from ledger import commands as c
from ledger.application import Ledger
from ledger.interface.demo import DEMO_SLUG, run_demo
from projections.queries import history_query, witnessed_seqs
from projections.readmodel import REFEREE_ONLY, ReadModel, witnesses_text

SHUFFLES = 150  # before the draw, and as many after


@pytest.fixture(scope="module")
def shuffled(tmp_path_factory) -> tuple[Path, str, list[str], Path]:
    """The demo, then ``SHUFFLES`` shuffles of deck:skill, bo draws one card, and as many
    shuffles again: the file (its read models caught up), the drawn card, the cards left in
    the deck, and a copy of the demo as it was before the shuffles."""
    folder = tmp_path_factory.mktemp("channel")
    path = folder / "demo.db"
    run_demo(path, Console(file=io.StringIO())).close()
    before = Path(shutil.copy(path, folder / "before.db"))
    ledger = Ledger.open(path)
    try:
        cid = ledger.resolve(None)
        for _ in range(SHUFFLES):
            ledger.execute(cid, c.Shuffle(stack="deck:skill"))
        drawn = ledger.execute(cid, c.Draw(actor="bo", stack="deck:skill")).event.changes[0].card
        for _ in range(SHUFFLES):
            ledger.execute(cid, c.Shuffle(stack="deck:skill"))
        left = list(ledger.campaign(cid).table.cards_in("deck:skill"))
        model = ReadModel(ledger, path)
        model.catch_up()
        model.close()
    finally:
        ledger.close()
    return path, drawn, left, before


def _steps(model: ReadModel, read) -> int:
    """SQLite virtual-machine steps ``read()`` costs on the read models' connection."""
    steps = 0

    def count() -> int:
        nonlocal steps
        steps += 1
        return 0

    model.tables.conn.set_progress_handler(count, 1)
    try:
        read()
    finally:
        model.tables.conn.set_progress_handler(None, 1)
    return steps


def _reads(path: Path, cards: list[str], viewer: str) -> dict[str, tuple[int, int]]:
    """For each card, the steps of ``viewer``'s card history (``card --limit 20``) and of
    ``history --card`` in the file ``path``."""
    ledger = Ledger.open(path)
    model = ReadModel(ledger, path)
    try:
        last = ledger.campaign(ledger.resolve(None)).seq
        steps = {}
        for card in cards:
            sql, params = history_query(DEMO_SLUG, last, card=card, viewer=viewer)
            steps[card] = (_steps(model, lambda: witnessed_seqs(model, DEMO_SLUG, card, last, viewer, limit=20)),
                           _steps(model, lambda: model.read(sql, params)))
        return steps
    finally:
        model.close()
        ledger.close()


def assert_shuffles_add_nothing_to_a_seats_reads(path: Path, before: Path, cards: list[str]) -> None:
    """The steps the reads of each card took after the shuffles and the draw, less those they
    took in the demo before them: a few for the drawn card (it passes over bo's draw), none
    for the others; without the index, ~5 a shuffle (the cards left in the deck: 300, the
    drawn one 150), so that the drawn card stood out."""
    for viewer in ("ana", "public"):
        after, earlier = _reads(path, cards, viewer), _reads(before, cards, viewer)
        added = {card: (after[card][0] - earlier[card][0], after[card][1] - earlier[card][1]) for card in cards}
        assert all(0 <= steps < SHUFFLES / 5 for pair in added.values() for steps in pair), (viewer, added)


def test_hidden_cards_stay_hidden_a_seats_card_history_costs_the_same_for_the_drawn_card_and_the_others(
        shuffled):
    path, drawn, left, before = shuffled
    assert left and drawn not in left
    assert witnesses_text(()) == REFEREE_ONLY  # the rows the index leaves out (``readmodel.seen_by_a_seat``)
    assert_shuffles_add_nothing_to_a_seats_reads(path, before, [drawn, *left])
    # the referee's reads every row: each card in the deck took part in every shuffle
    ledger = Ledger.open(path)
    model = ReadModel(ledger, path)
    try:
        last = ledger.campaign(ledger.resolve(None)).seq
        assert len(witnessed_seqs(model, DEMO_SLUG, left[0], last, "master")) >= 2 * SHUFFLES
    finally:
        model.close()
        ledger.close()


def test_a_file_of_an_older_ledger_gains_the_index_at_its_next_command(tmp_path):
    import sqlite3

    from projections.readmodel import WITNESSED_INDEX

    from .conftest import run_ledger

    path = tmp_path / "older.db"
    run_demo(path, Console(file=io.StringIO())).close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute(f"DROP INDEX {WITNESSED_INDEX}")
    conn.close()
    done = run_ledger("--as", "ana", "card", "item-sword", db=path)
    assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(path)
    try:
        made = conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", [WITNESSED_INDEX]).fetchone()
    finally:
        conn.close()
    assert made is not None and "WHERE (witnesses IS NULL OR witnesses <> ',')" in made[0]


def test_rows_an_older_ledger_left_without_witnesses_are_filled_from_the_history_at_the_next_command(
        shuffled, tmp_path):
    """A file from before card_actions had ``witnesses`` (its rows NULL, no index of witnessed
    rows): every NULL row is in a seat's way, shuffles too, so the drawn card stood out (a QA
    pass: 15,333 steps against 28,996). The next command fills them as a rebuild would."""
    import sqlite3

    from projections.readmodel import WITNESSED_INDEX

    from .conftest import run_ledger

    path, drawn, left, before = shuffled
    copy = Path(shutil.copy(path, tmp_path / "older.db"))
    conn = sqlite3.connect(copy)
    with conn:
        as_rebuilt = conn.execute("SELECT campaign, card, seq, witnesses FROM card_actions ORDER BY 1, 2, 3").fetchall()
        conn.execute(f"DROP INDEX {WITNESSED_INDEX}")
        conn.execute("UPDATE card_actions SET witnesses = NULL")
    conn.close()
    done = run_ledger("--as", "ana", "card", drawn, db=copy)
    assert done.returncode == 0, done.stderr
    conn = sqlite3.connect(copy)
    try:
        assert conn.execute("SELECT campaign, card, seq, witnesses FROM card_actions ORDER BY 1, 2, 3").fetchall() \
            == as_rebuilt
    finally:
        conn.close()
    assert_shuffles_add_nothing_to_a_seats_reads(copy, before, [drawn, *left])
    assert run_ledger("verify", db=copy).returncode == 0


def test_a_history_row_whose_seen_was_damaged_is_not_filled_in_but_refused_as_damaged(tmp_path):
    """The fill reads ``seen`` as the reads do: a card's viewers given as a string (not a
    list) leave its rows NULL, so that reading them says the row is damaged, rather than
    filling ``,a,n,a,`` and quietly hiding the action from ana (a review found that)."""
    import sqlite3

    from projections.readmodel import WITNESSED_INDEX

    from .conftest import run_ledger

    path = tmp_path / "older.db"
    run_demo(path, Console(file=io.StringIO())).close()
    conn = sqlite3.connect(path)
    with conn:
        seq = conn.execute("SELECT min(seq) FROM card_actions WHERE card = 'item-sword'").fetchone()[0]
        conn.execute(f"DROP INDEX {WITNESSED_INDEX}")
        conn.execute("UPDATE card_actions SET witnesses = NULL")
        conn.execute("UPDATE history SET seen = ? WHERE seq = ?", ['{"item-sword":"ana"}', seq])
    conn.close()
    done = run_ledger("--as", "ana", "card", "item-sword", db=path)
    assert done.returncode != 0 and f"seq {seq}" in done.stderr and "Traceback" not in done.stderr, done.stderr
    conn = sqlite3.connect(path)
    try:
        at_seq = conn.execute("SELECT witnesses FROM card_actions WHERE seq = ?", [seq]).fetchall()
        assert at_seq and set(at_seq) == {(None,)}  # every card of the row: its seen cannot be read
        assert conn.execute("SELECT count(*) FROM card_actions WHERE witnesses IS NULL").fetchone()[0] == len(at_seq)
    finally:
        conn.close()
