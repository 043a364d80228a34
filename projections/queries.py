"""Read-side queries: one card, the history, as a viewer may see them.

Places and states come from the campaign (now, or time-travelled with ``--at``);
the list of actions comes from the read-model tables, filtered by who could see
each card in each action (stored when the action was projected).

Each history row read is checked as it is read (its columns' types, its JSON
columns' shapes): a row edited into something no ledger writes is named in one line
that says to run ``ledger rebuild`` (``DamagedRow``), never shown as it stands nor
left to fail further on. The read does not rebuild the tables itself: a rebuild
costs the whole log, and only the catch-up's callers say that one happened (the
``note:`` line); ``verify`` names such a row as well, and rebuilds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from uuid import UUID

import msgspec

from ledger.campaign import Campaign
from ledger.events import ActionRecorded
from ledger.i18n import ENGLISH, language
from ledger.states import affected_by, card_states
from ledger.visibility import can_identify, sees_everything
from ledger.vocabulary import MASTER, PUBLIC, REFEREE

from .readmodel import SEEN_BY, DamagedRow, ReadModel, seen_by_a_seat
from .source import EventLog
from .summaries import summary
from .views import named_by_viewer, position_for


def _sees(row_seen: dict[str, list[str]], viewer: str, card: str) -> bool:
    """Did ``viewer`` see ``card`` take part in the action whose ``seen`` this is? A hero
    sees at least what everyone sees: one who joined the table later, and so is in no
    ``seen`` of the actions before, reads them as the public does."""
    who = row_seen.get(card, ())
    return sees_everything(viewer) or viewer in who or PUBLIC in who


def _unnamed(row_seen: dict[str, list[str]], row_unnamed: dict[str, list[str]], viewer: str) -> set[str]:
    """The cards of an action ``viewer`` saw take part but may not be told what became of
    (its ``unnamed``); a hero in no ``seen`` of the action (one who joined later) as the public.
    The referee is told of every card."""
    if sees_everything(viewer):
        return set()
    return {card for card, who in row_unnamed.items()
            if viewer in who or (PUBLIC in who and viewer not in row_seen.get(card, ()))}


def card_view(ledger: EventLog, model: ReadModel, campaign: Campaign, viewer: str, card: str,
              limit: int | None = None) -> dict[str, Any]:
    """``ledger card CARD``: its place and states, and the actions that touched it
    (those the viewer saw; with ``limit`` the latest that many). A card the viewer
    cannot identify now shows no place."""
    model.refuse_damaged(campaign.slug, campaign.id)
    data = campaign.card(card)
    seqs = witnessed_seqs(model, campaign.slug, card, campaign.seq, viewer, limit)
    # the name in the language being spoken (the cards table keeps the catalog's ``name``)
    view: dict[str, Any] = {"id": card, "suit": str(data.suit), "name": data.shown_name, "seq": campaign.seq}
    if can_identify(campaign, viewer, card):
        table = campaign.table
        view.update({
            "zone": table.zone_of(card),
            "position": position_for(campaign, viewer, card),
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


def witnessed_seqs(model: ReadModel, slug: str, card: str, last: int, viewer: str,
                   limit: int | None = None) -> list[int]:
    """The seqs of the actions up to ``last`` in which ``viewer`` saw ``card`` take part,
    oldest first (with ``limit``, the latest that many). A seat other than the referee's
    walks only the rows some seat may have witnessed (``readmodel.WITNESSED_INDEX``): the
    rows of actions nobody but the referee saw (a deck's shuffles, which touch every card
    in it) are not in its way, so that how long this takes cannot single out the card
    another hero drew from a deck shuffled many times. The rows it walks and did not see
    (another hero's own draw or search of the card) are passed over in SQL, by their
    ``witnesses``, before any history row is read: a step of the index each. A row of an
    older ledger (no ``witnesses``) is decided by its history row's ``seen``."""
    sql, params = card_actions_query(slug, card, last, viewer, witnessed=model.witnessed)
    seqs = []
    for record in model.scan(sql, params):
        seq = _checked(record, slug, ("seq",))["seq"]
        if not sees_everything(viewer):
            witnesses = record["witnesses"]
            if witnesses is None:
                if not _sees(_who(record, slug, "seen"), viewer, card):
                    continue
            elif not isinstance(witnesses, str):
                raise DamagedRow(record, slug, "witnesses", TypeError(type(witnesses).__name__), "card_actions")
            elif viewer not in (named := witnesses.split(",")) and PUBLIC not in named:  # exactly: LIKE ignores case
                continue
        seqs.append(seq)
        if limit and len(seqs) >= limit:
            break
    seqs.reverse()
    return seqs


def _shown(campaign: Campaign, viewer: str, card: str | None) -> str | None:
    return card if card is not None and can_identify(campaign, viewer, card) else None


def history_view(
    ledger: EventLog, model: ReadModel, cid: UUID, slug: str, viewer: str, *,
    start: int | None = None, end: int | None = None, card: str | None = None, actor: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """``ledger history``: one entry per action, oldest first, filtered; with ``limit``
    the latest that many. Card ids the viewer may not identify are null. The summaries are
    in the language being spoken: the referee's English ones are the stored rows, any
    other is said again from the action (as another viewer's always are)."""
    model.refuse_damaged(slug, cid)
    # Never a row past the log's end (a tail cut from a campaign of the file that the
    # read models' own checks did not reach yet: verify names it).
    sql, params = history_query(slug, ledger.campaign(cid).seq, start=start, end=end, card=card, actor=actor,
                                viewer=viewer, witnessed=model.witnessed)
    entries = []
    for record in model.scan(sql, params):
        _checked(record, slug, _HISTORY_COLUMNS)
        seen = _who(record, slug, "seen")
        if card is not None and not _sees(seen, viewer, card):
            continue
        entries.append((record, seen, _cards(record, slug)))
        if limit and len(entries) >= limit:
            break
    entries.reverse()
    stored = sees_everything(viewer) and language() == ENGLISH  # the stored summary is the referee's, in English
    events = {} if stored else _events(ledger, cid, [r["seq"] for r, _seen, _cards in entries])
    out = []
    for record, seen, cards in entries:
        hidden = {c for c in cards if not _sees(seen, viewer, c)}
        if hidden and record["seq"] in events:  # what they named themselves (a search that missed it)
            hidden -= named_by_viewer(events[record["seq"]], viewer)
        unnamed = _unnamed(seen, _who(record, slug, "unnamed"), viewer)
        text = record["summary"] if stored else summary(events[record["seq"]], hidden | unnamed,
                                                        in_order=sees_everything(viewer))
        shown = sorted(c for c in cards if c not in hidden)
        out.append({
            "seq": record["seq"], "action": record["action"], "actor": record["actor"], "time": record["time"],
            "summary": text, "undone_by": record["undone_by"],
            # hidden cards last, so their place among the names says nothing about their ids
            "cards": shown + [None] * (len(cards) - len(shown)),
        })
    return out


def acted_nowhere(ledger: EventLog, model: ReadModel, campaign: Campaign, viewer: str, actor: str) -> bool:
    """Does ``actor``, whose filtered history came back empty, name nobody of the campaign:
    neither the master nor a hero now, nor anyone with an action in its history (a hero who
    left, an undo of their arrival, keeps their actions listed)? Then an empty history is a
    typo, to be said; otherwise it is the answer."""
    if actor == MASTER or actor in campaign.table.heroes:
        return False
    return not history_view(ledger, model, campaign.id, campaign.slug, viewer, actor=actor, limit=1)


# -- history rows, checked as they are read ------------------------------------------------
# What each column of a history row holds; undone_by is also None (in force), unnamed
# also NULL (a file from before it was kept).
_HISTORY_COLUMNS: dict[str, type | tuple[type, ...]] = {
    "seq": int, "action": str, "actor": str, "time": str, "summary": str, "undone_by": (int, type(None))}
_CARDS = msgspec.json.Decoder(list[str]).decode


def _checked(record: dict[str, Any], slug: str, columns: Iterable[str]) -> dict[str, Any]:
    """``record`` if each of ``columns`` (names of ``_HISTORY_COLUMNS``) holds what the
    read models write there; else ``DamagedRow``."""
    for column in columns:
        if not isinstance(record[column], _HISTORY_COLUMNS[column]):
            raise DamagedRow(record, slug, column, TypeError(f"{column}: {type(record[column]).__name__}"))
    return record


def _who(record: dict[str, Any], slug: str, column: str) -> dict[str, list[str]]:
    """The ``seen`` or ``unnamed`` of a history row: for each card, the viewers."""
    value = record[column]
    if value is None and column == "unnamed":
        return {}
    try:
        return SEEN_BY(value)
    except (msgspec.DecodeError, TypeError) as exc:
        raise DamagedRow(record, slug, column, exc) from exc


def _cards(record: dict[str, Any], slug: str) -> list[str]:
    """The ``cards`` of a history row: the ids of the cards the action touched."""
    try:
        return _CARDS(record["cards"])
    except (msgspec.DecodeError, TypeError) as exc:
        raise DamagedRow(record, slug, "cards", exc) from exc


# -- the SQL the reads run --------------------------------------------------------------
# Each read is a lookup whose cost does not grow with the campaign: it starts from the
# index that holds its filter (card_actions' primary key (campaign, card, seq) for a card,
# history's index (campaign, actor, seq) for an actor, history's primary key (campaign,
# seq) otherwise) and walks it newest first, in the order it returns, so that reading the
# latest N stops after N rows (no sort of every matching row). ``CROSS JOIN`` keeps
# card_actions the outer loop (SQLite never reorders it). tests/test_query_plans.py
# checks the plans of exactly these statements.

def card_actions_query(slug: str, card: str, last: int, viewer: str = REFEREE,
                       witnessed: bool = True) -> tuple[str, list[Any]]:
    """``witnessed_seqs``' SQL: each action that touched ``card`` up to seq ``last``,
    newest first; for a viewer who does not see everything, only those whose witnesses
    name the viewer (or do not say: an older ledger's rows, with their history row's
    ``seen``). ``witnessed``: the table has the column (not so in a file of an older
    ledger this process may only read: every row is then decided by ``seen``)."""
    if sees_everything(viewer):
        return ("SELECT a.seq FROM card_actions a WHERE a.campaign = ? AND a.card = ? AND a.seq <= ? "
                "ORDER BY a.seq DESC"), [slug, card, last]
    if not witnessed:
        return ("SELECT a.seq, NULL AS witnesses, h.seen FROM card_actions a CROSS JOIN history h "
                "ON h.campaign = a.campaign AND h.seq = a.seq WHERE a.campaign = ? AND a.card = ? AND a.seq <= ? "
                "ORDER BY a.seq DESC"), [slug, card, last]
    sql = ("SELECT a.seq, a.witnesses, h.seen FROM card_actions a CROSS JOIN history h ON h.campaign = a.campaign "
           f"AND h.seq = a.seq WHERE a.campaign = ? AND a.card = ? AND a.seq <= ? AND {_WITNESSED} "
           "ORDER BY a.seq DESC")
    return sql, [slug, card, last, *_witnessed_params(viewer)]


# A card_actions row the viewer witnessed, or the public did (``_sees``), or one that does
# not say (``witnesses_text``); first the rows any seat may have witnessed, so that the read
# walks their index (``readmodel.WITNESSED_INDEX``), not the rows only the referee saw.
_WITNESSED = (f"{seen_by_a_seat('a.witnesses')} AND "
              "(a.witnesses IS NULL OR a.witnesses LIKE ? ESCAPE '\\' OR a.witnesses LIKE ? ESCAPE '\\')")


def _witnessed_params(viewer: str) -> list[str]:
    """``_WITNESSED``'s parameters: the viewer's pattern, then the public's."""
    return [witness_pattern(viewer), witness_pattern(PUBLIC)]


def witness_pattern(viewer: str) -> str:
    """The ``LIKE`` pattern of the rows ``viewer`` witnessed (``_`` and ``%`` in an id taken
    as themselves)."""
    escaped = viewer.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%,{escaped},%"


def history_query(
    slug: str, last: int, *, start: int | None = None, end: int | None = None, card: str | None = None,
    actor: str | None = None, viewer: str = REFEREE, witnessed: bool = True,
) -> tuple[str, list[Any]]:
    """``history_view``'s SQL: the history rows of campaign ``slug`` up to seq ``last``,
    filtered, newest first; with ``card``, for a viewer who does not see everything, only
    the actions whose witnesses of the card name the viewer (``card_actions_query``)."""
    table = "a" if card is not None else "h"  # whose index the rows come in the order of
    where = [f"{table}.campaign = ?"]
    params: list[Any] = [slug]
    if card is not None:
        where.append("a.card = ?")
        params.append(card)
        if not sees_everything(viewer) and witnessed:
            where.append(_WITNESSED)
            params += _witnessed_params(viewer)
    if actor is not None:
        where.append("h.actor = ?")
        params.append(actor)
    # One upper bound: two (the log's end and ``end``) make SQLite misjudge the range and
    # prefer the primary key to the actor's index.
    where.append(f"{table}.seq <= ?")
    params.append(last if end is None else min(last, end))
    if start is not None:
        where.append(f"{table}.seq >= ?")
        params.append(start)
    source = ("card_actions a CROSS JOIN history h ON h.campaign = a.campaign AND h.seq = a.seq"
              if card is not None else "history h")
    return f"SELECT h.* FROM {source} WHERE {' AND '.join(where)} ORDER BY {table}.seq DESC", params


def _events(ledger: EventLog, cid: UUID, seqs: list[int]) -> dict[int, ActionRecorded]:
    if not seqs:
        return {}
    low, high = min(seqs), max(seqs)
    if high - low + 1 <= 4 * len(seqs):
        wanted = set(seqs)
        return {e.seq: e for e in ledger.actions(cid, gt=low - 1, lte=high) if e.seq in wanted}
    return {seq: ledger.event(cid, seq) for seq in seqs}
