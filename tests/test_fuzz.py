"""Bad input, fuzzed with hypothesis (issue item 4), on real files and real SQLite.

(a) The catalog loader: TOML and CSV texts made by mutating a valid catalog (fields
    dropped or duplicated, wrong types, negative and huge numbers, unknown suits,
    unicode and SQL-looking ids, broken syntax, random bytes). ``parse_toml``,
    ``parse_csv`` and ``load_catalog`` either return a valid ``Catalog`` or raise
    ``BadCatalog`` with a one-line message; never any other exception.
(b) The command line: random argument lists for the playing and reading commands,
    built from valid and invalid tokens, run in-process through ``ledger.interface.cli.main``
    against a fresh copy of a prepared campaign file. Every case exits 0, 1 or 2;
    on 1 or 2 stderr is exactly one ``error: `` line; never a traceback; a refusal
    appends nothing; an accepted action still verifies.
(c) The ``--db`` file: missing, a directory, a text file, random bytes, an empty file,
    an unrelated SQLite file, and a real campaign file cut short: one ``error:`` line,
    exit 1, no traceback, and the file is left exactly as it was (a missing one is
    not created).
"""

from __future__ import annotations

import csv
import gc
import io
import json
import math
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ledger import commands as c
from ledger.application import Ledger
from ledger.audit import verify
from ledger.catalog import CARD_ID, CSV_COLUMNS, Catalog, load_catalog, parse_csv, parse_toml, sample_catalog_path
from ledger.errors import BadCatalog
from ledger.vocabulary import Suit
from projections.readmodel import ReadModel

from .conftest import one_error_line, run_ledger

SAMPLE = load_catalog(sample_catalog_path())
SQL = "x'; DROP TABLE stored_events;--"
SQL_TOKENS = [SQL, "1; DELETE FROM history", "' OR '1'='1", "Robert'); DROP TABLE cards;--", '"; --']
UNICODE_TOKENS = ["ñandú", "🃏", "Ωmega", "карта", "ｆｕｌｌ", "e\u0301", "\u202eevil", "名前"]
HUGE = [10**30, -(10**30), 2**63, 2**64, -(2**63) - 1]
def fuzz(examples: int) -> settings:
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


# =====================================================================================
# (a) the catalog loader
# =====================================================================================
def base_cards() -> list[dict]:
    """A few sample cards (sheet and asset, with tasks and scoped effects) as plain dicts."""
    picked = ["house-north", "class-mage", "item-torch", "item-potion", "skill-blessing", "companion-wolf",
              "event-storm"]
    cards = []
    for card_id in picked:
        raw = SAMPLE[card_id].model_dump(mode="json", exclude_none=True)
        raw["effects"] = [str(SAMPLE[card_id].effects[i]) for i in range(len(SAMPLE[card_id].effects))]
        cards.append(raw)
    return cards


BASE = base_cards()
FIELDS = ["id", "suit", "name", "level", "value", "knowledge", "task", "effects", "rarity", "art", "artist"]

weird_scalars = st.one_of(
    st.integers(-5, 5),
    st.sampled_from(HUGE + [1_000_001, 101, 4, 0, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(SQL_TOKENS + UNICODE_TOKENS + ["", " ", "moon", "ITEM", "activate@moon", "auto@", "@card",
                                                   "bury", "discard", "house", "item;skill", "a" * 300]),
)
weird_values = st.one_of(
    weird_scalars,
    st.lists(weird_scalars, max_size=3),
    st.dictionaries(st.sampled_from(["kind", "scope", "x", "id"]), weird_scalars, max_size=2),
)


@st.composite
def mutated_cards(draw) -> list[dict]:
    cards = [dict(card) for card in draw(st.lists(st.sampled_from(BASE), min_size=1, max_size=5, unique_by=id))]
    for _ in range(draw(st.integers(0, 4))):
        card = draw(st.sampled_from(cards))
        kind = draw(st.sampled_from(["drop", "value", "value", "suit", "id", "extra", "duplicate", "number"]))
        if kind == "drop" and card:
            card.pop(draw(st.sampled_from(sorted(card))))
        elif kind == "value":
            card[draw(st.sampled_from(FIELDS))] = draw(weird_values)
        elif kind == "suit":
            card["suit"] = draw(st.sampled_from(["moon", "ITEM", "items", "", "☀", SQL, "sheet", "asset"]))
        elif kind == "id":
            card["id"] = draw(st.sampled_from(SQL_TOKENS + UNICODE_TOKENS + [
                "", "box", "discard", "master", "Item-Sword", "-item", "a" * 65, "item sword", "item-sword",
                "item/../x", "deck:item"]))
        elif kind == "extra":
            card[draw(st.sampled_from(["color", "cost", "ID", "Suit", "hp"]))] = draw(weird_scalars)
        elif kind == "duplicate":
            cards.append(dict(card))
        elif kind == "number":
            card[draw(st.sampled_from(["level", "value", "knowledge"]))] = draw(st.sampled_from(HUGE + [-1, 0, 4]))
    return cards


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(v)


def to_toml(cards: list[dict]) -> str:
    parts = ["# a catalog\n"]
    for card in cards:
        parts.append("[[cards]]\n")
        parts.extend(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in card.items())
        parts.append("\n")
    return "".join(parts)


@st.composite
def text_mutations(draw, text: str) -> str:
    """Line and character level damage: lines dropped or repeated, junk inserted, a cut."""
    for _ in range(draw(st.integers(0, 3))):
        lines = text.splitlines(keepends=True)
        kind = draw(st.sampled_from(["drop", "repeat", "insert", "cut", "swap"]))
        if kind == "drop" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "".join(lines)
        elif kind == "repeat" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            text = "".join(lines)
        elif kind == "insert":
            i = draw(st.integers(0, len(text)))
            junk = draw(st.one_of(st.text(max_size=6), st.sampled_from(
                ['"', "'", "[", "]]", "=", ",", "\n", "\r", "\t", "\x00", "[[cards]]\n", "{", "\\", "\ufeff",
                 '"""', "#", ";", "\r\n"])))
            text = text[:i] + junk + text[i:]
        elif kind == "cut":
            text = text[:draw(st.integers(0, len(text)))]
        elif kind == "swap" and len(lines) > 1:
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            text = "".join(lines)
    return text


@st.composite
def toml_texts(draw) -> str:
    cards = draw(mutated_cards())
    shape = draw(st.sampled_from(["cards"] * 8 + ["table", "scalar", "empty", "other-key"]))
    if shape == "cards":
        text = to_toml(cards)
    elif shape == "table":
        text = "[cards]\n" + "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in cards[0].items())
    elif shape == "scalar":
        text = f"cards = {toml_value(draw(weird_values))}\n"
    elif shape == "empty":
        text = "cards = []\n"
    else:
        text = "[[card]]\n" + "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in cards[0].items())
    return draw(text_mutations(text))


def csv_cell(v) -> str:
    if isinstance(v, list):
        return ";".join(str(x) for x in v)
    if isinstance(v, dict):
        return json.dumps(v)
    if isinstance(v, bool):
        return str(v).lower()
    return str(v)


@st.composite
def csv_texts(draw) -> str:
    cards = draw(mutated_cards())
    header = list(CSV_COLUMNS) + draw(st.sampled_from([[], ["rarity"], ["rarity", "art", "artist"]]))
    kind = draw(st.sampled_from(["none"] * 6 + ["drop", "duplicate", "unknown", "shuffle", "case", "space"]))
    if kind == "drop":
        header.remove(draw(st.sampled_from(header)))
    elif kind == "duplicate":
        header.insert(draw(st.integers(0, len(header))), draw(st.sampled_from(header)))
    elif kind == "unknown":
        header.append(draw(st.sampled_from(["color", "ID", SQL, "ñ", ""])))
    elif kind == "shuffle":
        header = draw(st.permutations(header))
    elif kind == "case":
        header[0] = header[0].upper()
    elif kind == "space":
        header = [f" {h} " for h in header]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=draw(st.sampled_from(["\n", "\r\n"])))
    writer.writerow(header)
    for card in cards:
        row = [csv_cell(card.get(h.strip(), "")) for h in header]
        extra = draw(st.sampled_from(["none"] * 5 + ["short", "long"]))
        if extra == "short" and row:
            row = row[:draw(st.integers(0, len(row) - 1))]
        elif extra == "long":
            row = row + [draw(st.sampled_from(["", "x", SQL]))]
        writer.writerow(row)
    return draw(text_mutations(buffer.getvalue()))


def assert_valid_catalog(catalog: Catalog) -> None:
    assert isinstance(catalog, Catalog) and len(catalog) >= 1
    for card in catalog:
        assert CARD_ID.fullmatch(card.id), card.id
        assert isinstance(card.suit, Suit)
        assert isinstance(card.level, int) and 1 <= card.level <= 3
        if card.suit.is_asset:
            assert isinstance(card.value, int) and 0 <= card.value <= 1_000_000
            assert isinstance(card.knowledge, int) and 0 <= card.knowledge <= 100
        else:
            assert card.value is None and card.knowledge is None
        assert card.task in (None, "discard", "bury")
        assert 1 <= len(card.name) <= 200


def loads_or_refuses(load) -> str:
    """The loader contract: a valid Catalog, or BadCatalog with one non-empty line."""
    try:
        catalog = load()
    except BadCatalog as exc:
        message = str(exc)
        assert message.strip(), "BadCatalog with an empty message"
        assert "\n" not in message and "\r" not in message, f"BadCatalog message is not one line: {message!r}"
        return "refused"
    except Exception as exc:  # the contract: nothing but BadCatalog
        pytest.fail(f"the loader raised {exc.__class__.__name__}: {str(exc)[:300]} instead of BadCatalog")
    assert_valid_catalog(catalog)
    return "loaded"


@fuzz(400)
@given(text=toml_texts())
@example(text=to_toml(BASE))
def test_mutated_toml_catalogs_load_or_are_refused_with_one_line_bad_catalog(text):
    loads_or_refuses(lambda: parse_toml(text, "cards.toml"))


@fuzz(400)
@given(text=csv_texts())
def test_mutated_csv_catalogs_load_or_are_refused_with_one_line_bad_catalog(text):
    loads_or_refuses(lambda: parse_csv(text, "cards.csv"))


@fuzz(80)
@given(data=st.one_of(st.binary(max_size=400), toml_texts().map(lambda t: t.encode("utf-8", "surrogatepass")),
                      csv_texts().map(lambda t: t.encode("utf-8", "surrogatepass"))),
       suffix=st.sampled_from([".toml", ".csv", ".TOML", ".txt", ""]))
def test_catalog_files_with_random_bytes_load_or_are_refused_with_one_line_bad_catalog(tmp_path_factory, data,
                                                                                          suffix):
    path = tmp_path_factory.mktemp("cat") / f"cards{suffix}"
    path.write_bytes(data)
    loads_or_refuses(lambda: load_catalog(path))


VALID_CARD = 'id = "item-x"\nsuit = "item"\nname = "X"\nlevel = 1\nvalue = 1\nknowledge = 0\n'
CSV_HEADER = ",".join(CSV_COLUMNS) + "\n"
PATHOLOGICAL = {
    # TOML
    "toml-effects-is-an-integer": ("cards.toml", "[[cards]]\n" + VALID_CARD + "effects = 5\n"),
    "toml-effects-is-a-boolean": ("cards.toml", "[[cards]]\n" + VALID_CARD + "effects = true\n"),
    "toml-effects-is-a-float": ("cards.toml", "[[cards]]\n" + VALID_CARD + "effects = 1.5\n"),
    "toml-integer-of-5000-digits": ("cards.toml", "[[cards]]\n" + VALID_CARD.replace("value = 1", "value = " + "9" * 5000)),
    "toml-arrays-nested-3000-deep": ("cards.toml", "cards = " + "[" * 3000 + "]" * 3000 + "\n"),
    "toml-sql-id": ("cards.toml", "[[cards]]\n" + VALID_CARD.replace('"item-x"', json.dumps(SQL))),
    "toml-unknown-suit": ("cards.toml", "[[cards]]\n" + VALID_CARD.replace('"item"', '"moon"')),
    "toml-huge-level": ("cards.toml", "[[cards]]\n" + VALID_CARD.replace("level = 1", f"level = {10**30}")),
    "toml-negative-value": ("cards.toml", "[[cards]]\n" + VALID_CARD.replace("value = 1", "value = -1")),
    "toml-nul-byte": ("cards.toml", "[[cards]]\n" + VALID_CARD + "\x00"),
    # CSV
    "csv-field-longer-than-the-csv-field-limit": (
        "cards.csv", CSV_HEADER + "item-x,item," + "N" * 200_000 + ",1,1,0,,activate\n"),
    "csv-value-of-200000-digits": ("cards.csv", CSV_HEADER + "item-x,item,X,1," + "9" * 200_000 + ",0,,activate\n"),
    "csv-value-of-5000-digits": ("cards.csv", CSV_HEADER + "item-x,item,X,1," + "9" * 5000 + ",0,,activate\n"),
    "csv-unclosed-quote": ("cards.csv", CSV_HEADER + 'item-x,item,"X,1,1,0,,activate\n'),
    "csv-sql-id": ("cards.csv", CSV_HEADER + f'"{SQL}",item,X,1,1,0,,activate\n'),
    "csv-negative-and-huge": ("cards.csv", CSV_HEADER + f"item-x,item,X,-1,{10**30},0,,activate\n"),
    "csv-header-only": ("cards.csv", CSV_HEADER),
}
# Odd but not necessarily wrong: loaded (as a valid catalog) or refused with one line.
ODD = {
    "csv-nul-byte-in-a-name": ("cards.csv", CSV_HEADER + "item-x,item,X\x00,1,1,0,,activate\n"),
    "csv-with-a-byte-order-mark": ("cards.csv", "\ufeff" + CSV_HEADER + "item-x,item,X,1,1,0,,activate\n"),
    "csv-duplicated-column": ("cards.csv", "id," + CSV_HEADER + "item-x,item-y,item,X,1,1,0,,activate\n"),
    "toml-unicode-name": ("cards.toml", "[[cards]]\n" + VALID_CARD.replace('"X"', '"名前 🃏 e\u0301"')),
}


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_pathological_catalog_files_are_refused_with_one_line_bad_catalog(tmp_path, name):
    filename, text = PATHOLOGICAL[name]
    path = tmp_path / filename
    path.write_text(text, encoding="utf-8")
    assert loads_or_refuses(lambda: load_catalog(path)) == "refused"


@pytest.mark.parametrize("name", sorted(ODD))
def test_odd_catalog_files_load_as_valid_catalogs_or_are_refused_with_one_line(tmp_path, name):
    filename, text = ODD[name]
    path = tmp_path / filename
    path.write_text(text, encoding="utf-8")
    loads_or_refuses(lambda: load_catalog(path))


@pytest.mark.parametrize("text", [
    CSV_HEADER + "item-x,item,X\r,1,1,0,,activate\n",
    CSV_HEADER + "item-x,item,X,1,1,0,,activate\rhouse-y,house,Y,1,,,,auto\n",
], ids=["bare-cr-in-a-field", "bare-cr-between-rows"])
def test_csv_text_with_a_bare_carriage_return_loads_or_is_refused_with_one_line_bad_catalog(text):
    loads_or_refuses(lambda: parse_csv(text, "cards.csv"))


def test_catalog_paths_that_are_missing_or_a_directory_are_refused_with_one_line_bad_catalog(tmp_path):
    assert loads_or_refuses(lambda: load_catalog(tmp_path / "nope.toml")) == "refused"
    (tmp_path / "adir.toml").mkdir()
    assert loads_or_refuses(lambda: load_catalog(tmp_path / "adir.toml")) == "refused"
    (tmp_path / "latin1.csv").write_bytes(CSV_HEADER.encode() + "item-x,item,Espa\xf1a,1,1,0,,\n".encode("latin-1"))
    assert loads_or_refuses(lambda: load_catalog(tmp_path / "latin1.csv")) == "refused"


# =====================================================================================
# helpers for the command line, run in this process
# =====================================================================================
def run_cli(*argv: str) -> tuple[int, str, str]:
    """``ledger ARGV`` in this process (``run_ledger``: the code path of ``python -m
    ledger``, with every connection it opened closed after, as when a process ends)."""
    result = run_ledger(*argv)
    return result.returncode, result.stdout, result.stderr


def assert_one_error_line(code: int, out: str, err: str, argv, codes=(1, 2)) -> str:
    """``one_error_line`` (conftest) of what ``run_cli`` returned, naming the arguments."""
    return one_error_line(subprocess.CompletedProcess(argv, code, out, err), exit_codes=codes, what=argv)


def event_count(db: Path) -> int:
    con = sqlite3.connect(str(db))
    try:
        return con.execute("SELECT count(*) FROM stored_events").fetchone()[0]
    finally:
        con.close()


def checkpoint(db: Path) -> None:
    con = sqlite3.connect(str(db))
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def fresh_copy(src: Path, dst: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(src, dst)
    return dst


@pytest.fixture(scope="module")
def prepared_db(tmp_path_factory) -> Path:
    """A campaign with heroes ana and bo, cards in decks, hands, a table, the discard
    pile and the depot, a location both heroes are at, read-model tables caught up."""
    db = tmp_path_factory.mktemp("prepared") / "campaign.db"
    app = Ledger.open(db, create=True)
    try:
        cid = app.start(SAMPLE, name="Fuzz", slug="fuzz").campaign.id
        run = lambda command: app.execute(cid, command)  # noqa: E731
        run(c.AddHero(hero="ana", name="Ana", knowledge=1))
        run(c.AddHero(hero="bo", name="Bo", knowledge=0))
        run(c.Add(cards=("item-sword", "item-bow", "item-rope", "item-torch", "item-potion", "item-axe"),
                  to="deck:item"))
        run(c.Add(cards=("companion-wolf", "companion-falcon"), to="deck:companion"))
        run(c.Add(cards=("skill-dodge", "skill-stealth", "skill-first-aid"), to="deck:skill"))
        run(c.Add(cards=("event-storm", "event-festival"), to="deck:event"))
        run(c.Add(cards=("house-north",), to="table:ana"))
        run(c.Draw(actor="ana", stack="deck:item", count=2))          # sword, bow
        run(c.Send(actor="ana", cards=("item-sword",), to="table:ana"))
        run(c.Draw(actor="ana", stack="deck:companion"))              # wolf
        run(c.Send(actor="ana", cards=("companion-wolf",), to="table:ana"))
        run(c.Draw(actor="bo", stack="deck:item"))                     # rope
        run(c.Discard(actor="ana", cards=("item-bow",)))
        run(c.Add(cards=("item-shield",), to="depot"))
        run(c.AddLocation(location="village", access={"item": 2, "skill": 2, "companion": 1, "event": 1}))
        run(c.Travel(actor="ana", hero="ana", location="village"))
        run(c.Travel(actor="bo", hero="bo", location="village"))
        model = ReadModel(app, db)
        model.catch_up()
        model.close()
        assert verify(app, cid).ok
    finally:
        app.close()
    checkpoint(db)
    return db


# =====================================================================================
# (b) the command line, fuzzed
# =====================================================================================
CARDS_OK = ["item-sword", "item-bow", "item-rope", "item-torch", "item-potion", "companion-wolf", "skill-dodge",
            "event-storm", "house-north", "item-shield", "companion-falcon"]
CARDS_BAD = ["ghost-card", "", " ", "ITEM-SWORD", "item-sword ", "box", "deck:item", *SQL_TOKENS[:3],
             *UNICODE_TOKENS[:4]]
ZONES_OK = ["deck:item", "deck:skill", "deck:companion", "deck:event", "deck:house", "discard", "depot", "scenario",
            "limbo", "box", "table:ana", "inventory:ana", "extra:ana", "table:bo", "inventory:bo"]
ZONES_BAD = ["deck:nope", "inventory:ghost", "table:", ":", "deck:item:extra", "deck", "inventory", "DECK:ITEM",
             "", SQL, "🂠", "on:item-sword"]
HEROES_OK = ["ana", "bo"]
HEROES_BAD = ["ghost", "master", "referee", "public", "Ana", "", " ", SQL, "ñandú", "a" * 40]
NUMBERS = ["0", "1", "2", "3", "5", "-1", "-7", str(10**30), str(-(10**30)), str(2**63), "9" * 5000, "1e3",
           "1.5", "", "abc", "0x10", " 1", "١"]
SUIT_TOKENS = [str(s) for s in Suit] + ["moon", "", "ITEM", SQL, "ñ"]
LOCATIONS = ["village", "city", "ghost", "", "Village", SQL, "ñ", "a" * 40]
PAIRS = ["item=2", "skill=1", "companion=0", "moon=1", "item=-1", f"item={10**30}", "item=", "=2", "item", "a=b=c",
         "item=x", f"{SQL}=1", "fire=3", "ñ=1"]
TEXTS = ["", "ana", "a goblin", SQL, "🃏", "x" * 300]


def chance(draw, p: float) -> bool:
    return draw(st.sampled_from(range(100))) < p * 100


def pick(draw, good, bad, p_bad=0.15):
    return draw(st.sampled_from(bad)) if chance(draw, p_bad) else draw(st.sampled_from(good))


def cards(draw, n_min=1, n_max=3):
    return [pick(draw, CARDS_OK, CARDS_BAD) for _ in range(draw(st.integers(n_min, n_max)))]


def zone(draw):
    return pick(draw, ZONES_OK, ZONES_BAD)


def number(draw):
    return draw(st.one_of(st.sampled_from(NUMBERS), st.integers(-3, 30).map(str)))


def opt(draw, name, value, p=0.4):
    return [name, value] if chance(draw, p) else []


def b_draw(d):
    return ["draw", zone(d), *opt(d, "--count", number(d)), *opt(d, "--to", zone(d)), *opt(d, "--seed", number(d))]


def b_send(d):
    return ["send", *cards(d), "--to", zone(d), *opt(d, "--position", d(st.sampled_from(
        ["top", "bottom", "middle", *NUMBERS[:8]]))), *opt(d, "--face", d(st.sampled_from(["up", "down", "side", ""])))]


def b_discard(d):
    if d(st.booleans()):
        return ["discard", *cards(d)]
    return ["discard", "--from", zone(d), *opt(d, "--count", number(d)), *opt(d, "--seed", number(d))]


def b_bury(d):
    return ["bury", *cards(d), *opt(d, "--to", zone(d))]


def b_exile(d):
    return ["exile", *cards(d)]


def b_shuffle(d):
    return ["shuffle", zone(d), *opt(d, "--seed", number(d), 0.7)]


def b_search(d):
    takes = [x for card in cards(d, 0, 2) for x in ("--take", card)]
    return ["search", zone(d), *takes, *opt(d, "--to", zone(d)), *opt(d, "--seed", number(d))]


def b_reveal(d):
    return [d(st.sampled_from(["reveal", "hide", "exhaust", "restore"])), *cards(d)]


def b_attach(d):
    return ["attach", pick(d, CARDS_OK, CARDS_BAD), "--to", pick(d, CARDS_OK, CARDS_BAD)]


def b_trade(d):
    args = ["trade", pick(d, HEROES_OK, HEROES_BAD)]
    if chance(d, 0.9):
        args += ["--take", *cards(d)]
    if d(st.booleans()):
        args += ["--give", *cards(d)]
    if chance(d, 0.3):
        args += ["--attach", f"{pick(d, CARDS_OK, CARDS_BAD)}={pick(d, CARDS_OK, CARDS_BAD)}"]
    return args


def b_activate(d):
    return ["activate", pick(d, CARDS_OK, CARDS_BAD), *opt(d, "--effect", number(d)),
            *opt(d, "--hero", pick(d, HEROES_OK, HEROES_BAD)), *opt(d, "--target", d(st.sampled_from(TEXTS))),
            *opt(d, "--note", d(st.sampled_from(TEXTS))), *opt(d, "--ap", number(d)),
            *opt(d, "--energy", d(st.sampled_from(PAIRS)))]


def b_zones(d):
    return ["zones", *opt(d, "--at", number(d))]


def b_card(d):
    return ["card", pick(d, CARDS_OK, CARDS_BAD), *opt(d, "--at", number(d))]


def b_history(d):
    return ["history", *opt(d, "--from", number(d)), *opt(d, "--to", number(d)),
            *opt(d, "--card", pick(d, CARDS_OK, CARDS_BAD)), *opt(d, "--actor", pick(d, HEROES_OK, HEROES_BAD)),
            *opt(d, "--limit", number(d))]


def b_explain(d):
    return ["explain", number(d)]


def b_undo(d):
    return ["undo", *opt(d, "--to", number(d))]


def b_location(d):
    access = [x for _ in range(d(st.integers(0, 3))) for x in ("--access", d(st.sampled_from(PAIRS)))]
    return ["location", "add", d(st.sampled_from(LOCATIONS)), *access]


def b_travel(d):
    return ["travel", pick(d, HEROES_OK, HEROES_BAD), d(st.sampled_from(LOCATIONS))]


def b_access(d):
    args = ["access", d(st.sampled_from(LOCATIONS)), d(st.sampled_from(SUIT_TOKENS))]
    if d(st.booleans()):
        args.append(number(d))
    if d(st.booleans()):
        args += ["--by", pick(d, CARDS_OK, CARDS_BAD)]
    if chance(d, 0.3):
        args.append("--clear")
    return args


BUILDERS = {
    "draw": b_draw, "send": b_send, "discard": b_discard, "bury": b_bury, "exile": b_exile, "shuffle": b_shuffle,
    "search": b_search, "reveal": b_reveal, "attach": b_attach, "trade": b_trade, "activate": b_activate,
    "zones": b_zones, "card": b_card, "history": b_history, "explain": b_explain, "undo": b_undo,
    "location": b_location, "travel": b_travel, "access": b_access,
}
JUNK = ["--", "-", "--to", "--nope", "-x", "--help", "--count", "=", "deck:nope", "inventory:ghost", str(10**30),
        "-1", "", SQL, "🃏"]


@st.composite
def cli_args(draw) -> tuple[list[str], list[str]]:
    """(global options, the command and its arguments)."""
    pre: list[str] = []
    if chance(draw, 0.5):
        pre += ["--actor", pick(draw, ["master", "ana", "bo"], HEROES_BAD, 0.2)]
    if chance(draw, 0.2):
        pre += ["--as", pick(draw, ["referee", "public", "ana", "bo"], HEROES_BAD, 0.3)]
    if chance(draw, 0.15):
        pre += ["--campaign", draw(st.sampled_from(["fuzz", "other", "", SQL, "ñ"]))]
    if draw(st.booleans()):
        pre.append("--json")
    args = BUILDERS[draw(st.sampled_from(sorted(BUILDERS)))](draw)
    for _ in range(draw(st.integers(1, 2)) if chance(draw, 0.25) else 0):
        kind = draw(st.sampled_from(["drop", "repeat", "junk", "swap"]))
        i = draw(st.integers(0, len(args) - 1))
        if kind == "drop" and len(args) > 1:
            del args[max(i, 1)]
        elif kind == "repeat":
            args.insert(i, args[i])
        elif kind == "junk":
            args.insert(max(i, 1), draw(st.one_of(st.sampled_from(JUNK), st.text(max_size=6))))
        elif kind == "swap" and len(args) > 2:
            j = draw(st.integers(1, len(args) - 1))
            args[max(i, 1)], args[j] = args[j], args[max(i, 1)]
    return pre, args


def test_random_cli_commands_exit_0_1_or_2_with_one_error_line_and_refusals_append_nothing(prepared_db, tmp_path):
    """Each case runs on a fresh copy of the prepared file (so a failing case replays
    exactly). An action that was accepted is checked by ``verify`` (it must decide again
    to the event stored); a refusal (exit 1 or 2) appended nothing."""
    db = tmp_path / "case.db"
    base = event_count(prepared_db)
    stats = {"runs": 0, "exit": {0: 0, 1: 0, 2: 0}, "appended": 0, "internal": []}

    @fuzz(400)
    @given(call=cli_args())
    @example(call=(["--json"], ["shuffle", "deck:item", "--seed", str(10**30)]))
    @example(call=([], ["history", "--from", str(10**30)]))
    @example(call=([], ["explain", str(10**30)]))
    @example(call=(["--actor", SQL], ["zones"]))
    @example(call=([], ["send", "item-rope", "--to", "deck:item", "--position", str(10**30)]))
    def case(call):
        pre, args = call
        argv = pre + args
        fresh_copy(prepared_db, db)
        code, out, err = run_cli("--db", str(db), *argv)
        stats["runs"] += 1
        stats["exit"][code] = stats["exit"].get(code, 0) + 1
        assert code in (0, 1, 2), f"{argv!r}: exit {code}\nstderr: {err[:2000]}"
        assert "Traceback" not in out + err, f"{argv!r}: a traceback reached the user:\n{err[:3000]}"
        after = event_count(db)
        if code != 0:
            line = assert_one_error_line(code, out, err, argv)
            assert after == base, f"{argv!r} was refused ({line}) but the log went from {base} to {after} events"
            if "unexpected failure" in line:
                stats["internal"].append((argv, line))
            if code == 1 and "--json" in pre:
                document = json.loads(out)  # --json: stdout is one JSON document naming the error
                assert document["error"]["message"] == line.removeprefix("error: "), (argv, out)
        else:
            assert "error:" not in err, f"{argv!r} exited 0 but printed {err!r}"
            assert after in (base, base + 1), f"{argv!r}: one command appended {after - base} events"
            if after == base + 1:
                stats["appended"] += 1
                app = Ledger.open(db)
                try:
                    report = verify(app, app.resolve("fuzz"))
                finally:
                    app.close()
                assert report.ok, f"{argv!r} was recorded but the log no longer verifies: {report}"

    case()
    print(f"\nCLI fuzz: {stats['runs']} runs, exits {stats['exit']}, {stats['appended']} actions recorded, "
          f"{len(stats['internal'])} internal failures")
    # the generator really reaches accepted actions, refusals and usage errors
    assert stats["appended"] > 0 and stats["exit"][1] > 0 and stats["exit"][2] > 0, stats


def test_random_cli_refusals_are_explained_never_reported_as_an_unexpected_internal_failure(prepared_db, tmp_path):
    """'unexpected failure (...); please report it' is the CLI's last-resort line for an
    exception nobody handled: a fuzzed input must never reach it."""
    db = tmp_path / "case.db"
    internal: list[tuple[list[str], str]] = []

    @fuzz(300)
    @given(call=cli_args())
    @example(call=([], ["history", "--from", str(10**30)]))
    @example(call=([], ["history", "--to", str(-(10**30))]))
    @example(call=([], ["card", "item-sword", "--at", str(10**30)]))
    @example(call=(["--json"], ["undo", "--to", str(10**30)]))
    def case(call):
        argv = call[0] + call[1]
        fresh_copy(prepared_db, db)
        code, out, err = run_cli("--db", str(db), *argv)
        if code != 0 and "unexpected failure" in err:
            internal.append((argv, err.strip()))

    case()
    shown = "\n".join(f"  ledger {' '.join(map(repr, argv))}  ->  {line}" for argv, line in internal[:8])
    assert not internal, f"{len(internal)} fuzzed commands ended in an internal failure, e.g.:\n{shown}"


def test_bad_catalogs_given_to_init_exit_1_with_one_error_line_and_create_no_database(tmp_path):
    counter = iter(range(10**6))

    @fuzz(40)
    @given(text=st.one_of(toml_texts(), csv_texts()), suffix=st.sampled_from([".toml", ".csv"]))
    def case(text, suffix):
        n = next(counter)
        catalog = tmp_path / f"cards{n}{suffix}"
        catalog.write_text(text, encoding="utf-8", errors="surrogatepass")
        db = tmp_path / f"new{n}.db"
        code, out, err = run_cli("--db", str(db), "init", "--catalog", str(catalog), "--name", "Fuzz")
        assert "Traceback" not in out + err
        if code == 0:
            app = Ledger.open(db)
            try:
                assert verify(app, app.resolve(None)).ok
            finally:
                app.close()
                gc.collect()
        else:
            assert_one_error_line(code, out, err, ["init", text[:200]], codes=(1,))
            assert not db.exists(), "a refused init left a database file behind"

    case()


def test_a_bad_catalog_given_to_init_on_an_existing_database_appends_nothing(prepared_db, tmp_path):
    db = fresh_copy(prepared_db, tmp_path / "campaign.db")
    before = db.read_bytes()
    for name, (filename, text) in sorted(PATHOLOGICAL.items()):
        catalog = tmp_path / filename
        catalog.write_text(text, encoding="utf-8")
        code, out, err = run_cli("--db", str(db), "--campaign", "second", "init", "--catalog", str(catalog))
        assert_one_error_line(code, out, err, [name], codes=(1,))
        assert event_count(db) == event_count(prepared_db)
    checkpoint(db)
    assert db.read_bytes() == before, "a refused init changed the database file"


@pytest.mark.parametrize("name", sorted(PATHOLOGICAL))
def test_init_with_a_pathological_catalog_names_the_file_instead_of_an_internal_failure(tmp_path, name):
    filename, text = PATHOLOGICAL[name]
    catalog = tmp_path / filename
    catalog.write_text(text, encoding="utf-8")
    db = tmp_path / "new.db"
    code, out, err = run_cli("--db", str(db), "init", "--catalog", str(catalog))
    line = assert_one_error_line(code, out, err, ["init", name], codes=(1,))
    assert "unexpected failure" not in line and "please report" not in line, line
    assert str(catalog) in line, f"the error does not name the catalog file: {line}"
    assert not db.exists()


# =====================================================================================
# (c) the --db file
# =====================================================================================
READS = [["zones"], ["history"], ["campaigns"], ["verify"], ["card", "item-sword"], ["--json", "zones"]]
READ_IDS = ["zones", "history", "campaigns", "verify", "card", "json-zones"]


def assert_refused_and_untouched(db: Path, argv: list[str], before: bytes | None) -> str:
    siblings = sorted(p.name for p in db.parent.iterdir())
    code, out, err = run_cli("--db", str(db), *argv)
    line = assert_one_error_line(code, out, err, argv, codes=(1,))
    if before is None:
        assert not db.exists(), f"{argv!r} created the missing database {db}"
    elif db.is_file():
        assert db.read_bytes() == before, f"{argv!r} changed the --db file ({len(before)} -> {db.stat().st_size} bytes)"
    created = sorted(set(p.name for p in db.parent.iterdir()) - set(siblings))
    assert not [name for name in created if not name.endswith(("-wal", "-shm"))], f"{argv!r} created {created}"
    return line


@pytest.mark.parametrize("argv", READS + [["draw", "deck:item"]], ids=READ_IDS + ["draw"])
def test_a_missing_db_is_refused_with_one_error_line_and_not_created(tmp_path, argv):
    db = tmp_path / "nowhere.db"
    line = assert_refused_and_untouched(db, argv, None)
    assert "no campaign database" in line
    assert sorted(os.listdir(tmp_path)) == [], f"files appeared: {os.listdir(tmp_path)}"


@pytest.mark.parametrize("argv", READS + [["draw", "deck:item"]], ids=READ_IDS + ["draw"])
def test_a_db_that_is_a_directory_is_refused_with_one_error_line(tmp_path, argv):
    db = tmp_path / "campaign.db"
    db.mkdir()
    (db / "keep").write_text("x")
    line = assert_refused_and_untouched(db, argv, b"")
    assert "directory" in line
    assert sorted(os.listdir(db)) == ["keep"]


def unrelated_sqlite(path: Path) -> None:
    con = sqlite3.connect(str(path))
    con.execute("CREATE TABLE recipes (name TEXT, minutes INTEGER)")
    con.execute("INSERT INTO recipes VALUES ('bread', 180)")
    con.commit()
    con.close()


NOT_CAMPAIGNS = {
    "empty-file": lambda p: p.write_bytes(b""),
    "text-file": lambda p: p.write_text("id,suit,name\nthis is not a database\n"),
    "toml-catalog": lambda p: p.write_bytes(sample_catalog_path().read_bytes()),
    "random-bytes": lambda p: p.write_bytes(bytes(range(256)) * 20),
    "sqlite-header-then-junk": lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 5000),
    "unrelated-sqlite-database": unrelated_sqlite,
}


@pytest.mark.parametrize("kind", sorted(NOT_CAMPAIGNS))
@pytest.mark.parametrize("argv", READS, ids=READ_IDS)
def test_a_db_that_is_not_a_campaign_database_is_refused_and_left_byte_for_byte_unchanged(tmp_path, kind, argv):
    db = tmp_path / "campaign.db"
    NOT_CAMPAIGNS[kind](db)
    before = db.read_bytes()
    assert_refused_and_untouched(db, argv, before)


def test_db_files_of_random_bytes_are_refused_and_left_unchanged(tmp_path):
    counter = iter(range(10**6))

    @fuzz(40)
    @given(data=st.binary(min_size=1, max_size=3000), argv=st.sampled_from(READS))
    def case(data, argv):
        db = tmp_path / f"random{next(counter)}.db"
        db.write_bytes(data)
        assert_refused_and_untouched(db, argv, data)

    case()


@pytest.fixture(scope="module")
def real_campaign(prepared_db, tmp_path_factory) -> tuple[bytes, int]:
    """The bytes of a real campaign file (log, snapshots and read-model tables) and its page size."""
    db = fresh_copy(prepared_db, tmp_path_factory.mktemp("real") / "campaign.db")
    app = Ledger.open(db)
    try:
        cid = app.resolve("fuzz")
        for i in range(150):  # enough actions for snapshots and several pages of events
            app.execute(cid, (c.Shuffle(stack="deck:skill", seed=i)))
        model = ReadModel(app, db)
        model.catch_up()
        model.close()
    finally:
        app.close()
    gc.collect()
    checkpoint(db)
    con = sqlite3.connect(str(db))
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    return db.read_bytes(), page


CUTS = {
    "50-bytes": lambda size, page: 50,
    "100-bytes": lambda size, page: 100,
    "first-page": lambda size, page: page,
    "two-pages": lambda size, page: 2 * page,
    "a-quarter": lambda size, page: size // 4,
    "half": lambda size, page: size // 2,
    "three-quarters": lambda size, page: (size * 3 // 4) // page * page,
}


@pytest.mark.parametrize("cut", sorted(CUTS))
@pytest.mark.parametrize("argv", READS, ids=READ_IDS)
def test_a_truncated_campaign_db_is_refused_with_one_error_line_and_left_unchanged(tmp_path, real_campaign, cut,
                                                                                   argv):
    data, page = real_campaign
    size = CUTS[cut](len(data), page)
    assert 0 < size < len(data)
    db = tmp_path / "campaign.db"
    db.write_bytes(data[:size])
    assert_refused_and_untouched(db, argv, data[:size])


@pytest.mark.parametrize("missing", [1, 100])
@pytest.mark.parametrize("argv", READS + [["draw", "deck:item"]], ids=READ_IDS + ["draw"])
def test_a_campaign_db_cut_short_inside_a_page_is_refused_as_damaged_and_never_changed(tmp_path, real_campaign,
                                                                                       argv, missing):
    """SQLite reads the lost end of a page as zeros without a word: a row of the last page
    would silently be another (and ``verify`` would "repair" the read models into a damaged
    file). So a file that ends partway through a page, with no WAL beside it that could
    still hold that page, is refused by every command, and left as it is."""
    data, _ = real_campaign
    db = tmp_path / "campaign.db"
    db.write_bytes(data[:-missing])
    line = assert_refused_and_untouched(db, argv, data[:-missing])
    assert "is damaged: it ends partway through a page" in line
