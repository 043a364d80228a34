"""The full check of the read models for ``ledger verify``: every row the tables hold,
compared with the rows the log gives.

The rows are computed by the very code that writes them (``_Fold.rows_of``, the
same fold and ``apply`` as catching up), batch by batch, so memory stays flat however
long the log: a batch's history and card_actions rows are compared with the stored
rows of those seqs, ``undone_by`` at the end (a later undo sets it), and the cards
and zones rows against each campaign's final fold. The tables are read in one read
transaction, so another process writing meanwhile is never taken for a difference.
The log is reached only through eventsourcing's recorder.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ledger.i18n import _

from .readmodel import (
    BATCH,
    HISTORY,
    ReadModel,
    _Batch,
    _Fold,
    differs_line,
    fold_difference,
    out_of_order,
    row_named,
    table_difference,
)
from .source import EventLog

UNDONE = "undone_by"
CARDS_AT_ONCE = 500  # card ids per lookup (SQLite builds before 3.32 take 999 parameters at most)


def compare_with_log(model: ReadModel, log: EventLog | None = None, batch: int = BATCH,
                     campaign: str | None = None) -> str | None:
    """A line naming the first read-model row that differs from the log (or is missing,
    or is not in the log), e.g. ``history row seq 12 of campaign north differs from the
    log in its summary`` (never the values); or what is wrong with the position; None when every
    table matches the log up to the position. ``log``: the event log to fold (default:
    the model's own). ``campaign``: the rows of that campaign only (``verify`` of it:
    another campaign's damaged record is that campaign's verify's finding), and rows of
    a campaign the log does not hold at all."""
    log = log or model.ledger
    with model.reading():
        problem = model.position_problem()
        if problem is not None:
            return problem
        comparison = _Comparison(model, campaign)
        fold = _Fold(log)
        after = 0
        for notes in _notifications(log, model.position(), batch):
            problem = comparison.batch(fold.rows_of(notes, after=after))
            after = notes[-1].id
            if problem is not None:
                return problem
        return comparison.finish(fold)


def _notifications(log: EventLog, position: int, batch: int) -> Iterator[list[Any]]:
    """The log's notifications up to ``position``, a batch at a time."""
    start = 1
    while start <= position:
        notes = log.recorder.select_notifications(start=start, limit=batch, stop=position)
        if not notes:
            return
        yield notes
        start = notes[-1].id + 1


class _Comparison:
    """The stored rows compared with the log's as the batches come: what it has seen
    of each campaign (its last seq, how many rows) and the ``undone_by`` the log gives
    so far (set by later actions, compared at the end)."""

    def __init__(self, model: ReadModel, campaign: str | None = None):
        self.model = model
        self.campaign = campaign  # the one campaign compared (None: every one)
        self.named: set[str] = set()  # every campaign the log gave rows of
        self.last: dict[str, int] = {}  # campaign -> last seq the log gave
        self.undone: dict[tuple[str, int], int | None] = {}  # (campaign, seq) -> undone_by, where an undo/redo set it
        self.cards: dict[str, list[str]] = {}  # campaign -> every card its card_actions rows name

    def batch(self, writer: _Batch) -> str | None:
        """The first row of this batch's history or card_actions that is not the stored one.
        A campaign whose first action in the batch does not come right after its last in
        the batches before is a log out of order (``DamagedRecord``): the fold is from the
        log's start, so the log is to blame, not the tables."""
        by_campaign: dict[str, list[dict[str, Any]]] = {}
        for row in writer.history:
            self.named.add(row[0])
            if self._compared(row[0]):
                by_campaign.setdefault(row[0], []).append(dict(zip(HISTORY, row)))
        actions: dict[str, dict[tuple[str, int], str]] = {}
        for slug, card, seq, witnesses in writer.card_actions:
            if self._compared(slug):
                actions.setdefault(slug, {})[(card, seq)] = witnesses
        for slug, rows in by_campaign.items():
            low, high = rows[0]["seq"], rows[-1]["seq"]
            if low != self.last.get(slug, 0) + 1:  # the fold checked the rest of the batch
                raise out_of_order(slug, low, self.last.get(slug))
            problem = (self._history(slug, rows, low, high)
                       or self._card_actions(slug, actions.get(slug, {}), low, high))
            if problem is not None:
                return problem
            self.last[slug] = high
        for slug, seqs, undone_by in writer.undone:  # in log order: a redo clears what an undo set
            if self._compared(slug):
                self.undone.update(((slug, seq), undone_by) for seq in seqs)
        return None

    def _compared(self, slug: str) -> bool:
        return self.campaign is None or slug == self.campaign

    def _history(self, slug: str, rows: list[dict[str, Any]], low: int, high: int) -> str | None:
        stored = {row["seq"]: row for row in self.model.rows(
            "SELECT * FROM history WHERE campaign = ? AND seq BETWEEN ? AND ?", [slug, low, high])}
        given = {row["seq"]: {k: v for k, v in row.items() if k != UNDONE} for row in rows}
        return table_difference("history", slug, stored, given, label="seq ",
                                order=lambda seq: (type(seq).__name__, seq))  # in seq order

    def _card_actions(self, slug: str, given: dict[tuple[str, int], str], low: int, high: int) -> str | None:
        """The batch's rows against the stored ones of those seqs: looked up card by card
        (the key is campaign, card, seq), every card the table names for the campaign,
        so that a batch costs its own rows, not a walk through the campaign's. A row an
        older ledger wrote says nothing of its witnesses (NULL): its key alone is compared."""
        cards = self.cards.get(slug)
        if cards is None:
            cards = self.cards[slug] = [card for (card,) in self.model.read(
                "SELECT DISTINCT card FROM card_actions WHERE campaign = ?", [slug])]
        stored: dict[tuple[str, int], Any] = {}
        for at in range(0, len(cards), CARDS_AT_ONCE):
            stored.update(((card, seq), witnesses) for card, seq, witnesses in self.model.read(
                *card_actions_between(slug, cards[at:at + CARDS_AT_ONCE], low, high, self.model.witnessed)))
        for card, seq in sorted(given.keys() ^ stored.keys(), key=lambda pair: (pair[1], str(pair[0]))):
            if (card, seq) in given:
                return _("card_actions row ({card}, seq {seq}) of campaign {campaign} is missing").format(
                    card=card, seq=seq, campaign=slug)
            return _("card_actions row ({card}, seq {seq}) of campaign {campaign} is not in the log").format(
                card=card, seq=seq, campaign=slug)
        for (card, seq), witnesses in sorted(given.items(), key=lambda item: (item[0][1], str(item[0][0]))):
            if stored[(card, seq)] not in (None, witnesses):
                return _("card_actions row ({card}, seq {seq}) of campaign {campaign} names other witnesses than "
                         "the log").format(card=card, seq=seq, campaign=slug)
        return None

    def finish(self, fold: _Fold) -> str | None:
        """After the last batch: rows outside what the log gave, ``undone_by``, and the
        cards and zones rows against each campaign's final fold."""
        return self._stopped(fold) or self._rows_beyond() or self._undone() or self._folds(fold)

    def _stopped(self, fold: _Fold) -> str | None:
        """The campaigns the tables stopped following, and where, against those the fold
        of the log stops at (``_Fold._break``)."""
        stored = {found.slug: found.seq for found in self.model.damaged()}  # every campaign's (a few rows)
        given: dict[str, int] = {}
        for found in fold.broken.values():  # in the order found: the tables keep a name's first stop
            given.setdefault(found.slug, found.seq)
        for slug in sorted(stored.keys() | given.keys()):
            held, logged = stored.get(slug), given.get(slug)
            if held == logged:
                continue
            if held is None:
                return _("the read models do not say they stopped following campaign {campaign} at seq {logged}, where "
                         "its log cannot be followed").format(campaign=slug, logged=logged)
            if logged is None:
                return _("the read models say they stopped following campaign {campaign} at seq {stored}, but its log "
                         "can be followed").format(campaign=slug, stored=held)
            return _("the read models say they stopped following campaign {campaign} at seq {stored}, but its log "
                     "cannot be followed from seq {logged}").format(campaign=slug, stored=held, logged=logged)
        return None

    def _rows_beyond(self) -> str | None:
        """Rows of a campaign the log does not hold, or of seqs outside 1..its last."""
        for table, key in (("history", "seq"), ("card_actions", "seq"), ("cards", "id"), ("zones", "id")):
            for slug, in self.model.read(f"SELECT DISTINCT campaign FROM [{table}] ORDER BY campaign"):
                if slug in self.named and slug not in self.last:  # a campaign not compared
                    continue
                if slug not in self.last:
                    first = self.model.read(f"SELECT min({key}) FROM [{table}] WHERE campaign = ?", [slug])[0]
                    return _not_in_log(table, _named(key, first[0]), slug)
                if key == "seq":
                    outside = self.model.read(
                        f"SELECT seq FROM [{table}] WHERE campaign = ? AND (seq < 1 OR seq > ?) ORDER BY seq LIMIT 1",
                        [slug, self.last[slug]])
                    if outside:
                        return _not_in_log(table, _named(key, outside[0][0]), slug)
        return None

    def _undone(self) -> str | None:
        """Every history row's ``undone_by`` as the log's undos and redos left it."""
        stored: dict[tuple[str, int], int] = {}
        for slug, seq, undone_by in self.model.read(
                f"SELECT campaign, seq, {UNDONE} FROM history WHERE {UNDONE} IS NOT NULL ORDER BY campaign, seq"):
            if not self._compared(slug):
                continue
            if self.undone.get((slug, seq)) != undone_by:
                return _undone_line(slug, seq)
            stored[(slug, seq)] = undone_by
        for (slug, seq), undone_by in sorted(self.undone.items()):
            if undone_by is not None and (slug, seq) not in stored:
                return _undone_line(slug, seq)
        return None

    def _folds(self, fold: _Fold) -> str | None:
        for campaign in sorted(fold.campaigns.values(), key=lambda c: c.slug):
            slug = campaign.slug
            if not self._compared(slug):
                continue
            cards = {row["id"]: row for row in self.model.rows("SELECT * FROM cards WHERE campaign = ?", [slug])}
            zones = {row["id"]: row for row in self.model.rows("SELECT * FROM zones WHERE campaign = ?", [slug])}
            problem = fold_difference(campaign, cards, zones)
            if problem is not None:
                return problem
        return None


def card_actions_between(slug: str, cards: list[str], low: int, high: int,
                         witnessed: bool = True) -> tuple[str, list[Any]]:
    """The SQL (and its parameters) of the card_actions rows of these cards with seqs from
    ``low`` to ``high``: one key lookup per card (tests/test_query_plans.py checks it).
    ``witnessed``: the table has its witnesses (an older ledger's read-only file has not)."""
    return (f"SELECT card, seq, {'witnesses' if witnessed else 'NULL AS witnesses'} FROM card_actions "
            "WHERE campaign = ? "
            f"AND card IN ({', '.join('?' * len(cards))}) "
            "AND seq BETWEEN ? AND ?", [slug, *cards, low, high])


def _named(key: str, value: Any) -> str:
    return f"seq {value}" if key == "seq" else str(value)


def _not_in_log(table: str, key: str, slug: str) -> str:
    return _("{table} row {key} of campaign {campaign} is not in the log").format(table=table, key=key, campaign=slug)


def _undone_line(slug: str, seq: int) -> str:
    return differs_line(row_named("history", slug, f"seq {seq}"), UNDONE)
