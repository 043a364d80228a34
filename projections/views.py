"""What a viewer sees of a campaign: zones, cards, and actions, filtered by
``ledger.visibility`` (RULES.md §9). A card the viewer may not identify appears as
``{"id": null, "face": "down"}``: its place and count stay visible, nothing else.
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from ledger.campaign import Campaign
from ledger.changes import CardChanged, StackReordered
from ledger.events import ActionRecorded, CardsBuried
from ledger.states import card_states, effect_in_force
from ledger.visibility import can_identify, sees_everything
from ledger.vocabulary import host_of
from ledger.witness import change_marks, visible_cards

from .summaries import summary

HIDDEN: dict[str, Any] = {"id": None, "face": "down"}


def card_entry(campaign: Campaign, viewer: str, card: str) -> dict[str, Any]:
    """A card of a zone as the viewer may see it. ``attached``: every card hanging from
    it, directly or through another attached card (``Table.hanging_from``), each named
    only if the viewer may identify it. A card the viewer may not identify is ``HIDDEN``,
    with the cards attached to it if it has any: they lie on the table for all to see,
    and a face-up one is no secret because its host is."""
    table = campaign.table
    attached = [c if can_identify(campaign, viewer, c) else None for c in table.hanging_from(card)]
    if not can_identify(campaign, viewer, card):
        return {**HIDDEN, "attached": attached} if attached else dict(HIDDEN)
    return {"id": card, "face": table.face(card), "exhausted": card in table.exhausted, "attached": attached}


def zones_view(campaign: Campaign, viewer: str) -> dict[str, Any]:
    """``ledger --json zones``: every zone, empty ones as ``[]``, decks top first. A hero's
    inventory (a hand: its order means nothing in the game) is listed in the order its
    cards came in to the referee and its owner only; anyone else gets the cards they may
    identify by id, then the hidden ones: a card revealed at the head of a hand would
    otherwise tell them it was the first drawn, and so what lay on top of a deck then."""
    zones = {zid: [card_entry(campaign, viewer, card) for card in listed_cards(campaign, viewer, zid, spec)]
             for zid, spec in campaign.zones().items()}
    return {"seq": campaign.seq, "viewer": viewer, "campaign": campaign.slug, "zones": zones}


def listed_cards(campaign: Campaign, viewer: str, zone: str, spec: Any = None) -> list[str]:
    """The cards of ``zone`` in the order ``viewer``'s ``zones_view`` lists them: their own,
    or, in a hand kept from the viewer (any but the referee's and its owner's), those the
    viewer may identify by id, then the others, ordered by the cards attached to them that
    the viewer sees (an order of arrival there would say which card was drawn when)."""
    table = campaign.table
    cards = table.cards_in(zone)
    spec = spec if spec is not None else campaign.zones().get(zone)  # (none: a card's attachments)
    if spec is None or spec.kind != "hand" or viewer == spec.owner or sees_everything(viewer):
        return list(cards)
    named = sorted(card for card in cards if can_identify(campaign, viewer, card))
    shown = set(named)
    hidden = [card for card in cards if card not in shown]
    hidden.sort(key=lambda card: [c if can_identify(campaign, viewer, c) else "" for c in table.hanging_from(card)])
    return named + hidden


def position_for(campaign: Campaign, viewer: str, card: str) -> int:
    """Where ``card`` is listed in its zone in ``viewer``'s ``zones_view`` (``listed_cards``)."""
    return listed_cards(campaign, viewer, campaign.table.where[card]).index(card)


def card_faces(campaign: Campaign, view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What is printed on each card a zones view identifies (name, in the language being
    spoken; suit, level, value), for a page to draw them, and for an attached card the
    card it is attached to (``attached_to``: null when the view hides that one) and its face; a card
    the view hides is not named here either. ``allows``: the card is active and has an
    effect, so it may be named as the one whose effect allows a search, a shuffle or an
    activation (``--by``; a QA pass: the page offered a card attached to a companion, which
    the rules then called inactive). ``sheet``: a sheet card, which no hand holds (§5)."""
    ids = {entry["id"] for cards in view["zones"].values() for entry in cards if entry["id"] is not None}
    attached = {c for cards in view["zones"].values() for entry in cards for c in entry.get("attached", ()) if c}
    faces = {}
    for card in sorted(ids | attached):
        data = campaign.card(card)
        faces[card] = {"name": data.shown_name, "suit": str(data.suit), "level": data.level, "value": data.value,
                       "sheet": data.suit.is_sheet,
                       "allows": bool(data.effects) and "active" in card_states(campaign, card)}
        if card in attached:  # its face, as a zone's entry gives it for a card lying there
            faces[card]["face"] = campaign.table.face(card)
            host = campaign.table.host(card)
            faces[card]["attached_to"] = host if host is not None and can_identify(campaign, view["viewer"], host) \
                else None
    return faces


def table_facts(campaign: Campaign, viewer: str) -> dict[str, Any]:
    """What the table shows besides its cards: each hero's name, knowledge and location,
    each location's access levels and the effects changing them (the effect's card
    named only if the viewer may identify it, and whether it holds), and whether a battle is on."""
    table = campaign.table

    def shown(card: str) -> str | None:
        return card if can_identify(campaign, viewer, card) else None

    def in_force(by: str) -> bool:
        """Whether an effect holds (its card ``by`` active, under the rules in force): said
        to every seat, as the access it gives is (a trade allowed or refused says it to
        anyone; a card one cannot identify and that is attached to none is never active)."""
        return effect_in_force(campaign, by)

    return {
        "heroes": {hero: {"name": h.name, "knowledge": h.knowledge, "location": h.location}
                   for hero, h in table.heroes.items()},
        "locations": {
            place: {"access": dict(loc.access),
                    "effects": {suit: {"level": e.level, "by": shown(e.by), "in_force": in_force(e.by)}
                                for suit, e in loc.effects.items()}}
            for place, loc in table.locations.items()
        },
        "battle": table.battle,
    }


def facts_as_of(ledger: Any, cid: Any, campaign: Campaign, viewer: str, at: int | None) -> dict[str, Any]:
    """``table_facts`` of the moment shown (``ledger --json zones``, the API's zones): now,
    under today's rules, which decide the next action; an earlier moment (``at``) under the
    rules its action was decided under (whether an access effect held: ruleset 13)."""
    from ledger.rulebook import RULESET
    from ledger.rulesets import decided_under

    with decided_under(RULESET if at is None else ledger.event(cid, campaign.seq).ruleset):
        return table_facts(campaign, viewer)


def recorded_view(event: ActionRecorded, campaign: Campaign, viewer: str,
                  checkpoint: dict[str, Any]) -> dict[str, Any]:
    """A recorded action as a viewer receives it (CLI.md ``--json``; the table server's
    responses and stream): seq, action, the event as the viewer may see it, and the
    checkpoint right after it. The actor's own view identifies the cards they named."""
    view = action_view(event, campaign, viewer)
    return {"seq": event.seq, "action": event.action, "events": [view], "checkpoint": checkpoint}


def action_view(event: ActionRecorded, campaign: Campaign, viewer: str) -> dict[str, Any]:
    """One recorded action as a viewer may see it, right after it (``campaign``).

    The referee gets the stored event whole. Anyone else gets its parameters with
    every card id they may not identify replaced by null, and, instead of the raw
    changes (whose deck positions would give hidden cards away), the moves they
    witnessed: card (or null), from zone, to zone. The actor's own view identifies the
    cards they named (``named_by_actor``: a search's missed cards too), as their history
    and ``explain`` do."""
    known = named_by_viewer(event, viewer)
    cards = event.cards_mentioned()
    data = event.model_dump(mode="json", exclude={"originator_id", "originator_version", "catalog", "format"})
    if sees_everything(viewer):
        hidden: set[str] = set()
    else:
        marks = change_marks(event, campaign, viewer)
        hidden = cards - known - visible_cards(event, campaign, viewer, cards, marks)
        data = _scrub(data, hidden)
        data["changes"] = _moves(event, campaign, viewer, marks, known, hidden)
        # the rule that redirected a hidden card would say what kind of card it is
        data["redirects"] = [{**redirect, "rule": None} if redirect["card"] is None else redirect
                             for redirect in data.get("redirects", [])]
        # A seed and the public order of the depot would let anyone recompute where
        # hidden cards went, and the hash of the whole event could be matched against
        # guesses: only the referee sees seeds, the recorded command, the hash and the
        # digest of the state (a small set of possible orders could be tried against it).
        # Who witnessed which card names cards: the referee's too.
        for key in ("seed", "rng", "hash", "command", "state_digest", "seen", "unnamed"):
            data.pop(key, None)
        # A committed order's salt stays the referee's (ledger.commitments).
        data["commitments"] = [public_commitment(c) for c in data.get("commitments", [])]
        # Who was shown which hidden card: each viewer learns only their own share.
        data["identified"] = {k: v for k, v in data.get("identified", {}).items() if k == viewer}
        # Where in a face-down deck the master put cards (send, add): a deck position, the
        # referee's (else a card all had seen, sent from the discard pile to a deck's third
        # place, would be known to lie there).
        into_deck = _secret_order(campaign, data.get("to"))
        if data.get("position") is not None and into_deck:
            data["position"] = None
        # …and the order the cards were named in, the order they lie in there (a bury's: at
        # its decks' bottoms): listed by id, hidden ones first, as the moves are
        placed = into_deck or isinstance(event, CardsBuried)
        for key in ("cards", "taken") if placed else ():  # (a search's taken cards may go to a deck too)
            if isinstance(data.get(key), list):
                data[key] = sorted(data[key], key=lambda card: (card is not None, card or ""))
    data["type"] = type(event).__name__
    data["seq"] = event.seq
    data["action"] = event.action
    data["summary"] = summary(event, hidden, in_order=sees_everything(viewer))
    return data


def named_by_viewer(event: ActionRecorded, viewer: str) -> frozenset[str]:
    """The cards the viewer named in the action, if it is theirs (``named_by_actor``, a
    search's missed cards too): their own view of it identifies them."""
    return frozenset(event.named_by_actor()) if event.actor == viewer else frozenset()


def _moves(event: ActionRecorded, campaign: Campaign, viewer: str, marks: list[bool],
           known: frozenset[str], hidden: set[str]) -> list[dict[str, Any]]:
    """The changes of an action as a viewer witnessed them, with no deck positions; any
    other change (a hero's, a location's) with the cards the viewer may not identify
    replaced by null (an access effect names its card)."""
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
            moves.append(_scrub(change.model_dump(mode="json"), hidden))
    # Under rules before 10 a shuffle that left a stack's order as it was recorded no
    # change; its commitment (public) says the stack was shuffled, so the order move is
    # there whatever came out (else its absence told the viewer that the order held).
    if event.ruleset < 10:
        ordered = {move["stack"] for move in moves if move["kind"] == "order"}
        ordered.update(refill.deck for refill in event.refills)  # a refill's order is its cards' moves
        moves += [{"kind": "order", "stack": commitment.stack, "count": commitment.size}
                  for commitment in event.commitments if commitment.stack not in ordered and commitment.size > 1]
    return _no_secret_order(campaign, moves)


def _no_secret_order(campaign: Campaign, moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Card moves made one after another between the same two zones, one of them a stack
    whose order is secret (a face-down deck), listed by card id (hidden ones first): the
    order they were made in can be the order a shuffle gave (a refill from the depot puts
    the cards in the deck in their new order), which would tell the viewer the deck's
    order, and so which of the cards was then drawn."""
    listed: list[dict[str, Any]] = []
    for (kind, source, target), run in groupby(moves, key=lambda m: (m["kind"], m.get("from"), m.get("to"))):
        block = list(run)
        if kind == "card" and (_secret_order(campaign, source) or _secret_order(campaign, target)):
            block.sort(key=lambda m: (m["card"] is not None, m["card"] or ""))
        listed.extend(block)
    return listed


def _secret_order(campaign: Campaign, zone: Any) -> bool:
    """Is ``zone`` a zone of the campaign whose order is secret (a face-down deck)?"""
    spec = campaign.zones().get(zone) if isinstance(zone, str) else None
    return spec is not None and spec.secret_order


def _zone_name(campaign: Campaign, container: str) -> str:
    """A container as a viewer may name it: attachments show as their host's zone."""
    host = host_of(container)
    if host is None:
        return container
    return campaign.table.zone_of(host) + " (attached)" if host in campaign.table.where else "attached"


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


def public_commitment(commitment: dict[str, Any]) -> dict[str, Any]:
    """What everyone sees of a committed order: the stack, its size and the digest."""
    return {k: commitment[k] for k in ("stack", "size", "digest")}
