"""``ledger explain SEQ``: which rules an action was checked against, with the figures.

Everything comes from the stored event (a trade records its sums, location, access
levels and battle state; a draw its refills; a placement its redirects) and, for the
figures an event does not carry, from the campaign right before the action. The
checks common to every action (refills, redirects, attachments left behind) come
first; then each event type adds its own (``functools.singledispatch``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch
from typing import Any

from ledger import events as e
from ledger.campaign import Campaign
from ledger.changes import CardChanged, StackReordered
from ledger.rulebook import HERO_MAY, REFILL_LIMIT, rule_text
from ledger.visibility import sees_everything
from ledger.vocabulary import MASTER, host_of
from ledger.witness import visible_cards

from .summaries import HIDDEN_NAME, summary

Check = Callable[[str, str], None]
Name = Callable[[str | None], str]


def explain(event: e.ActionRecorded, before: Campaign | None, after: Campaign, viewer: str) -> dict[str, Any]:
    cards = event.cards_touched()
    hidden = set() if sees_everything(viewer) else cards - visible_cards(event, after, viewer, cards)

    def n(card: str | None) -> str:
        return HIDDEN_NAME if card is None or card in hidden else card

    checks: list[dict[str, str]] = []

    def check(rule: str, detail: str) -> None:
        checks.append({"rule": rule, "detail": detail})

    for refill in event.refills:
        check("§4 empty deck", f"{refill.deck} was empty: refilled with {refill.count} card(s) of its suit from "
              f"the {refill.source} (up to {REFILL_LIMIT}), shuffled face-down, in this same action")
    for redirect in event.redirects:
        check(f"§5 {redirect.rule}", f"{n(redirect.card)} was sent to {redirect.asked} but went to "
              f"{redirect.actual}: {rule_text(redirect.rule)}")
    named = set(event.named_cards())
    for change in event.changes:
        if isinstance(change, CardChanged) and host_of(change.was.at) and change.card not in named \
                and host_of(change.now.at) is None and change.now.at != change.was.at:
            check("§5 attachments follow no host", f"{n(change.card)} was attached to "
                  f"{n(host_of(change.was.at))}, which left its zone: it went to {change.now.at} in the same action")
    for commitment in event.commitments:
        check("§4 committed shuffle", f"the new order of {commitment.stack} ({commitment.size} cards) is committed: "
              f"sha256 {commitment.digest}" + (
                  f"; salt {commitment.salt}, order {','.join(after.table.cards_in(commitment.stack))} "
                  "(referee only; sha256 of SALT:ORDER gives the digest)" if sees_everything(viewer) else
                  "; keep it: the master can later show the salt and the order, and any SHA-256 tool checks them"))
    _checks(event, before, viewer, check, n)
    if event.actor != MASTER and event.action in HERO_MAY:
        check("§9 what a hero may do", f"{event.actor} is a hero: {HERO_MAY[event.action]}")
    if not checks:
        check("rules", "no rule beyond the action's own checks (cards where they must be, the actor allowed)")
    return {
        "seq": event.seq, "action": event.action, "actor": event.actor, "time": event.timestamp.isoformat(),
        "summary": summary(event, hidden), "checks": checks,
    }


@singledispatch
def _checks(event: e.ActionRecorded, before: Campaign | None, viewer: str, check: Check, n: Name) -> None:
    """The rules one event type was checked against (none beyond the common ones)."""


@_checks.register
def _(event: e.CardsRevealed, before, viewer, check: Check, n: Name) -> None:
    if event.to:
        check("§9 revealed to", f"shown to {', '.join(event.to)} only, face-down where they lie: they may "
              "identify them while they stay there; everyone else still sees hidden cards")


@_checks.register
def _(event: e.CardsDrawn, before, viewer, check: Check, n: Name) -> None:
    check("§3 decks", f"{event.stack} is a deck: cards come from its top")


@_checks.register
def _(event: e.CardsDiscarded, before, viewer, check: Check, n: Name) -> None:
    if event.stack:
        check("§3 decks", f"{event.stack} is a deck: cards come from its top")
    else:
        check("§5 discard", "discarded cards go face-up to their format's discard pile")


@_checks.register
def _(event: e.StackShuffled, before, viewer, check: Check, n: Name) -> None:
    order = next((c for c in event.changes if isinstance(c, StackReordered)), None)
    size = len(order.now) if order else 0
    check("§3 decks keep their order", f"{event.stack} was shuffled: the new order of its {size} cards is "
          "recorded, so replay never shuffles again"
          + (f" (seed {event.seed})" if event.seed is not None and sees_everything(viewer) else ""))


@_checks.register
def _(event: e.StackSearched, before, viewer, check: Check, n: Name) -> None:
    if event.allowed_by:
        check("§4 search", f"searching was allowed by the effect of {n(event.allowed_by)}, an active card")
    if event.reshuffled:
        check("§4 search", f"{event.stack} is face-down, so it was reshuffled after the search, in the same action")


@_checks.register
def _(event: e.CardsBuried, before, viewer, check: Check, n: Name) -> None:
    check("§5 bury", "buried cards go face-down to the bottom of their suit's campaign deck"
          + (f" ({event.to} was named)" if event.to else ""))


@_checks.register
def _(event: e.CardsExiled, before, viewer, check: Check, n: Name) -> None:
    check("§5 exile", "exiled cards go to limbo")


@_checks.register
def _(event: e.AccessChanged, before, viewer, check: Check, n: Name) -> None:
    if event.level is None:
        check("§8 location access", f"the effect on {event.suit} access at {event.location} was cleared")
    else:
        check("§8 location access", f"the effect of {n(event.by)} sets {event.suit} access at {event.location} "
              f"to {event.level}; it applies during battle too")
    if event.affected is not None:
        check("§7 affected", f"an effect from a stack card reaches {_heroes(event.affected)} (its stack's affected)")


def _heroes(heroes: tuple[str, ...]) -> str:
    return ", ".join(heroes) if heroes else "no hero"


@_checks.register
def _(event: e.ActionUndone, before, viewer, check: Check, n: Name) -> None:
    check("undo", f"seq(s) {', '.join(map(str, event.targets))} taken back: their changes were inverted, "
          "newest first, so the table is exactly as before them; they stay in the history")
    if event.reshuffled_stacks:
        check("§9 fair play", f"{', '.join(event.reshuffled_stacks)} shuffled again in the same undo: cards "
              "returned to it had been seen, so its old order must not come back")
    if event.keep_order:
        check("§9 fair play", "the master decided to keep the order of the decks seen cards returned to")


@_checks.register
def _(event: e.ActionRedone, before, viewer, check: Check, n: Name) -> None:
    check("redo", f"what undo seq {event.undo} took back was applied again (no other action came between)")


@_checks.register
def _(event: e.BattleStarted, before, viewer, check: Check, n: Name) -> None:
    check("§8 battle", "during a battle every discard pile's access level is 0, unless an effect changes it")


@_checks.register
def _(event: e.TradeCompleted, before, viewer, check: Check, n: Name) -> None:
    check("§8 full action", f"{event.hero} spent a full action to trade with the discard pile at {event.location}"
          + (" during a battle" if event.battle else ""))
    for used in event.access:
        source = {"location": f"{event.location}'s own level", "battle": "a battle"}.get(used.source, used.source)
        check("§8 access", f"access for {used.suit} at {event.location} was {used.level} ({source}); "
              "a taken card's level must be at most that, and access 0 admits nothing")
    for entry in event.settlement:
        check("§8 value types", f"{entry.type} ({'/'.join(entry.suits)}): gave {entry.give} ≥ took {entry.take}; "
              "each value type is settled on its own")
    if event.given:
        check("§8 given cards", f"{', '.join(n(c) for c in event.given)} went to their discard pile(s)")
    for taken, companion in event.attach.items():
        check("§8 taken cards", f"{n(taken)} was attached to {n(companion)}")
    rest = [c for c in event.taken if c not in event.attach]
    if rest:
        check("§8 taken cards", f"{', '.join(n(c) for c in rest)} went to {event.hero}'s inventory")


@_checks.register
def _(event: e.SheetCardObtained, before, viewer, check: Check, n: Name) -> None:
    check("§8 location", f"{event.mechanic} needs a location that allows it: {event.hero} was at {event.location}"
          + (" during a battle" if event.battle else ""))
    used = event.access
    source = {"location": f"{event.location}'s own level", "battle": "a battle"}.get(used.source, used.source)
    check("§8 access", f"access for {used.suit} at {event.location} was {used.level} ({source}); the card's level "
          "must be at most that, and access 0 admits nothing (the same rule as trading)")
    check("§8 the master's decision", f"{n(event.card)} came from {event.source} and went to {event.to}; "
          + (f"cost recorded as given: {event.cost}" if event.cost else "no cost recorded"))


@_checks.register
def _(event: e.CardActivated, before, viewer, check: Check, n: Name) -> None:
    check("§6 activation", f"{event.hero or 'the master'} activated effect {event.effect} ({event.effect_kind}) "
          f"of {n(event.card)} from {event.source}")
    if before is not None and event.hero and event.hero in before.table.heroes:
        need = before.card(event.card).knowledge or 0
        have = before.table.heroes[event.hero].knowledge
        check("§6 knowledge", f"{n(event.card)} needs knowledge {need}; {event.hero} had {have}")
    if event.went_to:
        task = before.card(event.card).task if before is not None else None
        why = f"its task keyword ({task}) wins" if task else "activated from the inventory, a card is discarded"
        check("§6 from the inventory", f"{n(event.card)} went to {event.went_to}: {why}")
    elif event.source:
        check("§6 in play", "activated from a table, an attachment or a zone, the card stays where and as it is")
    if event.affected is not None:
        check("§7 affected", f"the effects of {n(event.card)} in {event.source} reach {_heroes(event.affected)} "
              f"(its stack's affected: {before.zone(event.source).affected if before else '?'}); "
              "a hero targeted is among them")
    if before is not None and event.source and before.zone(event.source).is_stack and event.ruleset >= 3 \
            and before.table.host(event.card) is None:
        effect = before.card(event.card).effects[event.effect - 1]
        check("§7 stack effects", f"in {event.source} only the stack effects its stack lets count are used "
              f"(use: {before.zone(event.source).use}); effect {event.effect} is {effect}")
    if event.action_points is not None or event.energies:
        paid = [f"{event.action_points} action point(s)"] if event.action_points is not None else []
        paid += [f"{v} {k}" for k, v in event.energies.items()]
        check("§6 costs", f"paid {', '.join(paid)}: recorded as given, not enforced")
