"""The README stays true: its quickstart is what CI runs, and its everyday commands work."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from ledger.catalog import sample_catalog_path

from .conftest import run_ledger

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str) -> list[str]:
    section = README.split(heading, 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, f"no code block under {heading}"
    return [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]


def test_quickstart_is_two_commands_and_ci_runs_them():
    commands = _block_after("## Quickstart")
    assert len(commands) == 2
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands:
        assert command in ci, f"CI does not run the README command: {command}"


def test_everyday_commands_run_as_written(tmp_path: Path):
    lines = _block_after("## Everyday use")
    assert lines[0] == "cp ledger/data/sample_catalog.toml cards.toml", lines[0]  # from the checkout, as written
    assert (ROOT / "ledger/data/sample_catalog.toml").resolve() == sample_catalog_path().resolve()
    shutil.copy(sample_catalog_path(), tmp_path / "cards.toml")
    for line in lines[1:]:
        for part in line.split("#", 1)[0].split(" ; "):
            argv = shlex.split(part)
            assert argv[0] == "ledger"
            done = run_ledger(*argv[1:], cwd=tmp_path)
            assert done.returncode == 0, f"{part!r} failed: {done.stderr}"
    assert (tmp_path / "campaign.db").exists()


def test_play_at_the_table_is_two_commands_after_the_demo(tmp_path: Path):
    commands = _block_after("## Play at the table")
    assert len(commands) == 2
    seats, serve = (shlex.split(line.split("#", 1)[0]) for line in commands)
    assert serve == ["ledger", "--db", "demo.db", "serve"]
    assert run_ledger("--db", str(tmp_path / "demo.db"), "demo").returncode == 0
    done = run_ledger(*seats[1:], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(re.findall(r"http://127\.0\.0\.1:8000/join/[\w-]{32,}", done.stdout)) == 2


def test_the_postgresql_commands_run_as_written():
    from tests.postgres_support import fresh_schema

    lines = _block_after("## Many campaigns: PostgreSQL")
    assert lines[0].startswith("export LEDGER_DB=\"postgresql://")
    with fresh_schema() as url:
        ran = 0
        for line in lines[1:]:
            for part in line.split("#", 1)[0].split(" && "):
                argv = shlex.split(part)
                assert argv[0] == "ledger"
                if argv[1] == "serve":  # a server: tests/test_postgres_server.py runs it
                    continue
                done = run_ledger(*argv[1:], cwd=ROOT, env={"LEDGER_DB": url})
                assert done.returncode == 0, f"{part!r} failed: {done.stderr}"
                ran += 1
        assert ran >= 9


def test_the_portuguese_commands_run_as_written_and_speak_portuguese(tmp_path: Path):
    """"Em português": the demo narrated in Portuguese, then every command with
    ``LEDGER_LANG=pt`` as the block exports it, each succeeding and reading in Portuguese."""
    lines = _block_after("## Em português")
    env: dict[str, str] = {}
    heard = []
    for line in lines:
        command = line.split("#", 1)[0].strip()
        if command.startswith("export "):
            name, value = command.removeprefix("export ").split("=", 1)
            env[name] = value
            continue
        argv = shlex.split(command)
        assert argv[0] == ".venv/bin/ledger", line
        done = run_ledger(*argv[1:], cwd=tmp_path, env={"COLUMNS": "200", **env})
        assert done.returncode == 0, f"{command!r} failed: {done.stderr}"
        heard.append(done.stdout)
    assert env == {"LEDGER_LANG": "pt"}
    demo, zones, history, explain, card, help_page = heard
    assert "Jogue à mesa" in demo
    assert "Baralho de Item (deck:item)" in zones and "Pilha de Descarte (discard)" in zones
    assert "o que aconteceu" in history
    assert "Ação Total" in explain
    assert "Escudo de Madeira" in card and "Oculta" in card
    assert help_page.startswith("Uso: ledger draw")
