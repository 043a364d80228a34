"""Activation (RULES.md §6): who activates a card, which of its effects, from where,
and where the card goes after being activated from the inventory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..campaign import Campaign
from ..errors import BadInput, NotAllowed, RuleBroken
from ..i18n import _, ngettext, pgettext
from ..rulebook import ENERGY_KINDS, ENERGY_NAME, MOST_PAID
from ..rulesets import ruleset
from ..states import affected_by, card_states, counts_in_stack
from ..terms import state_name
from ..visibility import can_identify, sees_everything, where_for
from ..vocabulary import Role
from .actors import may_act_for
from .fair_play import printable_text
from .placement import bury_deck_for, discard_pile_for

if TYPE_CHECKING:
    from ..formats import ZoneSpec


def activating_hero(campaign: Campaign, actor: str, asked: str | None, card: str) -> str | None:
    """RULES.md §6: a hero activates as themself; the master names the hero who
    activates, or it is the owner of the card's zone (None for a zone nobody owns)."""
    hero = asked or (None if sees_everything(actor) else actor) or campaign.zone_of(card).owner
    if hero is not None:
        campaign.check_hero(hero)
    return hero


def may_activate(campaign: Campaign, actor: str, hero: str | None, card: str) -> None:
    """RULES.md §6 and §3: a hero activates, as themself, cards they can see, that they
    control (only the owner of a zone uses its cards; anyone those of a zone with no
    owner), in play: in an inventory, on a table, attached, in a zone in play, or a
    pile's stack effects."""
    zone = campaign.zone_of(card)
    if not may_act_for(actor, hero):
        raise NotAllowed(_("{actor} activates cards as themself, not as {hero}").format(actor=actor, hero=hero))
    if not sees_everything(actor) and not can_identify(campaign, actor, card):
        raise NotAllowed(_("{actor} cannot see card {card}; only cards you can see can be activated").format(
            actor=actor, card=card))
    if zone.owner is not None and zone.owner != hero:
        raise NotAllowed(_("card {card} is in {zone}; only {owner} may activate it").format(
            card=card, zone=zone.id, owner=zone.owner))
    if not (zone.in_play or zone.kind == "pile"):
        raise RuleBroken(_("card {card} is not in play ({where}); cards are activated from an inventory, a table, an "
                           "attachment or a zone in play").format(card=card, where=where_for(campaign, actor, card)))


def chosen_effect(campaign: Campaign, card: str, asked: int | None) -> int:
    """RULES.md §6: manual activation needs an ``activate`` effect; a card with several
    says which one (``--effect N``); an ``auto`` effect is recorded by number. Returns the
    effect's number (from 1)."""
    effects = campaign.card(card).effects
    if asked is None:
        manual = [i for i, eff in enumerate(effects, start=1) if eff.kind == "activate"]
        if not effects:
            raise RuleBroken(_("card {card} has no effect, so it cannot be activated").format(card=card))
        if not manual:
            raise RuleBroken(_("card {card} has no activate effect, so it cannot be activated manually (its auto "
                               "effects fire on their own; record one with --effect N)").format(card=card))
        if len(manual) > 1:
            # TRANSLATORS: the word between choices: "--effect 1 or 2".
            either = " {} ".format(pgettext("between choices", "or"))
            raise BadInput(_("card {card} has {n} activate effects; choose one with --effect {choices}").format(
                card=card, n=len(manual), choices=either.join(map(str, manual))))
        return manual[0]
    if asked > len(effects):
        raise BadInput(ngettext("card {card} has {n} effect; --effect {asked} is not one of them",
                                "card {card} has {n} effects; --effect {asked} is not one of them",
                                len(effects)).format(card=card, n=len(effects), asked=asked))
    return asked


def from_inventory(campaign: Campaign, card: str) -> bool:
    """RULES.md §6: a card in an inventory (not attached) is activated from the inventory."""
    return campaign.zone_of(card).kind == "hand" and campaign.table.host(card) is None


def effect_usable(
    campaign: Campaign, card: str, index: int, action_points: int | None, energies: dict[str, int]
) -> None:
    """RULES.md §6, §7: only ``activate`` effects may be activated from the inventory;
    ``auto`` effects cost no action points or energy; an attached card uses only its
    attachment effects, while its host is face-up; a card in a stack, face-up, only the
    stack effects the stack lets count (``states.counts_in_stack``, the test behind its
    ``active`` state); elsewhere a face-down card is inactive."""
    effect = campaign.card(card).effects[index - 1]
    table = campaign.table
    host = table.host(card)
    zone = campaign.zone_of(card)
    from_hand = from_inventory(campaign, card)
    if from_hand and effect.kind != "activate":
        # TRANSLATORS: {kind} is "auto" (an effect kind, not translated).
        raise RuleBroken(_("only activate effects may be activated from the inventory; effect {index} of {card} is "
                           "{kind}").format(index=index, card=card, kind=effect.kind))
    if effect.kind == "auto" and (action_points or energies):
        raise RuleBroken(_("auto effects cost no action points or energy; record the activation without them"))
    if host is not None:
        if effect.scope != "attachment" or table.face(host) != "up":
            raise RuleBroken(_("card {card} is attached; only its attachment effects can be used, and only while its "
                               "host is face-up").format(card=card))
    elif zone.is_stack and ruleset() >= 3:
        if table.face(card) != "up" or not counts_in_stack(zone, effect):
            # TRANSLATORS: {what_counts} e.g. "only its face-up cards' @anywhere effects work there"; {effect} is
            # the effect as the catalog writes it (e.g. "activate@discard: ..."); {states} e.g. "revealed, inactive".
            raise RuleBroken(_("card {card} is in {zone}; {what_counts}; effect {index} of {card} is {effect} (its "
                               "state there: {states})").format(
                card=card, zone=zone.id, what_counts=_what_counts(zone), index=index, effect=effect,
                states=", ".join(state_name(state).lower() for state in card_states(campaign, card))))
    elif zone.kind == "pile":  # as recorded before ruleset 3: any pile, any stack effect
        if effect.scope not in ("anywhere", "discard") or table.face(card) != "up":
            raise RuleBroken(_("card {card} is in {zone}; only its stack effects (@anywhere, @discard) work "
                               "there").format(card=card, zone=zone.id))
    elif not from_hand and table.face(card) != "up":
        raise RuleBroken(_("card {card} is face-down (inactive); reveal it before activating it").format(card=card))


def energies_paid(energies: dict[str, int]) -> None:
    """RULES.md §7: the energies an activation records as paid (the ledger records them,
    the table checks them) are whole amounts from 0 to ``MOST_PAID``, of at most
    ``ENERGY_KINDS`` kinds (from ruleset 9: a negative amount read as energy gained, and
    a huge one or thousands of kinds filled the record), each kind named in at most
    ``ENERGY_NAME`` characters (from ruleset 10)."""
    if ruleset() < 9:
        return
    if len(energies) > ENERGY_KINDS:
        raise BadInput(_("{count} kinds of energy: an activation records at most {most}").format(
            count=len(energies), most=ENERGY_KINDS))
    for kind, amount in energies.items():
        printable_text("--energy", kind)
        if ruleset() >= 10 and not (0 < len(kind) <= ENERGY_NAME and kind.strip() == kind):
            raise BadInput(_("--energy {kind}=…: a kind of energy is named in 1 to {most} characters, with no space "
                             "before or after").format(
                kind=repr(kind[:ENERGY_NAME] + ("…" if len(kind) > ENERGY_NAME else "")), most=ENERGY_NAME))
        if not 0 <= amount <= MOST_PAID:
            raise BadInput(_("--energy {kind}={amount}: an energy paid is a whole number from 0 to {most}").format(
                kind=kind, amount=amount, most=MOST_PAID))


def stack_effect_reaches(campaign: Campaign, card: str, target: str | None) -> None:
    """Seed 001 ("Afetados"): a stack card's effect reaches only the heroes its stack's
    ``affected`` setting names (who receives it, not who may activate it: RULES.md §3),
    so a target that is a hero of the campaign must be one of them (a target that names
    no hero is recorded as given)."""
    affected = affected_by(campaign, card)
    if affected is None or ruleset() < 3:
        return
    if target is not None and target in campaign.table.heroes and target not in affected:
        zone = campaign.zone_of(card)
        # TRANSLATORS: {affected} is the stack's setting as the format names it (none, owner, all).
        raise RuleBroken(_("the effects of {card} in {zone} reach {heroes} (its affected: {affected}); {target}, the "
                           "target, is not affected").format(
            card=card, zone=zone.id, heroes=", ".join(affected) or _("no hero"), affected=zone.affected,
            target=target))


def _what_counts(zone: ZoneSpec) -> str:
    """In words: which effects of its face-up cards a stack lets count (``counts_in_stack``)."""
    if zone.use == "never":
        return _("the effects of its cards do not count there")
    if zone.use == "always" or zone.role == Role.DISCARD:
        return _("only its face-up cards' stack effects (@anywhere, @discard) work there")
    return _("only its face-up cards' @anywhere effects work there")


def knowledge_meets(campaign: Campaign, hero: str, card: str) -> None:
    """RULES.md §6: a hero activates an asset card only if their knowledge meets its requirement."""
    need = campaign.card(card).knowledge or 0
    have = campaign.table.heroes[hero].knowledge
    if have < need:
        raise RuleBroken(_("{card} needs knowledge {need}; {hero}'s knowledge is {have} (the master changes a "
                           "hero's knowledge)").format(
            card=card, need=need, hero=hero, have=have))


def activator_knowledge(campaign: Campaign, hero: str | None, card: str) -> None:
    """RULES.md §6: the ledger enforces the knowledge requirement, so a card that has
    one is activated by a named hero whose knowledge meets it."""
    if hero is not None:
        knowledge_meets(campaign, hero, card)
    elif campaign.card(card).knowledge:
        raise BadInput(_("say which hero activates {card} with --hero HERO (its knowledge must be checked)").format(
            card=card))


def after_activation_from_inventory(campaign: Campaign, card: str) -> str:
    """RULES.md §6: activated from the inventory a card is discarded, unless its task
    keyword (discard, bury) says where it goes; the task wins."""
    if campaign.card(card).task == "bury":
        return bury_deck_for(campaign, card)
    return discard_pile_for(campaign, card)
