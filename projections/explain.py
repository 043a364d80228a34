"""``ledger explain SEQ``: which rules an action was checked against, with the figures.

Everything comes from the stored event (a trade records its sums, location, access
levels and battle state; a draw its refills; a placement its redirects) and, for the
figures an event does not carry, from the campaign right before the action.
"""

from __future__ import annotations

from typing import Any

from ledger import events as e
from ledger.campaign import Campaign
from ledger.changes import CardChanged, StackReordered
from ledger.rules import rule_text
from ledger.visibility import sees_everything
from ledger.vocabulary import host_of

from .views import cards_of, summary
from .witness import visible_cards


def explain(event: e.ActionRecorded, before: Campaign | None, after: Campaign, viewer: str) -> dict[str, Any]:
    cards = cards_of(event)
    hidden = set() if sees_everything(viewer) else cards - visible_cards(event, after, viewer, cards)

    def n(card: str | None) -> str:
        return "a hidden card" if card is None or card in hidden else card

    checks: list[dict[str, str]] = []

    def check(rule: str, detail: str) -> None:
        checks.append({"rule": rule, "detail": detail})

    for refill in event.refills:
        check("§4 empty deck", f"{refill.deck} was empty: refilled with {refill.count} card(s) of its suit from "
              f"the {refill.source} (up to 100), shuffled face-down, in this same action")
    for redirect in event.redirects:
        check(f"§5 {redirect.rule}", f"{n(redirect.card)} was sent to {redirect.asked} but went to "
              f"{redirect.actual}: {rule_text(redirect.rule)}")
    named = set(getattr(event, "cards", ()) or ()) | set(getattr(event, "taken", ()) or ()) \
        | set(getattr(event, "given", ()) or ())
    for change in event.changes:
        if isinstance(change, CardChanged) and host_of(change.was.at) and change.card not in named \
                and host_of(change.now.at) is None and change.now.at != change.was.at:
            check("§5 attachments follow no host", f"{n(change.card)} was attached to "
                  f"{n(host_of(change.was.at))}, which left its zone: it went to {change.now.at} in the same action")

    if isinstance(event, e.CardsDrawn | e.CardsDiscarded) and getattr(event, "stack", None):
        check("§3 decks", f"{event.stack} is a deck: cards come from its top")
    if isinstance(event, e.StackShuffled):
        order = next((c for c in event.changes if isinstance(c, StackReordered)), None)
        size = len(order.now) if order else 0
        check("§3 decks keep their order", f"{event.stack} was shuffled: the new order of its {size} cards is "
              "recorded, so replay never shuffles again"
              + (f" (seed {event.seed})" if event.seed is not None and sees_everything(viewer) else ""))
    if isinstance(event, e.StackSearched) and event.reshuffled:
        check("§4 search", f"{event.stack} is face-down, so it was reshuffled after the search, in the same action")
    if isinstance(event, e.CardsBuried):
        check("§5 bury", "buried cards go face-down to the bottom of their suit's campaign deck"
              + (f" ({event.to} was named)" if event.to else ""))
    if isinstance(event, e.CardsExiled):
        check("§5 exile", "exiled cards go to limbo")
    if isinstance(event, e.CardsDiscarded) and not getattr(event, "stack", None):
        check("§5 discard", "discarded cards go face-up to their format's discard pile")
    if isinstance(event, e.TradeCompleted):
        _explain_trade(event, check, n)
    if isinstance(event, e.CardActivated):
        _explain_activation(event, before, check, n)
    if isinstance(event, e.AccessChanged):
        if event.level is None:
            check("§8 location access", f"the effect on {event.suit} access at {event.location} was cleared")
        else:
            check("§8 location access", f"the effect of {n(event.by)} sets {event.suit} access at {event.location} "
                  f"to {event.level}; it applies during battle too")
    if isinstance(event, e.ActionUndone):
        check("undo", f"seq(s) {', '.join(map(str, event.targets))} taken back: their changes were inverted, "
              "newest first, so the table is exactly as before them; they stay in the history")
    if isinstance(event, e.ActionRedone):
        check("redo", f"what undo seq {event.undo} took back was applied again (no other action came between)")
    if isinstance(event, e.BattleStarted):
        check("§8 battle", "during a battle every discard pile's access level is 0, unless an effect changes it")
    if not checks:
        check("rules", "no rule beyond the action's own checks (cards where they must be, the actor allowed)")
    return {
        "seq": event.seq, "action": event.action, "actor": event.actor, "time": event.timestamp.isoformat(),
        "summary": summary(event, hidden), "checks": checks,
    }


def _explain_trade(event: e.TradeCompleted, check, n) -> None:
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


def _explain_activation(event: e.CardActivated, before: Campaign | None, check, n) -> None:
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
    if event.action_points is not None or event.energies:
        paid = [f"{event.action_points} action point(s)"] if event.action_points is not None else []
        paid += [f"{v} {k}" for k, v in event.energies.items()]
        check("§6 costs", f"paid {', '.join(paid)}: recorded as given, not enforced")
