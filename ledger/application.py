"""The ledger application: commands in, recorded actions out.

``Ledger`` opens a campaign database (SQLite by default, through eventsourcing's
recorders only, so PostgreSQL works the same), and for each command loads the
campaign (latest snapshot + the events after it, or the in-process copy fast-
forwarded), decides the action under the rules, and saves its one event. A
refused action appends nothing. Snapshots are taken every ``SNAPSHOT_INTERVAL``
actions so that loading never replays from the start.
"""

from __future__ import annotations

import contextlib
import random
import re
import sqlite3
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from uuid import NAMESPACE_URL, UUID, uuid5

import msgspec
from eventsourcing.application import AggregateNotFoundError, Application, EventSourcedLog, ProcessingEvent
from eventsourcing.persistence import IntegrityError, PersistenceError, StoredEvent
from eventsourcing.utils import get_topic
from pydantic import BaseModel

from .actions import decide
from .bounds import TEXTS, bounded
from .campaign import Campaign, make_projector
from .catalog import Catalog
from .checkpoints import Checkpoint, take
from .commands import Command
from .commitments import Commitment, commit
from .errors import (
    BadInput,
    DamagedRecord,
    FileBusy,
    LedgerError,
    OutdatedLedger,
    StoreError,
    UnknownCampaign,
    first_line,
)
from .events import (
    ActionRecorded,
    ActionRedone,
    ActionUndone,
    CampaignRegistered,
    CampaignSnapshot,
    CampaignStarted,
    CheckpointTaken,
)
from .formats import Format, standard_format
from .i18n import _
from .integrity import GENESIS, check_link, checked_chain, sealed
from .mapper import JSONTranscoder, PydanticMapper
from .play import Play
from .rulebook import RULESET
from .rules import printable_text
from .rulesets import ruleset
from .signing import Signer
from .snapshots import digest_after, off_the_grid, unfit
from .vocabulary import MASTER, PUBLIC
from .witness import recorded_facts

NAMESPACE = uuid5(NAMESPACE_URL, "https://campaign-ledger.invalid/")
CAMPAIGNS_LOG_ID = uuid5(NAMESPACE, "campaigns")
SQLITE_OWN = ("-wal", "-shm", "-journal")  # the files SQLite keeps beside a database, under its name
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:64]
    return slug or "campaign"


def campaign_names(name: str | None, slug: str | None) -> tuple[str, str]:
    """A new campaign's display name and id (the id defaults to the name, slugified)."""
    name = (name or slug or "Campaign").strip() or "Campaign"
    printable_text("--name", name)
    try:
        bounded(name, "--name", TEXTS["name"], flags=False)  # a title, as a hero's name is
    except ValueError as exc:
        raise BadInput(str(exc)) from None
    slug = slug if slug is not None else slugify(name)
    if not _SLUG.fullmatch(slug):
        raise BadInput(_("{campaign} is not a campaign id; use lower-case letters, digits and '-' (e.g. north)").format(
            campaign=repr(slug)))
    return name, slug


def campaign_uuid(slug: str) -> UUID:
    return uuid5(NAMESPACE, f"campaign:{slug}")


def checkpoint_log_id(cid: UUID) -> UUID:
    """The id of the log of checkpoints kept in the file for campaign ``cid``."""
    return uuid5(NAMESPACE, f"checkpoints:{cid}")


@dataclass(frozen=True)
class Recorded:
    """What a recorded action returns: its seq, its name and its stored event."""

    seq: int
    action: str
    event: ActionRecorded
    campaign: Campaign


class Ledger(Application):
    name = "ledger"
    is_snapshotting_enabled = True
    env: ClassVar[dict[str, str]] = {
        "PERSISTENCE_MODULE": "ledger.store:LedgerSQLiteFactory",
        "MAPPER_TOPIC": get_topic(PydanticMapper),
        "TRANSCODER_TOPIC": get_topic(JSONTranscoder),
    }
    SNAPSHOT_INTERVAL = 100
    SAVE_PATIENCE = 60.0  # seconds a command keeps retrying after losing races to other writers

    def __init__(self, env: dict[str, str] | None = None):
        try:
            super().__init__(env)
        except (PersistenceError, OSError, sqlite3.Error) as exc:
            raise StoreError(_("cannot open the campaign database ({reason})").format(reason=_reason(exc))) from None
        self._catalogs: dict[UUID, tuple[Catalog, Format, str, str]] = {}
        self._live: dict[UUID, Campaign] = {}
        self.held_checked = False
        """Check the campaign held in memory against the log's latest seq before deciding on
        it (one indexed read an action): for a long-lived process sharing the file (the table
        server), whose copy would be ahead of a log cut short behind its back and record the
        next action past a gap. A command loads the campaign afresh."""
        # The one fold, as eventsourcing's repository and the read models call it:
        # (campaign or None, events) -> campaign.
        self.project = make_projector(self._catalog_of)
        self.campaign_log: EventSourcedLog[CampaignRegistered] = EventSourcedLog(
            self.events, CAMPAIGNS_LOG_ID, CampaignRegistered
        )

    def save(self, *events: Any, **kwargs: Any) -> list[Any]:
        """eventsourcing's ``save`` for what the ledger saves: domain events, never
        aggregates (campaigns are folds of their events, snapshotted by ``snapshot``).
        The same steps, without sorting each object by two runtime protocol checks
        (``isinstance`` against a ``Protocol`` costs more than the rest of the step)."""
        if not all(isinstance(event, BaseModel) for event in events if event is not None):
            raise TypeError("Ledger.save stores domain events (pydantic models), not aggregates")
        processing = ProcessingEvent()
        processing.events.extend(event for event in events if event is not None)
        processing.saved_kwargs.update(kwargs)
        recordings = self._record(processing)
        self._notify(recordings)
        return recordings

    @classmethod
    def open(cls, path: str | Path, *, create: bool = False, lock_wait: float | None = None) -> Ledger:
        """Opens a campaign database file; refuses a missing one unless ``create``, and
        one it cannot use with one line saying why (``ledger.storage_errors``). A file on
        a read-only disk is opened for reading as it stands (``ledger.store.frozen_uri``).
        Locks other programs hold are waited for ``LEDGER_LOCK_TIMEOUT`` seconds (30), or
        ``lock_wait`` seconds (the table server waits in short steps: ``FileBusy``)."""
        from .postgres import is_postgres

        if is_postgres(path):
            return cls._open_postgres(str(path), create)
        from .storage_errors import folder_problem, os_error_reason, problem_message

        path = Path(path)
        missing = folder_problem(path)
        if missing is not None:
            raise StoreError(problem_message(missing, path, writing=create))
        try:
            exists = path.exists()
        except OSError as exc:  # a folder on the way one may not look into
            raise StoreError(_("cannot open {path}: {reason} (ask its owner, or use a copy)").format(
                path=path, reason=os_error_reason(exc))) from None
        if not create and not exists:
            raise StoreError(_("no campaign database at {db}; start one with ledger init --catalog FILE (or name "
                               "another with --db)").format(db=path))
        if exists and path.is_dir():
            raise StoreError(_("{path} is a directory; a campaign lives in a file: name one with --db").format(
                path=path))
        if exists and not path.is_file():  # a FIFO would block, a device reads as anything
            raise StoreError(_("{path} is no regular file but a pipe, a device or a socket; a campaign lives in a "
                               "file: name one with --db").format(path=path))
        name = str(path)
        base = path.name[:path.name.rindex("-")] if path.name.endswith(SQLITE_OWN) else ""
        if create and base and (not exists or path.stat().st_size == 0) \
                and (Path(base).suffix or path.with_name(base).exists()):  # w.db-wal; travel-journal is a name
            raise BadInput(_("{path} is the name SQLite gives the -wal, -shm or -journal file of {base}, which "
                             "would delete or overwrite it on opening; name the campaign database otherwise, e.g. "
                             "{example}").format(path=path, base=path.with_name(base),
                                                 example=path.with_name(f"{Path(base).stem or 'campaign'}-2.db")))
        if exists and (not create or path.stat().st_size > 0):
            name = _must_be_campaign_file(path, new_ok=create)  # before anything can write to it
        env = {"SQLITE_DBNAME": name, "SQLITE_LOCK_TIMEOUT": "30"}
        if lock_wait is not None:
            from .store import LOCK_TIMEOUT

            env[LOCK_TIMEOUT] = f"{lock_wait:g}"
        if not create:
            env["CREATE_TABLE"] = "no"
        return cls(env=env)

    @classmethod
    def _open_postgres(cls, url: str, create: bool) -> Ledger:
        """``open`` for a PostgreSQL database (``ledger.postgres``): refuses one the server
        cannot give, and one that holds no campaign database unless ``create``."""
        from .postgres import lost_its_log, making, postgres_env, shown, unreachable

        env = postgres_env(url)
        if not create:
            env["CREATE_TABLE"] = "no"
        with making(env, url) if create else contextlib.nullcontext():  # init: the schema and tables, one at a time
            try:
                ledger = cls(env=env)
            except StoreError as exc:  # the server cannot be reached: say so, and how to start it
                raise StoreError(unreachable(url, exc)) from None
        try:
            ledger.recorder.max_notification_id()
        except PersistenceError as exc:
            ledger.close()
            if "does not exist" in str(exc) and lost_its_log(env):  # never offered init (a QA pass): it lost its log
                raise StoreError(_("{db} is a campaign database that lost its log (the table ledger_events): it was "
                                   "changed or damaged; restore it from a copy").format(db=shown(url))) from None
            if "does not exist" in str(exc):
                raise StoreError(_("no campaign database at {db}; start one with ledger init --catalog FILE (or name "
                                   "another with --db)").format(db=shown(url))) from None
            raise StoreError(unreachable(url, exc)) from None
        return ledger

    # -- campaigns ------------------------------------------------------------
    def campaigns(self) -> list[CampaignRegistered]:
        return list(self._guard(lambda: list(self.campaign_log.get())))

    @staticmethod
    def stream_of(slug: str) -> UUID:
        """The id of the event stream campaign ``slug`` is recorded in (listed or not)."""
        return campaign_uuid(slug)

    def resolve(self, slug: str | None) -> UUID:
        """The campaign named ``slug``, or the only one in the database."""
        return self.entry(slug).campaign_id

    def entry(self, slug: str | None) -> CampaignRegistered:
        """``resolve``'s campaign as the list of campaigns names it (its id and slug)."""
        known = self.campaigns()
        if slug is not None:
            for entry in known:
                if entry.slug == slug:
                    return entry
            names = ", ".join(e.slug for e in known) or _("none yet")
            raise UnknownCampaign(_("no campaign {campaign} in this database (campaigns: {campaigns})").format(
                campaign=repr(slug), campaigns=names))
        if not known:
            self.refuse_unlisted_log()
            raise UnknownCampaign(_("this database holds no campaign yet; start one with ledger init --catalog FILE"))
        if len(known) > 1:
            raise UnknownCampaign(_("this database holds {n} campaigns ({campaigns}); choose one with --campaign "
                                    "ID").format(n=len(known), campaigns=", ".join(e.slug for e in known)))
        return known[0]

    def refuse_unlisted_log(self) -> None:
        """Refuses (``DamagedRecord``) a file whose log holds records while its list of
        campaigns names none: the list's records were deleted (a campaign's and its entry
        are saved together), so telling the person to start a campaign would have them
        hide the ones there under a new one. The log is read before the list, so that
        another process's first campaign, saved meanwhile, is no such file."""
        held = self._guard(lambda: self.recorder.max_notification_id()) or 0
        if held and not self.campaigns():
            raise DamagedRecord(_("this database's list of campaigns names none, yet its log holds records: the "
                                  "file was changed or damaged; restore it from a copy"), ValueError("none listed"))

    def start(
        self,
        catalog: Catalog,
        name: str | None = None,
        slug: str | None = None,
        fmt: Format | None = None,
        actor: str = MASTER,
    ) -> Recorded:
        """``ledger init``: a new campaign whose cards all start in the box."""
        if actor != MASTER:
            raise BadInput(_("only the master starts a campaign"))
        name, slug = campaign_names(name, slug)
        cid = campaign_uuid(slug)
        event = sealed(GENESIS, CampaignStarted(
            originator_id=cid, originator_version=1, actor=actor, name=name, slug=slug,
            catalog=tuple(catalog), format=fmt or standard_format(), ruleset=ruleset(),  # no later action's may be older
        ))
        self.refuse_unlisted_log()
        for attempt in range(50):  # another init may take the list's next entry first: listed after it
            if any(e.slug == slug for e in self.campaigns()):
                raise BadInput(_("this database already holds a campaign {campaign}; pick another with --campaign "
                                 "ID or another --db").format(campaign=repr(slug)))
            if attempt and self._started_unlisted(cid, slug):
                raise StoreError(_("this database holds the start of a campaign {campaign} that its list of "
                                   "campaigns does not name (the database was changed or damaged); start this one "
                                   "under another --name, or in another --db").format(campaign=repr(slug)))
            entry = self.campaign_log.trigger_event(slug=slug, campaign_id=cid, name=name)
            if self._guard(lambda: self._saved(event, entry)):  # noqa: B023 — called at once
                break
            _back_off(attempt)
        else:
            raise StoreError(_("other writers kept changing this campaign; try the action again"))
        campaign = self.project(None, [event])
        assert campaign is not None
        self._live[cid] = campaign
        return Recorded(seq=1, action=event.action, event=event, campaign=campaign)

    # -- loading --------------------------------------------------------------
    def _catalog_of(self, cid: UUID) -> tuple[Catalog, Format, str, str]:
        """What the campaign's start says and no later action changes: its catalog, format,
        name and slug (``campaign.make_projector``)."""
        if cid not in self._catalogs:
            first = next(iter(self.events.get(cid, gt=0, lte=1)))  # seq 1 itself: no row put before it
            assert isinstance(first, CampaignStarted)
            self._catalogs[cid] = (Catalog(first.catalog), first.format, first.name, first.slug)
        return self._catalogs[cid]

    def campaign(self, cid: UUID, at: int | None = None, checked: bool = True) -> Campaign:
        """The campaign now, or right after action ``at`` (time travel). ``checked=False``
        (``at`` only): the actions read are not checked against the hash chain (the read
        models, which follow the file's order and leave the chain to ``verify``: what they
        make of a campaign must not depend on where a load happens to start)."""
        if at is not None:
            if not isinstance(at, int) or at < 1:
                raise BadInput(_("{at} is not a seq; seqs count from 1 (init)").format(at=at))
            # the latest seq as stored, without reading the actions up to it (one may be damaged
            # past ``at``: the read models stop that campaign there, not at an action before)
            last = self.last_seq(cid) or self._current(cid).version  # none: UnknownCampaign
            if at > last:
                raise BadInput(_("seq {at} is past the last action (seq {last})").format(at=at, last=last))
            try:
                return self._guard(lambda: self._load(cid, at, checked))
            except AggregateNotFoundError:  # actions, but not its start
                raise DamagedRecord(_("the log of this campaign does not begin with its start (seq 1): the file was "
                                      "changed or damaged; ledger verify names the first bad seq"),
                                    ValueError(f"{cid} has no seq 1"), 1) from None
        return self._current(cid)

    def _load(self, cid: UUID, at: int | None = None, checked: bool = True) -> Campaign:
        """The campaign at ``at`` (or now) from the latest snapshot at or before it that
        checks out against the action at its seq (``ledger.snapshots.unfit``), then the
        actions after it; a snapshot that does not is passed over for the one before."""
        found = self._fitting(cid, at)
        if found is None:
            return self._load_from_start(cid, at, checked)
        snapshot, around = found
        try:
            restored = self.project(None, [snapshot])
        except (KeyError, TypeError, AttributeError, ValueError):  # its digests check out, yet it holds no
            return self._load_from_start(cid, at, checked)  # table: forged at a seq whose action records no digest
        # Every load checks the chain of what it reads (``integrity.checked_chain``): an action
        # edited in the file is refused, never folded (no cache: a long-lived process, the table
        # server, would otherwise trust rows edited after it first read them). The snapshot's
        # own action is checked too, against the one before it: its digest vouches for the
        # snapshot. A tripwire, not ``verify``: actions before the snapshot are not read here.
        base = snapshot.originator_version
        previous = around[0].hash if around[0].originator_version == base - 1 else GENESIS
        read = (e for e in around if e.originator_version >= base)
        actions = checked_chain(read, previous) if checked else read
        restored.rules = next(actions).ruleset  # the snapshot's own action, already in the snapshot
        return self.project(restored, actions)

    def _load_from_start(self, cid: UUID, at: int | None, checked: bool = True) -> Campaign:
        read = self.events.get(cid, gt=0, lte=at)
        campaign = self.project(None, checked_chain(read, GENESIS) if checked else read)
        if campaign is None:
            raise AggregateNotFoundError(cid)
        return campaign

    def fit_snapshot(self, cid: UUID, at: int | None = None) -> tuple[CampaignSnapshot, list[ActionRecorded]] | None:
        """The latest snapshot at or before ``at`` that checks out against the action at
        its seq (``ledger.snapshots.unfit``; one that does not, or cannot be read, is passed
        over), with the actions after it up to ``at``; None if there is none."""
        found = self._fitting(cid, at)
        if found is None:
            return None
        snapshot, around = found
        return snapshot, [e for e in around if e.originator_version > snapshot.originator_version]

    def _fitting(self, cid: UUID, at: int | None) -> tuple[CampaignSnapshot, list[ActionRecorded]] | None:
        """``fit_snapshot``, with the actions from the one before the snapshot's on (a load
        checks the snapshot's own action against that one). A snapshot is checked against
        its own action and the one before it, two rows; only the one that fits reads on
        to ``at`` (a QA pass: each unfit snapshot read every action after it, so a few bytes
        changed in 205 snapshots of a 20k-action file made every command take 8 minutes)."""
        assert self.snapshots is not None
        below = at
        while True:
            stored = self.snapshots.recorder.select_events(cid, desc=True, limit=1, lte=below)
            if not stored:
                return None
            if off_the_grid(stored[0].originator_version):  # never taken there: not even read
                below = stored[0].originator_version - 1
                continue
            try:
                snapshot = self.snapshots.mapper.to_domain_event(stored[0])
            except Exception:  # noqa: BLE001 — a changed byte can break the JSON or the model
                below = stored[0].originator_version - 1
                continue
            seq = snapshot.originator_version
            near = list(self.events.get(cid, gt=max(seq - 2, 0), lte=seq))
            own = next((e for e in near if e.originator_version == seq), None)
            if own is not None and unfit(snapshot.state, own) is None:
                return snapshot, near + (list(self.events.get(cid, gt=seq, lte=at)) if at is None or at > seq else [])
            below = seq - 1

    def _current(self, cid: UUID, fresh: bool = True) -> Campaign:
        """The campaign now. ``fresh=False`` skips asking the store for newer actions:
        a command may decide on the copy in memory, since saving it at a version
        another writer already took fails, and the command is then decided again."""
        campaign = self._live.get(cid)
        if campaign is None:
            try:
                campaign = self._guard(lambda: self._load(cid))
            except AggregateNotFoundError:
                raise UnknownCampaign(_("that campaign has no events in this database")) from None
            self._live[cid] = campaign
        elif fresh:
            if self.held_checked and self._held_is_stored(cid):  # a long-lived process: its copy's latest
                return campaign                                   # action checked again, not trusted
            newer = self._guard(lambda: list(self.events.get(cid, gt=campaign.version)))
            self.project(campaign, checked_chain(newer, campaign.last_hash))
        return campaign

    def event(self, cid: UUID, seq: int) -> ActionRecorded:
        found = self._guard(lambda: list(self.events.get(cid, gt=seq - 1, lte=seq)))
        if not found:
            raise BadInput(_("seq {seq} is not an action of this campaign").format(seq=seq))
        return found[0]

    def actions(self, cid: UUID, gt: int | None = None, lte: int | None = None) -> list[ActionRecorded]:
        return self._guard(lambda: list(self.events.get(cid, gt=gt, lte=lte)))

    def reshuffles_between(self, cid: UUID, gt: int, lte: int,
                           page: int = 1000) -> Iterator[tuple[int, tuple[str, ...]]]:
        """The undos recorded after seq ``gt`` up to ``lte`` that shuffled decks again: their
        seqs and those decks (fair play's look back: ``Play.shuffled_again_by``). Of an undo
        only its ``reshuffled_stacks`` is decoded."""
        for row in self._rows_between(cid, gt, lte, (get_topic(ActionUndone),), page):
            stacks = _RESHUFFLED.decode(row.state).reshuffled_stacks
            if stacks:
                yield row.originator_version, stacks

    def takebacks_between(self, cid: UUID, gt: int, lte: int,
                          page: int = 1000) -> Iterator[tuple[int, bool, tuple[int, ...]]]:
        """The undos and redos recorded after seq ``gt`` up to ``lte``, oldest first: their
        seqs, whether each is a redo, and the actions it took back or applied again
        (``undo --to``, when the chain at its seq is longer than the log since). Of each,
        only its ``targets`` are decoded."""
        redo = get_topic(ActionRedone)
        for row in self._rows_between(cid, gt, lte, (get_topic(ActionUndone), redo), page):
            yield row.originator_version, row.topic == redo, _TARGETS.decode(row.state).targets

    def _rows_between(self, cid: UUID, gt: int, lte: int, topics: tuple[str, ...],
                      page: int) -> Iterator[StoredEvent]:
        """The campaign's stored rows of these topics after seq ``gt`` up to ``lte``, oldest
        first, read a page of rows at a time and left undecoded."""
        while gt < lte:
            rows = self._guard(lambda: self.recorder.select_events(cid, gt=gt, lte=min(gt + page, lte)))
            yield from (row for row in rows if row.topic in topics)
            gt += page

    # -- recording ------------------------------------------------------------
    def execute(self, cid: UUID, command: Command) -> Recorded:
        """Load → decide → save. A refusal raises and appends nothing; a save that
        loses a race with another writer is decided again on the newer state. The first
        decision may be made on the campaign held in memory (a long-lived process: the
        table server; ``held_checked``: while the log's latest seq is still its own); if the
        rules refuse it there while another process has recorded since, it is decided again
        on the newer state before the refusal stands."""
        deadline = time.monotonic() + self.SAVE_PATIENCE
        attempt = 0
        while True:
            if attempt and time.monotonic() > deadline:
                raise StoreError(_("other writers kept changing this campaign; try the action again"))
            if attempt:
                _back_off(attempt)
            attempt += 1
            held = attempt == 1 and cid in self._live  # decided on the copy in memory
            if held and self.held_checked and not self._held_is_stored(cid):
                held = False  # another writer since, or a log cut short: a copy ahead of it would record past a gap
                self._live.pop(cid)
            campaign = self._current(cid, fresh=not held)
            self._rules_known(campaign)
            play = Play(campaign, command.actor, lookup=lambda seq: self.event(cid, seq),
                        scan=lambda gt, lte: self.reshuffles_between(cid, gt, lte),
                        takebacks=lambda gt, lte: self.takebacks_between(cid, gt, lte))
            try:
                event = decide_event(play, command)
            except LedgerError:
                play.rollback()
                if held and self._has_newer(cid, campaign.version):
                    continue
                raise
            except BaseException:  # a bug mid-decision: the held campaign may be left half-stepped
                play.rollback()
                self._live.pop(cid, None)
                raise
            try:
                self.save(event)
            except IntegrityError:
                play.rollback()
                self._live.pop(cid, None)
                if not self._landed(event):
                    continue  # another writer took the seq: decided again on the newer state
                campaign = self._as_landed(event)
            except BaseException as exc:
                from .postgres import connection_lost, unanswered

                play.rollback()
                self._live.pop(cid, None)
                # a connection lost under the commit, past the recorder's retries: the commit may
                # have gone through (a QA pass: "try again" for an action recorded, retried twice);
                # none had been had (the pool found none), nothing was sent
                if connection_lost(exc) is None or unanswered(exc) or not self._landed(event):
                    raise
                campaign = self._as_landed(event)
            campaign.record(event)
            if campaign.version % self.SNAPSHOT_INTERVAL == 0:
                self.snapshot(campaign)
            return Recorded(seq=event.seq, action=event.action, event=event, campaign=campaign)

    def _held_is_stored(self, cid: UUID) -> bool:
        """Is the latest action of the copy held in memory still the log's latest, as stored?
        Its seq, its hash, and its content against its link to the action before it
        (``check_link``, ``DamagedRecord`` if edited: found by a QA pass, the table server
        recorded, and handed out a checkpoint, on top of a latest action edited in the file
        after it was loaded). Two rows read by the campaign's key, one hash: ~0.1 ms."""
        held = self._live[cid]
        latest = self._guard(lambda: list(self.events.get(cid, desc=True, limit=2)))
        if not latest or latest[0].originator_version != held.version or latest[0].hash != held.last_hash:
            return False
        check_link(latest[1].hash if len(latest) > 1 else GENESIS, latest[0])
        return True

    def _started_unlisted(self, cid: UUID, slug: str) -> bool:
        """Does the log hold seq 1 of campaign ``cid`` though the list of campaigns names no
        ``slug`` (an init that keeps failing on its own seq 1, not on the list's entry)?"""
        if not self._guard(lambda: list(self.events.get(cid, gt=0, lte=1))):
            return False
        return not any(e.slug == slug for e in self.campaigns())  # (not just now listed by another init)

    def _saved(self, event: CampaignStarted, entry: CampaignRegistered) -> bool:
        """A campaign's start saved with its entry in the list of campaigns; False if the
        list's next entry was taken meanwhile (another init), unless this very start went
        in (its reply lost: ``_landed``)."""
        try:
            self.save(event, entry)
        except IntegrityError:
            return self._landed(event)
        return True

    def _rules_known(self, campaign: Campaign) -> None:
        """Refuses to record in a campaign whose actions a newer ledger decided under newer
        rules: the actions this one would record after them would claim older rules, which
        ``verify`` then calls forged, for good (a QA pass: a table server left running on an
        older version, beside an updated CLI). ``Campaign.rules``: the newest of the actions
        folded since the snapshot it was loaded from, and of that snapshot's own action."""
        if campaign.rules > RULESET:
            raise OutdatedLedger(_("campaign {campaign} has actions recorded by a newer campaign-ledger (rules "
                                   "{newer}; this one knows {known}): update campaign-ledger to record in it").format(
                campaign=campaign.slug, newer=campaign.rules, known=RULESET))

    def _as_landed(self, event: ActionRecorded) -> Campaign:
        """The campaign before ``event``, which went in though its reply was lost, with its
        changes applied (``execute`` records the bookkeeping)."""
        campaign = self.campaign(event.originator_id, at=event.seq - 1)
        campaign.table.apply_all(event.changes)
        return campaign

    def _landed(self, event: ActionRecorded) -> bool:
        """Is ``event`` itself the one stored at its seq? A save whose commit went through
        but whose reply was lost is tried again by the store (eventsourcing's PostgreSQL
        recorder retries a dropped connection), which then finds the seq taken, by it:
        deciding the command again would record it twice (two draws for one asked). The
        hash covers the action's secret seed, so no other writer's action has it."""
        try:
            stored = self._guard(lambda: list(self.events.get(event.originator_id, gt=event.seq - 1,
                                                              lte=event.seq)))
        except StoreError:  # it cannot be told now: say so, and where to look later
            raise StoreError(_("the database stopped answering while seq {seq} was saved: it may or may not be "
                               "recorded (ledger history shows which); nothing half-done was kept").format(
                seq=event.seq)) from None
        return bool(stored) and stored[0].hash == event.hash

    def _has_newer(self, cid: UUID, version: int) -> bool:
        """Has another process recorded an action of this campaign after ``version``?"""
        return bool(self._guard(lambda: list(self.events.get(cid, gt=version, limit=1))))

    # -- checkpoints ------------------------------------------------------------
    def checkpoint(self, cid: UUID, signer: Signer | None = None) -> Checkpoint:
        """The latest checkpoint: the campaign's seq and head hash now (``ledger.checkpoints``),
        signed by ``signer`` unless its word would be broken (``keeps_its_word`` raises)."""
        campaign = self._current(cid)
        self.keeps_its_word(cid, signer, campaign.version, campaign.last_hash)
        return take(cid, campaign.version, campaign.last_hash, signer)

    def vouched(self, cid: UUID, signer: Signer | None, seq: int | None = None,
                head: str | None = None) -> tuple[Checkpoint, str | None]:
        """The checkpoint at ``seq`` (whose hash is ``head``; left out: the campaign's latest)
        for a view or an action's reply: signed, unless the key's word would be broken; then
        unsigned, with why (the view is still served: a row anyone holding the file could
        write must not stop every seat's table)."""
        if seq is None or head is None:
            campaign = self._current(cid)
            seq, head = campaign.version, campaign.last_hash
        try:
            self.keeps_its_word(cid, signer, seq, head)
        except DamagedRecord as broken:
            return take(cid, seq, head), str(broken)
        return take(cid, seq, head, signer), None

    def keeps_its_word(self, cid: UUID, signer: Signer | None, seq: int, head: str) -> None:
        """A key never vouches for a log that its own earlier signature contradicts: before
        ``signer`` signs the log up to ``seq`` (its head ``head``), the latest checkpoint kept
        in the database that this key signed (its signature holding: a row anyone could
        write vouches for nothing) must lie within the log and name the log's own hash at its
        seq. A QA pass: an action edited and re-hashed in the file was signed by the master's
        checkpoint and export, though his own signed checkpoint kept in the file named another
        hash at that seq (and a review: a log cut below it was signed again, a fork). Reads
        the kept checkpoints newest first, to this key's latest, and one action."""
        if signer is None:
            return
        kept = self._last_signed_by(cid, signer.public)
        if kept is None:
            return
        if kept.seq > seq:
            raise DamagedRecord(_("your key signed seq {signed} in a checkpoint kept in this database, but the log now "
                                  "ends at seq {seq}: it was cut since; nothing is signed (ledger verify names it)").format(
                signed=kept.seq, seq=seq), ValueError(f"the log ends before seq {kept.seq}, signed by this key"))
        held = head if kept.seq == seq else self.event(cid, kept.seq).hash
        if held != kept.head:
            raise DamagedRecord(_("the log's hash at seq {seq} is not the one your key signed there in a checkpoint kept in "
                                  "this database: the log or that checkpoint was changed since; nothing is signed "
                                  "(ledger verify names the first bad seq)").format(seq=kept.seq),
                                ValueError(f"seq {kept.seq} differs from a kept checkpoint signed by this key"))

    def _last_signed_by(self, cid: UUID, key: str, page: int = 20) -> Checkpoint | None:
        """The checkpoint kept last in the database for campaign ``cid`` that ``key`` signed
        and whose signature holds, read newest first, ``page`` entries a read."""
        log = self._checkpoint_log(cid)
        below: int | None = None
        while True:
            entries = self._guard(lambda: list(log.get(lte=below, desc=True, limit=page)))
            for entry in entries:
                kept = Checkpoint(entry.seq, entry.head, entry.key, entry.signature)
                if kept.key == key and kept.signature is not None and kept.holds_for(cid):
                    return kept
            if len(entries) < page:
                return None
            below = entries[-1].originator_version - 1

    def keep_checkpoint(self, cid: UUID, signer: Signer | None = None) -> Checkpoint:
        """The latest checkpoint, also kept in the file's checkpoints log (which ``verify``
        checks), unless the same one is kept already."""
        return self.keep(cid, self.checkpoint(cid, signer))

    def keep(self, cid: UUID, checkpoint: Checkpoint) -> Checkpoint:
        """Keeps ``checkpoint`` in the file's checkpoints log, unless the latest kept is the
        same (an export's, too: ``transfer.import_campaign``)."""
        log = self._checkpoint_log(cid)
        last = self._guard(log.get_last)
        if last is not None and (last.seq, last.head, last.signature) == (checkpoint.seq, checkpoint.head,
                                                                           checkpoint.signature):
            return checkpoint
        entry = log.trigger_event(seq=checkpoint.seq, head=checkpoint.head, key=checkpoint.key,
                                  signature=checkpoint.signature)

        def keep() -> None:
            try:
                self.save(entry)
            except IntegrityError:
                pass  # another process kept one at the same moment; this one is still handed out

        self._guard(keep)
        return checkpoint

    def kept_checkpoints(self, cid: UUID) -> list[Checkpoint]:
        """Every checkpoint kept in the file for this campaign, oldest first."""
        entries = self._guard(lambda: list(self._checkpoint_log(cid).get()))
        return [Checkpoint(e.seq, e.head, e.key, e.signature) for e in entries]

    def _checkpoint_log(self, cid: UUID) -> EventSourcedLog[CheckpointTaken]:
        return EventSourcedLog(self.events, checkpoint_log_id(cid), CheckpointTaken)

    def snapshot(self, campaign: Campaign) -> None:
        """Stores the campaign's state at its version (a cache: never the record). Not
        stored while another program holds the file's write lock beyond this process's
        wait (``FileBusy``): the action it follows is recorded, and loading starts from an
        earlier snapshot until a later hundredth action stores one."""
        assert self.snapshots is not None
        snapshot = CampaignSnapshot(
            originator_id=campaign.id, originator_version=campaign.version,
            timestamp=campaign.modified_on, state=campaign.snapshot(),
        )
        try:
            self.snapshots.put([snapshot])
        except IntegrityError:
            pass  # another process took the same snapshot
        except FileBusy:
            pass  # not now; the action it follows is recorded, and must not be reported otherwise

    def last_seq(self, cid: UUID) -> int:
        """The seq of the campaign's latest action (0: none), read without decoding it."""
        last = self._guard(lambda: self.recorder.select_events(cid, desc=True, limit=1))
        return last[0].originator_version if last else 0

    def begin_work(self) -> None:
        """Counts saves from zero for a new piece of work: a storage error says how many
        actions the work recorded before it (a long-lived process, the table server, does
        many pieces of work; a command, one)."""
        pool = self._counting_pool()
        if pool is not None:
            pool.saves = 0

    @property
    def saves(self) -> int:
        """Actions saved since ``begin_work`` (or the opening; 0 where not counted: PostgreSQL)."""
        pool = self._counting_pool()
        return pool.saves if pool is not None else 0

    def _counting_pool(self) -> Any:
        """The SQLite pool that counts this process's saves (``LedgerConnectionPool``), or None."""
        from .store import LedgerConnectionPool

        pool = getattr(self.factory.datastore, "pool", None)
        return pool if isinstance(pool, LedgerConnectionPool) else None

    def stored_event_count(self) -> int:
        """How many events the log holds (all campaigns); refusals must not change it."""
        return self._guard(lambda: self.recorder.max_notification_id() or 0)

    def _guard(self, fn) -> Any:
        try:
            return fn()
        except LedgerError:
            raise
        except (PersistenceError, sqlite3.Error) as exc:
            if "no such table" in str(exc):
                raise StoreError(_("this file is an SQLite database but not a campaign database")) from None
            failure = getattr(self.factory.datastore.pool, "failure", None)  # a storage problem, in words
            found = failure(exc, writing=False) if failure is not None else None
            if found is not None:
                raise found from None
            raise StoreError(_("the campaign database cannot be used ({reason})").format(reason=_reason(exc))) from None


class _Reshuffled(msgspec.Struct):
    """Of a stored undo, only the decks it shuffled again (``Ledger.reshuffles_between``)."""

    reshuffled_stacks: tuple[str, ...] = ()


_RESHUFFLED = msgspec.json.Decoder(_Reshuffled)


class _Targets(msgspec.Struct):
    """Of a stored undo or redo, only the actions it names (``Ledger.takebacks_between``)."""

    targets: tuple[int, ...] = ()


_TARGETS = msgspec.json.Decoder(_Targets)


def _back_off(attempt: int) -> None:
    """A little random patience after a lost race, growing with the tries, so that racing
    writers fall out of step."""
    time.sleep(random.uniform(0, min(0.002 * attempt, 0.05)))


def _must_be_campaign_file(path: Path, new_ok: bool = False) -> str:
    """Refuses a file that is not a campaign database, before eventsourcing opens it
    (which would switch it to WAL mode and add tables), and one that cannot be read,
    saying why (a full or read-only disk, no permission...: ``ledger.storage_errors``).
    The file is probed through SQLite itself, read-only in effect: a plain open()/close()
    of the file would drop the POSIX locks this process's other SQLite connections hold
    on it. Returns the name SQLite is to open it by: the path, or for a file on a
    read-only disk a URI that reads it as it stands (``ledger.store.frozen_uri``)."""
    from .storage_errors import unreadable
    from .store import cut_short, frozen_uri, lock_timeout, probe

    name, seconds = str(path), lock_timeout()
    try:
        mode, names, page = probe(name, seconds)
    except sqlite3.Error as exc:
        frozen = None if new_ok else frozen_uri(path)
        if frozen is None:
            raise unreadable(exc, path, lock_timeout=seconds) from None
        name, mode = frozen, "wal"  # read as it stands, SQLite reports no journal mode then
        try:
            names, page = probe(name, seconds)[1:]
        except sqlite3.Error as again:
            raise unreadable(again, path, lock_timeout=seconds) from None
    if new_ok and not names:
        return name  # an empty database (say, a file whose creation was interrupted): init may use it
    if mode.lower() != "wal" and "stored_events" in names:  # a copy a tool made (VACUUM INTO, a backup)
        raise StoreError(_("{path} holds a campaign log but is not in WAL mode, as a campaign database is (a copy "
                           "made with VACUUM INTO or a backup tool?); switch it back with: sqlite3 {path} "
                           "'PRAGMA journal_mode=WAL'").format(path=path))
    if mode.lower() != "wal" or "stored_events" not in names:
        if new_ok:  # init (import, simulate) into another program's database: it is left as it is
            raise StoreError(_("{path} is an SQLite database of something else, not a campaign database; start the "
                               "campaign in a new file (--db campaign.db)").format(path=path))
        raise StoreError(_("{path} is not a campaign database; name another with --db, or start one with init").format(
            path=path))
    if cut_short(path, page):  # nothing may read it as whole, or write to it
        raise StoreError(_("{path} is damaged: it ends partway through a page (it was cut short); restore it from a "
                           "copy").format(path=path))
    return name


def _reason(exc: BaseException) -> str:
    """Why ``exc`` happened, in a few words: a storage problem's (``the disk is full``),
    else the first line of its message."""
    from .storage_errors import problem_reason, storage_problem

    problem = storage_problem(exc)
    if problem is not None:
        return problem_reason(problem)
    return first_line(exc)


def decide_event(play: Play, command: Command, timestamp: Any = None) -> ActionRecorded:
    """Decides a command on the campaign in ``play`` and returns the sealed event that
    records it: the player's command, the changes, the seed, the link to the latest
    action in force, and its hash in the chain. ``verify`` calls this too, with the
    stored timestamp, and must get the stored event back exactly."""
    campaign = play.campaign
    event_class, params = decide(play, command)
    extra = {"timestamp": timestamp} if timestamp is not None else {}
    event = event_class(
        originator_id=campaign.id,
        originator_version=campaign.version + 1,
        actor=command.actor,
        changes=tuple(play.changes),
        redirects=tuple(play.redirects),
        refills=tuple(play.refills),
        command=command.to_record(),
        rng=play.seed,
        prev_live=campaign.live_head,
        ruleset=ruleset(),
        **extra,
        **params,
    )
    viewers = [PUBLIC, *campaign.table.heroes]
    facts: dict[str, Any] = {}
    facts["seen"], facts["unnamed"], identified = recorded_facts(event, campaign, viewers)
    if identified:
        facts["identified"] = identified
    if play.randomized and event.ruleset >= 2:
        facts["commitments"] = commitments_of(play, event.seq)
    state = digest_after(event, play.table, campaign)
    if state is not None:
        facts["state_digest"] = state
    if facts:
        event = event.model_copy(update=facts)
    return sealed(campaign.last_hash, event)


def commitments_of(play: Play, seq: int) -> tuple[Commitment, ...]:
    """A commitment to the order, at the end of the action, of each face-down deck the
    action gave a new random order (``ledger.commitments``)."""
    found = []
    for stack in dict.fromkeys(play.randomized):
        zone = play.campaign.zone(stack)
        order = play.table.cards_in(stack)
        if zone.secret_order and order:
            found.append(commit(play.seed, seq, stack, order))
    return tuple(found)
