"""One line per recorded action saying what it did, e.g. ``draw 2 from deck:item →
inventory:ana: item-sword, a hidden card``. One summary function per event type
(``functools.singledispatch``, as eventsourcing's examples register mutators); ids
in ``hidden`` read as "a hidden card"."""

from __future__ import annotations

from collections.abc import Set
from functools import singledispatch

from ledger import events as e
from ledger.changes import HeroChanged

HIDDEN_NAME = "a hidden card"


def summary(event: e.ActionRecorded, hidden: Set[str] = frozenset()) -> str:
    """What the action did, then the refills and redirects it caused."""

    def name(card: str | None) -> str:
        return HIDDEN_NAME if card is None or card in hidden else card

    text = _what(event, name)
    for refill in event.refills:
        text += f"; {refill.deck} refilled with {refill.count} from the {refill.source}"
    for redirect in event.redirects:
        text += f"; {name(redirect.card)} went to {redirect.actual}, not {redirect.asked} ({redirect.rule})"
    for commitment in event.commitments:  # everyone sees it: a player may keep it
        text += f"; order of {commitment.stack} committed: {commitment.digest[:16]}…"
    return text


def summarised_like(light: type, event_class: type) -> None:
    """Summaries of ``light`` objects (``projections.decoding``) read as those of ``event_class``."""
    _what.register(light)(_what.dispatch(event_class))


def _listed(cards: tuple[str, ...], name) -> str:
    return ", ".join(name(card) for card in cards)


@singledispatch
def _what(event: e.ActionRecorded, name) -> str:
    return event.action


@_what.register
def _(event: e.CampaignStarted, name) -> str:
    return f"campaign {event.name!r} started, {len(event.catalog)} cards in the box"


@_what.register
def _(event: e.HeroAdded, name) -> str:
    hero = next(ch for ch in event.changes if isinstance(ch, HeroChanged)).now
    return f"hero {event.hero} ({hero.name if hero else ''}) joins, knowledge {hero.knowledge if hero else 0}"


@_what.register
def _(event: e.KnowledgeChanged, name) -> str:
    return f"{event.hero}'s knowledge is now {event.knowledge}"


@_what.register
def _(event: e.CardsDrawn, name) -> str:
    return f"draw {event.count} from {event.stack} → {event.to}: {_listed(event.cards, name)}"


@_what.register
def _(event: e.CardsAdded, name) -> str:
    return f"add {_listed(event.cards, name)} from the box → {event.to}"


@_what.register
def _(event: e.CardsSent, name) -> str:
    return f"send {_listed(event.cards, name)} → {event.to}"


@_what.register
def _(event: e.CardsDiscarded, name) -> str:
    return f"discard {_listed(event.cards, name)}" + (f" from {event.stack}" if event.stack else "")


@_what.register
def _(event: e.CardsBuried, name) -> str:
    return f"bury {_listed(event.cards, name)}" + (f" in {event.to}" if event.to else "")


@_what.register
def _(event: e.CardsExiled, name) -> str:
    return f"exile {_listed(event.cards, name)} to limbo"


@_what.register
def _(event: e.StackShuffled, name) -> str:
    return f"shuffle {event.stack}"


@_what.register
def _(event: e.StackSearched, name) -> str:
    text = f"search {event.stack}" + (f" by {name(event.allowed_by)}" if event.allowed_by else "")
    text += f", take {_listed(event.taken, name)} → {event.to}" if event.taken else ""
    return text + (", reshuffled" if event.reshuffled else "")


@_what.register
def _(event: e.CardsRevealed, name) -> str:
    text = f"reveal {_listed(event.cards, name)}"
    return text + (f" to {', '.join(event.to)} only" if event.to else "")


@_what.register(e.CardsHidden)
@_what.register(e.CardsExhausted)
@_what.register(e.CardsRestored)
def _turned(event, name) -> str:
    return f"{event.action} {_listed(event.cards, name)}"


@_what.register
def _(event: e.CardAttached, name) -> str:
    return f"attach {name(event.card)} to {name(event.host)}"


@_what.register
def _(event: e.CardDetached, name) -> str:
    return f"detach {name(event.card)} from {name(event.host)} → {event.to}"


@_what.register
def _(event: e.LocationAdded, name) -> str:
    return f"location {event.location} added"


@_what.register
def _(event: e.HeroTravelled, name) -> str:
    return f"{event.hero} travels to {event.location}"


@_what.register
def _(event: e.BattleStarted, name) -> str:
    return "a battle starts: every discard pile's access is 0"


@_what.register
def _(event: e.BattleEnded, name) -> str:
    return "the battle ends"


@_what.register
def _(event: e.AccessChanged, name) -> str:
    if event.level is None:
        return f"access for {event.suit} at {event.location} back to normal"
    return f"{name(event.by)} sets access for {event.suit} at {event.location} to {event.level}"


@_what.register
def _(event: e.TradeCompleted, name) -> str:
    return (f"{event.hero} trades at {event.location}: takes {_listed(event.taken, name)} for "
            + (_listed(event.given, name) or "nothing")
            + " (" + "; ".join(f"{s.type} {s.give} ≥ {s.take}" for s in event.settlement) + ")")


@_what.register
def _(event: e.SheetCardObtained, name) -> str:
    text = f"{event.hero} obtains {name(event.card)} by {event.mechanic} at {event.location} → {event.to}"
    return text + (f" (cost: {event.cost})" if event.cost else "")


@_what.register
def _(event: e.CardActivated, name) -> str:
    text = f"{event.hero or 'the master'} activates {name(event.card)} (effect {event.effect}, {event.effect_kind})"
    if event.target:
        text += f" on {event.target}"
    if event.went_to:
        text += f" → {event.went_to}"
    return text


@_what.register
def _(event: e.ActionUndone, name) -> str:
    seqs = event.targets
    text = f"undo seq {seqs[0]}" if len(seqs) == 1 else f"undo seqs {', '.join(map(str, seqs))}"
    text += f" (in force now: up to seq {event.live_head or 1})"
    if event.reshuffled_stacks:
        text += f"; {', '.join(event.reshuffled_stacks)} shuffled again (cards returned to it had been seen)"
    if event.keep_order:
        text += "; the master kept the order of the decks seen cards returned to"
    return text


@_what.register
def _(event: e.ActionRedone, name) -> str:
    seqs = event.targets
    return f"redo seq{'s' if len(seqs) > 1 else ''} {', '.join(map(str, reversed(seqs)))} (taken back by seq {event.undo})"
