"""Read-side queries: one card, the history, as a viewer may see them.

Places and states come from the campaign (now, or time-travelled with ``--at``);
the list of actions comes from the read-model tables, filtered by who could see
each card in each action (stored when the action was projected).
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from ledger.campaign import Campaign
from ledger.events import ActionRecorded
from ledger.states import affected_by, card_states
from ledger.visibility import can_identify, sees_everything

from .readmodel import ReadModel
from .source import EventLog
from .summaries import summary


def _sees(row_seen: dict[str, list[str]], viewer: str, card: str) -> bool:
    return sees_everything(viewer) or viewer in row_seen.get(card, ())


def card_view(ledger: EventLog, model: ReadModel, campaign: Campaign, viewer: str, card: str) -> dict[str, Any]:
    """``ledger card CARD``: its place and states, and the actions that touched it
    (those the viewer saw). A card the viewer cannot identify now shows no place."""
    data = campaign.card(card)
    seqs = [
        seq for seq, seen in model.db.execute(
            "SELECT h.seq, h.seen FROM card_actions a JOIN history h ON h.campaign = a.campaign AND h.seq = a.seq "
            "WHERE a.campaign = ? AND a.card = ? AND a.seq <= ? ORDER BY a.seq",
            [campaign.slug, card, campaign.seq],
        ).fetchall()
        if _sees(json.loads(seen), viewer, card)
    ]
    view: dict[str, Any] = {"id": card, "suit": str(data.suit), "name": data.name, "seq": campaign.seq}
    if can_identify(campaign, viewer, card):
        table = campaign.table
        view.update({
            "zone": table.zone_of(card),
            "position": table.cards_in(table.where[card]).index(card),
            "face": table.face(card),
            "exhausted": card in table.exhausted,
            "attached_to": _shown(campaign, viewer, table.host(card)),
            "attached": [_shown(campaign, viewer, c) for c in table.attached(card)],
            "states": card_states(campaign, card),
        })
        affected = affected_by(campaign, card)
        if affected is not None and "active" in view["states"]:  # seed 001, "Afetados"
            view["affects"] = list(affected)  # an active stack card: the heroes its effects reach
    else:
        view.update({"zone": None, "position": None, "face": "down", "exhausted": None,
                     "attached_to": None, "attached": [], "states": [], "hidden": True})
    view["history"] = seqs
    return view


def _shown(campaign: Campaign, viewer: str, card: str | None) -> str | None:
    return card if card is not None and can_identify(campaign, viewer, card) else None


def history_view(
    ledger: EventLog, model: ReadModel, cid: UUID, slug: str, viewer: str, *,
    start: int | None = None, end: int | None = None, card: str | None = None, actor: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """``ledger history``: one entry per action, oldest first, filtered; with ``limit``
    the latest that many. Card ids the viewer may not identify are null."""
    # Never a row past the log's end (a tail cut from a campaign of the file that the
    # read models' own checks did not reach yet: verify names it).
    where = ["h.campaign = ?", "h.seq <= ?"]
    params: list[Any] = [slug, ledger.campaign(cid).seq]
    join = ""
    if start is not None:
        where.append("h.seq >= ?")
        params.append(start)
    if end is not None:
        where.append("h.seq <= ?")
        params.append(end)
    if actor is not None:
        where.append("h.actor = ?")
        params.append(actor)
    if card is not None:
        join = "JOIN card_actions a ON a.campaign = h.campaign AND a.seq = h.seq AND a.card = ?"
        params.insert(0, card)
    sql = f"SELECT h.* FROM history h {join} WHERE {' AND '.join(where)} ORDER BY h.seq DESC"
    entries = []
    for record in model.db.query(sql, params):
        seen = json.loads(record["seen"])
        if card is not None and not _sees(seen, viewer, card):
            continue
        entries.append((record, seen, json.loads(record["cards"])))
        if limit and len(entries) >= limit:
            break
    entries.reverse()
    events = _events(ledger, cid, [r["seq"] for r, _, _ in entries]) if not sees_everything(viewer) else {}
    out = []
    for record, seen, cards in entries:
        hidden = {c for c in cards if not _sees(seen, viewer, c)}
        unnamed = {c for c, who in json.loads(record["unnamed"] or "{}").items() if viewer in who}
        text = record["summary"] if sees_everything(viewer) else summary(events[record["seq"]], hidden | unnamed)
        shown = sorted(c for c in cards if c not in hidden)
        out.append({
            "seq": record["seq"], "action": record["action"], "actor": record["actor"], "time": record["time"],
            "summary": text, "undone_by": record["undone_by"],
            # hidden cards last, so their place among the names says nothing about their ids
            "cards": shown + [None] * (len(cards) - len(shown)),
        })
    return out


def _events(ledger: EventLog, cid: UUID, seqs: list[int]) -> dict[int, ActionRecorded]:
    if not seqs:
        return {}
    low, high = min(seqs), max(seqs)
    if high - low + 1 <= 4 * len(seqs):
        wanted = set(seqs)
        return {e.seq: e for e in ledger.actions(cid, gt=low - 1, lte=high) if e.seq in wanted}
    return {seq: ledger.event(cid, seq) for seq in seqs}
