"""End to end through the real ``ledger`` command (CLI.md) on real SQLite files.

Every check runs the command (``ledger.interface.cli.main``, the code path of ``python
-m ledger``) through ``run_ledger``, in this process, and reads its exit status, stdout
and stderr. A module-scoped campaign is played once through the command (``played``);
tests that try refusals work on a copy.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from ledger.application import Ledger
from ledger.catalog import load_catalog, sample_catalog_path

from .conftest import copy_db, json_error, json_of, one_error_line, run_ledger, run_ledger_process, succeeded

SAMPLE = str(sample_catalog_path())
CATALOG_IDS = load_catalog(sample_catalog_path()).ids()
SUITS = ("house", "class", "entity", "item", "skill", "companion", "event")
ZONES_WITH_ANA = {
    "box", *(f"deck:{s}" for s in SUITS), "discard", "depot", "scenario", "limbo",
    "table:ana", "inventory:ana", "extra:ana",
}

# The session played through the command: (arguments, the action it records).
# seq = position + 1; the comments say what each action leaves behind.
SESSION: list[tuple[list[str], str]] = [
    (["init", "--catalog", SAMPLE, "--name", "Teste"], "init"),                               # 1
    (["hero", "add", "ana", "--knowledge", "1"], "hero add"),                                 # 2
    (["add", "item-sword", "item-bow", "item-rope", "item-torch", "--to", "deck:item"], "add"),  # 3 sword on top
    (["add", "companion-wolf", "companion-falcon", "--to", "deck:companion"], "add"),        # 4
    (["add", "skill-dodge", "skill-stealth", "skill-first-aid", "--to", "deck:skill"], "add"),  # 5
    (["--actor", "ana", "draw", "deck:item", "--count", "2"], "draw"),                       # 6 sword, bow -> inventory
    (["--actor", "ana", "send", "item-sword", "--to", "table:ana"], "send"),                 # 7
    (["--actor", "ana", "discard", "item-bow"], "discard"),                                  # 8 bow -> discard
    (["bury", "item-bow"], "bury"),                                                          # 9 bow -> bottom of deck:item
    (["--actor", "ana", "draw", "deck:companion"], "draw"),                                  # 10 wolf -> inventory
    (["--actor", "ana", "send", "companion-wolf", "--to", "table:ana"], "send"),             # 11
    (["exile", "item-torch"], "exile"),                                                      # 12 torch -> limbo
    (["shuffle", "deck:skill", "--seed", "7"], "shuffle"),                                   # 13
    (["search", "deck:skill", "--take", "skill-first-aid", "--to", "inventory:ana", "--seed", "3"], "search"),  # 14 for ana
    (["--actor", "ana", "reveal", "skill-first-aid"], "reveal"),                             # 15
    (["--actor", "ana", "hide", "skill-first-aid"], "hide"),                                 # 16
    (["--actor", "ana", "exhaust", "item-sword"], "exhaust"),                                # 17
    (["--actor", "ana", "restore", "item-sword"], "restore"),                                # 18
    (["--actor", "ana", "attach", "skill-first-aid", "--to", "companion-wolf"], "attach"),   # 19
    (["--actor", "ana", "detach", "skill-first-aid", "--to", "inventory:ana"], "detach"),    # 20
]
LAST = len(SESSION)


# -- helpers ---------------------------------------------------------------------
def zones(db: Path, *args: str) -> dict:
    return json_of(succeeded(run_ledger("--json", *args, "zones", db=db)))


def stored(db: Path) -> tuple[int, int]:
    """(events in the file, last seq of its only campaign), read in this process."""
    ledger = Ledger.open(db)
    try:
        return ledger.stored_event_count(), ledger.last_seq(ledger.resolve(None))
    finally:
        ledger.close()


def ids_in(zone: list[dict]) -> list[str | None]:
    return [entry["id"] for entry in zone]


# -- the session, played once ----------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, list[subprocess.CompletedProcess]]:
    db = tmp_path_factory.mktemp("played") / "campaign.db"
    results = [run_ledger("--json", *args, db=db) for args, _ in SESSION]
    return db, results


@pytest.fixture
def campaign_copy(played, tmp_path) -> Path:
    db, results = played
    assert all(r.returncode == 0 for r in results), "the session did not play through"
    return copy_db(db, tmp_path)


# -- recording -------------------------------------------------------------------------
def test_every_action_in_json_is_one_object_with_contiguous_seqs_from_init(played):
    _, results = played
    for n, ((args, action), result) in enumerate(zip(SESSION, results), start=1):
        succeeded(result)
        doc = json_of(result)
        assert isinstance(doc, dict), f"{args}: {doc!r}"
        assert set(doc) >= {"seq", "action", "events"}, f"{args}: {sorted(doc)}"
        assert doc["seq"] == n, f"{args}: seq {doc['seq']}, wanted {n}"
        assert doc["action"] == action, f"{args}: action {doc['action']!r}"
        assert isinstance(doc["events"], list) and doc["events"], f"{args}: events {doc['events']!r}"
        assert all(isinstance(event, dict) for event in doc["events"])


def test_every_recorded_action_prints_its_seq(tmp_path):
    db = tmp_path / "campaign.db"
    for n, (args, _) in enumerate(SESSION, start=1):
        result = succeeded(run_ledger(*args, db=db))
        assert re.search(rf"\bseq {n}\b", result.stdout), f"{args} printed no 'seq {n}': {result.stdout!r}"


# -- reading ---------------------------------------------------------------------------
def test_json_zones_lists_every_zone_and_every_card_once_decks_top_first(played):
    db, _ = played
    view = zones(db)
    assert set(view) >= {"seq", "viewer", "zones"}
    assert view["seq"] == LAST
    assert view["viewer"] == "referee"
    z = view["zones"]
    assert set(z) == ZONES_WITH_ANA
    for zone_id, entries in z.items():
        assert isinstance(entries, list), zone_id
        for entry in entries:
            assert set(entry) == {"id", "face", "exhausted", "attached"}, (zone_id, entry)
            assert entry["face"] in ("up", "down") and isinstance(entry["exhausted"], bool)
    for empty in ("deck:house", "deck:class", "deck:entity", "deck:event", "discard", "depot",
                  "scenario", "extra:ana"):
        assert z[empty] == [], empty
    # every catalog card exactly once (attached cards appear in their host's list)
    seen = [e["id"] for entries in z.values() for e in entries]
    seen += [a for entries in z.values() for e in entries for a in e["attached"]]
    assert sorted(seen) == sorted(CATALOG_IDS)
    # decks top first: bury put the bow at the bottom, under the rope
    assert ids_in(z["deck:item"]) == ["item-rope", "item-bow"]
    assert all(e["face"] == "down" for e in z["deck:item"])
    assert sorted(ids_in(z["deck:skill"])) == ["skill-dodge", "skill-stealth"]
    assert ids_in(z["deck:companion"]) == ["companion-falcon"]
    assert ids_in(z["table:ana"]) == ["item-sword", "companion-wolf"]
    assert [e["attached"] for e in z["table:ana"]] == [[], []]
    assert ids_in(z["inventory:ana"]) == ["skill-first-aid"]
    assert z["limbo"] == [{"id": "item-torch", "face": "up", "exhausted": False, "attached": []}]


def test_zones_at_seq_shows_the_table_right_after_that_action(played):
    db, _ = played
    now = zones(db)
    start = json_of(succeeded(run_ledger("--json", "zones", "--at", "1", db=db)))
    assert start["seq"] == 1
    assert sorted(ids_in(start["zones"]["box"])) == sorted(CATALOG_IDS)
    assert all(v == [] for k, v in start["zones"].items() if k != "box")
    assert "inventory:ana" not in start["zones"], "hero ana was added at seq 2"

    before = json_of(succeeded(run_ledger("--json", "zones", "--at", "5", db=db)))
    after = json_of(succeeded(run_ledger("--json", "zones", "--at", "6", db=db)))
    assert (before["seq"], after["seq"]) == (5, 6)
    assert ids_in(before["zones"]["deck:item"]) == ["item-sword", "item-bow", "item-rope", "item-torch"]
    assert before["zones"]["inventory:ana"] == []
    assert ids_in(after["zones"]["deck:item"]) == ["item-rope", "item-torch"]
    assert ids_in(after["zones"]["inventory:ana"]) == ["item-sword", "item-bow"]

    buried = json_of(succeeded(run_ledger("--json", "zones", "--at", "9", db=db)))["zones"]
    assert ids_in(buried["deck:item"]) == ["item-rope", "item-torch", "item-bow"]
    assert buried["discard"] == []

    exhausted = json_of(succeeded(run_ledger("--json", "zones", "--at", "17", db=db)))["zones"]
    assert exhausted["table:ana"][0] == {"id": "item-sword", "face": "up", "exhausted": True, "attached": []}

    attached = json_of(succeeded(run_ledger("--json", "zones", "--at", "19", db=db)))["zones"]
    assert attached["table:ana"][1]["attached"] == ["skill-first-aid"]
    assert attached["inventory:ana"] == []

    last = json_of(succeeded(run_ledger("--json", "zones", "--at", str(LAST), db=db)))
    assert last == now


def test_public_view_shows_hidden_cards_as_null_ids_with_their_count(played):
    db, _ = played
    public = zones(db, "--as", "public")
    assert public["viewer"] == "public"
    z = public["zones"]
    assert z["deck:item"] == [{"id": None, "face": "down"}] * 2
    assert z["inventory:ana"] == [{"id": None, "face": "down"}]
    assert ids_in(z["table:ana"]) == ["item-sword", "companion-wolf"]
    ana = zones(db, "--as", "ana")["zones"]
    assert ids_in(ana["inventory:ana"]) == ["skill-first-aid"]
    assert ana["deck:item"] == [{"id": None, "face": "down"}] * 2


def test_zones_list_every_card_hanging_from_a_card_even_through_another_or_from_a_hidden_one(campaign_copy):
    """A card attached to an attached card, and a face-up card attached to a face-down
    one, lie on the table: every view lists them with the first host's entry (a hidden
    host still says nothing about itself)."""
    db = campaign_copy
    succeeded(run_ledger("--actor", "ana", "attach", "item-sword", "--to", "skill-first-aid", db=db))
    succeeded(run_ledger("--actor", "ana", "attach", "companion-wolf", "--to", "item-sword", db=db))
    hanging = ["item-sword", "companion-wolf"]
    referee = zones(db)["zones"]
    assert referee["inventory:ana"] == [{"id": "skill-first-aid", "face": "down", "exhausted": False,
                                         "attached": hanging}]
    assert referee["table:ana"] == []
    public = zones(db, "--as", "public")["zones"]
    assert public["inventory:ana"] == [{"id": None, "face": "down", "attached": hanging}]
    printed = succeeded(run_ledger("--as", "public", "zones", db=db)).stdout
    assert "item-sword" in printed and "companion-wolf" in printed and "skill-first-aid" not in printed


def test_human_zones_prints_a_table_of_the_zones(played):
    db, _ = played
    result = succeeded(run_ledger("zones", db=db))
    for zone_id in ("deck:item", "table:ana", "limbo"):
        assert zone_id in result.stdout
    assert "item-sword" in result.stdout


# -- refusals --------------------------------------------------------------------------
REFUSALS = [
    ["--actor", "ana", "draw", "deck:event"],                         # empty, nothing in the depot
    ["--actor", "ana", "draw", "deck:item", "--count", "3"],          # only two cards
    ["discard", "item-nope"],                                         # unknown card
    ["send", "item-rope", "--to", "nowhere"],                         # unknown zone
    ["send", "item-rope", "--to", "table:zed"],                       # unknown hero
    ["--actor", "ana", "exhaust", "skill-dodge"],                     # in a deck, hidden from ana
    ["exhaust", "item-rope"],                                         # cards in a deck have no state
    ["add", "item-sword", "--to", "deck:item"],                       # not in the box
    ["shuffle", "discard"],                                           # a pile has no order
    ["attach", "item-sword", "--to", "item-sword"],
    ["detach", "item-sword"],                                         # not attached
    ["restore", "item-sword"],                                        # already restored
    ["hero", "add", "ana"],                                           # already there
    ["search", "deck:item", "--take", "item-torch", "--to", "inventory:ana"],  # it is in limbo
    ["exile", "item-torch"],                                          # already in limbo
    ["--as", "Not A Hero!", "zones"],
    ["init", "--catalog", SAMPLE, "--name", "Teste"],                 # the campaign exists
]


def test_refusals_exit_1_with_one_error_line_and_append_nothing(campaign_copy):
    db = campaign_copy
    view_before = zones(db)
    count_before, seq_before = stored(db)
    assert seq_before == LAST
    for args in REFUSALS:
        result = run_ledger("--json", *args, db=db)
        json_error(result)
        assert stored(db) == (count_before, seq_before), f"{args} was refused but appended events"
    # the human form: the same single line, nothing recorded
    one_error_line(run_ledger("--actor", "ana", "draw", "deck:event", db=db))
    assert zones(db) == view_before
    assert stored(db) == (count_before, seq_before)


@pytest.mark.parametrize("command", ["discard", "exile", "bury", "reveal", "exhaust"])
def test_a_card_named_twice_is_refused_as_named_twice_before_anything_is_looked_up(campaign_copy, command):
    """Not "already in the discard pile", as if the first naming had moved it: the command
    itself is wrong, whoever acts and wherever the card is (a hidden one too)."""
    before = stored(campaign_copy)
    for actor, card in (("master", "item-sword"), ("ana", "item-sword"), ("ana", "item-nothing")):
        line = one_error_line(run_ledger("--actor", actor, command, card, card, db=campaign_copy))
        assert f"card {card} is named twice" in line, line
    assert stored(campaign_copy) == before


def test_history_of_an_actor_who_is_nobody_in_the_campaign_says_so(campaign_copy):
    """Not an empty history, as if they had done nothing: a typo names the heroes."""
    line = one_error_line(run_ledger("history", "--actor", "zzz", db=campaign_copy))
    assert "zzz" in line and "heroes: ana" in line
    assert json_of(succeeded(run_ledger("--json", "history", "--actor", "master", "--to", "1",
                                        db=campaign_copy)))[0]["seq"] == 1


def test_history_of_a_hero_who_left_is_an_answer_whatever_the_filters(campaign_copy):
    """A QA pass: a hero whose arrival was undone keeps their actions listed, and a filter
    that leaves none of them (--from past them, --to before them) is an empty answer, not
    "nobody of this campaign" (a script paging back ended on that error)."""
    db = campaign_copy
    last = json_of(succeeded(run_ledger("--json", "checkpoint", db=db)))["seq"]
    succeeded(run_ledger("hero", "add", "carl", db=db))
    succeeded(run_ledger("send", "skill-stealth", "--to", "table:carl", db=db))  # an effect that allows his shuffle
    succeeded(run_ledger("--actor", "carl", "shuffle", "deck:item", "--by", "skill-stealth", db=db))
    succeeded(run_ledger("undo", "--to", str(last), db=db))
    assert [e["seq"] for e in json_of(succeeded(run_ledger("--json", "history", "--actor", "carl", db=db)))] == [last + 3]
    for args in (["--from", str(last + 4)], ["--to", str(last)], ["--card", "item-sword"]):
        assert json_of(succeeded(run_ledger("--json", "history", "--actor", "carl", *args, db=db))) == [], args
    assert "not the master nor a hero" in one_error_line(run_ledger("history", "--actor", "dan", "--to", "3", db=db))


def test_an_actor_who_is_not_a_hero_of_the_campaign_is_refused(campaign_copy):
    """CLI.md: --actor is master or a hero id; an unknown hero is refused (exit 1)."""
    db = campaign_copy
    before = stored(db)
    for args in (
        ["--actor", "zed", "send", "item-torch", "--to", "discard"],  # a face-up card nobody owns
        ["--actor", "zed", "shuffle", "deck:item"],
    ):
        one_error_line(run_ledger(*args, db=db))
        assert stored(db) == before, f"{args}: a stranger's action was recorded"


def test_a_viewer_who_is_not_a_hero_of_the_campaign_is_refused(campaign_copy):
    """CLI.md: --as is referee, public or a hero id; an unknown hero is refused (exit 1)."""
    one_error_line(run_ledger("--as", "zed", "--json", "zones", db=campaign_copy))
    for typed, meant in (("Master", "master"), ("PUBLIC", "public"), (" referee", "referee")):  # a QA pass
        line = one_error_line(run_ledger("--as", typed, "zones", db=campaign_copy))
        assert f"did you mean --as {meant}?" in line, line


def test_the_master_sees_as_the_referee_and_the_referee_and_public_do_not_act(campaign_copy):
    """--as master is the referee's view (as the master's seat is at the table server);
    --actor referee or public is refused in words that name what acts and what views."""
    db = campaign_copy
    assert zones(db, "--as", "master") == zones(db, "--as", "referee")
    for viewer in ("referee", "public"):
        line = one_error_line(run_ledger("--actor", viewer, "draw", "deck:item", db=db))
        assert "--actor master" in line and f"--as {viewer}" in line, line


def test_usage_errors_exit_2_with_one_error_line(campaign_copy):
    db = campaign_copy
    succeeded(run_ledger("location", "add", "village", db=db))
    before = stored(db)
    for args in (
        ["draw", "deck:item", "--bogus"],          # unknown option
        ["--bogus", "zones"],                      # unknown global option
        ["draw"],                                  # missing argument
        ["send", "item-rope"],                     # missing required --to
        ["frobnicate"],                            # unknown command
        ["discard"],                               # neither cards nor --from
        ["access", "village", "item"],             # neither a LEVEL nor --clear
        ["explain", "--bogus"],                    # an unknown option, though -1 there is a seq refused
        ["hero", "knowledge", "ana", "--bogus"],   # (and -1 a level)
        ["search", "deck:item", "item-bow"],       # a card to take names no --take
    ):
        line = one_error_line(run_ledger(*args, db=db), exit_codes=(2,))
        # with --json, the error object too (found by a QA pass: none was printed)
        result = run_ledger("--json", *args, db=db)
        assert result.returncode == 2 and json.loads(result.stdout) == {
            "error": {"code": "usage", "message": line.removeprefix("error: ")}}, (args, result.stdout)
    assert stored(db) == before


def test_a_global_option_after_the_command_is_told_where_it_goes(campaign_copy):
    """Found by a newcomer's read of the README: ``ledger draw deck:item --actor ana`` was
    offered ``Did you mean '--to'?``; the line now says the option goes before the command."""
    before = stored(campaign_copy)
    for args, option, example in (
            (["draw", "deck:item", "--actor", "ana"], "--actor", "ledger --actor … draw …"),
            (["zones", "--as", "ana"], "--as", "ledger --as … zones …"),
            (["zones", "--json"], "--json", "ledger --json zones …"),
            (["hero", "add", "cy", "--db=x.db"], "--db", "ledger --db … hero add …")):
        line = one_error_line(run_ledger(*args, db=campaign_copy), exit_codes=(2,))
        assert f"{option} is a global option" in line and example in line and "Did you mean" not in line, line
    assert stored(campaign_copy) == before
    json_mode = run_ledger("--json", "--actor", "ana", "obtain", "ana", "class-mage", "--by", "luck", db=campaign_copy)
    assert json.loads(json_mode.stdout)["error"]["code"] == "bad-input" and json_mode.returncode == 1


@pytest.mark.parametrize("args", [[], ["hero"]], ids=["ledger", "ledger-hero"])
def test_a_missing_command_shows_help_or_a_one_line_usage_error(args, tmp_path):
    result = run_ledger(*args, cwd=tmp_path)
    assert "Traceback" not in result.stdout + result.stderr
    if result.returncode == 0:
        assert "Usage:" in result.stdout and result.stderr == ""
    else:
        one_error_line(result, exit_codes=(2,))


def test_bad_numbers_are_refused_as_bad_input_naming_the_option_and_append_nothing(campaign_copy):
    """Every bad number, whatever the option, is bad input (exit 1, as a bad card is), and
    the line names the option as typed (``--ap``, not pydantic's ``action_points``)."""
    db = campaign_copy
    before = stored(db)
    for args in (
        ["--actor", "ana", "draw", "deck:item", "--count", "0"],
        ["--actor", "ana", "draw", "deck:item", "--count", "-1"],
        ["--actor", "ana", "draw", "deck:item", "--count", "abc"],
        ["discard", "--from", "deck:item", "--count", "0"],
        ["send", "item-rope", "--to", "deck:item", "--position", "0"],
        ["send", "item-rope", "--to", "deck:item", "--position", "-2"],
        ["send", "item-rope", "--to", "deck:item", "--position", "abc"],
        ["send", "item-rope", "--to", "deck:item", "--position", "9"],
        ["add", "item-shield", "--to", "deck:item", "--position", "0"],
        ["hero", "add", "bo", "--knowledge", "-1"],
        ["hero", "knowledge", "ana", "-1"],  # a level, not an unknown option
        ["shuffle", "deck:item", "--seed", "abc"],
        ["zones", "--at", "0"],
        ["zones", "--at", str(LAST + 1)],
        ["zones", "--at", "abc"],
        # what Python's int() reads but a person does not write: 5_0 as 50, other scripts' digits
        ["zones", "--at", "1_0"],
        ["zones", "--at", "\u0665"],
        ["--actor", "ana", "draw", "deck:item", "--count", "1_0"],
        ["send", "item-rope", "--to", "deck:item", "--position", "\u0661"],
        ["shuffle", "deck:item", "--seed", "1_0"],
        ["hero", "add", "cy", "--knowledge", "\u0661"],
        ["activate", "item-rope", "--ap", "-1"],
        ["activate", "item-rope", "--effect", "0"],
        ["explain", "-1"],  # a seq, not an unknown option
        ["access", "village", "item", "-1"],  # a level (a QA pass: "No such option '-1'")
        ["history", "--limit", "0"],
        # a value click's own types refuse (a choice, a range): refused as well, not a usage error
        ["send", "item-rope", "--to", "discard", "--face", "sideways"],
        ["obtain", "ana", "class-mage", "--by", "luck"],
        ["--lang", "fr"],
        ["seat", "add", "ana", "--port", "99999"],
        # found by a QA pass: read by int() (port 1, port 8080, access 1, 10 ice)
        ["seat", "add", "ana", "--port", "\u0661"],
        ["seat", "add", "ana", "--port", "8_080"],
        ["serve", "--workers", "\u0661"],
        ["daemon", "start", "--idle", "1_0"],
        ["location", "add", "v8", "--access", "item=\u0661"],
        ["--actor", "ana", "activate", "item-rope", "--energy", "ice=1_0"],
        ["hero", "knowledge", "ana", "\u0663"],
        ["simulate", "--actions", str(2**63)],  # a QA pass: both were taken
        ["simulate", "--actions", "1", "--seed", str(2**63)],
    ):
        line = one_error_line(run_ledger(*args, db=db), exit_codes=(1,))
        assert stored(db) == before, f"{args} appended events"
        if args[-2].startswith("--") and args[-1] not in ("9", str(LAST + 1)):  # those two: the campaign refuses
            assert line.startswith((f"error: {args[-2]}: ", f"error: {args[-2]} '")), line  # (NAME=VALUE: quoted)
        assert "action_points" not in line


def test_a_negative_number_argument_is_the_number_and_options_after_it_are_still_options(campaign_copy):
    """A QA pass: `access village item -1` was click's "No such option '-1'" (exit 2)."""
    db = campaign_copy
    before = stored(db)
    line = one_error_line(run_ledger("access", "village", "item", "-1", "--by", "event-festival", db=db),
                          exit_codes=(1,))
    assert "no location 'village'" in line, line  # the command was read: --by a card, level -1
    line = one_error_line(run_ledger("explain", "-", db=db), exit_codes=(1,))  # a lone - is no option (a review)
    assert "'-'" in line and "seq" in line, line
    line = one_error_line(run_ledger("access", "village", "item", "-1", "--by", "-x", db=db), exit_codes=(1,))
    assert "No such option" not in line, line  # an option's value, whatever it looks like
    for args, unknown in ((["access", "village", "item", "-1", "--bogus"], "--bogus"),
                          (["access", "village", "item", "--bogus=2", "-1"], "--bogus"),
                          (["hero", "knowledge", "ana", "-1", "--cl"], "--cl")):
        line = one_error_line(run_ledger(*args, db=db), exit_codes=(2,))
        assert f"'{unknown}'" in line and "'-1'" not in line, line
    assert stored(db) == before


@pytest.mark.parametrize("args, option", [
    (["--actor", "ana", "draw", "deck:item", "--count", "1", "--count", "2"], "--count"),
    (["--actor", "ana", "--actor", "master", "draw", "deck:item"], "--actor"),
    (["--db", "other.db", "exile", "item-rope"], "--db"),  # with run_ledger's own --db (a path from the cwd)
    (["send", "item-rope", "--to", "limbo", "--to=discard"], "--to"),
    (["hero", "add", "bo", "--knowledge", "1", "--knowledge", "2"], "--knowledge"),
    (["--as", "ana", "--as", "public", "zones"], "--as"),
])
def test_an_option_that_takes_one_value_is_refused_when_given_twice(campaign_copy, args, option):
    """A QA pass: click kept the last of `--count 1 --count 2` (and of --db, --actor)
    without a word, as a query's repeated key is refused by the table server."""
    before = stored(campaign_copy)
    line = one_error_line(run_ledger(*args, db=campaign_copy, cwd=campaign_copy.parent), exit_codes=(2,))
    assert f"{option} is given twice" in line, line
    assert stored(campaign_copy) == before


def test_options_that_gather_values_and_flags_may_still_repeat(campaign_copy):
    line = one_error_line(run_ledger("reveal", "item-rope", "--to", "ana", "--to", "ana", db=campaign_copy))
    assert "a hero is named twice" in line, line  # the command read both, and the rule refuses the second
    succeeded(run_ledger("zones", "--help", "--help", db=campaign_copy))
    json_of(succeeded(run_ledger("--json", "--json", "campaigns", db=campaign_copy)))  # a review: `alias lj='ledger --json'`


def test_catalog_lists_the_cards_to_anyone_and_the_box_to_the_referee_only(campaign_copy):
    """A newcomer's QA pass: no command listed the catalog; to find the ids to `add`, the
    master opened the TOML file. `catalog` lists every card (no secret: players name cards
    by these ids); which are still in the box is where cards lie, the referee's to see."""
    db = campaign_copy
    catalog = load_catalog(sample_catalog_path())
    every = json_of(succeeded(run_ledger("--json", "--as", "ana", "catalog", db=db)))
    assert [row["id"] for row in every] == [card.id for card in catalog]
    assert set(every[0]) == {"id", "suit", "name", "level", "value", "knowledge", "effects", "task"}  # no place
    items = json_of(succeeded(run_ledger("--json", "catalog", "--suit", "item", db=db)))
    assert items and all(row["suit"] == "item" for row in items)
    boxed = json_of(succeeded(run_ledger("--json", "catalog", "--box", db=db)))
    in_box = ids_in(zones(db)["zones"]["box"])
    assert [row["id"] for row in boxed] == [card.id for card in catalog if card.id in in_box] and boxed
    line = one_error_line(run_ledger("--as", "ana", "catalog", "--box", db=db))
    assert "the referee's to see" in line, line
    line = one_error_line(run_ledger("--as", "public", "catalog", db=db))  # as the table server's public seat
    assert "the public watches" in line, line
    assert "item-sword" in succeeded(run_ledger("catalog", "--suit", "item", db=db)).stdout


@pytest.mark.parametrize("actor", ["master", "ana"])
def test_a_zone_named_as_a_card_is_said_to_be_a_zone_to_anyone(campaign_copy, actor):
    """A newcomer's QA pass: `discard deck:item` read "no card 'deck:item'" (to a hero, that
    she could not see it); `discard --from deck:item` was meant. No card id holds a colon."""
    line = one_error_line(run_ledger("--actor", actor, "discard", "deck:item", db=campaign_copy))
    assert "deck:item is a zone, not a card; to discard a deck's top card, the master runs discard --from " \
           "deck:item" in line, line
    line = one_error_line(run_ledger("--actor", actor, "exile", "inventory:ana", db=campaign_copy))
    assert "inventory:ana is a zone, not a card" in line, line
    line = one_error_line(run_ledger("--actor", actor, "send", "nope:zz", "--to", "scenario", db=campaign_copy))
    assert "nope:zz is no card: card ids hold no colon" in line, line  # no zone either (a review)
    line = one_error_line(run_ledger("--as", actor if actor != "master" else "referee", "card", "deck:item",
                                     db=campaign_copy))
    assert "'deck:item' is no card: card ids hold no colon" in line, line


def test_search_takes_the_cards_named_after_one_take_as_trade_does(campaign_copy):
    """A QA pass: `search deck:item --take A B` was "unexpected extra argument", though
    `trade --take A B` (and CLI.md's example of it) names several cards after one option."""
    db = campaign_copy
    deck = [entry["id"] for entry in zones(db)["zones"]["deck:item"]][-2:]
    done = json_of(succeeded(run_ledger("--json", "search", "deck:item", "--take", *deck, "--to", "inventory:ana",
                                        db=db)))
    assert done["seq"] and set(deck) <= set(ids_in(zones(db)["zones"]["inventory:ana"]))


def test_an_actions_result_is_shown_as_the_view_asked_with_as(campaign_copy):
    """A QA pass: `--as public --actor ana draw deck:item` printed the card drawn, and
    `--json --as public shuffle` the deck's old and new orders and the commitment's salt,
    to a master projecting his terminal "as public"."""
    db = campaign_copy
    drawn = succeeded(run_ledger("--as", "public", "--actor", "ana", "draw", "deck:item", db=db)).stdout
    assert "a hidden card" in drawn and "item-" not in drawn.split(":", 2)[-1], drawn
    own = succeeded(run_ledger("--actor", "ana", "draw", "deck:item", db=db)).stdout  # her own view, as before
    assert "a hidden card" not in own, own
    shuffled = json_of(succeeded(run_ledger("--json", "--as", "public", "shuffle", "deck:skill", db=db)))
    text = json.dumps(shuffled)
    assert '"rng"' not in text and '"salt"' not in text and "skill-" not in text, text
    before = stored(db)
    line = one_error_line(run_ledger("--as", "zed", "exile", "item-rope", db=db))
    assert "no hero 'zed'" in line, line
    assert stored(db) == before, "refused for its view, yet recorded"
    joined = succeeded(run_ledger("--as", "cy", "hero", "add", "cy", db=db)).stdout  # a review: shown as she joins
    assert "cy" in joined, joined


# -- the database file -------------------------------------------------------------------
def test_init_into_another_programs_sqlite_database_says_so_and_leaves_it_as_it_was(tmp_path):
    """A QA pass: init into a foreign SQLite file said "... or start one with init"."""
    import sqlite3

    db = tmp_path / "notes.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    connection.close()
    before = db.read_bytes()
    for args in (["init", "--catalog", SAMPLE], ["simulate", "--actions", "1"]):
        line = one_error_line(run_ledger(*args, db=db))
        assert "an SQLite database of something else" in line and "with init" not in line, line
    assert "start one with init" in one_error_line(run_ledger("zones", db=db))
    assert db.read_bytes() == before and sorted(os.listdir(tmp_path)) == ["notes.db"]


def test_a_copy_of_a_campaign_out_of_wal_mode_is_named_so_with_the_way_back(campaign_copy, tmp_path):
    """A review: a copy made with VACUUM INTO (rollback journal) was "of something else"."""
    import sqlite3

    copy = tmp_path / "vacuumed.db"
    with sqlite3.connect(campaign_copy) as connection:
        connection.execute("VACUUM INTO ?", (str(copy),))
    connection.close()
    for args in (["zones"], ["init", "--catalog", SAMPLE]):
        line = one_error_line(run_ledger(*args, db=copy))
        assert "holds a campaign log but is not in WAL mode" in line and "journal_mode=WAL" in line, line
    with sqlite3.connect(copy) as connection:
        connection.execute("PRAGMA journal_mode=WAL")
    connection.close()
    succeeded(run_ledger("verify", db=copy))


def test_a_missing_database_is_refused_pointing_at_init_and_not_created(tmp_path):
    db = tmp_path / "nothing-here.db"
    for args in (["zones"], ["campaigns"], ["--actor", "ana", "draw", "deck:item"]):
        line = one_error_line(run_ledger(*args, db=db))
        assert "ledger init" in line, line
        assert not db.exists(), f"{args} created the database file"
    error = json_error(run_ledger("--json", "zones", db=db))
    assert "ledger init" in error["message"]
    assert os.listdir(tmp_path) == []


def test_init_typed_again_on_a_file_with_a_campaign_asks_for_a_name(tmp_path):
    """Found by a QA pass: ``init`` typed again on the campaign's file quietly started a
    second campaign named "campaign", and every command then asked for --campaign. A file
    may hold several campaigns, so one named with --name (or --campaign) is started."""
    db = tmp_path / "campaign.db"
    catalog = str(sample_catalog_path())
    succeeded(run_ledger("init", "--catalog", catalog, "--name", "Norte", db=db))
    before = stored(db)
    line = one_error_line(run_ledger("init", "--catalog", catalog, db=db))
    assert "already holds a campaign (norte)" in line and "--name" in line, line
    assert stored(db) == before
    succeeded(run_ledger("--actor", "master", "zones", db=db))  # still the one campaign
    succeeded(run_ledger("init", "--catalog", catalog, "--name", "Sul", db=db))
    succeeded(run_ledger("--campaign", "oeste", "init", "--catalog", catalog, db=db))


def test_init_with_a_missing_catalog_is_refused_and_creates_no_file(tmp_path):
    db = tmp_path / "campaign.db"
    line = one_error_line(run_ledger("init", "--catalog", str(tmp_path / "cards.toml"), db=db))
    assert "cards.toml" in line and str(sample_catalog_path()) in line, line  # where a newcomer finds one
    assert not db.exists()
    (tmp_path / "other.db").write_bytes(b"SQLite format 3\x00\xff\xfe" + bytes(range(256)))
    line = one_error_line(run_ledger("init", "--catalog", str(tmp_path / "other.db"), db=db))
    assert "not UTF-8 text" in line and "TOML or CSV" in line and "Error" not in line, line
    assert not db.exists()


def test_init_refuses_a_campaign_name_longer_than_a_name_may_be_and_creates_no_file(tmp_path):
    """The campaign's name heads every page and history: at most 200 characters, as a hero's."""
    db = tmp_path / "campaign.db"
    line = one_error_line(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "N" * 5000, db=db))
    assert "--name: a text of 5000 characters; at most 200" in line, line
    assert not db.exists()
    succeeded(run_ledger("init", "--catalog", str(sample_catalog_path()), "--name", "N" * 200, db=db))


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_new_database_is_not_given_the_name_of_another_ones_sqlite_file(campaign_copy, tmp_path, suffix):
    """Found by a QA pass: ``import x.jsonl --db w.db-wal`` said it imported, and the next
    command on w.db had SQLite take w.db-wal for its own log and delete it: the campaign
    was gone. A database is never made under a name SQLite keeps for another's files."""
    exported = tmp_path / "x.jsonl"
    succeeded(run_ledger("export", str(exported), db=campaign_copy))
    before = sorted(os.listdir(campaign_copy.parent))
    target = Path(f"{campaign_copy}{suffix}")
    for args in (["import", str(exported)], ["init", "--catalog", SAMPLE], ["simulate", "--actions", "3"]):
        line = one_error_line(run_ledger(*args, db=target))
        assert target.name in line and "e.g." in line, line
        assert sorted(os.listdir(campaign_copy.parent)) == before, f"{args} left files"
    succeeded(run_ledger("verify", db=campaign_copy))
    plain = tmp_path / f"travel{suffix}"  # a plain name of no database's file: a name like any
    succeeded(run_ledger("init", "--catalog", SAMPLE, db=plain))


@pytest.mark.parametrize(
    "content",
    [random.Random(7).randbytes(4096), "these are my notes, not a database\n".encode() * 20],
    ids=["random-bytes", "text"],
)
def test_a_file_that_is_not_sqlite_is_refused_and_left_unchanged(tmp_path, content):
    db = tmp_path / "notes.db"
    db.write_bytes(content)
    for args in (["zones"], ["hero", "add", "ana"], ["init", "--catalog", SAMPLE]):
        one_error_line(run_ledger(*args, db=db))
        assert db.read_bytes() == content, f"{args} changed the file"
    assert os.listdir(tmp_path) == ["notes.db"], "files were left next to it"


def test_a_file_that_is_not_sqlite_is_reported_as_a_database_problem_not_an_internal_failure(tmp_path):
    db = tmp_path / "notes.db"
    db.write_bytes(os.urandom(4096))
    error = json_error(run_ledger("--json", "zones", db=db))
    assert error["code"] != "internal", error
    assert "please report" not in error["message"], error


def test_ledger_db_environment_variable_names_the_database(tmp_path):
    db = tmp_path / "from-env.db"
    env = {"LEDGER_DB": str(db)}
    first = json_of(succeeded(run_ledger("--json", "init", "--catalog", SAMPLE, cwd=tmp_path, env=env)))
    assert first["seq"] == 1
    assert db.exists()
    assert not (tmp_path / "campaign.db").exists()
    succeeded(run_ledger("hero", "add", "ana", cwd=tmp_path, env=env))
    assert json_of(succeeded(run_ledger("--json", "zones", cwd=tmp_path, env=env)))["seq"] == 2
    # --db wins over $LEDGER_DB
    other = tmp_path / "other.db"
    line = one_error_line(run_ledger("--db", str(other), "zones", cwd=tmp_path, env=env))
    assert "ledger init" in line
    assert not other.exists()


def test_without_db_or_ledger_db_the_database_is_campaign_db_in_the_working_directory(tmp_path):
    result = succeeded(run_ledger("--json", "init", "--catalog", SAMPLE, cwd=tmp_path))
    assert json_of(result)["seq"] == 1
    assert (tmp_path / "campaign.db").exists()


def test_two_campaigns_in_one_file_need_campaign_to_choose(tmp_path):
    db = tmp_path / "two.db"
    for slug in ("a", "b"):
        doc = json_of(succeeded(run_ledger("--json", "--campaign", slug, "init", "--catalog", SAMPLE, db=db)))
        assert (doc["seq"], doc["action"]) == (1, "init")
    listed = json_of(succeeded(run_ledger("--json", "campaigns", db=db)))
    assert sorted(entry["id"] for entry in listed) == ["a", "b"]

    error = json_error(run_ledger("--json", "zones", db=db))
    assert "--campaign" in error["message"]
    assert "a" in error["message"] and "b" in error["message"]
    one_error_line(run_ledger("hero", "add", "ana", db=db))

    assert json_of(succeeded(run_ledger("--json", "--campaign", "b", "hero", "add", "ana", db=db)))["seq"] == 2
    b = zones(db, "--campaign", "b")
    a = zones(db, "--campaign", "a")
    assert (a["seq"], b["seq"]) == (1, 2)
    assert "inventory:ana" in b["zones"] and "inventory:ana" not in a["zones"]
    one_error_line(run_ledger("--campaign", "c", "zones", db=db))
    ledger = Ledger.open(db)
    try:
        assert ledger.last_seq(ledger.resolve("a")) == 1
        assert ledger.last_seq(ledger.resolve("b")) == 2
    finally:
        ledger.close()


# -- help, version, demo ---------------------------------------------------------------------
COMMANDS = [
    "init", "campaigns", "hero add", "hero knowledge", "add", "draw", "send", "discard", "bury",
    "exile", "shuffle", "search", "reveal", "hide", "exhaust", "restore", "attach", "detach",
    "zones", "demo",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_explains_it_with_an_example(command, tmp_path):
    result = succeeded(run_ledger(*command.split(), "--help", cwd=tmp_path))
    assert f"Usage: ledger {command}" in result.stdout
    assert "Example:" in result.stdout
    example = result.stdout.split("Example:", 1)[1]
    assert f"ledger {command.split()[0]}" in example or "ledger --" in example
    assert os.listdir(tmp_path) == [], "--help touched the disk"


def test_every_command_and_group_of_commands_has_an_example_in_its_help():
    """CLI.md: every command's help has an example (a QA pass found `keys` without one)."""
    import click

    from ledger.interface.cli import cli

    def walk(command: click.Command, path: tuple[str, ...]):
        yield path, command
        if isinstance(command, click.Group):
            ctx = click.Context(command, info_name=" ".join(path))
            for name in command.list_commands(ctx):
                yield from walk(command.get_command(ctx, name), (*path, name))

    lacking = [" ".join(path) for path, command in walk(cli, ()) if path and "Example:" not in (command.help or "")]
    assert lacking == []


def test_top_level_help_lists_every_command_with_examples(tmp_path):
    result = succeeded(run_ledger("--help", cwd=tmp_path))
    commands = result.stdout.split("Commands:", 1)[1]
    for command in {c.split()[0] for c in COMMANDS}:
        assert re.search(rf"^\s+{command}\s", commands, re.M), f"{command} is not listed"
    assert re.search(r"ledger (--\S+ \S+ )*init --catalog", result.stdout), "no example in ledger --help"


def test_version_names_the_sqlite_version():
    result = succeeded(run_ledger("--version"))
    assert "SQLite" in result.stdout
    assert re.search(r"SQLite \d+\.\d+", result.stdout)


# -- the command as a process ---------------------------------------------------------
def test_python_m_ledger_in_a_child_process_exits_0_1_and_2_and_prints_what_main_prints(tmp_path):
    """Every other test here runs the command's ``main`` in this process; this one runs
    ``python -m ledger`` as a shell would: the exit statuses, the one ``error:`` line on
    stderr, and the same output as in this process."""
    db = tmp_path / "campaign.db"
    assert json_of(succeeded(run_ledger_process("--json", "init", "--catalog", SAMPLE, db=db)))["seq"] == 1
    assert "seq 2" in succeeded(run_ledger_process("hero", "add", "ana", db=db)).stdout
    before = stored(db)
    json_error(run_ledger_process("--json", "discard", "item-nope", db=db))  # exit 1
    one_error_line(run_ledger_process("frobnicate", db=db), exit_codes=(2,))
    one_error_line(run_ledger_process("zones", db=tmp_path / "missing.db"))
    assert not (tmp_path / "missing.db").exists()
    for args in (["--json", "zones"], ["--as", "public", "zones"]):
        child = succeeded(run_ledger_process(*args, db=db))
        here = succeeded(run_ledger(*args, db=db))
        assert (child.stdout, child.stderr) == (here.stdout, here.stderr), args
    assert stored(db) == before and before[1] == 2


def test_demo_writes_demo_db_shows_its_refusals_and_can_run_again(tmp_path):
    first = succeeded(run_ledger("demo", cwd=tmp_path))
    db = tmp_path / "demo.db"
    assert db.exists()
    errors = [line for line in first.stdout.splitlines() if line.strip().startswith("error:")]
    assert errors, "the demo shows no refused action"
    appended = re.findall(r"refused: (\d+) events? appended", first.stdout)
    assert appended and set(appended) == {"0"}
    view = zones(db)
    assert view["seq"] > 1
    assert sorted(ids_in(view["zones"]["box"]) + [
        i for k, v in view["zones"].items() if k != "box" for e in v for i in [e["id"], *e["attached"]]
    ]) == sorted(CATALOG_IDS)

    succeeded(run_ledger("demo", cwd=tmp_path))
    again = zones(db)
    assert again["seq"] == view["seq"], "the second demo did not replace the first"
    listed = json_of(succeeded(run_ledger("--json", "campaigns", db=db)))
    assert [entry["id"] for entry in listed] == ["demo"]


def test_every_command_the_demo_suggests_works_as_printed_one_after_another(tmp_path):
    """Found by a newcomer's read: the demo's "Try next" offered a send the demo's table
    refuses (the sword already lies there). Each suggested command, run in the order
    printed on the demo's file, succeeds."""
    shown = succeeded(run_ledger("demo", cwd=tmp_path)).stdout
    tries = shown.split("Try next", 1)[1].split("Play at the table", 1)[0]
    commands = [line.strip() for line in tries.splitlines() if line.strip().startswith("ledger --db demo.db ")]
    assert len(commands) >= 10, tries
    for command in commands:
        what = re.split(r"\s{2,}", command)[0]  # the command, without its note
        succeeded(run_ledger(*shlex.split(what)[1:], cwd=tmp_path))


def test_demo_refuses_to_overwrite_a_campaign_that_is_not_a_demo(tmp_path):
    db = tmp_path / "mine.db"
    succeeded(run_ledger("init", "--catalog", SAMPLE, db=db))
    succeeded(run_ledger("hero", "add", "ana", db=db))
    content = db.read_bytes()
    one_error_line(run_ledger("demo", db=db, cwd=tmp_path))
    assert db.read_bytes() == content
    assert not (tmp_path / "demo.db").exists()
    assert zones(db)["seq"] == 2


def test_an_exception_python_cannot_raise_is_said_without_the_object_it_met(capsys, monkeypatch):
    """Python reports an exception raised in a finalizer with the object's text, which may
    be a face-down deck's order (a Ctrl-C during a long command): the ledger's hook raises
    a Ctrl-C again in the command's thread (which says "interrupted"), and says anything
    else in one line, without the object."""
    import _thread
    from types import SimpleNamespace

    from ledger.interface.cli.group import _unraisable

    interrupted: list[bool] = []
    monkeypatch.setattr(_thread, "interrupt_main", lambda: interrupted.append(True))
    secret = SimpleNamespace(order=("item-sword", "item-bow"))
    _unraisable(SimpleNamespace(exc_value=KeyboardInterrupt(), object=secret, exc_type=KeyboardInterrupt))
    assert interrupted == [True]
    _unraisable(SimpleNamespace(exc_value=ValueError("x"), object=secret, exc_type=ValueError))
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ValueError" in err and "item-sword" not in err


def test_a_hero_looks_back_at_the_table_before_they_joined_as_anyone_saw_it_then(played):
    """ana joins at seq 2 (the session's hero add): as ana, the table at seq 1, its
    explain and a card then are what the public saw (the table server shows her seat the
    same); a name that is no hero now nor then is still refused."""
    db, _ = played
    for args in (["zones", "--at", "1"], ["explain", "1"], ["card", "item-sword", "--at", "1"]):
        mine, public = (json_of(succeeded(run_ledger("--json", "--as", who, *args, db=db))) for who in ("ana", "public"))
        assert json.dumps(mine).replace('"ana"', '"public"') == json.dumps(public), args
    refused = run_ledger("--as", "zed", "zones", "--at", "1", db=db)
    assert refused.returncode == 1 and "no hero 'zed'" in refused.stderr


def test_a_huge_input_is_echoed_by_its_start_and_end_in_a_short_error_line(campaign_copy, tmp_path):
    """A 100 KB card id, zone id or hero name is refused in a line one can read (it named
    the whole input before), by its start and end; nothing is recorded."""
    db = campaign_copy
    before = stored(db)
    card, zone, hero = "y" * 100_000, "deck:" + "x" * 100_000, " ".join(["word"] * 20_000)
    for args in (["send", card, "--to", "discard"], ["draw", zone], ["--actor", hero, "shuffle", "deck:item"],
                 ["history", "--card", card]):
        line = one_error_line(run_ledger(*args, db=db))
        assert len(line) <= 2_100, (args[0], len(line))
    line = one_error_line(run_ledger("card", "start-" + card + "-end", db=db))  # a read: no command's limits
    assert "start-yyy" in line and "yyy-end" in line and "catalog" in line and len(line) < 700, line
    deep = tmp_path / ("a-directory-of-campaigns-" * 8) / ("and-another-" * 8) / "nothere.db"  # ~250 characters
    assert str(deep) in one_error_line(run_ledger("zones", db=deep))  # a path is said whole
    assert stored(db) == before


def test_the_cli_refuses_what_the_api_refuses_as_too_large_and_records_nothing(campaign_copy):
    """One set of limits on what is given (ledger.bounds), for both interfaces: a display
    name of 120,000 characters, a seed past 2**53, a note past its limit."""
    db = campaign_copy
    before = stored(db)
    for args, says in ((["hero", "add", "cy", "--name", "a " * 60_000], "--name: a text of 120000 characters; at most 200"),
                       (["shuffle", "deck:item", "--seed", str(2**60)], "--seed: 1152921504606846976 is too large"),
                       (["hero", "add", "cy", "--name", "x" * 201], "at most 200")):
        line = one_error_line(run_ledger(*args, db=db))
        assert says in line, (args[:3], line)
    assert stored(db) == before
    succeeded(run_ledger("hero", "add", "cy", "--name", "x" * 200, db=db))
    succeeded(run_ledger("shuffle", "deck:item", "--seed", str(2**53), db=db))


def test_a_zone_id_as_long_as_a_format_makes_it_is_taken_by_every_command(tmp_path):
    """A QA pass: the size limits on what is given refused a zone of 102 characters that a
    format file made (a part of 64 and a hero id of 32): the limits are above every id the
    rules take, and the rules say what is wrong with one."""
    area = "area-" + "x" * 59  # 64
    knight = "the-wandering-knight-of-the-east"  # 32
    fmt = tmp_path / "format.toml"
    fmt.write_text(f'[[stacks]]\nid = "{area}:{{hero}}"\nkind = "area"\nvisibility = "face-up"\n', encoding="utf-8")
    db = tmp_path / "campaign.db"
    succeeded(run_ledger("init", "--catalog", str(sample_catalog_path()), "--format", str(fmt), db=db))
    succeeded(run_ledger("hero", "add", knight, db=db))
    succeeded(run_ledger("add", "item-sword", "--to", f"inventory:{knight}", db=db))
    succeeded(run_ledger("send", "item-sword", "--to", f"{area}:{knight}", db=db))
    assert "is not a hero id" in one_error_line(run_ledger("hero", "add", "y" * 101, db=db))  # the rule's words


def test_a_face_down_decks_order_from_a_typed_seed_is_said_to_be_predictable(tmp_path):
    """A QA pass: with ``--seed 7`` (the README's own example had it) a hero who had seen the
    depot's order worked out the refilled deck's whole order. The master is told, each time a
    face-down deck gets its order from a typed seed; a shuffle from the system's source, or a
    seed that orders no face-down deck, says nothing."""
    db = tmp_path / "c.db"
    for args in (["init", "--catalog", SAMPLE, "--name", "Semente"], ["hero", "add", "ana"],
                 ["add", "item-sword", "item-bow", "item-rope", "--to", "deck:item"],
                 ["add", "item-axe", "item-torch", "--to", "depot"]):
        assert run_ledger(*args, db=db).returncode == 0
    plain = run_ledger("shuffle", "deck:item", db=db)
    assert plain.returncode == 0 and "note:" not in plain.stderr, plain.stderr
    seeded = run_ledger("shuffle", "deck:item", "--seed", "7", db=db)
    assert seeded.returncode == 0
    (note,) = seeded.stderr.splitlines()
    assert note.startswith("note: seq 6 gave deck:item an order from the seed you typed"), note
    assert run_ledger("--actor", "ana", "draw", "deck:item", "--count", "3", db=db).returncode == 0
    refill = run_ledger("--actor", "ana", "draw", "deck:item", "--seed", "7", db=db)  # a hero's seed: refused
    assert refill.returncode != 0 and "note:" not in refill.stderr
    refill = run_ledger("draw", "deck:item", "--to", "inventory:ana", "--seed", "7", db=db)  # the depot refills it
    assert refill.returncode == 0, refill.stderr
    assert "note: seq 8 gave deck:item an order from the seed you typed" in refill.stderr, refill.stderr
    bare = run_ledger("add", "item-dagger", "--to", "deck:item", db=db)
    assert bare.returncode == 0 and "note:" not in bare.stderr
    scripted = run_ledger("--json", "shuffle", "deck:item", "--seed", "8", db=db)  # a script seeds on purpose
    assert scripted.returncode == 0 and scripted.stderr == ""
