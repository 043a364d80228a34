"""The table server speaks each seat's language (issue 16): Brazilian Portuguese or
English per request — the seat's choice (``?lang=``, remembered in the ``ledger_lang``
cookie), else ``Accept-Language``, else English — in its pages, the texts its script
shows, and the messages of its errors, whose codes never change. Requests in two
languages served at once do not mix, and a language widens no seat: what a seat may not
see stays unseen in Portuguese too.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

from ledger.catalog import load_catalog, sample_catalog_path
from ledger.interface.server.app import MAX_BODY, create_app
from ledger.locale.catalogs import extract_files
from tests.conftest import run_ledger, stored_events
from tests.server_support import Table, serving, table
from tests.test_server_api import NO_CARD, Stream, one_error, patient

API = "/api/campaigns/demo"
PT = {"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"}
EN = {"Accept-Language": "en-US,en;q=0.9"}
SCRIPT = Path(__file__).parent.parent / "ledger" / "interface" / "server" / "static" / "table.js"
HIDDEN_FROM_BO = ("skill-first-aid", "item-shield")  # face down in ana's inventory after the demo
NEVER_SHOWN_TO_BO = "skill-first-aid"  # item-shield crossed the public discard pile: bo's history may name it
TEXTS = re.compile(r'<script type="application/json" id="ledger-texts">(.*?)</script>', re.DOTALL)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Table, TestClient]]:
    seated = table(tmp_path_factory.mktemp("i18n-server"))
    with TestClient(create_app(str(seated.db))) as client:
        patient(client)
        yield seated, client


def device(client: TestClient) -> TestClient:
    """Another device on the same running app: its own cookies (a ``?lang=`` choice sets one)."""
    return TestClient(client.app)


def as_(seated: Table, who: str, language: dict[str, str] | None = None) -> dict[str, str]:
    return {**seated.headers(who), **(language or {})}


def names_of(card: str) -> set[str]:
    """Every name a card has, in every language."""
    found = load_catalog(sample_catalog_path()).cards[card]
    return {name for name in (found.name, found.name_en, found.name_pt) if name}


def embedded_texts(page: str) -> dict[str, Any]:
    raw = TEXTS.search(page)
    assert raw is not None, "the page embeds no texts for its script"
    assert "<" not in raw.group(1), "the embedded JSON could close its <script>"
    return json.loads(raw.group(1))


# -- the page ------------------------------------------------------------------------------------
def test_accept_language_pt_gives_a_portuguese_page_and_no_header_an_english_one(demo):
    seated, client = demo
    pt = client.get("/", headers=as_(seated, "bo", PT))
    assert pt.status_code == 200
    vary = {part.strip().lower() for part in pt.headers["vary"].split(",")}
    assert pt.headers["content-language"] == "pt-BR" and {"accept-language", "cookie"} <= vary  # the cookie beats it
    assert '<html lang="pt-BR">' in pt.text
    for text in ("Linha do tempo", "Histórico", "você é <strong id=\"who\">bo</strong>", "Toque em cartas ou num baralho"):
        assert text in pt.text, text
    assert "Timeline" not in pt.text and "Loading the table" not in pt.text

    en = client.get("/", headers=seated.headers("bo"))
    assert en.status_code == 200 and en.headers["content-language"] == "en"
    assert '<html lang="en">' in en.text
    assert "Timeline" in en.text and "Loading the table…" in en.text and "Linha do tempo" not in en.text
    # a language the ledger does not speak: English
    fr = client.get("/", headers=as_(seated, "bo", {"Accept-Language": "fr-FR,fr;q=0.9"}))
    assert '<html lang="en">' in fr.text and fr.headers["content-language"] == "en"


@pytest.mark.parametrize("language, words", [(EN, ("this device holds no seat yet", "(the master prints one")),
                                              (PT, ("este dispositivo ainda não tem lugar", "(o mestre gera um"))])
def test_a_page_without_a_seat_speaks_to_a_player_not_to_a_script(demo, language, words):
    """A QA pass: the page a player's browser gets without a seat said "or send Authorization:
    Bearer TOKEN", the API's words for scripts; and the master, seen by the table page as
    "sees as referee" (the CLI's word), is said to see every card."""
    seated, client = demo
    page = device(client).get("/", headers=language)
    assert page.status_code == 401
    assert all(word in page.text for word in words), page.text
    assert "Bearer" not in page.text and "Authorization" not in page.text
    api = device(client).get(f"{API}/zones", headers=language)
    assert "Bearer" in api.json()["error"]["message"]  # a script is told how to authenticate
    master = client.get("/", headers=as_(seated, "master", language)).text
    assert ("(sees every card)" if language is EN else "(vê todas as cartas)") in master
    assert "sees as" not in master and "vê como" not in master


def test_the_page_links_to_itself_in_each_language_and_a_join_page_keeps_its_token_out(demo):
    seated, client = demo
    page = client.get("/", headers=as_(seated, "ana", PT)).text
    assert re.search(r'<a href="\?lang=en"[^>]*>en</a>', page)
    assert re.search(r'<a href="\?lang=pt"[^>]*aria-current="true"[^>]*>pt</a>', page)
    token = seated.tokens["ana"]
    joined = device(client).get(f"/join/{token}", headers=PT)
    assert joined.status_code == 200 and "Você tem um lugar à mesa" in joined.text
    assert token not in joined.text  # the switcher's links are relative: the token is not written in the page
    assert len(joined.headers.get_list("set-cookie")) == 1  # the seat's, as before: no language chosen here


def test_the_page_embeds_the_scripts_texts_translated_for_its_language(demo):
    seated, client = demo
    wanted = {m.id if isinstance(m.id, str) else m.id[0]: m for m in extract_files([SCRIPT]) if m.id}
    keys = {(f"{m.context}\x04{key}" if m.context else key) for key, m in wanted.items()}
    assert len(keys) > 100  # every text the script shows

    pt = embedded_texts(client.get("/", headers=as_(seated, "ana", PT)).text)
    assert pt["lang"] == "pt-BR" and set(pt["texts"]) == keys
    texts = pt["texts"]
    assert texts["Draw"] == "Comprar" and texts["Undo"] == "Desfazer"
    assert texts["face down"] == "face para baixo" and texts["exhausted"] == "consumida"
    assert texts["zone contents\x04{n} card"] == [
        "{n} cartas, do topo para baixo", "{n} carta", "{n} cartas, do topo para baixo"]  # 0, 1, 2+
    assert texts["live · seq {seq}"] == "ao vivo · seq {seq}"

    en = embedded_texts(client.get("/", headers=seated.headers("ana")).text)
    assert en["lang"] == "en" and set(en["texts"]) == keys
    assert en["texts"]["zone contents\x04{n} card"] == ["{n} cards, top first", "{n} card", "{n} cards, top first"]
    for key, text in en["texts"].items():
        if isinstance(text, str):
            assert text == key.split("\x04")[-1], key  # English: the ids themselves


def test_the_games_words_on_the_page_are_ledger_terms_and_the_script_has_none_of_its_own(demo):
    seated, client = demo
    pt = embedded_texts(client.get("/", headers=as_(seated, "ana", PT)).text)["words"]
    assert pt["suits"] == {"house": "Casa", "class": "Classe", "entity": "Entidade", "item": "Item",
                           "skill": "Habilidade", "companion": "Companheiro", "event": "Evento"}
    assert pt["suit_words"]["skill"] == "habilidade" and pt["suit_words"]["item"] == "item"
    # the seat's own zones: whole texts, each with its gender
    assert pt["own_zones"] == {"table": "Sua Mesa", "inventory": "Seu Inventário", "extra": "Sua Zona Extra"}
    en = embedded_texts(client.get("/", headers=as_(seated, "ana", EN)).text)["words"]
    assert en["suits"]["skill"] == "Skill" and en["suit_words"]["skill"] == "skill"
    assert en["own_zones"] == {"table": "Your Table", "inventory": "Your Inventory", "extra": "Your Extra Zone"}
    # the history names each action: "compra" for draw in Portuguese, the id in English
    assert pt["actions"]["draw"] == "compra" and pt["actions"]["trade"] == "troca"
    assert en["actions"]["draw"] == "draw" and set(en["actions"]) == set(pt["actions"])
    # the script names no suit and no kind of zone itself: those live in ledger.terms, once
    from ledger.terms import ROLES, SUITS

    script = {m.id if isinstance(m.id, str) else m.id[0] for m in extract_files([SCRIPT]) if m.id}
    words = {word.lower() for word in (*SUITS.values(), *ROLES.values())}
    assert not {text for text in script if text.lower() in words or "{zone}" in text and "’s" in text}
    source = SCRIPT.read_text(encoding="utf-8")
    assert "KIND_NAMES" not in source and "startsWith(\"{owner}\")" not in source


def test_the_zones_reply_names_each_zone_in_the_requests_language_and_keeps_its_ids(demo):
    seated, client = demo
    english = client.get(f"{API}/zones", headers=as_(seated, "bo", EN)).json()
    portuguese = client.get(f"{API}/zones", headers=as_(seated, "bo", PT)).json()
    assert portuguese["zones"] == english["zones"]  # ids, the same in both
    assert set(portuguese["zone_names"]) == set(english["zone_names"]) == set(english["zones"])
    assert {zone: portuguese["zone_names"][zone] for zone in ("deck:item", "inventory:bo", "table:ana", "discard",
                                                              "depot", "box")} == {
        "deck:item": "Baralho de Item", "inventory:bo": "Inventário de Bo", "table:ana": "Mesa de Ana",
        "discard": "Pilha de Descarte", "depot": "Entreposto", "box": "Caixa"}
    assert {zone: english["zone_names"][zone] for zone in ("deck:item", "inventory:bo", "discard")} == {
        "deck:item": "Item Deck", "inventory:bo": "Bo's Inventory", "discard": "Discard Pile"}  # a hero by name
    # a replayed seq too
    earlier = client.get(f"{API}/zones?at=3", headers=as_(seated, "bo", PT)).json()
    assert earlier["zone_names"] == {zone: portuguese["zone_names"].get(zone) or zone for zone in earlier["zones"]}


# -- errors --------------------------------------------------------------------------------------
def test_errors_in_portuguese_keep_their_code_and_status(demo):
    seated, client = demo
    cases = [
        ("GET", f"{API}/cards/{NO_CARD}", "bo", None, 404, f"nenhuma carta {NO_CARD} que este lugar possa ver"),
        ("POST", f"{API}/actions", "public", {"action": "battle start"}, 403,
         "o lugar público só lê; as ações vêm do mestre e dos heróis"),
        ("POST", f"{API}/actions", "bo", "{not json", 422, "o corpo não é um JSON válido"),
        ("POST", f"{API}/actions", "bo", {"action": "fly"}, 422, "ação desconhecida 'fly'; as ações são: "),
        ("GET", "/api/campaigns/elsewhere/zones", "bo", None, 403, "este lugar é da campanha 'demo', não de 'elsewhere'"),
        ("GET", f"{API}/zones", None, None, 401, "nenhum lugar: abra o link de entrada"),
        ("GET", "/no/such/page", "bo", None, 404, "não existe essa página ou endpoint"),
    ]
    before = stored_events(seated.db)
    for method, path, who, body, status, portuguese in cases:
        replies = {}
        for name, language in (("en", {}), ("pt", PT)):
            headers = {**(seated.headers(who) if who else {}), **language}
            if isinstance(body, str):
                reply = client.request(method, path, content=body, headers={**headers, "Content-Type": "application/json"})
            else:
                reply = client.request(method, path, json=body, headers=headers)
            replies[name] = one_error(reply, status)
            assert reply.headers["content-language"] == ("pt-BR" if language else "en")
        assert replies["pt"]["code"] == replies["en"]["code"], path
        assert replies["pt"]["message"].startswith(portuguese), replies["pt"]
        assert replies["pt"]["message"] != replies["en"]["message"]
    # a body too large, refused before the application reads it
    huge = client.post(f"{API}/actions", content=b"x" * (MAX_BODY + 1), headers=as_(seated, "bo", PT))
    assert one_error(huge, 413) == {"code": "too-large",
                                    "message": f"o corpo é grande demais para uma ação (no máximo {MAX_BODY} bytes)"}
    assert stored_events(seated.db) == before


def test_a_rules_refusal_is_the_clis_message_in_the_requests_language_with_the_same_code(demo):
    seated, client = demo
    zones = client.get(f"{API}/zones", headers=seated.headers("master")).json()
    taken = zones["zones"]["discard"][0]["id"]
    body = {"action": "trade", "hero": "bo", "take": [taken]}
    before = stored_events(seated.db)
    replies = {}
    for lang, language in (("en", EN), ("pt", PT)):
        replies[lang] = one_error(client.post(f"{API}/actions", json=body, headers=as_(seated, "bo", language)), 409)
        refused = run_ledger("--lang", lang, "--json", "--actor", "bo", "trade", "bo", "--take", taken, db=seated.db)
        assert refused.returncode == 1
        assert replies[lang] == json.loads(refused.stdout)["error"], lang  # code and message, as the CLI's
    assert replies["pt"]["code"] == replies["en"]["code"]
    assert replies["pt"]["message"] != replies["en"]["message"]  # the rules' words, spoken as the request asks
    assert stored_events(seated.db) == before


# -- the seat's choice ---------------------------------------------------------------------------
def test_the_seats_choice_beats_accept_language_and_is_remembered(demo):
    seated, client = demo
    browser = device(client)
    chosen = browser.get("/?lang=en", headers=as_(seated, "bo", PT))
    assert chosen.status_code == 200 and '<html lang="en">' in chosen.text
    cookie = [c for c in chosen.headers.get_list("set-cookie") if c.startswith("ledger_lang=")]
    assert len(cookie) == 1 and cookie[0].startswith("ledger_lang=en;") and "Path=/" in cookie[0]
    # remembered: later requests of this device, pages and API alike, speak English despite Accept-Language
    again = browser.get("/", headers=as_(seated, "bo", PT))
    assert '<html lang="en">' in again.text and not again.headers.get_list("set-cookie")
    missing = one_error(browser.get(f"{API}/cards/{NO_CARD}", headers=as_(seated, "bo", PT)), 404)
    assert missing["message"] == f"no card {NO_CARD} that this seat can see"
    # ...until it chooses again
    browser.get("/?lang=pt", headers=as_(seated, "bo", EN))
    assert '<html lang="pt-BR">' in browser.get("/", headers=as_(seated, "bo", EN)).text
    # a query alone, on any request; a language the ledger does not speak is no choice
    assert '<html lang="pt-BR">' in device(client).get("/?lang=pt", headers=seated.headers("bo")).text
    checkpoint = device(client).get(f"{API}/checkpoint?lang=pt", headers=as_(seated, "bo", EN))
    assert checkpoint.status_code == 200 and checkpoint.headers["content-language"] == "pt-BR"
    unknown = device(client).get("/?lang=xx", headers=as_(seated, "bo", PT))
    assert '<html lang="pt-BR">' in unknown.text and not unknown.headers.get_list("set-cookie")


def test_a_language_changes_no_seat(demo):
    seated, client = demo
    english = client.get(f"{API}/zones", headers=seated.headers("bo")).json()
    for query, language in (("?lang=pt", {}), ("", PT), ("?lang=pt", {"Cookie": "ledger_lang=pt"})):
        portuguese = device(client).get(f"{API}/zones{query}", headers=as_(seated, "bo", language)).json()
        assert portuguese["viewer"] == "bo" and portuguese["zones"] == english["zones"]
    one_error(device(client).get(f"{API}/zones?lang=pt", headers=PT), 401)  # no token: no seat, in any language
    one_error(device(client).post(f"{API}/actions?lang=en", json={"action": "battle start"},
                                  headers=as_(seated, "public")), 403)


def test_a_hidden_card_stays_hidden_in_portuguese(demo):
    seated, client = demo
    bo = as_(seated, "bo", PT)
    zones = client.get(f"{API}/zones", headers=bo)
    assert zones.status_code == 200 and zones.headers["content-language"] == "pt-BR"
    data = zones.json()
    assert [entry["id"] for entry in data["zones"]["inventory:ana"]].count(None) == 2
    page = client.get("/", headers=bo).text
    history = client.get(f"{API}/history", headers=bo).text
    for card in HIDDEN_FROM_BO:
        for name in {card} | names_of(card):
            assert name not in zones.text, (card, name)
            assert name not in page, (card, name)
    for name in {NEVER_SHOWN_TO_BO} | names_of(NEVER_SHOWN_TO_BO):
        assert name not in history, name
    # asked for by id: the same reply as for a card that does not exist, in Portuguese too
    missing = one_error(client.get(f"{API}/cards/{NO_CARD}", headers=bo), 404)
    hidden = one_error(client.get(f"{API}/cards/{NEVER_SHOWN_TO_BO}", headers=bo), 404)
    assert hidden == {k: v.replace(NO_CARD, NEVER_SHOWN_TO_BO) for k, v in missing.items()}
    assert hidden["message"].startswith("nenhuma carta")
    # what bo may see is named in Portuguese (the card's own name_pt, else its name)
    sword = client.get(f"{API}/cards/item-sword", headers=bo).json()
    assert sword["name"] in names_of("item-sword")


# -- at once -------------------------------------------------------------------------------------
def test_requests_in_two_languages_at_once_do_not_mix(demo):
    seated, client = demo
    wanted = {"pt-BR": (f"nenhuma carta {NO_CARD} que este lugar possa ver", "Linha do tempo"),
              "en": (f"no card {NO_CARD} that this seat can see", "Timeline")}
    mixed: list[tuple[str, str]] = []
    start = threading.Barrier(4)

    def ask(tag: str) -> None:
        headers = as_(seated, "ana", {"Accept-Language": tag})
        start.wait()
        for _round in range(12):
            reply = client.get(f"{API}/cards/{NO_CARD}", headers=headers)
            if reply.json()["error"]["message"] != wanted[tag][0] or reply.headers["content-language"] != tag:
                mixed.append((tag, reply.text))
            page = client.get("/", headers=headers)
            if wanted[tag][1] not in page.text or f'<html lang="{tag}">' not in page.text:
                mixed.append((tag, page.text[:300]))

    threads = [threading.Thread(target=ask, args=(tag,)) for tag in ("pt-BR", "en", "pt-BR", "en")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not any(thread.is_alive() for thread in threads)
    assert not mixed, mixed[:3]


def test_two_open_streams_of_one_seat_hear_the_same_action_each_in_its_language(tmp_path):
    seated = table(tmp_path)
    with serving(seated.db) as base:
        streams = {"pt": Stream(base, as_(seated, "bo", PT)), "en": Stream(base, as_(seated, "bo", EN))}
        try:
            time.sleep(0.3)  # the follower has seen both streams open
            done = httpx.post(f"{base}{API}/actions", json={"action": "battle start"}, headers=seated.headers("master"),
                              timeout=10)
            assert done.status_code == 200, done.text
            seq = done.json()["seq"]
            heard = {}
            for lang, stream in streams.items():
                events = [data for kind, data in stream.take(seq) if kind == "action" and data["seq"] == seq]
                assert len(events) == 1, lang
                heard[lang] = [event["summary"] for event in events[0]["events"]]
            for lang, language in (("pt", PT), ("en", EN)):
                history = httpx.get(f"{base}{API}/history?from={seq}&to={seq}", headers=as_(seated, "bo", language),
                                    timeout=10).json()
                assert heard[lang] == [entry["summary"] for entry in history], lang
            assert heard["pt"] != heard["en"]
        finally:
            for stream in streams.values():
                stream.close()


# -- the server's log ----------------------------------------------------------------------------
def test_the_servers_log_is_english_when_a_portuguese_request_finds_the_read_models_astray(tmp_path, caplog):
    seated = table(tmp_path)
    with sqlite3.connect(str(seated.db)) as con:  # a position that is no place in the log
        con.execute("UPDATE projection_position SET position = 'abc'")
    con.close()
    with TestClient(create_app(str(seated.db))) as client, caplog.at_level(logging.WARNING, logger="ledger.server"):
        reply = client.get(f"{API}/history", headers=as_(seated, "bo", PT))
        assert reply.status_code == 200 and reply.headers["content-language"] == "pt-BR"
        assert [entry["seq"] for entry in reply.json()][-1] == client.get(
            f"{API}/checkpoint", headers=seated.headers("bo")).json()["seq"]  # rebuilt: the whole history
    logged = [record.getMessage() for record in caplog.records if record.name == "ledger.server"]
    # the reason is the read model's, which keeps it English (projections.readmodel)
    assert logged == ["the read models did not follow the log (position 'abc' is not a place in the log); rebuilt them"]
