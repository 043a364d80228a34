"""Shared fixtures: a real SQLite campaign file per test, and a ``Game`` helper that
records actions and checks that refusals append nothing; ``run_ledger`` (the ``ledger``
command, in this process) and ``run_ledger_process`` (in a child process), and the
checks the command tests share (``succeeded``, ``one_error_line``, ``json_error``...)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path
from unittest import mock

import pytest

from ledger import commands as c
from ledger.application import Ledger, Recorded
from ledger.campaign import Campaign
from ledger.catalog import load_catalog, sample_catalog_path
from ledger.errors import LedgerError


# Soak scripts (tests/soak/) and benchmarks (tests/benchmarks/) are run by hand.
collect_ignore_glob = ["soak/*", "benchmarks/*"]

# Where the tests' files go (tmp_path, tempfile): $LEDGER_TEST_TMPDIR if set (e.g.
# ``LEDGER_TEST_TMPDIR=/tmp`` to run on disk), else the in-memory /dev/shm when the
# machine has a roomy one. Every action is committed with synchronous=FULL, and on a
# slow virtual disk each of the suite's thousands of fsyncs costs ~5 ms. The code and
# its settings are the same either way; the crash and concurrency tests, which are
# about files on a disk, always use one (``disk_tmp_path``).
SHM = Path("/dev/shm")
SHM_ROOM = 2 * 1024**3
DISK_TMPDIR = tempfile.gettempdir()  # before pytest_configure: the system's own temporary directory


def _test_tmpdir() -> str | None:
    chosen = os.environ.get("LEDGER_TEST_TMPDIR")
    if chosen:
        return chosen
    try:
        if SHM.is_dir() and os.access(SHM, os.W_OK) and shutil.disk_usage(SHM).free >= SHM_ROOM:
            return str(SHM)
    except OSError:
        pass
    return None


def pytest_configure(config) -> None:
    tmpdir = _test_tmpdir()
    if tmpdir is not None:
        tempfile.tempdir = tmpdir  # read by pytest's tmp_path_factory and by tempfile
    # No test signs with a key of this machine's user (ledger.signing): the key is
    # looked for where there is none, unless a test makes one (tests/test_record_trust.py).
    os.environ["LEDGER_KEY"] = str(Path(tempfile.gettempdir()) / f"no-key-here-{os.getpid()}" / "signing-key.pem")


class DiskTmpPathFactory:
    """``tmp_path_factory.mktemp`` in the system's temporary directory on disk."""

    def __init__(self, base: Path):
        self.base = base
        self.made = 0

    def mktemp(self, name: str) -> Path:
        self.made += 1
        path = self.base / f"{name}{self.made}"
        path.mkdir()
        return path


@pytest.fixture(scope="session")
def disk_tmp_path_factory():
    """Directories on disk even when the other tests' files are in memory: for the crash
    and concurrency tests, whose subject (and figures) is a file on a real disk, with
    its fsyncs. Removed at the end of the session."""
    base = Path(tempfile.mkdtemp(prefix="ledger-tests-", dir=DISK_TMPDIR))
    yield DiskTmpPathFactory(base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def disk_tmp_path(disk_tmp_path_factory, request) -> Path:
    """``tmp_path``, on disk (see ``disk_tmp_path_factory``)."""
    return disk_tmp_path_factory.mktemp(re.sub(r"\W", "_", request.node.name)[:40])


class Game:
    """A started campaign on a real database file."""

    def __init__(self, app: Ledger, cid):
        self.app = app
        self.cid = cid

    @property
    def campaign(self) -> Campaign:
        return self.app.campaign(self.cid)

    @property
    def table(self):
        return self.campaign.table

    def do(self, command: c.Command) -> Recorded:
        return self.app.execute(self.cid, command)

    def refuse(self, command: c.Command, error: type[LedgerError] = LedgerError) -> LedgerError:
        """Runs a command that must be refused; checks that nothing was appended and
        that the in-memory table is exactly as before. Returns the error."""
        before_count = self.app.stored_event_count()
        before_seq = self.app.last_seq(self.cid)
        before_table = self.campaign.table.to_dict()
        with pytest.raises(error) as info:
            self.do(command)
        assert self.app.stored_event_count() == before_count, "a refused action appended events"
        assert self.app.last_seq(self.cid) == before_seq
        assert self.campaign.table.to_dict() == before_table, "a refused action changed the table"
        fresh = Ledger.open(self.app.env.get("SQLITE_DBNAME"))
        try:
            assert fresh.campaign(self.cid).table.to_dict() == before_table
        finally:
            fresh.close()
        return info.value

    def zone(self, card: str) -> str:
        return self.table.zone_of(card)

    def cards(self, zone: str) -> list[str]:
        return list(self.table.cards_in(zone))

    def add(self, *cards: str, to: str, position="top") -> Recorded:
        return self.do(c.Add(cards=cards, to=to, position=position))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "campaign.db"


@pytest.fixture
def app(db_path: Path):
    ledger = Ledger.open(db_path, create=True)
    yield ledger
    ledger.close()


@pytest.fixture
def sample_catalog():
    return load_catalog(sample_catalog_path())


@pytest.fixture
def game(app: Ledger, sample_catalog) -> Game:
    """The sample catalog, heroes ana (knowledge 1) and bo (knowledge 0)."""
    rec = app.start(sample_catalog, name="Test")
    g = Game(app, rec.campaign.id)
    g.do(c.AddHero(hero="ana", name="Ana", knowledge=1))
    g.do(c.AddHero(hero="bo", name="Bo", knowledge=0))
    return g


# -- the ``ledger`` command ------------------------------------------------------------------
def _argv(args: tuple, db: Path | None) -> list[str]:
    return (["--db", str(db)] if db is not None else []) + [str(a) for a in args]


def _exit_status(code: object, err) -> int:
    """What a process exiting with ``sys.exit(code)`` reports as its status."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    err.write(f"{code}\n")  # sys.exit("message"): the message goes to stderr, status 1
    return 1


def run_ledger(*args: str, db: Path | None = None, cwd: Path | None = None,
               env: dict | None = None) -> subprocess.CompletedProcess:
    """``ledger [--db DB] ARGS`` run in this process: the code path of ``python -m ledger``
    (``ledger.interface.cli.main``) inside click's ``CliRunner`` isolation. Returns what a
    child process would: ``returncode``, ``stdout``, ``stderr`` (a ``CompletedProcess``).

    Like a child process it starts from this process's environment without
    ``$LEDGER_DB``, plus ``env`` (which may set ``LEDGER_DB``), in ``cwd``; the
    environment, the working directory and the standard streams are restored after, and
    any ``Ledger`` the command left open is closed, as the end of a process would.
    An exception that escapes ``main`` is reported as a child would (a traceback on
    stderr, status 1), so that the tests' "no traceback" checks still see it."""
    from click.testing import CliRunner

    from ledger.interface.cli import main

    argv = _argv(args, db)
    overrides: dict[str, str | None] = {"LEDGER_DB": None, **(env or {})}
    old_cwd = os.getcwd()
    opened: list[Ledger] = []
    real_open = Ledger.open.__func__  # type: ignore[attr-defined]

    def tracking_open(cls, *a, **kw):
        ledger = real_open(cls, *a, **kw)
        opened.append(ledger)
        return ledger

    code = 0
    with CliRunner().isolation(env=overrides) as (out, err, _), \
            mock.patch.object(Ledger, "open", classmethod(tracking_open)):
        if cwd is not None:
            os.chdir(cwd)  # a missing cwd raises here, as it would in subprocess.run
        try:
            main(argv)
        except SystemExit as exc:
            code = _exit_status(exc.code, sys.stderr)
        except Exception:  # a crash, as a child process would show it
            sys.stderr.write(traceback.format_exc())
            code = 1
        finally:
            os.chdir(old_cwd)
            for ledger in opened:  # what the end of a process does to a ledger left open
                ledger.close()
            sys.stdout.flush()
            sys.stderr.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    return subprocess.CompletedProcess(["ledger", *argv], code, stdout.decode("utf-8", "replace"),
                                       stderr.decode("utf-8", "replace"))


def run_ledger_process(*args: str, db: Path | None = None, cwd: Path | None = None,
                       env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m ledger [--db DB] ARGS`` in a child process, for the tests where the
    process boundary is the point (a fresh interpreter replaying the file). Same
    environment rule as ``run_ledger``: no inherited ``$LEDGER_DB``, plus ``env``."""
    full_env = {k: v for k, v in os.environ.items() if k != "LEDGER_DB"}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "ledger", *_argv(args, db)], capture_output=True, text=True,
                          cwd=cwd, env=full_env, timeout=timeout)


def cli(db: Path, *args: str) -> tuple[int, str, str]:
    """``ledger --db DB ARGS`` in this process: (exit status, stdout, stderr). A wide
    terminal, so that no id is wrapped across lines in the human tables."""
    result = run_ledger(*args, db=db, env={"COLUMNS": "1000"})
    return result.returncode, result.stdout, result.stderr


def ok(db: Path, *args: str) -> str:
    """``ledger --db DB ARGS`` must succeed, without a traceback: its stdout."""
    code, out, err = cli(db, *args)
    assert code == 0, f"ledger {' '.join(args)} exited {code}: {err}"
    assert "Traceback" not in out + err
    return out


# -- what the tests check of a command's result -------------------------------------------------
def succeeded(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, f"exit {result.returncode}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    assert "Traceback" not in result.stdout + result.stderr
    return result


def one_error_line(result: subprocess.CompletedProcess, exit_codes=(1,), what: object = None) -> str:
    """The contract for a refusal: the exit status, one ``error: `` line, no traceback.
    ``what``: named in the failure messages (the arguments, say)."""
    about = "" if what is None else f"{what!r}: "
    assert result.returncode in exit_codes, (
        f"{about}exit {result.returncode}, wanted {exit_codes}\nstdout: {result.stdout}\nstderr: {result.stderr}"
    )
    assert "Traceback" not in result.stdout + result.stderr, f"{about}a traceback reached the user:\n{result.stderr}"
    lines = result.stderr.splitlines()
    assert len(lines) == 1, f"{about}wanted one stderr line, got {len(lines)}:\n{result.stderr}"
    assert lines[0].startswith("error: ") and len(lines[0]) > len("error: "), f"{about}{result.stderr!r}"
    return lines[0]


def json_of(result: subprocess.CompletedProcess):
    """stdout must be exactly one JSON document."""
    return json.loads(result.stdout)


def json_error(result: subprocess.CompletedProcess) -> dict:
    """A refusal with ``--json``: one ``error:`` line, and stdout the same error as JSON."""
    line = one_error_line(result)
    doc = json_of(result)
    assert set(doc) == {"error"}, doc
    assert set(doc["error"]) >= {"code", "message"}, doc
    assert isinstance(doc["error"]["code"], str) and doc["error"]["code"]
    assert isinstance(doc["error"]["message"], str) and doc["error"]["message"]
    assert line == f"error: {doc['error']['message']}"
    return doc["error"]


def last_seq(db: Path) -> int:
    """The seq of the latest action of the only campaign in ``db``."""
    ledger = Ledger.open(db)
    try:
        return ledger.last_seq(ledger.resolve(None))
    finally:
        ledger.close()


def stored_events(db: Path) -> int:
    """How many events ``db`` holds (every campaign and log): a refusal must not change it."""
    ledger = Ledger.open(db)
    try:
        return ledger.stored_event_count()
    finally:
        ledger.close()


def copy_db(src: Path, dst_dir: Path) -> Path:
    """A copy of a campaign file (with its ``-wal``/``-shm``) in ``dst_dir``, same name."""
    dst = Path(dst_dir) / Path(src).name
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{src}{suffix}").exists():
            shutil.copy(f"{src}{suffix}", f"{dst}{suffix}")
    return dst
