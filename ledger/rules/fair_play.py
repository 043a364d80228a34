"""Fair play (RULES.md §1, §4, §8, §9): what a hero may do through the ledger, so that
no player gains an edge through it. The master runs the campaign and may do anything;
a hero acts on the cards they control, puts cards only in their own zones, reaches the
discard pile only by trading, never picks a seed, searches only decks and only by an
effect, and takes back only what showed no one a hidden card and left nothing to chance. ``ledger.rulebook.HERO_MAY`` says it
command by command; ``explain`` cites it.

A hero who names a card they cannot see hears the same words whether it is hidden
somewhere or does not exist at all (``unseen``).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..campaign import Campaign
from ..changes import StackReordered
from ..errors import BadInput, CardNotThere, NotAllowed, RuleBroken
from ..events import ActionRecorded, ActionUndone
from ..formats import ZoneSpec
from ..i18n import N_, _
from ..rulesets import ruleset
from ..states import card_states
from ..texts import printable
from ..visibility import UNSEEN_PLACE, can_identify, identified_by, sees_everything
from ..vocabulary import Role, Zone
from .actors import acts_for, master_only, unseen
from .placement import bury_deck_for
from .stacks import must_be_in, not_in
from .words import doing


def _fair() -> bool:
    return ruleset() >= 2


def knows_card(campaign: Campaign, actor: str, card: str, verb: str) -> None:
    """RULES.md §9: a hero names only cards they can see; one that is hidden from them
    and one that does not exist read the same. The master may name any card of the
    catalog. A zone's id (no card's id holds a colon) is said to be one, to anyone: a QA
    pass's "discard deck:item" read "no card 'deck:item'", or, to a hero, that she could
    not see it, where ``discard --from deck:item`` was meant."""
    if ":" in card:
        if card not in campaign.zones():
            raise BadInput(_("{card} is no card: card ids hold no colon (zone ids do); name cards by their ids (ledger "
                             "catalog lists them)").format(card=card))
        raise BadInput(_("{card} is a zone, not a card; to discard a deck's top card, the master runs discard --from "
                         "{card}").format(
            card=card) if verb == "discard" else _("{card} is a zone, not a card; name cards by their ids (ledger "
                                                     "zones lists them)").format(card=card))
    if sees_everything(actor) or not _fair():
        campaign.card(card)
    elif card not in campaign.catalog.cards or not can_identify(campaign, actor, card):
        raise unseen(actor, card, verb)


def searched_cards(campaign: Campaign, actor: str, cards: Sequence[str], stack: str, why: str) -> tuple[str, ...]:
    """RULES.md §4, §9: the cards a search takes must lie in the stack searched. A card the
    actor can see elsewhere is refused with its place, before anything else. A hero names
    the others without seeing them first, so what the search does with them must tell her
    no more than looking through the stack would: from ruleset 9 her search happens,
    takes those the stack holds and records the others as missed (returned), the deck
    shuffled again as after any search; a refusal that said "not there" would have cost
    her nothing, and probing card by card would have told her what a deck holds. Only an
    id the catalog lacks is refused (the catalog is no secret: a misspelt id). Under older
    rules she was refused, in words that did not say which of several cards was missing.
    The master, who sees every card, is refused as before."""
    if sees_everything(actor) or not _fair():
        for card in cards:
            campaign.card(card)
        for card in cards:
            must_be_in(campaign, actor, card, stack, why)
        return ()
    unseen_ones = []
    for card in cards:
        if card in campaign.catalog.cards and can_identify(campaign, actor, card):
            must_be_in(campaign, actor, card, stack, why)
        else:
            unseen_ones.append(card)
    if ruleset() >= 9:
        for card in unseen_ones:
            campaign.card(card)
        return tuple(card for card in unseen_ones if campaign.table.zone_of(card) != stack)
    if any(card not in campaign.catalog.cards or campaign.table.zone_of(card) != stack for card in unseen_ones):
        if len(unseen_ones) == 1:
            raise not_in(unseen_ones[0], stack, _(UNSEEN_PLACE), why)
        raise CardNotThere(_("cards {cards}: not all of them are in {zone} ({where}); {why}").format(
            cards=", ".join(unseen_ones), zone=stack, where=_(UNSEEN_PLACE), why=_(why)))
    return ()


def controls_card(campaign: Campaign, actor: str, card: str, verb: str) -> None:
    """RULES.md §3, §8: a hero moves, turns or tilts only cards they control: in their
    inventory, on their table, in their extra zone or their own stacks (and the cards
    attached to those). The discard pile is reached by trading, the depot and the
    scenario by the master. From ruleset 8, no card of a face-down deck, even one of their
    own they may look through (§3, §4: a deck keeps its order and is searched only by an
    effect): taking one by name would be a search no effect allowed."""
    if sees_everything(actor) or not _fair():
        return
    zone = campaign.zone_of(card)
    if zone.owner == actor and zone.secret_order and ruleset() >= 8:
        raise NotAllowed(_("card {card} is in {zone}, a face-down deck: {actor} takes cards from a deck by drawing "
                           "them (ledger draw) or by an effect that searches it (ledger search --by), never by name; "
                           "the master may {doing} any card").format(card=card, zone=zone.id, actor=actor,
                                                                      doing=doing(verb)))
    if zone.owner != actor:
        text = (_("card {card} is in {zone}; {actor} may {doing} only cards they control (their inventory, table or "
                  "extra zone); the discard pile is reached by trading (ledger trade); the master may {doing} any card")
                if zone.role == Role.DISCARD else
                _("card {card} is in {zone}; {actor} may {doing} only cards they control (their inventory, table or "
                  "extra zone); the master may {doing} any card"))
        raise NotAllowed(text.format(card=card, zone=zone.id, actor=actor, doing=doing(verb)))


def sends_to_own_zone(actor: str, zone: ZoneSpec, verb: str, scenario_ok: bool = False, named: bool = False) -> None:
    """RULES.md §1, §3: a hero puts cards only into their own zones (their inventory,
    table, extra zone or own stacks), and plays cards into the scenario; discard, bury
    and exile have commands of their own. The master may put cards anywhere. From ruleset
    8, cards a hero ``named`` (and so knows) go into a face-down deck of their own only
    by bury, where bury puts them, never at a place they pick (they would stack it); a
    draw into it moves cards nobody saw."""
    if sees_everything(actor) or (scenario_ok and zone.id == Zone.SCENARIO) or not _fair():
        return
    if named and zone.owner == actor and zone.secret_order and ruleset() >= 8:
        raise NotAllowed(_("{actor} may not {doing} cards into {zone}, a face-down deck: a card goes into a deck of "
                           "their own by bury (ledger bury CARD --to {zone}), at its bottom; the master may put "
                           "cards anywhere").format(actor=actor, doing=doing(verb), zone=zone.id))
    if zone.owner == actor:
        return
    text = (_("{actor} may {doing} cards only to their own inventory, table or extra zone or the scenario, not to "
              "{zone}; discard, bury and exile have commands of their own, and the master may put cards anywhere")
            if scenario_ok else
            _("{actor} may {doing} cards only to their own inventory, table or extra zone, not to {zone}; discard, "
              "bury and exile have commands of their own, and the master may put cards anywhere"))
    raise NotAllowed(text.format(actor=actor, doing=doing(verb), zone=zone.id))


def buries_where_allowed(campaign: Campaign, actor: str, card: str, deck: ZoneSpec) -> None:
    """RULES.md §5 (Decision), §3: a hero buries a card into its suit's deck (where ``bury``
    puts it unless told otherwise) or into a deck of their own, not into another hero's
    deck or another suit's; the master buries into any deck (from ruleset 6), of the card's
    suit from ruleset 14 (``deck_holds_its_suit``)."""
    if sees_everything(actor) or ruleset() < 6 or deck.owner == actor:
        return
    own = bury_deck_for(campaign, card)
    if deck.id != own:
        raise NotAllowed(_("{actor} may bury {card} only into {own}, its suit's deck, or a deck of their own of "
                           "that suit, not into {deck} (ask the master)").format(
            actor=actor, card=card, own=own, deck=deck.id))


def seed_is_the_masters(actor: str, seed: int | None) -> None:
    """RULES.md §4, fair play: only the master chooses a seed (for tests and demos);
    every other shuffle, refill and reshuffle draws its seed from the system's secure
    random source, and the resulting order is recorded."""
    if seed is not None and not sees_everything(actor) and _fair():
        raise NotAllowed(_("only the master chooses a seed; {actor}'s shuffles, refills and reshuffles take theirs "
                           "from the system (leave out --seed)").format(actor=actor))


def shuffles_unseen_order(campaign: Campaign, actor: str, stack: ZoneSpec, face_up_only: bool = False) -> None:
    """Fair play (from ruleset 10): a hero does not shuffle a stack whose order she can see
    (a deck of her own she may look through, a face-up stack; from ruleset 11 a deck
    holding a face-up card, ``_face_up_in``): shuffling it again and again,
    looking each time, until the order suits her would be picking it, one recorded
    shuffle at a time. Nor does she search it taking nothing, which only reshuffles it;
    nor, from ruleset 11, search at all a deck holding a face-up card (``face_up_only``:
    asked before the named cards are looked for, since a search that missed them all
    would be refused and so tell her, unrecorded, what the deck lacks): every search
    reshuffles it before her eyes. The master shuffles it (ask the master)."""
    if sees_everything(actor) or ruleset() < 10:
        return
    card = _face_up_in(campaign, actor, stack)
    if card is not None:
        raise NotAllowed(_("{actor} can tell where {card} lies in {stack}, so only the master shuffles or searches it "
                           "(each shuffle, a search's too, shows where it lands: shuffling again until it lands "
                           "where it suits would be picking it; ask the master)").format(
            actor=actor, card=card, stack=stack.id))
    if face_up_only or not _looks_through(stack, actor):
        return
    raise NotAllowed(_("{actor} can look at the order of {stack}, so only the master shuffles it (shuffling again "
                       "until the order suits would be picking it; ask the master)").format(actor=actor,
                                                                                             stack=stack.id))


def has_an_effect(campaign: Campaign, card: str, search: bool | None) -> None:
    """Seeds 000-002: a search, a change to a location's access, a reordering of a deck or
    an activation of a card one does not control comes from an effect; a card of the
    catalog that has none allows none of them (from ruleset 17: any face-up card a hero
    controlled allowed her a search, as often as she liked). ``search``: True for a
    search, False for an access change, None for the others."""
    if ruleset() >= 17 and not campaign.card(card).effects:
        if search is None:
            raise RuleBroken(_("card {card} has no effect, so it allows nothing; name the card whose effect allows "
                               "it").format(card=card))
        raise RuleBroken(_("card {card} has no effect, so it allows no search; name the card whose effect lets you "
                           "search (the master searches without --by)").format(card=card) if search else
                         _("card {card} has no effect, so it changes no access; name the card whose effect does "
                           "(ledger card CARD shows its effects)").format(card=card))


def _allowing_card(campaign: Campaign, actor: str, by: str, verb: str, search: bool | None = None) -> None:
    """The card named (``--by``) as the one whose effect allows ``verb``: for a hero, one
    she can see and controls; for anyone, an active one that has an effect (the record
    says its effect allowed the action; ``search``: as ``has_an_effect`` says it)."""
    if not sees_everything(actor):
        knows_card(campaign, actor, by, verb)
        controls_card(campaign, actor, by, verb)
    campaign.card(by)
    if "active" not in card_states(campaign, by):
        raise RuleBroken(_("card {card} is not active, so its effects are not available now (ledger card {card} "
                           "shows its states)").format(card=by))
    has_an_effect(campaign, by, search=search)


def shuffle_allowed(campaign: Campaign, actor: str, stack: ZoneSpec, by: str | None) -> None:
    """Seed 001 ("Baralhos"): a deck keeps its order unless an effect or a mechanic of the
    game allows reordering it; from ruleset 17 a hero shuffles a stack nobody owns (a
    campaign deck) only by the effect of an active card she controls (``--by CARD``):
    she shuffled away a card the master had put on top, or one shown to another hero.
    Her own stacks she shuffles as before (a format's setup); the master any stack."""
    if ruleset() < 17:
        return
    if by is not None and stack.owner is not None:  # hers, or another's the master shuffles: no effect needed
        raise BadInput(_("{stack} has an owner: shuffling it needs no card's effect; leave --by out").format(
            stack=stack.id))
    if by is None and not sees_everything(actor) and stack.owner != actor:
        raise NotAllowed(_("{actor} may shuffle {stack} only by an effect that allows it (a deck keeps its order "
                           "otherwise): name the active card you control with --by CARD, or ask the master").format(
            actor=actor, stack=stack.id))
    if by is not None:
        _allowing_card(campaign, actor, by, "name for a shuffle")


def activation_allowed(campaign: Campaign, actor: str, card: str, by: str | None) -> None:
    """Seed 002 ("Ativar"): by default a hero activates only the cards she controls; some
    effects let her activate others, such as the scenario's. From ruleset 17 a hero
    activates a card of a zone nobody owns that is no stack (the scenario) only by the
    effect of an active card she controls that allows it (``--by CARD``); the master
    records any activation."""
    if ruleset() < 17:
        return
    zone = campaign.zone_of(card)  # an attached card's is its host's: one attached to the scenario's is the scenario's
    uncontrolled = zone.owner is None and not zone.is_stack
    if by is not None and not uncontrolled:  # the record would say an effect allowed what needed none (a review)
        raise BadInput(_("{card} is in {zone}: activating it needs no other card's effect; leave --by out").format(
            card=card, zone=zone.id))
    if by is None and not sees_everything(actor) and uncontrolled:
        raise NotAllowed(_("{actor} does not control {card} (in {zone}): a hero activates it only by an effect that "
                           "allows it; name the active card you control with --by CARD, or ask the master").format(
            actor=actor, card=card, zone=zone.id))
    if by is not None:
        _allowing_card(campaign, actor, by, "name for an activation")


def search_allowed(campaign: Campaign, actor: str, by: str | None, just_activated: bool = False) -> None:
    """RULES.md §4: searching a stack needs an effect that allows it: a hero names the
    active card they control whose effect lets them search (``--by CARD``), or (from
    ruleset 17, ``just_activated``) the card her latest action in force activated from her
    inventory, whose effect it resolves though the card went to the discard pile."""
    if just_activated and by is not None:
        has_an_effect(campaign, by, search=True)
        return
    if sees_everything(actor) or not _fair():
        if by is not None:
            campaign.card(by)
            if ruleset() >= 15 and "active" not in card_states(campaign, by):  # the record would say it allowed it
                raise RuleBroken(_("card {card} is not active, so its effect allows no search now; the master "
                                   "searches without --by").format(card=by))
            has_an_effect(campaign, by, search=True)
        return
    if by is None:
        raise NotAllowed(_("{actor} may search only by an effect that allows it: name the active card you control "
                           "with --by CARD (or ask the master)").format(actor=actor))
    _allowing_card(campaign, actor, by, "search by", search=True)


def searches_decks(actor: str, stack: ZoneSpec) -> None:
    """RULES.md §4, §8: a hero searches a face-down deck, or a stack of their own; not the
    campaign's discard pile, which a hero reaches only by trading (paying for what they
    take, where the location allows it, never in a battle), nor the depot, which is the
    master's (from ruleset 7)."""
    if sees_everything(actor) or ruleset() < 7 or stack.secret_order or stack.owner == actor:
        return
    if stack.role == Role.DISCARD:
        raise NotAllowed(_("{actor} may search a face-down deck or a stack of their own, not {stack}: the discard "
                           "pile is reached by trading (ledger trade), and the master searches any stack").format(
            actor=actor, stack=stack.id))
    raise NotAllowed((_("{actor} may search a face-down deck or a stack of their own, not {stack}: the depot is the "
                        "master's (it refills empty decks); ask the master") if stack.role == Role.DEPOT else
                      _("{actor} may search a face-down deck or a stack of their own, not {stack}; ask the master"))
                     .format(actor=actor, stack=stack.id))


def left_nothing_to_chance(campaign: Campaign, actor: str, events: Sequence[ActionRecorded]) -> None:
    """Fair play: a hero may not take back an action in which a deck was refilled from the
    depot: the new deck's order was left to chance, and the cards drawn from it showed
    the hero where chance put them (face-up cards, so nothing hidden was shown); taking
    it back and drawing again would try chance again. The master may (from ruleset 7).
    Nor, from ruleset 9, one that shuffled a stack whose new order the hero could see: a
    face-up one, or a deck of their own they may look through (a shuffle, a search's
    reshuffle): shuffling again until the order suits them would be picking it."""
    if sees_everything(actor) or ruleset() < 7:
        return
    chanced = [event.seq for event in events if event.refills]
    if chanced:
        raise NotAllowed(_("seq {seq} refilled a deck from the depot in an order left to chance, so only the master "
                           "may take it back (drawing again would draw on chance again)").format(seq=chanced[0]))
    if ruleset() < 9:
        return
    for event in events:
        for change in event.changes:
            if not isinstance(change, StackReordered):
                continue
            zone = campaign.zones().get(change.stack)
            if zone is None:
                continue
            card = _face_up_in(campaign, actor, zone, change.now)
            if card is not None:
                raise NotAllowed(_("seq {seq} shuffled {stack}, and {actor} saw where {card}, face-up in it, went, so "
                                   "only the master may take it back (shuffling again until it lands where it suits "
                                   "would be picking it)").format(seq=event.seq, stack=change.stack, actor=actor,
                                                                  card=card))
            if _looks_through(zone, actor):
                raise NotAllowed(_("seq {seq} shuffled {stack}, whose new order {actor} could look at, so only the "
                                   "master may take it back (shuffling again until the order suits would be picking "
                                   "it)").format(seq=event.seq, stack=change.stack, actor=actor))


def _looks_through(zone: ZoneSpec, actor: str) -> bool:
    """May ``actor`` (a hero) see the order of ``zone``: a face-up stack, or one of their
    own that lets its controller look?"""
    return zone.visibility == "face-up" or (zone.visibility == "face-down-controller-may-look" and zone.owner == actor)


def _face_up_in(campaign: Campaign, actor: str, zone: ZoneSpec, cards: Sequence[str] | None = None) -> str | None:
    """From ruleset 11: the first card of a face-down ``zone`` (one ``actor`` does not look
    through) that everyone can identify, turned face-up in it by an effect, or None. A
    shuffle leaves it face-up, so ``actor`` sees where it lands: a part of the order she
    sees, and shuffling until it lands on top would be picking the next draw. A card only
    shown to some heroes is no such card: a shuffle makes its place secret again.
    ``cards``: the zone's cards (default: as it holds them now)."""
    if ruleset() < 11 or _looks_through(zone, actor):
        return None
    held = campaign.table.cards_in(zone.id) if cards is None else cards
    return next((card for card in held if identified_by(campaign, card)[0]), None)


def showed_nothing_hidden(actor: str, events: Sequence[ActionRecorded]) -> None:
    """Fair play: a hero may not take back an action that showed anyone a hidden card —
    the cards would return where their order or place is secret, and whoever saw them
    would know it. The master may, and such an undo reshuffles the decks they return to.
    Nor, from ruleset 10, a search that missed cards she named: it told her what the
    stack lacks, and taking it back would return the stack's order from before the
    search's reshuffle, so probing a deck would cost nothing."""
    if sees_everything(actor) or not _fair():
        return
    shown = [event for event in events if event.identified]
    if shown:
        # to her alone (her draw, her search): said so; to others too: "someone", naming no one
        text = (_("seq {seq} showed {actor} hidden cards, so only the master may take it back (ask the master: a deck "
                  "those cards return to is shuffled again)") if set(shown[0].identified) == {actor} else
                _("seq {seq} showed hidden cards to someone at the table, so only the master may take it back (ask "
                  "the master: a deck those cards return to is shuffled again)"))
        raise NotAllowed(text.format(seq=shown[0].seq, actor=actor))
    if ruleset() < 10:
        return
    missed = [event for event in events if getattr(event, "missed", ())]
    if missed:
        raise NotAllowed(_("seq {seq} searched {stack} for cards it did not hold, which told {actor} what it lacks, "
                           "so only the master may take it back").format(
            seq=missed[0].seq, stack=missed[0].stack, actor=actor))


def keeps_order_by_master(actor: str, keep_order: bool) -> None:
    """Fair play: keeping a seen deck's order after an undo is a referee decision."""
    if keep_order and not sees_everything(actor) and _fair():
        raise NotAllowed(_("only the master may keep a deck's order after an undo (not {actor})").format(actor=actor))


def redoes_own_undo(actor: str, undo: ActionUndone) -> None:
    """Fair play: a hero redoes only an undo they made themself."""
    if not sees_everything(actor) and undo.actor != actor and _fair():
        raise NotAllowed(_("{actor} may redo only their own undo; seq {seq} was {other}'s (ask the master)").format(
            actor=actor, seq=undo.seq, other=undo.actor))


def decks_to_reshuffle(campaign: Campaign, events: Sequence[ActionRecorded]) -> list[str]:
    """Fair play: after an undo, every ordered face-down stack that holds a card the
    undone actions showed someone is shuffled again, in the same undo."""
    if not _fair():
        return []
    seen = {card for event in events for cards in event.identified.values() for card in cards}
    stacks = []
    for card in sorted(seen):
        zone = campaign.zone_of(card)
        if zone.secret_order and zone.id not in stacks and len(campaign.table.cards_in(zone.id)) > 1:
            stacks.append(zone.id)
    return sorted(stacks)


def master_sets_knowledge(actor: str, hero: str) -> None:
    """Fair play: only the master changes a hero's knowledge (under the first rules,
    a hero could change their own)."""
    if not _fair():
        acts_for(actor, hero, N_("change {hero}'s knowledge"), hint=N_("the master or {hero} may"))
    else:
        master_only(actor, N_("changes a hero's knowledge"))


def master_discards_from_decks(actor: str) -> None:
    """Fair play: only the master discards from the top of a deck (a hero would see
    the cards go by, and choose when)."""
    if _fair():
        master_only(actor, N_("discards from the top of a deck"))


def printable_text(option: str, text: str | None) -> None:
    """Fair play (from ruleset 10): the free text an action records (an activation's
    target, note and kinds of energy, a hero's name, an obtained card's cost) is shown to
    the whole table, in terminals too, so it is printable text on one line: a terminal's
    escape sequence or a line break in it would let one player colour, hide or fake lines
    of another's history and explain."""
    if text is None or ruleset() < 10 or printable(text):
        return
    bad = next(char for char in text if not printable(char))
    raise BadInput(_("{option}: only printable characters, on one line (not U+{code:04X}): the text is shown to the "
                     "whole table, in terminals too").format(option=option, code=ord(bad)))
