"""``ledger export [FILE]`` and ``ledger import FILE [--db PATH]`` (CLI.md "History, replay, undo").

- export writes JSON Lines: one JSON object per action, with its seq, type and event,
  readable by a person (card ids in plain text); without FILE, to stdout;
- a round trip (export, import into another file) gives a campaign that verifies and
  shows the same zones (referee and public, now and ``--at`` earlier seqs) and history;
- a tampered export (a value changed, a line deleted, two lines swapped) is refused with
  exit 1 naming the bad seq; the target gets no campaign and no scratch file is left;
- the same campaign imported twice into one file is refused;
- a malformed file gets a one-line error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path

from .conftest import last_seq, one_error_line, run_ledger, succeeded

SAMPLE = str(sample_catalog_path())


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A campaign with trades, a refill, unseeded shuffles, undos and redos, hidden cards."""
    db = tmp_path_factory.mktemp("source") / "campaign.db"
    app = Ledger.open(db, create=True)
    try:
        cid = app.start(load_catalog(sample_catalog_path()), name="Exportada").campaign.id

        def do(command):
            return app.execute(cid, command)

        do(c.AddHero(hero="ana", name="Ana", knowledge=1))
        do(c.AddHero(hero="bo", name="Bo"))
        do(c.Add(cards=("item-bow", "item-shield", "skill-dodge"), to="discard"))
        do(c.Add(cards=("item-sword", "item-rope", "item-axe", "skill-stealth", "skill-quick-strike",
                        "companion-falcon"), to="inventory:ana"))
        do(c.Add(cards=("companion-wolf",), to="table:ana"))
        do(c.Add(cards=("skill-meditation", "skill-tracking", "skill-first-aid", "skill-persuade",
                        "skill-riposte"), to="deck:skill"))
        do(c.Add(cards=("item-dagger", "item-helm", "item-spear"), to="depot"))
        do(c.AddLocation(location="village", access={"item": 2, "skill": 1}))
        do(c.Travel(hero="ana", location="village"))
        do(c.Shuffle(stack="deck:skill"))
        do(c.Draw(actor="ana", stack="deck:item", count=2))  # refilled from the depot
        do(c.Trade(actor="ana", hero="ana", take=("item-bow", "skill-dodge"),
                   give=("item-sword", "item-rope", "skill-stealth", "skill-quick-strike"),
                   attach={"item-bow": "companion-wolf"}))
        do(c.Draw(actor="bo", stack="deck:skill"))
        do(c.Undo(keep_order=True))  # the master's decision, so that it may be redone
        do(c.Redo())
        do(c.Send(actor="ana", cards=("item-axe",), to="table:ana"))
        do(c.Attach(actor="ana", card="companion-falcon", host="item-axe"))
        do(c.Undo())
        bottom = app.campaign(cid).table.cards_in("deck:skill")[-1]  # the unseeded shuffle decided which
        do(c.Search(stack="deck:skill", take=(bottom,), to="inventory:bo"))
        do(c.Exhaust(cards=("companion-wolf",)))
        do(c.Undo(to=17))
        do(c.Shuffle(stack="deck:skill"))
    finally:
        app.close()
    assert run_ledger("verify", db=db).returncode == 0
    return db


@pytest.fixture(scope="module")
def exported(source, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("export") / "campaign.jsonl"
    result = run_ledger("export", str(path), db=source)
    assert result.returncode == 0, result.stderr
    return path


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_lines(path: Path, lines: list[dict]) -> None:
    path.write_text("".join(json.dumps(x, ensure_ascii=False, separators=(",", ":")) + "\n" for x in lines),
                    encoding="utf-8")


def refusal_line(result) -> str:
    """Exit 1 with one ``error:`` line (no traceback), a refusal and not a crash."""
    line = one_error_line(result)
    assert "unexpected" not in line, f"a refusal, not a crash: {line}"
    return line


def assert_no_campaign_and_no_scratch(target: Path) -> None:
    if target.exists():
        result = run_ledger("--json", "campaigns", db=target)
        assert result.returncode == 0 and json.loads(result.stdout) == [], result.stdout
    leftovers = [p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}")]
    assert leftovers == [], f"scratch files left next to {target.name}: {leftovers}"


# -- export ------------------------------------------------------------------------------
def test_export_writes_one_json_line_per_action_with_seq_type_and_event(source, exported):
    text = exported.read_text(encoding="utf-8")
    raw = text.splitlines()
    assert all(line.strip() for line in raw)
    lines = [json.loads(line) for line in raw]
    assert all(isinstance(line, dict) for line in lines)
    trailer = lines.pop()["trailer"]  # the last line: the count and head of what the file holds
    n = last_seq(source)
    assert trailer["count"] == n
    assert [line["seq"] for line in lines] == list(range(1, n + 1)), "one line per action, in seq order"
    for line in lines:
        assert {"seq", "type", "event"} <= set(line)
        assert isinstance(line["event"], dict)
    ledger = Ledger.open(source)
    try:
        cid = ledger.resolve(None)
        assert [line["type"] for line in lines] == [type(e).__name__ for e in ledger.actions(cid)]
    finally:
        ledger.close()
    assert lines[0]["type"] == "CampaignStarted"
    assert {"ActionUndone", "ActionRedone", "TradeCompleted"} <= {line["type"] for line in lines}


def test_an_export_is_readable_card_ids_in_plain_text(exported):
    text = exported.read_text(encoding="utf-8")
    trade = next(line for line in text.splitlines() if '"TradeCompleted"' in line)
    for card in ("item-bow", "skill-dodge", "item-sword", "companion-wolf"):
        assert f'"{card}"' in trade
    assert "Casa das Marés" in text, "names are written as they are, not escaped"


@pytest.mark.parametrize("args", [(), ("-",)], ids=["no file", "-"])
def test_export_without_file_or_to_dash_writes_the_same_lines_to_stdout(source, exported, args, tmp_path):
    """``-`` is stdout, as for most commands that write a file (found by a QA pass: it
    wrote a file named ``-``)."""
    result = run_ledger("export", *args, db=source, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == exported.read_text(encoding="utf-8")
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize("name", ["", " ", "sub/", "sub/."])
def test_export_to_a_name_that_names_no_file_is_refused_in_one_line(source, tmp_path, name):
    """Found by a QA pass: ``export ""`` failed with "unexpected failure (ValueError)", and
    ``export sub/`` wrote a file named ``sub``."""
    result = run_ledger("export", name, db=source, cwd=tmp_path)
    assert "names no file to write" in one_error_line(result), result.stderr
    assert list(tmp_path.iterdir()) == []


# -- round trip ---------------------------------------------------------------------------
def test_an_export_saved_with_a_byte_order_mark_imports(source, exported, tmp_path):
    """Found by a QA pass: an export an editor saved with a UTF-8 byte-order mark first was
    refused as "line 1: not an exported action"; the mark is no part of it."""
    marked = tmp_path / "marked.jsonl"
    marked.write_bytes(b"\xef\xbb\xbf" + exported.read_bytes())
    succeeded(run_ledger("import", str(marked), db=tmp_path / "other.db"))
    assert last_seq(tmp_path / "other.db") == last_seq(source)


def test_an_imported_export_verifies_and_shows_the_same_zones_and_history(source, exported, tmp_path):
    other = tmp_path / "other.db"
    result = run_ledger("import", str(exported), "--db", str(other), db=tmp_path / "unused.db")
    assert result.returncode == 0, result.stderr
    assert not (tmp_path / "unused.db").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".other.db")] == []
    check = run_ledger("verify", db=other)
    assert check.returncode == 0 and "ok" in check.stdout.lower(), check.stderr

    n = last_seq(source)
    assert last_seq(other) == n
    for viewer in ("referee", "public"):
        for at in (None, 3, n // 2, n - 1):
            args = ["--as", viewer, "--json", "zones"] + ([] if at is None else ["--at", str(at)])
            mine, theirs = run_ledger(*args, db=source), run_ledger(*args, db=other)
            assert mine.returncode == theirs.returncode == 0, (mine.stderr, theirs.stderr)
            assert json.loads(mine.stdout) == json.loads(theirs.stdout), f"zones differ for {viewer} at {at}"
        mine = run_ledger("--as", viewer, "--json", "history", db=source)
        theirs = run_ledger("--as", viewer, "--json", "history", db=other)
        assert mine.returncode == theirs.returncode == 0
        assert json.loads(mine.stdout) == json.loads(theirs.stdout), f"history differs for {viewer}"
        assert any(row["undone_by"] for row in json.loads(theirs.stdout))
    # and it exports to the very same lines
    assert run_ledger("export", db=other).stdout == exported.read_text(encoding="utf-8")


# -- tampered exports --------------------------------------------------------------------
def changed_value(lines: list[dict]) -> int:
    line = next(x for x in lines if x["type"] == "CardsDrawn")
    line["event"]["changes"][0]["now"]["index"] += 1
    return line["seq"]


def changed_card(lines: list[dict]) -> int:
    line = next(x for x in lines if x["type"] == "TradeCompleted")
    text = json.dumps(line["event"]).replace('"item-bow"', '"item-amulet"')
    line["event"] = json.loads(text)
    return line["seq"]


def deleted_line(lines: list[dict]) -> int:
    seq = len(lines) // 2
    del lines[seq - 1]
    return seq


def swapped_lines(lines: list[dict]) -> int:
    i, j = 6, 11
    lines[i - 1], lines[j - 1] = lines[j - 1], lines[i - 1]
    return i


def swapped_events(lines: list[dict]) -> int:
    """Two lines trade their events; each keeps its seq."""
    i, j = 6, 11
    lines[i - 1]["event"], lines[j - 1]["event"] = lines[j - 1]["event"], lines[i - 1]["event"]
    lines[i - 1]["type"], lines[j - 1]["type"] = lines[j - 1]["type"], lines[i - 1]["type"]
    lines[i - 1]["topic"], lines[j - 1]["topic"] = lines[j - 1]["topic"], lines[i - 1]["topic"]
    return i


def duplicated_line(lines: list[dict]) -> int:
    """An action recorded twice: line 11 repeats seq 10."""
    lines.insert(10, json.loads(json.dumps(lines[9])))
    return 10


TAMPERINGS = [changed_value, changed_card, deleted_line, swapped_lines, swapped_events, duplicated_line]


@pytest.mark.parametrize("tamper", TAMPERINGS, ids=[t.__name__.replace("_", "-") for t in TAMPERINGS])
def test_a_tampered_export_is_refused_naming_the_bad_seq_and_the_target_gets_nothing(exported, tmp_path, tamper):
    lines = lines_of(exported)
    bad = tamper(lines)
    tampered = tmp_path / "tampered.jsonl"
    write_lines(tampered, lines)
    target = tmp_path / "other.db"
    result = run_ledger("import", str(tampered), "--db", str(target))
    assert result.returncode == 1, (result.stdout, result.stderr)
    line = refusal_line(result)
    named = {int(n) for n in re.findall(r"\bseq\b\D{0,3}(\d+)", line)}
    expected = {bad, bad + 1} if tamper is duplicated_line else {bad}  # the repeated seq, or the one displaced
    assert named & expected, f"seq {bad} not named: {line}"
    assert_no_campaign_and_no_scratch(target)


def test_a_tampered_export_leaves_a_target_that_holds_another_campaign_as_it_was(exported, tmp_path):
    target = tmp_path / "other.db"
    assert run_ledger("init", "--catalog", SAMPLE, "--name", "Outra", db=target).returncode == 0
    before = run_ledger("--json", "campaigns", db=target).stdout
    lines = lines_of(exported)
    bad = changed_value(lines)
    tampered = tmp_path / "tampered.jsonl"
    write_lines(tampered, lines)
    result = run_ledger("import", str(tampered), "--db", str(target))
    assert result.returncode == 1
    assert f"seq {bad}" in refusal_line(result)
    assert run_ledger("--json", "campaigns", db=target).stdout == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".other.db")] == []


def test_importing_the_same_campaign_twice_into_one_file_is_refused(exported, tmp_path):
    target = tmp_path / "other.db"
    assert run_ledger("import", str(exported), "--db", str(target)).returncode == 0
    history = run_ledger("--json", "history", db=target).stdout
    result = run_ledger("import", str(exported), "--db", str(target))
    assert result.returncode == 1
    refusal_line(result)
    campaigns = json.loads(run_ledger("--json", "campaigns", db=target).stdout)
    assert len(campaigns) == 1
    assert run_ledger("--json", "history", db=target).stdout == history, "the refused import appended something"
    assert run_ledger("verify", db=target).returncode == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".other.db")] == []


# -- malformed files ----------------------------------------------------------------------
MALFORMED = {
    "not-json": "this is not an export\n",
    "empty": "",
    "blank-lines": "\n\n",
    "missing-event": json.dumps({"campaign_id": "3a50d153-850f-5175-b625-2fd7afa49da0", "seq": 1,
                                 "type": "CampaignStarted", "topic": "ledger.events:CampaignStarted"}) + "\n",
    "missing-seq": json.dumps({"campaign_id": "3a50d153-850f-5175-b625-2fd7afa49da0", "type": "CampaignStarted",
                               "topic": "ledger.events:CampaignStarted", "event": {}}) + "\n",
    "a-list": "[1, 2, 3]\n",
    "truncated-line": '{"campaign_id": "3a50d153-850f-5175-b625-2fd7afa49da0", "seq": 1, "eve\n',
}


@pytest.mark.parametrize("content", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_file_gets_a_one_line_error(tmp_path, content):
    path = tmp_path / "export.jsonl"
    path.write_text(content, encoding="utf-8")
    target = tmp_path / "other.db"
    result = run_ledger("import", str(path), "--db", str(target))
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "export.jsonl" in refusal_line(result), "the message names the file"
    assert_no_campaign_and_no_scratch(target)


def test_a_missing_export_file_gets_a_one_line_error(tmp_path):
    result = run_ledger("import", str(tmp_path / "nowhere.jsonl"), "--db", str(tmp_path / "other.db"))
    assert result.returncode == 1
    assert "nowhere.jsonl" in refusal_line(result)
    assert_no_campaign_and_no_scratch(tmp_path / "other.db")


# -- an imported campaign is as cheap to use as the original --------------------------------------
def test_an_imported_long_campaign_undoes_reading_a_bounded_number_of_events(tmp_path, sample_catalog):
    """README: undo "costs the same at a million events as at a thousand" -- for an imported
    campaign too, not only for the file it was exported from."""
    source = tmp_path / "long.db"
    app = Ledger.open(source, create=True)
    try:
        cid = app.start(sample_catalog, name="Longa").campaign.id
        app.execute(cid, c.AddHero(hero="ana"))
        app.execute(cid, c.Add(cards=("item-sword", "item-bow", "item-rope"), to="deck:item"))
        for i in range(175):
            app.execute(cid, c.Reveal(cards=("item-sword",)))
            app.execute(cid, c.Hide(cards=("item-sword",)))
        last = app.last_seq(cid)
    finally:
        app.close()
    path = tmp_path / "long.jsonl"
    assert run_ledger("export", str(path), db=source).returncode == 0
    imported = tmp_path / "imported.db"
    result = run_ledger("import", str(path), "--db", str(imported))
    assert result.returncode == 0, result.stderr

    read = {}
    for db in (source, imported):
        fresh = Ledger.open(db)
        try:
            counts: list[int] = []
            original = fresh.recorder.select_events

            def counting(*args, _original=original, _counts=counts, **kwargs):
                rows = _original(*args, **kwargs)
                _counts.append(len(rows))
                return rows

            fresh.recorder.select_events = counting  # type: ignore[method-assign]
            assert fresh.execute(cid, c.Undo()).event.targets == (last,)
        finally:
            fresh.close()
        read[db.name] = sum(counts)
    bound = Ledger.SNAPSHOT_INTERVAL + 5
    assert read["long.db"] <= bound
    assert read["imported.db"] <= bound, f"events read by one undo: {read} (bound {bound}; the log holds {last})"


def test_an_action_edited_before_the_latest_snapshot_stops_every_export(tmp_path):
    """Found by a QA pass: a load checks only the actions after the snapshot it starts
    from, and an export read the rest unchecked: an old action edited in the file without
    its hash went out to players (their exports), and under the master's signed trailer.
    Every export reads every action, so each is checked against the chain on the way."""
    import sqlite3

    db = tmp_path / "long.db"
    assert run_ledger("simulate", "--actions", "250", "--seed", "3", db=db).returncode == 0
    with sqlite3.connect(db) as con:
        rowid, state = con.execute("SELECT rowid, state FROM stored_events WHERE topic LIKE 'ledger.events:%' "
                                   "AND originator_version = 50").fetchone()
        data = json.loads(bytes(state))
        data["actor"] = "master" if data["actor"] != "master" else "hero1"
        con.execute("UPDATE stored_events SET state = ? WHERE rowid = ?",
                    [json.dumps(data, separators=(",", ":")).encode(), rowid])
    con.close()
    assert run_ledger("zones", db=db).returncode == 0  # a load from the latest snapshot does not read it
    for viewer in ("referee", "public", "hero1"):
        out = tmp_path / f"{viewer}.jsonl"
        line = refusal_line(run_ledger("--as", viewer, "export", str(out), db=db))
        assert "the record at seq 50 does not match its hash" in line, line
        assert not out.exists() and not list(tmp_path.glob(f"*{viewer}.jsonl*")), "a partial export was left"
    stdout = run_ledger("export", db=db)
    assert stdout.returncode == 1 and '"trailer"' not in stdout.stdout


# -- export never writes over a database ----------------------------------------------------
def _file_state(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.parametrize("name", ["g.db", "g.db-wal", "g.db-shm", "g.db-journal", "./g.db", "{absolute}"])
def test_export_refuses_to_write_over_the_campaign_database_or_its_wal_and_shm_files(tmp_path, name):
    assert run_ledger("init", "--catalog", SAMPLE, "--name", "Guardada", db=tmp_path / "g.db").returncode == 0
    before = _file_state(tmp_path)
    result = run_ledger("export", name.format(absolute=tmp_path / "g.db"), db="g.db", cwd=tmp_path)
    assert "campaign database" in refusal_line(result)
    assert _file_state(tmp_path) == before, "a refused export touched the files"
    assert run_ledger("verify", db=tmp_path / "g.db").returncode == 0


def test_export_refuses_to_write_over_another_sqlite_database(source, tmp_path):
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    connection.close()
    before = other.read_bytes()
    result = run_ledger("export", str(other), db=source)
    assert "SQLite database" in refusal_line(result)
    assert other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"], "no partial file left"
    plain = tmp_path / "old.jsonl"  # an older export is replaced
    assert run_ledger("export", str(plain), db=source).returncode == 0
    assert run_ledger("export", str(plain), db=source).returncode == 0
    assert lines_of(plain)[-1].keys() == {"trailer"}


@pytest.mark.parametrize("viewer", ["referee", "ana"])
def test_export_replaces_an_earlier_export_or_an_empty_file_but_no_other_file_without_force(source, tmp_path,
                                                                                             viewer):
    """A QA pass: `ledger export cards.toml` (a slip of the tab key) replaced the catalog."""
    earlier = tmp_path / "earlier.jsonl"
    assert run_ledger("--as", viewer, "export", str(earlier), db=source).returncode == 0
    assert run_ledger("--as", viewer, "export", str(earlier), db=source).returncode == 0
    empty = tmp_path / "empty.jsonl"
    for blank in (b"", b"\n", b" \r\n"):  # (a newline an editor left: as empty, a review)
        empty.write_bytes(blank)
        assert run_ledger("--as", viewer, "export", str(empty), db=source).returncode == 0
    catalog = tmp_path / "cards.toml"
    catalog.write_text('[[cards]]\nid = "item-sword"\n', encoding="utf-8")
    before = catalog.read_bytes()
    result = run_ledger("--as", viewer, "export", str(catalog), db=source)
    assert "holds something other than an export" in refusal_line(result) and "--force" in refusal_line(result)
    assert catalog.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cards.toml", "earlier.jsonl", "empty.jsonl"]
    assert run_ledger("--as", viewer, "export", "--force", str(catalog), db=source).returncode == 0
    assert lines_of(catalog)[-1].keys() == {"trailer"}


def test_a_viewers_export_does_not_replace_the_referees_without_force(source, tmp_path):
    """A review: `--as ana export full.jsonl` replaced the one export that can be imported."""
    full = tmp_path / "full.jsonl"
    assert run_ledger("export", str(full), db=source).returncode == 0
    before = full.read_bytes()
    for viewer in ("ana", "public"):
        line = refusal_line(run_ledger("--as", viewer, "export", str(full), db=source))
        assert "the referee's export" in line and "--force" in line, line
        assert full.read_bytes() == before
    assert run_ledger("--as", "master", "export", str(full), db=source).returncode == 0  # the referee's again
    assert run_ledger("--as", "ana", "export", "--force", str(full), db=source).returncode == 0
    assert json.loads(full.read_text(encoding="utf-8").splitlines()[0]).keys() == {"export"}


def test_a_cut_export_whose_trailer_was_rewritten_is_told_apart_only_by_a_signature(source, tmp_path):
    """Found by a QA pass: README said the trailer catches an export cut short, but its
    head is the last kept line's own hash, so a rewritten trailer matches. A plain
    import says in a note that nothing vouched for the end; --signed-by refuses the cut."""
    key = {"LEDGER_KEY": str(tmp_path / "master.pem")}
    public = json.loads(run_ledger("--json", "keys", "init", env=key).stdout)["public"]
    signed = tmp_path / "signed.jsonl"
    assert run_ledger("export", str(signed), db=source, env=key).returncode == 0
    lines = lines_of(signed)
    kept = lines[:-3]
    cut = tmp_path / "cut.jsonl"
    write_lines(cut, [*kept, {"trailer": {"count": kept[-1]["seq"], "head": kept[-1]["event"]["hash"]}}])
    plain = run_ledger("import", str(cut), "--db", str(tmp_path / "plain.db"))
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr.startswith("note: nothing you trust vouched for where this export ends") \
        and "--signed-by" in plain.stderr, plain.stderr
    target = tmp_path / "checked.db"
    line = refusal_line(run_ledger("import", str(cut), "--db", str(target), "--signed-by", public))
    assert "not signed by the key you trust" in line, line
    assert_no_campaign_and_no_scratch(target)
    whole = run_ledger("import", str(signed), "--db", str(tmp_path / "whole.db"), "--signed-by", public)
    assert whole.returncode == 0 and whole.stderr == "", whole.stderr


# -- --signed-by "" is not "no check" ---------------------------------------------------------
@pytest.mark.parametrize("value", ["", "  "], ids=["empty", "blank"])
@pytest.mark.parametrize("command", ["verify", "import"])
def test_an_empty_signed_by_is_refused_rather_than_turning_the_signature_check_off(source, exported, tmp_path,
                                                                                  command, value):
    target = tmp_path / "other.db"
    args = ("verify",) if command == "verify" else ("import", str(exported), "--db", str(target))
    result = run_ledger(*args, "--signed-by", value, db=source)
    assert "public key" in refusal_line(result)
    assert_no_campaign_and_no_scratch(target)


# -- crafted lines are malformed lines, not crashes ----------------------------------------------
CRAFTED = {
    "nested-too-deep": "[" * 200_000,
    "seq-beyond-any-number": '{"campaign_id":"3a50d153-850f-5175-b625-2fd7afa49da0","seq":1e400,'
                             '"type":"CampaignStarted","topic":"ledger.events:CampaignStarted","event":{}}',
    "seq-not-a-whole-number": '{"campaign_id":"3a50d153-850f-5175-b625-2fd7afa49da0","seq":2.5,'
                              '"type":"CampaignStarted","topic":"ledger.events:CampaignStarted","event":{}}',
    "campaign-id-a-number": '{"campaign_id":3,"seq":2,"type":"CampaignStarted",'
                            '"topic":"ledger.events:CampaignStarted","event":{}}',
}


@pytest.mark.parametrize("crafted", CRAFTED.values(), ids=CRAFTED.keys())
def test_a_crafted_line_is_refused_like_any_malformed_line_naming_it(exported, tmp_path, crafted):
    first = exported.read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "export.jsonl"
    path.write_text(f"{first}\n{crafted}\n", encoding="utf-8")
    target = tmp_path / "other.db"
    result = run_ledger("import", str(path), "--db", str(target))
    assert "export.jsonl line 2: not an exported action" in refusal_line(result)
    assert_no_campaign_and_no_scratch(target)


def test_export_into_a_pipe_writes_the_export_and_does_not_hang(source, tmp_path):
    """``ledger export >(gzip > x.gz)`` names a pipe: the check that the target is no
    SQLite database must not read from it (it blocked for ever)."""
    import os
    import subprocess
    import sys

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    done = subprocess.run([sys.executable, "-m", "ledger", "--db", str(source), "export", str(fifo)],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "LEDGER_DAEMON": "off"})
    out, _ = reader.communicate(timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.decode().splitlines()[0])["seq"] == 1


@pytest.mark.parametrize("content", ["lone-surrogate", "endless-line"])
def test_an_import_of_a_line_no_export_holds_is_one_error_line(exported, tmp_path, content):
    from ledger import transfer

    bad = tmp_path / "bad.jsonl"
    lines = exported.read_text(encoding="utf-8").splitlines(keepends=True)
    if content == "lone-surrogate":  # valid JSON, which no UTF-8 text can hold
        lines[1] = lines[1].replace('"actor":"master"', '"actor":"\\ud800"', 1)
        assert "\\ud800" in lines[1]
        bad.write_text("".join(lines), encoding="utf-8")
        expected = "line 2"
    else:
        bad.write_text(lines[0] + "x" * (transfer.LONGEST_LINE + 10), encoding="utf-8")
        expected = "longer than any exported action"
    line = one_error_line(run_ledger("import", str(bad), db=tmp_path / "target.db"))
    assert expected in line and "unexpected" not in line, line
    assert not (tmp_path / "target.db").exists()


def test_export_to_a_link_to_stdout_writes_through_it_and_keeps_its_summary_off_the_export(source, tmp_path):
    """``ledger export /dev/stdout > x.jsonl``: /dev/stdout is a link (to the file stdout
    was sent to); the export is written through it, never renamed over it (as root that
    replaced the device's link), and its summary line does not follow the trailer."""
    import os
    import subprocess
    import sys

    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    out = tmp_path / "x.jsonl"
    with out.open("w") as sink:
        done = subprocess.run([sys.executable, "-m", "ledger", "--db", str(source), "--json", "export", str(link)],
                              stdout=sink, stderr=subprocess.PIPE, text=True, timeout=60,
                              env={**os.environ, "LEDGER_DAEMON": "off"})
    assert done.returncode == 0, done.stderr
    assert link.is_symlink()
    assert "trailer" in lines_of(out)[-1] and "exported" in done.stderr
    assert run_ledger("import", str(out), db=tmp_path / "copy.db").returncode == 0
