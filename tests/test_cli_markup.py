"""What players type is printed as typed: a name with square brackets or an emoji code
(``:fire:``) in a hero id is text, not rich markup — and an action that was recorded
never ends in an error because its summary could not be printed."""

from __future__ import annotations

from ledger.catalog import sample_catalog_path
from tests.conftest import last_seq, run_ledger, succeeded


def test_names_with_brackets_and_emoji_codes_print_as_typed(tmp_path):
    db = tmp_path / "campaign.db"
    succeeded(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "Norte [/b] [red]", db=db))
    succeeded(run_ledger("hero", "add", "fire", db=db))
    added = run_ledger("hero", "add", "bo", "--name", "Bo [/b] x", db=db)
    assert added.returncode == 0 and "Bo [/b] x" in added.stdout, added.stderr
    assert last_seq(db) == 3
    succeeded(run_ledger("add", "item-sword", "--to", "deck:item", db=db))
    drawn = succeeded(run_ledger("--actor", "fire", "draw", "deck:item", db=db))
    assert "inventory:fire: item-sword" in drawn.stdout  # not an emoji
    history = succeeded(run_ledger("history", db=db)).stdout
    assert "Bo [/b] x" in history and "inventory:fire:" in history and "🔥" not in history
    assert "Norte [/b] [red]" in succeeded(run_ledger("zones", db=db)).stdout
