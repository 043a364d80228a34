"""What a viewer sees of a campaign: zones, cards, and actions, filtered by
``ledger.visibility`` (RULES.md §9). A card the viewer may not identify appears as
``{"id": null, "face": "down"}``: its place and count stay visible, nothing else.
"""

from __future__ import annotations

from typing import Any

from ledger.campaign import Campaign
from ledger.changes import CardChanged, HeroChanged, StackReordered
from ledger.events import ActionRecorded
from ledger.visibility import can_identify, sees_everything
from ledger.vocabulary import host_of

from .witness import change_marks, visible_cards

HIDDEN: dict[str, Any] = {"id": None, "face": "down"}


def card_entry(campaign: Campaign, viewer: str, card: str) -> dict[str, Any]:
    if not can_identify(campaign, viewer, card):
        return dict(HIDDEN)
    table = campaign.table
    return {
        "id": card,
        "face": table.face(card),
        "exhausted": card in table.exhausted,
        "attached": [c if can_identify(campaign, viewer, c) else None for c in table.attached(card)],
    }


def zones_view(campaign: Campaign, viewer: str) -> dict[str, Any]:
    """``ledger --json zones``: every zone, empty ones as ``[]``, decks top first."""
    table = campaign.table
    zones = {
        zid: [card_entry(campaign, viewer, card) for card in table.cards_in(zid)]
        for zid in campaign.zones()
    }
    return {"seq": campaign.seq, "viewer": viewer, "campaign": campaign.slug, "zones": zones}


def action_view(
    event: ActionRecorded, campaign: Campaign, viewer: str, known: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """One recorded action as a viewer may see it, right after it (``campaign``).

    The referee gets the stored event whole. Anyone else gets its parameters with
    every card id they may not identify replaced by null, and, instead of the raw
    changes (whose deck positions would give hidden cards away), the moves they
    witnessed: card (or null), from zone, to zone. ``known``: ids the viewer named
    themselves."""
    cards = cards_of(event)
    data = event.model_dump(mode="json", exclude={"originator_id", "originator_version", "catalog", "format"})
    if sees_everything(viewer):
        hidden: set[str] = set()
    else:
        marks = change_marks(event, campaign, viewer)
        hidden = cards - known - visible_cards(event, campaign, viewer, cards, marks)
        data = _scrub(data, hidden)
        data["changes"] = _moves(event, campaign, viewer, marks, known)
        # A seed and the public order of the depot would let anyone recompute where
        # hidden cards went, and the hash of the whole event could be matched against
        # guesses: only the referee sees seeds, the recorded command and the hash.
        for key in ("seed", "rng", "hash", "command"):
            data.pop(key, None)
    data["type"] = type(event).__name__
    data["seq"] = event.seq
    data["action"] = event.action
    data["summary"] = summary(event, hidden)
    return data


def _moves(event: ActionRecorded, campaign: Campaign, viewer: str, marks: list[bool],
           known: frozenset[str]) -> list[dict[str, Any]]:
    """The changes of an action as a viewer witnessed them, with no deck positions."""
    moves: list[dict[str, Any]] = []
    for change, seen in zip(event.changes, marks):
        if isinstance(change, CardChanged):
            card = change.card if seen or change.card in known else None
            moves.append({
                "kind": "card", "card": card,
                "from": _zone_name(campaign, change.was.at), "to": _zone_name(campaign, change.now.at),
                "face": change.now.face if card else None,
                "exhausted": change.now.exhausted if card else None,
            })
        elif isinstance(change, StackReordered):
            moves.append({"kind": "order", "stack": change.stack, "count": len(change.now)})
        else:
            moves.append(change.model_dump(mode="json"))
    return moves


def _zone_name(campaign: Campaign, container: str) -> str:
    """A container as a viewer may name it: attachments show as their host's zone."""
    host = host_of(container)
    if host is None:
        return container
    return campaign.table.zone_of(host) + " (attached)" if host in campaign.table.where else "attached"


def cards_of(event: ActionRecorded) -> set[str]:
    """Every card an action names or changes."""
    cards: set[str] = set()
    for change in event.changes:
        if isinstance(change, CardChanged):
            cards.add(change.card)
        elif isinstance(change, StackReordered):
            cards.update(change.was)
    fields = type(event).model_fields
    for field in ("cards", "taken", "given"):
        if field in fields:
            cards.update(getattr(event, field) or ())
    for field in ("card", "host", "by"):
        if field in fields and getattr(event, field):
            cards.add(getattr(event, field))
    cards.update(r.card for r in event.redirects)
    return cards


def _scrub(value: Any, hidden: set[str]) -> Any:
    """Replaces every hidden card id by null, wherever it appears."""
    if not hidden:
        return value
    if isinstance(value, str):
        return None if value in hidden else value
    if isinstance(value, list):
        return [_scrub(v, hidden) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, hidden) for k, v in value.items()}
    return value


def summary(event: ActionRecorded, hidden: set[str] | frozenset[str] = frozenset()) -> str:
    """A short line saying what the action did, e.g. ``draw 2 from deck:item → inventory:ana``;
    ids in ``hidden`` read as "a hidden card"."""

    def name(card: str) -> str:
        return "a hidden card" if card in hidden else card

    a = event.action
    if a == "init":
        return f"campaign {getattr(event, 'name', '')!r} started, {len(getattr(event, 'catalog', ()))} cards in the box"
    if a == "hero add":
        hero = next(ch for ch in event.changes if isinstance(ch, HeroChanged)).now
        return f"hero {event.hero} ({hero.name if hero else ''}) joins, knowledge {hero.knowledge if hero else 0}"  # type: ignore[attr-defined]
    if a == "hero knowledge":
        return f"{event.hero}'s knowledge is now {event.knowledge}"  # type: ignore[attr-defined]
    cards = getattr(event, "cards", None) or getattr(event, "taken", None) or ()
    listed = ", ".join(name(card) for card in cards)
    if a == "draw":
        text = f"draw {event.count} from {event.stack} → {event.to}: {listed}"  # type: ignore[attr-defined]
    elif a == "add":
        text = f"add {listed} from the box → {event.to}"  # type: ignore[attr-defined]
    elif a == "send":
        text = f"send {listed} → {event.to}"  # type: ignore[attr-defined]
    elif a == "discard":
        text = f"discard {listed}" + (f" from {event.stack}" if getattr(event, "stack", None) else "")
    elif a == "bury":
        text = f"bury {listed}" + (f" in {event.to}" if getattr(event, "to", None) else "")
    elif a == "exile":
        text = f"exile {listed} to limbo"
    elif a == "shuffle":
        text = f"shuffle {event.stack}"  # type: ignore[attr-defined]
    elif a == "search":
        text = f"search {event.stack}" + (f", take {listed} → {event.to}" if cards else "")  # type: ignore[attr-defined]
        if getattr(event, "reshuffled", False):
            text += ", reshuffled"
    elif a in ("reveal", "hide", "exhaust", "restore"):
        text = f"{a} {listed}"
    elif a == "attach":
        text = f"attach {name(event.card)} to {name(event.host)}"  # type: ignore[attr-defined]
    elif a == "detach":
        text = f"detach {name(event.card)} from {name(event.host)} → {event.to}"  # type: ignore[attr-defined]
    elif a == "location add":
        text = f"location {event.location} added"  # type: ignore[attr-defined]
    elif a == "travel":
        text = f"{event.hero} travels to {event.location}"  # type: ignore[attr-defined]
    elif a in ("battle start", "battle end"):
        text = "a battle starts: every discard pile's access is 0" if a == "battle start" else "the battle ends"
    elif a == "access":
        if event.level is None:  # type: ignore[attr-defined]
            text = f"access for {event.suit} at {event.location} back to normal"  # type: ignore[attr-defined]
        else:
            text = f"{name(event.by)} sets access for {event.suit} at {event.location} to {event.level}"  # type: ignore[attr-defined]
    elif a == "trade":
        text = (
            f"{event.hero} trades at {event.location}: takes "  # type: ignore[attr-defined]
            + ", ".join(name(x) for x in event.taken)  # type: ignore[attr-defined]
            + " for " + (", ".join(name(x) for x in event.given) or "nothing")  # type: ignore[attr-defined]
            + " (" + "; ".join(f"{s.type} {s.give} ≥ {s.take}" for s in event.settlement) + ")"  # type: ignore[attr-defined]
        )
    elif a == "activate":
        who = event.hero or "the master"  # type: ignore[attr-defined]
        text = f"{who} activates {name(event.card)} (effect {event.effect}, {event.effect_kind})"  # type: ignore[attr-defined]
        if event.target:  # type: ignore[attr-defined]
            text += f" on {event.target}"  # type: ignore[attr-defined]
        if event.went_to:  # type: ignore[attr-defined]
            text += f" → {event.went_to}"  # type: ignore[attr-defined]
    elif a == "undo":
        seqs = event.targets  # type: ignore[attr-defined]
        text = f"undo seq {seqs[0]}" if len(seqs) == 1 else f"undo seqs {', '.join(map(str, seqs))}"
        text += f" (in force now: up to seq {event.live_head or 1})"  # type: ignore[attr-defined]
    elif a == "redo":
        seqs = event.targets  # type: ignore[attr-defined]
        text = f"redo seq{'s' if len(seqs) > 1 else ''} {', '.join(map(str, reversed(seqs)))} (taken back by seq {event.undo})"  # type: ignore[attr-defined]
    else:
        text = a
    for refill in event.refills:
        text += f"; {refill.deck} refilled with {refill.count} from the {refill.source}"
    for redirect in event.redirects:
        text += f"; {name(redirect.card)} went to {redirect.actual}, not {redirect.asked} ({redirect.rule})"
    return text
