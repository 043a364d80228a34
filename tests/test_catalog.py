"""The card catalog (RULES.md §2): loading from TOML ([[cards]]) and CSV, and refusing
bad files with one line that names the file, the row (CSV) or card id (TOML), and the field."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from ledger.catalog import Catalog, Effect, load_catalog, parse_csv, sample_catalog_path
from ledger.errors import BadCatalog
from ledger.vocabulary import SHEET_SUITS, Suit

from .conftest import run_ledger

HEADER = "id,suit,name,level,value,knowledge,task,effects"

# The same four cards in both formats: a sheet card, two asset cards with effects and
# tasks, and one with the optional cosmetic columns.
SAME_CARDS_TOML = """\
[[cards]]
id = "house-north"
suit = "house"
name = "Casa do Norte"
level = 1
effects = ["auto"]

[[cards]]
id = "item-torch"
suit = "item"
name = "Tocha"
level = 2
value = 3
knowledge = 1
task = "bury"
effects = ["activate", "auto@attachment"]

[[cards]]
id = "skill-heal"
suit = "skill"
name = "Cura"
level = 3
value = 12
knowledge = 0
task = "discard"
effects = ["activate@anywhere"]
rarity = "rare"
art = "foil"
artist = "Rita"

[[cards]]
id = "event-storm"
suit = "event"
name = "Tempestade"
level = 1
value = 0
knowledge = 0
"""

SAME_CARDS_CSV = f"""\
{HEADER},rarity,art,artist
house-north,house,Casa do Norte,1,,,,auto,common,standard,
item-torch,item,Tocha,2,3,1,bury,activate;auto@attachment,common,standard,
skill-heal,skill,Cura,3,12,0,discard,activate@anywhere,rare,foil,Rita
event-storm,event,Tempestade,1,0,0,,,common,standard,
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def toml_card(**fields) -> str:
    """One [[cards]] table; a valid asset card unless fields say otherwise."""
    card = {"id": "item-x", "suit": "item", "name": "X", "level": 1, "value": 2, "knowledge": 0}
    card.update(fields)
    lines = ["[[cards]]"]
    for key, value in card.items():
        if value is None:
            continue
        lines.append(f"{key} = {json.dumps(value)}")  # JSON scalars and lists are valid TOML here
    return "\n".join(lines) + "\n"


def refusal(path: Path) -> str:
    """Loads a file that must be refused; returns the one-line message."""
    with pytest.raises(BadCatalog) as info:
        load_catalog(path)
    message = str(info.value)
    assert "\n" not in message and "\r" not in message, f"message spans several lines: {message!r}"
    assert str(path) in message, f"message does not name the file: {message!r}"
    return message


# -- the shipped sample -----------------------------------------------------------
@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog(sample_catalog_path())


def test_sample_catalog_has_all_seven_suits_with_at_least_twelve_cards_each(sample):
    per_suit = Counter(card.suit for card in sample)
    assert set(per_suit) == set(Suit)
    assert all(n >= 12 for n in per_suit.values()), per_suit


def test_sample_catalog_has_levels_one_to_three_in_every_suit(sample):
    for suit in Suit:
        levels = {card.level for card in sample if card.suit is suit}
        assert levels == {1, 2, 3}, (suit, levels)


def test_sample_catalog_asset_cards_have_value_and_knowledge(sample):
    assets = [card for card in sample if card.suit.is_asset]
    assert assets
    for card in assets:
        assert isinstance(card.value, int) and card.value >= 0, card.id
        assert isinstance(card.knowledge, int) and card.knowledge >= 0, card.id


def test_sample_catalog_sheet_cards_have_no_value_nor_knowledge(sample):
    sheets = [card for card in sample if card.suit in SHEET_SUITS]
    assert sheets
    assert all(card.value is None and card.knowledge is None for card in sheets)


def test_sample_catalog_ids_are_unique_and_indexable(sample):
    assert len(sample) == len(set(sample.ids())) == len(list(sample))
    assert sample["item-sword"].suit is Suit.ITEM
    assert "item-sword" in sample


# -- TOML and CSV -------------------------------------------------------------------
def test_csv_and_toml_describing_the_same_cards_give_equal_catalogs(tmp_path):
    from_toml = load_catalog(write(tmp_path, "cards.toml", SAME_CARDS_TOML))
    from_csv = load_catalog(write(tmp_path, "cards.csv", SAME_CARDS_CSV))
    assert from_csv.ids() == from_toml.ids() == ["house-north", "item-torch", "skill-heal", "event-storm"]
    assert list(from_csv) == list(from_toml)


def test_csv_suffix_is_recognised_case_insensitively(tmp_path):
    catalog = load_catalog(write(tmp_path, "CARDS.CSV", SAME_CARDS_CSV))
    assert len(catalog) == 4


def test_csv_effects_parse_into_kind_and_scope(tmp_path):
    catalog = load_catalog(write(tmp_path, "cards.csv", SAME_CARDS_CSV))
    torch = catalog["item-torch"]
    assert torch.effects == (Effect(kind="activate", scope="card"), Effect(kind="auto", scope="attachment"))
    assert [str(e) for e in torch.effects] == ["activate", "auto@attachment"]
    assert torch.has_effect(kind="auto", scope="attachment")
    assert not torch.has_effect(kind="activate", scope="attachment")


def test_effect_parse_without_scope_means_the_cards_own_effect():
    assert Effect.parse("activate") == Effect(kind="activate", scope="card")
    assert Effect.parse(" auto@discard ") == Effect(kind="auto", scope="discard")


def test_csv_blank_task_value_and_knowledge_cells_are_absent(tmp_path):
    catalog = load_catalog(write(tmp_path, "cards.csv", SAME_CARDS_CSV))
    house = catalog["house-north"]
    assert house.value is None and house.knowledge is None and house.task is None
    storm = catalog["event-storm"]
    assert storm.task is None and storm.effects == ()
    assert storm.value == 0 and storm.knowledge == 0


def test_csv_without_optional_columns_uses_the_cosmetic_defaults(tmp_path):
    path = write(tmp_path, "cards.csv", f"{HEADER}\nitem-a,item,A,1,5,0,,\n")
    card = load_catalog(path)["item-a"]
    assert (card.rarity, card.art, card.artist) == ("common", "standard", "")
    assert card.value == 5 and card.level == 1


def test_csv_cells_and_header_are_trimmed(tmp_path):
    path = write(tmp_path, "cards.csv", " id , suit ,name,level,value,knowledge,task,effects\n item-a , item ,A, 2 , 5 ,0, discard , activate \n")
    card = load_catalog(path)["item-a"]
    assert (card.suit, card.level, card.value, card.task) == (Suit.ITEM, 2, 5, "discard")
    assert card.effects == (Effect(kind="activate"),)


def test_catalog_keeps_file_order(tmp_path):
    path = write(tmp_path, "cards.csv", f"{HEADER}\nitem-b,item,B,1,1,0,,\nitem-a,item,A,1,1,0,,\nitem-c,item,C,1,1,0,,\n")
    assert load_catalog(path).ids() == ["item-b", "item-a", "item-c"]


def test_a_non_csv_suffix_is_read_as_toml(tmp_path):
    catalog = load_catalog(write(tmp_path, "cards.txt", SAME_CARDS_TOML))
    assert catalog["skill-heal"].artist == "Rita"


def test_unknown_card_lookup_is_refused_with_a_hint(sample):
    from ledger.errors import UnknownCard

    with pytest.raises(UnknownCard, match="item-nope"):
        sample["item-nope"]


# -- bad CSV files ------------------------------------------------------------------
# (name, rows after the header, what the message must also contain). The first data row
# is row 2 of the file (the header is row 1).
BAD_CSV_ROWS = [
    ("asset-card-without-value", "item-ok,item,Ok,1,1,0,,\nitem-a,item,A,1,,0,,", ["row 3", "value"]),
    ("asset-card-without-knowledge", "item-a,item,A,1,3,,,", ["row 2", "knowledge"]),
    ("sheet-card-with-value", "house-a,house,A,1,3,,,", ["row 2", "value"]),
    ("sheet-card-with-knowledge", "house-a,house,A,1,,2,,", ["row 2", "knowledge"]),
    ("level-zero", "item-a,item,A,0,3,0,,", ["row 2", "level"]),
    ("level-four", "item-a,item,A,4,3,0,,", ["row 2", "level"]),
    ("non-integer-level", "item-a,item,A,two,3,0,,", ["row 2", "level"]),
    ("fractional-level", "item-a,item,A,1.5,3,0,,", ["row 2", "level"]),
    ("unknown-suit", "spell-a,spell,A,1,3,0,,", ["row 2", "suit"]),
    ("bad-effect-kind", "item-a,item,A,1,3,0,,attack", ["row 2", "effects"]),
    ("bad-effect-scope", "item-a,item,A,1,3,0,,auto@nowhere", ["row 2", "effects"]),
    ("bad-task", "item-a,item,A,1,3,0,exile,", ["row 2", "task"]),
    ("negative-value", "item-a,item,A,1,-1,0,,", ["row 2", "value"]),
    ("upper-case-id", "Item-A,item,A,1,3,0,,", ["row 2", "id"]),
    ("id-with-spaces", "item a,item,A,1,3,0,,", ["row 2", "id"]),
    ("sql-looking-id", "x'; drop table,item,A,1,3,0,,", ["row 2", "id"]),
    ("reserved-id-discard", "discard,item,A,1,3,0,,", ["row 2", "id"]),
    ("reserved-id-limbo", "limbo,item,A,1,3,0,,", ["row 2", "id"]),
    ("reserved-id-master", "master,item,A,1,3,0,,", ["row 2", "id"]),
    ("blank-id", ",item,A,1,3,0,,", ["row 2", "id"]),
    ("blank-name", "item-a,item,,1,3,0,,", ["row 2", "name"]),
    ("too-many-fields", "item-ok,item,Ok,1,1,0,,\nitem-a,item,A,1,3,0,,,surplus", ["row 3"]),
    ("too-few-fields", "item-a,item,A,1", ["row 2"]),
    # found by a QA pass: read as numbers by int() or pydantic, not as a person writes one
    ("level-written-as-a-fraction", "item-a,item,A,1.0,3,0,,", ["row 2", "level", "whole number"]),
    ("level-with-a-plus-sign", "item-a,item,A,+1,3,0,,", ["row 2", "level", "whole number"]),
    ("value-with-an-underscore", "item-a,item,A,1,1_000,0,,", ["row 2", "value", "whole number"]),
    ("knowledge-in-exponent-form", "item-a,item,A,1,3,1e1,,", ["row 2", "knowledge", "whole number"]),
    ("an-empty-effect", "item-a,item,A,1,3,0,,activate;;auto", ["row 2", "effects", "empty effect"]),
    ("only-a-separator", "item-a,item,A,1,3,0,,;", ["row 2", "effects", "empty effect"]),
    ("a-scope-left-out", "item-a,item,A,1,3,0,,activate@", ["row 2", "effects", "scope after @"]),
    ("a-terminal-escape-in-a-name", "item-a,item,A\x1b[2J,1,3,0,,", ["row 2", "name", "not printable", "\\x1b"]),
    ("a-line-break-in-a-name", 'item-a,item,"A\nB",1,3,0,,', ["row 2", "name", "not printable"]),
    ("surplus-fields-over-two-lines", 'item-a,item,A,1,3,0,,,"x\ny"', ["row 2", "more fields than columns"]),
    ("two-separators-at-the-end", "item-a,item,A,1,3,0,,activate;;", ["row 2", "effects", "empty effect"]),
]


@pytest.mark.parametrize("rows, must_name", [pytest.param(r, m, id=n) for n, r, m in BAD_CSV_ROWS])
def test_bad_csv_row_is_refused_naming_file_row_and_field(tmp_path, rows, must_name):
    message = refusal(write(tmp_path, "bad.csv", f"{HEADER}\n{rows}\n"))
    for part in must_name:
        assert part in message, f"{part!r} not in {message!r}"


def test_duplicate_card_id_in_csv_is_refused_naming_the_id_and_its_second_row(tmp_path):
    message = refusal(write(tmp_path, "dup.csv", f"{HEADER}\nitem-a,item,A,1,3,0,,\nitem-a,item,B,1,3,0,,\n"))
    assert "item-a" in message
    assert "twice" in message or "duplicate" in message
    assert "row 3" in message, f"the duplicate's row is not named: {message!r}"


def test_csv_missing_column_is_refused_naming_the_column(tmp_path):
    message = refusal(write(tmp_path, "cols.csv", "id,suit,name,level,value,knowledge,effects\nitem-a,item,A,1,3,0,\n"))
    assert "missing column" in message and "task" in message


def test_csv_unknown_extra_column_is_refused_naming_the_column(tmp_path):
    message = refusal(write(tmp_path, "cols.csv", f"{HEADER},colour\nitem-a,item,A,1,3,0,,,red\n"))
    assert "colour" in message and "unknown column" in message


def test_csv_with_only_a_header_is_refused_as_having_no_cards(tmp_path):
    message = refusal(write(tmp_path, "empty.csv", f"{HEADER}\n"))
    assert "no cards" in message


def test_empty_csv_file_is_refused(tmp_path):
    message = refusal(write(tmp_path, "empty.csv", ""))
    assert "missing column" in message


@pytest.mark.parametrize("name", ["bom.toml", "bom.csv"])
def test_a_catalog_saved_with_a_byte_order_mark_loads(tmp_path, name):
    """A QA pass: a TOML catalog saved by Notepad (a byte order mark first) was "not valid TOML"."""
    text = toml_card(id="item-a") if name.endswith(".toml") else f"{HEADER}\nitem-a,item,A,1,3,0,,\n"
    path = tmp_path / name
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_catalog(path).ids() == ["item-a"]


def test_one_separator_after_the_last_effect_is_a_spreadsheets_habit_and_taken(tmp_path):
    catalog = load_catalog(write(tmp_path, "ok.csv", f"{HEADER}\nitem-a,item,A,1,3,0,,activate;auto@discard;\n"))
    assert [str(e) for e in catalog["item-a"].effects] == ["activate", "auto@discard"]


def test_csv_id_with_a_line_break_is_refused_in_one_line(tmp_path):
    # A quoted cell may hold a line break; the refusal must still be one line.
    refusal(write(tmp_path, "nl.csv", f'{HEADER}\n"item\nx",item,A,1,3,0,,\n'))


# -- bad TOML files -----------------------------------------------------------------
BAD_TOML_CARDS = [
    ("asset-card-without-value", toml_card(id="item-a", value=None), ["'item-a'", "value"]),
    ("asset-card-without-knowledge", toml_card(id="item-a", knowledge=None), ["'item-a'", "knowledge"]),
    ("sheet-card-with-value", toml_card(id="class-a", suit="class", knowledge=None, value=3), ["'class-a'", "value"]),
    ("level-zero", toml_card(id="item-a", level=0), ["'item-a'", "level"]),
    ("level-four", toml_card(id="item-a", level=4), ["'item-a'", "level"]),
    ("non-integer-level-word", toml_card(id="item-a", level="two"), ["'item-a'", "level"]),
    ("non-integer-level-fraction", toml_card(id="item-a", level=1.5), ["'item-a'", "level"]),
    ("non-integer-level-boolean", toml_card(id="item-a", level=True), ["'item-a'", "level"]),
    ("unknown-suit", toml_card(id="spell-a", suit="spell"), ["'spell-a'", "suit"]),
    ("bad-effect-kind", toml_card(id="item-a", effects=["attack"]), ["'item-a'", "effects"]),
    ("bad-task", toml_card(id="item-a", task="exile"), ["'item-a'", "task"]),
    ("unknown-field", toml_card(id="item-a", colour="red"), ["'item-a'", "colour"]),
    ("upper-case-id", toml_card(id="Item-A"), ["'Item-A'", "id"]),
    ("id-with-spaces", toml_card(id="item a"), ["'item a'", "id"]),
    ("sql-looking-id", toml_card(id="x'; drop table"), ["drop table", "id"]),
    ("reserved-id-discard", toml_card(id="discard"), ["'discard'", "id"]),
    ("reserved-id-depot", toml_card(id="depot"), ["'depot'", "id"]),
    ("id-with-line-break", toml_card(id="item\nx"), ["id"]),
    ("missing-id", toml_card(id=None), ["cards entry 2", "id"]),  # the second [[cards]] table
    ("non-string-id", toml_card(id=17), ["cards entry 2", "id"]),
    ("missing-name", toml_card(id="item-a", name=None), ["'item-a'", "name"]),
    ("a-nul-in-the-artist", toml_card(id="item-a", artist="x\u0000y"), ["'item-a'", "artist", "not printable"]),
    ("a-right-to-left-override-in-a-name", toml_card(id="item-a", name="A\u202eB"), ["'item-a'", "name", "\\u202e"]),
    ("a-huge-artist", toml_card(id="item-a", artist="x" * 5000), ["'item-a'", "artist", "5000 characters"]),
]


@pytest.mark.parametrize("text, must_name", [pytest.param(t, m, id=n) for n, t, m in BAD_TOML_CARDS])
def test_bad_toml_card_is_refused_naming_file_card_id_and_field(tmp_path, text, must_name):
    good = toml_card(id="item-good")
    message = refusal(write(tmp_path, "bad.toml", good + "\n" + text))
    for part in must_name:
        assert part in message, f"{part!r} not in {message!r}"


def test_duplicate_card_id_in_toml_is_refused_naming_the_id(tmp_path):
    message = refusal(write(tmp_path, "dup.toml", toml_card(id="item-a") + toml_card(id="item-a", name="Y")))
    assert "'item-a'" in message and "twice" in message


def test_invalid_toml_syntax_is_refused(tmp_path):
    message = refusal(write(tmp_path, "broken.toml", '[[cards]]\nid = "item-a\nsuit = item\n'))
    assert "not valid TOML" in message


def test_toml_without_cards_tables_is_refused(tmp_path):
    message = refusal(write(tmp_path, "nocards.toml", '[[card]]\nid = "item-a"\n'))
    assert "[[cards]]" in message


def test_toml_cards_that_is_not_a_list_of_tables_is_refused(tmp_path):
    message = refusal(write(tmp_path, "flat.toml", 'cards = ["item-a", "item-b"]\n'))
    assert "entry 1" in message


def test_empty_toml_file_is_refused(tmp_path):
    message = refusal(write(tmp_path, "empty.toml", ""))
    assert "[[cards]]" in message


# -- files that cannot be read ------------------------------------------------------
def test_missing_catalog_file_is_refused(tmp_path):
    message = refusal(tmp_path / "nowhere.toml")
    assert "no such" in message


def test_directory_given_as_catalog_is_refused(tmp_path):
    folder = tmp_path / "cards.toml"
    folder.mkdir()
    refusal(folder)


@pytest.mark.parametrize("name", ["latin1.csv", "latin1.toml"])
def test_catalog_file_that_is_not_utf8_is_refused(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".csv"):
        path.write_bytes(f"{HEADER}\nitem-a,item,Ma\xe7\xe3,1,3,0,,\n".encode("latin-1"))
    else:
        path.write_bytes(
            b'[[cards]]\nid = "item-a"\nsuit = "item"\nname = "Ma\xe7\xe3"\nlevel = 1\nvalue = 2\nknowledge = 0\n'
        )
    message = refusal(path)
    assert "not UTF-8 text" in message and "Error" not in message


# -- pieces used directly -----------------------------------------------------------
def test_catalog_of_no_cards_is_refused():
    with pytest.raises(BadCatalog, match="no cards"):
        Catalog([])


def test_parse_csv_names_the_source_it_is_given():
    with pytest.raises(BadCatalog, match=r"^upload\.csv row 2 \(item-a\): level"):
        parse_csv(f"{HEADER}\nitem-a,item,A,9,3,0,,\n", "upload.csv")


# -- the command line -----------------------------------------------------------------
def _assert_no_campaign_recorded(db: Path) -> None:
    if not db.exists():
        return
    listed = run_ledger("--json", "campaigns", db=db)
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == []


def test_cli_init_with_a_bad_catalog_exits_1_with_one_error_line(tmp_path):
    bad = write(tmp_path, "broken-cards.csv", f"{HEADER}\nitem-a,item,A,7,3,0,,\n")
    db = tmp_path / "c.db"
    result = run_ledger("init", "--catalog", str(bad), db=db)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ")
    assert "broken-cards.csv" in result.stderr and "row 2" in result.stderr and "level" in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    _assert_no_campaign_recorded(db)


def test_cli_init_with_a_bad_catalog_and_json_prints_an_error_object(tmp_path):
    bad = write(tmp_path, "broken-cards.toml", toml_card(id="item-a", suit="spell"))
    db = tmp_path / "c.db"
    result = run_ledger("--json", "init", "--catalog", str(bad), db=db)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    payload = json.loads(result.stdout)
    assert set(payload) == {"error"}
    assert set(payload["error"]) == {"code", "message"}
    assert payload["error"]["code"] == BadCatalog.code
    assert "broken-cards.toml" in payload["error"]["message"] and "suit" in payload["error"]["message"]
    _assert_no_campaign_recorded(db)


def test_cli_init_with_a_missing_catalog_file_records_nothing(tmp_path):
    db = tmp_path / "c.db"
    result = run_ledger("init", "--catalog", str(tmp_path / "absent.toml"), db=db)
    assert result.returncode == 1
    assert result.stderr.startswith("error: ") and "absent.toml" in result.stderr
    assert "Traceback" not in result.stderr
    _assert_no_campaign_recorded(db)


def test_cli_init_with_a_bad_catalog_leaves_an_existing_database_unchanged(tmp_path):
    db = tmp_path / "c.db"
    good = write(tmp_path, "good.toml", SAME_CARDS_TOML)
    first = run_ledger("--json", "init", "--catalog", str(good), "--name", "First", db=db)
    assert first.returncode == 0, first.stderr
    bad = write(tmp_path, "bad.toml", toml_card(id="item-a", level=0))
    result = run_ledger("--campaign", "second", "init", "--catalog", str(bad), db=db)
    assert result.returncode == 1 and "bad.toml" in result.stderr
    listed = run_ledger("--json", "campaigns", db=db)
    assert [c["id"] for c in json.loads(listed.stdout)] == ["first"]
