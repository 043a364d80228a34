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
- ``projection_position``: the last notification applied, its ``mark`` (which stored
  event it was: originator, version and a digest of the stored state) and the last
  action applied (``last_action``: campaign id and seq).

The tables follow the event store's notification log (read through eventsourcing's
recorder only). Each batch of rows is written in one transaction together with the
position it reaches, so a crash never leaves rows without their position or the
reverse, and a notification is never applied twice. Rows are computed with the same
fold as the aggregate (``Campaign`` + ``Table.apply``), so they cannot disagree.

The file can still be edited behind the ledger's back, so the tables are checked on
every catch-up, each check costing O(1) or O(cards of one campaign), never O(log):
the position must lie within the log and still point at the stored event it was
applied from; no history row may exist yet for an action about to be written; and
(``safe_catch_up``) the cards and zones rows of the campaign acted on last must be its
fold. Tables that fail a check are dropped and applied again from the log, and
``ReadModel.repaired`` says why, for the caller to report (this module never prints) —
except while they hold actions the log no longer does (its tail cut, an older copy put
back: ``cut_log``): they are then the one trace of the loss the file keeps, so every
command refuses (``CutLog``) until ``rebuild`` accepts the log as it stands.

The log itself is checked as it is folded, for what the hash chain (kept in seq order)
cannot see: the notification order. Each action of a campaign must be the one after
the campaign's action before it — in the batch (one integer comparison an action), in
the batches this fold met before, else in the tables (two indexed lookups a campaign
and batch) — a campaign met from the log's start must begin at seq 1, and a campaign's
name must be one event stream's. Folded in notification order, a redo swapped before
its undo would make rows that lie, and rebuilding would make them again; so the first
action of a campaign that fails, or that cannot be read, stops that campaign (``Break``,
kept as a row of the position table): its rows stay as they were before it, its reads
are refused (``refuse_damaged``, one line, ``ledger.errors.DamagedRecord``), and the
file's other campaigns are followed on. Where a campaign stops depends on the log
alone, never on where a batch ends (the fold reads campaigns without checking the
hash chain, which is ``verify``'s), so ``projections.consistency.compare_with_log``,
which compares every row for ``verify``, finds the same stops.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple
from uuid import UUID

import msgspec

from ledger.campaign import Campaign
from ledger.changes import HeroChanged
from ledger.errors import DamagedRecord, FileBusy, StoreError
from ledger.events import ActionRecorded, ActionRedone, ActionUndone, CampaignStarted, event_class
from ledger.i18n import ENGLISH, _, language, speaking
from ledger.states import card_states
from ledger.vocabulary import PUBLIC, host_of
from ledger.witness import witnessed

from .source import EventLog, Recorded
from .summaries import stored_summary, summary
from .tables import SQLiteTables, Tables, Writer, open_tables

if TYPE_CHECKING:
    from .pipeline import Helper

_encode = msgspec.json.Encoder().encode
NAME = "tables"
BATCH = 1000
REBUILD_BATCH = 5000
LIGHT_FROM = 100  # notifications in a batch from which actions are decoded light, not folded
POSITION = "projection_position"
TABLES = ("cards", "zones", "history", "card_actions")
MARKS = ("mark", "last_action")  # columns of the position added after files existed without them
SCHEMAS: dict[str, tuple[dict[str, type], str | tuple[str, ...]]] = {
    POSITION: ({"name": str, "position": int, "mark": str, "last_action": str}, "name"),
    "cards": ({"campaign": str, "id": str, "suit": str, "name": str, "zone": str, "position": int, "face": str,
               "exhausted": int, "attached_to": str, "states": str}, ("campaign", "id")),
    "zones": ({"campaign": str, "id": str, "kind": str, "owner": str, "visibility": str, "ordered": int, "use": str,
               "affected": str, "suit": str, "count": int}, ("campaign", "id")),
    "history": ({"campaign": str, "seq": int, "action": str, "actor": str, "time": str, "summary": str, "cards": str,
                 "seen": str, "unnamed": str, "undone_by": int}, ("campaign", "seq")),
    # ``witnesses``: who saw the card take part in the action (``witnesses_text``), so that
    # a seat's card history skips what it did not see in the index, in SQL; NULL in rows
    # of an older ledger (their history row's ``seen`` says it).
    "card_actions": ({"campaign": str, "card": str, "seq": int, "witnesses": str}, ("campaign", "card", "seq")),
}
# Whole rows written over the row of the same key (what sqlite-utils' upsert_all did).
UPSERTS = {
    table: (f"INSERT INTO [{table}] ({', '.join(SCHEMAS[table][0])}) VALUES "
            f"({', '.join(':' + c for c in SCHEMAS[table][0])}) ON CONFLICT ({', '.join(SCHEMAS[table][1])}) DO UPDATE SET "
            + ", ".join(f"{c} = excluded.{c}" for c in SCHEMAS[table][0] if c not in SCHEMAS[table][1]))
    for table in ("cards", "zones")
}
# A batch's history and card_actions rows are tuples in their tables' column order.
HISTORY = tuple(SCHEMAS["history"][0])
INSERTS = {table: f"INSERT{' OR IGNORE' if table == 'card_actions' else ''} INTO {table} "
                  f"({', '.join(SCHEMAS[table][0])}) VALUES ({', '.join('?' * len(SCHEMAS[table][0]))})"
           for table in ("history", "card_actions")}
JSON_COLUMNS = frozenset({"cards", "seen", "unnamed"})  # of history: compact JSON (msgspec)
INDEXES = {"cards": ["campaign", "zone"], "history": ["campaign", "actor", "seq"]}
# Named as sqlite-utils named them when it made them; OBSOLETE: indexes older ledgers made.
OBSOLETE_INDEXES = ("idx_history_campaign_actor",)  # now idx_history_campaign_actor_seq


REFEREE_ONLY = ","
"""The ``witnesses`` of a card_actions row nobody but the referee saw (``witnesses_text``)."""


def seen_by_a_seat(witnesses: str = "witnesses") -> str:
    """The card_actions rows a seat other than the referee's may have witnessed: all but those
    of nobody else (``REFEREE_ONLY``: a shuffle of a face-down deck, a search's passed-over
    cards), and an older ledger's (NULL: its history row's ``seen`` says)."""
    return f"({witnesses} IS NULL OR {witnesses} <> '{REFEREE_ONLY}')"


WITNESSED_INDEX = "idx_card_actions_witnessed"
"""A seat's card history walks this index (card_actions' rows ``seen_by_a_seat``, with their
witnesses), never the rows only the referee saw: a player who shuffles a deck a thousand
times adds nothing to it, so that how long the card history of any card takes cannot tell
the card another hero drew from the deck (which the shuffles after the draw no longer touch)."""
# name -> (table, columns, the rows it holds: None for all)
INDEX_NAMES: dict[str, tuple[str, list[str], str | None]] = {
    **{f"idx_{table}_{'_'.join(columns)}": (table, columns, None) for table, columns in INDEXES.items()},
    WITNESSED_INDEX: ("card_actions", ["campaign", "card", "seq", "witnesses"], seen_by_a_seat()),
}


_CAMPAIGNS_IN_HISTORY = (
    "WITH RECURSIVE named(slug) AS (SELECT min(campaign) FROM history UNION ALL "
    "SELECT (SELECT min(campaign) FROM history WHERE campaign > named.slug) FROM named WHERE named.slug IS NOT NULL) "
    "SELECT slug FROM named WHERE slug IS NOT NULL")
"""The campaigns the history holds rows of, one index lookup each (a skip scan)."""


DAMAGED = "damaged "  # the position's row of a campaign no longer followed: this and its slug
UNREADABLE, ORDER, STREAMS = "unreadable", "order", "streams"  # why: an action cannot be read; one is out of order;
# a second stream of the log names the campaign


class Break(NamedTuple):
    """A campaign the read models stopped following: its slug, the seq of its first
    action they cannot follow, why (``UNREADABLE``, ``ORDER``, ``STREAMS``) and its id.
    Its rows stay as they were before that action, and its reads are refused
    (``refuse_damaged``)."""

    slug: str
    seq: int
    kind: str
    cid: str


def stopped_at(slug: str, seq: Any, kind: Any) -> DamagedRecord:
    """The refusal to show campaign ``slug`` from read models that stopped following it
    at its action ``seq``."""
    reason = (_("its log is out of order or has a gap there") if kind == ORDER
              else _("a second event stream of the log has its name") if kind == STREAMS
              else _("that action cannot be read"))
    message = _("the read models stopped following campaign {campaign} at seq {seq}: {reason}; the file was changed "
                "or damaged (ledger verify checks the whole record, and ledger rebuild follows the log again once "
                "it is mended); the file's other campaigns go on").format(campaign=slug, seq=seq, reason=reason)
    return DamagedRecord(message, _Unfollowable(message), seq if isinstance(seq, int) else None, campaign=slug)


class CutLog(DamagedRecord):
    """A log that lost actions the read models recorded (``ReadModel.cut_log``);
    ``campaign``: the slug of the campaign that lost them."""

    def __init__(self, message: str, campaign: str):
        super().__init__(message, _Unfollowable(message), campaign=campaign)


def viewers_of(campaign: Campaign) -> list[str]:
    return [PUBLIC, *campaign.table.heroes]


def mark_of(note: Any) -> str:
    """What recognises a notification of the log: its originator, its version and a
    digest of the stored event (which holds the action's place in the hash chain)."""
    state = note.state if isinstance(note.state, (bytes, bytearray, memoryview)) else str(note.state).encode()
    digest = hashlib.sha256(bytes(state)).hexdigest()  # (a row rewritten as text by hand is still recognised)
    return f"{note.originator_id}:{note.originator_version}:{digest}"


class ReadModel:
    """Writes and reads the read-model tables of one database file."""

    def __init__(self, ledger: EventLog, path: str | Path):
        self.ledger = ledger
        self.tables = open_tables(ledger, path)
        self._db: Any = None
        self._fold = _Fold(ledger)
        self.repaired: str | None = None
        """Why the last catch-up rebuilt the tables (they did not follow the log), or None."""
        self._broken: str | None = None  # found on opening: a table was missing
        self.distrusted = False
        """Were the tables found not to follow the log, and not yet emptied (``_reset``)?
        Then no one reads them as they stand (the table server, while the file is locked)."""
        self.stopped: list[Break] = []
        """The campaigns the last catch-up stopped following (``damaged``), for the caller
        to report: their log cannot be followed from an action on, the others go on."""
        self._ensure_tables()

    @property
    def db(self) -> Any:
        """sqlite-utils over the reading connection of an SQLite file, for browsing the
        tables (``query``, ``rows_where``...): made on first use, so that recording an
        action does not import it."""
        if self._db is None:
            import sqlite_utils

            assert isinstance(self.tables, SQLiteTables), "sqlite-utils browses SQLite files only"
            self._db = sqlite_utils.Database(self.tables.conn, execute_plugins=False, recursive_triggers=False)
        return self._db

    def read(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """The rows a read of the tables gives, as tuples (inside ``reading`` if it must
        agree with other reads). SQL in SQLite's spelling (``projections.tables``)."""
        return self.tables.read(sql, params)

    def rows(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        """The rows a read of the tables gives, as dicts."""
        return self.tables.rows(sql, params)

    def scan(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> Iterator[dict[str, Any]]:
        """The rows a read gives as dicts, one at a time: a query that stops after N rows
        (``--limit``) reads no more than it needs, however long the table."""
        for names, row in self.tables.scan(sql, params):
            yield dict(zip(names, row))

    def _one(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> tuple[Any, ...] | None:
        found = self.tables.read(sql, params)
        return found[0] if found else None

    @property
    def _campaigns(self) -> dict[UUID, Campaign]:
        """The campaigns as the last catch-up left them (a cache; cleared when in doubt)."""
        return self._fold.campaigns

    @contextmanager
    def _writing(self) -> Iterator[Writer]:
        """One write transaction on the event store's own connection (SQLite: begun as a
        writer, the process's single writing connection), so rows commit with their
        position. Never reach the recorder inside it."""
        with self.tables.writing() as db:
            yield db

    def reading(self) -> Any:
        """One read transaction on the tables: whatever is read inside it is one moment's
        (rows and position together), however other processes commit meanwhile."""
        return self.tables.reading()

    def close(self) -> None:
        self.tables.close()

    # -- schema -----------------------------------------------------------------
    def _ensure_tables(self) -> None:
        """Creates the tables a file lacks: all of them in a new file. In a file that had
        them, a missing table means the rows cannot be trusted: they are rebuilt on the
        next catch-up (``_broken``). Then adds the position's marks to an older file."""
        present = self.tables.table_names()
        missing = [table for table in (POSITION, *TABLES) if table not in present]
        if missing:
            lost = len(missing) < len(SCHEMAS)  # a file that had the tables lost some: not a new file
            with self._writing() as db:
                for table in missing:
                    self.tables.create(db, table, *SCHEMAS[table])
                _create_indexes(self.tables, db)
                db.execute(f"INSERT OR IGNORE INTO [{POSITION}] (name, position) VALUES (?, 0)", [NAME])
                if lost:  # kept in the file too: rows before the position's start are distrusted by the
                    # next opening, should this one stop before its catch-up rebuilds them
                    db.execute(f"UPDATE [{POSITION}] SET position = 0 WHERE name = ?", [NAME])
            if lost:
                self._broken = _("table {table} was missing").format(table=missing[0])
        self._mend_columns()
        self.witnessed = "witnesses" in self.tables.column_names("card_actions")  # else kept by an older ledger
        present = self.tables.index_names()
        if not self.witnessed or set(INDEX_NAMES) - present or present & set(OBSOLETE_INDEXES):
            # an older ledger's file (or a cut-short rebuild): the column, then the indexes
            try:
                with self._writing() as db:
                    # a write first: a file this process may only read refuses it here, before
                    # any pass over a table
                    db.execute(f"UPDATE [{POSITION}] SET position = position WHERE name = ?", [NAME])
                    if "witnesses" not in self.tables.column_names("card_actions", db):
                        db.execute("ALTER TABLE [card_actions] ADD COLUMN witnesses TEXT")
                self.witnessed = True
                _fill_witnesses(self._writing)
                with self._writing() as db:
                    _create_indexes(self.tables, db)
            except FileBusy:  # passing: another program writes just now (the next opening adds them)
                raise
            except StoreError:  # a file this process may only read: its rows are read as they stand
                pass
        self._add_marks()

    def _mend_columns(self) -> None:
        """A table that lost a column no ledger's file lacks (dropped or renamed by hand) is
        made again, empty, and its rows rebuilt on the next catch-up (``_broken``), as a
        missing table is: read as it stood, it was an unexpected failure (a QA pass:
        ``KeyError: 'seen'``), and rebuild could not write it. ``card_actions.witnesses``
        is an older ledger's file, which the caller brings up to date."""
        def lost_columns(db: Writer | None = None) -> list[tuple[str, str]]:
            have = self.tables.columns(TABLES, db)  # one catalog query on PostgreSQL
            return [(table, column) for table in TABLES for column in SCHEMAS[table][0]
                    if column not in have[table] and (table, column) != ("card_actions", "witnesses")]

        if not lost_columns():
            return
        with self._writing() as db:
            lost = lost_columns(db)  # again, as a writer: another process opening may have mended it
            if not lost:
                return
            for table in dict.fromkeys(table for table, _column in lost):
                db.execute(f"DROP TABLE [{table}]")
                self.tables.create(db, table, *SCHEMAS[table])
            _create_indexes(self.tables, db)
            db.execute(f"UPDATE [{POSITION}] SET position = 0 WHERE name = ?", [NAME])
            self._broken = self._broken or _("column {column} of {table} was missing").format(
                column=lost[0][1], table=lost[0][0])

    def _add_marks(self) -> None:
        """Migration of a file made before the position carried its marks: the columns,
        and the mark of the notification its position reached, trusted once as the file
        stands (rebuilding at the upgrade would cost the whole log). One mark column
        without the other is no older file but an edited one: rebuilt."""
        columns = self.tables.column_names(POSITION)
        absent = [column for column in MARKS if column not in columns]
        if not absent:
            return
        if len(absent) < len(MARKS):
            self._broken = self._broken or _("column {column} of {table} was missing").format(
                column=absent[0], table=POSITION)
        position = self.position()
        mark = self._mark_at(position) if isinstance(position, int) else None
        with self._writing() as db:
            have = self.tables.column_names(POSITION, db)
            for column in MARKS:
                if column not in have:
                    db.execute(f"ALTER TABLE [{POSITION}] ADD COLUMN [{column}] TEXT")
            if "mark" not in have:
                db.execute(f"UPDATE [{POSITION}] SET mark = ? WHERE name = ? AND position = ?", [mark, NAME, position])

    def position(self) -> int:
        row = self._one(f"SELECT position FROM [{POSITION}] WHERE name = ?", [NAME])
        return row[0] if row else 0

    def last_history_seq(self, slug: str) -> int | None:
        """The latest seq the history table holds for campaign ``slug`` (None: no row):
        a log whose tail was cut ends before it. A seq edited into something no ledger
        writes (text) is no seq here: the check of the rows names that row (a QA pass:
        ``verify`` compared the text with the log's count and failed unexpectedly)."""
        found = self.read("SELECT max(seq) FROM history WHERE campaign = ?", [slug])[0][0]  # one step of the index
        if found is None or isinstance(found, int):
            return found
        return self.read("SELECT max(seq) FROM history WHERE campaign = ? AND typeof(seq) = 'integer'", [slug])[0][0]

    # -- trusting the tables ---------------------------------------------------------
    @property
    def mended(self) -> bool:
        """Was a table made again on opening (missing, or lacking a column), its rows not
        yet rebuilt? The next catch-up rebuilds them and says why (``repaired``)."""
        return self._broken is not None

    def position_problem(self) -> str | None:
        """Why the stored position cannot be trusted, or None: it is missing, outside the
        log, no longer at the stored event it was applied from, or 0 with rows already
        written. O(1): a few one-row reads."""
        if self._broken is not None:
            return self._broken
        with self.reading():
            row = self._one(f"SELECT position, mark, last_action FROM [{POSITION}] WHERE name = ?", [NAME])
            rows_at_start = row is not None and row[0] == 0 and self._any_rows()
        if row is None:
            return _("the position is missing")
        position, mark, last_action = row
        if not isinstance(position, int) or position < 0:
            return _("position {position!r} is not a place in the log").format(position=position)
        if position == 0:
            return _("rows were there before the position's first action") if rows_at_start else None
        end = self.ledger.recorder.max_notification_id() or 0  # read after the position: the log only grows
        if position > end:
            return _("position {position} is past the log's end, {end}").format(position=position, end=end)
        if mark is None:
            return _("position {position} does not say which stored event it reached").format(position=position)
        found = self._mark_at(position)
        if found is None:
            return _("the log has no notification {position}, where the position is").format(position=position)
        if found != mark:
            return _("position {position} no longer points at the stored event it was applied from").format(
                position=position)
        return _marks_disagree(position, mark, last_action)

    def refuse_cut_log(self, campaign: tuple[UUID, str] | None = None, whole_file: bool = True) -> None:
        """Refuses (``CutLog``) to show or record anything on a log that no longer holds
        actions the tables recorded, before anything is recorded on top of it (the new
        action would take a lost one's seq, and the trace would be gone). ``campaign``
        (id, slug): the campaign at hand, whose latest history row is compared with its
        log's last seq whatever the position says (two indexed one-row reads). Then the
        position: while it is where the tables left it in the log (a few one-row reads),
        no other campaign's rows can be past its log unnoticed; a position that does not
        fit the log costs a look at every campaign (``cut_log``), since catching up would
        rebuild them all. ``whole_file=False``: the campaign alone (~40 µs; the table
        server's reads, whose catch-ups refuse such a file all the same)."""
        if campaign is not None:
            cid, slug = campaign
            held = self.last_history_seq(slug)  # read before the log, which only grows meanwhile
            if isinstance(held, int) and self.ledger.last_seq(cid) < held:
                self.refuse_any_cut()
        if not whole_file:
            return
        row = self._one(f"SELECT position, mark FROM [{POSITION}] WHERE name = ?", [NAME])
        if row is not None and isinstance(row[0], int) and row[0] > 0 and row[1] is not None \
                and self._mark_at(row[0]) == row[1]:
            return  # the position is where the tables left it in the log
        self.refuse_any_cut()

    def refuse_any_cut(self) -> None:
        """Refuses (``CutLog``) a file in which any campaign lost actions the tables recorded
        (``cut_log``, O(campaigns))."""
        cut = self.cut_log()
        if cut is not None:
            slug, reason = cut
            message = _("{reason}; nothing is shown or recorded on top of it: ledger verify checks the whole record, "
                        "and ledger rebuild accepts the log as it stands").format(reason=reason)
            raise CutLog(message, slug)

    def cut_log(self) -> tuple[str, str] | None:
        """The campaign whose log lacks actions the tables recorded, and why, or None: its
        log ends before the latest seq its history holds (its tail was cut from the file,
        or an older copy of the log put back), or the log's list of campaigns no longer
        names it at all (a copy from before it began; a ledger writes a campaign's start
        and its entry in the list together), or the tables' position and last action are
        past the log's end (``_past_the_end``: the cut took the history rows too). The
        tables are then the one trace of the loss the file keeps, so catching up refuses
        rather than rebuild them; ``rebuild`` is how the log as it stands is accepted.
        O(campaigns): their names are found by skipping through the history's index, not
        by reading its rows."""
        ids = {entry.slug: entry.campaign_id for entry in self.ledger.campaigns()}
        for (slug,) in self.read(_CAMPAIGNS_IN_HISTORY):
            seq = self.last_history_seq(slug)
            if not isinstance(seq, int):
                continue
            last = self.ledger.last_seq(ids.get(slug) or self.ledger.stream_of(slug))  # (its name's, if unlisted)
            if last >= seq:  # nothing lost (a list that lost its entry alone is said where a command names it)
                continue
            if slug not in ids and last == 0:
                return slug, _("the read models recorded campaign {campaign} up to seq {seq}, but the log's list of "
                               "campaigns no longer names it: it was removed from the file (or an older copy of the "
                               "log put back)").format(campaign=slug, seq=seq)
            return slug, _cut_at(slug, last, seq)
        return self._past_the_end(ids)

    def _past_the_end(self, ids: dict[str, UUID]) -> tuple[str, str] | None:
        """A position past the log's end whose last action applied is past its campaign's
        log: the tail of the whole log was cut and its history rows deleted with it (so no
        campaign's history is past its log), and catching up would rebuild over the one
        trace left. A position moved ahead alone (its last action still in the log) is
        rebuilt, as any position that does not fit the log is (``position_problem``)."""
        row = self._one(f"SELECT position, last_action FROM [{POSITION}] WHERE name = ?", [NAME])
        if row is None or not isinstance(row[0], int):
            return None
        if row[0] <= (self.ledger.recorder.max_notification_id() or 0):  # read after: the log only grows
            return None
        applied = _action_named(row[1])
        slug = None if applied is None else next((name for name, cid in ids.items() if cid == applied[0]), None)
        if applied is None or slug is None:
            return None
        last = self.ledger.last_seq(applied[0])
        return (slug, _cut_at(slug, last, applied[1])) if last < applied[1] else None

    def fold_problem(self, recorded: Recorded | None = None) -> str | None:
        """Why the rows of the campaign acted on last differ from its fold, or None: its
        cards and zones rows against ``card_row``/``zone_row``, and its history row of
        that action. O(cards of that campaign). Checked only while the tables hold that
        campaign's latest action (if another process has moved on, the next command checks).
        ``recorded``: the action this process just recorded, whose campaign it holds."""
        last = self._last_action()
        if last is None or last[0] in self._fold.broken:  # not followed (as kept: the catch-up just read them)
            return None
        campaign = self._campaign_at(*last, recorded)
        if campaign is None:
            return None
        slug = campaign.slug
        with self.reading():
            if self._last_action() != last:
                return None
            cards = {row["id"]: row for row in self.rows("SELECT * FROM cards WHERE campaign = ?", [slug])}
            zones = {row["id"]: row for row in self.rows("SELECT * FROM zones WHERE campaign = ?", [slug])}
            logged = self._one("SELECT 1 FROM history WHERE campaign = ? AND seq = ?", [slug, campaign.version])
        if logged is None:
            return _("history row seq {seq} of campaign {campaign} is missing").format(
                seq=campaign.version, campaign=slug)
        return fold_difference(campaign, cards, zones)

    def _any_rows(self) -> bool:
        return any(self.read(f"SELECT 1 FROM [{table}] LIMIT 1") for table in TABLES)

    def _mark_at(self, position: int) -> str | None:
        """The mark of the notification at ``position`` in the log, None if there is none."""
        if position < 1:
            return None
        notes = self.ledger.recorder.select_notifications(start=position, limit=1)
        return mark_of(notes[0]) if notes and notes[0].id == position else None

    def _last_action(self) -> tuple[UUID, int] | None:
        """The campaign and seq of the last action applied, as the position stores them."""
        row = self._one(f"SELECT last_action FROM [{POSITION}] WHERE name = ?", [NAME])
        return None if row is None else _action_named(row[0])

    def _campaign_at(self, cid: UUID, seq: int, recorded: Recorded | None) -> Campaign | None:
        """Campaign ``cid`` right after action ``seq`` if it is at hand (the action just
        recorded, the last catch-up's fold, or the campaign now), else None."""
        if recorded is not None and recorded.event.originator_id == cid and recorded.campaign.version == seq:
            return recorded.campaign
        held = self._campaigns.get(cid)
        if held is not None and held.version == seq:
            return held
        try:
            now = self.ledger.campaign(cid)
        except ValueError:  # a LedgerError: no such campaign in the log (any more)
            return None
        return now if now.version == seq else None

    # -- following the log --------------------------------------------------------
    def catch_up(self, progress: Callable[[int, int], None] | None = None, batch: int = BATCH,
                 recorded: Recorded | None = None) -> int:
        """Applies every notification after the stored position; returns how many.

        Each batch moves the position first (only if no one else moved it since we
        read it) and writes its rows in the same transaction, so rows and position
        commit together or not at all, and a batch another process already applied
        is dropped (``_Raced``), never applied twice. The action this process has
        just recorded (``recorded``) is taken as the write path holds it — its event
        and the campaign right after it — instead of being decoded and folded again.

        Tables that do not follow the log (``position_problem``, or a history row
        already there for an action about to be written, or none for the action before
        it: ``_check_sequence``) are dropped and the whole log applied again;
        ``repaired`` then says why (else it is None), in English
        whatever the language spoken: it is a line for the logs of whoever keeps the file
        (``verify`` reports the same problems in the reader's language). A log the
        tables cannot follow (an action of a campaign that is not the one after its
        last, two streams of one campaign) is refused, ``DamagedRecord``: no rebuild
        would mend it."""
        return self._catch_up(progress, batch, recorded)

    def _catch_up(self, progress: Callable[[int, int], None] | None, batch: int, recorded: Recorded | None,
                  helper: Helper | None = None) -> int:
        """``catch_up``, taking the batches a rebuild's ``helper`` made where they fit."""
        self.stopped = []
        with speaking(ENGLISH):
            self.repaired = self.position_problem()
        if self.repaired is None:
            try:
                return self._follow(progress, batch, recorded, helper)
            except _Astray as astray:
                self.repaired = str(astray)
        self._reset()
        return self._follow(progress, batch, recorded, helper)

    def _follow(self, progress: Callable[[int, int], None] | None, batch: int, recorded: Recorded | None,
                helper: Helper | None = None) -> int:
        """Applies the notifications after the stored position, batch by batch: the
        rows of each made here, or by the rebuild's ``helper`` process when its next
        batch is the one right after the position (``projections.pipeline``)."""
        recorder = self.ledger.recorder
        start = self.position()
        from_start = start == 0  # the tables hold only what this follow writes (position 0: none before)
        self._fold.stops(self.damaged())  # as kept (another process's rebuild may have cleared some)
        end = recorder.max_notification_id() or 0
        done = 0
        try:
            while start < end:
                rows = None if helper is None or helper.leaves(start) else helper.rows_after(start)
                if rows is None:
                    notes = recorder.select_notifications(start=start + 1, limit=batch)
                    if not notes:
                        break
                    rows = self._fold.rows_of(notes, recorded, after=start).rows(start, notes)
                with self._writing() as db:
                    _move(db, rows)
                    stopped = _check_sequence(db, rows.history, start, from_start)
                    if stopped:
                        rows = rows.without(set(stopped))
                    # (stopped at the batch's first action: before any the batch's own fold stopped at)
                    breaks = [*(self._stopped(slug, seq) for slug, seq in stopped.items()),
                              *(found for found in rows.breaks if found.slug not in stopped)]
                    rows.write(db)
                    if breaks:
                        db.executemany(f"INSERT OR IGNORE INTO [{POSITION}] (name, position, mark, last_action) "
                                       "VALUES (?, ?, ?, ?)",
                                       [(DAMAGED + b.slug, b.seq, b.kind, b.cid) for b in breaks])
                if breaks:
                    self._learn(breaks, helper)
                start = rows.end
                done += rows.count
                if progress is not None:
                    progress(done, end)
        except BaseException:
            self._campaigns.clear()  # they may be ahead of the tables now
            raise
        return done

    def _stopped(self, slug: str, seq: int) -> Break:
        """Campaign ``slug`` stopped at its action ``seq``, which does not come right after
        the one the tables hold (``_check_sequence``)."""
        cid = self._fold.owners.get(slug) or self.ledger.stream_of(slug)
        return Break(slug, seq, ORDER, str(cid))

    def _learn(self, breaks: list[Break], helper: Helper | None) -> None:
        """This process's fold stops following the campaigns ``breaks`` name too (a
        helper's, or the tables' ``_check_sequence``), and a rebuild's helper, which
        would not know, is let go."""
        for found in breaks:
            cid = UUID(found.cid)
            self._fold.broken[cid] = found
            self._fold.campaigns.pop(cid, None)
        self.stopped.extend(breaks)
        if helper is not None:
            helper.close()

    def damaged(self) -> list[Break]:
        """The campaigns the tables stopped following (their log cannot be followed from
        an action on), each with where and why, by name."""
        return [Break(name[len(DAMAGED):], seq, kind, cid) for name, seq, kind, cid in self.read(
            f"SELECT name, position, mark, last_action FROM [{POSITION}] WHERE substr(name, 1, {len(DAMAGED)}) = ? "
            "ORDER BY name", [DAMAGED]) if len(name) > len(DAMAGED)]

    def stop_of(self, slug: str, cid: UUID) -> Break | None:
        """Where the tables stopped following campaign ``slug`` (id ``cid``), if they did:
        a stop kept under its name or its id."""
        return next((found for found in self.damaged() if found.slug == slug or found.cid == str(cid)), None)

    def refuse_damaged(self, slug: str, cid: UUID) -> None:
        """Refuses (``DamagedRecord``) to read rows of campaign ``slug`` (id ``cid``) if the
        tables stopped following it: they would show its record as it stood before the
        action that cannot be followed, as if nothing came after. One short range read."""
        found = self.stop_of(slug, cid)
        if found is not None:
            raise stopped_at(slug, found.seq, found.kind)

    def safe_catch_up(self, recorded: Recorded | None = None) -> int:
        """``catch_up``, tolerating another process catching up at the same time, then
        ``fold_problem``: rows of the campaign acted on last that are not its fold are
        rebuilt too. ``recorded``: the action this process just recorded (``Recorded``),
        whose event and campaign the write path already holds, so they are not read
        again. ``repaired`` says why the tables were rebuilt, or is None."""
        done, repaired = self._catch_up_retrying(recorded)
        with speaking(ENGLISH):  # a reason for ``repaired``
            problem = None if repaired else self.fold_problem(recorded)
        if problem is not None:
            self._reset()
            done, _repaired = self._catch_up_retrying(recorded)
            repaired = problem
        self.repaired = repaired
        return done

    def _catch_up_retrying(self, recorded: Recorded | None) -> tuple[int, str | None]:
        """``catch_up`` tried again while other processes win the race (five times at
        most): how many notifications it applied, and why it rebuilt (or None)."""
        repaired = None
        for _attempt in range(5):
            try:
                done = self.catch_up(recorded=recorded)
                return done, repaired or self.repaired
            except _Raced:
                repaired = repaired or self.repaired
        return 0, repaired

    def rebuild(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Drops every row and applies the whole log again, in large batches, with the
        secondary indexes dropped meanwhile and built once at the end (cheaper than
        keeping them row by row; a rebuild cut short leaves them to the next open), and
        a table an older ledger kept otherwise made again (``Tables.outdated``).
        A long log in an SQLite file is read and made into rows by a helper process
        while this one writes them (``projections.pipeline``). Returns how many stored
        events the tables now hold (from the log's first), whoever applied them."""
        from .pipeline import helper_for

        batch = REBUILD_BATCH  # the helper's and this process's alike: whose batch is whose depends on it
        helper = helper_for(self.ledger, self.tables, batch)  # started first: it only reads the log
        try:
            self._reset(accept_cut=True)
            with self._writing() as db:
                for name in self.tables.index_names(db) & set(INDEX_NAMES):
                    db.execute(f"DROP INDEX [{name}]")
                for table in TABLES:  # emptied: made again where an older ledger made it otherwise
                    if self.tables.outdated(table, db):
                        db.execute(f"DROP TABLE [{table}]")
                        self.tables.create(db, table, *SCHEMAS[table])
            try:
                return self._catch_up(progress, batch, None, helper)
            except _Raced:  # another process follows the log too (recording meanwhile): on from where it got
                self._catch_up_retrying(None)
                return self.position()  # what the tables hold, the other's batches too (not only this one's)
            finally:
                with self._writing() as db:
                    _create_indexes(self.tables, db)
        finally:
            if helper is not None:
                helper.close()

    def _reset(self, accept_cut: bool = False) -> None:
        """Drops every row and puts the position back before the log's first notification;
        refused (``CutLog``) while the rows are the one trace of actions the log lost,
        unless ``accept_cut`` (``rebuild``, the explicit way on)."""
        if not accept_cut:
            self.refuse_any_cut()
        self.distrusted = True  # until the rows are gone: a reset that meets a held lock leaves them as they were
        with self._writing() as db:
            for table in TABLES:
                db.execute(f"DELETE FROM [{table}]")
            db.execute(f"DELETE FROM [{POSITION}] WHERE name <> ?", [NAME])  # campaigns stopped: followed again
            db.execute(f"UPDATE [{POSITION}] SET position = 0, mark = NULL, last_action = NULL WHERE name = ?", [NAME])
            db.execute(f"INSERT OR IGNORE INTO [{POSITION}] (name, position) VALUES (?, 0)", [NAME])
        self._fold.forget()
        self._broken = None
        self.distrusted = False


class _Fold:
    """The campaigns as the read models fold the log, and the rows each action gives:
    shared by catching up and by ``compare_with_log``.

    An action that records who witnessed it (``seen``, ``unnamed``: every action since
    they were kept) gives its history rows by itself. In a long batch (a rebuild) it is
    decoded light (``projections.decoding``) and never folded; the cards and zones rows
    it touched are written from the campaign as it stands at the end of the batch (from
    its latest snapshot). Older actions, and short batches (a few actions to catch up,
    onto campaigns this fold holds already), are folded one by one."""

    def __init__(self, ledger: EventLog):
        self.ledger = ledger
        self.campaigns: dict[UUID, Campaign] = {}
        self.slugs: dict[UUID, str] = {}
        self.owners: dict[str, UUID] = {}  # each slug met, and the campaign id whose log it names
        self._decoders: dict[str, Callable[[bytes], Any] | None] = {}  # light decoder of each topic met
        self.broken: dict[UUID, Break] = {}
        """The campaigns this fold stopped following, each where and why (``_break``)."""
        self.last_seq: dict[UUID, int] = {}  # each campaign's last seq in the batches before, while they follow
        self._through = 0  # the notification this fold has met every one up to
        self.whole = False  # has it met every notification from the log's first? (then each campaign begins at 1)
        self.stale: set[UUID] = set()  # campaigns whose cards and zones rows a batch could not write

    def forget(self) -> None:
        """Starts again from the log's start (the tables were reset): what this fold
        met of the log before is no longer what they hold."""
        self.campaigns.clear()
        self.slugs.clear()
        self.owners.clear()
        self.broken.clear()
        self.last_seq.clear()
        self._through = 0
        self.whole = False
        self.stale.clear()

    def rows_of(self, notes: list[Any], recorded: Recorded | None = None, after: int | None = None) -> _Batch:
        """The rows of a batch of notifications (the campaign log's own are skipped).
        A short batch (a few actions to catch up) is folded onto the campaigns held:
        cheaper than settling each from its latest snapshot and the actions after it.

        A campaign whose log cannot be followed (an action that cannot be read, or that
        is not the one after its campaign's action before, here or in the batches this
        fold met before; a second stream under its name) is stopped there (``_break``):
        its rows up to the action before are given, none after, and the other campaigns
        of the file go on. ``after``: the notification the batch was read after (0: from
        the log's start; None: unknown); the fold remembers each campaign's last seq from
        batch to batch only while each is read right after the one before (notification
        ids may have gaps: PostgreSQL's, a row deleted)."""
        writer = _Batch()
        if after == 0:  # from the log's start: every campaign is met from its first action
            self.last_seq.clear()
            self.whole = True
        elif after is None or after != self._through:  # not the batch right after the last: no memory across
            self.last_seq.clear()
            self.whole = False
        if len(notes) >= LIGHT_FROM:  # msgspec and the light classes: not for a command's one action
            self._rows_light(notes, writer, recorded)
        else:
            broken = self.broken
            for note in notes:
                if broken and note.originator_id in broken:
                    writer.skip(note)
                    continue
                try:
                    if _is(recorded, note):
                        assert recorded is not None
                        self.apply(recorded.event, writer, after=recorded.campaign)
                    else:
                        self._fold_note(note, writer)
                except UNFOLDABLE as failed:
                    _campaigns_damage(failed)
                    self._rows_light([note], writer, None)  # taken as a long batch takes it (its light read),
                    # or stopped there: never the batching's choice
        self._settle(writer)
        for cid, dirty in writer.campaigns():
            if dirty.seq and cid not in self.broken:
                self.last_seq[cid] = dirty.seq
        self._through = notes[-1].id if notes else self._through if after is None else after
        return writer

    def stops(self, kept: list[Break]) -> None:
        """The campaigns stopped are those the tables keep as stopped (``ReadModel.damaged``):
        one another process followed again (its ``rebuild``) is followed again here too,
        from what the tables hold (this fold forgets what it held of it)."""
        stopped: dict[UUID, Break] = {}
        for found in kept:
            with suppress(ValueError, TypeError, AttributeError):  # a row edited into no id
                stopped[UUID(found.cid)] = found
        for cid in [cid for cid in self.broken if cid not in stopped]:
            self.last_seq.pop(cid, None)
            self.campaigns.pop(cid, None)
            self.whole = False  # met again mid-log: its next action is not its first
        self.broken = stopped

    def _break(self, note: Any, damage: DamagedRecord, writer: _Batch) -> None:
        """Stops following the campaign of ``note`` at its action, which ``damage`` says
        cannot be followed: no row of its later actions is given (``_Batch.breaks`` says
        where and why). Damage to no campaign's log is raised as it is."""
        cid, seq = note.originator_id, note.originator_version
        slug = self.slugs.get(cid) or self._listed_slug(cid) or damage.campaign
        if slug is None:
            if not _an_action(note.topic):  # no campaign's: one of the file's own logs (seats, campaigns)
                raise damage
            slug = str(cid)  # a stream of actions no campaign begins or lists: stopped under its id
        kind = STREAMS if isinstance(damage.cause, _TwoStreams) else \
            ORDER if isinstance(damage.cause, _Unfollowable) else UNREADABLE
        self.broken[cid] = found = Break(slug, seq, kind, str(cid))
        writer.breaks.append(found)
        self.campaigns.pop(cid, None)

    def _name(self, cid: UUID) -> str:
        """Campaign ``cid``'s slug as far as this fold knows it without reading its start."""
        return self.slugs.get(cid) or self._listed_slug(cid) or str(cid)

    def _listed_slug(self, cid: UUID) -> str | None:
        """The name the log's list of campaigns gives campaign ``cid`` (its own start
        could not be read), None if it names none."""
        try:
            return next((entry.slug for entry in self.ledger.campaigns() if entry.campaign_id == cid), None)
        except DamagedRecord:
            return None

    def _fold_note(self, note: Any, writer: _Batch) -> None:
        """The rows of one notification decoded as the ledger's event (the mapper: the
        quick read, else pydantic) and folded (none if it is no action)."""
        event = self.ledger.mapper.to_domain_event(note)
        if isinstance(event, ActionRecorded):
            self.apply(event, writer)

    def _rows_light(self, notes: list[Any], writer: _Batch, recorded: Recorded | None) -> None:
        """The rows of a long batch (a rebuild's): an action that records who witnessed it
        is decoded light and never folded, its history rows made here and the cards and
        zones it touched marked for ``_settle``; any other action is folded (``apply``),
        and so is one the light decoder refuses where pydantic may not (``decoding``).
        An action that is not the one after its campaign's action before in the batch
        is refused (``out_of_order``).

        The hot loop of a rebuild, so it takes few steps per action: what it uses is
        looked up before it, the campaign of the action before is held, and one pass over
        the changes gives both the cards touched (as ``ActionRecorded.cards_touched``
        does: the named cards, each change's, each redirect's) and the containers whose
        cards may have moved. Its rows are made by ``_Batch.add_action``, as a folded
        action's are (tests/test_rebuild.py compares them)."""
        from . import decoding

        decoders = self._decoders
        card_kind, order_kind, hero_kind = decoding.CARD, decoding.ORDER, decoding.HERO
        light_time, add_action = decoding.light_time, writer.add_action
        summarise = summary if language() == ENGLISH else stored_summary  # the stored summary is English
        held: tuple[Any, str, _Dirty] | None = None  # the campaign of the action before: id, slug, rows
        broken, last_seq = self.broken, self.last_seq
        for note in notes:
            if broken and note.originator_id in broken:
                writer.skip(note)
                continue
            try:
                if recorded is not None and _is(recorded, note):
                    self.apply(recorded.event, writer, after=recorded.campaign)
                    continue
                topic = note.topic
                decode = decoders.get(topic, _UNSEEN)
                if decode is _UNSEEN:
                    decode = decoders[topic] = _light_decoder(decoding, topic)
                try:
                    action = None if decode is None else decode(note.state)
                    time = None if action is None else light_time(action.timestamp)
                except msgspec.DecodeError:  # stricter than pydantic ("1" for 1), whose output the hash covers
                    action = None
                if action is None or action.seen is None or action.unnamed is None:  # no action, or one to fold
                    if decode is not None or not decoding.is_other_record(topic):  # (an unknown topic: unreadable)
                        self._fold_note(note, writer)
                    continue
                cid = action.originator_id = note.originator_id
                seq = action.originator_version = note.originator_version
                if held is None or held[0] is not cid:
                    first = writer.entry(cid)
                    if not first.seq and cid not in last_seq and self.whole and seq != 1:  # it must begin at 1
                        raise out_of_order(self._name(cid), seq, None)
                    held = (cid, self._slug(cid), first)
                _cid, slug, dirty = held
                before = dirty.seq or last_seq.get(cid)  # the campaign's action before, in this batch or the last
                if before is not None and seq != before + 1:  # the one comparison
                    raise out_of_order(slug, seq, before)
                dirty.seq, dirty.campaign = seq, None
                dirty.light += 1
                containers = dirty.containers
                touched = set(action.named_cards())
                for change in action.changes:
                    touched.update(change.cards())
                    kind = type(change)
                    if kind is card_kind:
                        containers.update((change.was.at, change.now.at))
                    elif kind is order_kind:
                        containers.add(change.stack)
                    elif kind is hero_kind:
                        dirty.heroes.add(change.hero)
                for redirect in action.redirects:
                    touched.add(redirect.card)
                dirty.touched.update(touched)
                add_action(slug, action, touched, action.seen, action.unnamed, time, summarise(action))
            except UNFOLDABLE as failed:  # unreadable, out of order, or no fold takes it (a move from nowhere…)
                self._break(note, _campaigns_damage(failed), writer)
                writer.skip(note)
                held = None

    def _campaign_before(self, event: ActionRecorded) -> Campaign | None:
        cid = event.originator_id
        if isinstance(event, CampaignStarted):
            return None
        campaign = self.campaigns.get(cid)
        if campaign is None or campaign.version != event.seq - 1:
            campaign = self.ledger.campaign(cid, at=event.seq - 1, checked=False)
            self.campaigns[cid] = campaign
        return campaign

    def apply(self, event: ActionRecorded, writer: _Batch, after: Campaign | None = None) -> None:
        """The rows of one action. ``after``: the campaign right after it, as the
        write path holds it (read only; it stays the write path's). An action that does
        not come right after the one before of its campaign in this batch is refused
        (``out_of_order``; ``_check_sequence`` checks each batch's first)."""
        before = writer.entry(event.originator_id).seq or self.last_seq.get(event.originator_id)
        if before is None and self.whole and event.seq != 1:  # met from the log's start: it must begin at 1
            before = 0
        if before is not None and event.seq != before + 1:
            raise out_of_order(self._name(event.originator_id), event.seq, before or None)
        if after is None:
            campaign = self.ledger.project(self._campaign_before(event), [event])  # the one fold
            assert campaign is not None
            self.campaigns[event.originator_id] = campaign
        else:
            campaign = after
            self.campaigns.pop(event.originator_id, None)  # not ours to fold further
        self._own(campaign.id, campaign.slug)
        touched = event.cards_touched()
        if event.seen is not None and event.unnamed is not None:  # recorded with the action
            seen, unnamed = event.seen, event.unnamed
        else:  # an action recorded before they were kept: worked out from the table
            seen, unnamed = witnessed(event, campaign, viewers_of(campaign), owned=after is None)
        writer.add_action(campaign.slug, event, touched, seen, unnamed, event.timestamp.isoformat(),
                          stored_summary(event))
        dirty = writer.dirty(campaign.id, event.seq, campaign)
        if isinstance(event, CampaignStarted):
            dirty.zones.update(campaign.zones())
        for change in event.changes:
            if isinstance(change, HeroChanged):  # a hero who joins or leaves brings or takes their zones
                dirty.zones.update(campaign.format.zones((change.hero,)))
        if isinstance(event, CampaignStarted):
            dirty.cards.update(campaign.catalog.ids())
            return
        dirty.follow(campaign, touched, event.containers_touched())

    def _slug(self, cid: UUID) -> str:
        """The slug of campaign ``cid`` (read from its first action once)."""
        slug = self.slugs.get(cid)
        if slug is None:
            slug = self.ledger.campaign(cid, at=1, checked=False).slug
            self._own(cid, slug)
        return slug

    def _own(self, cid: UUID, slug: str) -> None:
        """Campaign ``cid`` is named ``slug``, which no other campaign of the log this
        fold has met may be: their rows would mix (refused, ``_two_streams``)."""
        if self.slugs.get(cid) == slug:
            return
        owner = self.owners.setdefault(slug, cid)
        if owner != cid:
            raise _two_streams(slug, owner, cid)
        self.slugs[cid] = slug

    def _settle(self, writer: _Batch) -> None:
        """Gives each campaign the batch acted on light its state at its last action
        there (the fold at hand, else its latest snapshot and the actions after it),
        and makes the cards and zones rows the batch's actions touched. A campaign that
        cannot be read whole there (an action edited past what the light classes read, or
        into what no fold takes) gets no cards or zones rows from this batch: not a stop,
        whose seq would depend on where the batch ends (``verify`` names the action); the
        next batch that can read it writes all of them."""
        for cid, dirty in writer.campaigns():
            try:
                if dirty.pending or (cid in self.stale and dirty.seq):
                    campaign = dirty.campaign
                    if campaign is None or campaign.version != dirty.seq:
                        held = self.campaigns.get(cid)
                        campaign = held if held is not None and held.version == dirty.seq else \
                            self.ledger.campaign(cid, at=dirty.seq, checked=False)
                        self.campaigns[cid] = campaign
                        dirty.campaign = campaign
                    if cid in self.stale:
                        self.stale.discard(cid)
                        dirty.light = _Dirty.MANY + 1  # every card and zone of it
                    dirty.zones.update(campaign.format.zones(tuple(dirty.heroes)))
                    dirty.follow(campaign, dirty.touched, dirty.containers)
                if dirty.campaign is not None:
                    dirty.make_rows()
            except UNFOLDABLE as failed:
                _campaigns_damage(failed)
                self._unsettled(cid, dirty)

    def _unsettled(self, cid: UUID, dirty: _Dirty) -> None:
        dirty.forget()
        self.campaigns.pop(cid, None)
        self.stale.add(cid)


def _json(value: Any) -> str:
    return _encode(value).decode()


_UNSEEN = object()  # a topic not met yet (its light decoder may be None)
# What folding an action edited into nonsense raises (a card or zone that is not there, a
# stack missing a card): that campaign's, not a failure of the file's.
UNFOLDABLE = (LookupError, ValueError, TypeError, AttributeError)


def _campaigns_damage(failed: Exception) -> DamagedRecord:
    """What reading or folding a campaign's action raised (``UNFOLDABLE``), as the damage
    of that campaign's record; the store's own errors (a busy or full file, which are
    ValueErrors too) are raised as they are: not the campaign's."""
    if isinstance(failed, DamagedRecord):
        return failed
    if isinstance(failed, StoreError):
        raise failed
    return DamagedRecord(str(failed), failed)


def _light_decoder(decoding: Any, topic: str) -> Callable[[bytes], Any] | None:
    """The light decoder of a topic for ``_Fold._rows_light``; None (folded) for a topic
    that is no action, is decoded with pydantic, or whose class works out the cards it
    touched otherwise than ``ActionRecorded.cards_touched`` (the loop does it inline)."""
    decode = decoding.light_decoder(topic)
    if decode is not None and decoding.light_class(event_class(topic)).cards_touched \
            is not ActionRecorded.cards_touched:
        return None
    return decode


def _an_action(topic: str) -> bool:
    """Is ``topic`` one of a campaign's actions (not a record of the file's own logs)?"""
    from .decoding import is_action

    return is_action(topic)


def _is(recorded: Recorded | None, note: Any) -> bool:
    """Is this notification the action the write path just recorded (and still holds
    the campaign right after)?"""
    return (recorded is not None and note.originator_id == recorded.event.originator_id
            and note.originator_version == recorded.seq == recorded.campaign.version)


class _Raced(Exception):
    """Another process moved the position first; this batch is dropped, not applied twice."""


class _Astray(Exception):
    """The tables do not follow the log (the message says how): they are rebuilt."""


def _create_indexes(tables: Tables, db: Writer) -> None:
    """The read models' secondary indexes (``INDEXES``), where their tables exist; an
    obsolete one is dropped (it would cost every write and serve no read)."""
    for name in OBSOLETE_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS [{name}]")
    present = tables.table_names(db)
    for name, (table, columns, rows) in INDEX_NAMES.items():
        if table in present and set(columns) <= tables.column_names(table, db):  # an older ledger's: not yet
            db.execute(f"CREATE INDEX IF NOT EXISTS [{name}] ON [{table}] ({', '.join(f'[{c}]' for c in columns)})"
                       + (f" WHERE {rows}" if rows else ""))


SEEN_BY = msgspec.json.Decoder(dict[str, list[str]]).decode
"""A history row's ``seen`` or ``unnamed``: for each card, the viewers."""
_NULL_WITNESSES = ("SELECT a.campaign, a.card, a.seq, h.seen FROM card_actions a CROSS JOIN history h "
                   "ON h.campaign = a.campaign AND h.seq = a.seq WHERE (a.campaign, a.card, a.seq) > (?, ?, ?) "
                   "AND a.witnesses IS NULL ORDER BY a.campaign, a.card, a.seq LIMIT ?")


def _fill_witnesses(writing: Callable[[], Any], chunk: int = 20_000) -> None:
    """Migration of the card_actions rows an older ledger left without their ``witnesses``
    (NULL: the column came later), from their history row's ``seen``, as a rebuild writes
    them (``witnesses_text``): read through their NULL, every such row made a seat's card
    history walk what only the referee saw (a deck's shuffles), which let a hero time out
    the card another drew. Run with the indexes' migration (once a file: a pass over the
    table), by key, a transaction a chunk, so that other writers wait for a chunk at most
    (whatever is filled meanwhile reads as it did NULL). A row whose ``seen`` cannot be read
    as the reads read it stays NULL (its reads say it is damaged)."""
    after = ("", "", -1)
    while True:
        with writing() as db:
            found = db.execute(_NULL_WITNESSES, [*after, chunk]).fetchall()
            rows = []
            for slug, card, seq, seen in found:
                with suppress(msgspec.DecodeError, TypeError):
                    rows.append((witnesses_text(SEEN_BY(seen).get(card, ())), slug, card, seq))
            if rows:
                db.executemany("UPDATE card_actions SET witnesses = ? WHERE campaign = ? AND card = ? AND seq = ?",
                               rows)
        if len(found) < chunk:
            return
        after = found[-1][:3]


def _move(db: Writer, rows: _Rows) -> None:
    """Moves the position from where the batch ``rows`` starts to its last notification,
    with its mark (and the last action applied, if the batch had one), unless another
    process moved it first (``_Raced``)."""
    moved = db.execute(
        f"UPDATE [{POSITION}] SET position = ?, mark = ?, last_action = coalesce(?, last_action) "
        "WHERE name = ? AND position = ?",
        [rows.end, rows.mark, rows.last_action, NAME, rows.start],
    ).rowcount
    if moved != 1:
        raise _Raced()


def _check_sequence(db: Writer, history: list[tuple[Any, ...]], position: int, from_start: bool) -> dict[str, int]:
    """Each campaign's first action in the batch must come right after the last one the
    tables hold of it (the fold checks the actions within a batch; across batches, and
    mid-log, the tables know the seq before): no history row may exist yet for it, and
    the row of the seq before must (seq 1 excepted). Two indexed lookups per campaign of
    the batch, in the batch's transaction, after the position moved (so no other process
    wrote them). Tables that differ are ``_Astray`` (rebuilt); when this follow wrote
    every row itself (``from_start``), it is the log that repeats a seq, skips one or
    puts it out of order: that campaign is no longer followed, from that seq (returned,
    each slug with its seq; the others go on)."""
    stopped: dict[str, int] = {}
    first: dict[str, int] = {}
    for row in history:
        if row[0] not in first:
            first[row[0]] = row[1]
    for slug, seq in first.items():
        found = db.execute("SELECT seq FROM history WHERE campaign = ? AND seq >= ? ORDER BY seq LIMIT 1",
                           [slug, seq]).fetchone()
        if found is None and (seq == 1 or db.execute("SELECT 1 FROM history WHERE campaign = ? AND seq = ?",
                                                     [slug, seq - 1]).fetchone() is not None):
            continue
        if from_start:
            stopped[slug] = seq
            continue
        with speaking(ENGLISH):  # a reason for ``repaired``
            if found is not None:
                reason = _("history row seq {seq} of campaign {campaign} is past position {position}").format(
                    seq=found[0], campaign=slug, position=position)
            else:
                reason = _("history of campaign {campaign} lacks seq {seq}, before position {position}").format(
                    seq=seq - 1, campaign=slug, position=position)
        raise _Astray(reason)
    return stopped


def out_of_order(slug: str, seq: int, before: Any) -> DamagedRecord:
    """The refusal of a log in which action ``seq`` of campaign ``slug`` comes right after
    seq ``before`` (None: first of its campaign): one of them was moved, deleted or
    repeated (a rowid swapped, a second stream under the campaign's id), and folding it
    would make rows that lie (a redo applied before its undo)."""
    if before is None:
        message = _("the log of campaign {campaign} is out of order or has a gap: it starts at seq {seq}; the file "
                    "was changed or damaged (ledger verify checks the whole record)").format(campaign=slug, seq=seq)
    else:
        message = _("the log of campaign {campaign} is out of order or has a gap: seq {seq} comes right after seq "
                    "{before}; the database was changed or damaged (ledger verify checks the whole record)").format(
            campaign=slug, seq=seq, before=before)
    return DamagedRecord(message, _Unfollowable(message), seq, campaign=slug)


def _two_streams(slug: str, one: UUID, other: UUID) -> DamagedRecord:
    """The refusal of a log in which two event streams (campaign ids) start a campaign
    named ``slug``: their rows would be one campaign's."""
    message = _("two event streams of the log are campaign {campaign} ({one} and {other}); the file was changed "
                "or damaged (ledger verify checks the whole record)").format(campaign=slug, one=one, other=other)
    return DamagedRecord(message, _TwoStreams(message), campaign=slug)


class _Unfollowable(Exception):
    """A log the read models cannot follow: the cause a ``DamagedRecord`` holds."""


class _TwoStreams(_Unfollowable):
    """Two event streams of the log under one campaign's name."""


def _marks_disagree(position: int, mark: str, last_action: str | None) -> str | None:
    """The stored event the position reached and the last action applied name the same
    campaign at two seqs (they are one action whenever the event is a campaign's)."""
    if last_action is None:
        return None
    named = _action_named(last_action)
    if named is None:
        return _("the last action applied, {value}, names no action").format(value=_shown(last_action))
    origin, _sep, rest = mark.partition(":")
    version = rest.partition(":")[0]
    if str(named[0]) != origin or str(named[1]) == version:
        return None
    return _("position {position} reached seq {seq}, yet the last action applied is seq {last}").format(
        position=position, seq=version, last=named[1])


def _cut_at(slug: str, last: int, seq: int) -> str:
    return _("the log of campaign {campaign} ends at seq {last}, but the read models recorded it up "
             "to seq {seq}: actions were removed from the file (or an older copy of the log put "
             "back)").format(campaign=slug, last=last, seq=seq)


def _action_named(text: Any) -> tuple[UUID, int] | None:
    """The campaign id and seq a ``last_action`` value names ("id:seq"), None if none."""
    try:
        cid, _sep, seq = text.rpartition(":")
        return UUID(cid), int(seq)
    except (AttributeError, ValueError):
        return None


# -- comparing rows with the fold ---------------------------------------------------------
def fold_difference(campaign: Campaign, cards: dict[str, dict[str, Any]],
                    zones: dict[str, dict[str, Any]]) -> str | None:
    """The first of ``campaign``'s stored cards and zones rows (by id) that is not its
    fold (``card_row``/``zone_row``): one line, or None when they all match."""
    positions = card_positions(campaign)
    expected_cards = {card: card_row(campaign, card, positions) for card in campaign.catalog.ids()}
    expected_zones = {zone: zone_row(campaign, zone) for zone in campaign.zones()}
    return (table_difference("cards", campaign.slug, cards, expected_cards)
            or table_difference("zones", campaign.slug, zones, expected_zones))


def table_difference(table: str, slug: str, stored: dict[Any, dict[str, Any]],
                     expected: dict[Any, dict[str, Any]], *, label: str = "",
                     order: Callable[[Any], Any] = str) -> str | None:
    """The first row (by ``order`` of its key) of one campaign in ``table`` that is
    missing, differs or is not in the log, as one line (``label`` before the key, e.g.
    ``"seq "``); None when the stored rows are the expected ones."""
    for key in sorted(set(expected) | set(stored), key=order):  # str: an edited row may hold any type
        if key not in expected:
            return _("{row} is not in the log").format(row=row_named(table, slug, f"{label}{key}"))
        problem = row_difference(partial(row_named, table, slug, f"{label}{key}"), stored.get(key), expected[key])
        if problem is not None:
            return problem
    return None


class DamagedRow(DamagedRecord):
    """A read-model row a read met that holds what no ledger writes there (edited by
    hand): named in one line, with the way out. The rows are a cache of the log, so
    ``ledger rebuild`` mends it (``verify`` names it too, and rebuilds)."""

    def __init__(self, row: dict[str, Any], slug: str, column: str, cause: BaseException, table: str = "history"):
        # Not the value: a seat of the table server may read this line, and a row's cards
        # and witnesses name cards that seat may not see.
        key = f"seq {row['seq']}" if isinstance(row.get("seq"), int) else "?"
        super().__init__(_("{row} cannot be read (its {column} holds what no ledger writes there): the read models "
                           "were changed; ledger rebuild makes them again from the log").format(
            row=row_named(table, slug, key), column=column), cause)


def differs_line(row: str, column: str) -> str:
    """"history row seq 12 of campaign north differs from the log in its summary": the
    row and the column, never the values (``row_difference``)."""
    return _("{row} differs from the log in its {column}").format(row=row, column=column)


def row_named(table: str, slug: str, key: str) -> str:
    # TRANSLATORS: a row of a read-model table, e.g. "history row seq 12 of campaign north".
    return _("{table} row {key} of campaign {campaign}").format(table=table, key=key, campaign=slug)


def row_difference(what: Callable[[], str], stored: dict[str, Any] | None, expected: dict[str, Any]) -> str | None:
    """How a stored row differs from the one the log gives (its first differing column),
    or None. ``what()`` names the row (said only when it differs); never the values: a
    ``note:`` line is shown to whoever is viewing, a seat or ``--as public`` too, and a
    card's zone or a history row's summary may name what that viewer may not see (a QA
    pass: "zone is 'discard', the log gives 'inventory:ana'"). JSON columns are compared
    by what they hold (a file written by an older ledger spaced them differently)."""
    if stored is None:
        return _("{row} is missing").format(row=what())
    for column, value in expected.items():
        held = stored.get(column)
        if held != value and not (column in JSON_COLUMNS and _same_json(held, value)):
            return differs_line(what(), column)
    return None


def _shown(value: Any, room: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= room else f"{text[:room]}..."


def _same_json(held: Any, value: Any) -> bool:
    try:
        return isinstance(held, str) and json.loads(held) == json.loads(value)
    except ValueError:
        return False


class _Dirty:
    """The cards and zones rows of one campaign a batch changed, and the campaign they
    are written from (as it stands after the batch's last action there, ``seq``).
    ``touched``, ``containers``, ``heroes``: what its light actions changed, settled
    into ``cards`` and ``zones`` once that campaign is at hand (``pending``)."""

    MANY = 200  # light actions past which every card and zone row is written again

    def __init__(self) -> None:
        self.campaign: Campaign | None = None
        self.seq = 0
        self.cards: set[str] = set()
        self.zones: set[str] = set()
        self.touched: set[str] = set()
        self.containers: set[str] = set()
        self.heroes: set[str] = set()
        self.light = 0
        self.made: tuple[list[dict[str, Any]], list[dict[str, Any]], tuple[str, list[str]]] | None = None

    @property
    def pending(self) -> bool:
        return self.light > 0

    def forget(self) -> None:
        """No cards or zones rows from this batch (its seq stays: the campaign's last action)."""
        self.campaign = None
        self.light = 0
        self.cards.clear()
        self.zones.clear()
        self.made = None

    def make_rows(self) -> None:
        """The cards and zones rows of the campaign as it stands (``made``), and the zones it
        no longer has."""
        campaign = self.campaign
        assert campaign is not None
        zones = campaign.zones()
        positions = card_positions(campaign) if self.cards else {}
        self.made = ([card_row(campaign, card, positions) for card in self.cards],
                     [zone_row(campaign, zone) for zone in self.zones if zone in zones],
                     (campaign.slug, [zone for zone in self.zones if zone not in zones]))

    def follow(self, campaign: Campaign, touched: set[str], containers: set[str]) -> None:
        """Marks the cards whose rows the changes may have changed, in ``campaign`` as it
        stands: those touched, every card of a container touched (positions shift), and
        whatever is attached to them (an attached card's zone and states follow its host)."""
        if self.light > self.MANY:
            self.cards.update(campaign.catalog.ids())
            self.zones.update(campaign.zones())
            return
        table = campaign.table
        self.zones.update(c for c in containers if host_of(c) is None)
        fresh = set(touched)
        for container in containers:
            fresh.update(table.cards_in(container))
        for card in list(fresh):
            fresh.update(table.hanging_from(card))
        self.cards.update(fresh)


UNDO, REDO = ActionUndone.action, ActionRedone.action


class _Batch:
    """Rows gathered for one transaction; cards and zones are written once each, as
    they stand at the end of the batch."""

    def __init__(self) -> None:
        self.history: list[tuple[Any, ...]] = []  # in the order of ``HISTORY``
        self.card_actions: list[tuple[str, str, int, str]] = []  # (campaign, card, seq, witnesses)
        self.undone: list[tuple[str, tuple[int, ...], int | None]] = []  # (campaign, seqs, undone_by)
        self.last: tuple[Any, int] | None = None  # campaign id and seq of its last action
        self.breaks: list[Break] = []  # the campaigns stopped in this batch (``_Fold._break``)
        self._dirty: dict[UUID, _Dirty] = {}

    def skip(self, note: Any) -> None:
        """An action of a campaign no longer followed: no row, yet the batch's last action
        (which the position's mark names, ``_marks_disagree``)."""
        self.last = (note.originator_id, note.originator_version)

    @property
    def last_action(self) -> str | None:
        """"campaign id:seq" of the batch's last action (None: it had none)."""
        return None if self.last is None else f"{self.last[0]}:{self.last[1]}"

    def dirty(self, cid: UUID, seq: int, campaign: Campaign) -> _Dirty:
        """The rows of campaign ``cid`` to write, now as after its folded action ``seq``,
        from the ``campaign`` after it (a light action leaves it to ``_Fold._settle``)."""
        entry = self.entry(cid)
        entry.seq, entry.campaign = seq, campaign
        return entry

    def entry(self, cid: UUID) -> _Dirty:
        """The rows of campaign ``cid`` to write (made on first use)."""
        entry = self._dirty.get(cid)
        if entry is None:
            entry = self._dirty[cid] = _Dirty()
        return entry

    def campaigns(self) -> list[tuple[UUID, _Dirty]]:
        return list(self._dirty.items())

    def add_action(self, slug: str, event: Any, touched: set[str], seen: dict[str, Any],
                   unnamed: dict[str, Any], time: str, summary: str) -> None:
        """The history row of one action, its card_actions rows, and what it undid or
        redid. ``time``: its timestamp as the row holds it (``isoformat``); ``summary``:
        its stored (English) summary."""
        seq, action = event.seq, event.action
        self.last = (event.originator_id, seq)
        self.history.append((slug, seq, action, event.actor, time, summary, _json(sorted(touched)),
                             _json(seen), _json(unnamed), None))
        self.card_actions.extend([(slug, card, seq, witnesses_text(seen.get(card, ()))) for card in touched])
        if action == UNDO:
            self.undone.append((slug, event.targets, seq))
        elif action == REDO:
            self.undone.append((slug, event.targets, None))

    def rows(self, start: int, notes: list[Any]) -> _Rows:
        """What the batch of ``notes`` (the notifications after position ``start``) writes."""
        dirty = [d.made for d in self._dirty.values() if d.made is not None]
        last = notes[-1]
        return _Rows(
            start=start, end=last.id, mark=mark_of(last), count=len(notes), last_action=self.last_action,
            history=self.history, card_actions=self.card_actions, undone=self.undone,
            cards=[row for cards, _zones, _gone in dirty for row in cards],
            zones=[row for _cards, zones, _gone in dirty for row in zones],
            gone=[gone for _cards, _zones, gone in dirty],
            breaks=self.breaks,
        )


@dataclass
class _Rows:
    """What one batch writes, as plain data (made in this process or in a rebuild's
    helper, ``projections.pipeline``): the position it moves from ``start`` to ``end``
    (the id of its last notification, whose ``mark`` it stores), how many notifications
    it covers, the last action applied, and its rows. ``gone``: the zones of a campaign
    the batch took away (a hero who left)."""

    start: int
    end: int
    mark: str
    count: int
    last_action: str | None
    history: list[tuple[Any, ...]]
    card_actions: list[tuple[str, str, int, str]]
    undone: list[tuple[str, tuple[int, ...], int | None]]
    cards: list[dict[str, Any]]
    zones: list[dict[str, Any]]
    gone: list[tuple[str, list[str]]]
    breaks: list[Break] = field(default_factory=list)

    def without(self, slugs: set[str]) -> _Rows:
        """These rows but none of the campaigns ``slugs``, whose actions in this batch
        the tables cannot take (``_check_sequence``)."""
        return replace(
            self,
            history=[row for row in self.history if row[0] not in slugs],
            card_actions=[row for row in self.card_actions if row[0] not in slugs],
            undone=[row for row in self.undone if row[0] not in slugs],
            cards=[row for row in self.cards if row["campaign"] not in slugs],
            zones=[row for row in self.zones if row["campaign"] not in slugs],
            gone=[(slug, zones) for slug, zones in self.gone if slug not in slugs],
        )

    def write(self, db: Writer) -> None:
        for slug, zones in self.gone:
            if zones:
                db.execute(f"DELETE FROM zones WHERE campaign = ? AND id IN ({','.join('?' * len(zones))})",
                           [slug, *zones])
        for table, rows in (("cards", self.cards), ("zones", self.zones)):
            if rows:
                db.executemany(UPSERTS[table], rows)
        if self.history:
            db.executemany(INSERTS["history"], self.history)
        if self.card_actions:
            db.executemany(INSERTS["card_actions"], self.card_actions)
        if self.undone:  # in log order: a redo clears what an undo set
            db.executemany("UPDATE history SET undone_by = ? WHERE campaign = ? AND seq = ?",
                           [(undone_by, slug, seq) for slug, seqs, undone_by in self.undone for seq in seqs])


def witnesses_text(viewers: Any) -> str:
    """The viewers who saw a card take part in an action, as a card_actions row keeps
    them: ``,public,ana,`` (each between commas, so that ``LIKE '%,ana,%'`` finds one;
    ``REFEREE_ONLY`` for nobody but the referee)."""
    return REFEREE_ONLY + "".join(f"{viewer}," for viewer in viewers)


def card_positions(campaign: Campaign) -> dict[str, int]:
    """Each card's index in its container (a zone's list, or what hangs from a host), for
    ``card_row``: one pass over the table, where asking each card's list would cost a
    pass over that list a card (a catalog of 40,000 cards in the box: 12 s an action)."""
    return {card: i for cards in campaign.table.stacks.values() for i, card in enumerate(cards)}


def card_row(campaign: Campaign, card: str, positions: dict[str, int] | None = None) -> dict[str, Any]:
    """The cards row of ``card``; ``positions``: ``card_positions`` of the same campaign,
    for the rows of many cards (else its container's list is searched)."""
    table = campaign.table
    data = campaign.card(card)
    host = table.host(card)
    position = positions[card] if positions is not None else table.cards_in(table.where[card]).index(card)
    return {
        "campaign": campaign.slug, "id": card, "suit": str(data.suit), "name": data.name,
        "zone": table.zone_of(card), "position": position,
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
