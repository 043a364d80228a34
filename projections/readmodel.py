"""The read-model tables, kept in the campaign's own database file with sqlite-utils
so any SQLite tool (the ``sqlite3`` shell, Datasette) can browse them:

- ``cards``: one row per card and campaign: zone, position, face, exhausted,
  attached_to and the derived states of RULES.md §7;
- ``zones``: one row per zone and campaign: its settings and how many cards it holds;
- ``history``: one row per action: seq, action, actor, time, summary, cards touched,
  who saw each of them take part (``seen``), who of those may not be told what became
  of it (``unnamed``: a depot card seen going into a deck, then drawn unseen), and
  ``undone_by``;
- ``card_actions``: which actions touched which card (for ``card`` and ``history --card``);
- ``projection_position``: the last notification applied.

The tables follow the event store's notification log (read through eventsourcing's
recorder only). Each batch of rows is written in one transaction together with the
position it reaches, so a crash never leaves rows without their position or the
reverse, and a notification is never applied twice. Rows are computed with the same
fold as the aggregate (``Campaign`` + ``Table.apply``), so they cannot disagree.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import sqlite_utils

from ledger.campaign import Campaign
from ledger.changes import CardChanged, HeroChanged, StackReordered
from ledger.events import ActionRecorded, ActionRedone, ActionUndone, CampaignStarted
from ledger.states import card_states
from ledger.vocabulary import PUBLIC, host_of
from ledger.witness import marks_for, visible_cards, witnessed_cards

from .source import EventLog, Recorded
from .summaries import summary

NAME = "tables"
BATCH = 1000


def viewers_of(campaign: Campaign) -> list[str]:
    return [PUBLIC, *campaign.table.heroes]


class ReadModel:
    """Writes and reads the read-model tables of one database file."""

    def __init__(self, ledger: EventLog, path: str | Path):
        self.ledger = ledger
        # For reading only: every write goes through ``_writing``.
        self.db = sqlite_utils.Database(str(path), execute_plugins=False)
        self.db.conn.execute("PRAGMA busy_timeout = 30000")
        self._campaigns: dict[UUID, Campaign] = {}
        self._ensure_tables()

    @contextmanager
    def _writing(self) -> Iterator[sqlite_utils.Database]:
        """One write transaction on the event store's own connection, begun as a
        writer: a process has a single writing connection and its writes are
        serialised (so the WAL-reset bug of SQLite < 3.51.3, which needs several
        writing connections, cannot happen), and rows commit with their position."""
        with self.ledger.factory.datastore.transaction(commit=True) as cursor:
            yield sqlite_utils.Database(cursor.sqlite_cursor.connection, execute_plugins=False,
                                        recursive_triggers=False)

    def close(self) -> None:
        self.db.close()

    # -- schema -----------------------------------------------------------------
    def _ensure_tables(self) -> None:
        if self.db["projection_position"].exists():
            return
        with self._writing() as db:
            db["projection_position"].create({"name": str, "position": int}, pk="name", if_not_exists=True)
            db["cards"].create(
                {"campaign": str, "id": str, "suit": str, "name": str, "zone": str, "position": int,
                 "face": str, "exhausted": int, "attached_to": str, "states": str},
                pk=("campaign", "id"), if_not_exists=True,
            )
            db["zones"].create(
                {"campaign": str, "id": str, "kind": str, "owner": str, "visibility": str, "ordered": int,
                 "use": str, "affected": str, "suit": str, "count": int},
                pk=("campaign", "id"), if_not_exists=True,
            )
            db["history"].create(
                {"campaign": str, "seq": int, "action": str, "actor": str, "time": str, "summary": str,
                 "cards": str, "seen": str, "unnamed": str, "undone_by": int},
                pk=("campaign", "seq"), if_not_exists=True,
            )
            db["card_actions"].create(
                {"campaign": str, "card": str, "seq": int}, pk=("campaign", "card", "seq"), if_not_exists=True,
            )
            db["cards"].create_index(["campaign", "zone"], if_not_exists=True)
            db["history"].create_index(["campaign", "actor"], if_not_exists=True)
            db["projection_position"].insert({"name": NAME, "position": 0}, ignore=True)

    def position(self) -> int:
        row = self.db.execute("SELECT position FROM projection_position WHERE name = ?", [NAME]).fetchone()
        return row[0] if row else 0

    # -- following the log --------------------------------------------------------
    def catch_up(self, progress: Callable[[int, int], None] | None = None, batch: int = BATCH,
                 recorded: Recorded | None = None) -> int:
        """Applies every notification after the stored position; returns how many.

        Each batch moves the position first (only if no one else moved it since we
        read it) and writes its rows in the same transaction, so rows and position
        commit together or not at all, and a batch another process already applied
        is dropped (``_Raced``), never applied twice. The action this process has
        just recorded (``recorded``) is taken as the write path holds it — its event
        and the campaign right after it — instead of being decoded and folded again."""
        recorder = self.ledger.recorder
        start = self.position()
        end = recorder.max_notification_id() or 0
        done = 0
        try:
            while start < end:
                notes = recorder.select_notifications(start=start + 1, limit=batch)
                if not notes:
                    break
                writer = _Batch()
                for note in notes:
                    if _is(recorded, note):
                        assert recorded is not None
                        self._apply(recorded.event, writer, after=recorded.campaign)
                        continue
                    event = self.ledger.mapper.to_domain_event(note)
                    if isinstance(event, ActionRecorded):
                        self._apply(event, writer)
                with self._writing() as db:
                    moved = db.execute(
                        "UPDATE projection_position SET position = ? WHERE name = ? AND position = ?",
                        [notes[-1].id, NAME, start],
                    ).rowcount
                    if moved != 1:
                        raise _Raced()
                    writer.write(db)
                start = notes[-1].id
                done += len(notes)
                if progress is not None:
                    progress(done, end)
        except BaseException:
            self._campaigns.clear()  # they may be ahead of the tables now
            raise
        return done

    def safe_catch_up(self, recorded: Recorded | None = None) -> int:
        """``catch_up``, tolerating another process catching up at the same time.
        ``recorded``: the action this process just recorded (``Recorded``), whose
        event and campaign the write path already holds, so they are not read again."""
        for _ in range(5):
            try:
                return self.catch_up(recorded=recorded)
            except _Raced:
                continue
        return 0

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Drops every row and applies the whole log again."""
        with self._writing() as db:
            for table in ("cards", "zones", "history", "card_actions"):
                db.execute(f"DELETE FROM [{table}]")
            db.execute("UPDATE projection_position SET position = 0 WHERE name = ?", [NAME])
        self._campaigns.clear()
        return self.catch_up(progress)

    # -- applying one action ---------------------------------------------------------
    def _campaign_before(self, event: ActionRecorded) -> Campaign | None:
        cid = event.originator_id
        if isinstance(event, CampaignStarted):
            return None
        campaign = self._campaigns.get(cid)
        if campaign is None or campaign.version != event.seq - 1:
            campaign = self.ledger.campaign(cid, at=event.seq - 1)
            self._campaigns[cid] = campaign
        return campaign

    def _apply(self, event: ActionRecorded, writer: _Batch, after: Campaign | None = None) -> None:
        """The rows of one action. ``after``: the campaign right after it, as the
        write path holds it (read only; it stays the write path's)."""
        if after is None:
            campaign = self.ledger.project(self._campaign_before(event), [event])  # the one fold
            assert campaign is not None
            self._campaigns[event.originator_id] = campaign
        else:
            campaign = after
            self._campaigns.pop(event.originator_id, None)  # not ours to fold further
        touched = event.cards_touched()
        # Who saw each card take part (the action is in the card's history for them),
        # and, of those, who may not be told what became of it (see witness.py).
        seen: dict[str, list[str]] = {card: [] for card in touched}
        unnamed: dict[str, list[str]] = {}
        viewers = viewers_of(campaign)
        marks = marks_for(event, campaign, viewers, owned=after is None) if touched else {}
        for viewer in viewers if touched else ():
            named = visible_cards(event, campaign, viewer, touched, marks[viewer])
            for card in witnessed_cards(event, campaign, viewer, touched, marks[viewer]):
                seen[card].append(viewer)
                if card not in named:
                    unnamed.setdefault(card, []).append(viewer)
        writer.history.append({
            "campaign": campaign.slug, "seq": event.seq, "action": event.action, "actor": event.actor,
            "time": event.timestamp.isoformat(), "summary": summary(event), "cards": json.dumps(sorted(touched)),
            "seen": json.dumps({card: who for card, who in sorted(seen.items()) if who}),
            "unnamed": json.dumps(unnamed, sort_keys=True), "undone_by": None,
        })
        writer.card_actions.extend({"campaign": campaign.slug, "card": card, "seq": event.seq} for card in touched)
        if isinstance(event, ActionUndone):
            writer.undone.append((campaign.slug, event.targets, event.seq))
        elif isinstance(event, ActionRedone):
            writer.undone.append((campaign.slug, event.targets, None))
        dirty = writer.dirty(campaign)
        if isinstance(event, CampaignStarted):
            dirty.zones.update(campaign.zones())
        for change in event.changes:
            if isinstance(change, HeroChanged):  # a hero who joins or leaves brings or takes their zones
                dirty.zones.update(campaign.format.zones((change.hero,)))
        if isinstance(event, CampaignStarted):
            dirty.cards.update(campaign.catalog.ids())
            return
        table = campaign.table
        containers: set[str] = set()
        for change in event.changes:
            if isinstance(change, CardChanged):
                containers.update((change.was.at, change.now.at))
            elif isinstance(change, StackReordered):
                containers.add(change.stack)
        dirty.zones.update(c for c in containers if host_of(c) is None)
        fresh = set(touched)
        for container in containers:  # positions shift for every card of a container
            fresh.update(table.cards_in(container))
        todo = list(fresh)  # an attached card's zone and states follow its host
        while todo:
            for attached in table.attached(todo.pop()):
                if attached not in fresh:
                    fresh.add(attached)
                    todo.append(attached)
        dirty.cards.update(fresh)


def _is(recorded: Recorded | None, note: Any) -> bool:
    """Is this notification the action the write path just recorded (and still holds
    the campaign right after)?"""
    return (recorded is not None and note.originator_id == recorded.event.originator_id
            and note.originator_version == recorded.seq == recorded.campaign.version)


class _Raced(Exception):
    """Another process moved the position first; this batch is dropped, not applied twice."""


class _Dirty:
    def __init__(self, campaign: Campaign):
        self.campaign = campaign
        self.cards: set[str] = set()
        self.zones: set[str] = set()


class _Batch:
    """Rows gathered for one transaction; cards and zones are written once each, as
    they stand at the end of the batch."""

    def __init__(self) -> None:
        self.history: list[dict[str, Any]] = []
        self.card_actions: list[dict[str, Any]] = []
        self.undone: list[tuple[str, tuple[int, ...], int | None]] = []  # (campaign, seqs, undone_by)
        self._dirty: dict[UUID, _Dirty] = {}

    def dirty(self, campaign: Campaign) -> _Dirty:
        entry = self._dirty.setdefault(campaign.id, _Dirty(campaign))
        entry.campaign = campaign
        return entry

    def write(self, db: sqlite_utils.Database) -> None:
        card_rows = [card_row(d.campaign, card) for d in self._dirty.values() for card in d.cards]
        zone_rows = [zone_row(d.campaign, zone) for d in self._dirty.values() for zone in d.zones
                     if zone in d.campaign.zones()]
        for d in self._dirty.values():
            gone = [zone for zone in d.zones if zone not in d.campaign.zones()]
            if gone:
                db.execute(f"DELETE FROM zones WHERE campaign = ? AND id IN ({','.join('?' * len(gone))})",
                           [d.campaign.slug, *gone])
        if card_rows:
            db["cards"].upsert_all(card_rows, pk=("campaign", "id"))
        if zone_rows:
            db["zones"].upsert_all(zone_rows, pk=("campaign", "id"))
        # Many rows of fixed shape: straight executemany on sqlite-utils' connection.
        if self.history:
            db.conn.executemany(
                "INSERT INTO history (campaign, seq, action, actor, time, summary, cards, seen, unnamed, undone_by) "
                "VALUES (:campaign, :seq, :action, :actor, :time, :summary, :cards, :seen, :unnamed, :undone_by)",
                self.history,
            )
        if self.card_actions:
            db.conn.executemany(
                "INSERT OR IGNORE INTO card_actions (campaign, card, seq) VALUES (:campaign, :card, :seq)",
                self.card_actions,
            )
        for slug, seqs, undone_by in self.undone:  # in log order: a redo clears what an undo set
            db.execute(
                f"UPDATE history SET undone_by = ? WHERE campaign = ? AND seq IN ({','.join('?' * len(seqs))})",
                [undone_by, slug, *seqs],
            )


def card_row(campaign: Campaign, card: str) -> dict[str, Any]:
    table = campaign.table
    data = campaign.card(card)
    host = table.host(card)
    container = table.where[card]
    return {
        "campaign": campaign.slug, "id": card, "suit": str(data.suit), "name": data.name,
        "zone": table.zone_of(card), "position": table.cards_in(container).index(card),
        "face": table.face(card), "exhausted": int(card in table.exhausted), "attached_to": host,
        "states": " ".join(card_states(campaign, card)),
    }


def zone_row(campaign: Campaign, zone: str) -> dict[str, Any]:
    spec = campaign.zones()[zone]
    return {
        "campaign": campaign.slug, "id": zone, "kind": spec.kind, "owner": spec.owner,
        "visibility": spec.visibility, "ordered": int(spec.ordered), "use": spec.use,
        "affected": spec.affected, "suit": str(spec.suit) if spec.suit else None,
        "count": len(campaign.table.cards_in(zone)),
    }
