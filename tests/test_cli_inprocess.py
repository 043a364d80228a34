"""The ``ledger`` click group run directly, as ``CliRunner().invoke(cli, args)`` does,
behaves exactly as ``main`` (the installed command, ``python -m ledger``): the same exit
status, stdout and stderr, for a success, a refusal, a usage error and a ``--json``
error, and never a traceback."""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.catalog import sample_catalog_path
from ledger.interface.cli import cli, main

SETUP = [
    ["init", "--catalog", str(sample_catalog_path()), "--name", "Teste"],
    ["hero", "add", "ana", "--knowledge", "1"],
    ["add", "item-sword", "item-bow", "--to", "deck:item"],
]


def through_main(args: list[str]) -> tuple[int, str, str]:
    """``ledger ARGS`` through ``main``, as the installed command runs it."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return code, out.getvalue(), err.getvalue()


def through_runner(args: list[str]) -> tuple[int, str, str]:
    """``ledger ARGS`` as click's test runner invokes the group itself."""
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path]:
    """Two identical campaigns, one for each way of running the command (so that an
    action recorded by one does not change what the other sees)."""
    dbs = tmp_path / "main.db", tmp_path / "runner.db"
    for db in dbs:
        for args in SETUP:
            code, _, err = through_main(["--db", str(db), *args])
            assert code == 0, err
    return dbs


def both(twins: tuple[Path, Path], *args: str) -> tuple[int, str, str]:
    """Runs ``ledger --db DB ARGS`` both ways; they must agree. Returns the result."""
    by_main = through_main(["--db", str(twins[0]), *args])
    by_runner = through_runner(["--db", str(twins[1]), *args])
    assert _same_but_heads(by_runner) == _same_but_heads(by_main)
    assert "Traceback" not in by_runner[1] + by_runner[2]
    return by_runner


def test_a_draw_records_the_same_way(twins):
    code, out, err = both(twins, "--actor", "ana", "draw", "deck:item")
    assert (code, err) == (0, "")
    assert out == "seq 4  draw 1 from deck:item → inventory:ana: item-sword\n"
    code, out, _ = both(twins, "--as", "public", "zones")  # a rich table, the same either way
    assert code == 0 and "inventory:ana" in out


def test_a_refusal_is_one_error_line_and_exit_1(twins):
    code, out, err = both(twins, "--actor", "ana", "draw", "deck:nope")
    assert (code, out) == (1, "")
    assert len(err.splitlines()) == 1 and err.startswith("error: deck:nope is not a zone")


def test_a_usage_error_is_one_error_line_and_exit_2(twins):
    code, out, err = both(twins, "draw", "--bogus")
    assert (code, out) == (2, "")
    assert err.startswith("error: No such option") and err.endswith(" (see ledger draw --help)\n")
    assert len(err.splitlines()) == 1


def test_a_json_error_carries_the_error_object_on_stdout(twins):
    code, out, err = both(twins, "--json", "--actor", "ana", "draw", "deck:item", "--count", "0")
    assert code == 1
    assert json.loads(out)["error"]["code"] == "bad-input"
    assert len(err.splitlines()) == 1 and err.startswith("error: ")


def test_a_bad_viewer_and_a_missing_database_are_refused_alike(twins, tmp_path):
    assert both(twins, "--json", "--as", "no one", "zones")[0] == 1
    assert both(twins, "--as", "zed", "zones")[0] == 1
    code, _, err = both((tmp_path / "none.db", tmp_path / "none.db"), "zones")
    assert code == 1 and err.startswith("error: ")


def test_help_and_version_exit_0_with_the_same_text(twins, monkeypatch):
    # CliRunner lays help out 80 columns wide (click.formatting.FORCED_WIDTH); a process
    # uses its terminal's width less 2, so an 82-column terminal shows the same text.
    monkeypatch.setenv("COLUMNS", "82")
    assert "Example: ledger --actor ana draw deck:item --count 2" in both(twins, "draw", "--help")[1]
    assert both(twins, "--version")[1].startswith("ledger ")
    assert through_runner([]) == through_main([])  # a bare `ledger` shows the help
    code, out, _ = through_runner([])
    assert code == 0 and out.startswith("Usage: ledger")


def _same_but_heads(result: tuple[int, str, str]) -> tuple[int, str, str]:
    """A result with head hashes masked: the twins' actions differ in their times, so
    their checkpoints (which every view carries) differ too."""
    code, out, err = result
    return code, re.sub(r"[0-9a-f]{64}", "HEAD", out), err
