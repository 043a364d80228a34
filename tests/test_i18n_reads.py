"""The read side in Portuguese (issue 16): history summaries (with the cards counted as
Portuguese counts them), ``explain``, the zones and card views, the viewer's export and
the read models' consistency messages, in ``--lang pt``; English output as it was.

Zone, card and hero ids stay as they are in every language (they are what the players
type); the human zones table shows a zone's Portuguese name beside its id; a card's name
is the one of the language spoken (``name_pt``/``name_en``). The read models store the
English summary whatever language caught them up, so a Portuguese command leaves the
same rows as an English one, and the referee's Portuguese history is said again from
the log. A card a viewer may not identify stays hidden in Portuguese too.

One small campaign, every action recorded in Portuguese, is played once per module.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from .conftest import copy_db, read_tables, run_ledger

CATALOG = """\
[[cards]]
id = "item-lamp"
suit = "item"
name = "lamp-base"
name_en = "Oil Lamp"
name_pt = "Lamparina"
level = 1
value = 3
knowledge = 0

[[cards]]
id = "item-rope"
suit = "item"
name = "Corda"
level = 1
value = 2
knowledge = 0

[[cards]]
id = "item-key"
suit = "item"
name = "key-base"
name_en = "Iron Key"
name_pt = "Chave de Ferro"
level = 1
value = 4
knowledge = 0

[[cards]]
id = "item-secret"
suit = "item"
name = "secret-base"
name_en = "Sealed Letter"
name_pt = "Carta Selada"
level = 1
value = 1
knowledge = 0

[[cards]]
id = "item-coin"
suit = "item"
name = "Moeda"
level = 1
value = 1
knowledge = 0
"""

# Every action is recorded speaking Portuguese (the read models catch up in Portuguese).
# The language comes from $LEDGER_LANG: the tests' commands put --db first, and ``ledger
# --db FILE --lang pt`` is not heard as Portuguese (chosen_language stops at FILE).
SCRIPT = [
    ["init", "--catalog", "CATALOG", "--name", "Leituras"],               # 1
    ["hero", "add", "ana", "--knowledge", "1"],                            # 2
    ["add", "item-lamp", "item-rope", "item-key", "--to", "deck:item"],    # 3
    ["--actor", "ana", "draw", "deck:item", "--count", "2"],               # 4
    ["--actor", "ana", "draw", "deck:item"],                               # 5
    ["add", "item-secret", "--to", "inventory:ana"],                       # 6
    ["add", "item-coin", "--to", "discard"],                               # 7
]
DRAW_TWO, DRAW_ONE, SECRET = 4, 5, 6
UNSEEN_BY_PUBLIC = ("item-lamp", "item-rope", "item-key", "item-secret")  # all in ana's inventory, face-down
CARD_ID = re.compile(r"\bitem-[a-z]+\b")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("i18n-reads")
    catalog = folder / "catalog.toml"
    catalog.write_text(CATALOG, encoding="utf-8")
    path = folder / "campaign.db"
    for args in SCRIPT:
        pt(path, *[str(catalog) if a == "CATALOG" else a for a in args])
    return path


def speak(language: str, db: Path, *args: str) -> tuple[int, str]:
    """``ledger --db DB ARGS`` speaking ``language`` on a wide terminal: (status, stdout + stderr)."""
    result = run_ledger(*args, db=db, env={"COLUMNS": "1000", "LEDGER_LANG": language})
    return result.returncode, result.stdout + result.stderr


def said_ok(language: str, db: Path, *args: str) -> str:
    result = run_ledger(*args, db=db, env={"COLUMNS": "1000", "LEDGER_LANG": language})
    assert result.returncode == 0, f"ledger {' '.join(args)} exited {result.returncode}: {result.stderr}"
    assert "Traceback" not in result.stdout + result.stderr
    return result.stdout


def pt(db: Path, *args: str) -> str:
    return said_ok("pt", db, *args)


def en(db: Path, *args: str) -> str:
    return said_ok("en", db, *args)


def summaries(language: str, db: Path, *args: str) -> dict[int, str]:
    return {row["seq"]: row["summary"] for row in json.loads(said_ok(language, db, *args, "--json", "history"))}


# -- history ---------------------------------------------------------------------------------
def test_history_summaries_are_in_portuguese_counting_one_carta_and_two_cartas(db):
    said = summaries("pt", db, "--as", "referee")
    assert said[DRAW_TWO].startswith("compra 2 cartas de deck:item → inventory:ana: item-"), said[DRAW_TWO]
    assert said[DRAW_ONE].startswith("compra 1 carta de deck:item → inventory:ana: item-"), said[DRAW_ONE]
    assert said[SECRET] == "adiciona item-secret da caixa → inventory:ana"
    assert said[1] == "campanha 'Leituras' iniciada, 5 cartas na caixa"
    assert said[2] == "o herói ana (ana) entra, conhecimento 1"


def test_the_public_reads_the_hidden_cards_of_a_draw_as_uma_carta_oculta(db):
    said = summaries("pt", db, "--as", "public")
    assert said[DRAW_TWO] == "compra 2 cartas de deck:item → inventory:ana: uma carta oculta, uma carta oculta"
    assert said[DRAW_ONE] == "compra 1 carta de deck:item → inventory:ana: uma carta oculta"
    assert said[SECRET] == "adiciona uma carta oculta da caixa → inventory:ana"


def test_the_human_history_table_is_in_portuguese(db):
    out = pt(db, "--as", "public", "history")
    assert "Leituras — histórico visto por public" in out
    assert "o que aconteceu" in out and "what happened" not in out
    assert "compra 2 cartas de deck:item → inventory:ana: uma carta oculta, uma carta oculta" in out


def test_the_stored_summaries_stay_english_when_portuguese_commands_wrote_them(db):
    stored = dict(read_tables(db, "SELECT seq, summary FROM history ORDER BY seq"))
    assert stored[DRAW_TWO].startswith("draw 2 from deck:item → inventory:ana: item-"), stored[DRAW_TWO]
    assert stored[SECRET] == "add item-secret from the box → inventory:ana"
    # and the referee's English history is exactly those rows; Portuguese says them again
    assert summaries("en", db, "--as", "referee") == stored
    said = summaries("pt", db, "--as", "referee")
    assert said[DRAW_TWO] != stored[DRAW_TWO]
    assert set(CARD_ID.findall(said[DRAW_TWO])) == set(CARD_ID.findall(stored[DRAW_TWO]))  # the same cards
    assert en(db, "verify").startswith("ok: 7 actions of leituras")  # ok() also requires exit status 0


def test_english_history_reads_as_it_always_did(db):
    said = summaries("en", db, "--as", "public")
    assert said[DRAW_TWO] == "draw 2 from deck:item → inventory:ana: a hidden card, a hidden card"
    assert said[DRAW_ONE] == "draw 1 from deck:item → inventory:ana: a hidden card"
    assert said[1] == "campaign 'Leituras' started, 5 cards in the box"
    out = en(db, "--as", "public", "history")
    assert "Leituras — history as public" in out and "what happened" in out


# -- explain ---------------------------------------------------------------------------------
def test_explain_says_the_rules_checked_in_portuguese(db):
    out = pt(db, "--as", "public", "explain", str(DRAW_TWO))
    assert "draw por ana em" in out
    assert "compra 2 cartas de deck:item → inventory:ana: uma carta oculta, uma carta oculta" in out
    assert "§3 baralhos: deck:item é um baralho: as cartas saem do topo" in out
    assert "§9 o que um herói pode fazer: ana é um herói: " in out
    view = json.loads(pt(db, "--as", "public", "--json", "explain", str(DRAW_TWO)))
    assert {"rule": "§3 baralhos", "detail": "deck:item é um baralho: as cartas saem do topo"} in view["checks"]
    assert view["action"] == "draw" and view["actor"] == "ana"  # codes and ids stay


def test_explain_in_english_is_unchanged(db):
    view = json.loads(en(db, "--as", "public", "--json", "explain", str(DRAW_TWO)))
    assert {"rule": "§3 decks", "detail": "deck:item is a deck: cards come from its top"} in view["checks"]
    assert view["summary"] == "draw 2 from deck:item → inventory:ana: a hidden card, a hidden card"
    assert "draw by ana at" in en(db, "--as", "public", "explain", str(DRAW_TWO))


# -- zones and cards -------------------------------------------------------------------------
def test_the_zones_table_names_each_zone_in_portuguese_beside_its_id(db):
    out = pt(db, "--as", "public", "zones")
    for shown in ("Baralho de Item (deck:item)", "Inventário de ana (inventory:ana)", "Pilha de Descarte (discard)",
                  "Entreposto (depot)", "Mesa de ana (table:ana)", "Caixa (box)"):
        assert shown in out, shown
    assert "Leituras — após a seq 7, visto por public" in out
    assert "cartas (baralhos: topo primeiro)" in out and "▒ oculta" in out


def test_the_english_zones_table_shows_the_ids_alone(db):
    out = en(db, "--as", "public", "zones")
    assert "deck:item" in out and "(deck:item)" not in out and "Item Deck" not in out
    assert "cards (decks: top first)" in out and "▒ hidden" in out
    assert "Leituras — after seq 7, as public" in out


def test_the_json_zones_view_is_the_same_in_both_languages(db):
    assert json.loads(pt(db, "--as", "ana", "--json", "zones")) == json.loads(en(db, "--as", "ana", "--json", "zones"))


@pytest.mark.parametrize("card, portuguese, english", [
    ("item-lamp", "Lamparina", "Oil Lamp"),
    ("item-key", "Chave de Ferro", "Iron Key"),
    ("item-coin", "Moeda", "Moeda"),  # only a name: the same in both languages
])
def test_a_card_is_named_in_the_language_spoken(db, card, portuguese, english):
    assert json.loads(pt(db, "--as", "referee", "--json", "card", card))["name"] == portuguese
    assert json.loads(en(db, "--as", "referee", "--json", "card", card))["name"] == english


def test_the_card_view_reads_in_portuguese_and_the_table_keeps_the_catalog_name(db):
    out = pt(db, "--as", "ana", "card", "item-lamp")
    assert "item-lamp (Item, Lamparina) após a seq 7" in out
    assert "em Inventário de ana (inventory:ana), posição" in out and "face para baixo" in out
    assert "item-lamp (item, Oil Lamp) after seq 7" in en(db, "--as", "ana", "card", "item-lamp")
    assert read_tables(db, "SELECT name FROM cards WHERE id = 'item-lamp'") == [("lamp-base",)]
    coin = pt(db, "--as", "public", "card", "item-coin")
    assert "item-coin (Item, Moeda) após a seq 7" in coin and "Pilha de Descarte (discard)" in coin
    assert "estados: " in coin


# -- a hidden card stays hidden ---------------------------------------------------------------
@pytest.mark.parametrize("args", [
    ("history",), ("zones",), ("explain", str(DRAW_TWO)), ("explain", str(DRAW_ONE)), ("explain", str(SECRET)),
    ("--json", "history"), ("--json", "explain", str(SECRET)),
])
def test_no_card_the_public_may_not_identify_is_named_in_portuguese(db, args):
    said_pt, said_en = pt(db, "--as", "public", *args), en(db, "--as", "public", *args)
    for card in UNSEEN_BY_PUBLIC:
        assert card not in said_pt, card
    for name in ("Lamparina", "Chave de Ferro", "Carta Selada", "Corda"):
        assert name not in said_pt, name
    assert set(CARD_ID.findall(said_pt)) == set(CARD_ID.findall(said_en))  # the same cards named, in either
    assert "oculta" in said_pt


def test_the_publics_export_is_in_portuguese_and_names_no_hidden_card(db, tmp_path):
    target = tmp_path / "public.jsonl"
    pt(db, "--as", "public", "export", str(target))
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    note = lines[0]["export"]["note"]
    assert note.startswith("o que public pode saber da campanha leituras"), note
    actions = {line["seq"]: line for line in lines if "seq" in line}
    assert actions[DRAW_TWO]["summary"] == \
        "compra 2 cartas de deck:item → inventory:ana: uma carta oculta, uma carta oculta"
    assert actions[DRAW_TWO]["action"] == "draw"
    text = target.read_text(encoding="utf-8")
    for card in UNSEEN_BY_PUBLIC:
        assert card not in text, card


# -- the read models' messages ------------------------------------------------------------------
@pytest.mark.parametrize("language, line", [
    ("pt", (f"a linha seq {DRAW_ONE} de history da campanha leituras difere: summary é 'forjado', o registro dá "
            "'draw 1 from deck:item → inventory:ana: item-")),
    ("en", (f"history row seq {DRAW_ONE} of campaign leituras differs: summary is 'forjado', the log gives "
            "'draw 1 from deck:item → inventory:ana: item-")),
])
def test_verify_names_a_history_row_that_differs_in_the_language_spoken(db, tmp_path, language, line):
    """The row is named in the language spoken; the summaries compared are the stored
    (English) ones."""
    copy = copy_db(db, tmp_path)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE history SET summary = 'forjado' WHERE seq = ?", [DRAW_ONE])
    code, said = speak(language, copy, "verify")
    assert code != 0
    assert line in said, said
