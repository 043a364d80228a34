"""``ledger verify`` (CLI.md "History, replay, undo"; README "a record you can trust").

A campaign with trades, a refill, shuffles without seeds, undos and redos is played once
through the real ``ledger`` command. Intact, ``verify`` exits 0 and says ok. Then a copy
of the database is tampered with directly (raw SQL on the stored events: ``sqlite3`` on the
file's ``stored_events``, or on PostgreSQL the schema's ``ledger_events``) and
``verify`` must exit 1 naming the first bad seq on its one ``error:`` line, and in
``--json`` as ``{"ok": false, "bad_seq": N}``; ``ledger.audit.verify`` says the same.

Some tamperings also recompute the hash chain after the change ("resealed"), as a
forger who read the code would: only deciding every action again can catch those.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import commands as c
from ledger.application import Ledger
from ledger.audit import Report, verify
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.integrity import sealed, sorted_json

from .conftest import copy_db, fresh_db, raw_events, run_ledger

SAMPLE = str(sample_catalog_path())

pytestmark = pytest.mark.both_stores

PLAY = [
    ["init", "--catalog", SAMPLE, "--name", "Verificada"],
    ["hero", "add", "ana", "--knowledge", "1"],
    ["hero", "add", "bo"],
    ["add", "item-bow", "item-shield", "skill-dodge", "--to", "discard"],
    ["add", "item-sword", "item-rope", "item-axe", "skill-stealth", "skill-quick-strike", "companion-falcon",
     "--to", "inventory:ana"],
    ["add", "companion-wolf", "--to", "table:ana"],
    ["add", "event-festival", "--to", "scenario"],
    ["add", "skill-meditation", "skill-tracking", "skill-first-aid", "skill-persuade", "skill-riposte",
     "skill-war-cry", "skill-true-shot", "skill-blessing", "--to", "deck:skill"],
    ["add", "item-dagger", "item-helm", "item-spear", "--to", "depot"],
    ["location", "add", "village", "--access", "item=2", "--access", "skill=1"],
    ["travel", "ana", "village"],
    ["shuffle", "deck:skill"],                                   # no seed
    ["--actor", "ana", "draw", "deck:item", "--count", "2"],     # empty deck: refilled from the depot, no seed
    ["--actor", "ana", "trade", "ana", "--take", "item-bow", "skill-dodge", "--give", "item-sword", "item-rope",
     "skill-stealth", "skill-quick-strike", "--attach", "item-bow=companion-wolf"],
    ["search", "deck:skill", "--take", "skill-tracking", "--to", "inventory:ana"],  # reshuffled, no seed
    ["undo", "--keep-order"],                                    # the master's decision: it may be redone
    ["redo"],
    ["--actor", "ana", "send", "item-axe", "--to", "table:ana", "--face", "down"],  # shows no one a hidden card
    ["--actor", "ana", "attach", "companion-falcon", "--to", "item-axe"],
    ["undo"],
    ["--actor", "ana", "undo"],                                  # a hero takes back her own send
    ["battle", "start"],
    ["access", "village", "item", "1", "--by", "event-festival"],
    ["battle", "end"],
    ["--actor", "ana", "send", "item-axe", "--to", "table:ana"],
    ["undo", "--to", "22"],
    ["shuffle", "deck:skill"],                                   # no seed
    ["--actor", "bo", "draw", "deck:skill"],
    ["discard", "skill-first-aid"],
]


class Played:
    def __init__(self, db: Path | str, seqs: dict[str, list[int]], last: int, cid: UUID):
        self.db, self.seqs, self.last, self.cid = db, seqs, last, cid


@pytest.fixture(scope="module")
def played(store, tmp_path_factory) -> Iterator[Played]:
    with fresh_db(store, tmp_path_factory.mktemp("played")) as db:
        yield play(db)


def play(db: Path | str) -> Played:
    seqs: dict[str, list[int]] = {}
    for args in PLAY:
        result = run_ledger("--json", *args, db=db)
        assert result.returncode == 0, (args, result.stderr)
        out = json.loads(result.stdout)
        seqs.setdefault(out["action"], []).append(out["seq"])
    ledger = Ledger.open(db)
    try:
        cid = ledger.resolve(None)
        last = ledger.last_seq(cid)
        # an unseeded shuffle of 8 cards keeps their order once in 40320 times: tamper with one that did not
        seqs["shuffle"] = [seq for seq in seqs["shuffle"] if ledger.event(cid, seq).changes]
        assert seqs["shuffle"], "both unseeded shuffles left the deck in order"
        assert ledger.event(cid, seqs["draw"][0]).refills, "the first draw should refill deck:item"
    finally:
        ledger.close()
    assert last == len(PLAY)
    return Played(db, seqs, last, cid)


@pytest.fixture
def copy(played, tmp_path) -> Path | str:
    """A copy of the played campaign's database, to tamper with."""
    return copy_db(played.db, tmp_path)


# -- raw tampering (tests/conftest.py ``raw_events``: the SQLite file, or the PostgreSQL schema) ----
def _ids(cid: UUID) -> list[str]:
    return [cid.hex, str(cid)]


def read_state(db: Path | str, cid: UUID, seq: int) -> bytes:
    with raw_events(db) as run:
        row = run("SELECT state FROM stored_events WHERE originator_id IN (?, ?) AND originator_version = ?",
                  [*_ids(cid), seq]).fetchone()
    assert row is not None, f"no stored row for seq {seq}"
    return bytes(row[0])


def write_state(db: Path | str, cid: UUID, seq: int, state: bytes) -> None:
    with raw_events(db) as run:
        n = run("UPDATE stored_events SET state = ? WHERE originator_id IN (?, ?) AND originator_version = ?",
                [state, *_ids(cid), seq]).rowcount
    assert n == 1


def stored_id(run, cid: UUID):
    """The originator id as the store holds it (SQLite: text; PostgreSQL: a uuid)."""
    return run("SELECT originator_id FROM stored_events WHERE originator_id IN (?, ?) LIMIT 1", _ids(cid)).fetchone()[0]


def dumps(data) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def reseal_from(db: Path | str, cid: UUID, seq: int) -> None:
    """Recomputes the hash of ``seq`` and of every later action, as a careful forger would."""
    ledger = Ledger.open(db)
    try:
        stored = ledger.recorder.select_events(cid)
        events = [ledger.mapper.to_domain_event(s) for s in stored]
        previous = events[seq - 2].hash
        rewritten = []
        for event in events[seq - 1:]:
            event = sealed(previous, event)
            previous = event.hash
            rewritten.append(event)
    finally:
        ledger.close()
    for event in rewritten:
        state = json.loads(read_state(db, cid, event.seq))
        state["hash"] = event.hash
        write_state(db, cid, event.seq, dumps(state))


def bump_digit(state: bytes, after: bytes) -> bytes:
    """Changes the first digit that follows ``after`` (JSON stays valid)."""
    at = state.index(after) + len(after)
    assert chr(state[at]).isdigit(), state[at - 20: at + 20]
    new = str((int(chr(state[at])) + 1) % 10).encode()
    return state[:at] + new + state[at + 1:]


# -- the tamperings: each returns the seq it touched first ---------------------------------
def digit_in_a_value(db: Path | str, p: Played) -> int:
    seq = p.seqs["draw"][0]  # the draw that refilled the deck, in the middle of the log
    state = read_state(db, p.cid, seq)
    changed = bump_digit(state, b'"index":')
    json.loads(changed)
    assert len(changed) == len(state) and changed != state
    write_state(db, p.cid, seq, changed)
    return seq


def digit_in_the_timestamp(db: Path | str, p: Played) -> int:
    """Only the hash chain can tell: deciding the action again reuses the recorded time."""
    seq = p.last // 2
    write_state(db, p.cid, seq, bump_digit(read_state(db, p.cid, seq), b'"timestamp":"20'))
    return seq


def digit_in_the_recorded_seed(db: Path | str, p: Played) -> int:
    seq = p.seqs["shuffle"][0]
    write_state(db, p.cid, seq, bump_digit(read_state(db, p.cid, seq), b'"rng":'))
    return seq


def _count_in_the_command(db: Path | str, p: Played, written: bytes) -> int:
    """Bo's draw's recorded command says ``"count":1``; written as ``written`` it reads as an
    equal Python value (1 == 1.0 == True), so deciding the command again gives back an
    equal event: only the hash of what is stored can tell."""
    seq = p.seqs["draw"][-1]
    state = read_state(db, p.cid, seq)
    stored = json.loads(state)
    assert stored["command"]["count"] == 1 and state.count(b'"count":1') == 2, stored["command"]  # event, command
    at = state.index(b'"count":1', state.index(b'"command":'))
    write_state(db, p.cid, seq, state[:at] + b'"count":' + written + state[at + len(b'"count":1'):])
    assert json.loads(read_state(db, p.cid, seq))["command"]["count"] == 1
    return seq


def whole_number_in_the_command_written_as_a_float(db: Path | str, p: Played) -> int:
    return _count_in_the_command(db, p, b"1.0")


def whole_number_in_the_command_written_as_true(db: Path | str, p: Played) -> int:
    return _count_in_the_command(db, p, b"true")


def byte_breaking_the_json(db: Path | str, p: Played) -> int:
    seq = p.last // 2
    state = read_state(db, p.cid, seq)
    at = state.index(b'"actor":') + len(b'"actor"')
    broken = state[:at] + b";" + state[at + 1:]  # "actor";"master"
    with pytest.raises(ValueError):
        json.loads(broken)
    write_state(db, p.cid, seq, broken)
    return seq


def deleted_row(db: Path | str, p: Played) -> int:
    seq = p.last // 2
    with raw_events(db) as run:
        assert run("DELETE FROM stored_events WHERE originator_id IN (?, ?) AND originator_version = ?",
                   [*_ids(p.cid), seq]).rowcount == 1
    return seq


def deleted_row_renumbered(db: Path | str, p: Played) -> int:
    """A row deleted and the later versions moved down, so that no seq is missing."""
    seq = p.last // 2
    with raw_events(db) as run:
        run("DELETE FROM stored_events WHERE originator_id IN (?, ?) AND originator_version = ?", [*_ids(p.cid), seq])
        for version in range(seq + 1, p.last + 1):
            run("UPDATE stored_events SET originator_version = ? WHERE originator_id IN (?, ?) "
                "AND originator_version = ?", [version - 1, *_ids(p.cid), version])
    return seq


def swapped_states(db: Path | str, p: Played) -> int:
    first, second = p.seqs["trade"][0], p.seqs["trade"][0] + 3
    a, b = read_state(db, p.cid, first), read_state(db, p.cid, second)
    write_state(db, p.cid, first, b)
    write_state(db, p.cid, second, a)
    return first


def _forged_from(db: Path | str, p: Played, seq: int) -> bytes:
    state = read_state(db, p.cid, seq)
    assert b"item-sword" in state
    return state.replace(b"item-sword", b"item-amulet")


def forged_row_at_the_end(db: Path | str, p: Played) -> int:
    forged = _forged_from(db, p, p.seqs["trade"][0])
    with raw_events(db) as run:
        topic = run("SELECT topic FROM stored_events WHERE originator_id IN (?, ?) AND originator_version = ?",
                    [*_ids(p.cid), p.seqs["trade"][0]]).fetchone()[0]
        run("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
            [stored_id(run, p.cid), p.last + 1, topic, forged])
    return p.last + 1


def forged_row_renumbered_in(db: Path | str, p: Played) -> int:
    """Versions after the trade move up by one; a copy of the trade (another card) takes the gap."""
    seq = p.seqs["trade"][0]
    forged = _forged_from(db, p, seq)
    with raw_events(db) as run:
        for version in range(p.last, seq, -1):
            run("UPDATE stored_events SET originator_version = ? WHERE originator_id IN (?, ?) "
                "AND originator_version = ?", [version + 1, *_ids(p.cid), version])
        topic = run("SELECT topic FROM stored_events WHERE originator_id IN (?, ?) AND originator_version = ?",
                    [*_ids(p.cid), seq]).fetchone()[0]
        run("INSERT INTO stored_events (originator_id, originator_version, topic, state) VALUES (?, ?, ?, ?)",
            [stored_id(run, p.cid), seq + 1, topic, forged])
    return seq + 1


def _shuffle_order_changed(db: Path | str, p: Played) -> int:
    seq = p.seqs["shuffle"][0]
    state = json.loads(read_state(db, p.cid, seq))
    (order,) = [ch for ch in state["changes"] if ch["kind"] == "order"]
    order["now"][0], order["now"][-1] = order["now"][-1], order["now"][0]
    write_state(db, p.cid, seq, dumps(state))
    return seq


def shuffle_order(db: Path | str, p: Played) -> int:
    return _shuffle_order_changed(db, p)


def shuffle_order_resealed(db: Path | str, p: Played) -> int:
    seq = _shuffle_order_changed(db, p)
    reseal_from(db, p.cid, seq)
    return seq


def shuffle_seed_resealed(db: Path | str, p: Played) -> int:
    """Another seed recorded for an unseeded shuffle: its recorded order no longer follows."""
    seq = p.seqs["shuffle"][0]
    state = json.loads(read_state(db, p.cid, seq))
    state["rng"] += 1
    write_state(db, p.cid, seq, dumps(state))
    reseal_from(db, p.cid, seq)
    return seq


def _settlement_changed(db: Path | str, p: Played) -> int:
    seq = p.seqs["trade"][0]
    state = json.loads(read_state(db, p.cid, seq))
    assert state["settlement"], state
    state["settlement"][0]["give"] += 10
    write_state(db, p.cid, seq, dumps(state))
    return seq


def trade_settlement(db: Path | str, p: Played) -> int:
    return _settlement_changed(db, p)


def trade_settlement_resealed(db: Path | str, p: Played) -> int:
    seq = _settlement_changed(db, p)
    reseal_from(db, p.cid, seq)
    return seq


def trade_card_resealed(db: Path | str, p: Played) -> int:
    """The recorded trade now takes a card it did not (its changes and parameters agree)."""
    seq = p.seqs["trade"][0]
    state = read_state(db, p.cid, seq).replace(b"skill-dodge", b"skill-blessing")
    write_state(db, p.cid, seq, state)
    reseal_from(db, p.cid, seq)
    return seq


TAMPERINGS = [
    digit_in_a_value, digit_in_the_timestamp, digit_in_the_recorded_seed, whole_number_in_the_command_written_as_a_float,
    whole_number_in_the_command_written_as_true, byte_breaking_the_json, deleted_row,
    deleted_row_renumbered, swapped_states,
    forged_row_at_the_end, forged_row_renumbered_in, shuffle_order, shuffle_order_resealed,
    shuffle_seed_resealed, trade_settlement, trade_settlement_resealed, trade_card_resealed,
]


# -- the tests ----------------------------------------------------------------------------
def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip()]


def seqs_named(line: str) -> set[int]:
    return {int(n) for n in re.findall(r"\bseq\b\D{0,3}(\d+)", line)}


def test_verify_says_ok_for_an_intact_campaign_with_trades_refills_unseeded_shuffles_undos_and_redos(played, copy):
    result = run_ledger("verify", db=copy)
    assert result.returncode == 0, result.stderr
    assert "ok" in result.stdout.lower()
    assert result.stderr.strip() == ""
    result = run_ledger("--json", "verify", db=copy)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["bad_seq"] is None
    assert report["actions"] == played.last


def test_verify_in_python_returns_an_ok_report_for_an_intact_campaign(played, copy):
    ledger = Ledger.open(copy)
    try:
        report = verify(ledger, played.cid)
    finally:
        ledger.close()
    assert isinstance(report, Report)
    assert report.ok and report.bad_seq is None and report.actions == played.last


@pytest.mark.parametrize("tamper", TAMPERINGS, ids=[t.__name__.replace("_", "-") for t in TAMPERINGS])
def test_verify_exits_1_naming_the_first_seq_touched(played, copy, tamper):
    bad = tamper(copy, played)
    result = run_ledger("verify", db=copy)
    assert result.returncode == 1, (result.stdout, result.stderr)
    lines = error_lines(result.stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert seqs_named(lines[0]) == {bad}, f"expected seq {bad} named: {lines[0]}"
    result = run_ledger("--json", "verify", db=copy)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False and report["bad_seq"] == bad, report


@pytest.mark.parametrize("tamper", [digit_in_a_value, deleted_row, shuffle_order_resealed, trade_settlement_resealed],
                         ids=lambda t: t.__name__.replace("_", "-"))
def test_verify_in_python_returns_a_report_with_the_first_bad_seq(played, copy, tamper):
    bad = tamper(copy, played)
    ledger = Ledger.open(copy)
    try:
        report = verify(ledger, played.cid)
    finally:
        ledger.close()
    assert isinstance(report, Report)
    assert report.ok is False and report.bad_seq == bad, report
    assert report.as_dict()["ok"] is False and report.as_dict()["bad_seq"] == bad


# -- the bytes the chain hashes --------------------------------------------------------
_JSON_LEAF = (st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text()
              | st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([1e16, 1e-05, 1e-7, -0.0, 1e300]))
_JSON = st.recursive(_JSON_LEAF, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                     max_leaves=24)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(), _JSON, max_size=6))
def test_the_hashed_bytes_are_the_sorted_json_the_chain_always_hashed(data):
    """``sorted_json`` (msgspec) writes exactly what ``json.dumps(sort_keys=True, ...)``
    wrote when every stored hash was made: any text (control characters, non-ASCII,
    line separators), keys in any order, whole numbers, floats (which msgspec writes
    its own way: they go the json way), nesting."""
    try:
        old = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: never valid in an event (nor before)
        return
    assert sorted_json(data) == old


def test_a_sealed_action_is_stored_as_the_dump_its_hash_was_made_from(tmp_path):
    """The mapper stores the very dump ``sealed`` hashed (no second dump of the action),
    and the stored action, read back, hashes to its hash again."""
    from ledger.integrity import chain_hash, stored_state

    ledger = Ledger.open(tmp_path / "c.db", create=True)
    try:
        cid = ledger.start(load_catalog(sample_catalog_path()), name="C", slug="c").event.originator_id
        done = ledger.execute(cid, c.AddHero(actor="master", hero="ana", name="Ana"))
        dumped = stored_state(done.event)
        assert dumped is not None and dumped["hash"] == done.event.hash
        (row,) = ledger.recorder.select_events(cid, gt=done.seq - 1, limit=1)
        assert json.loads(row.state) == {k: v for k, v in dumped.items()
                                         if k not in ("originator_id", "originator_version")}
        back = ledger.event(cid, done.seq)
        assert back == done.event and chain_hash(ledger.event(cid, done.seq - 1).hash, back) == back.hash
    finally:
        ledger.close()


def test_only_the_recorded_command_of_an_action_may_hold_a_float():
    """``integrity.FREE_FIELDS``: the chain looks for floats (which go the json way) only
    in the fields that may hold any JSON; every other field of every action, down through
    its parts, is typed without float or Any."""
    import typing
    from typing import Any

    from pydantic import BaseModel

    from ledger import events
    from ledger.integrity import FREE_FIELDS

    def loose(annotation: Any, seen: set) -> bool:
        if annotation is float or annotation is Any:
            return True
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if annotation in seen:
                return False
            seen.add(annotation)
            return any(loose(f.annotation, seen) for f in annotation.model_fields.values())
        return any(loose(arg, seen) for arg in typing.get_args(annotation))

    actions = [cls for cls in vars(events).values()
               if isinstance(cls, type) and issubclass(cls, events.ActionRecorded)]
    assert len(actions) > 20
    found = {(cls.__name__, name) for cls in actions for name, field in cls.model_fields.items()
             if name not in FREE_FIELDS and loose(field.annotation, set())}
    assert not found
    assert all(loose(events.ActionRecorded.model_fields[name].annotation, set()) for name in FREE_FIELDS)
