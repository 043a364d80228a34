"""A record nobody can quietly rewrite (README "a record you can trust"): ``verify``,
``checkpoint``, the master's signing ``keys``, and ``export`` / ``import``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any, NoReturn

import click

from ...errors import BadInput, DamagedRecord, StoreError
from ...i18n import N_, _, ngettext
from ...vocabulary import REFEREE
from .group import cli
from .session import Session, error_line, note_line, pass_session, with_message

EXPECT_HELP = N_("A checkpoint you kept (SEQ:HEAD, from a view or ledger checkpoint): the log must still hold "
                 "that head at that seq. Repeatable.")
SIGNED_BY_HELP = N_("The master's public key (ledger keys show): the signatures must be made with it.")


def _expected(values: tuple[str, ...]) -> list[tuple[int, str]]:
    from ...checkpoints import parse_expected

    return [parse_expected(value) for value in values]


def _public_key(value: str | None) -> str | None:
    """The key --signed-by names, checked; an empty one is refused rather than read as
    "no check" (a script's unset $KEY must not turn the signature check off)."""
    from ...signing import check_public_key

    if value is None:
        return None
    if not value.strip():
        raise BadInput(_("--signed-by is empty; it expects the master's public key, the 44 characters ledger keys "
                         "show prints"))
    return check_public_key(value)


@cli.command()
@click.option("--expect", "expected", multiple=True, metavar="SEQ:HEAD", help=EXPECT_HELP)
@click.option("--signed-by", default=None, metavar="KEY", help=SIGNED_BY_HELP)
@pass_session
def verify(s: Session, expected: tuple[str, ...], signed_by: str | None) -> None:
    """Check the whole log: hash chain, every action decided again under the rules,
    snapshots, checkpoints, and the read-model tables.

    Exits 1 and names the first bad seq if the record was altered.

    \b
    Example: ledger verify    |    ledger verify --expect 42:5f0c…
    """
    from ...audit import verify as verify_log

    expect, key = _expected(expected), _public_key(signed_by)
    ledger = s.ledger()
    cid = s.cid(whole=False)  # a log that lost actions is reported below, not refused
    model = s.model(catch_up=False)
    slug = next(e.slug for e in ledger.campaigns() if e.campaign_id == cid)  # not a load: the log may be bad
    witnessed = model.last_history_seq(slug)
    with s.progress(_("verifying"), "actions", ledger.last_seq(cid)) as update:
        report = verify_log(ledger, cid, progress=update, expect=expect, signed_by=key)
    if report.ok and witnessed is not None and witnessed > report.actions:
        _not_intact(s, report.as_dict() | {"bad_seq": report.actions + 1, "head": None},
                    _("the log is not intact: it ends at seq {seq} but the read models once recorded "
                      "seq {witnessed}: actions are missing").format(seq=report.actions, witnessed=witnessed))
    if report.unvouched:  # no finding about the log: what --signed-by asked for is not there
        _not_intact(s, report.as_dict(), _("the key you trust does not vouch for this file's record: {reason} (ledger "
                                           "verify without --signed-by checks the log itself)").format(
            reason=report.reason))
    if report.held_at is not None and report.bad_seq is None:  # no finding about the log: a seq given wrong
        _not_intact(s, report.as_dict(), report.reason)
    if not report.ok:
        _not_intact(s, report.as_dict(), _("the log is not intact: {reason}").format(reason=report.reason))
    try:
        problem = _read_models_problem(s, slug)
    except DamagedRecord as damaged:  # the file's order of the actions, which the chain does not cover
        if damaged.seq is None:  # a damaged record of another kind: said as it is
            raise
        _not_intact(s, report.as_dict() | {"bad_seq": damaged.seq, "head": None},
                    _("the log is not intact: {reason}").format(reason=damaged))
    stopped = model.stop_of(slug, cid)
    if stopped is not None:  # the file's order of its actions (which the chain does not cover), or its name's
        from projections.readmodel import stopped_at

        _not_intact(s, report.as_dict() | {"bad_seq": stopped.seq, "head": None},
                    _("the log is not intact: {reason}").format(reason=stopped_at(*stopped[:3])))
    if problem:
        _not_intact(s, report.as_dict() | {"read_models": problem},
                    _("the log is intact, but the read-model tables did not match it: {problem} "
                      "(they were changed; rebuilt them from the log)").format(problem=problem))
    from ...seats import SeatBook

    SeatBook(ledger).refresh()  # the file's seats log reads back whole, as the table server reads it (else: damaged)
    # the keys named: anyone holding the file can sign checkpoints with a key of their own
    # each key with its own latest seq: one "up to" for all let another key's reach read as the master's
    signed = "".join(_("; checkpoints signed by {keys} hold up to seq {seq}").format(keys=key, seq=upto)
                     for key, upto in zip(report.signed_keys, report.signed_upto))
    # "ok:" starts the line in every language (scripts may look for it, as for "error:").
    line = "ok: " + ngettext(
        "{n} action of {campaign}: hash chain intact, every action replays under the rules, snapshots and "
        "checkpoints match{signed}; head {seq}:{head}",
        "{n} actions of {campaign}: hash chain intact, every action replays under the rules, snapshots and "
        "checkpoints match{signed}; head {seq}:{head}", report.actions).format(
        n=report.actions, campaign=report.campaign, signed=signed, seq=report.actions, head=report.head)
    s.emit(with_message(report.as_dict(), line), human=line)


def _read_models_problem(s: Session, slug: str) -> str | None:
    """Catches the read models up (a repair on the way is reported on stderr) and
    compares every row of campaign ``slug`` with the log (and looks for rows of no
    campaign of it); a difference is named, and the tables rebuilt."""
    from projections.consistency import compare_with_log

    model = s.model()
    # any campaign's cut first: rows past its log are the one trace of it, which the rebuild
    # below would lose (O(campaigns)); the comparison only reads, so it cannot make one
    model.refuse_any_cut()
    problem = compare_with_log(model, s.ledger(), campaign=slug)
    if problem:
        model.rebuild()
    return problem


def _not_intact(s: Session, data: dict[str, Any], message: str) -> NoReturn:
    """Verify's failure: the report (``--json``; ``reason`` and ``message``: the error
    line's text, in the language spoken) and one ``error:`` line, exit 1."""
    where = " " + _("(first bad seq: {seq})").format(seq=data["bad_seq"]) if data.get("bad_seq") else ""
    data = data | {"ok": False, "reason": message, "message": f"{message}{where}"}
    if s.as_json:
        click.echo(json.dumps(data))
    click.echo(error_line(f"{message}{where}"), err=True)
    sys.exit(1)


@cli.command()
@pass_session
def checkpoint(s: Session) -> None:
    """Print the campaign's latest checkpoint (seq and head hash) for players to keep.

    It is kept in the database too (verify checks it), and signed when this machine
    has the master's key (ledger keys init). Later, anyone can check that the record
    was not cut short or rewritten: ledger verify --expect SEQ:HEAD.

    \b
    Example: ledger checkpoint
    """
    ledger, cid, signer = s.ledger(), s.cid(), s.signer()
    # only signatures that hold: a checkpoint put in the file names any "key" it likes
    earlier = [] if signer is not None else [c.key for c in ledger.kept_checkpoints(cid)
                                             if c.signature and c.key and c.holds_for(cid)]
    kept = ledger.keep_checkpoint(cid, signer)
    signed = " " + _("(signed by {key})").format(key=kept.key) if kept.signature else ""
    if earlier:  # a master whose key is not at hand here hands out an unsigned one unawares (a QA pass)
        from ...signing import key_path

        click.echo(note_line(_("this checkpoint is not signed: no key at {path}, though earlier "
                               "checkpoints of this campaign were signed by {key}").format(
            path=key_path(), key=earlier[-1])), err=True)
    # --json: the checkpoint itself (seq, head, key, signature), without a message: players keep it as it is.
    s.emit(kept.as_dict(), human=_("checkpoint {checkpoint}{signed}").format(checkpoint=kept.text, signed=signed)
           + "\n" + _("keep it; check the record later with: ledger verify --expect {checkpoint}").format(
               checkpoint=kept.text))


@cli.group()
def keys() -> None:
    """The master's signing key (Ed25519), kept outside the database.

    With a key, checkpoints and exports are signed, so that whoever holds the database
    file alone cannot hand out checkpoints or exports of a rewritten record. The key is
    at $LEDGER_KEY, else ~/.config/campaign-ledger/signing-key.pem.

    \b
    Example: ledger keys init    |    ledger keys show
    """


@keys.command("init")
@click.option("--key", "file", default=None, help="Where to write the key (default: $LEDGER_KEY or ~/.config/…).")
@pass_session
def keys_init(s: Session, file: str | None) -> None:
    """Create the master's signing key and print its public key, for the players.

    \b
    Example: ledger keys init
    """
    from rich.markup import escape

    from ...signing import KEY_ENV, create_key, key_path

    path = key_path(file)
    signer = create_key(path)
    hint = "" if path == key_path() else _("; set {variable}={path} for the ledger to use it").format(
        variable=KEY_ENV, path=path)
    line = "\n".join((
        _("created the signing key {path} (keep it safe, away from the campaign's file{hint})").format(
            path=path, hint=hint),
        _("public key: {key}").format(key=signer.public),
        _("give it to the players; they check signatures with: ledger verify --signed-by {key}").format(
            key=signer.public)))
    s.emit(with_message({"key": str(path), "public": signer.public}, line), human=escape(line))


@keys.command("show")
@pass_session
def keys_show(s: Session) -> None:
    """Print the public key of the master's signing key.

    \b
    Example: ledger keys show
    """
    from ...signing import key_path

    signer = s.signer()
    if signer is None:
        raise BadInput(_("no signing key at {path}; create one with ledger keys init").format(path=key_path()))
    line = _("public key: {key}").format(key=signer.public)
    s.emit(with_message({"key": str(signer.path), "public": signer.public}, line), human=line)


@cli.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--force", is_flag=True, help="Write over FILE even if it holds something other than an export.")
@pass_session
def export(s: Session, file: str | None, force: bool) -> None:
    """Write the campaign's log as JSON Lines (stdout without FILE, or with -), ending
    with a trailer (the count and head hash, signed when there is a key).

    As the referee (the default) it is the whole log, importable. With --as public or
    --as HERO it is only what that viewer may know: hidden cards as null, no seeds, no
    deck orders, no action hashes; its first line says so, and it cannot be imported.
    An existing FILE is replaced only if it holds an export (or nothing), unless --force.

    \b
    Example: ledger export campaign.jsonl    |    ledger --as ana export ana.jsonl
    """
    if file == "-":  # stdout, as the convention goes (a file named so: ./-)
        file = None
    if file is not None and (not file.strip() or os.path.basename(file) in ("", ".", "..")):
        raise BadInput(_("{file} names no file to write; give a file name, or none (or -) for stdout").format(
            file=repr(file)))
    if file is not None:  # before the database is opened: a refusal touches nothing
        _refuse_overwriting(s, Path(file), _partial(Path(file)))
        if not force:
            _refuse_replacing_other_files(Path(file), s.viewer)
    ledger = s.ledger()
    cid = s.cid()
    viewer = s.viewing(ledger.campaign(cid))
    if file is None:
        count = _export_to(s, viewer, sys.stdout)  # the log itself is the output, with or without --json
        return
    target = Path(file)
    # a pipe (>(gzip > x.gz)), /dev/stdout, any link: written as it goes, never replaced (a rename over
    # /dev/stdout would replace the device's link itself); a plain file (in /dev/shm too) is replaced whole
    streamed = target.is_symlink() or (target.exists() and not target.is_file())
    partial = target if streamed else _partial(target)
    to_stdout = False
    try:
        with partial.open("w", encoding="utf-8") as out:
            to_stdout = streamed and _same_as_stdout(out)
            count = _export_to(s, viewer, out)
        if not streamed:
            partial.replace(target)
    except OSError as exc:
        if not streamed:
            partial.unlink(missing_ok=True)
        from ...storage_errors import os_error_reason

        raise StoreError(_("cannot write the export to {file}: {reason}").format(
            file=target, reason=os_error_reason(exc))) from None
    except BaseException:  # refused on the way (an action that does not match its hash), or interrupted
        if not streamed:
            partial.unlink(missing_ok=True)
        raise
    from rich.markup import escape

    if viewer == REFEREE:
        line = ngettext("exported {n} action to {file}", "exported {n} actions to {file}", count)
    else:
        line = ngettext("exported {n} action as {viewer} may know it to {file}",
                        "exported {n} actions as {viewer} may know them to {file}", count)
    line = line.format(n=count, viewer=viewer, file=target)
    if to_stdout:  # the export is the output: the line would follow its trailer
        click.echo(line, err=True)
        return
    s.emit(with_message({"exported": count, "file": str(target), "viewer": viewer}, line), human=escape(line))


def _same_as_stdout(out: IO[str]) -> bool:
    try:
        return os.path.samestat(os.fstat(out.fileno()), os.fstat(1))
    except OSError:
        return False


def _partial(target: Path) -> Path:
    """Where export writes first, replacing ``target`` with it once written."""
    return target.with_name(f".{target.name}.partial")


SQLITE_HEADER = b"SQLite format 3\0"


def _refuse_overwriting(s: Session, *paths: Path) -> None:
    """Export writes its file (and the partial file it writes first) over whatever is
    there: never over the campaign database (--db) or its -wal/-shm files, nor over any
    other SQLite database."""
    from ...postgres import is_postgres

    own = () if is_postgres(s.db) else tuple(Path(f"{s.db}{suffix}") for suffix in ("", "-wal", "-shm", "-journal"))
    for path in paths:
        if any(_same_file(path, mine) for mine in own):
            raise BadInput(_("export would write over {file}, the campaign database (--db {db}) or its -wal/-shm "
                             "file; export to another file, e.g. campaign.jsonl").format(file=path, db=s.db))
        if _is_sqlite(path):
            raise BadInput(_("export would write over {file}, an SQLite database; export to a new file, e.g. "
                             "campaign.jsonl").format(file=path))


# How every export begins: the referee's with its first action, a viewer's with its header.
EXPORT_STARTS = (b'{"campaign_id":', b'{"export":')


def _refuse_replacing_other_files(path: Path, viewer: str) -> None:
    """Export replaces an earlier export (or an empty file) without asking; any other file
    (a catalog, a README, someone's notes) only with --force: a slip of the tab key would
    lose it. Nor does a viewer's export replace the referee's, the one that can be imported."""
    try:
        if not path.is_file() or path.stat().st_size == 0:  # missing (the usual case), a pipe, a device
            return
        with path.open("rb") as handle:
            start = handle.read(3 + max(map(len, EXPORT_STARTS))).removeprefix(b"\xef\xbb\xbf")
            if not start.strip() and not handle.read(1):  # blank (a newline an editor left): as empty
                return
    except OSError:  # unreadable: the write will say what is wrong
        return
    if start.startswith(EXPORT_STARTS[0]) and viewer != REFEREE:
        raise BadInput(_("export would replace {file}, the referee's export (the one that can be imported), with "
                         "what {viewer} may know; export to a new file, or give --force to replace it").format(
            file=path, viewer=viewer))
    if not start.startswith(EXPORT_STARTS):
        raise BadInput(_("export would replace {file}, which holds something other than an export; export to a "
                         "new file, or give --force to replace it").format(file=path))


def _same_file(path: Path, other: Path) -> bool:
    try:
        if path.exists() and other.exists():
            return os.path.samefile(path, other)
        return path.resolve() == other.resolve()
    except (OSError, RuntimeError):  # unreadable folders, symlink loops: the write will say what is wrong
        return False


def _is_sqlite(path: Path) -> bool:
    try:
        if not path.is_file():  # a pipe (>(gzip > x.gz)) would block this read; a device says nothing
            return False
        with path.open("rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:  # missing (the usual case), a directory, unreadable: the write will say what is wrong
        return False


def _export_to(s: Session, viewer: str, out: IO[str]) -> int:
    from ...transfer import carried_checkpoints, write_trailer
    from ...transfer import export as export_log

    ledger, cid = s.ledger(), s.cid()
    if viewer == REFEREE:
        return export_log(ledger, cid, out, s.signer()).seq
    from projections.viewer_export import write_viewer_export

    from ...checkpoints import take

    count = write_viewer_export(ledger, cid, viewer, out)
    head, signer = ledger.event(cid, count).hash, s.signer()
    ledger.keeps_its_word(cid, signer, count, head)
    write_trailer(out, take(cid, count, head, signer, what="export"),
                  carried_checkpoints(ledger, cid, count, head, signer))  # the full export's trailer
    return count


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--db", "target", default=None, help="The database to import into (default: the global --db).")
@click.option("--expect", "expected", multiple=True, metavar="SEQ:HEAD", help=EXPECT_HELP)
@click.option("--signed-by", default=None, metavar="KEY", help=SIGNED_BY_HELP)
@click.option("--without-trailer", is_flag=True,
              help="Accept an export written before exports had trailers (it is verified all the same).")
@pass_session
def import_(s: Session, file: str, target: str | None, expected: tuple[str, ...], signed_by: str | None,
            without_trailer: bool) -> None:
    """Create a campaign from an export, verified first; a tampered, cut or viewer's file is refused.

    \b
    Example: ledger import campaign.jsonl --db copy.db
    """
    from rich.markup import escape

    from ...transfer import import_campaign

    destination = target or s.db
    s.close()
    s.db = destination
    try:
        s.ledger()
    except StoreError:  # no campaign database there yet (or one import_campaign says more about)
        pass
    else:
        s.refuse_cut_log()  # a file whose log lost actions takes no campaign in either
    s.close()
    report = import_campaign(file, destination, expect=_expected(expected), signed_by=_public_key(signed_by),
                             untrailed_ok=without_trailer)
    s.close()
    s.db = destination
    s.model()
    if signed_by is None and not expected:  # the trailer's own count and head only catch a file cut by accident
        click.echo(note_line(_("nothing you trust vouched for where this export ends: a copy cut short with its "
                               "trailer rewritten would read the same; import --signed-by KEY (the master's "
                               "public key) or --expect SEQ:HEAD (a checkpoint you kept) checks it")), err=True)
    from ...postgres import shown

    line = ngettext("imported {n} action of {campaign} into {db} (verified; head {seq}:{head})",
                    "imported {n} actions of {campaign} into {db} (verified; head {seq}:{head})",
                    report.actions).format(n=report.actions, campaign=report.campaign, db=shown(destination),
                                           seq=report.actions, head=report.head)
    s.emit(with_message({"imported": report.actions, "campaign": report.campaign, "db": shown(destination),
                         "head": report.head}, line), human=escape(line))
