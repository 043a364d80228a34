"""One line per recorded action saying what it did, e.g. ``draw 2 from deck:item →
inventory:ana: item-sword, a hidden card``. One summary function per event type
(``functools.singledispatch``, as eventsourcing's examples register mutators); ids
in ``hidden`` read as "a hidden card".

A summary is said in the language being spoken (``ledger.i18n``): "compra 2 cartas de
deck:item → inventory:ana: item-sword, uma carta oculta". Zone ids, card ids, hero ids
and other codes stay as they are in every language (they are what the players type);
only the words around them are translated. The read models store the English summary
(``stored_summary``): a stored row is the same whoever caught the tables up.
"""

from __future__ import annotations

from collections.abc import Iterator, Set
from functools import singledispatch
from typing import Any

from ledger import events as e
from ledger.changes import HeroChanged
from ledger.i18n import ENGLISH, N_, _, language, ngettext, speaking
from ledger.terms import action_name, effect_kind_name, mechanic_name, suit_word, value_type_name
from ledger.vocabulary import host_of

HIDDEN_NAME = N_("a hidden card")
"""How a card the viewer may not identify reads (translated where shown: ``_(HIDDEN_NAME)``)."""


def summary(event: e.ActionRecorded, hidden: Set[str] = frozenset(), in_order: bool = True) -> str:
    """What the action did, then the refills and redirects it caused, in the language
    being spoken. ``in_order``: cards put into a stack together are listed in the order
    they were named, which is the order they lie in there (the referee's, and the stored
    summary, whose text ``verify`` holds the read models to); else by id (``_placed``)."""

    def name(card: str | None) -> str:
        return _(HIDDEN_NAME) if card is None or card in hidden else card

    name.in_order = in_order  # type: ignore[attr-defined]  # read by ``_placed``

    what = _whats.get(type(event)) or _what_of(type(event))
    text = what(event, name)
    for refill in event.refills:
        text += ngettext("; {deck} refilled with {count} from the {source}",
                         "; {deck} refilled with {count} from the {source}", refill.count).format(
            deck=refill.deck, count=refill.count, source=refill.source)
    for redirect in event.redirects:
        if redirect.card in hidden:  # its rule would say what kind of card it is
            text += _("; {card} went to {actual}, not {asked}").format(
                card=name(redirect.card), actual=redirect.actual, asked=redirect.asked)
            continue
        text += _("; {card} went to {actual}, not {asked} ({rule})").format(
            card=name(redirect.card), actual=redirect.actual, asked=redirect.asked, rule=redirect.rule)
    for commitment in event.commitments:  # everyone sees it: a player may keep it
        text += _("; order of {stack} committed: {digest}…").format(
            stack=commitment.stack, digest=commitment.digest[:16])
    if event.ruleset >= FOLLOWERS_SAID_FROM:
        for card, host, zone in attachments_that_followed(event):
            text += _("; {card}, attached to {host}, went to {zone}").format(card=name(card), host=name(host), zone=zone)
    return text


FOLLOWERS_SAID_FROM = 16
"""The ruleset from which a summary names the attachments that left with their host (the
stored summaries of older actions stay as they were written: ``verify`` holds the read
models to them)."""


SEEN_CARDS_SAID_FROM = 18
"""The ruleset from which an undo's summary says a deck it shuffled again holds cards someone
had seen (a QA pass: the undo of a card shown to one hero where it lay in a deck said "cards
returned to it had been seen", though none had returned; older summaries stay as written)."""


def attachments_that_followed(event: Any) -> Iterator[tuple[str, str, str]]:
    """The cards attached to a card the action moved out of its zone, which went along
    without being named (RULES.md §5: attachments follow no host): ``(card, host, zone it
    went to)``. The host is one the action moved, so it is among the action's cards, which
    a viewer's summary names only as far as that viewer may identify them (an undo of an
    attach moves the card off a host that stays where it is, perhaps in a hand: that is no
    host leaving, and naming it would tell the public what lies in that hand). Reads only
    ``card``, ``was.at`` and ``now.at`` of a change, so the light events of a rebuild
    (``projections.decoding``) read the same."""
    named = set(event.named_cards())
    moves = [(card, change.was.at, change.now.at) for change in event.changes
             if (card := getattr(change, "card", None)) is not None and change.was.at != change.now.at]
    moved = {card for card, _was, _now in moves}
    for card, was, now in moves:
        host = host_of(was)
        if card not in named and host in moved and host_of(now) is None:
            yield card, host, now


def stored_summary(event: e.ActionRecorded) -> str:
    """The summary the read models store: the English one, whatever is being spoken (a
    command in Portuguese that catches the tables up writes the rows any other would)."""
    if language() == ENGLISH:
        return summary(event)
    with speaking(ENGLISH):
        return summary(event)


def summarised_like(light: type, event_class: type) -> None:
    """Summaries of ``light`` objects (``projections.decoding``) read as those of ``event_class``."""
    _what.register(light)(_what.dispatch(event_class))
    _whats.clear()


# The summary function of each event class, as ``_what`` dispatches it: looked up once per
# class, not through singledispatch's wrapper on every action (a rebuild summarises each).
_whats: dict[type, Any] = {}


def _what_of(cls: type) -> Any:
    found = _whats[cls] = _what.dispatch(cls)
    return found


def _listed(cards: tuple[str, ...], name) -> str:
    return ", ".join(map(name, cards))


def _placed(cards: tuple[str, ...], name) -> str:
    """Cards put into a stack together (add, send, bury, a search's taken cards): in the
    order named for the referee (``summary``'s ``in_order``), else listed by id, those the
    viewer may not identify last: the order named is the order they lie in there, which a
    deck's order must not give away (two cards seen going to a deck's top, named in order,
    would tell the next two draws)."""
    if getattr(name, "in_order", True):
        return _listed(cards, name)
    return ", ".join(sorted(map(name, cards), key=lambda shown: (shown == _(HIDDEN_NAME), shown)))


@singledispatch
def _what(event: e.ActionRecorded, name) -> str:
    return action_name(event.action)


@_what.register
def _campaign_started(event: e.CampaignStarted, name) -> str:
    count = len(event.catalog)
    return ngettext("campaign {name!r} started, {count} cards in the box",
                    "campaign {name!r} started, {count} cards in the box", count).format(name=event.name, count=count)


@_what.register
def _hero_added(event: e.HeroAdded, name) -> str:
    hero = next(ch for ch in event.changes if isinstance(ch, HeroChanged)).now
    return _("hero {hero} ({name}) joins, knowledge {knowledge}").format(
        hero=event.hero, name=hero.name if hero else "", knowledge=hero.knowledge if hero else 0)


@_what.register
def _knowledge_changed(event: e.KnowledgeChanged, name) -> str:
    return _("{hero}'s knowledge is now {knowledge}").format(hero=event.hero, knowledge=event.knowledge)


@_what.register
def _cards_drawn(event: e.CardsDrawn, name) -> str:
    # TRANSLATORS: {count} cards drawn from deck {stack} into zone {to}; {cards}: the cards (ids).
    return ngettext("draw {count} from {stack} → {to}: {cards}", "draw {count} from {stack} → {to}: {cards}",
                    event.count).format(count=event.count, stack=event.stack, to=event.to,
                                        cards=_listed(event.cards, name))


@_what.register
def _cards_added(event: e.CardsAdded, name) -> str:
    return _("add {cards} from the box → {to}").format(cards=_placed(event.cards, name), to=event.to)


@_what.register
def _cards_sent(event: e.CardsSent, name) -> str:
    return _("send {cards} → {to}").format(cards=_placed(event.cards, name), to=event.to)


@_what.register
def _cards_discarded(event: e.CardsDiscarded, name) -> str:
    cards = _listed(event.cards, name)
    if event.stack:
        return _("discard {cards} from {stack}").format(cards=cards, stack=event.stack)
    return _("discard {cards}").format(cards=cards)


@_what.register
def _cards_buried(event: e.CardsBuried, name) -> str:
    cards = _placed(event.cards, name)
    if event.to:
        return _("bury {cards} in {to}").format(cards=cards, to=event.to)
    return _("bury {cards}").format(cards=cards)


@_what.register
def _cards_exiled(event: e.CardsExiled, name) -> str:
    return _("exile {cards} to limbo").format(cards=_listed(event.cards, name))


@_what.register
def _stack_shuffled(event: e.StackShuffled, name) -> str:
    if event.allowed_by:
        return _("shuffle {stack} by {card}").format(stack=event.stack, card=name(event.allowed_by))
    return _("shuffle {stack}").format(stack=event.stack)


@_what.register
def _stack_searched(event: e.StackSearched, name) -> str:
    if event.allowed_by:
        text = _("search {stack} by {card}").format(stack=event.stack, card=name(event.allowed_by))
    else:
        text = _("search {stack}").format(stack=event.stack)
    if event.taken:
        text += _(", take {cards} → {to}").format(cards=_placed(event.taken, name), to=event.to)
    if event.missed:
        text += ngettext(", {cards} not found", ", {cards} not found", len(event.missed)).format(
            cards=_listed(event.missed, name))
    return text + (_(", reshuffled") if event.reshuffled else "")


@_what.register
def _cards_revealed(event: e.CardsRevealed, name) -> str:
    cards = _listed(event.cards, name)
    if event.to:
        return _("reveal {cards} to {heroes} only").format(cards=cards, heroes=", ".join(event.to))
    return _("reveal {cards}").format(cards=cards)


@_what.register
def _cards_hidden(event: e.CardsHidden, name) -> str:
    return _("hide {cards}").format(cards=_listed(event.cards, name))


@_what.register
def _cards_exhausted(event: e.CardsExhausted, name) -> str:
    return _("exhaust {cards}").format(cards=_listed(event.cards, name))


@_what.register
def _cards_restored(event: e.CardsRestored, name) -> str:
    return _("restore {cards}").format(cards=_listed(event.cards, name))


@_what.register
def _card_attached(event: e.CardAttached, name) -> str:
    return _("attach {card} to {host}").format(card=name(event.card), host=name(event.host))


@_what.register
def _card_detached(event: e.CardDetached, name) -> str:
    return _("detach {card} from {host} → {to}").format(card=name(event.card), host=name(event.host), to=event.to)


@_what.register
def _location_added(event: e.LocationAdded, name) -> str:
    return _("location {location} added").format(location=event.location)


@_what.register
def _location_set(event: e.LocationSet, name) -> str:
    return _("location {location} set: {levels}").format(
        location=event.location,
        levels=", ".join(f"{suit_word(suit)} {level}" for suit, level in event.access.items()))


@_what.register
def _hero_travelled(event: e.HeroTravelled, name) -> str:
    return _("{hero} travels to {location}").format(hero=event.hero, location=event.location)


@_what.register
def _battle_started(event: e.BattleStarted, name) -> str:
    return _("a battle starts: every discard pile's access is 0")


@_what.register
def _battle_ended(event: e.BattleEnded, name) -> str:
    return _("the battle ends")


@_what.register
def _access_changed(event: e.AccessChanged, name) -> str:
    if event.level is None:
        return _("access for {suit} at {location} back to normal").format(suit=suit_word(event.suit),
                                                                         location=event.location)
    return _("{card} sets access for {suit} at {location} to {level}").format(
        card=name(event.by), suit=suit_word(event.suit), location=event.location, level=event.level)


@_what.register
def _trade_completed(event: e.TradeCompleted, name) -> str:
    sums = "; ".join(f"{value_type_name(s.type)} {s.give} ≥ {s.take}" for s in event.settlement)
    return _("{hero} trades at {location}: takes {taken} for {given} ({sums})").format(
        hero=event.hero, location=event.location, taken=_listed(event.taken, name),
        given=_listed(event.given, name) or _("nothing"), sums=sums)


@_what.register
def _sheet_card_obtained(event: e.SheetCardObtained, name) -> str:
    text = _("{hero} obtains {card} by {mechanic} at {location} → {to}").format(
        hero=event.hero, card=name(event.card), mechanic=mechanic_name(event.mechanic), location=event.location,
        to=event.to)
    return text + (_(" (cost: {cost})").format(cost=event.cost) if event.cost else "")


@_what.register
def _card_activated(event: e.CardActivated, name) -> str:
    text = _("{hero} activates {card} (effect {effect}, {kind})").format(
        hero=event.hero or _("the master"), card=name(event.card), effect=event.effect,
        kind=effect_kind_name(event.effect_kind))
    if event.allowed_by:
        text += _(" by {card}").format(card=name(event.allowed_by))
    if event.target:
        text += _(" on {target}").format(target=event.target)
    if event.went_to:
        text += f" → {event.went_to}"
    return text


@_what.register
def _action_undone(event: e.ActionUndone, name) -> str:
    seqs = event.targets
    if len(seqs) == 1:
        text = _("undo seq {seq}").format(seq=seqs[0])
    else:
        text = _("undo seqs {seqs}").format(seqs=", ".join(map(str, seqs)))
    text += _(" (in force now: up to seq {seq})").format(seq=event.live_head or 1)
    if event.reshuffled_stacks and event.ruleset >= SEEN_CARDS_SAID_FROM:
        text += ngettext("; {stacks} shuffled again (it holds cards someone had seen)",
                         "; {stacks} shuffled again (they hold cards someone had seen)",
                         len(event.reshuffled_stacks)).format(stacks=", ".join(event.reshuffled_stacks))
    elif event.reshuffled_stacks:
        text += _("; {stacks} shuffled again (cards returned to it had been seen)").format(
            stacks=", ".join(event.reshuffled_stacks))
    if event.keep_order:
        text += _("; the master kept the order of the decks seen cards returned to")  # (stored: its words stay)
    return text


@_what.register
def _action_redone(event: e.ActionRedone, name) -> str:
    seqs = event.targets
    return ngettext("redo seq {seqs} (taken back by seq {undo})", "redo seqs {seqs} (taken back by seq {undo})",
                    len(seqs)).format(seqs=", ".join(map(str, reversed(seqs))), undo=event.undo)
