"""Checking a campaign's record, and moving it between files.

``verify`` reads the stored actions in order, page by page, through eventsourcing's
recorder, and for each one checks that it is the next seq, that it decodes, that its
hash continues the chain, and that deciding its recorded command again on the state
before it (with its recorded seed, under the rules it was recorded under) gives back
exactly the stored event — so every action is checked against the rules again — and
that every committed shuffle order matches the order recorded. It names the first
bad seq.

``export`` writes the log as JSON Lines, one action per line; ``import_campaign``
verifies a file in a scratch database before anything reaches the target file.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from .application import Ledger, campaign_uuid, decide_event
from .campaign import Campaign
from .commands import from_record
from .commitments import holds
from .errors import BadCatalog, LedgerError, StoreError
from .events import ActionRecorded, CampaignStarted
from .integrity import GENESIS, chain_hash, sealed
from .play import Play
from .rules.fair_play import decided_under

PAGE = 1000


@dataclass(frozen=True)
class Report:
    campaign: str
    actions: int
    bad_seq: int | None = None
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.bad_seq is None

    def as_dict(self) -> dict[str, Any]:
        return {"campaign": self.campaign, "ok": self.ok, "actions": self.actions,
                "bad_seq": self.bad_seq, "reason": self.reason}


def _stored(ledger: Ledger, cid: UUID) -> Iterator[StoredEvent]:
    last = 0
    while True:
        page = ledger.recorder.select_events(cid, gt=last, limit=PAGE)
        if not page:
            return
        yield from page
        last = page[-1].originator_version


def verify(ledger: Ledger, cid: UUID, progress: Callable[[int], None] | None = None,
           take_snapshots: bool = False) -> Report:
    """Checks the whole log of a campaign (see the module's docstring); with
    ``take_snapshots`` it also stores the snapshots a replay passes (for imports)."""
    slug = "?"
    campaign: Campaign | None = None
    previous = GENESIS
    expected = 1
    for stored in _stored(ledger, cid):
        seq = stored.originator_version
        if seq != expected:
            return Report(slug, expected - 1, expected, f"seq {expected} is missing from the log")
        try:
            event = ledger.mapper.to_domain_event(stored)
        except Exception as exc:  # a changed byte can break the JSON or the model
            return Report(slug, seq - 1, seq, f"seq {seq} cannot be read ({exc.__class__.__name__})")
        if not isinstance(event, ActionRecorded):
            return Report(slug, seq - 1, seq, f"seq {seq} is not a recorded action")
        if chain_hash(previous, event) != event.hash:
            return Report(slug, seq - 1, seq, f"seq {seq} does not match its hash: it was changed or moved")
        if campaign is None:
            if not isinstance(event, CampaignStarted):
                return Report(slug, 0, seq, "the log does not begin with the campaign's start")
            campaign = ledger.project(None, [event])
            assert campaign is not None
            slug = campaign.slug
        else:
            problem = _replay(ledger, cid, campaign, event)
            if problem:
                return Report(slug, seq - 1, seq, f"seq {seq} {problem}")
        previous = event.hash
        expected += 1
        if take_snapshots and seq % ledger.SNAPSHOT_INTERVAL == 0:
            ledger.snapshot(campaign)
        if progress is not None:
            progress(seq)
    if campaign is None:
        return Report(slug, 0, 1, "the campaign has no actions")
    tail = _latest_snapshot(ledger, cid)
    if tail is not None and tail > campaign.version:
        return Report(slug, campaign.version, campaign.version + 1,
                      f"the log ends at seq {campaign.version} but seq {tail} was once recorded: actions are missing")
    return Report(slug, campaign.version)


def _replay(ledger: Ledger, cid: UUID, campaign: Campaign, event: ActionRecorded) -> str | None:
    """Decides the recorded command again; None if it gives the stored event back."""
    if event.command is None:
        return "records no command to check"
    try:
        command = from_record(event.command)
    except Exception:
        return "records a command that cannot be read"
    play = Play(campaign, command.actor, seed=event.rng, lookup=lambda seq: ledger.event(cid, seq))
    try:
        with decided_under(event.ruleset):  # the rules it was recorded under
            again = decide_event(play, command, timestamp=event.timestamp)
    except LedgerError as exc:
        play.rollback()
        return f"breaks the rules when checked again: {exc}"
    if _as_recorded_then(again, event, campaign.last_hash) != event:
        play.rollback()
        campaign.table.apply_all(event.changes)  # keep going consistently for the message
        return "does not replay to what was recorded"
    campaign.record(event)
    for commitment in event.commitments:  # each committed order is the order recorded
        if not holds(commitment, campaign.table.cards_in(commitment.stack)):
            return f"commits to an order of {commitment.stack} that is not the order it recorded"
    return None


def _as_recorded_then(again: ActionRecorded, stored: ActionRecorded, previous: str) -> ActionRecorded:
    """The action decided again, without the facts a ledger of the stored action's
    time did not record yet (its ``later`` fields the stored event leaves empty),
    sealed again after the previous action's hash."""
    fields = type(stored).model_fields
    empty = {name: fields[name].get_default() for name in stored.later
             if getattr(stored, name) == fields[name].get_default() != getattr(again, name)}
    return sealed(previous, again.model_copy(update=empty)) if empty else again


def _latest_snapshot(ledger: Ledger, cid: UUID) -> int | None:
    if ledger.snapshots is None:
        return None
    found = list(ledger.snapshots.recorder.select_events(cid, desc=True, limit=1))
    return found[0].originator_version if found else None


# -- export / import -------------------------------------------------------------------
def export(ledger: Ledger, cid: UUID, out: IO[str]) -> int:
    """Writes the campaign's log as JSON Lines: one action per line."""
    count = 0
    for stored in _stored(ledger, cid):
        line = {
            "campaign_id": str(cid), "seq": stored.originator_version,
            "type": stored.topic.rsplit(":", 1)[-1], "topic": stored.topic,
            "event": json.loads(stored.state),
        }
        out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        count += 1
    return count


def _read_export(path: Path) -> list[StoredEvent]:
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise BadCatalog(f"{path}: no such export file") from None
    except OSError as exc:
        raise BadCatalog(f"{path}: cannot read it ({exc.__class__.__name__})") from None
    events: list[StoredEvent] = []
    cid: UUID | None = None
    with handle:
        for number, text in enumerate(handle, start=1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
                this = UUID(line["campaign_id"])
                seq, topic, state = int(line["seq"]), str(line["topic"]), line["event"]
                if not topic.startswith("ledger.events:") or not isinstance(state, dict):
                    raise ValueError
            except (ValueError, KeyError, TypeError, UnicodeDecodeError):
                raise BadCatalog(f"{path} line {number}: not an exported action") from None
            if cid is not None and this != cid:
                raise BadCatalog(f"{path} line {number}: a second campaign; an export holds one campaign")
            if seq != len(events) + 1:
                raise BadCatalog(
                    f"{path} line {number}: refused, seq {len(events) + 1} is bad: the line holds seq {seq} "
                    "(lines must hold seqs 1, 2, 3… in order)"
                )
            cid = this
            events.append(StoredEvent(originator_id=this, originator_version=seq, topic=topic,
                                      state=json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode()))
    if not events:
        raise BadCatalog(f"{path}: holds no actions")
    return events


def import_campaign(path: str | Path, target: str | Path) -> Report:
    """Creates a campaign from an export, after verifying it in a scratch database.
    A tampered file is refused naming the first bad seq; the target is untouched."""
    path, target = Path(path), Path(target)
    stored = _read_export(path)
    cid = stored[0].originator_id
    scratch = target.with_name(f".{target.name}.import-{uuid.uuid4().hex[:8]}.db")
    trial = Ledger.open(scratch, create=True)
    try:
        trial.recorder.insert_events(stored)
        report = verify(trial, cid, take_snapshots=True)
        if not report.ok:
            raise BadCatalog(f"{path}: refused, seq {report.bad_seq} is bad: {report.reason}")
        first = trial.event(cid, 1)
        assert isinstance(first, CampaignStarted)
        if campaign_uuid(first.slug) != cid:
            raise BadCatalog(f"{path}: the campaign id does not belong to campaign {first.slug!r}")
        ledger = Ledger.open(target, create=True)
        try:
            if any(e.slug == first.slug for e in ledger.campaigns()):
                raise StoreError(f"{target} already holds a campaign {first.slug!r}; import into another file with --db")
            entry = ledger.campaign_log.trigger_event(slug=first.slug, campaign_id=cid, name=first.name)
            ledger.recorder.insert_events([*stored, ledger.mapper.to_stored_event(entry)])
            # The snapshots the verifying replay took, so loading never replays from the start.
            assert trial.snapshots is not None and ledger.snapshots is not None
            last = 0
            while page := trial.snapshots.recorder.select_events(cid, gt=last, limit=PAGE):
                ledger.snapshots.recorder.insert_events(page)
                last = page[-1].originator_version
        finally:
            ledger.close()
    finally:
        trial.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{scratch}{suffix}").unlink(missing_ok=True)
    return report
