"""Shared fixtures: a real SQLite campaign file per test, and a ``Game`` helper that
records actions and checks that refusals append nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import commands as c
from ledger.application import Ledger, Recorded
from ledger.campaign import Campaign
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.errors import LedgerError


# Soak scripts (tests/soak/) and benchmarks (tests/benchmarks/) are run by hand.
collect_ignore_glob = ["soak/*", "benchmarks/*"]


class Game:
    """A started campaign on a real database file."""

    def __init__(self, app: Ledger, cid):
        self.app = app
        self.cid = cid

    @property
    def campaign(self) -> Campaign:
        return self.app.campaign(self.cid)

    @property
    def table(self):
        return self.campaign.table

    def do(self, command: c.Command) -> Recorded:
        return self.app.execute(self.cid, command)

    def refuse(self, command: c.Command, error: type[LedgerError] = LedgerError) -> LedgerError:
        """Runs a command that must be refused; checks that nothing was appended and
        that the in-memory table is exactly as before. Returns the error."""
        before_count = self.app.stored_event_count()
        before_seq = self.app.last_seq(self.cid)
        before_table = self.campaign.table.to_dict()
        with pytest.raises(error) as info:
            self.do(command)
        assert self.app.stored_event_count() == before_count, "a refused action appended events"
        assert self.app.last_seq(self.cid) == before_seq
        assert self.campaign.table.to_dict() == before_table, "a refused action changed the table"
        fresh = Ledger.open(self.app.env.get("SQLITE_DBNAME"))
        try:
            assert fresh.campaign(self.cid).table.to_dict() == before_table
        finally:
            fresh.close()
        return info.value

    def zone(self, card: str) -> str:
        return self.table.zone_of(card)

    def cards(self, zone: str) -> list[str]:
        return list(self.table.cards_in(zone))

    def add(self, *cards: str, to: str, position="top") -> Recorded:
        return self.do(c.Add(cards=cards, to=to, position=position))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "campaign.db"


@pytest.fixture
def app(db_path: Path):
    ledger = Ledger.open(db_path, create=True)
    yield ledger
    ledger.close()


@pytest.fixture
def sample_catalog():
    return load_catalog(sample_catalog_path())


@pytest.fixture
def game(app: Ledger, sample_catalog) -> Game:
    """The sample catalog, heroes ana (knowledge 1) and bo (knowledge 0)."""
    rec = app.start(sample_catalog, name="Test")
    g = Game(app, rec.campaign.id)
    g.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
    g.do(c.AddHero(hero="bo", name="Bo", knowledge=0))
    return g


def run_ledger(*args: str, db: Path | None = None, cwd: Path | None = None, env: dict | None = None):
    """Runs the real ``ledger`` command in a child process."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("LEDGER_DB", None)
    argv = [sys.executable, "-m", "ledger"]
    if db is not None:
        argv += ["--db", str(db)]
    return subprocess.run(argv + list(args), capture_output=True, text=True, cwd=cwd, env=full_env, timeout=120)
