"""Why a file could not be read or written, in words a game master understands, and
what to do about it: a full disk, a read-only file, folder or disk, a file held
locked by another program, a missing folder, no permission, a failing disk.

SQLite reports these as error codes (``sqlite3.Error.sqlite_errorcode``; eventsourcing
wraps them in its ``PersistenceError`` classes), some of them ambiguous: "unable to open
database file" is said alike of a missing folder, a read-only disk and a file one may
not read. So the cause is read from the code first and, where the code does not say,
asked of the file system (``path_problem``: ``stat``, ``statvfs`` and ``access`` only;
the database file itself is never opened here, since closing a file drops the POSIX
locks this process's SQLite connections hold on it).

Public API:

- ``os_error_reason(exc)`` and ``os_error_advice(exc)``: an ``OSError`` (writing an
  export, say) in words: ``"the disk is full"``, ``"free some space and try again"``.
- ``storage_problem(exc, path)``: the ``Problem`` behind an sqlite3 or eventsourcing
  error, or ``None`` when it is no storage problem (a bug, a lost race, a file that is
  not a campaign database); ``problem_reason(problem)``: it in a few words.
- ``database_failure(exc, path)``: that problem as the one-line ``StoreError`` the
  ``ledger`` command prints, naming the file, the cause, what to do, and whether the
  command recorded anything before it failed.
- ``unreadable(exc, path)``: why SQLite could not read the file at all: a storage
  problem, or a damaged file, or no SQLite file (never the one for the other).
- ``folder_problem(path)`` and ``path_problem(path)``: what the file system says stands
  in the way of a database at ``path``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from .errors import FileBusy, StoreError, first_line
from .i18n import N_, _, ngettext, pgettext

LOW_SPACE = 1 << 20  # bytes: a failing write with less free than this is put down to a full disk

# Kinds of problem (``Problem.kind``).
FULL = "full"
READ_ONLY_FILE = "read-only-file"
READ_ONLY_DISK = "read-only-disk"
READ_ONLY_FOLDER = "read-only-folder"
NO_PERMISSION = "no-permission"
LOCKED = "locked"
NO_FOLDER = "no-folder"
NOT_A_FOLDER = "not-a-folder"
IO_ERROR = "io-error"
CANNOT_OPEN = "cannot-open"


# -- OSError --------------------------------------------------------------------------
_OS_REASONS = {
    errno.ENOSPC: N_("the disk is full"),
    errno.EDQUOT: N_("the disk quota is used up"),
    errno.EFBIG: N_("the file would be larger than this disk or system allows"),
    errno.EROFS: N_("it is on a read-only disk"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.ENOENT: N_("no such folder"),
    errno.ENOTDIR: N_("part of its path is a file, not a folder"),
    errno.EISDIR: N_("it is a folder"),
    errno.EIO: N_("the disk reported an input/output error"),
    errno.ENAMETOOLONG: N_("the name is too long"),
    errno.EBUSY: N_("it is in use by another program"),
}

_OS_ADVICE = {
    errno.ENOSPC: N_("free some space and try again"),
    errno.EDQUOT: N_("free some space and try again"),
    errno.EFBIG: N_("write it to another disk"),
    errno.EROFS: N_("write it to a writable disk or folder"),
    errno.EACCES: N_("write it to a folder you may write to"),
    errno.EPERM: N_("write it to a folder you may write to"),
    errno.ENOENT: N_("create the folder first, or name another"),
    errno.ENOTDIR: N_("name a file inside a folder"),
    errno.EISDIR: N_("name a file, not a folder"),
    errno.EIO: N_("the disk may be failing or unplugged; write it to another disk"),
    errno.ENAMETOOLONG: N_("use a shorter name"),
    errno.EBUSY: N_("close the other program and try again"),
}


def os_error_reason(exc: OSError) -> str:
    """What went wrong with a file, in words: ``"the disk is full"``, ``"it is on a
    read-only disk"``, ``"permission denied"``, ``"no such folder"``... (else the
    system's own words)."""
    if exc.errno in _OS_REASONS:
        return _(_OS_REASONS[exc.errno])
    text = exc.strerror or str(exc) or exc.__class__.__name__
    return text[:1].lower() + text[1:]


def os_error_advice(exc: OSError) -> str:
    """What to do about ``exc``, in words (``"free some space and try again"``), or ``""``."""
    advice = _OS_ADVICE.get(exc.errno or 0, "")
    return _(advice) if advice else ""


# -- SQLite's errors --------------------------------------------------------------------
@dataclass(frozen=True)
class Problem:
    """A storage problem: its ``kind`` (one of the constants above) and, for the kinds
    that need them, the folder and the lock timeout it is about."""

    kind: str
    folder: Path | None = None
    seconds: float | None = None


def sqlite_error_in(exc: BaseException | None) -> sqlite3.Error | None:
    """The sqlite3 error behind ``exc``: itself, or the one an eventsourcing
    ``PersistenceError`` wraps (its cause, or its argument)."""
    for _depth in range(5):
        if exc is None or isinstance(exc, sqlite3.Error):
            return exc
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], BaseException) else None
        exc = exc.__cause__ or inner
    return None


# Primary result codes (https://sqlite.org/rescode.html), and the words SQLite says them
# in, for errors that come without a code (eventsourcing's own, rebuilt from a message).
_PERM, _BUSY, _LOCKED, _READONLY, _IOERR, _FULL, _CANTOPEN = 3, 5, 6, 8, 10, 13, 14
_READONLY_DIRECTORY = 1544
_CODE_OF_WORDS = {
    "database or disk is full": _FULL,
    "attempt to write a readonly database": _READONLY,
    "unable to open database file": _CANTOPEN,
    "database is locked": _BUSY,
    "database table is locked": _LOCKED,
    "disk i/o error": _IOERR,
    "access permission denied": _PERM,
}


def _code_of(exc: BaseException) -> int | None:
    """SQLite's (extended) result code for ``exc``, or the primary one its words name."""
    err = sqlite_error_in(exc)
    code = getattr(err, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code
    text = str(err if err is not None else exc).lower()
    return next((c for words, c in _CODE_OF_WORDS.items() if words in text), None)


def storage_problem(exc: BaseException, path: str | Path | None = None, *,
                    lock_timeout: float | None = None) -> Problem | None:
    """The storage problem behind an sqlite3 (or eventsourcing) error on the database
    ``path``, or ``None`` when ``exc`` is no storage problem: not a database, damaged,
    a missing table, a lost race, a bug. Where SQLite's code is ambiguous (cannot open,
    read-only, I/O error) the file system is asked (``path_problem``)."""
    code = _code_of(exc)
    if code is None:
        return None
    primary = code & 0xFF
    if primary in (_BUSY, _LOCKED):
        return Problem(LOCKED, seconds=lock_timeout)
    if primary == _FULL:
        return Problem(FULL)
    if primary == _PERM:
        return Problem(NO_PERMISSION)
    if primary not in (_READONLY, _IOERR, _CANTOPEN):
        return None
    found = path_problem(Path(path)) if path is not None else None
    if found is not None:
        return found
    if code == _READONLY_DIRECTORY:
        return Problem(READ_ONLY_FOLDER, folder=Path(path).parent if path is not None else None)
    return Problem({_READONLY: READ_ONLY_FILE, _IOERR: IO_ERROR, _CANTOPEN: CANNOT_OPEN}[primary])


# -- the file system --------------------------------------------------------------------
def _may(path: Path, mode: int) -> bool:
    """``access(path, mode)`` for this process's effective user (root may do whatever
    the file system allows)."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _free(disk: os.statvfs_result) -> int:
    """The bytes this process may still write on ``disk`` (root may use the reserved blocks)."""
    blocks = disk.f_bfree if os.geteuid() == 0 else disk.f_bavail
    return blocks * disk.f_frsize


def folder_problem(path: str | Path) -> Problem | None:
    """A database ``path`` whose folder does not exist, is a file, or may not be looked into."""
    folder = Path(path).parent
    try:
        if folder.is_dir():
            return None if _may(folder, os.X_OK) else Problem(NO_PERMISSION, folder=folder)
        return Problem(NOT_A_FOLDER if folder.exists() else NO_FOLDER, folder=folder)
    except OSError:  # a folder on the way one may not look into
        return Problem(NO_PERMISSION, folder=folder)


def path_problem(path: Path) -> Problem | None:
    """What the file system says stands in the way of using the database ``path`` and
    the ``-wal`` and ``-shm`` files SQLite keeps beside it, or ``None`` if nothing. A
    read-only folder comes before a read-only file: SQLite cannot even read a campaign
    file (a WAL database) without creating its ``-wal`` and ``-shm`` files."""
    missing = folder_problem(path)
    if missing is not None:
        return missing
    folder = path.parent
    if path.exists() and not _may(path, os.R_OK):
        return Problem(NO_PERMISSION)
    try:
        disk: os.statvfs_result | None = os.statvfs(folder)
    except OSError:
        disk = None
    if disk is not None and disk.f_flag & os.ST_RDONLY:
        return Problem(READ_ONLY_DISK, folder=folder)
    beside = [Path(f"{path}{suffix}") for suffix in ("-wal", "-shm")]
    if any(p.exists() and not _may(p, os.R_OK | os.W_OK) for p in beside):
        return Problem(NO_PERMISSION)
    if not all(p.exists() for p in beside) and not _may(folder, os.W_OK | os.X_OK):
        return Problem(READ_ONLY_FOLDER, folder=folder)
    if path.exists() and not _may(path, os.W_OK):
        return Problem(READ_ONLY_FILE)
    if disk is not None and _free(disk) < LOW_SPACE:
        return Problem(FULL)
    return None


# -- the line the ledger command prints ------------------------------------------------
_REASONS = {
    FULL: N_("the disk is full"),
    READ_ONLY_FILE: N_("it is read-only"),
    READ_ONLY_DISK: N_("it is on a read-only disk"),
    READ_ONLY_FOLDER: N_("its folder is read-only"),
    NO_PERMISSION: N_("permission denied"),
    LOCKED: N_("another program holds it locked"),
    NO_FOLDER: N_("no such folder"),
    NOT_A_FOLDER: N_("part of its path is a file, not a folder"),
    IO_ERROR: N_("the disk reported an input/output error"),
    CANNOT_OPEN: N_("SQLite could not open it"),
}

# A message's {done} is "" or a whole clause beginning with "; " that says what the failed
# command recorded ("; nothing was recorded"...: ``_recorded``); it closes the advice in
# the parentheses. A whole sentence for each of its three outcomes would triple every
# message, so it is the one piece added to them (their TRANSLATORS notes say so). A full
# disk and a lock have a whole sentence for each of their other variants.
_FULL_MESSAGES = {  # (whether to try again, whether reading)
    # TRANSLATORS: {use} is "record to" or "read"; {db} is a file (or "the campaign database"); {done} is ""
    # or a clause beginning with "; " ("; nothing was recorded").
    (True, False): N_("cannot {use} {db}: the disk is full (free some space and try again{done})"),
    # TRANSLATORS: the command recorded something before this (so no "try again"). {use} is "finish writing to";
    # {done} is a clause beginning with "; " that says what was recorded.
    (False, False): N_("cannot {use} {db}: the disk is full (free some space{done})"),
    # TRANSLATORS: {use} is "read"; {done} is "" or a clause beginning with "; " ("; nothing was recorded").
    (True, True): N_("cannot {use} {db}: the disk is full (free some space and try again; SQLite needs a little "
                     "room beside the file even to read it{done})"),
    # TRANSLATORS: the command recorded something before this (so no "try again"). {use} is "read"; {done} is
    # a clause beginning with "; " that says what was recorded.
    (False, True): N_("cannot {use} {db}: the disk is full (free some space; SQLite needs a little room beside "
                      "the file even to read it{done})"),
}
_LOCKED_MESSAGES = {  # (whether to try again, whether the lock timeout is known)
    # TRANSLATORS: {done} is "" or a clause beginning with "; " ("; nothing was recorded").
    (True, True): N_("{db} is busy: another program has kept it locked for over {seconds} seconds (let it finish, "
                     "or close it and try again{done})"),
    # TRANSLATORS: the command recorded something before this (so no "try again"); {done} is a clause beginning
    # with "; " that says what was recorded.
    (False, True): N_("{db} is busy: another program has kept it locked for over {seconds} seconds (let it finish, "
                      "or close it{done})"),
    # TRANSLATORS: {done} is "" or a clause beginning with "; " ("; nothing was recorded").
    (True, False): N_("{db} is busy: another program has kept it locked (let it finish, or close it and try "
                      "again{done})"),
    # TRANSLATORS: the command recorded something before this (so no "try again"); {done} is a clause beginning
    # with "; " that says what was recorded.
    (False, False): N_("{db} is busy: another program has kept it locked (let it finish, or close it{done})"),
}
_MESSAGES = {
    # TRANSLATORS: {done} is "" or a clause beginning with "; " ("; nothing was recorded").
    READ_ONLY_FILE: N_("{db} is read-only: you have no permission to change it (ask its owner, or copy it to a file "
                       "you may write{done})"),
    READ_ONLY_DISK: N_("{db} is on a read-only disk, where nothing can be recorded (copy it to a writable folder to "
                       "play on{done})"),
    # TRANSLATORS: {files} names the files SQLite must create ("campaign.db-wal and campaign.db-shm"); {verb} is
    # "write" or "read"; {use} is "record to", "finish writing to" or "read"; {done} is "" or a clause beginning
    # with "; " ("; nothing was recorded").
    READ_ONLY_FOLDER: N_("cannot {use} {db}: its folder {folder} is read-only, and SQLite must create {files} "
                         "there to {verb} it (make the folder writable, or copy the file to a writable folder{done})"),
    # TRANSLATORS: {beside} is "the campaign.db-wal and campaign.db-shm files beside it"; {done} is "" or a
    # clause beginning with "; " ("; nothing was recorded").
    NO_PERMISSION: N_("permission denied: you may not {verb} {db} or {beside} (ask their owner, or use a copy{done})"),
    NO_FOLDER: N_("no folder {folder} for the database {db} (create the folder first, or name another file with "
                  "--db)"),
    NOT_A_FOLDER: N_("{folder} is a file, not a folder, so there can be no database {db} (name another file with "
                     "--db)"),
    # TRANSLATORS: {use} is "record to", "finish writing to" or "read"; {done} is "" or a clause beginning
    # with "; " ("; nothing was recorded").
    IO_ERROR: N_("cannot {use} {db}: the disk reported an input/output error (it may be failing or unplugged; copy "
                 "the file somewhere safe and run ledger verify on the copy{done})"),
    # TRANSLATORS: {beside} is "the campaign.db-wal and campaign.db-shm files beside it"; {done} is "" or a
    # clause beginning with "; " ("; nothing was recorded").
    CANNOT_OPEN: N_("cannot open {db}: SQLite could not open it, or {beside} (its folder or disk may be read-only, or "
                    "you may not read or write there; a copy in a folder of your own will open{done})"),
}
# TRANSLATORS: {done} is "" or a clause beginning with "; " ("; nothing was recorded").
_FOLDER_DENIED = N_("permission denied: you may not open the folder {folder} that holds {db} (ask its owner, or use "
                    "a copy{done})")


def problem_reason(problem: Problem) -> str:
    """``problem`` in a few words, for a message of one's own: ``"the disk is full"``."""
    return _(_REASONS[problem.kind])


def _recorded(count: int) -> str:
    """What a failed command recorded (``"; nothing was recorded"``), or ``""`` when that
    is not known (``count`` below 0). After a save, the failure was in what follows it
    (the tables that follow the log, a snapshot): the action must not be recorded twice."""
    if count < 0:
        return ""
    if count == 0:
        return _("; nothing was recorded")
    return ngettext("; its action was recorded before this, whole: do not record it again, ledger history shows it "
                    "once this is fixed",
                    "; {count} actions were recorded before this, whole: do not record it again, ledger history "
                    "shows it once this is fixed", count).format(count=count)


def problem_message(problem: Problem, path: str | Path | None, *, writing: bool = True, recorded: int = 0) -> str:
    """The one-line message for ``problem`` on the campaign database ``path`` (``None``:
    "the campaign database"). ``writing``: the failure was in a write (else in opening or
    reading). ``recorded``: how many saves the command made before it failed (below 0:
    not known, and then the message says nothing of it)."""
    name = Path(path).name if path is not None else ""
    new_file = path is not None and not Path(path).exists()
    if new_file:
        files = _("{name} and its -wal, -shm files").format(name=name)
    else:
        files = _("{name}-wal and {name}-shm").format(name=name) if name else _("its-wal and its-shm")
    words = {
        "db": str(path) if path is not None else _("the campaign database"),
        "folder": str(problem.folder) if problem.folder is not None else _("its folder"),
        "use": ((pgettext("database access", "finish writing to") if recorded > 0
                 else pgettext("database access", "record to")) if writing else pgettext("database access", "read")),
        "verb": pgettext("database access", "write") if writing else pgettext("database access", "read"),
        "done": _recorded(recorded),
        "files": files,
        "beside": (_("the {name}-wal and {name}-shm files beside it").format(name=name) if name
                   else _("the -wal and -shm files beside it")),
        "seconds": f"{problem.seconds:g}" if problem.seconds is not None else "",
    }
    again = recorded <= 0  # after a save, trying again would record the action twice
    if problem.kind == FULL:
        message = _FULL_MESSAGES[again, not writing]
    elif problem.kind == LOCKED:
        message = _LOCKED_MESSAGES[again, problem.seconds is not None]
    elif problem.kind == NO_PERMISSION and problem.folder is not None:
        message = _FOLDER_DENIED
    else:
        message = _MESSAGES[problem.kind]
    return _(message).format(**words)


def database_failure(exc: BaseException, path: str | Path | None, *, writing: bool = True, recorded: int = 0,
                     lock_timeout: float | None = None) -> StoreError | None:
    """The ``StoreError`` to raise for ``exc`` on the campaign database ``path``, or
    ``None`` when ``exc`` is no storage problem (then the caller reports it its own way)."""
    problem = storage_problem(exc, path, lock_timeout=lock_timeout)
    if problem is None:
        return None
    busy = problem.kind == LOCKED and ((_code_of(exc) or 0) & 0xFF) == _BUSY  # another connection's lock
    if problem.kind == LOCKED and not busy:  # a conflict inside this process: no wait of ours was for it
        problem = Problem(LOCKED)
    kind = FileBusy if busy else StoreError
    return kind(problem_message(problem, path, writing=writing, recorded=recorded))


def unreadable(exc: sqlite3.Error, path: str | Path, *, lock_timeout: float | None = None) -> StoreError:
    """Why SQLite could not read the would-be campaign file ``path`` at all: a storage
    problem (a full or read-only disk, no permission...: never called a bad file), a
    damaged SQLite file, or a file that is no SQLite database."""
    problem = storage_problem(exc, path, lock_timeout=lock_timeout)
    if problem is not None:
        return StoreError(problem_message(problem, path, writing=False))
    first = first_line(exc)
    if getattr(exc, "sqlite_errorname", "") == "SQLITE_CORRUPT":
        return StoreError(_("{path} is damaged or not a campaign database ({error})").format(path=path, error=first))
    if isinstance(exc, sqlite3.DatabaseError):
        return StoreError(_("{path} is not a campaign database (not an SQLite file)").format(path=path))
    return StoreError(_("cannot read {path} ({error})").format(path=path, error=first))
