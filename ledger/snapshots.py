"""Snapshots that are checked, not trusted.

A snapshot is a cache of the campaign's state at a seq, so that loading never replays
from the start. Someone with the database file could edit one (move a card inside
it) and every read would serve the edited table. So:

- each snapshot records the head hash it was taken at (``last_hash``) and the
  ``digest`` of its state (SHA-256 over the canonical JSON of the table and the
  undo bookkeeping);
- every action whose seq is a multiple of ``DIGEST_EVERY`` records the digest of
  the state right after it (``ActionRecorded.state_digest``), inside the hash chain:
  a snapshot taken there is anchored to the record, and editing it means editing
  the chained action too, which ``verify`` catches. From ruleset 5 that digest also
  covers the order of the heroes (``ordered``): the canonical JSON sorts keys, yet
  the order of the heroes orders each card's witnesses (and the heroes an effect
  reaches) in the actions recorded after the snapshot, so a snapshot with its heroes
  reordered (and its own digest written again) would make a ledger that loads it
  record honest actions that ``verify``, folding from the start, does not get back;
- loading checks a snapshot against the action at its seq (``unfit``); a bad one is
  ignored and the campaign is folded from the snapshot before it. So is one between the
  hundredth seqs (``off_the_grid``: the ledger takes none there, so nothing anchors it,
  and a forged table, its own digest written again, would otherwise be served until
  ``verify`` ran), and one at a hundredth seq whose action records no digest though its
  rules record them. Actions recorded under older rules (ruleset < 3, perhaps the first
  part of a log whose rules were raised later) record none, so a snapshot at one of
  their hundredth seqs is checked by its own digest and head only. ``verify`` folds
  the whole log and compares every snapshot with it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .events import ActionRecorded, LogBooks
from .fold import Table

DIGEST_EVERY = 100
"""Actions at these seqs record the digest of the state after them (the default
snapshot interval, so every snapshot the ledger takes is anchored)."""


class _Books:
    def __init__(self, live_head: int | None, redo_stack: list[int]):
        self.live_head = live_head
        self.redo_stack = redo_stack


def state_of(table: Table, live_head: int | None, redo_stack: list[int]) -> dict[str, Any]:
    """The part of a campaign's state a snapshot holds and its digest covers."""
    return {"table": table.to_dict(), "live_head": live_head, "redo_stack": list(redo_stack)}


ORDERED_FROM = 5
"""The ruleset from which the digest an action records is ``ordered``."""

ORDERED = ("heroes",)
"""The table's mappings whose order is part of the state: what an action records
follows it (the fold keeps it, and so do ``Table.to_dict``, ``Table.from_dict`` and
``Play.rollback``). The order of the stacks is not: a walk back through an action and
forward again (``ledger.witness``) may change it, and nothing recorded reads it."""


def digest(state: dict[str, Any], ordered: bool = False) -> str:
    """SHA-256 over the canonical JSON of ``state_of``'s keys; ``ordered``: and over the
    order of the table's ``ORDERED`` mappings, which the canonical JSON sorts away."""
    part = {key: state.get(key) for key in ("table", "live_head", "redo_stack")}
    if ordered:
        table = part["table"] if isinstance(part["table"], dict) else {}
        part["order"] = [list(kept) if isinstance(kept := table.get(key), dict) else kept for key in ORDERED]
    text = json.dumps(part, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digest_after(event: ActionRecorded, table: Table, books: LogBooks) -> str | None:
    """The digest ``event`` records (its changes already on ``table``; ``books``: the
    bookkeeping before it), or None at a seq that records none."""
    if event.seq % DIGEST_EVERY:
        return None
    after = _Books(books.live_head, list(books.redo_stack))
    event.keep_books(after)
    return digest(state_of(table, after.live_head, after.redo_stack), ordered=event.ruleset >= ORDERED_FROM)


def unfit(state: dict[str, Any], at: ActionRecorded) -> str | None:
    """Why a snapshot's ``state`` cannot be trusted as the state after action ``at``
    (the stored action at the snapshot's seq), or None if it checks out. (A snapshot
    ``off_the_grid`` is passed over before it is read: ``Ledger.fit_snapshot``.)"""
    if state.get("last_hash") != at.hash:
        return "was not taken at the head the log holds at its seq"
    if state.get("digest") not in (None, digest(state)):
        return "does not match its own digest (it was changed)"
    if at.state_digest is not None and at.state_digest != digest(state, ordered=at.ruleset >= ORDERED_FROM):
        return "does not match the state its seq's action recorded (it was changed)"
    if at.state_digest is None and at.ruleset >= ActionRecorded.LATER_FROM["state_digest"]:
        return "was taken where no action anchors one (its own digest proves nothing: anyone may write it again)"
    return None


def off_the_grid(seq: int) -> bool:
    """A seq where the ledger never takes a snapshot (it takes them where actions record
    their digest, every ``DIGEST_EVERY``): a snapshot there is passed over unread."""
    return seq % DIGEST_EVERY != 0
