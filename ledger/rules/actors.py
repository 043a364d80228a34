"""Who may act, and for whom (RULES.md §1, §3, §9): the master runs the campaign and
may do anything; a hero acts as themself, on cards they can see, in stacks they own
or that nobody owns."""

from __future__ import annotations

from ..campaign import Campaign
from ..errors import BadInput, NotAllowed
from ..formats import ZoneSpec
from ..visibility import can_identify, sees_everything
from ..vocabulary import MASTER, Zone, check_hero_id
from .stacks import must_be_in_campaign


def actor_in_campaign(campaign: Campaign, actor: str) -> None:
    """RULES.md §1: an actor is the master or a hero of this campaign."""
    if actor != MASTER:
        check_hero_id(actor)
        campaign.check_hero(actor)


def may_act_for(actor: str, hero: str | None) -> bool:
    """RULES.md §1: the master may act for any hero; a hero acts only for themself."""
    return sees_everything(actor) or actor == hero


def acts_for(actor: str, hero: str, doing: str, hint: str | None = None) -> None:
    """RULES.md §1: only the master or that hero may ``doing`` for a hero."""
    if not may_act_for(actor, hero):
        raise NotAllowed(f"{actor} may not {doing} ({hint or f'act as --actor {hero} or --actor master'})")


def master_only(actor: str, does: str) -> None:
    """RULES.md §1: the master runs the campaign; some things only the master does."""
    if not sees_everything(actor):
        raise NotAllowed(f"only the master {does} (not {actor})")


def hand_for(actor: str, to: str | None, doing: str) -> str:
    """Cards a hero takes go to their own inventory unless told where; the master has
    no inventory, so the master must say where."""
    if to is not None:
        return to
    if sees_everything(actor):
        raise BadInput(f"the master has no inventory; say where to {doing} with --to inventory:HERO")
    return Zone.inventory(actor)


def unseen(actor: str, card: str, doing: str) -> NotAllowed:
    """The one refusal for a card a hero names but cannot see, or that does not exist."""
    return NotAllowed(f"{actor} cannot see card {card}; a hero {_third_person(doing)} only cards they can see")


def _third_person(doing: str) -> str:
    """``attach to`` -> ``attaches to``, ``bury`` -> ``buries``, ``send`` -> ``sends``."""
    verb, _, rest = doing.partition(" ")
    if verb.endswith(("ch", "sh", "s", "x")):
        verb += "es"
    elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
        verb = verb[:-1] + "ies"
    else:
        verb += "s"
    return f"{verb} {rest}".strip()


def may_name(campaign: Campaign, actor: str, cards: tuple[str, ...], doing: str) -> None:
    """RULES.md §9 and §4: a hero names only cards they can see (and hears nothing of
    where the others are, not even "in the box"); cards in the box are not in the
    campaign."""
    for card in cards:
        if not sees_everything(actor) and not can_identify(campaign, actor, card):
            raise unseen(actor, card, doing)
        must_be_in_campaign(campaign, actor, card, doing)


def may_use_stack(campaign: Campaign, actor: str, zone: ZoneSpec, doing: str) -> None:
    """RULES.md §3: only the owner of a stack (or of a hero's zone) may use its cards;
    anyone may use a stack with no owner. The master runs the campaign and may do anything."""
    if sees_everything(actor) or zone.owner is None or zone.owner == actor:
        return
    raise NotAllowed(
        f"{zone.id} belongs to {zone.owner}; {actor} may not {doing} it "
        f"(act as --actor {zone.owner} or --actor master)"
    )


def may_move(campaign: Campaign, actor: str, cards: tuple[str, ...], doing: str) -> None:
    """RULES.md §3, §9: a hero may move only cards they can see (hidden ones only by
    drawing or searching), from zones they own or that nobody owns."""
    for card in cards:
        if not can_identify(campaign, actor, card):
            raise NotAllowed(
                f"{actor} cannot see card {card}; a hero moves hidden cards only by drawing "
                "or searching (or the master moves it)"
            )
        may_use_stack(campaign, actor, campaign.zone_of(card), doing + " cards from")
