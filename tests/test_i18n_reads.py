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
# The language comes from $LEDGER_LANG (``said_ok``).
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
    assert said[2] == "o herói ana (ana) entra, com conhecimento 1"


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
    assert "compra, por ana, em" in out and "draw, por" not in out  # the action's name, not its id
    assert "compra 2 cartas de deck:item → inventory:ana: uma carta oculta, uma carta oculta" in out
    assert "§3 baralhos: deck:item é um baralho: as cartas saem do topo" in out
    assert "§9 o que um herói pode fazer: ana é um herói: " in out
    view = json.loads(pt(db, "--as", "public", "--json", "explain", str(DRAW_TWO)))
    assert {"rule": "§3 decks", "label": "§3 baralhos",
            "detail": "deck:item é um baralho: as cartas saem do topo"} in view["checks"]
    assert view["action"] == "draw" and view["actor"] == "ana"  # codes and ids stay


def test_explain_in_english_is_unchanged(db):
    view = json.loads(en(db, "--as", "public", "--json", "explain", str(DRAW_TWO)))
    assert {"rule": "§3 decks", "label": "§3 decks",
            "detail": "deck:item is a deck: cards come from its top"} in view["checks"]
    assert view["summary"] == "draw 2 from deck:item → inventory:ana: a hidden card, a hidden card"
    out = en(db, "--as", "public", "explain", str(DRAW_TWO))
    assert "draw by ana at" in out and "§3 decks: deck:item is a deck: cards come from its top" in out


@pytest.mark.parametrize("seq", [DRAW_TWO, SECRET])
def test_explains_rules_are_the_same_english_names_in_both_languages_and_only_the_label_is_translated(db, seq):
    """``--json`` stays language-neutral: ``rule`` is the rule's English name whatever
    the language; ``label`` is what a person reads."""
    said = {language: json.loads(said_ok(language, db, "--as", "public", "--json", "explain", str(seq)))["checks"]
            for language in ("en", "pt")}
    assert [c["rule"] for c in said["pt"]] == [c["rule"] for c in said["en"]]
    assert [c["label"] for c in said["en"]] == [c["rule"] for c in said["en"]]
    assert all(set(c) == {"rule", "label", "detail"} for c in said["pt"] + said["en"])
    assert [c["label"] for c in said["pt"]] != [c["rule"] for c in said["pt"]]


# -- the words of the game inside running text (a trade, an access effect, an activation) ------
@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo campaign (a trade at seq 27 priced in item price, the festival's access
    effect at 32, the fireball activated at 36), then an access effect on skills and a
    class card obtained by progression."""
    path = tmp_path_factory.mktemp("i18n-demo") / "demo.db"
    said_ok("en", path, "demo")
    said_ok("en", path, "access", "village", "skill", "1", "--by", "event-festival")       # 37
    said_ok("en", path, "location", "add", "keep", "--access", "class=3")                  # 38
    said_ok("en", path, "travel", "ana", "keep")                                           # 39
    said_ok("en", path, "obtain", "ana", "class-warrior", "--by", "progression")           # 40
    return path


DEMO_TRADE, DEMO_ACTIVATION, SKILL_ACCESS, OBTAINED = 27, 36, 37, 40


def test_a_trade_names_its_value_type_and_suit_in_portuguese_and_as_before_in_english(demo):
    said = summaries("pt", demo)
    assert said[DEMO_TRADE] == "ana troca em village: leva item-helm por item-axe, item-potion (preço 9 ≥ 6)"
    assert summaries("en", demo)[DEMO_TRADE] == \
        "ana trades at village: takes item-helm for item-axe, item-potion (price 9 ≥ 6)"
    out = pt(demo, "explain", str(DEMO_TRADE))
    assert f"seq {DEMO_TRADE}  troca, por ana, em " in out
    assert "§8 tipos de valor: preço (item): deu 9 ≥ levou 6; cada tipo de valor é acertado à parte" in out
    assert "§8 acesso: o acesso de item em village era 2 (o nível próprio de village)" in out
    assert "price" not in out and "trade" not in out
    english = en(demo, "explain", str(DEMO_TRADE))
    assert f"seq {DEMO_TRADE}  trade by ana at " in english
    assert "§8 value types: price (item): gave 9 ≥ took 6; each value type is settled on its own" in english


def test_an_access_effect_names_the_suit_in_portuguese(demo):
    assert summaries("pt", demo)[SKILL_ACCESS] == "event-festival define o acesso de habilidade em village como 1"
    assert summaries("en", demo)[SKILL_ACCESS] == "event-festival sets access for skill at village to 1"
    out = pt(demo, "explain", str(SKILL_ACCESS))
    assert "o efeito de event-festival define o acesso de habilidade em village como 1" in out
    assert f"seq {SKILL_ACCESS}  mudança de acesso, por master, em " in out
    assert "the effect of event-festival sets skill access at village to 1" in en(demo, "explain", str(SKILL_ACCESS))


def test_an_activation_names_its_effect_kind_in_portuguese(demo):
    said = summaries("pt", demo)[DEMO_ACTIVATION]
    assert said == "ana ativa skill-fireball (efeito 1, ativável) (alvo: goblin chief) → deck:skill"
    assert summaries("en", demo)[DEMO_ACTIVATION] == \
        "ana activates skill-fireball (effect 1, activate) on goblin chief → deck:skill"
    out = pt(demo, "explain", str(DEMO_ACTIVATION))
    assert "§6 ativação: ana ativou o efeito 1 (ativável) de skill-fireball" in out
    assert f"seq {DEMO_ACTIVATION}  ativação, por ana, em " in out


def test_an_obtained_sheet_card_names_the_mechanic_and_the_suit_in_portuguese(demo):
    assert summaries("pt", demo)[OBTAINED] == "ana obtém class-warrior por Progressão em keep → table:ana"
    assert summaries("en", demo)[OBTAINED] == "ana obtains class-warrior by progression at keep → table:ana"
    out = pt(demo, "explain", str(OBTAINED))
    assert f"seq {OBTAINED}  obtenção, por master, em " in out
    assert "§8 local: Progressão precisa de um local que a permita: ana estava em keep" in out
    assert "§8 acesso: o acesso de classe em keep era 3" in out
    english = en(demo, "explain", str(OBTAINED))
    assert "§8 location: progression needs a location that allows it: ana was at keep" in english
    assert "§8 access: access for class at keep was 3" in english


def test_a_sealed_deck_order_reads_selada_not_comprometida(demo):
    said = summaries("pt", demo)[9]
    assert said.startswith("embaralha deck:skill; ordem de deck:skill selada: "), said
    out = pt(demo, "explain", "9")
    assert "§4 embaralhamento selado: a nova ordem de deck:skill (4 cartas) está selada: sha256 " in out
    assert "comprometid" not in out


def test_every_recorded_action_and_obtaining_mechanic_has_a_portuguese_name():
    """The explain header names the action: every event type's ``action`` has a display
    name (the id itself in English), and so does each way of obtaining a sheet card."""
    from ledger import events
    from ledger.i18n import speaking
    from ledger.terms import action_name, mechanic_name

    actions = {cls.action for cls in vars(events).values()
               if isinstance(cls, type) and issubclass(cls, events.ActionRecorded)}
    assert {"draw", "trade", "hero add", "undo"} <= actions
    with speaking("pt"):
        names = {action: action_name(action) for action in actions}
        assert (mechanic_name("progression"), mechanic_name("incorporation")) == ("Progressão", "Incorporação")
    assert [a for a, name in names.items() if name == a] == []
    assert names["draw"] == "compra" and names["trade"] == "troca"
    with speaking("en"):
        assert all(action_name(action) == action for action in actions)
        assert mechanic_name("progression") == "progression"


# -- zones and cards -------------------------------------------------------------------------
def test_the_zones_table_names_each_zone_in_portuguese_beside_its_id(db):
    out = pt(db, "--as", "public", "zones")
    for shown in ("Baralho de Item (deck:item)", "Inventário de ana (inventory:ana)", "Pilha de Descarte (discard)",
                  "Entreposto (depot)", "Mesa de ana (table:ana)", "Caixa (box)"):
        assert shown in out, shown
    assert "Leituras — após a seq 7, visto por public" in out
    assert "cartas (baralhos: do topo para baixo)" in out and "▒ oculta" in out


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
    ("pt", f"a linha seq {DRAW_ONE} de history da campanha leituras difere do log em summary"),
    ("en", f"history row seq {DRAW_ONE} of campaign leituras differs from the log in its summary"),
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


def test_a_card_hidden_at_an_earlier_seq_is_said_hidden_then_not_now(demo):
    """Found by a QA pass: ``card --at SEQ`` of a card hidden from the viewer said "hidden
    from this viewer now" about a past moment."""
    for code, words in (("en", "hidden from this viewer after seq 34"),
                        ("pt", "oculta para este observador após a seq 34")):
        out = said_ok(code, demo, "--as", "bo", "card", "skill-fireball", "--at", "34")
        assert words in out and "now" not in out and "agora" not in out, out
