"""What a viewer witnessed of one action, change by change.

Looking only at the table before and after an action is not enough: when an empty
deck is refilled from the face-up depot and then drawn from, everyone saw the depot
cards go into the deck, but nobody but the drawer knows which of them were drawn.
So we step back through the action's changes (applying their inverses to the table
after it, which the fold makes exact) and ask at each change whether the viewer could
identify the card at either end of it. Readers step a copy. The write path steps the
campaign it decided on in place and forward again (``recorded_facts``, ``owned``): in a
long-running process that is the campaign held in memory, which the same thread is
changing anyway (``Play``) and nobody reads meanwhile; if a step fails, ``Ledger.execute``
drops it, to be loaded again.
"""

from __future__ import annotations

from .campaign import Campaign
from .changes import CardChanged, Change
from .events import ActionRecorded
from .visibility import can_identify, identifying, sees_everything


def change_marks(event: ActionRecorded, after: Campaign, viewer: str) -> list[bool]:
    """For each change: could the viewer identify its card at either end of it?
    (Only card changes carry a card; other changes are marked True.)"""
    return marks_for(event, after, [viewer])[viewer]


def marks_for(event: ActionRecorded, after: Campaign, viewers: list[str],
              owned: bool = False) -> dict[str, list[bool]]:
    """``change_marks`` for several viewers in one step back through the action.
    ``owned``: the caller owns ``after`` (a read model's own fold, not the live
    campaign), so it is stepped back and forward again in place instead of copied."""
    marks = {viewer: [True] * len(event.changes) for viewer in viewers}
    blind = [v for v in viewers if not sees_everything(v)]
    if not blind or not event.changes:
        return marks
    if not any(isinstance(change, CardChanged) for change in event.changes):
        return marks
    scratch = after if owned else after.copy()
    shown = set(event.shown_to_all())
    undone = []
    try:
        for i in range(len(event.changes) - 1, -1, -1):
            change = event.changes[i]
            card = change.card if isinstance(change, CardChanged) else None
            now_seen = {v: card in shown or can_identify(scratch, v, card) for v in blind} if card else {}
            scratch.table.apply(change.inverse())
            undone.append(change)
            if card:
                for v in blind:
                    marks[v][i] = now_seen[v] or can_identify(scratch, v, card)
    finally:
        if owned:  # forward again, exactly (the fold makes it so)
            for change in reversed(undone):
                scratch.table.apply(change)
    return marks


def newly_identified(changes: tuple[Change, ...], shown: tuple[str, ...], after: Campaign,
                     viewers: list[str]) -> dict[str, tuple[str, ...]]:
    """For each viewer, the hidden cards an action let them identify: cards they could
    not identify before it, but could at either end of one of its changes (or because
    the action shows them to everyone). A fact about the action, recorded in it: an
    undo must not give such cards back to where their order or place is secret
    (RULES.md §9; fair play)."""
    blind = [v for v in viewers if not sees_everything(v)]
    cards = {change.card for change in changes if isinstance(change, CardChanged)} | set(shown)
    if not blind or not cards:
        return {}
    scratch = after.copy()
    saw: dict[str, set[str]] = {v: {c for c in shown if c in scratch.table.where} for v in blind}
    for card in cards:
        for v in blind:
            if can_identify(scratch, v, card):
                saw[v].add(card)
    for change in reversed(changes):
        scratch.table.apply(change.inverse())
        if isinstance(change, CardChanged):
            for v in blind:
                if can_identify(scratch, v, change.card):
                    saw[v].add(change.card)
    found = {}
    for v in blind:
        new = sorted(c for c in saw[v] if not can_identify(scratch, v, c))
        if new:
            found[v] = tuple(new)
    return found


def recorded_facts(event: ActionRecorded, after: Campaign, viewers: list[str]
                   ) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """``witnessed`` and ``newly_identified`` of an action being recorded, in one step back
    through its changes on ``after`` (which the caller owns: it is stepped back and
    forward again in place, never copied): ``(seen, unnamed, identified)``, each exactly
    what those two give (tests/test_rebuild.py checks it action by action). ``after``
    is the campaign the write path decided on (the module's docstring says why that is
    safe)."""
    blind = [v for v in viewers if not sees_everything(v)]
    changes = event.changes
    shown = set(event.shown_to_all())
    touched = event.cards_touched()
    card_changes = any(isinstance(change, CardChanged) for change in changes)
    walk_marks = bool(blind and changes and card_changes and touched)
    cards = {change.card for change in changes if isinstance(change, CardChanged)} | shown
    walk_identified = bool(blind and cards)
    marks = {viewer: [True] * len(changes) for viewer in viewers}
    identified: dict[str, tuple[str, ...]] = {}
    if walk_marks or walk_identified:
        table = after.table
        saw = {v: {c for c in shown if c in table.where} for v in blind}
        for card in cards:
            for v in identifying(after, card, blind):
                saw[v].add(card)
        undone = []
        try:
            for i in range(len(changes) - 1, -1, -1):
                change = changes[i]
                card = change.card if isinstance(change, CardChanged) else None
                now_seen = blind if card in shown else identifying(after, card, blind) if card else ()
                table.apply(change.inverse())
                undone.append(change)
                if card:
                    before = identifying(after, card, blind)
                    for v in blind:
                        marks[v][i] = v in now_seen or v in before
                    for v in before:
                        saw[v].add(card)
            knew = {card: identifying(after, card, blind) for card in set().union(*saw.values())}
            for v in blind:
                new = sorted(c for c in saw[v] if v not in knew[c])
                if new:
                    identified[v] = tuple(new)
        finally:  # forward again, exactly (the fold makes it so)
            for change in reversed(undone):
                table.apply(change)
    if not touched:
        return {}, {}, identified
    seen, unnamed = _witnessed_from(event, after, viewers, touched, marks)
    return seen, unnamed, identified


def witnessed(event: ActionRecorded, after: Campaign, viewers: list[str], owned: bool = False
              ) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    """Who witnessed the action, card by card, as recorded in it (``seen``, ``unnamed``):
    for each card it touched, the viewers who saw the card take part (the action is in
    the card's history for them), and, of those, the viewers who may not be told what
    became of it (a depot card seen going into a deck, then drawn unseen). Cards nobody
    of ``viewers`` saw are left out; keys sorted. ``owned``: as for ``marks_for``."""
    touched = event.cards_touched()
    if not touched:
        return {}, {}
    return _witnessed_from(event, after, viewers, touched, marks_for(event, after, viewers, owned=owned))


def _witnessed_from(event: ActionRecorded, after: Campaign, viewers: list[str], touched: set[str],
                    marks: dict[str, list[bool]]) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    seen: dict[str, list[str]] = {card: [] for card in touched}
    unnamed: dict[str, list[str]] = {}
    blind = [viewer for viewer in viewers if not sees_everything(viewer)]
    moved = {change.card for change in event.changes if isinstance(change, CardChanged)}
    # the cards named without being moved: who may identify them, asked once a card
    still = {card: identifying(after, card, blind) for card in touched - moved if card in after.table.where}
    for viewer in viewers:
        named, witnessed_ = _named_and_witnessed(event, after, viewer, touched, marks[viewer], still)
        for card in witnessed_:
            seen[card].append(viewer)
            if card not in named:
                unnamed.setdefault(card, []).append(viewer)
    return ({card: tuple(who) for card, who in sorted(seen.items()) if who},
            {card: tuple(who) for card, who in sorted(unnamed.items())})


def visible_cards(event: ActionRecorded, after: Campaign, viewer: str, cards: set[str],
                  marks: list[bool] | None = None) -> set[str]:
    """The cards an action may be *said* to have done something with, to this viewer:
    a card whose last change the viewer witnessed (they saw where it ended up), a
    card the action shows to everyone, or a card the action names without moving
    that the viewer can see. A card seen going into a deck and then drawn unseen is
    not among them: naming it as drawn would tell which one was drawn."""
    return _cards(event, after, viewer, cards, marks, last_only=True)


def witnessed_cards(event: ActionRecorded, after: Campaign, viewer: str, cards: set[str],
                    marks: list[bool] | None = None) -> set[str]:
    """The cards a viewer saw take part in an action at all (any of its changes):
    the action belongs to those cards' histories for this viewer. Depot cards seen
    going into a deck are all witnessed alike, whichever of them was then drawn."""
    return _cards(event, after, viewer, cards, marks, last_only=False)


def _cards(event: ActionRecorded, after: Campaign, viewer: str, cards: set[str],
           marks: list[bool] | None, last_only: bool) -> set[str]:
    marks = marks if marks is not None or sees_everything(viewer) else change_marks(event, after, viewer)
    named, witnessed_ = _named_and_witnessed(event, after, viewer, cards, marks)
    return named if last_only else witnessed_


def _named_and_witnessed(event: ActionRecorded, after: Campaign, viewer: str, cards: set[str],
                         marks: list[bool] | None, still: dict[str, list[str]] | None = None
                         ) -> tuple[set[str], set[str]]:
    """``visible_cards`` and ``witnessed_cards`` in one pass over the changes. ``still``:
    for the cards the action names without moving them (those on the table), who may
    identify them, if already asked (``identifying``); else asked here."""
    if sees_everything(viewer):
        return set(cards), set(cards)
    last: dict[str, bool] = {}
    ever: dict[str, bool] = {}
    for change, mark in zip(event.changes, marks or ()):
        if isinstance(change, CardChanged):
            last[change.card] = mark
            ever[change.card] = ever.get(change.card, False) or mark
    named = set(event.shown_to_all()) & cards
    witnessed_ = set(named)
    for card in cards:
        if card in last:
            if last[card]:
                named.add(card)
            if ever[card]:
                witnessed_.add(card)
        elif card in after.table.where and (viewer in still.get(card, ()) if still is not None
                                            else can_identify(after, viewer, card)):
            named.add(card)
            witnessed_.add(card)
    return named, witnessed_
