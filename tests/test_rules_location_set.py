"""RULES.md §8: each location has an access level 0-3 per suit; the master corrects a
location's own levels with ``location set`` (a newcomer's QA pass: a typo in ``location
add`` could only be taken back with ``undo --to``, with everything recorded since). Each
test is named after the rule it checks."""

from __future__ import annotations

import pytest

from ledger import commands as c
from ledger.audit import verify
from ledger.errors import BadInput, NotAllowed, RuleBroken, UnknownZone
from ledger.rules import effective_access
from projections.explain import explain
from projections.summaries import summary

from .conftest import Game


@pytest.fixture
def village(game: Game) -> Game:
    game.do(c.AddLocation(location="village", access={"item": 2, "skill": 1}))
    return game


def test_access_changes_the_master_corrects_the_suits_named_and_the_others_keep_theirs(village):
    done = village.do(c.SetLocation(location="village", access={"item": 3}))
    assert village.table.locations["village"].access == {"item": 3, "skill": 1}
    assert effective_access(village.campaign, "village", "item") == (3, "location")
    assert summary(done.event) == "location village set: item 3"
    before = village.app.campaign(village.cid, at=done.seq - 1)
    lines = [check["detail"] for check in explain(done.event, before, village.campaign, "public")["checks"]]
    assert any("item 3 (was 2)" in line for line in lines), lines
    village.do(c.Undo())
    assert village.table.locations["village"].access == {"item": 2, "skill": 1}
    assert verify(village.app, village.cid).ok


def test_access_changes_a_correction_changes_something_and_only_the_master_makes_it(village):
    assert "already" in str(village.refuse(c.SetLocation(location="village", access={"skill": 1}), RuleBroken))
    assert "--access" in str(village.refuse(c.SetLocation(location="village"), BadInput))
    village.refuse(c.SetLocation(location="village", access={"item": 4}), BadInput)  # 0-3
    village.refuse(c.SetLocation(location="nowhere", access={"item": 1}), UnknownZone)
    err = village.refuse(c.SetLocation(actor="ana", location="village", access={"item": 3}), NotAllowed)
    assert "only the master" in str(err)
