"""Seed 002 ("Ativa"), RULES.md §6–7: the effects of a card revealed in a stack.

    "Cartas reveladas em pilhas de cartas, que possuem efeitos de pilha
     [De Qualquer Lugar], [Da Pilha de Descarte].
     Apesar de serem consideradas ativas, apenas os efeitos de pilha podem/devem ser usados."

and seed 001 / the format's ``use``: when the effects of a stack's face-up cards count
(the discard pile: its stack effects; the depot and the decks: never). A card is
activated from a stack if and only if its state there says ``active``: one test
(``ledger.states.counts_in_stack``) decides both. Each test is named after the rule.
"""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.application import Ledger
from ledger.catalog import Card, Catalog
from ledger.errors import RuleBroken
from ledger.rulesets import decided_under
from ledger.states import card_states

from .conftest import Game

pytestmark = pytest.mark.both_stores

PILE_CARDS = [  # (id, effects): stack effects and card effects in every mix
    ("item-relic", ("activate@discard",)),
    ("item-charm", ("activate@anywhere",)),
    ("item-lamp", ("activate", "activate@discard")),
    ("item-banner", ("activate", "auto@anywhere")),
    ("item-plain", ("activate",)),
]


@pytest.fixture
def piles(app: Ledger, sample_catalog) -> Game:
    return _piles(app, sample_catalog)


def _piles(app: Ledger, sample_catalog) -> Game:
    extra = [Card(id=card, suit="item", name=card.title(), level=1, value=2, knowledge=0, effects=effects)
             for card, effects in PILE_CARDS]
    rec = app.start(Catalog([*sample_catalog, *extra]), name="Piles")
    game = Game(app, rec.campaign.id)
    game.do(c.AddHero(hero="ana", knowledge=1))
    return game


def usable_effects(game: Game, card: str, by: str | None = None) -> list[int]:
    """The effects the rules let a hero activate now (each tried for real; refusals append
    nothing); ``by``: the card of hers whose effect lets her activate one of the scenario."""
    usable = []
    for index in range(1, len(game.campaign.card(card).effects) + 1):
        try:
            game.do(c.Activate(actor="ana", card=card, effect=index, by=by))
        except RuleBroken:
            continue
        usable.append(index)
        game.do(c.Undo())  # the master takes it back: the card lies where it was
    return usable


def test_a_card_with_only_a_discard_pile_effect_in_the_depot_is_inactive_and_cannot_be_activated(piles):
    piles.add("item-relic", to="depot")
    assert card_states(piles.campaign, "item-relic") == ["revealed", "inactive"]
    err = piles.refuse(c.Activate(actor="ana", card="item-relic"), RuleBroken)
    assert "depot" in str(err) and "do not count" in str(err)
    piles.refuse(c.Activate(card="item-relic", hero="ana"), RuleBroken)  # a rule, not a permission: the master too


def test_in_the_discard_pile_only_the_stack_effects_may_be_used(piles):
    piles.add("item-lamp", "item-relic", "item-charm", "item-plain", to="discard")
    assert usable_effects(piles, "item-lamp") == [2]  # its @discard effect, not its card effect
    assert usable_effects(piles, "item-relic") == [1]
    assert usable_effects(piles, "item-charm") == [1]
    assert usable_effects(piles, "item-plain") == []
    assert "inactive" in card_states(piles.campaign, "item-plain")


def test_an_anywhere_effect_does_not_count_in_a_stack_whose_use_is_never(piles):
    piles.add("item-charm", to="depot")
    assert card_states(piles.campaign, "item-charm") == ["revealed", "inactive"]
    assert usable_effects(piles, "item-charm") == []


@pytest.mark.parametrize("zone", ["discard", "depot", "table:ana", "scenario"])
def test_a_card_is_activatable_in_a_stack_if_and_only_if_its_state_says_active(piles, zone):
    cards = [card for card, _effects in PILE_CARDS]
    piles.add(*cards, to=zone)
    by = None
    if zone == "scenario":  # not hers: activated by the effect of a card of hers (ruleset 17)
        by = piles.EFFECTS["ana"]
        piles.add(by, to="table:ana")
    for card in cards:
        active = "active" in card_states(piles.campaign, card)
        assert bool(usable_effects(piles, card, by)) == active, (card, zone)


def test_an_activation_recorded_before_ruleset_3_is_decided_again_under_its_own_rules(app, sample_catalog):
    """The record stays verifiable: a depot card activated under ruleset 2 (which let any
    stack effect work in any pile) is decided again under ruleset 2 by verify."""
    with decided_under(2):  # the whole campaign, as a ledger of ruleset 2 recorded it
        piles = _piles(app, sample_catalog)
        piles.add("item-relic", to="depot")
        rec = piles.do(c.Activate(actor="ana", card="item-relic"))
    assert rec.event.ruleset == 2
    from ledger.audit import verify

    report = verify(piles.app, piles.cid)
    assert report.bad_seq is None, report.reason


def test_explain_names_the_stack_effect_an_activation_from_a_stack_used(piles):
    from projections.explain import explain

    piles.add("item-lamp", to="discard")
    rec = piles.do(c.Activate(actor="ana", card="item-lamp", effect=2))
    before = piles.app.campaign(piles.cid, at=rec.seq - 1)
    checks = explain(rec.event, before, rec.campaign, "public")["checks"]
    assert {"rule": "§7 stack effects", "label": "§7 stack effects",
            "detail": "in discard only the stack effects its stack lets count are used (use: stack-scope); "
                      "effect 2 is activate@discard"} in checks


SHRINE = """\
name = "shrine"
[[stacks]]
id = "shrine"
kind = "pile"
visibility = "face-up"
use = "always"
affected = "all"
"""


def test_a_card_state_read_by_an_older_action_is_the_state_of_its_ruleset(app, sample_catalog, tmp_path):
    """Before ruleset 3 a face-up card in a stack whose use is "always" was active whatever
    its effects; an access effect recorded then from such a card still verifies, while
    under ruleset 3 the card (no stack effect) is inactive there and refused."""
    from ledger.formats import load_format

    fmt = tmp_path / "shrine.toml"
    fmt.write_text(SHRINE, encoding="utf-8")
    with decided_under(2):  # the whole campaign, as a ledger of ruleset 2 recorded it
        game = Game(app, app.start(sample_catalog, name="Shrine", fmt=load_format(fmt)).campaign.id)
        game.do(c.AddHero(hero="ana"))
        game.do(c.AddLocation(location="village", access={"item": 1}))
        game.add("event-festival", to="shrine")  # its one effect is a card effect, not a stack effect
    assert card_states(game.campaign, "event-festival") == ["revealed", "inactive"]
    game.refuse(c.SetAccess(location="village", suit="item", level=2, by="event-festival"), RuleBroken)
    with decided_under(2):
        assert "active" in card_states(game.campaign, "event-festival")
        game.do(c.SetAccess(location="village", suit="item", level=2, by="event-festival"))
    from ledger.audit import verify

    assert verify(game.app, game.cid).bad_seq is None
