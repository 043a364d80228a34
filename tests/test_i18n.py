"""The frame of the ledger's two languages (ledger.i18n, ledger.locale, ledger.terms):
which language is chosen, that every text of the sources has a Portuguese translation
(none missing, fuzzy, or with other placeholders than its English), that the catalogs
compile, and that the game's words are the seed pages' words."""

from __future__ import annotations

import threading

import pytest

from ledger.errors import BadInput
from ledger.i18n import (
    ENGLISH,
    PORTUGUESE,
    _,
    from_environment,
    language,
    negotiate,
    ngettext,
    parse_language,
    speaking,
)
from ledger.locale.catalogs import LOCALES, compiled_catalog, po_path, problems
from ledger.terms import role_name, state_name, suit_name, term, zone_name


@pytest.mark.parametrize("setting, code", [
    ("pt", "pt"), ("pt_BR", "pt"), ("pt-BR", "pt"), ("pt_BR.UTF-8", "pt"), ("PT", "pt"), ("en", "en"),
    ("en_US.UTF-8", "en"), ("C", None), ("C.UTF-8", None), ("fr_FR", None), ("", None), (None, None),
])
def test_a_setting_names_a_language_the_ledger_speaks_or_none(setting, code):
    assert parse_language(setting) == code


@pytest.mark.parametrize("environ, code", [
    ({}, "en"),
    ({"LANG": "pt_BR.UTF-8"}, "pt"),
    ({"LANG": "fr_FR.UTF-8"}, "en"),  # a locale in another language: English
    ({"LC_ALL": "pt_BR.UTF-8", "LANG": "en_US.UTF-8"}, "pt"),  # LC_ALL before LANG
    ({"LC_ALL": "en_US.UTF-8", "LANG": "pt_BR.UTF-8"}, "en"),
    ({"LC_MESSAGES": "pt_BR", "LANG": "en_US"}, "pt"),
    ({"LEDGER_LANG": "pt", "LC_ALL": "en_US.UTF-8"}, "pt"),  # $LEDGER_LANG before the locale
    ({"LEDGER_LANG": "en", "LANG": "pt_BR.UTF-8"}, "en"),
])
def test_without_lang_the_language_comes_from_ledger_lang_then_the_locale(environ, code):
    assert from_environment(environ) == code


def test_a_ledger_lang_the_ledger_does_not_speak_is_bad_input_naming_the_choices():
    with pytest.raises(BadInput, match=r"LEDGER_LANG='fr'.*en or pt"):
        from_environment({"LEDGER_LANG": "fr"})


@pytest.mark.parametrize("header, code", [
    ("pt-BR,pt;q=0.9,en;q=0.8", "pt"), ("en-US,en;q=0.9,pt;q=0.8", "en"), ("fr-FR, pt;q=0.5", "pt"),
    ("en;q=0.4, pt;q=0.6", "pt"), ("pt;q=0, en", "en"), ("fr, de", None), ("", None), (None, None),
    ("pt;q=abc, en;q=0.1", "en"), ("*", None),
])
def test_accept_language_picks_the_preferred_language_the_ledger_speaks(header, code):
    assert negotiate(header) == code


def test_speaking_sets_the_language_inside_the_block_only():
    assert language() == ENGLISH
    with speaking(PORTUGUESE):
        assert _("Usage:") == "Uso:"
        with speaking(None):  # None keeps the language
            assert language() == PORTUGUESE
    assert language() == ENGLISH and _("Usage:") == "Usage:"


def test_requests_in_two_languages_at_once_do_not_mix():
    """Each thread (as each request of the server) speaks its own language."""
    heard: dict[str, list[str]] = {"pt": [], "en": []}
    start = threading.Barrier(2)

    def speak(code: str) -> None:
        with speaking(code):
            start.wait()
            for _i in range(200):
                heard[code].append(_("Discard Pile"))

    threads = [threading.Thread(target=speak, args=(code,)) for code in heard]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert set(heard["pt"]) == {"Pilha de Descarte"} and set(heard["en"]) == {"Discard Pile"}


def test_plural_forms_count_as_brazilian_portuguese_does():
    """One card, then cards: "0 cartas", as Brazilian Portuguese says it (Plural-Forms:
    nplurals=2; plural=(n != 1); gettext's older rule for pt_BR, n > 1, reads "0 carta")."""
    single, plural = "Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})"
    with speaking(PORTUGUESE):
        assert [ngettext(single, plural, n) for n in (0, 1, 2)] == [
            "Argumentos extras inesperados ({args})", "Argumento extra inesperado ({args})",
            "Argumentos extras inesperados ({args})"]
    assert ngettext(single, plural, 1) == single and ngettext(single, plural, 2) == plural


@pytest.mark.parametrize("locale", LOCALES)
def test_every_text_of_the_sources_is_translated_none_fuzzy_and_with_its_placeholders(locale):
    """Extracts every text (``_``, ``ngettext``, help texts, templates, the page's
    script) and checks the catalog: a missing, empty, fuzzy translation, a missing
    plural form or a ``{placeholder}`` the English does not have fails here."""
    found = problems(locale)
    assert not found, f"{len(found)} problems, run `python -m ledger.locale update`:\n" + "\n".join(found[:40])


def test_a_fuzzy_or_empty_translation_is_reported(tmp_path, monkeypatch):
    """The check itself can fail: a catalog with a fuzzy and an empty entry is reported."""
    from ledger.locale import catalogs

    source = po_path(LOCALES[0]).read_text(encoding="utf-8")
    broken = source.replace('msgid "Usage:"\nmsgstr "Uso:"', 'msgid "Usage:"\nmsgstr ""', 1)
    broken = broken.replace('msgid "Options"\n', '#, fuzzy\nmsgid "Options"\n', 1)
    assert broken != source
    path = tmp_path / LOCALES[0] / "LC_MESSAGES" / "ledger.po"
    path.parent.mkdir(parents=True)
    path.write_text(broken, encoding="utf-8")
    monkeypatch.setattr(catalogs, "HERE", tmp_path)
    found = problems(LOCALES[0])
    assert "untranslated: 'Usage:'" in found and "fuzzy: 'Options'" in found


def test_the_catalog_compiles_and_reads_back(tmp_path):
    import gettext

    target = tmp_path / "ledger.mo"
    translations = gettext.GNUTranslations(compiled_catalog(po_path(LOCALES[0]), target))
    assert translations.gettext("Discard Pile") == "Pilha de Descarte"
    assert target.stat().st_size > 0


def test_the_games_words_are_the_seed_pages_words():
    with speaking(PORTUGUESE):
        words = [zone_name("discard"), zone_name("depot"), role_name("inventory"), role_name("deck"), suit_name("house"),
                 suit_name("class"), suit_name("entity"), suit_name("skill"), suit_name("companion"), suit_name("event"),
                 state_name("up"), state_name("down"), state_name("exhausted"), state_name("restored"),
                 state_name("active"), state_name("inactive"), zone_name("limbo"), term("full-action")]
    assert words == ["Pilha de Descarte", "Entreposto", "Inventário", "Baralho", "Casa", "Classe", "Entidade",
                     "Habilidade", "Companheiro", "Evento", "Revelada", "Oculta", "Consumida", "Restaurada", "Ativa",
                     "Inativa", "Limbo", "Ação Total"]


def test_zone_ids_keep_their_ids_and_read_as_names_in_each_language():
    assert [zone_name(z) for z in ("deck:item", "inventory:ana", "discard", "attached:x", "nowhere")] == [
        "Item Deck", "ana's Inventory", "Discard Pile", "attached:x", "nowhere"]
    with speaking(PORTUGUESE):
        assert [zone_name(z) for z in ("deck:item", "table:ana", "extra:bo", "scenario")] == [
            "Baralho de Item", "Mesa de ana", "Zona Extra de bo", "Cenário"]
