"""Reading the campaign (CLI.md "History, replay, undo"): ``zones``, ``card``, ``history``
and ``explain``, each as the ``--as`` viewer may see it, now or at an earlier seq; and
``catalog``, the campaign's cards (no secret), with the box's for the referee."""

from __future__ import annotations

import click

from ...errors import BadInput
from ...i18n import N_, _
from .group import SignedArguments, cli
from .session import SEQ, Count, Session, pass_session


@cli.command()
@click.option("--at", "at", default=None, type=SEQ, help="Right after action SEQ (time travel).")
@pass_session
def zones(s: Session, at: int | None) -> None:
    """Every zone as the viewer sees it, now or right after action SEQ.

    \b
    Example: ledger --as public zones --at 12
    """
    from projections.render import render_zones
    from projections.views import facts_as_of, zones_view

    ledger = s.ledger()
    campaign = ledger.campaign(s.cid(), at=at)
    viewer = s.viewing(campaign)
    view = zones_view(campaign, viewer)
    view.update(facts_as_of(ledger, s.cid(), campaign, viewer, at))  # heroes, locations, battle: as the API's
    s.emit_view(view, human=lambda out: render_zones(out, view, campaign))


@cli.command()
@click.argument("card_id", metavar="CARD")
@click.option("--at", "at", default=None, type=SEQ, help="Right after action SEQ (time travel).")
@click.option("--limit", type=Count(N_("a number of actions")), default=None,
              help="Only the latest N actions that touched it (default: all).")
@pass_session
def card(s: Session, card_id: str, at: int | None, limit: int | None) -> None:
    """One card's place and states, and the actions that touched it.

    \b
    Example: ledger --as ana card item-sword --at 12 --limit 20
    """
    from projections.queries import card_view
    from projections.render import render_card

    ledger = s.ledger()
    campaign = ledger.campaign(s.cid(), at=at)
    campaign.card(card_id)
    view = card_view(ledger, s.model(), campaign, s.viewing(campaign), card_id, limit=limit)
    s.emit_view(view, human=lambda out: render_card(out, view))


@cli.command()
@click.option("--from", "start", type=SEQ, default=None, help="From action SEQ.")
@click.option("--to", "end", type=SEQ, default=None, help="Up to action SEQ.")
@click.option("--card", "card_id", default=None, help="Only actions that touched this card.")
@click.option("--actor", "actor", default=None, help="Only actions by master or this hero.")
@click.option("--limit", type=Count(N_("a number of actions")), default=None, help="Only the latest N actions (default: all).")
@pass_session
def history(s: Session, start: int | None, end: int | None, card_id: str | None, actor: str | None,
            limit: int | None) -> None:
    """The campaign's actions: what happened, when, to which card, by whom.

    \b
    Example: ledger --as public history --card item-sword --from 10
    """
    from projections.queries import acted_nowhere, history_view
    from projections.render import render_history

    ledger = s.ledger()
    cid = s.cid()
    campaign = ledger.campaign(cid)
    if card_id is not None:
        campaign.card(card_id)
    if limit is not None and limit < 1:
        raise BadInput(_("--limit {limit}: give a number of actions, at least 1").format(limit=limit))
    if start is not None and end is not None and start > end:
        raise BadInput(_("--from {start} is after --to {end}: give the earlier action to --from").format(
            start=start, end=end))
    rows = history_view(ledger, s.model(), cid, campaign.slug, s.viewing(campaign), start=start, end=end,
                        card=card_id, actor=actor, limit=limit)
    if actor is not None and not rows and acted_nowhere(ledger, s.model(), campaign, s.viewing(campaign), actor):
        raise BadInput(_("--actor {actor}: not the master nor a hero of this campaign (heroes: {heroes})").format(
            actor=repr(actor), heroes=", ".join(campaign.table.heroes) or _("none yet; add one with hero add")))
    s.emit_view(rows, human=lambda out: render_history(out, rows, campaign, s.viewer))


@cli.command(cls=SignedArguments)  # -1: a seq refused as such
@click.argument("seq", type=SEQ)
@pass_session
def explain(s: Session, seq: int) -> None:
    """Which rules an action was checked against, with the figures.

    \b
    Example: ledger explain 27
    """
    from projections.explain import explain as explain_action
    from projections.render import render_explain

    ledger = s.ledger()
    cid = s.cid()
    event = ledger.event(cid, seq)  # first: a seq past the end is "not an action", not a bad --at
    after = ledger.campaign(cid, at=seq)
    viewer = s.viewing(after)
    before = ledger.campaign(cid, at=seq - 1) if seq > 1 else None
    view = explain_action(event, before, after, viewer)
    s.emit_view(view, human=lambda out: render_explain(out, view))


@cli.command()
@click.option("--suit", default=None, help="Only the cards of this suit (item, skill, companion…).")
@click.option("--box", "in_box", is_flag=True, help="Referee only: only the cards still in the box, to add.")
@pass_session
def catalog(s: Session, suit: str | None, in_box: bool) -> None:
    """The campaign's cards: id, suit, name, level, value, knowledge, effects, task.

    The catalog is no secret (every player names cards by these ids); where each card
    lies is, so only the referee may ask for the cards still in the box (--box).

    \b
    Example: ledger catalog --suit item --box    |    ledger --as ana catalog
    """
    from projections.render import render_catalog

    from ...visibility import PUBLIC, REFEREE
    from ...vocabulary import Zone, check_suit

    campaign = s.ledger().campaign(s.cid())
    s.viewing(campaign)
    if s.viewer == PUBLIC:  # as the table server's public seat (SERVER.md): it watches
        raise BadInput(_("the public watches; the catalog is for those who play (the referee and the heroes)"))
    if in_box and s.viewer != REFEREE:
        raise BadInput(_("--box: which cards are still in the box is the referee's to see (where cards lie is "
                         "secret); leave --box out"))
    wanted = str(check_suit(suit)) if suit is not None else None
    rows = [{"id": card.id, "suit": str(card.suit), "name": card.shown_name, "level": card.level,
             "value": card.value, "knowledge": card.knowledge, "effects": [str(e) for e in card.effects],
             "task": card.task}
            for card in campaign.catalog
            if (wanted is None or str(card.suit) == wanted)
            and (not in_box or campaign.table.zone_of(card.id) == Zone.BOX)]
    s.emit(rows, human=lambda out: render_catalog(out, rows, campaign.name, in_box))
