"""Seed 000 ("Restrição de Local"), RULES.md §8: obtaining sheet cards by their mechanic.

    "Para trocar cartas de recurso com uma pilha de descarte ou obter cartas de ficha
     pelas suas respectivas mecânicas (Progressão, Incorporação), o personagem deve estar
     em um local que permita tal ação."
    "O nível de acesso de um local define o nível máximo que as cartas obtidas podem ter."
    "Indiferente do nível de acesso do local em que a batalha estiver acontecendo, o nível
     de acesso de todas as pilhas de descarte durante uma batalha é sempre 0 [...]
     Alguns efeitos de cartas, como cartas de EVENTO no CENÁRIO, [...] podem modificar o
     nível de acesso de um local, isso inclui durante uma batalha"

Where the card comes from and what it costs the seeds leave open: the master records
both (README "Obtaining sheet cards"). Each test is named after the rule it checks.
"""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.audit import verify
from ledger.errors import BadInput, NotAllowed, RuleBroken
from ledger.events import SheetCardObtained
from projections.explain import explain

from .conftest import Game

pytestmark = pytest.mark.both_stores


@pytest.fixture
def keep(game: Game) -> Game:
    """ana at the keep (class 2, house 1, entity 0); class and house cards in the discard pile."""
    game.do(c.AddLocation(location="keep", access={"class": 2, "house": 1}))
    game.do(c.Travel(hero="ana", location="keep"))
    game.add("class-warrior", "class-cleric", "class-monk", "house-north", "entity-old-shadow", to="discard")
    return game


def obtain(card: str, by: str = "progression", **more) -> c.Obtain:
    return c.Obtain(hero="ana", card=card, by=by, **more)


def test_obtaining_a_sheet_card_needs_the_hero_at_a_location(game):
    game.add("class-warrior", to="discard")
    err = game.refuse(obtain("class-warrior"), RuleBroken)
    assert str(err) == "ana is at no location; progression needs one that allows it (ledger travel ana LOCATION)"


def test_the_locations_access_level_is_the_highest_level_obtained(keep):
    keep.do(obtain("class-cleric"))  # level 2 at class access 2
    err = keep.refuse(obtain("class-monk"), RuleBroken)  # level 3
    assert str(err) == "class-monk is level 3; access for class at keep is 2"
    err = keep.refuse(obtain("entity-old-shadow", by="incorporation"), RuleBroken)
    assert str(err).endswith("access for entity at keep is 0; access 0 admits nothing")


def test_the_access_rule_is_the_one_trading_uses_word_for_word(keep):
    """One function (rules.access_admits) for both mechanics: the same refusal for the same card."""
    keep.do(c.StartBattle())
    refused_obtain = keep.refuse(obtain("class-warrior"), RuleBroken)
    keep.add("item-axe", to="inventory:ana")
    keep.add("item-potion", to="discard")  # level 1, like class-warrior
    refused_trade = keep.refuse(c.Trade(actor="ana", hero="ana", take=("item-potion",), give=("item-axe",)),
                                RuleBroken)
    assert str(refused_obtain) == "class-warrior is level 1; access for class at keep is 0 (a battle is on); " \
                                  "access 0 admits nothing"
    assert str(refused_obtain).replace("class-warrior", "CARD").replace("class", "SUIT") == \
        str(refused_trade).replace("item-potion", "CARD").replace("item", "SUIT")


def test_a_battle_makes_the_access_0_unless_an_effect_sets_it(keep):
    keep.do(c.StartBattle())
    keep.refuse(obtain("class-warrior"), RuleBroken)
    keep.add("event-festival", to="scenario")
    keep.do(c.SetAccess(location="keep", suit="class", level=1, by="event-festival"))
    rec = keep.do(obtain("class-warrior"))
    assert rec.event.battle is True
    assert (rec.event.access.level, rec.event.access.source) == (1, "effect of event-festival")


def test_progression_and_incorporation_obtain_sheet_cards_only(keep):
    keep.add("item-helm", to="discard")
    err = keep.refuse(obtain("item-helm"), RuleBroken)
    assert "asset card" in str(err) and "traded" in str(err)


def test_an_obtained_sheet_card_lies_face_up_on_the_heros_table_or_extra_zone(keep):
    rec = keep.do(obtain("class-warrior"))
    assert (keep.zone("class-warrior"), keep.table.face("class-warrior")) == ("table:ana", "up")
    assert isinstance(rec.event, SheetCardObtained)
    keep.do(obtain("house-north", to="extra:ana"))
    assert keep.zone("house-north") == "extra:ana"
    keep.refuse(obtain("class-cleric", to="inventory:ana"), BadInput)


def test_an_obtained_card_comes_from_where_the_master_says_but_never_from_a_heros_zones(keep):
    keep.add("class-archer", to="deck:class")  # a face-down deck: the master's choice
    rec = keep.do(obtain("class-archer"))
    assert rec.event.source == "deck:class"
    keep.add("class-rogue", to="table:bo")
    err = keep.refuse(obtain("class-rogue"), RuleBroken)
    assert "bo's" in str(err)
    keep.refuse(obtain("class-archer"), RuleBroken)  # already ana's


def test_only_the_master_records_an_obtained_sheet_card(keep):
    keep.refuse(c.Obtain(actor="ana", hero="ana", card="class-warrior", by="progression"), NotAllowed)


def test_the_record_holds_the_mechanic_location_access_and_cost_and_explain_shows_them(keep):
    before = keep.app.campaign(keep.cid)
    rec = keep.do(obtain("class-cleric", cost="2 XP"))
    event = rec.event
    assert (event.hero, event.card, event.mechanic, event.source, event.to) == (
        "ana", "class-cleric", "progression", "discard", "table:ana")
    assert (event.location, event.battle, event.cost) == ("keep", False, "2 XP")
    assert (event.access.suit, event.access.level, event.access.source) == ("class", 2, "location")
    view = explain(event, before, rec.campaign, "public")
    rules = [check["rule"] for check in view["checks"]]
    assert rules == ["§8 location", "§8 access", "§8 the master's decision"]
    assert "ana obtains class-cleric by progression at keep" in view["summary"]


def test_undo_gives_back_exactly_the_table_before_and_verify_passes(keep):
    before = keep.campaign.table.to_dict()
    keep.do(obtain("class-warrior"))
    keep.do(c.Undo())
    assert keep.campaign.table.to_dict() == before
    keep.do(c.Redo())
    assert keep.zone("class-warrior") == "table:ana"
    assert verify(keep.app, keep.cid).bad_seq is None
