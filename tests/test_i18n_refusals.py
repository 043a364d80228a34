"""The write side's refusals in Brazilian Portuguese (issue 16): what the rules say when
they refuse an action (``ledger.rules``, ``ledger.actions``, the ids of
``ledger.vocabulary``, the zones and heroes of ``ledger.campaign``), read through the
real command in both languages.

The same refusal reads the same in English as before; in Portuguese it is one
``error:`` line in Portuguese, with the ids, zone ids and command names as typed; with
``--json`` both carry the same ``code`` and the message in their language; and a refusal
appends nothing whatever the language. Counts read right in both (``1 effect`` /
``2 effects``, ``1 efeito`` / ``2 efeitos``).

Through ``run_ledger`` (the code path of ``python -m ledger``, in this process) and once
``run_ledger_process`` (``$LEDGER_LANG`` read by a fresh interpreter), on a real SQLite
file. The suite pins ``LEDGER_LANG=en`` (tests/conftest.py); these tests choose the
language themselves."""

from __future__ import annotations

import ast
import enum
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from ledger import actions
from ledger.catalog import sample_catalog_path
from ledger.errors import PROBLEMS, first_problem, problem
from ledger.i18n import _, speaking
from ledger.rulebook import REFILL_LIMIT, RULEBOOK, rule_text, stated
from ledger.rules import fair_play, words

from .conftest import json_error, one_error_line, run_ledger, run_ledger_process, stored_events, succeeded

SAMPLE = str(sample_catalog_path())


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    """Heroes ana and bo; deck:item holds item-sword then item-bow (top first), ana's
    inventory item-axe (one effect) and item-rope (two), bo's item-shield (face-up) and
    item-helm (face-down); deck:skill and the depot are empty. The tests only refuse."""
    db = tmp_path_factory.mktemp("refusals") / "campaign.db"
    for args in (["init", "--catalog", SAMPLE, "--name", "Recusas"], ["hero", "add", "ana"], ["hero", "add", "bo"],
                 ["add", "item-sword", "item-bow", "--to", "deck:item"],
                 ["add", "item-axe", "item-rope", "--to", "inventory:ana"],
                 ["add", "item-shield", "item-helm", "--to", "inventory:bo"], ["reveal", "item-shield"]):
        succeeded(run_ledger(*args, db=db))
    return db


# Each refusal: its arguments, its code, the English line (as it read before the
# translation) and the Portuguese one.
REFUSALS = {
    "drawing from an empty deck the depot cannot refill": (
        ["--actor", "ana", "draw", "deck:skill"], "deck-empty",
        ("deck:skill is empty and the depot has no skill cards to refill it; add cards to it first "
         "(ledger add CARD --to deck:skill)"),
        ("deck:skill está vazio e o entreposto não tem cartas de habilidade para reabastecê-lo; adicione cartas a "
         "ele primeiro (ledger add CARD --to deck:skill)")),
    "drawing from a pile": (
        ["--actor", "ana", "draw", "discard"], "rule",
        "discard is not a deck; draw works on decks (take a card from it with search)",
        "discard não é um baralho; draw funciona com baralhos (use search para levar uma carta de lá)"),
    "taking a card that is not in the discard pile": (
        ["trade", "ana", "--take", "item-sword", "--give", "item-axe"], "card-not-there",
        "card item-sword is not in discard (it is in deck:item); trade takes cards from the discard pile",
        "a carta item-sword não está em discard (ela está em deck:item); trade leva cartas da pilha de descarte"),
    "a hero discarding a card of another hero's zone": (
        ["--actor", "ana", "discard", "item-shield"], "not-allowed",
        "inventory:bo belongs to bo; ana may not discard cards from it (bo or the master may)",
        "inventory:bo pertence a bo; ana não pode descartar cartas de inventory:bo (bo ou o mestre podem)"),
    "a hero naming a card they cannot see": (
        ["--actor", "ana", "exile", "item-helm"], "not-allowed",
        "ana cannot see card item-helm; a hero exiles only cards they can see",
        "ana não pode ver a carta item-helm; um herói só bane cartas que pode ver"),
    "a hero sending a card to another hero's table": (
        ["--actor", "ana", "send", "item-axe", "--to", "table:bo"], "not-allowed",
        ("ana may send cards only to their own inventory, table or extra zone or the scenario, not to table:bo; "
         "discard, bury and exile have commands of their own, and the master may put cards anywhere"),
        ("ana só pode enviar cartas para o próprio inventário, mesa ou zona extra ou para o cenário, não para "
         "table:bo; descartar, enterrar e banir têm comandos próprios, e o mestre pode pôr cartas em qualquer "
         "lugar")),
    "a hero acting for another": (
        ["--actor", "bo", "travel", "ana", "village"], "not-allowed",
        "bo may not move ana (ana or the master may)",
        "bo não pode fazer ana viajar (ana ou o mestre podem)"),
    "what only the master does": (
        ["--actor", "ana", "hero", "knowledge", "ana", "2"], "not-allowed",
        "only the master changes a hero's knowledge (not ana)",
        "só o mestre muda o conhecimento de um herói (não ana)"),
    "a count below the least a command takes (pydantic's words, naming the option)": (
        ["--actor", "ana", "draw", "deck:item", "--count", "0"], "bad-input",
        "--count: Input should be greater than or equal to 1",
        "--count: deve ser maior ou igual a 1"),
    "action points below zero (the option, not the field action_points)": (
        ["--actor", "ana", "activate", "item-sword", "--ap", "-1"], "bad-input",
        "--ap: Input should be greater than or equal to 0",
        "--ap: deve ser maior ou igual a 0"),
    "a count that is no number": (
        ["--actor", "ana", "draw", "deck:item", "--count", "many"], "bad-input",
        "--count: 'many' is not a whole number",
        "--count: 'many' não é um número inteiro"),
    "an actor who is no hero of the campaign": (
        ["--actor", "zed", "draw", "deck:item"], "unknown-hero",
        "no hero 'zed' in this campaign (heroes: ana, bo)",
        "não há herói 'zed' nesta campanha (heróis: ana, bo)"),
    "a bad hero id": (
        ["hero", "add", "Bad"], "bad-input",
        "'Bad' is not a hero id; use up to 32 lower-case letters without accents (a-z), digits, '-' or '_' (e.g. bad)",
        "'Bad' não é um id de herói; use até 32 letras minúsculas sem acento (a-z), dígitos, '-' ou '_' (p. ex. bad)"),
    "a hero id with accents (found by a QA pass: told to use lower-case letters, which é and ã are)": (
        ["hero", "add", "joão"], "bad-input",
        "'joão' is not a hero id; use up to 32 lower-case letters without accents (a-z), digits, '-' or '_' "
        "(e.g. joao)",
        "'joão' não é um id de herói; use até 32 letras minúsculas sem acento (a-z), dígitos, '-' ou '_' "
        "(p. ex. joao)"),
    "a zone of a hero the campaign does not have": (
        ["send", "item-axe", "--to", "table:zed"], "unknown-hero",
        "table:zed is not a zone: there is no hero 'zed' (heroes: ana, bo)",
        "table:zed não é uma zona: não há herói 'zed' (heróis: ana, bo)"),
}


@pytest.mark.parametrize("refusal", list(REFUSALS))
def test_a_refusal_reads_in_portuguese_with_lang_pt_and_as_before_in_english(table, refusal):
    args, _code, english, portuguese = REFUSALS[refusal]
    before = stored_events(table)
    assert one_error_line(run_ledger(*args, db=table), what=args) == f"error: {english}"
    assert one_error_line(run_ledger("--lang", "pt", *args, db=table), what=args) == f"error: {portuguese}"
    assert one_error_line(run_ledger(*args, db=table, env={"LEDGER_LANG": "pt"}), what=args) == f"error: {portuguese}"
    assert stored_events(table) == before, "a refused action appended events"


@pytest.mark.parametrize("refusal", list(REFUSALS))
def test_json_gives_the_same_code_in_both_languages_and_the_message_in_each(table, refusal):
    args, code, english, portuguese = REFUSALS[refusal]
    before = stored_events(table)
    in_english = json_error(run_ledger("--json", *args, db=table))
    in_portuguese = json_error(run_ledger("--lang", "pt", "--json", *args, db=table))
    assert in_english["code"] == in_portuguese["code"] == code
    assert (in_english["message"], in_portuguese["message"]) == (english, portuguese)
    assert set(in_english) == set(in_portuguese)
    assert stored_events(table) == before


def test_ledger_lang_pt_in_a_fresh_process_refuses_in_portuguese_and_appends_nothing(table):
    args, _code, _english, portuguese = REFUSALS["taking a card that is not in the discard pile"]
    before = stored_events(table)
    result = run_ledger_process(*args, db=table, env={"LEDGER_LANG": "pt"})
    assert one_error_line(result) == f"error: {portuguese}"
    assert stored_events(table) == before


def test_a_trade_that_gives_too_little_says_what_is_given_and_what_is_taken_leva(tmp_path):
    db = tmp_path / "campaign.db"
    for args in (["init", "--catalog", SAMPLE], ["hero", "add", "ana"],
                 ["add", "item-shield", "--to", "discard"], ["add", "item-axe", "--to", "inventory:ana"],
                 ["location", "add", "village", "--access", "item=2"], ["travel", "ana", "village"]):
        succeeded(run_ledger(*args, db=db))
    args = ["trade", "ana", "--take", "item-shield", "--give", "item-axe"]
    before = stored_events(db)
    assert one_error_line(run_ledger(*args, db=db)) == (
        "error: item: give 4 price < take 6 price (each value type is settled on its own)")
    assert one_error_line(run_ledger("--lang", "pt", *args, db=db)) == (
        "error: item: dá 4 < leva 6 (preço; cada tipo de valor é acertado à parte)")
    assert stored_events(db) == before


@pytest.mark.parametrize(("args", "english", "portuguese"), [
    (["activate", "item-axe", "--effect", "3"],
     "card item-axe has 1 effect; --effect 3 is not one of them",
     "a carta item-axe tem 1 efeito; --effect 3 não é um deles"),
    (["activate", "item-rope", "--effect", "3"],
     "card item-rope has 2 effects; --effect 3 is not one of them",
     "a carta item-rope tem 2 efeitos; --effect 3 não é um deles"),
    (["send", "item-sword", "--to", "deck:item"],
     "nothing to do: item-sword already lies that way in deck:item",
     "nada a fazer: item-sword já está assim em deck:item"),
    (["send", "item-sword", "item-bow", "--to", "deck:item"],
     "nothing to do: item-sword, item-bow already lie that way in deck:item",
     "nada a fazer: item-sword, item-bow já estão assim em deck:item"),
], ids=["one effect", "two effects", "one card", "two cards"])
def test_a_count_reads_singular_for_one_and_plural_for_two_in_both_languages(table, args, english, portuguese):
    before = stored_events(table)
    assert one_error_line(run_ledger(*args, db=table)) == f"error: {english}"
    assert one_error_line(run_ledger("--lang", "pt", *args, db=table)) == f"error: {portuguese}"
    assert stored_events(table) == before


# -- the verbs the handlers name to the rules ---------------------------------------------------------
VERB_TAKERS = {"_known", "_theirs", "_turn", "_tilt", "may_name", "knows_card", "controls_card", "may_use_stack",
               "hand_for", "sends_to_own_zone", "may_take_back", "_allowing_card"}
"""The functions whose last argument is a verb a refusal shows (``ledger.rules.words``)."""
NAMING = {"_known", "_turn", "_tilt", "may_name", "knows_card", "_allowing_card"}
"""Those that may refuse with "a hero ___ only cards they can see" (``words.does``)."""


def _verbs_named(*modules) -> dict[str, set[str]]:
    """Every verb given (as a string) to a ``VERB_TAKERS`` function, with the names of the
    functions it was given to."""
    found: dict[str, set[str]] = {}
    for module in modules:
        for node in ast.walk(ast.parse(Path(module.__file__).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args:
                name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
                last = node.args[-1]
                if name in VERB_TAKERS and isinstance(last, ast.Constant) and isinstance(last.value, str):
                    found.setdefault(last.value, set()).add(name)
    return found


def test_every_verb_a_handler_names_to_a_rule_is_translated():
    named = _verbs_named(actions, fair_play)
    assert {"send", "draw from", "attach to", "search by", "name for a shuffle", "name for an activation",
            "take the cards", "undo"} <= set(named)
    naming = sorted(v for v, takers in named.items() if takers & NAMING)
    assert set(named) - set(words.DOING) == set(), "verbs a refusal would show untranslated"
    assert set(naming) - set(words.DOES) == set(), "verbs a refusal would show unconjugated"
    with speaking("en"):  # English: the verb as named, "sends", "send cards from"
        assert [words.doing(v) for v in named] == list(named)
        english = [words.does(v) for v in naming]
        assert words.does("attach to") == "attaches to" and words.does("bury") == "buries"
        assert words.doing_cards_from("send") == "send cards from"
    with speaking("pt"):
        untranslated = sorted(v for v in named if words.doing(v) == v)
        unconjugated = [v for v, said in zip(naming, english) if words.does(v) == said]
        assert words.doing_cards_from("send") == "enviar cartas de"
        assert words.does("attach to") == "anexa a"
        assert words.doing("take") == "levar"
    assert (untranslated, unconjugated) == ([], [])


def test_the_refill_rule_states_the_refill_limit_in_both_languages():
    """The rule's text names the limit by placeholder; ``stated`` fills it in after translating."""
    assert "{limit}" in rule_text("refill-candidates")
    assert f"up to {REFILL_LIMIT} cards of its suit" in stated("refill-candidates")
    with speaking("pt"):
        assert f"até {REFILL_LIMIT} cartas do seu naipe" in stated("refill-candidates", _)


@pytest.mark.parametrize("language", ["en", "pt"])
def test_every_rule_reads_with_its_figures_filled_in(language):
    with speaking(language):
        unfilled = [rule.name for rule in RULEBOOK if "{" in stated(rule.name, _) or "}" in stated(rule.name, _)]
    assert unfilled == []


def test_the_language_module_imports_no_other_module_of_the_ledger_at_its_top():
    """``ledger.errors`` speaks through ``ledger.i18n``; ``i18n`` imports ``errors`` only
    where it refuses a ``$LEDGER_LANG``, so neither waits on the other."""
    import ledger.i18n

    tree = ast.parse(Path(ledger.i18n.__file__).read_text(encoding="utf-8"))
    at_top = [node.module for node in tree.body if isinstance(node, ast.ImportFrom) and node.level]
    assert at_top == []


# -- pydantic's own words ----------------------------------------------------------------------------
class Choice(enum.Enum):
    ONE = "one"
    TWO = "two"


class Inner(BaseModel):
    x: int = 0


class Probe(BaseModel):
    """One field for each kind of problem ``ledger.errors.PROBLEMS`` puts in words."""

    model_config = ConfigDict(extra="forbid")
    at_least: int = Field(1, ge=1)
    strict_flag: StrictBool = False  # the table server's bodies are strict
    at_most: int = Field(3, le=3)
    above: int = Field(1, gt=0)
    below: int = Field(0, lt=1)
    whole: int = 0
    number: float = 0.0
    word: str = ""
    short: str = Field("", max_length=1)
    shorter: str = Field("", max_length=2)
    long: str = Field("x", min_length=1)
    longer: str = Field("xy", min_length=2)
    kind: Literal["deck", "pile"] = "deck"
    only: Literal["deck"] = "deck"
    choice: Choice = Choice.ONE
    flag: bool = False
    few: list[int] = Field([], max_length=1)
    fewer: tuple[int, ...] = Field((), max_length=2)
    many: list[int] = Field([0], min_length=1)
    items: list[int] = []
    pair: tuple[int, ...] = ()
    table: dict[str, int] = {}
    inner: Inner = Inner()


# Each kind of problem: the fields given, and the error type they give.
WRONG = [
    ({"at_least": 0}, "greater_than_equal"), ({"at_most": 5}, "less_than_equal"), ({"above": 0}, "greater_than"),
    ({"below": 2}, "less_than"), ({"whole": "x"}, "int_parsing"),
    ({"whole": [1]}, "int_type"), ({"whole": 1.5}, "int_from_float"), ({"number": "x"}, "float_parsing"),
    ({"word": 5}, "string_type"), ({"short": "ab"}, "string_too_long"), ({"shorter": "abc"}, "string_too_long"),
    ({"long": ""}, "string_too_short"), ({"longer": "a"}, "string_too_short"), ({"kind": "heap"}, "literal_error"),
    ({"only": "heap"}, "literal_error"), ({"choice": "three"}, "enum"), ({"flag": "maybe"}, "bool_parsing"),
    ({"strict_flag": "yes"}, "bool_type"),
    ({"colour": "red"}, "extra_forbidden"), ({"few": [1, 2]}, "too_long"), ({"fewer": (1, 2, 3)}, "too_long"),
    ({"many": []}, "too_short"), ({"items": 1}, "list_type"), ({"pair": 1}, "tuple_type"),
    ({"table": 1}, "dict_type"), ({"inner": 1}, "model_type"),
]


class Required(BaseModel):
    stack: str


def _errors() -> list[dict]:
    """A real pydantic error of every type ``PROBLEMS`` words."""
    found = []
    for given, kind in WRONG:
        with pytest.raises(ValidationError) as info:
            Probe.model_validate(given)
        found.append(info.value.errors()[0])
        assert found[-1]["type"] == kind, (given, found[-1])
    for wrong in (lambda: Required.model_validate({}), lambda: Probe.model_validate_json("{")):
        with pytest.raises(ValidationError) as info:
            wrong()
        found.append(info.value.errors()[0])
    return found


def test_pydantics_words_read_in_english_exactly_as_pydantic_writes_them():
    errors = _errors()
    assert {err["type"] for err in errors} == set(PROBLEMS), "a kind of problem without a case here"
    with speaking("en"):
        assert [problem(err) for err in errors] == [err["msg"] for err in errors]


def test_pydantics_words_read_in_portuguese():
    errors = _errors()
    with speaking("pt"):
        said = {err["msg"]: problem(err) for err in errors}
    assert [msg for msg, text in said.items() if text == msg] == [], "read in English inside Portuguese"
    assert said["Field required"] == "campo obrigatório"
    assert said["Input should be less than or equal to 3"] == "deve ser menor ou igual a 3"
    assert said["Input should be 'deck' or 'pile'"] == "deve ser 'deck' ou 'pile'"
    assert said["Input should be 'deck'"] == "deve ser 'deck'"
    assert said["String should have at most 1 character"] == "deve ter no máximo 1 caractere"
    assert said["String should have at most 2 characters"] == "deve ter no máximo 2 caracteres"
    assert said["Tuple should have at most 2 items after validation, not 3"] == (
        "a tupla deve ter no máximo 2 itens após a validação, não 3")
    assert said["Invalid JSON: EOF while parsing an object at line 1 column 1"] == (
        "JSON inválido: EOF while parsing an object at line 1 column 1")


def test_a_field_and_its_problem_read_as_one_line_and_our_own_words_keep_theirs():
    with pytest.raises(ValidationError) as info:
        Required.model_validate({})
    with speaking("en"):
        assert first_problem(info.value) == "stack: Field required"
    with speaking("pt"):
        assert first_problem(info.value) == "stack: campo obrigatório"
    ours = {"type": "value_error", "loc": ("level",), "msg": "Value error, deve ser um número inteiro"}
    assert problem(ours) == "deve ser um número inteiro"
    unknown = {"type": "url_parsing", "loc": ("art",), "msg": "Input should be a valid URL"}
    with speaking("pt"):
        assert problem(unknown) == "Input should be a valid URL"  # a type not in the table: pydantic's words
