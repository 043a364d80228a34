"""Stored actions read without building pydantic validators (``ledger.structs``): the
quick read gives exactly the event pydantic gives, leaves to pydantic what it does not
take, and checks the hash chain as strictly (README "How it works")."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from eventsourcing.utils import resolve_topic
from pydantic import BaseModel

from ledger import events as e
from ledger.application import Ledger
from ledger.errors import DamagedRecord
from ledger.integrity import _canonical_bytes, _hash_of, read_canonical
from ledger.structs import quick_event

from .conftest import copy_db, one_error_line, run_ledger, succeeded

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def played_db(tmp_path_factory) -> Path:
    """The demo's campaign, then simulated play past a snapshot (most kinds of action)."""
    db = tmp_path_factory.mktemp("played") / "campaign.db"
    succeeded(run_ledger("simulate", "--actions", "400", "--seed", "11", db=db))
    return db


@pytest.fixture
def played(played_db, tmp_path) -> Path:
    return copy_db(played_db, tmp_path)


def stored_actions(db: Path) -> list:
    ledger = Ledger.open(db)
    try:
        return list(ledger.events.recorder.select_events(ledger.resolve(None)))
    finally:
        ledger.close()


def by_pydantic(stored) -> BaseModel:
    return resolve_topic(stored.topic).model_validate(
        {**json.loads(stored.state), "originator_id": stored.originator_id,
         "originator_version": stored.originator_version})


def same_shape(quick, slow, where: str) -> None:
    """The same classes, fields in the same order, the same values of the same types (a
    timestamp's tzinfo apart: UTC either way)."""
    if isinstance(slow, BaseModel):
        assert type(quick) is type(slow), where
        assert list(quick.__dict__) == list(slow.__dict__), where
        for name in slow.__dict__:
            same_shape(quick.__dict__[name], slow.__dict__[name], f"{where}.{name}")
    elif isinstance(slow, (tuple, list, dict)):
        assert type(quick) is type(slow) and len(quick) == len(slow), where
        pairs = zip(quick.values(), slow.values()) if isinstance(slow, dict) else zip(quick, slow)
        for index, (a, b) in enumerate(pairs):
            same_shape(a, b, f"{where}[{index}]")
    else:
        assert quick == slow, where
        assert type(quick) is type(slow) or hasattr(slow, "tzinfo"), where


def test_every_action_read_quickly_is_the_event_pydantic_reads_with_the_same_canonical_content(played_db):
    taken, kinds = 0, set()
    actions = stored_actions(played_db)
    for stored in actions:
        quick = quick_event(stored.topic, stored.state, stored.originator_id, stored.originator_version)
        slow = by_pydantic(stored)
        if quick is None:
            assert isinstance(slow, e.CampaignStarted), stored.topic  # its catalog's models validate
            continue
        taken += 1
        kinds.add(type(quick))
        assert quick == slow
        same_shape(quick, slow, f"seq {stored.originator_version}")
        assert quick.model_dump(mode="json") == slow.model_dump(mode="json")
        assert read_canonical(quick) == _canonical_bytes(slow, slow.model_dump(mode="json"))
    assert taken == len(actions) - 1
    assert len(kinds) >= 15, sorted(k.__name__ for k in kinds)  # the simulation plays most kinds


def test_a_fresh_process_loads_a_campaign_without_building_the_validators_of_the_actions_it_folds(played_db):
    code = (
        "import sys\n"
        "from ledger import events as e\n"
        "from ledger.application import Ledger\n"
        "ledger = Ledger.open(sys.argv[1]); cid = ledger.resolve(None)\n"
        "campaign = ledger.campaign(cid); back = ledger.campaign(cid, at=250)\n"
        "assert campaign.version > 400 and back.version == 250\n"
        "folded = {type(a).__name__ for a in ledger.actions(cid, gt=200)}\n"
        "built = {c.__name__ for c in vars(e).values() if isinstance(c, type) and issubclass(c, e.ActionRecorded)\n"
        "         and c.__pydantic_complete__}\n"
        "print(len(folded), sorted(built))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(played_db)], capture_output=True, text=True, cwd=ROOT,
                          check=False)
    assert done.returncode == 0, done.stderr
    folded, built = done.stdout.split(" ", 1)
    assert int(folded) >= 10
    assert built.strip() == "['CampaignStarted']"  # read for its catalog; before: every class folded


# -- what the quick read leaves to pydantic -------------------------------------------------------
def first_of(db: Path, kind: str) -> tuple[int, int, str]:
    with sqlite3.connect(db) as con:
        rowid, seq, state = con.execute("SELECT rowid, originator_version, state FROM stored_events "
                                        "WHERE topic LIKE ? ORDER BY rowid LIMIT 1", [f"%:{kind}"]).fetchone()
    return rowid, seq, bytes(state).decode()


def rewrite(db: Path, rowid: int, state: str) -> None:
    with sqlite3.connect(db) as con:
        con.execute("UPDATE stored_events SET state = ? WHERE rowid = ?", [state.encode(), rowid])
    con.close()


def respelled(state: str, how: str) -> str:
    data = json.loads(state)
    if how == "a number as text":
        data["count"] = str(data["count"])
    elif how == "a UTC offset for Z":
        data["timestamp"] = data["timestamp"].replace("Z", "+00:00")
    elif how == "keys in another order":
        return json.dumps(dict(reversed(list(data.items()))), separators=(",", ":"))
    return json.dumps(data, separators=(",", ":"))


@pytest.mark.parametrize("how", ["a number as text", "a UTC offset for Z", "keys in another order"])
def test_an_action_respelled_in_the_file_reads_as_pydantic_reads_it_and_keeps_its_hash(played, how):
    """Another spelling of the same values: pydantic reads it and its dump gives the same
    hash, so the load and verify accept it as before (the quick read either leaves it to
    pydantic or reads the same values)."""
    rowid, seq, state = first_of(played, "CardsDrawn")
    rewrite(played, rowid, respelled(state, how))
    stored = next(s for s in stored_actions(played) if s.originator_version == seq)
    quick = quick_event(stored.topic, stored.state, stored.originator_id, stored.originator_version)
    if how != "keys in another order":
        assert quick is None
    ledger = Ledger.open(played)
    try:
        read = ledger.event(ledger.resolve(None), seq)
        assert read == by_pydantic(stored)
    finally:
        ledger.close()
    succeeded(run_ledger("zones", db=played))
    assert succeeded(run_ledger("verify", db=played)).stdout.startswith("ok: ")


@pytest.mark.parametrize("edit", ["an unknown field", "an unknown kind of change"])
def test_an_action_neither_read_takes_is_a_damaged_record(played, edit):
    rowid, seq, state = first_of(played, "CardsDrawn")
    data = json.loads(state)
    if edit == "an unknown field":
        data["extra"] = 1
    else:
        data["changes"][0]["kind"] = "teleport"
    rewrite(played, rowid, json.dumps(data, separators=(",", ":")))
    ledger = Ledger.open(played)
    try:
        with pytest.raises(DamagedRecord, match=f"seq {seq} cannot be read"):
            ledger.event(ledger.resolve(None), seq)
    finally:
        ledger.close()
    done = run_ledger("verify", db=played)
    assert done.returncode == 1 and f"seq {seq} cannot be read" in done.stdout + done.stderr, done


def test_an_action_read_quickly_and_edited_without_its_hash_is_refused_by_the_load(played):
    """The quick read's hash check (over the stored JSON) refuses what the dump's did."""
    ledger = Ledger.open(played)
    last = ledger.last_seq(ledger.resolve(None))
    ledger.close()
    with sqlite3.connect(played) as con:  # past the latest snapshot: a load folds it
        rowid, seq, state = con.execute("SELECT rowid, originator_version, state FROM stored_events WHERE "
                                        "topic LIKE 'ledger.events:%' AND originator_version > ? ORDER BY rowid "
                                        "LIMIT 1", [last // 100 * 100]).fetchone()
    con.close()
    data = json.loads(bytes(state))
    data["actor"] = "master" if data["actor"] != "master" else "hero1"
    rewrite(played, rowid, json.dumps(data, separators=(",", ":")))
    stored = next(s for s in stored_actions(played) if s.originator_version == seq)
    assert quick_event(stored.topic, stored.state, stored.originator_id, stored.originator_version) is not None
    line = one_error_line(run_ledger("--actor", "hero1", "draw", "deck:house", db=played))
    assert f"seq {seq} does not match its hash" in line, line


def test_an_action_without_its_timestamp_is_refused_by_its_hash_as_before(played):
    """pydantic gives a missing timestamp the time of reading, which its hash cannot match."""
    rowid, seq, state = last_action(played)
    data = json.loads(state)
    del data["timestamp"]
    rewrite(played, rowid, json.dumps(data, separators=(",", ":")))
    stored = next(s for s in stored_actions(played) if s.originator_version == seq)
    assert quick_event(stored.topic, stored.state, stored.originator_id, stored.originator_version) is None
    line = one_error_line(run_ledger("--actor", "hero1", "draw", "deck:house", db=played))
    assert f"seq {seq} does not match its hash" in line, line


def test_a_forged_action_whose_command_nests_past_what_pydantic_dumps_is_refused_by_load_and_verify(played):
    """A recorded command is free JSON: nested ~300 deep (only a forger's, its hash
    recomputed over the stored JSON), pydantic cannot dump it to check its hash. The
    quick read leaves it to pydantic; the load refuses it and verify names it (before:
    verify stopped with an unexpected failure)."""
    rowid, seq, state = last_action(played)
    data = json.loads(state)
    nested: list = []
    for _ in range(300):
        nested = [nested]
    data["command"]["deep"] = nested
    ledger = Ledger.open(played)
    try:
        previous = ledger.event(ledger.resolve(None), seq - 1).hash
    finally:
        ledger.close()
    stored = next(s for s in stored_actions(played) if s.originator_version == seq)
    event = resolve_topic(stored.topic).model_validate({**data, "originator_id": stored.originator_id,
                                                        "originator_version": seq})
    data["hash"] = _hash_of(previous, _canonical_bytes(event, {**data, "originator_id": str(stored.originator_id),
                                                                "originator_version": seq}))
    rewrite(played, rowid, json.dumps(data, separators=(",", ":")))
    stored = next(s for s in stored_actions(played) if s.originator_version == seq)
    assert quick_event(stored.topic, stored.state, stored.originator_id, seq) is None
    line = one_error_line(run_ledger("--actor", "hero1", "draw", "deck:house", db=played))
    assert f"seq {seq} does not match its hash" in line, line
    done = run_ledger("verify", db=played)
    assert done.returncode == 1 and f"seq {seq} cannot be read (ValueError)" in done.stdout + done.stderr, done
    assert "unexpected" not in done.stdout + done.stderr


def test_an_actions_default_is_its_own_not_shared_with_other_actions_read(played):
    """A field the stored JSON leaves out gets its default, a fresh one each time, as pydantic gives it."""
    rowid, seq, state = last_action(played)
    data = json.loads(state)
    data.pop("identified", None)
    rewrite(played, rowid, json.dumps(data, separators=(",", ":")))
    stored = next(s for s in stored_actions(played) if s.originator_version == seq)
    one, two = (quick_event(stored.topic, stored.state, stored.originator_id, seq) for _ in range(2))
    assert one.identified == two.identified == {} and one.identified is not two.identified


def test_a_field_pydantic_constrains_or_validates_gets_no_quick_read():
    """msgspec would not check ``Field(ge=1)`` or an ``AfterValidator``: such a field is
    refused when its Struct is made, and its class left to pydantic."""
    from typing import Annotated

    from pydantic import AfterValidator, ConfigDict, Field

    from ledger.structs import struct_fields, struct_type

    class Counted(BaseModel):
        model_config = ConfigDict(frozen=True)
        count: int = Field(ge=1)

    with pytest.raises(TypeError, match="constrained"):
        struct_fields(Counted, lambda model: model)
    with pytest.raises(TypeError, match="validates more"):
        struct_type(tuple[Annotated[str, AfterValidator(str.lower)], ...], lambda model: model)
    struct_type(e.ActionRecorded.model_fields["changes"].annotation, lambda model: model)  # a discriminator is fine


def last_action(db: Path) -> tuple[int, int, str]:
    """The rowid, seq and stored JSON of the campaign's latest action (a load folds it)."""
    with sqlite3.connect(db) as con:
        found = con.execute("SELECT rowid, originator_version, state FROM stored_events WHERE topic LIKE "
                            "'ledger.events:%' ORDER BY originator_version DESC LIMIT 1").fetchone()
    con.close()
    rowid, seq, state = found
    return rowid, seq, bytes(state).decode()


def test_every_action_but_the_heavy_ones_has_a_light_decoder_on_the_read_side():
    """The read side's light classes pass over constraints (they read what the write side
    validated): no action topic silently loses its light rebuild path."""
    from projections.decoding import HEAVY, light_decoder

    actions = [cls for cls in vars(e).values() if isinstance(cls, type) and issubclass(cls, e.ActionRecorded)
               and cls is not e.ActionRecorded and not issubclass(cls, HEAVY)]
    assert len(actions) > 20
    for cls in actions:
        assert light_decoder(f"ledger.events:{cls.__name__}") is not None, cls
