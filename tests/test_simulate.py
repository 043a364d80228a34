"""``ledger simulate`` plays a campaign that looks like play (issue #14): after a
couple of thousand random actions the decks still hold cards, heroes hold a handful,
the rules refuse few choices, every card is in one place, and a seed gives one log.

One 2,000-action run (seed 1) is shared by the module's tests; it takes a second or two.
"""

from __future__ import annotations

import pytest

from ledger.application import Ledger
from ledger.interface.simulate import HAND_LIMIT, ZONE_KINDS, Stats, simulate, start_simulation
from ledger.vocabulary import Zone

from .test_properties import assert_every_card_in_one_place

ACTIONS = 2_000
# Every choice is checked against the campaign before it is made (a draw names a deck
# with cards or one the depot refills, a redo follows an undo…), so a refusal is a
# check the simulation lacks: none is known (seed 1 has none in 100,000 actions). The
# bound leaves room for a rule added later that the simulation does not foresee,
# while a campaign drained of cards (30% and more refused, before #14) fails at once.
MAX_REFUSAL_RATE = 0.02


def log(app: Ledger, cid) -> list[tuple]:
    """What the campaign's log holds, action by action (not the timestamps or hashes,
    which a second run gives anew)."""
    return [(event.seq, type(event).__name__, event.command, event.changes) for event in app.actions(cid)]


def run(path, actions: int, seed: int = 1) -> tuple[Ledger, object, Stats]:
    app = Ledger.open(path, create=True)
    cid = start_simulation(app, heroes=3, seed=seed)
    return app, cid, simulate(app, cid, actions, seed=seed)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    app, cid, stats = run(tmp_path_factory.mktemp("simulate") / "campaign.db", ACTIONS)
    yield app, cid, stats
    app.close()


def test_the_decks_do_not_run_dry(played):
    app, cid, stats = played
    campaign = app.campaign(cid)
    decks = [z for z, spec in campaign.zones().items() if spec.is_deck]
    full = [z for z in decks if campaign.table.cards_in(z)]
    assert len(full) >= len(decks) // 2, f"only {full} of {decks} hold cards after {ACTIONS} actions"
    assert sum(stats.zones[kind] for kind in ("deck", "depot")) >= 20, stats.zones
    # the master adds cards from the box as the campaign goes on, and returns cards to play
    assert stats.by_action.get("add", 0) > 0 and stats.by_action.get("depot", 0) > 0, stats.by_action
    assert stats.by_action.get("bury", 0) > 0, stats.by_action


def test_heroes_hold_a_handful_of_cards(played):
    app, cid, _ = played
    table = app.campaign(cid).table
    for hero in table.heroes:
        hand = table.cards_in(Zone.inventory(hero))
        assert len(hand) <= HAND_LIMIT + 2, f"{hero} holds {len(hand)} cards: {hand}"


def test_few_choices_are_refused(played):
    _, _, stats = played
    assert stats.recorded == ACTIONS
    assert stats.refusal_rate == stats.refused / (stats.recorded + stats.refused)
    assert stats.refusal_rate < MAX_REFUSAL_RATE, f"{stats.refused} refused of {stats.recorded + stats.refused}"


def test_every_card_is_in_exactly_one_place(played):
    app, cid, stats = played
    table = app.campaign(cid).table
    assert_every_card_in_one_place(table)
    # the end state the command reports counts every card once
    assert set(stats.zones) == set(ZONE_KINDS)
    assert sum(stats.zones.values()) == len(table.where)
    assert stats.zones["box"] == len(table.cards_in(Zone.BOX))


def test_the_same_seed_gives_the_same_log(played, tmp_path):
    """A run is a function of its seed: a shorter run from seed 1 records exactly the
    first actions of the longer one (the choices depend only on the generator and the
    campaign, and the seeds of shuffles, refills and undos come from the generator)."""
    app, cid, _ = played
    again, again_cid, _ = run(tmp_path / "again.db", 400)
    try:
        shorter = log(again, again_cid)
        assert shorter == log(app, cid)[:len(shorter)]
        assert again.campaign(again_cid).table.to_dict() == app.campaign(cid, at=shorter[-1][0]).table.to_dict()
    finally:
        again.close()
    other, other_cid, _ = run(tmp_path / "other.db", 50, seed=2)
    try:
        assert log(other, other_cid) != log(app, cid)[:len(log(other, other_cid))]
    finally:
        other.close()


def test_progress_bars_leave_nothing_on_a_stderr_that_is_no_terminal(tmp_path):
    """``simulate`` and ``rebuild`` show a progress bar on a terminal only; on a pipe (a
    script, a log) rich would leave a blank line before any error line."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "LEDGER_DAEMON_DIR": str(tmp_path / "no-server"), "FORCE_COLOR": "1", "TTY_COMPATIBLE": "1"}
    for args in (["demo"], ["simulate", "--actions", "20"], ["rebuild"]):  # even when rich is told to colour
        done = subprocess.run([sys.executable, "-m", "ledger", "--db", "demo.db", *args], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stderr) == (0, ""), args


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped one, on purpose
def test_a_ctrl_c_lost_in_a_finalizer_still_stops_a_long_command(tmp_path, monkeypatch):
    """CPython drops a KeyboardInterrupt raised while a finalizer runs ("Exception ignored
    in ..."), so the press would be lost; the CLI notes every press and a long command
    stops at its next step (one `error: interrupted` line, exit 1, the record whole)."""
    import os
    import signal

    from click.testing import CliRunner

    from ledger.interface.cli import cli

    db = str(tmp_path / "sim.db")
    assert CliRunner().invoke(cli, ["--db", db, "simulate", "--actions", "5"]).exit_code == 0

    class PressedWhileFinalized:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(10_000):  # the handler runs here, inside the finalizer, and its exception is dropped
                pass

    calls = {"n": 0}
    execute = Ledger.execute

    def execute_then_finalize(self, cid, command):
        recorded = execute(self, cid, command)
        calls["n"] += 1
        if calls["n"] == 10:
            PressedWhileFinalized()  # made and finalized at once
        return recorded

    monkeypatch.setattr(Ledger, "execute", execute_then_finalize)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a real process
    try:
        result = CliRunner().invoke(cli, ["--db", db, "simulate", "--actions", "500"])
    finally:
        signal.signal(signal.SIGINT, before)
    assert result.exit_code == 1, result.output
    assert "error: interrupted" in result.output
    assert 10 <= calls["n"] < 500  # stopped at the step after the press, not at the end
    assert CliRunner().invoke(cli, ["--db", db, "verify"]).exit_code == 0


def test_only_the_master_runs_a_simulation(tmp_path):
    """Found by a QA pass: `--actor bo simulate` went on with the real campaign, recording
    the master's actions and ana's, the master's shuffles seeded from bo's --seed."""
    from .conftest import one_error_line, run_ledger

    db = tmp_path / "sim.db"
    assert run_ledger("simulate", "--actions", "5", db=db).returncode == 0
    before = run_ledger("--json", "history", db=db).stdout
    line = one_error_line(run_ledger("--actor", "hero1", "simulate", "--actions", "5", "--seed", "1", db=db))
    assert "only the master" in line, line
    assert run_ledger("--json", "history", db=db).stdout == before
    fresh = tmp_path / "new.db"
    one_error_line(run_ledger("--actor", "hero1", "simulate", "--actions", "5", db=fresh))
    assert not fresh.exists()


def test_a_simulation_that_runs_out_of_legal_actions_says_what_it_recorded(tmp_path):
    """Found by a QA pass: a campaign whose one hero holds nothing ran out of legal
    actions after recording one (an undo) and said only that it found none: an error line
    over a log that had grown. It says what it recorded, which stands."""
    from ledger.catalog import sample_catalog_path

    from .conftest import one_error_line, run_ledger

    db = tmp_path / "bare.db"
    assert run_ledger("init", "--catalog", str(sample_catalog_path()), db=db).returncode == 0
    assert run_ledger("hero", "add", "x", db=db).returncode == 0
    line = one_error_line(run_ledger("simulate", "--actions", "50", db=db))
    app = Ledger.open(db)
    try:
        seq = app.last_seq(app.resolve(None))
    finally:
        app.close()
    assert f"the campaign is at seq {seq}" in line and f"after recording {seq - 2}" in line, line
