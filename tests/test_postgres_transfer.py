"""Moving a campaign between stores (issue #13): exported from SQLite, imported into
PostgreSQL (verified first), exported again and imported back into SQLite — the same
actions, the same hash chain, byte for byte the same export."""

from __future__ import annotations

from click.testing import CliRunner

from ledger.interface.cli import cli
from tests.postgres_support import fresh_schema


def _ledger(db, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_campaign_moves_to_postgresql_and_back_with_the_same_hash_chain(tmp_path):
    original, back = tmp_path / "demo.db", tmp_path / "back.db"
    _ledger(original, "demo")
    exported = tmp_path / "demo.jsonl"
    exported.write_text(_ledger(original, "export"))
    with fresh_schema() as url:
        assert "imported 36 actions of demo" in _ledger(url, "import", str(exported))
        assert _ledger(url, "verify").strip().startswith("ok: 36 actions of demo")
        again = tmp_path / "again.jsonl"
        again.write_text(_ledger(url, "export"))
        assert again.read_bytes() == exported.read_bytes()
        assert _ledger(url, "checkpoint").splitlines()[0] == _ledger(original, "checkpoint").splitlines()[0]
        # the read models follow the imported log on PostgreSQL too
        assert _ledger(url, "--json", "history", "--limit", "1") == _ledger(original, "--json", "history", "--limit", "1")
        refused = CliRunner().invoke(cli, ["--db", url, "import", str(exported)])
        assert refused.exit_code == 1 and "already holds a campaign 'demo'" in refused.output
    _ledger(back, "import", str(again))
    assert _ledger(back, "checkpoint").splitlines()[0] == _ledger(original, "checkpoint").splitlines()[0]


def test_a_campaign_with_snapshots_moves_to_postgresql(tmp_path):
    """Past seq 100 a campaign has snapshots: they are copied too (PostgreSQL's snapshots
    recorder inserts differently from its events recorder)."""
    original = tmp_path / "sim.db"
    _ledger(original, "simulate", "--actions", "130", "--seed", "4")
    exported = tmp_path / "sim.jsonl"
    exported.write_text(_ledger(original, "export"))
    with fresh_schema() as url:
        assert "imported" in _ledger(url, "import", str(exported))
        assert _ledger(url, "verify").strip().startswith("ok:")
        assert _ledger(url, "checkpoint").splitlines()[0] == _ledger(original, "checkpoint").splitlines()[0]
        assert _ledger(url, "--json", "zones", "--at", "120") == _ledger(original, "--json", "zones", "--at", "120")
