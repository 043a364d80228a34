"""Honest errors when the disk, not the campaign, is the problem (``ledger.storage_errors``).

Each failure is made for real, never mocked: a full disk is a small tmpfs filled up, in
a mount namespace of a child process; a read-only disk is a read-only bind mount there;
a read-only file or folder, and a file one may not read, are met by a child running as
the unprivileged user ``nobody``; a lock is held by this process while the command
waits ``LEDGER_LOCK_TIMEOUT`` seconds for it; a missing folder is just missing. Each
must give exit 1 and one ``error:`` line naming the cause (never "not a campaign
database", never "unexpected failure"), leave the file's bytes and its events as they
were (or, if an action got recorded before the failure, say so), and leave a file that
a later command records to and ``ledger verify`` passes.

The children run several ``ledger`` commands each, in-process (``CHILD_PRELUDE``), so
that the whole module costs three child processes. The namespace tests are skipped
where ``unshare`` may not make a mount namespace, the ``nobody`` ones when not root.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ledger.catalog import sample_catalog_path
from ledger.errors import StoreError
from ledger.storage_errors import (
    FULL,
    IO_ERROR,
    LOCKED,
    READ_ONLY_FILE,
    database_failure,
    os_error_advice,
    os_error_reason,
    storage_problem,
)

from .conftest import one_error_line, run_ledger, succeeded

ROOT = Path(__file__).resolve().parents[1]
NOBODY = 65534
DRAW = ["--actor", "ana", "draw", "deck:item"]
NOT_HONEST = ("not a campaign database", "unexpected failure", "please report", "not an SQLite file")


# -- the campaign every test starts from ---------------------------------------------------
@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Path:
    """A small campaign (ana, two items in deck:item), checkpointed: one file, no -wal."""
    db = tmp_path_factory.mktemp("storage") / "campaign.db"
    for args in (["init", "--catalog", str(sample_catalog_path())], ["hero", "add", "ana"],
                 ["add", "item-sword", "item-bow", "--to", "deck:item"]):
        succeeded(run_ledger(*args, db=db))
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return db


def events(db: Path) -> int:
    """How many events the file holds, read by SQLite."""
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT count(*) FROM stored_events").fetchone()[0]
    finally:
        con.close()


def honest(result: subprocess.CompletedProcess, *words: str) -> str:
    """The refusal contract (exit 1, one ``error:`` line, no traceback), the line naming
    the cause (``words``) and none of the dishonest ones. Returns the line."""
    line = one_error_line(result)
    for word in words:
        assert word in line, f"{word!r} not in {line!r}"
    for wrong in NOT_HONEST:
        assert wrong not in line, line
    return line


def still_good(db: Path, count: int) -> None:
    """``db`` holds ``count`` events, verifies, and records the next action."""
    assert events(db) == count
    succeeded(run_ledger("verify", db=db))
    succeeded(run_ledger(*DRAW, db=db))
    assert events(db) == count + 1


# -- children ------------------------------------------------------------------------------
CHILD_PRELUDE = r"""
import hashlib, io, json, os, shutil, sqlite3, subprocess, sys
from contextlib import redirect_stderr, redirect_stdout
from ledger.interface.cli import main

def run(*argv):
    out, err, code = io.StringIO(), io.StringIO(), 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            main(list(argv))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return {"argv": list(argv), "code": code, "out": out.getvalue(), "err": err.getvalue()}

def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()

def events(path):
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT count(*) FROM stored_events").fetchone()[0]
    finally:
        con.close()

ARGS = json.loads(sys.argv[1])
"""


def run_child(script: str, args: dict, prefix: list[str] | None = None, home: Path | None = None) -> list[dict]:
    """``script`` (after ``CHILD_PRELUDE``) in a child process, under ``prefix`` (say
    ``unshare``), with ``args`` as ``ARGS``; it prints a JSON list of results, returned."""
    env = {k: v for k, v in os.environ.items() if k != "LEDGER_DB"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    if home is not None:
        env["HOME"] = str(home)
    done = subprocess.run([*(prefix or []), sys.executable, "-c", CHILD_PRELUDE + script, json.dumps(args)],
                          check=False, capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def completed(result: dict) -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(result["argv"], result["code"], result["out"], result["err"])


@functools.cache
def namespace_prefix() -> list[str] | None:
    """How to run a child in a mount namespace of its own (as root, or as root of a user
    namespace), or ``None`` if this machine does not allow it."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return None
    prefix = ["unshare", "-m", "--propagation", "private"]
    if os.geteuid() != 0:
        prefix.insert(1, "-r")
    try:
        probe = subprocess.run([*prefix, "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", tempfile.gettempdir()],
                               check=False, capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if probe.returncode == 0 else None


needs_namespace = pytest.mark.skipif(namespace_prefix() is None, reason="no mount namespace here (unshare -m)")
needs_root = pytest.mark.skipif(os.geteuid() != 0 or not hasattr(os, "setuid"), reason="needs root to become nobody")


# -- the words, for OSError (export files) and SQLite's errors -----------------------------
def test_an_os_error_is_put_in_words_a_full_disk_for_real_on_dev_full(tmp_path):
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full")
    with pytest.raises(OSError) as info, open("/dev/full", "w") as out:
        out.write("x")
        out.flush()
    assert os_error_reason(info.value) == "the disk is full"
    assert os_error_advice(info.value) == "free some space and try again"
    with pytest.raises(OSError) as missing:
        (tmp_path / "no" / "such" / "export.jsonl").write_text("x")
    assert os_error_reason(missing.value) == "no such folder"
    words = {code: os_error_reason(OSError(code, os.strerror(code))) for code in
             (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EXDEV)}
    assert words[errno.EROFS] == "it is on a read-only disk"
    assert words[errno.EACCES] == words[errno.EPERM] == "permission denied"
    assert words[errno.EXDEV] == os.strerror(errno.EXDEV)[:1].lower() + os.strerror(errno.EXDEV)[1:]


def test_sqlites_own_errors_are_classified_and_what_is_no_storage_problem_is_left_alone(tmp_path, campaign):
    from eventsourcing.persistence import OperationalError

    readonly = sqlite3.connect(f"{campaign.as_uri()}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as write:
        readonly.execute("DELETE FROM stored_events")
    readonly.close()
    wrapped = OperationalError(write.value)  # as eventsourcing raises it
    assert storage_problem(write.value).kind == storage_problem(wrapped).kind == READ_ONLY_FILE
    assert storage_problem(OperationalError("database is locked"), lock_timeout=2).kind == LOCKED
    assert storage_problem(OperationalError("database or disk is full")).kind == FULL
    # an I/O error on a healthy file in a roomy folder (no honest way to make a disk fail here)
    assert storage_problem(OperationalError("disk I/O error"), tmp_path / "campaign.db").kind == IO_ERROR
    text = tmp_path / "notes.db"
    text.write_text("not a database\n" * 100)
    with pytest.raises(sqlite3.DatabaseError) as foreign:
        sqlite3.connect(text).execute("PRAGMA journal_mode")
    assert storage_problem(foreign.value, text) is None
    con = sqlite3.connect(tmp_path / "x.db")
    for sql in ("SELECT * FROM no_such_table", "CREATE TABLE t (a UNIQUE)", "INSERT INTO t VALUES (1)"):
        try:
            con.execute(sql)
            con.execute(sql)
        except sqlite3.Error as exc:
            assert database_failure(exc, tmp_path / "x.db") is None, exc
    con.close()


# -- a missing folder ------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["init", "--catalog", str(sample_catalog_path())], ["zones"], DRAW],
                         ids=["init", "zones", "draw"])
def test_a_database_in_a_missing_folder_names_the_folder_and_creates_nothing(tmp_path, args):
    db = tmp_path / "no" / "such" / "campaign.db"
    line = honest(run_ledger(*args, db=db), f"no folder {db.parent}", "--db")
    assert line.startswith("error: no folder")
    assert os.listdir(tmp_path) == []


def test_a_database_under_a_file_says_the_file_is_no_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("mine\n")
    db = tmp_path / "notes.txt" / "campaign.db"
    honest(run_ledger("init", "--catalog", str(sample_catalog_path()), db=db), "is a file, not a folder")
    assert (tmp_path / "notes.txt").read_text() == "mine\n"


@pytest.mark.parametrize("args", [["init", "--catalog", str(sample_catalog_path())], ["zones"], DRAW],
                         ids=["init", "zones", "draw"])
@pytest.mark.parametrize("kind", ["pipe", "device", "directory"])
def test_a_database_that_is_no_regular_file_is_named_so_and_left_alone(tmp_path, args, kind):
    """A pipe would block the command (or read as a failing disk), a device reads as
    anything: each is named for what it is, at once, and nothing is written to it."""
    db = {"pipe": tmp_path / "campaign.db", "device": Path("/dev/null"), "directory": tmp_path}[kind]
    if kind == "pipe":
        os.mkfifo(db)
    expected = "is a directory" if kind == "directory" else "is no regular file"
    line = honest(run_ledger(*args, db=db), expected, str(db))
    assert line.startswith("error:")
    assert sorted(os.listdir(tmp_path)) == (["campaign.db"] if kind == "pipe" else [])


# -- locked beyond the timeout ---------------------------------------------------------------
def test_a_lock_held_beyond_the_timeout_is_named_and_nothing_is_recorded(tmp_path, campaign):
    db = tmp_path / "campaign.db"
    shutil.copy(campaign, db)
    count = events(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        quick = {"LEDGER_LOCK_TIMEOUT": "0.2"}
        line = honest(run_ledger(*DRAW, db=db, env=quick), "is busy", "locked for over 0.2 seconds",
                      "nothing was recorded")
        assert str(db) in line
        succeeded(run_ledger("zones", db=db, env=quick))  # a WAL file is read while another writes
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    still_good(db, count)


def test_a_lock_timeout_that_is_no_number_of_seconds_is_refused(tmp_path, campaign):
    db = tmp_path / "campaign.db"
    shutil.copy(campaign, db)
    before = db.read_bytes()
    for bad in ("soon", "0", "-3"):
        honest(run_ledger(*DRAW, db=db, env={"LEDGER_LOCK_TIMEOUT": bad}), f"LEDGER_LOCK_TIMEOUT={bad}")
    assert db.read_bytes() == before


# -- read-only files and folders, no permission: a child running as nobody -------------------
NOBODY_SCRIPT = r"""
for name, argv in ARGS["warm_up"]:  # as root: every module the commands import, imported
    run("--db", name, *argv)
os.setgroups([])
os.setresgid(ARGS["user"], ARGS["user"], ARGS["user"])
os.setresuid(ARGS["user"], ARGS["user"], ARGS["user"])  # all uids non-zero: no capabilities left
assert os.geteuid() == ARGS["user"] and "CapEff:\t0000000000000000" in open("/proc/self/status").read()
print(json.dumps([run("--db", name, *argv) for name, argv in ARGS["runs"]]))
"""


@pytest.fixture
def shared_dir():
    """A folder nobody may reach (the tests' tmp_path is root's alone), removed after."""
    base = Path(tempfile.mkdtemp(prefix="ledger-storage-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def _nobody_files(base: Path, campaign: Path) -> dict[str, Path]:
    """The files nobody is shown, all root's: a campaign (which nobody may read, not
    write) in a folder nobody may not write to (``ro-folder``), one in a folder nobody
    may write to (``rw-folder``), one nobody may not even read (``secret``), and a text
    file in the read-only folder (``text``)."""
    made = {}
    for name, folder_mode, file_mode in (("ro-folder", 0o755, 0o644), ("rw-folder", 0o777, 0o644),
                                         ("secret", 0o777, 0o600)):
        folder = base / name
        folder.mkdir()
        folder.chmod(folder_mode)
        made[name] = folder / "campaign.db"
        shutil.copy(campaign, made[name])
        made[name].chmod(file_mode)
    made["text"] = base / "ro-folder" / "notes.db"
    made["text"].write_text("my notes, not a campaign\n" * 50)
    (base / "home").mkdir(mode=0o777)
    (base / "home").chmod(0o777)
    return made


@needs_root
def test_read_only_files_and_folders_and_unreadable_files_as_another_user(shared_dir, campaign):
    files = _nobody_files(shared_dir, campaign)
    before = {name: (path.read_bytes(), events(path) if name != "text" else 0) for name, path in files.items()}
    runs = [(str(files["rw-folder"]), ["zones"]), (str(files["rw-folder"]), DRAW),
            (str(files["ro-folder"]), ["zones"]), (str(files["ro-folder"]), DRAW),
            (str(files["secret"]), ["zones"]), (str(files["text"]), ["zones"])]
    warm = str(shutil.copy(campaign, shared_dir / "warm-up.db"))
    warm_up = [(warm, ["zones"]), (warm, DRAW), (str(files["text"]), ["zones"]), ("/no/such/folder/c.db", ["zones"])]
    rw_read, rw_draw, ro_read, ro_draw, secret, text = (completed(r) for r in run_child(
        NOBODY_SCRIPT, {"warm_up": warm_up, "runs": runs, "user": NOBODY}, home=shared_dir / "home"))
    # a read-only file in a folder one may write to: read as usual, and nothing recorded
    succeeded(rw_read)
    assert "inventory:ana" in rw_read.stdout
    honest(rw_draw, f"{files['rw-folder']} is read-only", "no permission to change it", "nothing was recorded")
    # in a read-only folder SQLite cannot even read a campaign file (WAL): said, with why
    for result in (ro_read, ro_draw):
        honest(result, f"its folder {files['ro-folder'].parent} is read-only", "campaign.db-wal", "copy the file")
    honest(secret, "permission denied", f"may not read {files['secret']}")
    assert "is not a campaign database" in one_error_line(text)  # a text file is still called what it is
    for name, path in files.items():
        assert (path.read_bytes(), events(path) if name != "text" else 0) == before[name], f"{name} changed"
    for name in ("rw-folder", "ro-folder", "secret"):
        still_good(files[name], before[name][1])


# -- a read-only disk: a read-only bind mount in a mount namespace ---------------------------
READ_ONLY_DISK_SCRIPT = r"""
subprocess.run(["mount", "--bind", "-o", "ro", ARGS["source"], ARGS["mount"]], check=True)
db = os.path.join(ARGS["mount"], "campaign.db")
results = [run("--db", db, *argv) for argv in ARGS["runs"]]
print(json.dumps(results))
"""


@needs_namespace
def test_a_campaign_on_a_read_only_disk_is_read_and_refuses_to_record(tmp_path, campaign):
    source, mount = tmp_path / "source", tmp_path / "mount"
    source.mkdir()
    mount.mkdir()
    db = source / "campaign.db"
    shutil.copy(campaign, db)
    before, count = db.read_bytes(), events(db)
    runs = [["zones"], ["--json", "campaigns"], DRAW, ["history"]]
    zones, campaigns, draw, history = (completed(r) for r in run_child(
        READ_ONLY_DISK_SCRIPT, {"source": str(source), "mount": str(mount), "runs": runs}, prefix=namespace_prefix(),
        home=tmp_path))
    succeeded(zones)
    assert "inventory:ana" in zones.stdout
    assert json.loads(succeeded(campaigns).stdout)
    honest(draw, f"{mount / 'campaign.db'} is on a read-only disk", "nothing was recorded")
    # history reads the read-model tables through a connection of their own, by the file's
    # name, which SQLite cannot open there: a storage line (or, once it reads through the
    # ledger's own connection, the history)
    if history.returncode != 0:
        honest(history, "cannot open", "read-only")
    assert db.read_bytes() == before
    assert sorted(os.listdir(source)) == ["campaign.db"]
    still_good(db, count)


# -- a full disk: a small tmpfs, filled up, in a mount namespace -----------------------------
FULL_DISK_SCRIPT = r"""
disk = ARGS["disk"]
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", disk], check=True)
db, filler = os.path.join(disk, "campaign.db"), os.path.join(disk, "filler")
results = []
for room in ARGS["rooms"]:
    for name in os.listdir(disk):
        os.remove(os.path.join(disk, name))
    shutil.copy(ARGS["campaign"], db)
    before, count = digest(db), events(db)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.remove(db + suffix)
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 4096)
        except OSError:
            pass
    os.truncate(filler, max(0, os.path.getsize(filler) - room))
    attempt = run("--db", db, *ARGS["draw"])
    same_bytes = digest(db) == before
    os.remove(filler)
    after = events(db)
    verify, again = run("--db", db, "verify"), run("--db", db, *ARGS["draw"])
    results.append({"room": room, "attempt": attempt, "same_bytes": same_bytes, "before": count, "after": after,
                    "verify": verify, "again": again, "final": events(db)})
print(json.dumps(results))
"""


@needs_namespace
def test_a_full_disk_is_named_and_what_was_recorded_is_told_truly(tmp_path, campaign):
    disk = tmp_path / "disk"
    disk.mkdir()
    rooms = [0, 16 << 10, 36 << 10, 64 << 10]  # bytes left free: none, less than SQLite's -shm, a little, more
    results = run_child(FULL_DISK_SCRIPT, {"disk": str(disk), "campaign": str(campaign), "rooms": rooms,
                                           "draw": DRAW}, prefix=namespace_prefix(), home=tmp_path)
    kept_whole = 0
    for case in results:
        attempt = completed(case["attempt"])
        recorded = case["after"] - case["before"]
        assert recorded in (0, 1), case
        if attempt.returncode == 0:
            assert recorded == 1, case
        else:
            line = honest(attempt, "the disk is full", "free some space")
            if recorded:  # the action was saved, what follows it (the tables, a snapshot) was not
                assert "its action was recorded before this" in line and "do not record it again" in line, line
            else:
                assert "nothing was recorded" in line and "try again" in line, line
                assert case["same_bytes"], f"{case['room']} bytes free: the file changed, nothing recorded"
                kept_whole += 1
        succeeded(completed(case["verify"]))
        succeeded(completed(case["again"]))
        assert case["final"] == case["after"] + 1, case
    assert kept_whole >= 2, "the full disk never stopped a draw before it was recorded"
    assert "cannot read" in results[0]["attempt"]["err"], results[0]  # no room even for SQLite's -shm


def test_a_storage_error_that_reaches_the_command_unnamed_is_still_put_in_words():
    from ledger.interface.cli.group import refusal

    code, message = refusal(sqlite3.OperationalError("database or disk is full"))
    assert code == "store" and "the disk is full" in message and "please report" not in message
    code, message = refusal(PermissionError(errno.EACCES, "Permission denied", "/x/export.jsonl"))
    assert code == "file"
    assert message == "cannot use /x/export.jsonl: permission denied (write it to a folder you may write to)"
    assert isinstance(database_failure(sqlite3.OperationalError("database is locked"), None), StoreError)


@needs_root
def test_a_read_only_file_of_an_older_ledger_is_read_without_its_witnesses_column(shared_dir, campaign):
    """card_actions gained ``witnesses``; a file an older ledger made gets the column at
    its next command, which needs to write: a file nobody may change is read as it stands
    (every card history decided by the history rows' ``seen``), as before the column."""
    import sqlite3

    older = shared_dir / "rw-folder"
    older.mkdir()
    older.chmod(0o777)
    db = older / "campaign.db"
    shutil.copy(campaign, db)
    con = sqlite3.connect(db)
    with con:
        rows = con.execute("SELECT campaign, card, seq FROM card_actions").fetchall()
        con.execute("DROP TABLE card_actions")
        con.execute("CREATE TABLE card_actions (campaign TEXT, card TEXT, seq INTEGER, "
                    "PRIMARY KEY (campaign, card, seq)) WITHOUT ROWID")
        con.executemany("INSERT INTO card_actions VALUES (?, ?, ?)", rows)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    db.chmod(0o644)
    (shared_dir / "home").mkdir(mode=0o777)
    (shared_dir / "home").chmod(0o777)
    runs = [(str(db), ["--as", "ana", "--json", "card", "item-sword"]), (str(db), ["--as", "ana", "history"]),
            (str(db), ["verify"])]
    warm = str(shutil.copy(campaign, shared_dir / "warm-up.db"))
    card, history, verified = (completed(r) for r in run_child(
        NOBODY_SCRIPT, {"warm_up": [(warm, ["history"]), (warm, ["verify"])], "runs": runs, "user": NOBODY},
        home=shared_dir / "home"))
    today = shutil.copy(campaign, shared_dir / "today.db")  # the same campaign, as this ledger keeps it
    expected = run_ledger("--as", "ana", "--json", "card", "item-sword", db=today)
    assert json.loads(succeeded(card).stdout)["history"] == json.loads(succeeded(expected).stdout)["history"]
    assert succeeded(history).stdout == succeeded(run_ledger("--as", "ana", "history", db=today)).stdout.replace(
        "today.db", "campaign.db")
    succeeded(verified)
    with sqlite3.connect(db) as con:
        assert "witnesses" not in {row[1] for row in con.execute("PRAGMA table_info(card_actions)")}


def test_a_storage_failure_eventsourcing_words_for_sqlite_is_said_as_one_not_as_unexpected(tmp_path, monkeypatch):
    """eventsourcing wraps SQLite's "database disk image is malformed" (a foreign WAL beside
    the file, say) in its own DatabaseError; met where the ledger did not name it (verify's
    pass over the log), it is still the line of a database that cannot be used."""
    from eventsourcing.persistence import DatabaseError

    import ledger.audit

    db = tmp_path / "demo.db"
    assert run_ledger("demo", db=db).returncode == 0

    def malformed(*_args, **_kwargs):
        try:
            raise sqlite3.DatabaseError("database disk image is malformed")
        except sqlite3.DatabaseError as exc:  # as eventsourcing's recorder wraps SQLite's
            raise DatabaseError(str(exc)) from exc

    monkeypatch.setattr(ledger.audit, "verify", malformed)
    line = one_error_line(run_ledger("verify", db=db))
    assert "cannot be used (database disk image is malformed)" in line and "unexpected" not in line, line
