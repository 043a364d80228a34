"""Stacks and campaign decks (RULES.md §3, §4): orientation on entry, which stacks an
action works on, the box, shuffling, refilling an empty deck and searching."""

from __future__ import annotations

from collections.abc import Collection

from ..campaign import Campaign
from ..errors import BadInput, CardNotThere, DeckEmpty, RuleBroken
from ..formats import ZoneSpec
from ..i18n import _, ngettext
from ..rulesets import ruleset
from ..terms import suit_word
from ..visibility import where_for
from ..vocabulary import Face, Zone
from .words import doing


# -- §3 stacks ----------------------------------------------------------------
def entry_face(zone: ZoneSpec, asked: Face | None) -> Face:
    """RULES.md §3: a card entering a stack takes the stack's orientation, however it
    gets there; elsewhere it lies as asked, or as the zone usually shows its cards."""
    if zone.is_stack:
        if asked is not None and asked != zone.entry_face:
            text = (_("{zone} is a face-up stack: a card entering it is face-up; send it without --face, then "
                      "turn it with hide if an effect says so") if zone.entry_face == "up" else
                    _("{zone} is a face-down stack: a card entering it is face-down; send it without --face, then "
                      "turn it with reveal if an effect says so"))
            raise RuleBroken(text.format(zone=zone.id))
        return zone.entry_face
    return asked or zone.entry_face


def must_be_in(campaign: Campaign, actor: str, card: str, zone_id: str, why: str) -> None:
    """RULES.md §3: an action takes a card only from the stack it names; the message
    says where the card is only if the actor may see it there. ``why`` (an English
    message id, marked ``N_``) says where the action takes its cards from."""
    if campaign.table.zone_of(card) != zone_id:
        raise not_in(card, zone_id, where_for(campaign, actor, card), why)


def not_in(card: str, zone_id: str, where: str, why: str) -> CardNotThere:
    """The refusal for a card that is not where an action takes it from (``where``: in
    the language spoken; ``why``: an English message id, translated here)."""
    return CardNotThere(_("card {card} is not in {zone} ({where}); {why}").format(
        card=card, zone=zone_id, where=where, why=_(why)))


def must_be_deck(zone: ZoneSpec, command: str) -> None:
    """RULES.md §3: drawing, discarding from the top and burying work on decks
    (``command``: the command refused, named as typed: ``draw``, ``discard --from``)."""
    if not zone.is_deck:
        hint = _("take a card from it with search") if zone.kind == "pile" else _("name a deck such as deck:item")
        # TRANSLATORS: {command} is the command as typed (draw, discard --from, bury): not translated.
        raise RuleBroken(_("{zone} is not a deck; {command} works on decks ({hint})").format(
            zone=zone.id, command=command, hint=hint))


def must_be_stack(zone: ZoneSpec, command: str) -> None:
    """RULES.md §3: searching works on stacks (decks and piles)."""
    if not zone.is_stack:
        # TRANSLATORS: {command} is the command as typed (search): not translated.
        raise RuleBroken(_("{zone} is not a stack; {command} works on decks and piles").format(
            zone=zone.id, command=command))


def something_to_search(campaign: Campaign, zone: ZoneSpec) -> None:
    """RULES.md §4 (ruleset 14): a search looks through the cards of a stack, and an empty
    one has none (how many cards a stack holds is in sight of all: the refusal tells no one
    anything). Under older rules the search was recorded, reshuffling nothing."""
    if ruleset() >= 14 and not campaign.table.cards_in(zone.id):
        raise RuleBroken((_("{zone} is empty: there is nothing to search in it (a draw refills an empty deck from "
                            "the depot)") if zone.is_deck else
                          _("{zone} is empty: there is nothing to search in it")).format(zone=zone.id))


def must_be_ordered(zone: ZoneSpec) -> None:
    """RULES.md §3: decks keep an order, so they are shuffled; a pile's order has no meaning."""
    if not zone.ordered:
        raise RuleBroken(_("{zone} is unordered (its order has no meaning); shuffle works on decks").format(
            zone=zone.id))


def enough_to_shuffle(campaign: Campaign, zone: ZoneSpec) -> None:
    """A shuffle needs at least two cards to change anything."""
    held = len(campaign.table.cards_in(zone.id))
    if held < 2:
        raise RuleBroken(ngettext("{zone} holds {n} card; nothing to shuffle",
                                  "{zone} holds {n} cards; nothing to shuffle", held).format(zone=zone.id, n=held))


def position_in_range(zone_id: str, position: int | str, others: int) -> None:
    """RULES.md §3: a card sent to a numbered position of an ordered stack goes between
    the cards already there (1 = top, one past the last = bottom)."""
    if isinstance(position, int) and not 1 <= position <= others + 1:
        raise BadInput(ngettext(
            "position {position} is outside {zone}, which holds {n} other card; use 1 (top) to {last} (bottom), "
            "top or bottom",
            "position {position} is outside {zone}, which holds {n} other cards; use 1 (top) to {last} (bottom), "
            "top or bottom", others).format(position=position, zone=zone_id, n=others, last=others + 1))


# -- §4 campaign decks ------------------------------------------------------------
def must_be_in_campaign(campaign: Campaign, actor: str, card: str, verb: str) -> None:
    """RULES.md §4: cards in the box are not (yet) in the campaign; ``add`` brings them in."""
    if campaign.table.zone_of(card) == Zone.BOX:
        raise CardNotThere(_("card {card} is in the box, not in the campaign; add it to a stack first (ledger add "
                               "{card} --to {deck}) before you {doing} it").format(
            card=card, deck=Zone.deck(campaign.card(card).suit), doing=doing(verb)))


def must_be_in_box(campaign: Campaign, card: str) -> None:
    """RULES.md §4: ``add`` takes cards from the box into the campaign; cards in play move by send."""
    if campaign.table.zone_of(card) != Zone.BOX:
        raise CardNotThere(_("card {card} is already in the campaign, not in the box; add takes cards from the "
                               "box (use send to move a card in play)").format(card=card))


def may_add_to(zone_id: str) -> None:
    """RULES.md §4: cards are added from the box to a zone of the campaign, not to the box."""
    if zone_id == Zone.BOX:
        raise BadInput(_("add brings cards from the box into the campaign; name another zone with --to"))


def refill_candidates(campaign: Campaign, deck: str, moved: Collection[str]) -> list[str]:
    """RULES.md §4: an empty deck is refilled from the depot with cards of its suit (up
    to ``rulebook.REFILL_LIMIT`` of them, shuffled face-down). Cards this very action has already
    moved (say, drawn into the depot) are not shuffled back in: a card is drawn once
    per action. In the depot's order; the caller shuffles and takes the first ones."""
    suit = campaign.zone(deck).suit
    if suit is None or Zone.DEPOT not in campaign.zones():
        return []
    catalog = campaign.catalog
    return [c for c in campaign.table.cards_in(Zone.DEPOT) if catalog[c].suit == suit and c not in moved]


def deck_can_give(campaign: Campaign, deck: ZoneSpec, given: int = 0, asked: int | None = None) -> None:
    """RULES.md §4: a deck that is still empty after its refill (the depot had no card of
    its suit) cannot be used until cards are added. ``given`` of ``asked`` cards have
    come from it so far in this action."""
    if campaign.table.cards_in(deck.id):
        return
    if given and asked is not None:
        text = (_("{deck} can give only {given} of the {asked} cards asked (the depot has no more {suit} cards to "
                  "refill it); ask for at most {given}") if deck.suit else
                _("{deck} can give only {given} of the {asked} cards asked (the depot has no more matching cards to "
                  "refill it); ask for at most {given}"))
        raise DeckEmpty(text.format(deck=deck.id, given=given, asked=asked, suit=suit_word(deck.suit)))
    if deck.suit is None:
        raise DeckEmpty(_("{deck} is empty and the depot has no matching cards to refill it; add cards to it first "
                          "(ledger add CARD --to {deck})").format(deck=deck.id))
    raise DeckEmpty(_("{deck} is empty and the depot has no {suit} cards to refill it; add cards to it first "
                      "(ledger add CARD --to {deck})").format(deck=deck.id, suit=suit_word(deck.suit)))


def reshuffles_after_search(zone: ZoneSpec) -> bool:
    """RULES.md §4: after searching a face-down deck it is shuffled again."""
    return zone.secret_order
