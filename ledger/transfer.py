"""Moving a campaign's record between files: ``export`` and ``import_campaign``.

An export is JSON Lines: one stored action per line, then a trailer line
``{"trailer": {"count", "head", "key"?, "signature"?, "checkpoints"?}}`` — the checkpoint
at its last seq, signed when the ledger has a key — so that a file cut short or
rewritten and re-hashed is refused. ``checkpoints`` carries the checkpoints kept in the
file up to that seq and, when signed, one at that seq: a copy keeps them, so that
``verify --signed-by`` holds there as in the original. ``import_campaign`` reads the file
a line at a time (constant memory; the first bad line stops it) into a scratch database,
verifies it there (the checkpoints carried too), and only then copies it into the target
in one transaction.
"""

from __future__ import annotations

import json
import tempfile
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from uuid import UUID

from eventsourcing.persistence import StoredEvent

from .application import Ledger, campaign_uuid, checkpoint_log_id
from .audit import PAGE, Report, stored_actions, verify
from .checkpoints import Checkpoint, message, take
from .errors import BadCatalog, LedgerError, StoreError
from .events import CampaignStarted
from .i18n import _
from .integrity import GENESIS, check_link
from .signing import Signer, signature_holds
from .vocabulary import MASTER, PUBLIC, REFEREE, check_hero_id


# -- export ------------------------------------------------------------------------------
def export(ledger: Ledger, cid: UUID, out: IO[str], signer: Signer | None = None) -> Checkpoint:
    """Writes the campaign's log as JSON Lines, one action per line, and its trailer;
    returns the checkpoint the trailer holds. Each action is checked against the chain
    as it is written (``check_link``): an action edited in the file without its hash
    stops the export (``DamagedRecord``) rather than go out under a signed trailer; a key
    whose earlier signature the log contradicts refuses before a line is written (to
    stdout too), and again at the end if the log moved meanwhile (``Ledger.keeps_its_word``)."""
    checked: tuple[int, str] | None = None
    last = ledger.last_seq(cid) if signer is not None else None
    if last:
        checked = (last, ledger.event(cid, last).hash)
        ledger.keeps_its_word(cid, signer, *checked)
    count, head, previous = 0, "", GENESIS
    for stored in stored_actions(ledger, cid):
        check_link(previous, ledger.mapper.to_domain_event(stored))
        event = json.loads(stored.state)
        previous = event.get("hash", "")
        line = {
            "campaign_id": str(cid), "seq": stored.originator_version,
            "type": stored.topic.rsplit(":", 1)[-1], "topic": stored.topic, "event": event,
        }
        out.write(_line(line))
        count, head = stored.originator_version, event.get("hash", "")
    if (count, head) != checked:  # another writer since the check above (or no key: nothing to keep)
        ledger.keeps_its_word(cid, signer, count, head)
    checkpoint = take(cid, count, head, signer, what="export")
    write_trailer(out, checkpoint, carried_checkpoints(ledger, cid, count, head, signer))
    return checkpoint


def carried_checkpoints(ledger: Ledger, cid: UUID, count: int, head: str,
                        signer: Signer | None) -> list[Checkpoint]:
    """What an export ending at ``count`` carries for its copy to keep: the checkpoints kept
    in the file up to ``count`` (one kept while the export was read, past it, would make
    the copy look cut short) and, with a key, the one at ``count``, signed as a checkpoint
    (the trailer's signature is an export's, which ``verify`` does not take)."""
    carried = [kept for kept in ledger.kept_checkpoints(cid) if kept.seq <= count]
    if signer is not None:
        last = take(cid, count, head, signer)
        if last not in carried:
            carried.append(last)
    return carried


def write_trailer(out: IO[str], checkpoint: Checkpoint, checkpoints: Sequence[Checkpoint] = ()) -> None:
    trailer = {"count": checkpoint.seq, **checkpoint.as_dict()}
    trailer.pop("seq")
    if checkpoints:
        trailer["checkpoints"] = [kept.as_dict() for kept in checkpoints]
    out.write(_line({"trailer": trailer}))


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


# -- import ------------------------------------------------------------------------------
@dataclass
class _Reading:
    """What reading an export found besides its actions."""

    cid: UUID | None = None
    count: int = 0
    trailer: dict[str, Any] | None = None
    checkpoints: tuple[Checkpoint, ...] = ()  # carried by the trailer, for the copy to keep


LONGEST_LINE = 16 * 1024 * 1024
"""Characters of the longest line an import reads: far more than an action's (a campaign's
start, with its whole catalog, is the longest)."""


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        handle = path.open(encoding="utf-8-sig")  # a byte-order mark an editor put first: not part of the export
    except FileNotFoundError:
        raise BadCatalog(_("{path}: no such export file").format(path=path)) from None
    except OSError as exc:
        raise BadCatalog(_("{path}: cannot read it ({error})").format(
            path=path, error=exc.strerror or exc.__class__.__name__)) from None
    with handle:
        number = 0
        try:
            while text := handle.readline(LONGEST_LINE + 1):
                number += 1
                if len(text) > LONGEST_LINE:  # /dev/zero, or a file of one endless line: not read into memory
                    raise BadCatalog(_("{path} line {line}: longer than any exported action ({limit:,} characters); "
                                       "not an export").format(path=path, line=number, limit=LONGEST_LINE))
                if text.strip():
                    yield number, text
        except UnicodeDecodeError:
            raise BadCatalog(_("{path} line {line}: not UTF-8 text; not an exported action").format(
                path=path, line=number + 1)) from None


def _stored_events(path: Path, reading: _Reading) -> Iterator[StoredEvent]:
    """The actions of an export, checked line by line as they are read."""
    for number, text in _lines(path):
        if reading.trailer is not None:
            raise BadCatalog(_("{path} line {line}: a line after the trailer; the trailer ends an export").format(
                path=path, line=number))
        try:
            line = json.loads(text)
        except (ValueError, RecursionError):  # RecursionError: arrays or objects nested too deep
            raise BadCatalog(_("{path} line {line}: not an exported action").format(path=path, line=number)) from None
        if isinstance(line, dict) and "export" in line:
            raise BadCatalog(_viewer_export(path, line))
        if isinstance(line, dict) and "trailer" in line:
            reading.trailer = _trailer(path, number, line["trailer"])
            reading.checkpoints = _carried(path, number, reading.trailer.get("checkpoints", []))
            continue
        yield _action(path, number, line, reading)


def _viewer_export(path: Path, line: dict[str, Any]) -> str:
    """The refusal of a viewer's export, naming the viewer its header names when that is one
    (the public or a hero): a header edited to name the referee was refused as "what referee
    may know of the campaign (hidden cards left out)" (a QA pass)."""
    header = line["export"] if isinstance(line["export"], dict) else {}
    viewer = header.get("viewer")
    try:
        named = viewer == PUBLIC or (isinstance(viewer, str) and viewer not in (REFEREE, MASTER)
                                     and check_hero_id(viewer) == viewer)
    except LedgerError:
        named = False
    viewer = viewer if named else _("a viewer")
    return _("{path}: refused, it is what {viewer} may know of the campaign (hidden cards left out); only the "
             "referee's export (ledger export, without --as) can be imported").format(path=path, viewer=viewer)


def _trailer(path: Path, number: int, trailer: Any) -> dict[str, Any]:
    ok = (isinstance(trailer, dict) and isinstance(trailer.get("count"), int) and isinstance(trailer.get("head"), str)
          and all(isinstance(trailer.get(k), str | None) for k in ("key", "signature")))
    if not ok:
        raise BadCatalog(_("{path} line {line}: a trailer must hold a count and a head").format(path=path, line=number))
    return trailer


def _carried(path: Path, number: int, carried: Any) -> tuple[Checkpoint, ...]:
    """The trailer's checkpoints, each a seq, a head and (both or neither) a key and a
    signature; whether they hold is ``verify``'s to say, as for those kept in a file."""
    checkpoints = []
    for kept in carried if isinstance(carried, list) else [None]:
        ok = (isinstance(kept, dict) and type(kept.get("seq")) is int and kept["seq"] >= 1
              and isinstance(kept.get("head"), str) and isinstance(kept.get("key"), str | None)
              and isinstance(kept.get("signature"), str | None)
              and (kept.get("key") is None) == (kept.get("signature") is None))
        if not ok:
            raise BadCatalog(_("{path} line {line}: the trailer's checkpoints must each hold a seq and a head (and "
                               "a key with its signature)").format(path=path, line=number))
        checkpoints.append(Checkpoint(kept["seq"], kept["head"], kept.get("key"), kept.get("signature")))
    return tuple(checkpoints)


def _action(path: Path, number: int, line: Any, reading: _Reading) -> StoredEvent:
    try:
        this, seq, topic, state = line["campaign_id"], line["seq"], line["topic"], line["event"]
        if not (isinstance(this, str) and isinstance(seq, int) and not isinstance(seq, bool) and isinstance(topic, str)
                and topic.startswith("ledger.events:") and isinstance(state, dict)):
            raise ValueError
        this = UUID(this)
        topic.encode()  # a lone surrogate is no topic either
        state_bytes = json.dumps(state, ensure_ascii=False, separators=(",", ":")).encode()
    except (ValueError, KeyError, TypeError, RecursionError):  # UnicodeEncodeError (a lone \ud800) is a ValueError
        raise BadCatalog(_("{path} line {line}: not an exported action").format(path=path, line=number)) from None
    if reading.cid is not None and this != reading.cid:
        raise BadCatalog(_("{path} line {line}: a second campaign; an export holds one campaign").format(
            path=path, line=number))
    if seq != reading.count + 1:
        raise BadCatalog(_("{path} line {line}: refused, seq {expected} is bad: the line holds seq {seq} (lines must "
                           "hold seqs 1, 2, 3… in order)").format(path=path, line=number, expected=reading.count + 1,
                                                                  seq=seq))
    reading.cid, reading.count = this, seq
    return StoredEvent(originator_id=this, originator_version=seq, topic=topic, state=state_bytes)


def _pages(items: Iterable[StoredEvent]) -> Iterator[list[StoredEvent]]:
    page: list[StoredEvent] = []
    for item in items:
        page.append(item)
        if len(page) == PAGE:
            yield page
            page = []
    if page:
        yield page


def _check_trailer(path: Path, reading: _Reading, report: Report, untrailed_ok: bool,
                   signed_by: str | None) -> None:
    trailer = reading.trailer
    if trailer is None:
        if untrailed_ok and signed_by is None:
            return
        raise BadCatalog(_("{path}: refused, it has no trailer line: the file was cut short (an export written "
                           "before trailers existed imports with --without-trailer, verified all the same)").format(
            path=path))
    if trailer["count"] != report.actions:
        raise BadCatalog(_("{path}: refused, the trailer counts {count} actions but the file holds {actions}: "
                           "actions were cut off or added").format(path=path, count=trailer["count"],
                                                                   actions=report.actions))
    if trailer["head"] != report.head:
        raise BadCatalog(_("{path}: refused, the trailer's head is not the head of the actions in the file: they "
                           "were rewritten after the export").format(path=path))
    assert reading.cid is not None
    signature, key = trailer.get("signature"), trailer.get("key")
    signed = {what: bool(signature is not None and key
                         and signature_holds(key, message(reading.cid, report.actions, report.head, what), signature))
              for what in ("export", "checkpoint")}
    if signature is not None and not any(signed.values()):
        raise BadCatalog(_("{path}: refused, the trailer's signature does not hold: it was forged or changed").format(
            path=path))
    if signed_by is not None and (signature is None or key != signed_by):
        raise BadCatalog(_("{path}: refused, the export is not signed by the key you trust").format(path=path))
    if signed_by is not None and not signed["export"]:
        # a checkpoint's signature says the log held that head at that seq, not that the export ended there
        raise BadCatalog(_("{path}: refused, the trailer carries a checkpoint's signature, not an export's: it "
                           "vouches for the actions up to seq {seq}, not that the export ends there (a checkpoint "
                           "put there to hide the actions cut after it, or an export written by an older ledger: "
                           "ask the master for a new export)").format(path=path, seq=report.actions))


def import_campaign(path: str | Path, target: str | Path, *, expect: Iterable[tuple[int, str]] = (),
                    signed_by: str | None = None, untrailed_ok: bool = False) -> Report:
    """Creates a campaign from an export, after verifying it in a scratch database.
    A tampered file is refused naming the first bad seq (or what is wrong with its
    trailer); the target is untouched."""
    from .postgres import is_postgres

    path = Path(path)
    if is_postgres(target):  # verified in a scratch SQLite file of the system's temporary folder
        scratch = Path(tempfile.gettempdir()) / f"ledger-import-{uuid.uuid4().hex[:8]}.db"
    else:
        target = Path(target)
        from .storage_errors import folder_problem, problem_message

        missing = folder_problem(target)  # said of the file asked for, not of the scratch file beside it
        if missing is not None:
            raise StoreError(problem_message(missing, target, writing=True))
        scratch = target.with_name(f".{target.name}.import-{uuid.uuid4().hex[:8]}.db")
    trial = Ledger.open(scratch, create=True)
    try:
        reading = _Reading()
        for page in _pages(_stored_events(path, reading)):
            trial.recorder.insert_events(page)
        if reading.cid is None:
            raise BadCatalog(_("{path}: holds no actions").format(path=path))
        cid = reading.cid
        for checkpoint in reading.checkpoints:  # checked by verify as the file's own are
            trial.keep(cid, checkpoint)
        report = verify(trial, cid, take_snapshots=True, expect=expect)
        if report.held_at is not None and report.bad_seq is None:
            raise BadCatalog(_("{path}: refused: {reason}").format(path=path, reason=report.reason))
        if not report.ok:
            raise BadCatalog(_("{path}: refused, seq {seq} is bad: {reason}").format(path=path, seq=report.bad_seq,
                                                                                    reason=report.reason))
        _check_trailer(path, reading, report, untrailed_ok, signed_by)
        first = trial.event(cid, 1)
        assert isinstance(first, CampaignStarted)
        if campaign_uuid(first.slug) != cid:
            raise BadCatalog(_("{path}: the campaign id does not belong to campaign {campaign}").format(
                path=path, campaign=repr(first.slug)))
        _copy(trial, cid, first, target)
    finally:
        trial.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{scratch}{suffix}").unlink(missing_ok=True)
    return report


def _insert(recorder: Any, cursor: Any, events: list[StoredEvent]) -> None:
    """Stored events inserted in the caller's transaction, through the recorder's own
    statements: SQLite's recorders insert in ``_insert_events``; PostgreSQL's in
    ``_insert_stored_events`` (the events recorder locking the table first, so that
    notification ids commit in order; its ``_insert_events`` is empty, and the snapshots
    recorder has none)."""
    insert_stored = getattr(recorder, "_insert_stored_events", None)
    if insert_stored is not None:
        insert_stored(cursor, events)
    else:
        recorder._insert_events(cursor, events)


def _copy(trial: Ledger, cid: UUID, first: CampaignStarted, target: str | Path) -> None:
    """The verified campaign, its snapshots, the checkpoints its export carried and its
    entry in the campaigns log, into ``target`` in one transaction, a page at a time."""
    from .postgres import shown

    ledger = Ledger.open(target, create=True)
    try:
        ledger.refuse_unlisted_log()  # a file whose list of campaigns was deleted takes no campaign in
        if any(e.slug == first.slug for e in ledger.campaigns()):
            raise StoreError(_("{db} already holds a campaign {campaign}; import into another database with "
                               "--db").format(db=shown(str(target)), campaign=repr(first.slug)))
        entry = ledger.campaign_log.trigger_event(slug=first.slug, campaign_id=cid, name=first.name)
        assert trial.snapshots is not None and ledger.snapshots is not None
        with ledger.recorder.datastore.transaction(commit=True) as cursor:
            for page in _pages(stored_actions(trial, cid)):
                _insert(ledger.recorder, cursor, page)
            _insert(ledger.recorder, cursor, [ledger.mapper.to_stored_event(entry)])
            if carried := trial.recorder.select_events(checkpoint_log_id(cid)):
                _insert(ledger.recorder, cursor, carried)
            last = 0  # the snapshots the verifying replay took, so loading never replays from the start
            while page := trial.snapshots.recorder.select_events(cid, gt=last, limit=PAGE):
                _insert(ledger.snapshots.recorder, cursor, page)
                last = page[-1].originator_version
    finally:
        ledger.close()
