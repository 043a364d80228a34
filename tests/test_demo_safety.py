"""``ledger demo`` replaces only an untouched demo file it wrote itself (never a real
campaign that happens to be called "demo", nor a demo played on since), and with
``--json`` writes exactly one JSON document."""

from __future__ import annotations

from pathlib import Path

from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.interface.demo import DEMO_ACTIONS, DEMO_NAME, DEMO_SLUG, script

from .conftest import json_error, json_of, one_error_line, run_ledger, succeeded

SAMPLE = str(sample_catalog_path())


def files(folder: Path) -> dict[str, bytes]:
    """Every file in ``folder`` and its bytes (the database and any -wal/-shm beside it)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def seq_and_heroes(db: Path) -> tuple[int, list[str]]:
    view = json_of(succeeded(run_ledger("--json", "zones", db=db)))
    return view["seq"], sorted(zone.split(":", 1)[1] for zone in view["zones"] if zone.startswith("table:"))


def refused_untouched(db: Path, *args: str) -> str:
    """``ledger [ARGS] demo`` on ``db`` is refused with one line naming the file and the way
    on, and leaves every file as it was."""
    before = files(db.parent)
    line = one_error_line(run_ledger(*args, "demo", db=db, cwd=db.parent))
    assert str(db) in line, line
    assert "remove" in line and "--db" in line, line
    assert files(db.parent) == before, "a refused demo changed the folder"
    return line


def test_demo_refuses_a_real_campaign_whose_slug_is_demo(tmp_path):
    db = tmp_path / "x.db"
    succeeded(run_ledger("init", "--catalog", SAMPLE, "--name", "Demo", db=db))
    succeeded(run_ledger("hero", "add", "zoe", db=db))
    refused_untouched(db)
    assert seq_and_heroes(db) == (2, ["zoe"])


def test_demo_refuses_a_demo_played_on_since(tmp_path):
    db = tmp_path / "d.db"
    first = succeeded(run_ledger("demo", db=db, cwd=tmp_path))
    assert "--actor ana draw deck:skill" in first.stdout  # what the demo suggests trying next
    seq, heroes = seq_and_heroes(db)
    succeeded(run_ledger("--actor", "ana", "draw", "deck:skill", db=db))
    refused_untouched(db)
    assert seq_and_heroes(db) == (seq + 1, heroes)
    # an undo is an action too: a demo taken back to where it was is still played on
    succeeded(run_ledger("undo", db=db))
    refused_untouched(db)
    assert seq_and_heroes(db)[0] == seq + 2


def test_demo_refuses_a_demo_with_seats_opened(tmp_path):
    db = tmp_path / "demo.db"
    succeeded(run_ledger("demo", db=db, cwd=tmp_path))
    succeeded(run_ledger("seat", "add", "master", "ana", db=db))
    refused_untouched(db)


def test_demo_replaces_its_own_untouched_demo_again_and_again(tmp_path):
    db = tmp_path / "demo.db"
    for lang in ("en", "en", "pt"):  # the README: the quickstart's demo twice, then again in Portuguese
        succeeded(run_ledger("--lang", lang, "demo", cwd=tmp_path))  # demo.db in the working folder
        seq, heroes = seq_and_heroes(db)
        assert heroes == ["ana", "bo"] and seq > 1
    assert json_of(succeeded(run_ledger("--json", "campaigns", db=db))) == [{"id": DEMO_SLUG, "name": DEMO_NAME}]


def _cut_short(db: Path, *extra) -> None:
    """The demo's first actions, as a demo interrupted after them leaves its file (and then ``extra``)."""
    ledger = Ledger.open(db, create=True)
    try:
        cid = ledger.start(load_catalog(sample_catalog_path()), name=DEMO_NAME, slug=DEMO_SLUG).campaign.id
        for _text, command in script()[:4]:
            ledger.execute(cid, command)
        for command in extra:
            ledger.execute(cid, command)
    finally:
        ledger.close()


def test_demo_refuses_a_demo_cut_short_whatever_was_played_on_in_it(tmp_path):
    """A demo interrupted after its first actions is not taken for untouched: a player may
    have played on in it with commands that happen to come later in the script (here an
    undo and a redo, which the script has too), and those actions must not be dropped."""
    from ledger import commands as c

    for name, extra in (("cut.db", ()), ("played.db", (c.Draw(actor="ana", stack="deck:item"),)),
                        ("undone.db", (c.Undo(), c.Redo()))):
        db = tmp_path / name
        _cut_short(db, *extra)
        seq = seq_and_heroes(db)[0]
        line = refused_untouched(db)
        assert "cut short" in line, line
        assert seq_and_heroes(db)[0] == seq


def test_the_demo_records_as_many_actions_as_it_says(tmp_path):
    """``DEMO_ACTIONS``, which tells an untouched demo from one played on, is what a run records."""
    db = tmp_path / "demo.db"
    doc = json_of(succeeded(run_ledger("--json", "demo", db=db, cwd=tmp_path)))
    assert doc["recorded"] == DEMO_ACTIONS == seq_and_heroes(db)[0] - 1
    assert f"{DEMO_ACTIONS} actions recorded" in doc["message"]


def test_demo_refuses_a_file_that_is_no_campaign_database(tmp_path):
    db = tmp_path / "notes.db"
    db.write_text("my notes\n")
    refused_untouched(db)
    assert db.read_text() == "my notes\n"


def test_json_demo_writes_one_json_document_and_no_narration(tmp_path):
    db = tmp_path / "demo.db"
    result = succeeded(run_ledger("--json", "demo", db=db, cwd=tmp_path))
    doc = json_of(result)  # the whole of stdout is one JSON document
    assert isinstance(doc, dict)
    seq = seq_and_heroes(db)[0]
    assert doc["campaign"] == DEMO_SLUG and doc["db"] == str(db) and doc["seq"] == seq
    assert doc["verify"] == "ok" and doc["checkpoint"]["seq"] == seq
    assert doc["refused"] > 0 and doc["recorded"] == seq - 1
    assert isinstance(doc["message"], str) and str(db) in doc["message"]
    assert "Try next" not in result.stdout and result.stderr == ""
    # run again over its own demo: still one document
    assert json_of(succeeded(run_ledger("--json", "demo", db=db, cwd=tmp_path)))["seq"] == seq


def test_json_demo_refusal_is_one_json_error(tmp_path):
    db = tmp_path / "x.db"
    succeeded(run_ledger("init", "--catalog", SAMPLE, "--name", "Demo", db=db))
    before = files(tmp_path)
    error = json_error(run_ledger("--json", "demo", db=db, cwd=tmp_path))
    assert str(db) in error["message"]
    assert files(tmp_path) == before


def test_a_demo_whose_reader_stops_early_is_recorded_whole(tmp_path):
    """A QA pass: `ledger demo | head -3` stopped the demo after its first action (the pipe
    closed under its narration), leaving a demo cut short that the next run refused. The
    whole demo is recorded before a line is printed."""
    import os
    import subprocess
    import sys

    db = tmp_path / "demo.db"
    env = {**os.environ, "LEDGER_DAEMON": "off"}
    proc = subprocess.Popen([sys.executable, "-m", "ledger", "--db", str(db), "demo"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stdout.read(20)  # a reader that stops early, as head does
    proc.stdout.close()
    proc.wait(60)
    assert seq_and_heroes(db)[0] == DEMO_ACTIONS + 1
    succeeded(run_ledger("demo", db=db))  # an untouched demo: played again over it
