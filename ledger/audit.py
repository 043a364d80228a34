"""Checking a campaign's record: ``verify``.

``verify`` reads the stored actions in order, page by page, through eventsourcing's
recorder, and for each one checks that it is the next seq, that it decodes, that its
hash continues the chain, and that deciding its recorded command again on the state
before it (with its recorded seed, under the rules it was recorded under) gives back
exactly the stored event — so every action is checked against the rules again — and
that every committed shuffle order matches the order recorded. Along the way it
compares every stored snapshot with the state the log gives at its seq, and checks
every checkpoint: those kept in the file (``ledger checkpoint``; their signatures
too) and those a player holds (``--expect SEQ:HEAD``). A checkpoint or snapshot past
the log's end means actions were cut off. It names the first bad seq.

What it cannot see from the file alone: a record rewritten from some seq on, re-hashed
and re-decided, with the checkpoints and snapshots after that seq deleted too. The
checkpoints players keep (``--expect``) and signed exports catch that.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from eventsourcing.persistence import PersistenceError, StoredEvent

from .application import Ledger, decide_event
from .campaign import Campaign
from .checkpoints import Checkpoint
from .commands import from_record
from .commitments import holds
from .errors import LedgerError, NewerRecord
from .events import ActionRecorded, CampaignStarted
from .i18n import _
from .integrity import GENESIS, chain_hash, sealed
from .play import Play
from .rulebook import RULESET
from .rulesets import decided_under
from .snapshots import digest

PAGE = 1000
SPLIT_FROM = 20_000
"""Actions from which ``verify`` checks a log in parts side by side (each part at least
a quarter of that)."""

log = logging.getLogger(__name__)  # why verify checked a log in one pass after all


@dataclass(frozen=True)
class Report:
    campaign: str
    actions: int
    bad_seq: int | None = None
    reason: str | None = None
    head: str = GENESIS
    signed_to: int | None = None  # the latest seq a kept checkpoint signed (and whose signature holds)
    signed_keys: tuple[str, ...] = ()  # the public keys of those signatures
    signed_upto: tuple[int, ...] = ()  # the latest seq each of those keys signed (a QA pass: one "up to" for all
    # the keys told a player comparing them that the master's vouched as far as another key's)
    unvouched: bool = False  # refused for want of the trusted key's signature, not for the log
    held_at: int | None = None  # a held checkpoint's head is the log's at this seq, not at the seq it names

    @property
    def ok(self) -> bool:
        return self.bad_seq is None and not self.unvouched and self.held_at is None

    def as_dict(self) -> dict[str, Any]:
        return {"campaign": self.campaign, "ok": self.ok, "actions": self.actions,
                "bad_seq": self.bad_seq, "reason": self.reason, "head": self.head if self.ok else None,
                "signed_to": self.signed_to, "signed_keys": list(self.signed_keys),
                "signed_upto": dict(zip(self.signed_keys, self.signed_upto)), "unvouched": self.unvouched,
                "held_at": self.held_at}


class _Bad(Exception):
    """The first problem found: at which seq, and why."""

    def __init__(self, seq: int, reason: str):
        super().__init__(reason)
        self.seq = seq
        self.reason = reason


class _Unvouched(_Bad):
    """``--signed-by``: no kept checkpoint is signed by the key trusted. No finding about
    the log itself, which is not read."""

    def __init__(self, reason: str):
        super().__init__(0, reason)


def stored_actions(ledger: Ledger, cid: UUID, after: int = 0, upto: int | None = None) -> Iterator[StoredEvent]:
    """The campaign's stored events in seq order, a page at a time (those after ``after``,
    up to ``upto``)."""
    last = after
    while True:
        page = ledger.recorder.select_events(cid, gt=last, lte=upto, limit=PAGE)
        if not page:
            return
        yield from page
        last = page[-1].originator_version


def _stored_snapshots(ledger: Ledger, cid: UUID, after: int = 0) -> Iterator[StoredEvent]:
    assert ledger.snapshots is not None
    last = after
    while page := ledger.snapshots.recorder.select_events(cid, gt=last, limit=PAGE):
        yield from page
        last = page[-1].originator_version


class _Evidence:
    """What the log is checked against besides itself: the heads it must hold at some
    seqs (checkpoints kept in the file or held by a player) and the stored snapshots."""

    def __init__(self, ledger: Ledger, cid: UUID, expect: Iterable[tuple[int, str]], signed_by: str | None,
                 after: int = 0):
        self.ledger = ledger
        self.cid = cid
        # seq -> (head, where it was kept, whether someone the verifier trusts vouched for it)
        self.expected: dict[int, list[tuple[str, str, bool]]] = {}
        for seq, head in expect:
            self.expected.setdefault(seq, []).append((head, _("the checkpoint you hold"), True))
        self.signed_to: int | None = None
        self.signed_keys: list[str] = []
        self.signed_upto: list[int] = []  # each key's latest signed seq, as signed_keys orders them
        kept = ledger.kept_checkpoints(cid)
        for number, checkpoint in enumerate(kept, start=1):
            self._kept(checkpoint, number, signed_by)
        if signed_by is not None and self.signed_to is None:
            raise _Unvouched(_("no checkpoint kept in this file is signed by the key you trust"))
        self.snapshots = _stored_snapshots(ledger, cid, after)  # a part of the log: the snapshots in it
        self.next_snapshot = next(self.snapshots, None)

    def _kept(self, checkpoint: Checkpoint, number: int, signed_by: str | None) -> None:
        where = _("the checkpoint #{number} kept in this file (seq {seq})").format(number=number, seq=checkpoint.seq)
        if not checkpoint.holds_for(self.cid):
            raise _Bad(checkpoint.seq, _("{checkpoint} carries a signature that does not hold: it was forged or "
                                         "changed").format(checkpoint=where))
        # With --signed-by, only that key's checkpoints vouch (signed_to); the others are still
        # checked against the log, as plain verify does: one taken before the master had a key,
        # or one signed by someone else's, made every later --signed-by fail (a QA pass).
        vouched = signed_by in (None, checkpoint.key)
        if checkpoint.signature is not None and vouched:
            self.signed_to = max(self.signed_to or 0, checkpoint.seq)
            if checkpoint.key not in self.signed_keys:
                self.signed_keys.append(checkpoint.key)
                self.signed_upto.append(checkpoint.seq)
            at = self.signed_keys.index(checkpoint.key)
            self.signed_upto[at] = max(self.signed_upto[at], checkpoint.seq)
        self.expected.setdefault(checkpoint.seq, []).append((checkpoint.head, where, vouched))

    def check(self, campaign: Campaign) -> None:
        """The log's state at ``campaign.version`` against what was kept for that seq."""
        seq = campaign.version
        for head, source, vouched in self.expected.pop(seq, ()):
            if head != campaign.last_hash and not vouched:  # --signed-by, and a checkpoint it did not sign
                if self.signed_to is not None and seq <= self.signed_to:
                    continue  # the key trusted vouches for the log past it: that checkpoint was put there
                raise _Bad(seq, _("the log's head at seq {seq} is not the one {checkpoint} names, a checkpoint the "
                                  "key you trust did not sign: either the record was rewritten at or before seq "
                                  "{seq}, or that checkpoint was put there").format(seq=seq, checkpoint=source))
            if head != campaign.last_hash:
                # TRANSLATORS: {checkpoint} is "the checkpoint you hold" or "the checkpoint #2 kept in this file
                # (seq 40)".
                raise _Bad(seq, _("the log's head at seq {seq} is not the one {checkpoint} names: the record was "
                                  "rewritten at or before seq {seq}").format(seq=seq, checkpoint=source))
        while self.next_snapshot is not None and self.next_snapshot.originator_version <= seq:
            snapshot, self.next_snapshot = self.next_snapshot, next(self.snapshots, None)
            if snapshot.originator_version == seq:
                self._snapshot(snapshot, campaign)

    def _snapshot(self, stored: StoredEvent, campaign: Campaign) -> None:
        seq = stored.originator_version
        try:
            state = self.ledger.snapshots.mapper.to_domain_event(stored).state  # type: ignore[union-attr]
        except Exception:  # noqa: BLE001 — a changed byte can break the JSON or the model
            raise _Bad(seq, _("the snapshot at seq {seq} cannot be read (it is ignored when loading)").format(
                seq=seq)) from None
        expected = campaign.snapshot()
        # the order of the heroes too, whatever the ruleset: it is the fold's, and a snapshot
        # holding another would make a ledger that loads it record other actions
        if state.get("last_hash") != expected["last_hash"] \
                or digest(state, ordered=True) != digest(expected, ordered=True) \
                or state.get("digest") not in (None, expected["digest"]):
            raise _Bad(seq, _("the snapshot at seq {seq} does not match the log (it was changed; loading ignores it "
                              "and folds from the one before)").format(seq=seq))

    def past_the_end(self, last: int) -> None:
        """Anything kept for a seq the log no longer reaches: actions were cut off."""
        beyond = [seq for seq in self.expected if seq > last]
        claims = [(seq, source) for seq in beyond for _head, source, vouched in self.expected[seq] if not vouched]
        if self.next_snapshot is None and beyond and len(claims) == sum(len(self.expected[seq]) for seq in beyond):
            # --signed-by, and only checkpoints that key did not sign reach past the end (a QA pass: one
            # written into the file by anyone made an honest record, signed to its end, "missing" actions)
            seq, source = max(claims)
            raise _Bad(last + 1, _("the log ends at seq {last} but {checkpoint}, which the key you trust did not "
                                   "sign, names seq {seq}: either actions after seq {last} were cut off, or that "
                                   "checkpoint was put there").format(last=last, checkpoint=source, seq=seq))
        if self.next_snapshot is not None:
            beyond.append(self.next_snapshot.originator_version)
        if beyond:
            raise _Bad(last + 1, _("the log ends at seq {last} but seq {seq} was once recorded (a checkpoint or "
                                   "snapshot names it): actions are missing").format(last=last, seq=max(beyond)))


def verify(ledger: Ledger, cid: UUID, progress: Callable[[int], None] | None = None,
           take_snapshots: bool = False, expect: Iterable[tuple[int, str]] = (),
           signed_by: str | None = None, jobs: int | None = None, split_from: int = SPLIT_FROM) -> Report:
    """Checks the whole log of a campaign (see the module's docstring). ``expect``:
    checkpoints ``(seq, head)`` held outside the file; ``signed_by``: the public key
    the kept checkpoints must be signed with. With ``take_snapshots`` it also stores
    the snapshots a replay passes (for imports). A log of ``split_from`` actions or more
    is checked in parts side by side, one process each (``jobs``, default one a core:
    ``_check_parts``), with the very same report."""
    expect = list(expect)
    report = _verify_log(ledger, cid, progress, take_snapshots, expect, signed_by, jobs, split_from)
    if not report.ok and not report.unvouched:
        try:
            return _misplaced(ledger, cid, report, expect, signed_by, jobs, split_from, progress)
        except (LedgerError, PersistenceError):  # the hint is a courtesy: whatever stops it, the finding stands
            return report
    return _as_listed(ledger, cid, report) if report.ok else report


MISPLACED_TRIES = 3
"""Other seqs tried for a held checkpoint's head before ``verify`` gives up on a hint."""


def _misplaced(ledger: Ledger, cid: UUID, report: Report, expect: list[tuple[int, str]], signed_by: str | None,
               jobs: int | None, split_from: int, progress: Callable[[int], None] | None) -> Report:
    """A failure at a checkpoint a player holds (``--expect N:HEAD``) whose head the log has
    at another seq M: a seq mistyped, or copied from another checkpoint. The report stays
    a failure (the log does not hold that head at N) and names M (``held_at``) only when the
    log verifies with ``M:HEAD`` instead, at least past M: that pass computes every head
    again, so M is never taken from the stored bytes, where anyone holding the file could
    write any head (the stored bytes only say which seqs are worth the pass). Each held
    checkpoint the next failure is at is corrected so, in turn (several mistyped, or one
    beside a real rewrite: that finding is then the report's, with the seqs corrected)."""
    assert report.bad_seq is not None
    last = ledger.last_seq(cid)
    current, held, moved = report, list(expect), []
    while current.bad_seq is not None and len(moved) < len(expect):
        cut = current.bad_seq > last  # "actions are missing": a checkpoint past the log's end
        wrong = next((one for one in held if one not in [(f, h) for _s, f, h in moved]
                      and (one[0] == current.bad_seq or (cut and one[0] > last))), None)
        if wrong is None:  # the failure is no held checkpoint's
            break
        seq, head = wrong
        for found in _seqs_naming(ledger, cid, head, besides=seq):
            trial = [*(one for one in held if one != wrong), (found, head)]
            again = _verify_log(ledger, cid, progress, False, trial, signed_by, jobs, split_from)
            if again.ok or (again.bad_seq is not None and again.bad_seq > found):  # the log holds HEAD at M
                current, held = again, trial
                moved.append((seq, found, head))
                break
        else:
            break
    if not moved:
        return report
    if current.ok:  # no finding about the log: the checkpoints are the log's, at other seqs
        said = "; ".join(_(
            "the checkpoint you hold names seq {seq}, but its head is the log's head at seq {found} (the "
            "whole log verifies with --expect {found}:{head}): the seq was mistyped or copied from another "
            "checkpoint").format(seq=seq, found=found, head=head) for seq, found, head in moved)
        return Report(current.campaign, current.actions, head=current.head, held_at=moved[0][1], reason=said)
    said = "; ".join(_("the checkpoint you hold for seq {seq} is the log's head at seq {found}: its seq was mistyped "
                       "or copied from another checkpoint").format(seq=seq, found=found) for seq, found, _h in moved)
    return Report(current.campaign, current.actions, current.bad_seq, f"{current.reason} ({said})",
                  held_at=moved[0][1])


def _seqs_naming(ledger: Ledger, cid: UUID, head: str, besides: int) -> Iterator[int]:
    """The first few seqs (besides ``besides``) whose stored action holds the text ``head``."""
    wanted, tries = head.encode(), 0
    for stored in stored_actions(ledger, cid):
        state = stored.state
        state = state.encode("utf-8", "replace") if isinstance(state, str) else bytes(state)  # a row turned text
        if stored.originator_version != besides and wanted in state:
            yield stored.originator_version
            tries += 1
            if tries == MISPLACED_TRIES:
                return


def _as_listed(ledger: Ledger, cid: UUID, report: Report) -> Report:
    """The list of campaigns (a log of its own, which ``ledger campaigns`` and
    ``--campaign`` read) must name a campaign as its start does, and once at most: the
    start is in the chain, the list is not. (An import verifies its campaign before
    listing it.)"""
    start = ledger.event(cid, 1)
    listed = [entry for entry in ledger.campaigns() if entry.campaign_id == cid]
    if len(listed) <= 1 and all((entry.slug, entry.name) == (start.slug, start.name) for entry in listed):
        return report
    shown = "; ".join(f"{entry.slug} ({entry.name})" for entry in listed) or "—"
    return Report(start.slug, 0, 1, _("the list of campaigns names this campaign otherwise than its start, "
                                      "{slug} ({name}): as {listed}; the file was changed (ledger campaigns reads "
                                      "that list)").format(slug=start.slug, name=start.name, listed=shown))


def _verify_log(ledger: Ledger, cid: UUID, progress: Callable[[int], None] | None, take_snapshots: bool,
                expect: list[tuple[int, str]], signed_by: str | None, jobs: int | None, split_from: int) -> Report:
    """``verify`` of the campaign's own log."""
    state: dict[str, Any] = {"slug": "?", "campaign": None}
    try:
        if ledger.recorder.select_events(cid, lte=0, limit=1):
            raise _Bad(1, _("the log holds a row before the campaign's start (seq 0 or less): it was put there"))
        evidence = _Evidence(ledger, cid, expect, signed_by)
        starts = [] if take_snapshots else _part_starts(ledger, cid, jobs or _cores(), split_from)
        if starts:
            report = _check_parts(ledger, cid, evidence, state, progress, expect, signed_by, starts)
            if report is not None:
                return report
            state["campaign"] = None  # the parts could not tell: one pass, from the start
            evidence = _Evidence(ledger, cid, expect, signed_by)
        _check_log(ledger, cid, evidence, state, progress, take_snapshots)
    except _Unvouched as unvouched:  # raised before the log's start is read: the slug from the list of campaigns
        slug = next((e.slug for e in ledger.campaigns() if e.campaign_id == cid), state["slug"])
        return Report(slug, 0, None, unvouched.reason, unvouched=True)
    except _Bad as bad:
        campaign = state["campaign"]
        done = min(campaign.version if campaign else 0, bad.seq - 1)
        return Report(state["slug"], done, bad.seq, bad.reason)
    campaign = state["campaign"]
    return Report(campaign.slug, campaign.version, head=campaign.last_hash, signed_to=evidence.signed_to,
                  signed_keys=tuple(evidence.signed_keys), signed_upto=tuple(evidence.signed_upto))


def _check_log(ledger: Ledger, cid: UUID, evidence: _Evidence, state: dict[str, Any],
               progress: Callable[[int], None] | None, take_snapshots: bool,
               campaign: Campaign | None = None, stop: int | None = None) -> None:
    """Checks the log from its start, or from ``campaign`` (the state at a seq, from a
    snapshot that checks out) up to ``stop``, action by action; ``state`` keeps the
    campaign as it goes, for the report."""
    previous = campaign.last_hash if campaign is not None else GENESIS
    expected = campaign.version + 1 if campaign is not None else 1
    rules = ledger.event(cid, campaign.version).ruleset if campaign is not None else 1  # of the action before
    for stored in stored_actions(ledger, cid, after=expected - 1, upto=stop):
        seq = stored.originator_version
        if seq != expected:
            raise _Bad(expected, _("seq {seq} is missing from the log").format(seq=expected))
        try:
            event = ledger.mapper.to_domain_event(stored, quick=False)  # type: ignore[call-arg]  # judged over its dump
        except NewerRecord as exc:  # no damage: a newer ledger's, said so
            raise _Bad(seq, str(exc)) from None
        except Exception as exc:  # noqa: BLE001 — a changed byte can break the JSON or the model
            error = getattr(exc, "cause", exc).__class__.__name__
            raise _Bad(seq, _("seq {seq} cannot be read ({error})").format(seq=seq, error=error)) from None
        if not isinstance(event, ActionRecorded):
            raise _Bad(seq, _("seq {seq} is not a recorded action").format(seq=seq))
        # hashed even though a replay gives the action back: equal events may be written
        # differently (the free JSON of a recorded command: 1, 1.0 and true are equal)
        try:
            hashed = chain_hash(previous, event)
        except (ValueError, RecursionError) as exc:  # a recorded command nested past what pydantic dumps
            raise _Bad(seq, _("seq {seq} cannot be read ({error})").format(seq=seq, error=type(exc).__name__)) from None
        rules = _rules_after(rules, event, seq, lambda: _rules_at(ledger, cid, seq + 1))  # first: newer rules may
        # hash an action otherwise
        if hashed != event.hash:
            raise _Bad(seq, _("seq {seq} does not match its hash: it was changed or moved").format(seq=seq))
        if campaign is None:
            if not isinstance(event, CampaignStarted):
                raise _Bad(seq, _("the log does not begin with the campaign's start"))
            campaign = ledger.project(None, [event])
            assert campaign is not None
            state.update(slug=campaign.slug, campaign=campaign)
        else:
            problem = _replay(ledger, cid, campaign, event, seq)
            if problem:
                raise _Bad(seq, problem)
        evidence.check(campaign)
        previous = event.hash
        expected += 1
        if take_snapshots and seq % ledger.SNAPSHOT_INTERVAL == 0:
            ledger.snapshot(campaign)
        if progress is not None:
            progress(seq)
    if campaign is None:
        raise _Bad(1, _("the campaign has no actions"))
    if stop is None:
        evidence.past_the_end(campaign.version)
    elif campaign.version != stop:
        raise _Bad(campaign.version + 1, _("seq {seq} is missing from the log").format(seq=campaign.version + 1))


def _cores() -> int:
    """The cores this process may run on (its affinity), at most 8."""
    try:
        return max(1, min(len(os.sched_getaffinity(0)), 8))
    except (AttributeError, OSError):
        return max(1, min(os.cpu_count() or 1, 8))


def _part_starts(ledger: Ledger, cid: UUID, jobs: int, split_from: int) -> list[int]:
    """The seqs where the parts after the first begin: snapshots that check out against
    the action at their seq (``Ledger.fit_snapshot``), near each jobs-th of the log; none
    for a short log, one core, or a log without such snapshots."""
    last = ledger.last_seq(cid)
    if jobs < 2 or last < split_from or not sys.executable:
        return []
    starts: list[int] = []
    for part in range(1, jobs):
        try:
            found = ledger.fit_snapshot(cid, last * part // jobs)
        except Exception:  # noqa: BLE001 — an action that cannot be read: no part starts near it
            found = None
        seq = found[0].originator_version if found is not None else 0
        if seq - (starts[-1] if starts else 0) >= split_from // 4 and last - seq >= split_from // 4:
            starts.append(seq)
    return starts


_RUN_PART = "import pickle, sys; sys.path[:0] = pickle.load(sys.stdin.buffer); " \
            "from ledger.audit import check_part; check_part()"


class _Part:
    """A part of the log checked by a ``python -c`` process of its own (not
    ``multiprocessing``, which would run a caller's unguarded script again, or fork a
    process with threads), from its orders on stdin; what it finds comes back pickled on
    stdout, read by a thread: how far it got, then its answer. Its stdin stays open: when
    this process ends, however it ends, the part sees it close and ends too."""

    def __init__(self) -> None:
        import subprocess

        self.done = 0
        self.answer: tuple[Any, ...] = ("failed", "no answer")
        self.reader: Any = None
        self.process = subprocess.Popen([sys.executable, "-c", _RUN_PART], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(self, orders: tuple[Any, ...]) -> None:
        import pickle
        import threading

        try:
            into = self.process.stdin
            pickle.dump([p or os.getcwd() for p in sys.path], into)  # type: ignore[arg-type]
            pickle.dump(orders, into)  # type: ignore[arg-type]
            into.flush()  # type: ignore[union-attr]
        except OSError:  # it ended already: it will say nothing ("failed")
            pass
        self.reader = threading.Thread(target=self._listen, daemon=True, name="verify part")
        self.reader.start()

    def _listen(self) -> None:
        import pickle

        try:
            while True:
                said = pickle.load(self.process.stdout)  # type: ignore[arg-type]
                if said[0] == "done":
                    self.done = said[1]
                else:
                    self.answer = said
                    return
        except Exception:  # noqa: BLE001 — it stopped without a word: "failed"
            return

    def wait(self, progress: Callable[[], None]) -> tuple[Any, ...]:
        while self.reader is not None and self.reader.is_alive():
            self.reader.join(0.1)
            progress()
        return self.answer

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        if self.reader is not None:
            self.reader.join()
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]


def _fingerprint(campaign: Campaign) -> str:
    """The state a part begins or ends on, the order of the heroes included (the digest
    an action of ruleset 4 or older records sorts it away, yet it orders each card's
    witnesses in the actions recorded after it; ``ledger.snapshots.ORDERED``): the parts
    on either side of a seq must hold the same."""
    import hashlib
    import json

    state = campaign.snapshot()
    text = json.dumps([campaign.version, {key: value for key, value in state.items() if key != "table"},
                       digest(state, ordered=True)], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_parts(ledger: Ledger, cid: UUID, evidence: _Evidence, state: dict[str, Any],
                 progress: Callable[[int], None] | None, expect: list[tuple[int, str]], signed_by: str | None,
                 starts: list[int]) -> Report | None:
    """The log in parts: this process checks it from its start to the first part's start,
    a process of its own each part from its snapshot on (to the next part's start, or the
    end). A part begins from a snapshot that checks out against the action at its seq,
    and the part before it checks that very action, and the snapshot, against the log:
    so every part rests on what the one before proved, as in one pass. The first bad seq
    of the earliest part that finds one is the log's first. None when a part fails for
    any other reason (say, it could not open the file): the caller checks the whole log
    in one pass."""
    from .i18n import language

    parts: list[_Part] = []
    mine = [0]

    def shown() -> None:
        if progress is not None:
            progress(mine[0] + sum(part.done for part in parts))

    def counted(seq: int) -> None:
        if seq % 100 == 0:
            mine[0] = seq
            shown()

    try:
        for number, start in enumerate(starts):
            stop = starts[number + 1] if number + 1 < len(starts) else None
            try:
                parts.append(_Part())
            except OSError as exc:  # no process could start
                log.info("verify in one pass: no process for the part from seq %s (%s)", start, exc)
                return None
            # a part only reads: it makes no tables (two parts making PostgreSQL's at once may
            # fail: "tuple concurrently updated", as eventsourcing replaces its function)
            parts[-1].send(({**ledger.env, "CREATE_TABLE": "no"}, cid, expect, signed_by, start, stop, language()))
        _check_log(ledger, cid, evidence, state, counted, False, stop=starts[0])
        mine[0] = starts[0]
        ended_on = _fingerprint(state["campaign"])
        for part in parts:
            answer = part.wait(shown)
            # ("ok", last seq, head, began on, ended on) or ("bad", seq, reason, began on)
            if answer[0] not in ("ok", "bad") or answer[3] != ended_on:  # no finding about the log,
                log.info("verify in one pass: the part from seq %s said %r", starts[parts.index(part)],
                         answer if answer[0] not in ("ok", "bad") else "it began elsewhere")
                return None  # or not begun where the part before ended
            if answer[0] == "bad":
                raise _Bad(answer[1], answer[2])
            ended_on = answer[4]
        last, head = parts[-1].answer[1], parts[-1].answer[2]
        if progress is not None:
            progress(last)
        return Report(state["slug"], last, head=head, signed_to=evidence.signed_to,
                      signed_keys=tuple(evidence.signed_keys), signed_upto=tuple(evidence.signed_upto))
    except _Bad as bad:
        return Report(state["slug"], bad.seq - 1, bad.seq, bad.reason)
    finally:
        for part in parts:
            part.stop()


def check_part() -> None:
    """A part's process (``_Part``): checks the log from the snapshot at its start to its
    stop with a ledger of its own, saying how far it got every 1,000 actions and then
    ``("ok", last seq, head)``, ``("bad", seq, reason)`` or ``("failed", why)``."""
    import pickle

    from .i18n import speaking

    out = sys.stdout.buffer

    def say(*what: Any) -> None:
        pickle.dump(what, out)
        out.flush()

    import threading

    env, cid, expect, signed_by, start, stop, lang = pickle.load(sys.stdin.buffer)

    def orphaned() -> None:  # the checking process closed its end: it ended, or stopped this part
        sys.stdin.buffer.read()
        os._exit(1)

    threading.Thread(target=orphaned, daemon=True).start()
    with speaking(lang):
        began_on = ""
        try:
            ledger = Ledger(env=env)
            found = ledger.fit_snapshot(cid, start)
            if found is None or found[0].originator_version != start:
                say("failed", f"no snapshot that checks out at seq {start}")
                return
            campaign = ledger.project(None, [found[0]])
            began_on = _fingerprint(campaign)
            state: dict[str, Any] = {"slug": campaign.slug, "campaign": campaign}

            def counted(seq: int) -> None:
                if seq % 1000 == 0:
                    say("done", seq - start)

            evidence = _Evidence(ledger, cid, expect, signed_by, after=start)
            _check_log(ledger, cid, evidence, state, counted, False, campaign=campaign, stop=stop)
            say("ok", state["campaign"].version, state["campaign"].last_hash, began_on, _fingerprint(state["campaign"]))
        except _Bad as bad:
            say("bad", bad.seq, bad.reason, began_on)
        except BaseException as exc:  # noqa: BLE001 — told to the process that waits, which checks in one pass
            say("failed", repr(exc))


def _rules_after(before: int, event: ActionRecorded, seq: int, next_rules: Callable[[], int | None]) -> int:
    """The rules an action was decided under, which a ledger never takes back to older
    ones (it records its own ``RULESET``): an action that claims older rules than the
    one before it was recorded by an outdated ledger or forged to pass older rules, and
    one that claims rules this ledger does not know cannot be checked by it, unless the
    action after it claims older ones (``next_rules``: read only then): then it was changed
    (a QA pass: an action edited to claim newer rules was passed off as "check the campaign
    with a newer ledger", though the actions after it were of this ledger's rules)."""
    if event.ruleset > RULESET and (after := next_rules()) is not None and after < event.ruleset:
        raise _Bad(seq, _("seq {seq} claims rules {ruleset}, newer than this ledger knows, though seq {next} after it "
                          "was decided under rules {after}: a ledger never goes back to older rules, so seq {seq} was "
                          "changed").format(seq=seq, ruleset=event.ruleset, next=seq + 1, after=after))
    if event.ruleset > RULESET:
        raise _Bad(seq, _("seq {seq} was decided under rules {ruleset}, newer than this ledger knows ({known}): "
                          "check the campaign with a newer ledger").format(seq=seq, ruleset=event.ruleset,
                                                                         known=RULESET))
    if event.ruleset < before:
        raise _Bad(seq, _("seq {seq} claims the older rules {ruleset}, though the action before it was decided under "
                          "rules {before}: a ledger never goes back to older rules, so it was recorded by an outdated "
                          "ledger or forged").format(seq=seq, ruleset=event.ruleset, before=before))
    return event.ruleset


def _rules_at(ledger: Ledger, cid: UUID, seq: int) -> int | None:
    """The rules the action at ``seq`` claims, or None when there is none or it cannot be read."""
    try:
        return ledger.event(cid, seq).ruleset
    except Exception:  # noqa: BLE001 — missing, damaged, or a newer ledger's: it tells nothing here
        return None


def _replay(ledger: Ledger, cid: UUID, campaign: Campaign, event: ActionRecorded, seq: int) -> str | None:
    """Decides the recorded command again; None if it gives the stored event back, else
    what is wrong with the action at ``seq``."""
    if event.command is None:
        return _("seq {seq} records no command to check").format(seq=seq)
    try:
        command = from_record(event.command)
    except Exception:  # noqa: BLE001 — any malformed record is refused the same way
        return _("seq {seq} records a command that cannot be read").format(seq=seq)
    play = Play(campaign, command.actor, seed=event.rng, lookup=lambda seq: ledger.event(cid, seq),
                scan=lambda gt, lte: ledger.reshuffles_between(cid, gt, lte),
                takebacks=lambda gt, lte: ledger.takebacks_between(cid, gt, lte))
    try:
        with decided_under(event.ruleset):  # the rules it was recorded under
            again = decide_event(play, command, timestamp=event.timestamp)
    except LedgerError as exc:
        play.rollback()
        return _("seq {seq} breaks the rules when checked again: {refusal}").format(seq=seq, refusal=exc)
    if _as_recorded_then(again, event, campaign.last_hash) != event:
        play.rollback()
        campaign.table.apply_all(event.changes)  # keep going consistently for the message
        return _("seq {seq} does not replay to what was recorded").format(seq=seq)
    campaign.record(event)
    for commitment in event.commitments:  # each committed order is the order recorded
        if not holds(commitment, campaign.table.cards_in(commitment.stack)):
            return _("seq {seq} commits to an order of {zone} that is not the order it recorded").format(
                seq=seq, zone=commitment.stack)
    return None


def _as_recorded_then(again: ActionRecorded, stored: ActionRecorded, previous: str) -> ActionRecorded:
    """The action decided again, without the facts a ledger of the stored action's
    time did not record yet (its ``later`` fields the stored event leaves empty, when
    its ruleset is older than the one from which they are always recorded:
    ``ActionRecorded.LATER_FROM``), sealed again after the previous action's hash."""
    fields = type(stored).model_fields
    empty = {name: fields[name].get_default() for name in stored.later
             if stored.ruleset < stored.LATER_FROM[name]
             and getattr(stored, name) == fields[name].get_default() != getattr(again, name)}
    return sealed(previous, again.model_copy(update=empty)) if empty else again
