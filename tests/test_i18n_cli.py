"""The ``ledger`` command in Brazilian Portuguese (issue 16): its help, its own lines and
click's, the demo, ``simulate``, and the ``message`` of ``--json`` results; which
language a run speaks (``--lang``, then ``$LEDGER_LANG``, then the locale, default
English); and that ``--json`` stays the same in both languages but for ``message``.

Through the real command (``run_ledger``: the code path of ``python -m ledger``, in
this process; ``run_ledger_process`` where the process is the point) on real SQLite
files. The suite pins ``LEDGER_LANG=en`` (tests/conftest.py); these tests set the
language themselves."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click
import pytest

from ledger.catalog import sample_catalog_path
from ledger.i18n import help_text, speaking
from ledger.interface.cli import cli
from ledger.interface.cli.group import load_commands

from .conftest import json_of, one_error_line, run_ledger, run_ledger_process, succeeded

SAMPLE = str(sample_catalog_path())
NO_LOCALE = {"LEDGER_LANG": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}
"""The language settings of the environment, all unset (``run_ledger``: None removes one)."""


def environment(**settings: str) -> dict[str, str | None]:
    return {**NO_LOCALE, **settings}


def every_command() -> list[tuple[str, ...]]:
    """The path of every command and group under ``ledger`` (``("hero", "add")``...)."""
    load_commands()
    found: list[tuple[str, ...]] = []

    def walk(group: click.Group, path: tuple[str, ...]) -> None:
        for name, command in sorted(group.commands.items()):
            found.append((*path, name))
            if isinstance(command, click.Group):
                walk(command, (*path, name))

    walk(cli, ())
    return found


def command_at(path: tuple[str, ...]) -> click.Command:
    command: click.Command = cli
    for name in path:
        assert isinstance(command, click.Group)
        command = command.commands[name]
    return command


# -- help ------------------------------------------------------------------------------------------
def test_lang_pt_help_is_in_portuguese_and_lists_the_commands_by_their_names():
    out = succeeded(run_ledger("--lang", "pt", "--help")).stdout
    assert out.startswith("Uso: ledger [OPÇÕES] COMANDO [ARGS]...")
    assert "Livro da campanha" in out and "Opções:" in out and "Comandos:" in out
    assert "Compra do topo de um baralho" in out  # draw's short help
    assert "Every zone as the viewer sees it" not in out and "Usage:" not in out
    for name in ("draw", "discard", "trade", "verify", "demo", "seat"):  # command names stay
        assert f"\n  {name} " in out


def test_a_commands_help_is_in_portuguese_with_its_example_lines_unchanged():
    out = succeeded(run_ledger("--lang", "pt", "draw", "--help")).stdout
    assert out.startswith("Uso: ledger draw [OPÇÕES] STACK")
    assert ("Compra do topo de um baralho; um baralho vazio é antes reabastecido pelo entreposto."
            in " ".join(out.split()))  # the paragraph, as click wraps it
    assert "Exemplo: ledger --actor ana draw deck:item --count 2" in out
    assert "Quantas cartas." in out and "[padrão: 1]" in out
    assert "--count INTEIRO" in out and "--to TEXTO" in out  # the value's name, where click names it by type
    assert "Draw from the top" not in out and "Example:" not in out
    two_lines = succeeded(run_ledger("--lang", "pt", "search", "--help")).stdout
    assert ("  Exemplo: ledger search deck:item --take item-bow --to inventory:ana\n"
            "           ledger --actor ana search deck:item --take item-bow item-rope --by skill-tracking\n") in two_lines


def test_the_same_help_in_english_is_as_it_was():
    out = succeeded(run_ledger("--lang", "en", "draw", "--help")).stdout
    assert out.startswith("Usage: ledger draw [OPTIONS] STACK")
    assert "Draw from the top of a deck; an empty deck is first refilled from the depot." in out
    assert "Example: ledger --actor ana draw deck:item --count 2" in out and "How many cards." in out
    assert "--count INTEGER" in out and "--to TEXT" in out


@pytest.mark.parametrize("path", every_command(), ids=" ".join)
def test_every_commands_help_and_options_read_in_portuguese(path):
    command = command_at(path)
    english = succeeded(run_ledger("--lang", "en", *path, "--help")).stdout
    portuguese = succeeded(run_ledger("--lang", "pt", *path, "--help")).stdout
    assert "Example:" not in portuguese and "Usage:" not in portuguese
    assert ("Exemplo:" in portuguese) == ("Example:" in english)
    with speaking("pt"):
        assert help_text(command.help) != command.help, f"ledger {' '.join(path)}: its help is not translated"
        for param in command.params:
            if isinstance(param, click.Option) and param.help and param.name != "help":
                assert help_text(param.help) != param.help, f"ledger {' '.join(path)} {param.opts[0]}: not translated"


def test_writing_a_help_page_in_portuguese_leaves_the_shared_command_in_english():
    """Help is written from translated copies: while a Portuguese page is being written,
    the command and its options (shared by every run in this process, and by other
    threads) still hold their English msgids."""
    command = command_at(("draw",))
    english = (command.help, [p.help for p in command.params])
    seen: list[tuple[str | None, list[str | None]]] = []

    class Watching(click.HelpFormatter):
        def write_text(self, text: str) -> None:
            seen.append((command.help, [p.help for p in command.params]))
            super().write_text(text)

        def write_dl(self, rows, *args, **kwargs) -> None:  # the options
            seen.append((command.help, [p.help for p in command.params]))
            super().write_dl(rows, *args, **kwargs)

    class WatchingContext(click.Context):
        formatter_class = Watching

    with speaking("pt"):
        page = command.get_help(WatchingContext(command, info_name="draw"))
    assert "Compra do topo de um baralho" in " ".join(page.split()) and "Quantas cartas." in page
    assert len(seen) >= 2 and all(state == english for state in seen), seen
    with speaking("en"):
        again = command.get_help(click.Context(command, info_name="draw"))
    assert "How many cards." in again and "Show this message and exit." in again and "Mostra" not in again


def test_the_help_option_reads_in_the_language_of_each_page_whichever_spoke_first():
    """click makes ``--help`` once per command, in the language then spoken; each page
    still shows it in its own language."""
    command = command_at(("redo",))
    with speaking("pt"):
        first = command.get_help(click.Context(command, info_name="redo"))
    with speaking("en"):
        second = command.get_help(click.Context(command, info_name="redo"))
    assert "Mostra esta mensagem e sai." in first and "Show this message and exit." in second
    assert "Mostra" not in second


def test_the_cards_only_commands_help_is_translated_too():
    out = succeeded(run_ledger("--lang", "pt", "exhaust", "--help")).stdout
    assert "Consome cartas" in out and "Exemplo: ledger exhaust item-sword" in out


# -- which language ------------------------------------------------------------------------------
@pytest.mark.parametrize("args, env, speaks", [
    (["--lang", "pt"], environment(LEDGER_LANG="en", LC_ALL="en_US.UTF-8", LANG="en_US.UTF-8"), "pt"),
    (["--lang=pt"], environment(LEDGER_LANG="en"), "pt"),
    (["--lang", "en"], environment(LEDGER_LANG="pt", LC_ALL="pt_BR.UTF-8", LANG="pt_BR.UTF-8"), "en"),
    ([], environment(LEDGER_LANG="pt", LC_ALL="en_US.UTF-8", LANG="en_US.UTF-8"), "pt"),
    ([], environment(LEDGER_LANG="en", LC_ALL="pt_BR.UTF-8", LANG="pt_BR.UTF-8"), "en"),
    ([], environment(LC_ALL="pt_BR.UTF-8", LANG="en_US.UTF-8"), "pt"),  # LC_ALL before LANG
    ([], environment(LC_ALL="en_US.UTF-8", LANG="pt_BR.UTF-8"), "en"),
    ([], environment(LANG="pt_BR.UTF-8"), "pt"),  # the locale alone
    ([], environment(LANG="fr_FR.UTF-8"), "en"),  # a language the ledger does not speak: English
    ([], environment(), "en"),  # nothing set: English
], ids=["lang-pt-beats-all", "lang=pt", "lang-en-beats-all", "ledger-lang-pt-beats-locale",
        "ledger-lang-en-beats-locale", "lc-all-beats-lang", "lc-all-en-beats-lang", "lang-pt-br-alone",
        "lang-fr-is-english", "default-english"])
def test_the_language_is_lang_then_ledger_lang_then_the_locale(args, env, speaks):
    out = succeeded(run_ledger(*args, "--help", env=env)).stdout
    assert out.startswith("Uso:" if speaks == "pt" else "Usage:"), out[:80]


@pytest.mark.parametrize("args", [
    ["--db", "x.db", "--lang", "pt"], ["--db=x.db", "--lang=pt"], ["--json", "--actor", "ana", "--lang", "pt"],
    ["--campaign", "pt", "--as", "public", "--lang", "pt"],
], ids=["db-then-lang", "db=-then-lang=", "json-actor-then-lang", "campaign-as-then-lang"])
def test_lang_after_other_global_options_is_still_the_language(args, tmp_path):
    line = one_error_line(run_ledger(*args, "draw", cwd=tmp_path), exit_codes=(2,))
    assert line == "error: Falta o argumento 'STACK'. (veja ledger draw --help)"


def test_lang_pt_br_alone_speaks_portuguese_in_a_real_process():
    result = run_ledger_process("draw", env={"LEDGER_LANG": "", "LC_ALL": "", "LC_MESSAGES": "",
                                             "LANG": "pt_BR.UTF-8"})
    assert one_error_line(result, exit_codes=(2,)) == "error: Falta o argumento 'STACK'. (veja ledger draw --help)"


def test_a_ledger_lang_the_ledger_does_not_speak_is_one_error_line_and_exit_1():
    result = run_ledger("zones", env=environment(LEDGER_LANG="klingon"))
    line = one_error_line(result, exit_codes=(1,))
    assert "LEDGER_LANG='klingon'" in line and "en or pt" in line
    assert result.stdout == ""


def test_a_ledger_lang_the_ledger_does_not_speak_with_json_is_the_error_object():
    result = run_ledger("--json", "zones", env=environment(LEDGER_LANG="klingon"))
    one_error_line(result, exit_codes=(1,))
    error = json_of(result)["error"]
    assert error["code"] == "bad-input" and "LEDGER_LANG" in error["message"]


@pytest.mark.parametrize("args", [["--lang", "pt_BR"], ["--lang=pt-BR"], ["--lang", "pt_BR.UTF-8"], ["--lang", "PT"]],
                         ids=["pt_BR", "=pt-BR", "pt_BR.UTF-8", "PT"])
def test_lang_takes_every_spelling_of_a_language_the_ledger_speaks(args, tmp_path):
    """What ``$LEDGER_LANG`` and the locale accept (``ledger.i18n.parse_language``),
    ``--lang`` accepts too: it is not refused after choosing the language."""
    line = one_error_line(run_ledger(*args, "draw", cwd=tmp_path), exit_codes=(2,))
    assert line == "error: Falta o argumento 'STACK'. (veja ledger draw --help)"
    assert succeeded(run_ledger(*args, "--help", env=environment())).stdout.startswith("Uso:")
    assert succeeded(run_ledger(*args, "hero", "--help", env=environment())).stdout.startswith("Uso:")


def test_the_help_shows_lang_as_its_two_codes():
    assert "--lang [en|pt]" in succeeded(run_ledger("--help")).stdout


def test_lang_fr_is_a_bad_value_refused_exit_1():
    result = run_ledger("--lang", "fr", "zones")
    line = one_error_line(result, exit_codes=(1,))
    assert "--lang" in line and "'fr'" in line and "'en', 'pt'" in line


# -- click's own lines ----------------------------------------------------------------------------
def test_a_missing_argument_reads_in_portuguese_and_in_english():
    pt = one_error_line(run_ledger("--lang", "pt", "draw"), exit_codes=(2,))
    assert pt == "error: Falta o argumento 'STACK'. (veja ledger draw --help)"
    en = one_error_line(run_ledger("--lang", "en", "draw"), exit_codes=(2,))
    assert en == "error: Missing argument 'STACK'. (see ledger draw --help)"


def test_a_missing_option_and_an_unknown_option_read_in_portuguese(tmp_path):
    missing = one_error_line(run_ledger("--lang", "pt", "send", "item-sword", db=tmp_path / "c.db"), exit_codes=(2,))
    assert missing.startswith("error: Falta a opção '--to'")
    unknown = one_error_line(run_ledger("--lang", "pt", "zones", "--nope"), exit_codes=(2,))
    assert "Não existe a opção '--nope'" in unknown and "(veja ledger zones --help)" in unknown


def test_the_clis_own_refusals_read_in_portuguese(tmp_path):
    db = tmp_path / "c.db"
    bad_seq = one_error_line(run_ledger("--lang", "pt", "zones", "--at", "x", db=db))
    assert bad_seq == ("error: --at: 'x' não é uma seq (as seqs contam as ações a partir de 1, o init); "
                       "é um número inteiro a partir de 1")
    trade = one_error_line(run_ledger("--lang", "pt", "trade", "ana", "item-bow", db=db), exit_codes=(2,))
    assert "'item-bow' inesperado: nomeie as cartas depois de --take ou --give" in trade
    sim = one_error_line(run_ledger("--lang", "pt", "simulate", "--actions", "0", db=db))
    assert sim == "error: --actions 0: informe um número de ações, pelo menos 1"


# -- recorded actions and --json --------------------------------------------------------------------
VOLATILE = {"timestamp", "rng", "hash", "head", "signature", "summary", "message"}
"""What may differ between two runs of the same command (the time, the random state,
hashes of them) or between the languages (the texts)."""


def neutral(data: Any) -> Any:
    """``data`` without its volatile keys: what must be the same in every language."""
    if isinstance(data, dict):
        return {k: neutral(v) for k, v in data.items() if k not in VOLATILE}
    if isinstance(data, list):
        return [neutral(v) for v in data]
    return data


def both_languages(tmp_path: Path, *args: str) -> tuple[dict, dict]:
    """``ledger --json ARGS`` in English and in Portuguese, each on its own campaign."""
    out = []
    for lang in ("en", "pt"):
        db = tmp_path / f"{lang}.db"
        if not db.exists():
            succeeded(run_ledger("init", "--catalog", SAMPLE, "--name", "Teste", db=db))
        out.append(json_of(succeeded(run_ledger("--lang", lang, "--json", *args, db=db))))
    return out[0], out[1]


def test_init_json_has_the_same_keys_and_codes_in_both_languages_and_its_message_translated(tmp_path):
    out = {}
    for lang in ("en", "pt"):
        db = tmp_path / lang / "c.db"
        db.parent.mkdir()
        out[lang] = json_of(succeeded(run_ledger("--lang", lang, "--json", "init", "--catalog", SAMPLE,
                                                 "--name", "Teste", db=db)))
        human = succeeded(run_ledger("--lang", lang, "--campaign", "other", "init", "--catalog", SAMPLE,
                                     "--name", "Teste", db=db)).stdout
        assert human.replace("other", "teste").strip() == out[lang]["message"]  # the line printed without --json
    en, pt = out["en"], out["pt"]
    assert set(en) == set(pt) == {"seq", "action", "events", "checkpoint", "message"}
    assert neutral(en) == neutral(pt) and en["action"] == pt["action"] == "init"
    assert en["message"] == f"seq 1  campaign teste started in {tmp_path / 'en' / 'c.db'}: 88 cards in the box"
    assert pt["message"] == f"seq 1  campanha teste iniciada em {tmp_path / 'pt' / 'c.db'}: 88 cartas na caixa"


def test_a_recorded_actions_message_is_its_human_line_in_the_language_spoken(tmp_path):
    en, pt = both_languages(tmp_path, "hero", "add", "ana", "--knowledge", "1")
    assert set(en) == set(pt) and neutral(en) == neutral(pt)
    assert en["action"] == pt["action"] == "hero add" and en["seq"] == pt["seq"] == 2
    for doc in (en, pt):
        assert doc["message"] == f"seq 2  {doc['events'][0]['summary']}"
    human = succeeded(run_ledger("--lang", "pt", "hero", "add", "bo", db=tmp_path / "pt.db")).stdout.strip()
    assert human.startswith("seq 3  ") and "bo" in human


def test_a_refusal_with_json_keeps_its_code_in_both_languages(tmp_path):
    codes = {}
    for lang in ("en", "pt"):
        result = run_ledger("--lang", lang, "--json", "simulate", "--actions", "0", db=tmp_path / "x.db")
        line = one_error_line(result)
        error = json_of(result)["error"]
        assert line == f"error: {error['message']}"
        codes[lang] = error["code"]
    assert codes == {"en": "bad-input", "pt": "bad-input"}


def test_simulate_reports_in_portuguese_and_its_json_is_the_same_but_for_message(tmp_path):
    human = succeeded(run_ledger("--lang", "pt", "simulate", "--actions", "3", "--seed", "1",
                                 db=tmp_path / "h.db")).stdout
    assert re.search(r"^3 ações válidas aleatórias registradas \(e \d+ escolhas? recusadas?, [\d.]+% das tentadas, "
                     r"que não acrescentaram? nada\); a campanha está na seq \d+$", human, re.MULTILINE), human
    assert "a campanha está na seq" in human and "cartas no fim, por tipo de zona: caixa " in human
    assert "pilha de descarte " in human and "recorded" not in human
    docs = {lang: json_of(succeeded(run_ledger("--lang", lang, "--json", "simulate", "--actions", "3", "--seed", "1",
                                               db=tmp_path / f"{lang}.db"))) for lang in ("en", "pt")}
    assert neutral(docs["en"]) == neutral(docs["pt"])
    assert set(docs["pt"]["zones"]) >= {"box", "deck", "discard", "attached"}  # the ids, in both languages
    assert re.match(r"recorded 3 random legal actions \(and \d+ refused choices?, [\d.]+% of those tried, appended "
                    r"nothing\); the campaign is at seq \d+\n", docs["en"]["message"]), docs["en"]["message"]
    assert docs["pt"]["message"] == human.strip()


@pytest.mark.parametrize("language, recorded, refused, line", [
    ("en", 1, 0, ("recorded 1 random legal action (and 0 refused choices, 0.0% of those tried, appended nothing); "
                 "the campaign is at seq 9")),
    ("en", 2, 1, ("recorded 2 random legal actions (and 1 refused choice, 0.0% of those tried, appended nothing); "
                 "the campaign is at seq 9")),
    ("en", 1, 3, ("recorded 1 random legal action (and 3 refused choices, 0.0% of those tried, appended nothing); "
                 "the campaign is at seq 9")),
    ("pt", 1, 0, ("1 ação válida aleatória registrada (e 0 escolhas recusadas, 0.0% das tentadas, que não "
                 "acrescentaram nada); a campanha está na seq 9")),
    ("pt", 2, 1, ("2 ações válidas aleatórias registradas (e 1 escolha recusada, 0.0% das tentadas, que não "
                 "acrescentou nada); a campanha está na seq 9")),
    ("pt", 5, 1, ("5 ações válidas aleatórias registradas (e 1 escolha recusada, 0.0% das tentadas, que não "
                 "acrescentou nada); a campanha está na seq 9")),
], ids=["en-1-0", "en-2-1", "en-1-3", "pt-1-0", "pt-2-1", "pt-5-1"])
def test_simulates_sentence_is_whole_and_counts_both_numbers_as_the_language_counts(language, recorded, refused, line):
    """Two counts in one sentence: a whole sentence for one refused choice and one for
    several (as the catalog's plural rule counts them), each counting the actions
    recorded."""
    from ledger.interface.cli.record import _simulated

    with speaking(language):
        said = _simulated(recorded, refused).format(recorded=recorded, refused=refused, rate="0.0%", seq=9)
    assert said == line


def test_rebuild_and_verify_speak_portuguese_with_their_json_message(tmp_path):
    db = tmp_path / "c.db"
    succeeded(run_ledger("init", "--catalog", SAMPLE, "--name", "Teste", db=db))
    rebuilt = json_of(succeeded(run_ledger("--lang", "pt", "--json", "rebuild", db=db)))
    assert rebuilt["message"] == ("modelos de leitura reconstruídos a partir dos 2 eventos guardados no banco de dados "
                                  "(ações, lugares, pontos de controle…)")  # the campaigns log's too
    assert succeeded(run_ledger("--lang", "pt", "rebuild", db=db)).stdout.strip() == rebuilt["message"]
    verified = succeeded(run_ledger("--lang", "pt", "verify", db=db)).stdout
    assert verified.startswith("ok: 1 ação de teste: cadeia de hashes íntegra")  # "ok:" stays, like "error:"
    report = json_of(succeeded(run_ledger("--lang", "pt", "--json", "verify", db=db)))
    assert report["ok"] is True and report["message"] == verified.strip()


# -- the demo ----------------------------------------------------------------------------------------
def test_the_demo_narrates_in_portuguese_in_a_real_process(tmp_path):
    result = succeeded(run_ledger_process("--lang", "pt", "demo", db=tmp_path / "demo.db"))
    out = result.stdout
    assert "uma campanha de exemplo em" in out and "campanha iniciada: 88 cartas na caixa" in out
    assert "Dois heróis se sentam à mesa" in out
    assert "Recusado: não há trocas durante a batalha" in out
    assert "(recusado: nenhum evento acrescentado)" in out
    assert "  error: " in out  # a refusal's line keeps its prefix
    assert "verify: ok — 36 ações, cadeia de hashes íntegra" in out
    assert "Experimente agora" in out and "Jogue à mesa" in out
    assert "(para que os comandos abaixo também saiam em português, rode antes: export LEDGER_LANG=pt)" in out
    assert "O mesmo momento, como o árbitro, o público e Ana o veem" in out
    assert f"ledger --db {tmp_path / 'demo.db'} zones                  todas as zonas, como o árbitro as vê" in out
    assert "Two heroes sit down" not in out and "Try next" not in out


def test_the_demo_narrates_in_english_by_default(tmp_path):
    out = succeeded(run_ledger("demo", db=tmp_path / "demo.db")).stdout
    assert "Two heroes sit down" in out and "(refused: 0 events appended)" in out
    assert f"ledger --db {tmp_path / 'demo.db'} zones                  every zone, as the referee sees it" in out
    assert "Dois heróis" not in out and "LEDGER_LANG" not in out
