"""Card names in both languages and the catalog loader in Portuguese (issue 16): catalogs
may give ``name``, ``name_en`` and ``name_pt`` (TOML keys, CSV columns); ``Card.shown_name``
is the name in the language being spoken, else ``name``, else the other language's; a card
with no name at all is refused in one line, in the language chosen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger.catalog import Card, load_catalog, parse_csv, parse_toml, sample_catalog_path
from ledger.errors import BadCatalog, UnknownCard
from ledger.formats import load_format
from ledger.i18n import speaking

from .conftest import run_ledger

HEADER = "id,suit,name,level,value,knowledge,task,effects"

# The same cards in both formats: both names, English only (with `name`), Portuguese
# only (without `name`), both without `name`, and `name` alone (a catalog of before).
BILINGUAL_TOML = """\
[[cards]]
id = "item-sword"
suit = "item"
name = "Espada"
name_en = "Sword"
name_pt = "Espada Curta"
level = 1
value = 3
knowledge = 0

[[cards]]
id = "item-rope"
suit = "item"
name = "Corda"
name_en = "Rope"
level = 1
value = 2
knowledge = 0

[[cards]]
id = "house-north"
suit = "house"
name_pt = "Casa do Norte"
level = 1

[[cards]]
id = "skill-dodge"
suit = "skill"
name_en = "Dodge"
name_pt = "Esquiva"
level = 2
value = 6
knowledge = 1

[[cards]]
id = "event-storm"
suit = "event"
name = "Tempestade"
level = 1
value = 4
knowledge = 0
"""

BILINGUAL_CSV = f"""\
{HEADER},name_en,name_pt
item-sword,item,Espada,1,3,0,,,Sword,Espada Curta
item-rope,item,Corda,1,2,0,,,Rope,
house-north,house,,1,,,,,,Casa do Norte
skill-dodge,skill,,2,6,1,,,Dodge,Esquiva
event-storm,event,Tempestade,1,4,0,,,,
"""

# What each card shows in English and in Portuguese.
SHOWN = {
    "item-sword": ("Sword", "Espada Curta"),
    "item-rope": ("Rope", "Corda"),  # no name_pt: `name`
    "house-north": ("Casa do Norte", "Casa do Norte"),  # only name_pt: English falls back to it
    "skill-dodge": ("Dodge", "Esquiva"),
    "event-storm": ("Tempestade", "Tempestade"),  # only `name`
}

OLD_CARD_KEYS = {"id", "suit", "name", "level", "value", "knowledge", "task", "effects", "rarity", "art", "artist"}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path: Path) -> str:
    with pytest.raises(BadCatalog) as info:
        load_catalog(path)
    message = str(info.value)
    assert "\n" not in message and "\r" not in message, message
    assert str(path) in message, f"message does not name the file: {message!r}"
    return message


def cli_refusal(*args: str, db: Path) -> str:
    """A refused ``ledger ... init``: exit 1, one stderr line and no traceback; the line.
    (The database is given as $LEDGER_DB so that ``--lang`` is the first option.)"""
    result = run_ledger(*args, env={"LEDGER_DB": str(db)})
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# -- loading both names -------------------------------------------------------------------
@pytest.fixture(params=["toml", "csv"])
def bilingual(request, tmp_path):
    text = BILINGUAL_TOML if request.param == "toml" else BILINGUAL_CSV
    return load_catalog(write(tmp_path, f"cards.{request.param}", text))


def test_toml_and_csv_with_name_en_and_name_pt_give_equal_catalogs(tmp_path):
    from_toml = load_catalog(write(tmp_path, "cards.toml", BILINGUAL_TOML))
    from_csv = load_catalog(write(tmp_path, "cards.csv", BILINGUAL_CSV))
    assert from_csv.ids() == from_toml.ids() == list(SHOWN)
    assert list(from_csv) == list(from_toml)
    assert (from_csv["item-sword"].name_en, from_csv["item-sword"].name_pt) == ("Sword", "Espada Curta")


@pytest.mark.parametrize("language, which", [("en", 0), ("pt", 1)])
def test_shown_name_is_the_name_in_the_language_spoken(bilingual, language, which):
    with speaking(language):
        shown = {card.id: card.shown_name for card in bilingual}
    assert shown == {card: names[which] for card, names in SHOWN.items()}


def test_shown_name_follows_the_language_of_the_moment_not_of_the_load(bilingual):
    sword = bilingual["item-sword"]
    with speaking("pt"):
        assert sword.shown_name == "Espada Curta"
        with speaking("en"):
            assert sword.shown_name == "Sword"
        assert sword.shown_name == "Espada Curta"


def test_a_card_without_its_languages_name_falls_back_to_name_then_to_the_other_language():
    only_pt = Card(id="item-a", suit="item", name="Nome", name_pt="Nome Português", level=1, value=1, knowledge=0)
    with speaking("en"):
        assert only_pt.shown_name == "Nome"  # `name` before the other language's
    only_en = Card(id="item-b", suit="item", name_en="English Name", level=1, value=1, knowledge=0)
    with speaking("pt"):
        assert only_en.shown_name == "English Name"  # `name` was taken from it


def test_a_card_without_name_takes_it_from_name_en_else_name_pt(bilingual):
    assert bilingual["skill-dodge"].name == "Dodge"  # both given: English
    assert bilingual["house-north"].name == "Casa do Norte"  # Portuguese only
    assert bilingual["item-sword"].name == "Espada"  # given: kept
    assert all(card.name for card in bilingual)


def test_csv_blank_language_cells_are_absent_names(bilingual):
    rope, storm = bilingual["item-rope"], bilingual["event-storm"]
    assert rope.name_pt is None and storm.name_en is None and storm.name_pt is None


def test_csv_without_a_name_column_loads_when_name_pt_stands_for_it(tmp_path):
    text = "id,suit,name_pt,level,value,knowledge,task,effects\nitem-a,item,Tocha,1,4,0,,\n"
    card = load_catalog(write(tmp_path, "pt-only.csv", text))["item-a"]
    assert (card.name, card.name_pt, card.name_en) == ("Tocha", "Tocha", None)


def test_csv_without_the_language_columns_still_loads(tmp_path):
    card = load_catalog(write(tmp_path, "old.csv", f"{HEADER}\nitem-a,item,Tocha,1,4,0,,\n"))["item-a"]
    assert (card.name, card.name_en, card.name_pt) == ("Tocha", None, None)
    with speaking("en"):
        assert card.shown_name == "Tocha"


# -- recorded cards: absent names are not serialised ----------------------------------------
def test_a_card_without_language_names_serialises_as_before(tmp_path):
    card = load_catalog(write(tmp_path, "old.csv", f"{HEADER}\nitem-a,item,Tocha,1,4,0,,\n"))["item-a"]
    assert set(card.model_dump(mode="json")) == OLD_CARD_KEYS
    assert set(json.loads(card.model_dump_json())) == OLD_CARD_KEYS


def test_a_card_with_language_names_serialises_them_and_reads_back_equal(bilingual):
    for card in bilingual:
        data = card.model_dump(mode="json")
        assert set(data) - OLD_CARD_KEYS == {k for k in ("name_en", "name_pt") if getattr(card, k) is not None}
        assert Card.model_validate(data) == card


# -- no name at all -------------------------------------------------------------------------
NAMELESS = {
    "toml-without-any-name": ("cards.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nlevel = 1\nvalue = 1\n'
                                            'knowledge = 0\n'), "card 'item-a'"),
    "toml-with-empty-name": ("cards.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nname = ""\nlevel = 1\n'
                                           'value = 1\nknowledge = 0\n'), "card 'item-a'"),
    "csv-with-blank-names": ("cards.csv", f"{HEADER},name_en,name_pt\nitem-a,item,,1,1,0,,,,\n", "row 2 (item-a)"),
    "csv-with-blank-name": ("cards.csv", f"{HEADER}\nitem-a,item,,1,1,0,,\n", "row 2 (item-a)"),
}


@pytest.mark.parametrize("name", sorted(NAMELESS))
def test_a_card_with_no_name_is_refused_saying_which_keys_name_it(tmp_path, name):
    filename, text, where = NAMELESS[name]
    message = refusal(write(tmp_path, filename, text))
    assert f"{where}: name: missing; give the card a name, name_en or name_pt" in message


def test_a_csv_with_no_name_column_is_refused_saying_name_en_or_name_pt_would_do(tmp_path):
    message = refusal(write(tmp_path, "cols.csv", "id,suit,level,value,knowledge,task,effects\nitem-a,item,1,1,0,,\n"))
    assert "missing column(s) name;" in message and "name_en or name_pt" in message


def test_a_csv_missing_another_column_keeps_its_message(tmp_path):
    text = "id,suit,name_pt,level,value,knowledge,effects\nitem-a,item,A,1,3,0,\n"
    message = refusal(write(tmp_path, "cols.csv", text))
    assert message.endswith(f"missing column(s) task; the header must be {HEADER}")


@pytest.mark.parametrize("name", sorted(NAMELESS))
def test_a_card_with_no_name_is_refused_in_portuguese(tmp_path, name):
    filename, text, _where = NAMELESS[name]
    path = write(tmp_path, filename, text)
    with speaking("pt"):
        message = refusal(path)
    where = "carta 'item-a'" if filename.endswith(".toml") else "linha 2 (item-a)"
    assert f"{where}: name: falta o nome; dê à carta name, name_en ou name_pt" in message


def test_cli_init_refuses_a_nameless_card_in_english_by_default(tmp_path):
    path = write(tmp_path, "nameless.toml", NAMELESS["toml-without-any-name"][1])
    line = cli_refusal("init", "--catalog", str(path), db=tmp_path / "c.db")
    assert line == f"error: {path} card 'item-a': name: missing; give the card a name, name_en or name_pt"
    if (tmp_path / "c.db").exists():  # nothing recorded
        listed = run_ledger("--json", "campaigns", env={"LEDGER_DB": str(tmp_path / "c.db")})
        assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stdout


@pytest.mark.parametrize("name", ["toml-without-any-name", "csv-with-blank-names"])
def test_cli_init_with_lang_pt_refuses_a_nameless_card_in_portuguese(tmp_path, name):
    filename, text, _where = NAMELESS[name]
    path = write(tmp_path, filename, text)
    line = cli_refusal("--lang", "pt", "init", "--catalog", str(path), db=tmp_path / "c.db")
    assert str(path) in line
    assert "name: falta o nome; dê à carta name, name_en ou name_pt" in line
    assert ("carta 'item-a'" if filename.endswith(".toml") else "linha 2 (item-a)") in line
    assert "missing" not in line and " row " not in line


def test_cli_init_with_lang_pt_and_json_gives_the_portuguese_message_under_message(tmp_path):
    path = write(tmp_path, "nameless.csv", NAMELESS["csv-with-blank-names"][1])
    result = run_ledger("--lang", "pt", "--json", "init", "--catalog", str(path),
                        env={"LEDGER_DB": str(tmp_path / "c.db")})
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert error["code"] == BadCatalog.code  # codes stay as they are
    assert error["message"] == f"{path} linha 2 (item-a): name: falta o nome; dê à carta name, name_en ou name_pt"


# -- the loader's other messages in Portuguese ---------------------------------------------
# (file name, text, what the Portuguese message says, what the English one says)
IN_PORTUGUESE = [
    ("asset-without-value", "c.csv", f"{HEADER}\nitem-a,item,A,1,,0,,\n",
     "c.csv linha 2 (item-a): value: obrigatório numa carta de recurso (item)",
     "c.csv row 2 (item-a): value: required for an asset card (item)"),
    ("sheet-with-knowledge", "c.toml",
     '[[cards]]\nid = "house-a"\nsuit = "house"\nname = "A"\nlevel = 1\nknowledge = 2\n',
     "c.toml carta 'house-a': knowledge: uma carta de ficha (house) não exige conhecimento",
     "c.toml card 'house-a': knowledge: a sheet card (house) has no knowledge requirement"),
    ("fractional-level", "c.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nname = "A"\nlevel = 1.5\nvalue = 1\n'
                                    'knowledge = 0\n'),
     "c.toml carta 'item-a': level: deve ser um número inteiro, escrito em algarismos (por exemplo 2)",
     "c.toml card 'item-a': level: must be a whole number, written in digits (e.g. 2)"),
    ("effects-not-a-list", "c.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nname = "A"\nlevel = 1\nvalue = 1\n'
                                      'knowledge = 0\neffects = 5\n'),
     "c.toml carta 'item-a': effects: uma lista de efeitos: activate ou auto, cada um opcionalmente com @escopo",
     "c.toml card 'item-a': effects: a list of effects: activate or auto, each optionally @scope"),
    ("upper-case-id", "c.csv", f"{HEADER}\nItem-A,item,A,1,1,0,,\n",
     "c.csv linha 2 ('Item-A'): id: deve ter só letras minúsculas, dígitos, '-', '_' ou '.' (p. ex. item-017)",
     "c.csv row 2 ('Item-A'): id: must be lower-case letters, digits, '-', '_' or '.' (e.g. item-017)"),
    ("reserved-id", "c.toml",
     '[[cards]]\nid = "limbo"\nsuit = "item"\nname = "A"\nlevel = 1\nvalue = 1\nknowledge = 0\n',
     "c.toml carta 'limbo': id: 'limbo' é o nome de uma zona ou de um observador; escolha outro id de carta",
     "c.toml card 'limbo': id: 'limbo' names a zone or a viewer; pick another card id"),
    ("duplicate-csv-id", "c.csv", f"{HEADER}\nitem-a,item,A,1,1,0,,\nitem-a,item,B,1,1,0,,\n",
     "c.csv linha 3: id: 'item-a' já é o id da linha 2",
     "c.csv row 3: id: 'item-a' is already the id of row 2"),
    ("duplicate-toml-id", "c.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nname = "A"\nlevel = 1\nvalue = 1\n'
                                     'knowledge = 0\n') * 2,
     "c.toml: o id de carta 'item-a' aparece duas vezes no catálogo",
     "c.toml: card id 'item-a' appears twice in the catalog"),
    ("not-a-table", "c.toml", 'cards = [1]\n',
     "c.toml: a entrada 1 de cards não é uma tabela", "c.toml: cards entry 1 is not a table"),
    ("no-cards", "c.toml", '[[card]]\nid = "a"\n',
     "c.toml: nenhuma tabela [[cards]]; cada carta é uma tabela [[cards]] com id, suit, name, level",
     "c.toml: no [[cards]] tables; each card is a [[cards]] table with id, suit, name, level"),
    ("unknown-column", "c.csv", f"{HEADER},colour\nitem-a,item,A,1,1,0,,,red\n",
     "c.csv: coluna(s) desconhecida(s): colour", "c.csv: unknown column(s) colour"),
    ("missing-name-column", "c.csv", "id,suit,level,value,knowledge,task,effects\nitem-a,item,1,1,0,,\n",
     ("c.csv: coluna(s) faltando: name; o cabeçalho deve ser id,suit,name,level,value,knowledge,task,effects "
     "(uma coluna name_en ou name_pt pode substituir name)"),
     ("c.csv: missing column(s) name; the header must be id,suit,name,level,value,knowledge,task,effects "
     "(a name_en or name_pt column may stand for name)")),
    ("header-only", "c.csv", f"{HEADER}\n", "c.csv: o catálogo não tem cartas", "c.csv: the catalog has no cards"),
    # pydantic's own words: English as pydantic writes them, Portuguese from ledger.errors.PROBLEMS
    ("level-too-high", "c.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nname = "A"\nlevel = 5\nvalue = 1\n'
                                  'knowledge = 0\n'),
     "c.toml carta 'item-a': level: deve ser menor ou igual a 3",
     "c.toml card 'item-a': level: Input should be less than or equal to 3"),
    ("no-suit", "c.toml", '[[cards]]\nid = "item-a"\nname = "A"\nlevel = 1\nvalue = 1\nknowledge = 0\n',
     "c.toml carta 'item-a': suit: campo obrigatório", "c.toml card 'item-a': suit: Field required"),
    ("unknown-effect-kind", "c.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nname = "A"\nlevel = 1\n'
                                       'value = 1\nknowledge = 0\neffects = ["zap"]\n'),
     "c.toml carta 'item-a': effects.kind: deve ser 'activate' ou 'auto'",
     "c.toml card 'item-a': effects.kind: Input should be 'activate' or 'auto'"),
    ("unknown-key", "c.toml", ('[[cards]]\nid = "item-a"\nsuit = "item"\nname = "A"\nlevel = 1\nvalue = 1\n'
                               'knowledge = 0\ncolour = "red"\n'),
     "c.toml carta 'item-a': colour: campo extra não permitido",
     "c.toml card 'item-a': colour: Extra inputs are not permitted"),
]


@pytest.mark.parametrize("filename, text, portuguese, english",
                         [pytest.param(*case[1:], id=case[0]) for case in IN_PORTUGUESE])
def test_the_loaders_refusals_are_in_the_language_spoken(filename, text, portuguese, english):
    parse = parse_csv if filename.endswith(".csv") else parse_toml
    for language, expected in (("pt", portuguese), ("en", english)):
        with speaking(language), pytest.raises(BadCatalog) as info:
            parse(text, filename)
        assert str(info.value) == expected


# A format file's problems in pydantic's words: (file text, Portuguese, English)
FORMAT_PROBLEMS = {
    "a stack without its kind": ('[[stacks]]\nid = "shelf"\nvisibility = "face-up"\n',
                                 "monte 'shelf' kind: campo obrigatório", "stack 'shelf' kind: Field required"),
    "a stack of no kind there is": (
        '[[stacks]]\nid = "shelf"\nkind = "heap"\nvisibility = "face-up"\n',
        "monte 'shelf' kind: deve ser 'deck', 'pile', 'hand', 'area', 'limbo' ou 'box'",
        "stack 'shelf' kind: Input should be 'deck', 'pile', 'hand', 'area', 'limbo' or 'box'"),
    "stacks that are no list": ("stacks = 3\n", "stacks: deve ser uma tupla (lista) válida",
                                "stacks: Input should be a valid tuple"),
}


@pytest.mark.parametrize("case", list(FORMAT_PROBLEMS))
def test_a_format_files_problems_are_in_the_language_spoken(tmp_path, case):
    text, portuguese, english = FORMAT_PROBLEMS[case]
    path = write(tmp_path, "format.toml", text)
    for language, expected in (("pt", portuguese), ("en", english)):
        with speaking(language), pytest.raises(BadCatalog) as info:
            load_format(path)
        assert str(info.value) == f"{path}: {expected}"


def test_unreadable_catalog_files_are_refused_in_portuguese(tmp_path):
    with speaking("pt"):
        assert "nowhere.toml: o arquivo de catálogo não existe; um exemplo vem com o ledger: " in refusal(
            tmp_path / "nowhere.toml")
        (tmp_path / "folder.toml").mkdir()
        assert "não foi possível ler o arquivo (" in refusal(tmp_path / "folder.toml")


def test_an_unknown_card_is_refused_in_portuguese():
    catalog = load_catalog(sample_catalog_path())
    with speaking("pt"), pytest.raises(UnknownCard) as info:
        catalog["zz-nope"]
    assert str(info.value) == ("não há carta 'zz-nope' no catálogo desta campanha; "
                               "os ids de carta são como house-north")


def test_a_misspelt_card_id_is_told_the_id_most_like_it():
    """Found by a newcomer's read: ``discard item-swrd`` was told ids look like house-north."""
    catalog = load_catalog(sample_catalog_path())
    for typed, meant in (("item-swrd", "item-sword"), ("Item-Sword", "item-sword"), ("skill-dodg", "skill-dodge")):
        with pytest.raises(UnknownCard) as info:
            catalog[typed]
        assert str(info.value).endswith(f"did you mean {meant}?"), str(info.value)
    with speaking("pt"), pytest.raises(UnknownCard) as info:
        catalog["item-swrd"]
    assert str(info.value).endswith("você quis dizer item-sword?")


# -- the sample catalog -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def sample():
    return load_catalog(sample_catalog_path())


def test_every_sample_card_has_an_english_name(sample):
    missing = [card.id for card in sample if not card.name_en]
    assert not missing
    with speaking("en"):
        shown = {card.id: card.shown_name for card in sample}
    assert shown == {card.id: card.name_en for card in sample}
    assert shown["item-sword"] == "Short Sword" and shown["item-potion"] == "Healing Potion"
    # English names, not the Portuguese ones again (a few words are the same in both)
    same = {card.id for card in sample if card.name_en == card.name}
    assert same <= {"entity-lich", "event-eclipse"}, same
    assert all(name.isascii() for name in shown.values())


def test_every_sample_card_has_a_portuguese_name(sample):
    with speaking("pt"):
        shown = {card.id: card.shown_name for card in sample}
    assert shown == {card.id: card.name for card in sample}  # `name` is the Portuguese name
    assert all(name for name in shown.values())
    assert shown["item-sword"] == "Espada Curta" and shown["skill-blessing"] == "Bênção"
    assert len(set(shown.values())) == len(shown), "two sample cards share a Portuguese name"


def test_sample_english_names_are_unique(sample):
    names = [card.name_en for card in sample]
    assert len(set(names)) == len(names)
