"""One action being decided: the moves the rules allow, applied as they are made.

``Play`` applies each change to the campaign's table at once (so later steps see
earlier ones) and remembers it; if the rules refuse the action half-way, ``rollback``
applies the inverses in reverse order and the table is exactly as before.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any

from .campaign import Campaign
from .changes import CardChanged, Change, Spot, StackReordered
from .events import ActionRecorded, Redirect, Refill
from .rulebook import REFILL_LIMIT
from .rules import deck_holds_its_suit, discard_pile_for, entry_face, placement, refill_candidates
from .rulesets import ruleset
from .visibility import can_identify, sees_everything
from .vocabulary import Face, Zone, attached_container

Lookup = Callable[[int], ActionRecorded]
Scan = Callable[[int, int], Iterable[tuple[int, tuple[str, ...]]]]  # undos that shuffled decks again
Takebacks = Callable[[int, int], Iterable[tuple[int, bool, tuple[int, ...]]]]  # undos and redos: (seq, redo, targets)


def _no_lookup(seq: int) -> ActionRecorded:
    raise LookupError(seq)


def _no_scan(gt: int, lte: int) -> Iterable[Any]:
    raise LookupError(gt, lte)


class Play:
    def __init__(self, campaign: Campaign, actor: str, seed: int | None = None, lookup: Lookup = _no_lookup,
                 scan: Scan = _no_scan, takebacks: Takebacks = _no_scan):
        self.campaign = campaign
        self.table = campaign.table
        self.actor = actor
        self.changes: list[Change] = []
        self.redirects: list[Redirect] = []
        self.refills: list[Refill] = []
        self.randomized: list[str] = []  # stacks given a new random order (their orders are committed)
        # The seed of all randomness in this action, recorded so that verify can
        # decide the action again and get the very same result.
        self.seed = seed if seed is not None else secrets.randbits(63)
        self.lookup = lookup  # earlier recorded actions, by seq (undo and redo need them)
        self.scan = scan  # the undos after one seq up to another (gt, lte) that shuffled decks again: (seq, decks)
        self.takebacks = takebacks  # the undos and redos after one seq up to another: (seq, redo, targets)
        # the undos that shuffled stacks again, read back from the state decided on down to a seq
        self._reshuffles: tuple[int, list[tuple[int, frozenset[str]]]] = (campaign.version, [])
        # The zone each card of a block being moved was in before this action moved any
        # of them: moving a host first must not hide that its named attachments left too.
        self._origins: dict[str, str] = {}
        # The order of the heroes orders what actions record (``ledger.snapshots.ORDERED``):
        # a hero the inverses put back must be put back in their place.
        self._heroes = tuple(self.table.heroes)

    @cached_property
    def rng(self) -> random.Random:
        """The action's randomness, seeded with ``seed`` when first asked for: most actions
        shuffle nothing, and seeding Python's generator costs ~20 µs of a ~500 µs action."""
        return random.Random(self.seed)

    # -- bookkeeping ----------------------------------------------------------
    def apply(self, change: Change) -> None:
        self.table.apply(change)
        self.changes.append(change)

    def apply_again(self, change: Change, recorded_at: int) -> None:
        """Applies a change recorded at seq ``recorded_at`` (its inverse for an undo, itself
        for a redo) to the table as it stands. From ruleset 12 its ``was`` is the card's
        spot or the stack's order now (``CardChanged.onto``): a shuffle since (an undone
        action's undo) may have moved the card and made it unknown to a hero it had been
        shown to, and every change's ``was`` is what the table held (reading an action
        back steps through its changes from the table after it: ``ledger.witness``); nor
        is a card shown again to a hero in a deck an undo shuffled again since then, nor an
        older order put back over the one that undo gave the deck (undoing and redoing her own
        shuffle would give a hero back the order she drew from before the master's undo)."""
        if ruleset() >= 12:
            if isinstance(change, CardChanged):
                change = change.onto(self.table.spot(change.card),
                                     lambda container: not self._shuffled_again_since(recorded_at, container))
            elif isinstance(change, StackReordered):
                change = change.onto(tuple(self.table.cards_in(change.stack)),
                                     keep=self._shuffled_again_since(recorded_at, change.stack))
        self.apply(change)

    def _shuffled_again_since(self, seq: int, stack: str) -> bool:
        return self.shuffled_again_by(seq, stack) is not None

    def shuffled_again_by(self, seq: int, stack: str) -> int | None:
        """The first undo recorded after ``seq`` (up to the state decided on) that shuffled
        ``stack`` again, if one did. Only undos give a deck an order nobody chose again: an
        undone action's own shuffle or refill is taken back exactly. Read only when a change
        would show a card again or order a stack, or for a redo: the actions since ``seq``,
        once an action (for the undo of the latest action, those recorded after it: few)."""
        read_from, found = self._reshuffles
        if seq < read_from:  # undo takes its actions back newest first: read only what is older
            found.extend((at, frozenset(stacks)) for at, stacks in self.scan(seq, read_from))
            self._reshuffles = (seq, found)
        return min((at for at, stacks in found if at > seq and stack in stacks), default=None)

    def rollback(self) -> None:
        for change in reversed(self.changes):
            self.table.apply(change.inverse())
        self.changes.clear()
        heroes = self.table.heroes
        if tuple(heroes) != self._heroes:
            self.table.heroes = {hero: heroes[hero] for hero in self._heroes}

    # -- cards ----------------------------------------------------------------
    def set_card(self, card: str, at: str, index: int | None, face: Face, exhausted: bool = False,
                 shown: tuple[str, ...] = ()) -> None:
        """Puts a card at a spot. Whom it was shown to (``reveal --to``) holds only while it
        stays where it is, face-down: callers keep ``shown`` then, anything else clears it."""
        was = self.table.spot(card)
        if at == was.at:
            size = len(self.table.cards_in(at)) - 1
        else:
            size = len(self.table.cards_in(at))
        index = size if index is None else max(0, min(index, size))
        now = Spot(at=at, index=index, face=face, exhausted=exhausted, shown=shown)
        if now != was:
            self.apply(CardChanged(card=card, was=was, now=now))

    def place(
        self,
        card: str,
        zone_id: str,
        index: int | None = None,
        face: Face | None = None,
        moving: frozenset[str] = frozenset(),
    ) -> str:
        """Sends a card toward a zone under the placement rules; returns where it went.

        A host that leaves its zone takes none of its attachments along: they are
        discarded in the same action, unless this action moves them too (``moving``).
        """
        actual, rule = placement(self.campaign, card, zone_id)
        if rule is not None:
            self.redirects.append(Redirect(card=card, asked=zone_id, actual=actual, rule=rule))
            index = None
        zone = self.campaign.zone(actual)
        if zone.is_deck and (sees_everything(self.actor) or can_identify(self.campaign, self.actor, card)):
            # (a card the actor does not see is judged before it is found: the draw by its
            # deck's suit, the search by the catalog's; a refusal here would name it)
            deck_holds_its_suit(self.campaign, card, zone)
        lie = entry_face(zone, face if rule is None else None)
        for other in moving:
            self._origins.setdefault(other, self.table.zone_of(other))
        if self._origins.get(card, self.table.zone_of(card)) != actual:
            self.discard_attachments(card, moving)
        was = self.table.spot(card)
        keep_exhausted = was.exhausted and was.at == actual
        self.set_card(card, actual, index, lie, keep_exhausted)
        return actual

    def discard_attachments(self, host: str, moving: frozenset[str]) -> None:
        for attached in list(self.table.attached(host)):
            if attached not in moving:
                self.place(attached, discard_pile_for(self.campaign, attached), moving=moving)

    def attach(self, card: str, host: str) -> None:
        if self.table.zone_of(card) != self.table.zone_of(host):
            self.discard_attachments(card, frozenset({host}))
        self.set_card(card, attached_container(host), None, "up")

    # -- stacks ---------------------------------------------------------------
    def reorder(self, stack: str, order: list[str]) -> None:
        """``stack`` in ``order``. From ruleset 10 the order of a stack of two cards or more
        is recorded even when it is the old one (``shuffle``)."""
        was = tuple(self.table.cards_in(stack))
        if tuple(order) != was or (len(was) > 1 and ruleset() >= 10):
            self.apply(StackReordered(stack=stack, was=was, now=tuple(order)))

    def shuffle(self, stack: str) -> None:
        """A new random order. Whatever the order turns out to be, a card shown to a hero
        (``reveal --to``) is unknown to them after it: whether it stayed known must not
        tell anyone whether the order changed. Nor may the record: from ruleset 10 the new
        order of a stack of two cards or more is recorded even when it is the old one (the
        change, seen without its cards by anyone, was there only when the order moved, so a
        shuffle that left a deck as it was told the table its order, one time in n!)."""
        for card in self.table.cards_in(stack):
            if card in self.table.shown:
                spot = self.table.spot(card)
                self.set_card(card, spot.at, spot.index, spot.face, spot.exhausted)
        order = list(self.table.cards_in(stack))
        self.rng.shuffle(order)
        self.reorder(stack, order)
        self.randomized.append(stack)

    def refill(self, deck: str) -> int:
        """RULES.md §4: an empty deck takes up to ``REFILL_LIMIT`` cards of its suit
        from the depot (``rules.refill_candidates``), shuffled, face-down. Returns how
        many came."""
        moved = {ch.card for ch in self.changes if isinstance(ch, CardChanged)}
        eligible = refill_candidates(self.campaign, deck, moved)
        if not eligible:
            return 0
        self.rng.shuffle(eligible)
        chosen = eligible[:REFILL_LIMIT]
        for i, card in enumerate(chosen):
            self.set_card(card, deck, i, "down")
        self.randomized.append(deck)
        self.refills.append(Refill(deck=deck, source=Zone.DEPOT, count=len(chosen)))
        return len(chosen)
