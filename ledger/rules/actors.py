"""Who may act, and for whom (RULES.md §1, §3, §9): the master runs the campaign and
may do anything; a hero acts as themself, on cards they can see, in stacks they own
or that nobody owns."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import BadInput, NotAllowed
from ..formats import ZoneSpec
from ..i18n import _
from ..visibility import can_identify, sees_everything
from ..vocabulary import MASTER, Zone, check_hero_id
from .stacks import must_be_in_campaign
from .words import does, doing, doing_cards_from


def actor_in_campaign(campaign: Campaign, actor: str) -> None:
    """RULES.md §1: an actor is the master or a hero of this campaign."""
    if actor != MASTER:
        check_hero_id(actor)
        campaign.check_hero(actor)


def may_act_for(actor: str, hero: str | None) -> bool:
    """RULES.md §1: the master may act for any hero; a hero acts only for themself."""
    return sees_everything(actor) or actor == hero


def acts_for(actor: str, hero: str, what: str, hint: str | None = None) -> None:
    """RULES.md §1: only the master or that hero may do ``what`` for a hero. ``what`` and
    ``hint`` are English message ids (marked ``N_``) that may name ``{hero}``."""
    if not may_act_for(actor, hero):
        hint = _(hint) if hint else _("{hero} or the master may")
        raise NotAllowed(_("{actor} may not {doing} ({hint})").format(
            actor=actor, doing=_(what).format(hero=hero), hint=hint.format(hero=hero)))


def master_only(actor: str, what: str) -> None:
    """RULES.md §1: the master runs the campaign; some things only the master does.
    ``what`` (an English message id, marked ``N_``) says what, as "only the master ___" reads."""
    if not sees_everything(actor):
        raise NotAllowed(_("only the master {does} (not {actor})").format(does=_(what), actor=actor))


def hand_for(actor: str, to: str | None, verb: str) -> str:
    """Cards a hero takes go to their own inventory unless told where; the master has
    no inventory, so the master must say where."""
    if to is not None:
        return to
    if sees_everything(actor):
        raise BadInput(_("the master has no inventory; say where to {doing} with --to inventory:HERO").format(
            doing=doing(verb)))
    return Zone.inventory(actor)


def unseen(actor: str, card: str, verb: str) -> NotAllowed:
    """The one refusal for a card a hero names but cannot see, or that does not exist."""
    # TRANSLATORS: {does} is a verb such as "sends" or "attaches to" (translated as "does").
    return NotAllowed(_("{actor} cannot see card {card}; a hero {does} only cards they can see").format(
        actor=actor, card=card, does=does(verb)))


def may_name(campaign: Campaign, actor: str, cards: tuple[str, ...], verb: str) -> None:
    """RULES.md §9 and §4: a hero names only cards they can see (and hears nothing of
    where the others are, not even "in the box"); cards in the box are not in the
    campaign."""
    for card in cards:
        if not sees_everything(actor) and not can_identify(campaign, actor, card):
            raise unseen(actor, card, verb)
        must_be_in_campaign(campaign, actor, card, verb)


def may_use_stack(campaign: Campaign, actor: str, zone: ZoneSpec, verb: str, cards_from: bool = False) -> None:
    """RULES.md §3: only the owner of a stack (or of a hero's zone) may use its cards;
    anyone may use a stack with no owner. The master runs the campaign and may do anything.
    ``verb`` names what the actor does to the stack (``draw from``), or, with ``cards_from``,
    to cards in it (``send``: "send cards from")."""
    if sees_everything(actor) or zone.owner is None or zone.owner == actor:
        return
    # TRANSLATORS: {doing} is a verb such as "draw from" or "send cards from"; {zone} a zone id.
    raise NotAllowed(_("{zone} belongs to {owner}; {actor} may not {doing} it ({owner} or the master "
                       "may)").format(zone=zone.id, owner=zone.owner, actor=actor,
                                                 doing=doing_cards_from(verb) if cards_from else doing(verb)))


def may_move(campaign: Campaign, actor: str, cards: tuple[str, ...], verb: str) -> None:
    """RULES.md §3, §9: a hero may move only cards they can see (hidden ones only by
    drawing or searching), from zones they own or that nobody owns."""
    for card in cards:
        if not can_identify(campaign, actor, card):
            raise NotAllowed(_("{actor} cannot see card {card}; a hero moves hidden cards only by drawing or "
                               "searching (or the master moves it)").format(actor=actor, card=card))
        may_use_stack(campaign, actor, campaign.zone_of(card), verb, cards_from=True)
