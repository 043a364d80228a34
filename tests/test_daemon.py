"""The warm command server (``ledger daemon start``; ledger.interface.cli.warm and
client): a command handed to it prints, exits and records exactly as the same command
run cold; it runs where and as the client asked (directory, environment, language);
Ctrl-C reaches it; only its user reaches it; it steps aside when the code changes."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from ledger.interface.cli import client

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def commands_use_servers(monkeypatch):
    """The suite turns command servers off (conftest: LEDGER_DAEMON=off); here they are on."""
    monkeypatch.setenv("LEDGER_DAEMON", "auto")


def _private_dir() -> Path:
    """A short private directory (a Unix socket's path is limited to ~107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="ld-", dir="/tmp"))
    folder.chmod(0o700)
    return folder


def ledger(*args: str, servers: Path, cwd: Path, extra: dict | None = None, python_path: Path | None = None,
           timeout: float = 120) -> subprocess.CompletedProcess:
    """``ledger ARGS`` as a real process (the installed command's way in, ``python -m ledger``)."""
    env = {**os.environ, "LEDGER_DAEMON_DIR": str(servers), **(extra or {})}
    if python_path is not None:
        env["PYTHONPATH"] = str(python_path)
    return subprocess.run([sys.executable, "-m", "ledger", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


@contextlib.contextmanager
def _servers_in(servers: Path):
    """This process asks the servers of ``servers`` meanwhile (``$LEDGER_DAEMON_DIR``)."""
    before = os.environ.get("LEDGER_DAEMON_DIR")
    os.environ["LEDGER_DAEMON_DIR"] = str(servers)
    try:
        yield
    finally:
        os.environ.pop("LEDGER_DAEMON_DIR")
        if before is not None:
            os.environ["LEDGER_DAEMON_DIR"] = before


def status(servers: Path) -> dict | None:
    """What the server of this checkout in ``servers`` says of itself (None: none runs)."""
    with _servers_in(servers):
        return client.status()


def served(servers: Path, cwd: Path, python_path: Path | None = None) -> int | None:
    """How many commands the server has run (None: none runs); ``python_path``: the
    server of another copy of the code, asked through ``ledger daemon status``."""
    if python_path is None:
        found = status(servers)
        return None if found is None else found["served"]
    done = ledger("--json", "daemon", "status", servers=servers, cwd=cwd, python_path=python_path)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    return shown["served"] if shown["running"] else None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A command server of this module's own, and a demo campaign beside it."""
    servers = _private_dir()
    work = tmp_path_factory.mktemp("daemon")
    assert ledger("demo", servers=servers, cwd=work).returncode == 0
    started = ledger("daemon", "start", servers=servers, cwd=work)
    assert started.returncode == 0, started.stderr
    yield servers, work
    ledger("daemon", "stop", servers=servers, cwd=work)
    shutil.rmtree(servers, ignore_errors=True)


@pytest.fixture
def cold() -> Path:
    """A directory no server listens in: commands run in their own process."""
    folder = _private_dir()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def same(a: subprocess.CompletedProcess, b: subprocess.CompletedProcess) -> None:
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)


@pytest.mark.parametrize("args", [
    ["zones"], ["--json", "zones"], ["history", "--limit", "5"], ["--as", "ana", "zones"], ["--json", "--as", "public", "zones"],
    ["--lang", "pt", "zones"], ["card", "item-rope"], ["explain", "3"], ["--version"], ["--help"], ["draw", "--help"],
])
def test_a_read_through_the_server_prints_what_it_prints_cold(server, cold, args):
    servers, work = server
    before = served(servers, work)
    warm = ledger("--db", "demo.db", *args, servers=servers, cwd=work)
    assert served(servers, work) == before + 1  # it went through the server
    same(warm, ledger("--db", "demo.db", *args, servers=cold, cwd=work))


@pytest.mark.parametrize("setting", ["off", "0", "never"])
def test_a_command_with_the_server_turned_off_runs_in_its_own_process(server, setting):
    """``LEDGER_DAEMON=off`` means no server at all: not started, and not used when one runs."""
    servers, work = server
    before = served(servers, work)
    done = ledger("--db", "demo.db", "zones", servers=servers, cwd=work, extra={"LEDGER_DAEMON": setting})
    assert done.returncode == 0 and "deck:item" in done.stdout, done.stderr
    assert served(servers, work) == before  # the server ran nothing
    assert ledger("--db", "demo.db", "zones", servers=servers, cwd=work).returncode == 0
    assert served(servers, work) == before + 1  # and takes commands as before without it


def test_starting_a_server_with_servers_turned_off_says_that_commands_will_not_use_it(tmp_path):
    servers = _private_dir()
    try:
        done = ledger("daemon", "start", servers=servers, cwd=tmp_path, extra={"LEDGER_DAEMON": "off"})
        assert done.returncode == 0, done.stderr
        assert "note: LEDGER_DAEMON is off" in done.stderr and "set it to auto" in done.stderr
        assert "LEDGER_DAEMON" not in ledger("daemon", "start", servers=servers, cwd=tmp_path).stderr
    finally:
        ledger("daemon", "stop", servers=servers, cwd=tmp_path)
        shutil.rmtree(servers, ignore_errors=True)


def test_an_action_through_the_server_is_recorded_once_and_printed_as_cold(server, cold, tmp_path):
    servers, work = server
    for name in ("warm.db", "cold.db"):
        shutil.copy(work / "demo.db", tmp_path / name)
    warm = ledger("--db", "warm.db", "--json", "--actor", "ana", "draw", "deck:item", servers=servers, cwd=tmp_path)
    plain = ledger("--db", "cold.db", "--json", "--actor", "ana", "draw", "deck:item", servers=cold, cwd=tmp_path)
    assert warm.returncode == plain.returncode == 0, warm.stderr
    one, other = json.loads(warm.stdout), json.loads(plain.stdout)
    assert one["seq"] == other["seq"] == 37 and one["action"] == other["action"] == "draw"
    for name in ("warm.db", "cold.db"):  # one action each, and both still verify
        history = ledger("--db", name, "--json", "history", servers=cold, cwd=tmp_path)
        assert [row["seq"] for row in json.loads(history.stdout)][-1] == 37
        assert ledger("--db", name, "verify", servers=servers, cwd=tmp_path).returncode == 0


def test_a_refusal_through_the_server_exits_1_with_one_error_line_and_appends_nothing(server, cold, tmp_path):
    servers, work = server
    shutil.copy(work / "demo.db", tmp_path / "demo.db")
    for args in (["--actor", "ana", "draw", "deck:event"], ["--actor", "zed", "draw", "deck:item"],
                 ["--json", "--actor", "ana", "draw", "deck:nowhere"]):
        warm = ledger("--db", "demo.db", *args, servers=servers, cwd=tmp_path)
        assert warm.returncode == 1 and warm.stderr.startswith("error: ") and warm.stderr.count("\n") == 1
        same(warm, ledger("--db", "demo.db", *args, servers=cold, cwd=tmp_path))
    usage = ledger("--db", "demo.db", "draw", "--many", "deck:item", servers=servers, cwd=tmp_path)
    assert usage.returncode == 2 and usage.stderr.startswith("error: ")
    same(usage, ledger("--db", "demo.db", "draw", "--many", "deck:item", servers=cold, cwd=tmp_path))
    history = ledger("--db", "demo.db", "--json", "history", servers=cold, cwd=tmp_path)
    assert json.loads(history.stdout)[-1]["seq"] == 36


def test_the_command_runs_in_the_clients_directory_with_its_environment(server, cold, tmp_path):
    servers, work = server
    shutil.copy(work / "demo.db", tmp_path / "here.db")
    # a relative --db, $LEDGER_DB and $LEDGER_LANG are the client's, not the server's
    by_env = ledger("zones", servers=servers, cwd=tmp_path, extra={"LEDGER_DB": "here.db", "LEDGER_LANG": "pt"})
    assert by_env.returncode == 0 and "Demo" in by_env.stdout and "baralho" in by_env.stdout.lower()
    same(by_env, ledger("zones", servers=cold, cwd=tmp_path, extra={"LEDGER_DB": "here.db", "LEDGER_LANG": "pt"}))
    missing = ledger("zones", servers=servers, cwd=tmp_path)  # campaign.db: none in this directory
    assert missing.returncode == 1 and "campaign.db" in missing.stderr
    assert not (tmp_path / "campaign.db").exists() and not (ROOT / "campaign.db").exists()


def test_ctrl_c_reaches_the_command_and_nothing_is_half_recorded(server, tmp_path):
    servers, work = server
    shutil.copy(work / "demo.db", tmp_path / "demo.db")
    before = served(servers, work)
    child = _simulating(tmp_path, servers, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while served(servers, work) == before and time.monotonic() < deadline:  # handed over (status asks do not count)
        time.sleep(0.05)
    time.sleep(1.0)  # recording by now
    # Ctrl-C, again each second while it runs, as a player would: a SIGINT that lands while
    # Python runs a finalizer is lost ("Exception ignored in ..."), with or without the server
    for _ in range(60):
        child.send_signal(signal.SIGINT)
        try:
            out, err = child.communicate(timeout=1)
            break
        except subprocess.TimeoutExpired:
            continue
    else:
        child.kill()
        raise AssertionError("Ctrl-C did not stop the command in 60 s")
    assert child.returncode == 1, (out, err)
    *lost, said = err.strip().splitlines()
    assert said.startswith("error: interrupted")  # one error line, as cold
    # before it, only Python's report of a Ctrl-C lost in a finalizer, if one was
    assert not lost or (lost[0].startswith("Exception ignored in") and lost[-1].startswith("KeyboardInterrupt")
                        and not any(line.startswith("error:") for line in lost))
    assert ledger("--db", "demo.db", "verify", servers=servers, cwd=tmp_path).returncode == 0


def _workers(server_pid: int) -> set[int]:
    """The server's worker processes now (its children, from every process's stat)."""
    found: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after "pid (name)": state, ppid, ...
        except (OSError, IndexError):  # gone meanwhile
            continue
        if int(fields[1]) == server_pid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def _seq(db: Path) -> int:
    from ledger.application import Ledger

    ledger = Ledger.open(db)
    try:
        return ledger.last_seq(ledger.resolve(None))
    finally:
        ledger.close()


def _as_typed() -> None:
    """A command as a shell with job control starts it, whatever this test run inherited
    (``nohup``, a background job: SIGHUP, SIGINT ignored; a process group orphaned, where
    no Ctrl-Z stops anyone): the signals at their defaults, in a process group of its own
    whose parent (this test) is in the same session."""
    for name in ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM", "SIGTSTP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)
    os.setpgrp()


def _simulating(cwd: Path, servers: Path, preexec: Any = None, **popen: object) -> subprocess.Popen:
    """``ledger --db demo.db simulate`` of a million actions in ``cwd``, with the command
    servers of ``servers`` (none: cold), started as typed (``_as_typed``, then ``preexec``);
    its output thrown away unless ``popen`` says otherwise."""
    def started() -> None:
        _as_typed()
        if preexec is not None:
            preexec()

    return subprocess.Popen([sys.executable, "-m", "ledger", "--db", "demo.db", "simulate", "--actions", "1000000"],
                            cwd=cwd, env={**os.environ, "LEDGER_DAEMON_DIR": str(servers)}, preexec_fn=started,
                            **{"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, **popen})


def _long_command(servers: Path, demo: Path, tmp_path: Path, **popen: object) -> tuple[subprocess.Popen, int, int]:
    """A long `simulate` on a copy of ``demo`` handed to the server, once it records: the
    client, its worker's pid and the server's."""
    shutil.copy(demo, tmp_path / "demo.db")
    server_pid = status(servers)["pid"]
    before, start = _workers(server_pid), _seq(tmp_path / "demo.db")
    child = _simulating(tmp_path, servers, **popen)
    deadline = time.monotonic() + 60
    while not (_workers(server_pid) - before) and time.monotonic() < deadline:
        time.sleep(0.05)
    worker = _workers(server_pid) - before
    if len(worker) != 1:
        child.kill()
        raise AssertionError("the command was not handed to a worker")
    while _seq(tmp_path / "demo.db") <= start and time.monotonic() < deadline:  # recording
        time.sleep(0.1)
    return child, worker.pop(), server_pid


def _gone(worker: int, server_pid: int, servers: Path, patience: float = 30) -> bool:
    deadline = time.monotonic() + patience
    while worker in _workers(server_pid) and time.monotonic() < deadline:
        status(servers)  # the server reaps its workers when it is asked something
        time.sleep(0.1)
    return worker not in _workers(server_pid)


def _stop(child: subprocess.Popen, worker: int) -> None:
    """Leaves nothing running after a test, whatever it found."""
    child.kill()
    child.wait()
    with contextlib.suppress(OSError):
        os.kill(worker, signal.SIGKILL)


def test_a_client_killed_outright_takes_its_command_down_with_it(server, tmp_path):
    """SIGKILL leaves the client no chance to relay a signal: the worker notices the
    connection close and stops as a hung-up command would, recording nothing half."""
    servers, work = server
    child, worker, server_pid = _long_command(servers, work / "demo.db", tmp_path)
    try:
        child.kill()
        child.wait()
        assert _gone(worker, server_pid, servers), "the worker ran on after its client was killed"
    finally:
        _stop(child, worker)
    assert ledger("--db", "demo.db", "verify", servers=servers, cwd=tmp_path).returncode == 0


def _state(pid: int) -> str:
    """A process's state letter (R, S, T: stopped...), from /proc; "" when it is gone."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


def _until(check, patience: float = 10) -> bool:
    deadline = time.monotonic() + patience
    while not check() and time.monotonic() < deadline:
        time.sleep(0.05)
    return check()


def test_ctrl_z_stops_the_command_with_its_client_and_fg_goes_on(server, tmp_path):
    """Ctrl-Z (SIGTSTP from the terminal) stops the client, and the command with it, as it
    stops a command run cold: nothing is recorded meanwhile. ``fg`` (SIGCONT) continues
    both, and the command records on."""
    servers, work = server
    child, worker, server_pid = _long_command(servers, work / "demo.db", tmp_path)
    try:
        child.send_signal(signal.SIGTSTP)
        assert _until(lambda: _state(child.pid) == "T" and _state(worker) == "T"), (_state(child.pid), _state(worker))
        held = _seq(tmp_path / "demo.db")
        time.sleep(1.0)
        assert _seq(tmp_path / "demo.db") == held, "the command recorded on while stopped"
        child.send_signal(signal.SIGCONT)
        assert _until(lambda: _state(worker) not in ("T", "")), _state(worker)
        assert _until(lambda: _seq(tmp_path / "demo.db") > held, 30), "the command did not go on"
        child.send_signal(signal.SIGINT)
        assert child.wait(timeout=30) == 1
    finally:
        _stop(child, worker)
    assert ledger("--db", "demo.db", "verify", servers=servers, cwd=tmp_path).returncode == 0


def test_a_stopped_command_whose_client_is_killed_is_not_left_stopped(server, tmp_path):
    """Stopped with its client (Ctrl-Z), then the client killed outright: the server
    continues the worker, which stops as a hung-up command would (it held the file's
    write lock, maybe), recording nothing half."""
    servers, work = server
    child, worker, server_pid = _long_command(servers, work / "demo.db", tmp_path)
    try:
        child.send_signal(signal.SIGTSTP)
        assert _until(lambda: _state(worker) == "T"), _state(worker)
        child.kill()
        child.wait()
        assert _gone(worker, server_pid, servers), f"the worker is left {_state(worker)!r}"
    finally:
        _stop(child, worker)
    assert ledger("--db", "demo.db", "verify", servers=servers, cwd=tmp_path).returncode == 0


def test_a_signal_the_client_ignores_its_command_ignores(server, tmp_path):
    """Under ``nohup`` (SIGHUP ignored) a command goes on when the terminal closes, cold
    or through the server; a signal the client does not ignore still reaches it."""
    servers, work = server
    child, worker, server_pid = _long_command(
        servers, work / "demo.db", tmp_path, preexec=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
    try:
        child.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert child.poll() is None and worker in _workers(server_pid), "an ignored SIGHUP stopped the command"
        child.send_signal(signal.SIGINT)  # Ctrl-C, not ignored: relayed
        assert _gone(worker, server_pid, servers), "Ctrl-C did not reach the command"
        assert child.wait(timeout=30) == 1
    finally:
        _stop(child, worker)
    assert ledger("--db", "demo.db", "verify", servers=servers, cwd=tmp_path).returncode == 0


def test_a_command_stopped_by_sigterm_ends_by_it_as_cold(server, cold, tmp_path):
    """``kill`` (SIGTERM) ends the command through the server as it ends it cold: the
    client dies of the signal (status 143 in a shell), with no word of its own, and
    what was recorded is whole."""
    servers, work = server
    child, worker, server_pid = _long_command(servers, work / "demo.db", tmp_path, stderr=subprocess.PIPE)
    try:
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=30) == -signal.SIGTERM
        assert child.stderr.read() == b""
        assert _gone(worker, server_pid, servers), "SIGTERM did not reach the command"
    finally:
        _stop(child, worker)
        child.stderr.close()
    assert ledger("--db", "demo.db", "verify", servers=servers, cwd=tmp_path).returncode == 0
    by_itself = tmp_path / "cold"
    by_itself.mkdir()
    shutil.copy(work / "demo.db", by_itself / "demo.db")
    start = _seq(by_itself / "demo.db")
    alone = _simulating(by_itself, cold)
    try:
        deadline = time.monotonic() + 60
        while _seq(by_itself / "demo.db") <= start and time.monotonic() < deadline:
            time.sleep(0.1)
        alone.send_signal(signal.SIGTERM)
        assert alone.wait(timeout=30) == -signal.SIGTERM  # cold: the same end
    finally:
        alone.kill()
        alone.wait()


def test_closing_the_terminal_stops_a_command_even_when_the_server_ignores_sighup(tmp_path):
    """A server started under ``nohup`` ignores SIGHUP, as it should; the command it runs
    for a client that does not still stops when that client's terminal closes, and the
    client ends by the signal, as cold."""
    servers = _private_dir()
    work = tmp_path / "work"
    work.mkdir()
    try:
        assert ledger("demo", servers=servers, cwd=work).returncode == 0
        env = {**os.environ, "LEDGER_DAEMON_DIR": str(servers)}
        started = subprocess.run([sys.executable, "-m", "ledger", "daemon", "start"], cwd=work, env=env,
                                 capture_output=True, text=True, timeout=120,
                                 preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
        assert started.returncode == 0, started.stderr
        child, worker, server_pid = _long_command(servers, work / "demo.db", tmp_path)
        try:
            child.send_signal(signal.SIGHUP)
            assert child.wait(timeout=30) == -signal.SIGHUP
            assert _gone(worker, server_pid, servers), "SIGHUP did not reach the command"
        finally:
            _stop(child, worker)
        assert status(servers) is not None  # the server itself goes on
        assert ledger("--db", "demo.db", "verify", servers=servers, cwd=tmp_path).returncode == 0
    finally:
        ledger("daemon", "stop", servers=servers, cwd=work)
        shutil.rmtree(servers, ignore_errors=True)


def _lower_limits() -> None:
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (200, hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def test_the_command_runs_under_the_clients_resource_limits(server, tmp_path):
    """``ulimit`` set where the command is typed holds for it through the server as cold."""
    servers, work = server
    child, worker, _server_pid = _long_command(servers, work / "demo.db", tmp_path, preexec=_lower_limits)
    try:
        limits = Path(f"/proc/{worker}/limits").read_text()
    finally:
        _stop(child, worker)
    rows = {line[:26].strip(): line[26:].split()[:2] for line in limits.splitlines()[1:]}
    assert rows["Max open files"][0] == "200"
    assert rows["Max core file size"] == ["0", "0"]


def test_two_starts_at_once_leave_one_server(cold, tmp_path):
    starts = [subprocess.Popen([sys.executable, "-m", "ledger", "--json", "daemon", "start", "--idle", "60"],
                               cwd=tmp_path, env={**os.environ, "LEDGER_DAEMON_DIR": str(cold)},
                               stdout=subprocess.PIPE, text=True) for _ in range(2)]
    try:
        said = [json.loads(start.communicate(timeout=120)[0]) for start in starts]
        assert sorted(s["started"] for s in said) == [False, True]
        assert said[0]["pid"] == said[1]["pid"] == status(cold)["pid"]
    finally:
        for start in starts:
            start.kill()
        ledger("daemon", "stop", servers=cold, cwd=tmp_path)


def test_two_commands_at_once_each_record_one_action(server, tmp_path):
    servers, work = server
    shutil.copy(work / "demo.db", tmp_path / "demo.db")
    env = {**os.environ, "LEDGER_DAEMON_DIR": str(servers)}
    children = [subprocess.Popen([sys.executable, "-m", "ledger", "--db", "demo.db", "--json", "--actor", hero,
                                  "draw", "deck:item"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, text=True)
                for hero in ("ana", "bo")]
    seqs = sorted(json.loads(child.communicate(timeout=60)[0])["seq"] for child in children)
    assert [child.returncode for child in children] == [0, 0] and seqs == [37, 38]


def test_status_and_stop_in_json(cold, tmp_path):
    assert json.loads(ledger("--json", "daemon", "status", servers=cold, cwd=tmp_path).stdout)["running"] is False
    stopped = json.loads(ledger("--json", "daemon", "stop", servers=cold, cwd=tmp_path).stdout)
    assert stopped == {"running": False, "stopped": False}


def test_a_directory_others_may_enter_is_refused_and_commands_run_cold(tmp_path):
    shared = Path(tempfile.mkdtemp(prefix="ld-", dir="/tmp"))
    try:
        shared.chmod(0o777)
        refused = ledger("daemon", "start", servers=shared, cwd=tmp_path)
        assert refused.returncode == 1 and refused.stderr.startswith("error: ") and "700" in refused.stderr
        assert list(shared.iterdir()) == []
        assert ledger("demo", servers=shared, cwd=tmp_path).returncode == 0  # in its own process
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.mark.skipif(not hasattr(os, "setuid") or os.geteuid() != 0, reason="needs root to act as another user")
def test_another_user_is_hung_up_on(server):
    servers, work = server
    sock = next(servers.glob("*.sock"))
    servers.chmod(0o755)  # even when the files let another user connect, the server does not serve them
    sock.chmod(0o666)
    told, tell = os.pipe()
    try:
        pid = os.fork()
        if pid == 0:  # as nobody: connect, ask, and report whether a worker answered
            answer = "hung up"
            try:
                os.setgid(65534)
                os.setuid(65534)
                conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                conn.connect(str(sock))
                conn.settimeout(10)
                null = os.open(os.devnull, os.O_RDWR)
                request = b"C" + (5).to_bytes(4, "big") + b"0" * 5
                try:
                    socket.send_fds(conn, [request], [null, null, null])
                    if conn.recv(4):
                        answer = "served"
                except (BrokenPipeError, ConnectionResetError):  # hung up on, before or after the request
                    pass
            except BaseException as exc:
                answer = repr(exc)
            os.write(tell, answer.encode())
            os._exit(0)
        os.close(tell)
        os.waitpid(pid, 0)
        with os.fdopen(told) as said:
            assert said.read() == "hung up"
    finally:
        servers.chmod(0o700)
        sock.chmod(0o600)
    assert served(servers, work) is not None  # still serving its own user


def test_a_server_whose_code_changed_declines_and_stops(tmp_path, cold):
    """A server started from a copy of the code: once a file of that copy changes, the
    next command runs in its own process (the new code) and the server is gone."""
    copy = tmp_path / "code"
    for package in ("ledger", "projections"):
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    servers = _private_dir()
    try:
        assert ledger("demo", servers=servers, cwd=tmp_path, python_path=copy).returncode == 0
        assert ledger("daemon", "start", servers=servers, cwd=tmp_path, python_path=copy).returncode == 0
        assert served(servers, tmp_path, python_path=copy) == 0
        first = ledger("--db", "demo.db", "zones", servers=servers, cwd=tmp_path, python_path=copy)
        assert first.returncode == 0 and served(servers, tmp_path, python_path=copy) == 1
        changed = copy / "ledger" / "terms.py"
        changed.write_text(changed.read_text() + "\n# changed\n")
        again = ledger("--db", "demo.db", "zones", servers=servers, cwd=tmp_path, python_path=copy)
        same(again, first)
        assert served(servers, tmp_path, python_path=copy) is None
        assert list(servers.glob("*.sock")) == []
    finally:
        ledger("daemon", "stop", servers=servers, cwd=tmp_path, python_path=copy)
        shutil.rmtree(servers, ignore_errors=True)


def test_a_server_whose_library_changed_declines_and_stops(tmp_path, cold):
    """The same when a library the server imported is installed anew (here a module every
    process of that path imports at start, ``sitecustomize``; in life ``pip install -U
    pydantic``): the server would otherwise go on with the version it imported."""
    path = tmp_path / "path"
    path.mkdir()
    library = path / "sitecustomize.py"
    library.write_text("VERSION = 1\n")
    servers = _private_dir()
    try:
        assert ledger("demo", servers=servers, cwd=tmp_path, python_path=path).returncode == 0
        assert ledger("daemon", "start", servers=servers, cwd=tmp_path, python_path=path).returncode == 0
        first = ledger("--db", "demo.db", "zones", servers=servers, cwd=tmp_path, python_path=path)
        assert first.returncode == 0 and served(servers, tmp_path, python_path=path) == 1
        library.write_text("VERSION = 2  # a new release\n")
        again = ledger("--db", "demo.db", "zones", servers=servers, cwd=tmp_path, python_path=path)
        same(again, first)
        assert served(servers, tmp_path, python_path=path) is None
    finally:
        ledger("daemon", "stop", servers=servers, cwd=tmp_path, python_path=path)
        shutil.rmtree(servers, ignore_errors=True)


# -- started by itself for a person at a terminal -------------------------------------------
def at_terminal(*args: str, servers: Path, cwd: Path, extra: dict | None = None) -> tuple[int, str]:
    """``ledger ARGS`` with a terminal for its stdin, stdout and stderr (as a person types
    it); its exit status and what it wrote there."""
    import pty

    env = {**os.environ, "LEDGER_DAEMON_DIR": str(servers), "LEDGER_DAEMON": "auto", **(extra or {})}
    main, other = pty.openpty()
    try:
        done = subprocess.run([sys.executable, "-m", "ledger", *args], cwd=cwd, env=env, stdin=other, stdout=other,
                              stderr=other, timeout=120)
        os.close(other)
        other = -1
        written = b""
        with contextlib.suppress(OSError):  # EIO: the terminal's other side is closed and drained
            while chunk := os.read(main, 1 << 16):
                written += chunk
    finally:
        os.close(main)
        if other >= 0:
            os.close(other)
    return done.returncode, written.decode()


def _started_within(servers: Path, seconds: float) -> dict | None:
    deadline = time.monotonic() + seconds
    while (found := status(servers)) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    return found


def _tidy(servers: Path, cwd: Path, wait: bool = True) -> None:
    """Stops a server a start in the background left (waiting for one that was tried to
    answer or give up: its start waits at most a minute), then removes the directory."""
    if wait and any(servers.glob("*.tried")):
        _started_within(servers, 60)
    ledger("daemon", "stop", servers=servers, cwd=cwd)
    shutil.rmtree(servers, ignore_errors=True)


def test_a_command_typed_at_a_terminal_starts_a_server_for_the_next_ones(tmp_path):
    """The first ``ledger`` command a person types runs as always, and leaves a command
    server starting in the background (30 minutes idle), so that the next ones are quick;
    the next command goes through it."""
    servers = _private_dir()
    try:
        assert ledger("demo", servers=servers, cwd=tmp_path).returncode == 0
        assert status(servers) is None  # a script's command (no terminal) starts none
        code, written = at_terminal("--db", "demo.db", "zones", servers=servers, cwd=tmp_path)
        assert code == 0 and "deck:item" in written, written
        found = _started_within(servers, 60)
        assert found is not None, "no command server started"
        before = found["served"]
        code, again = at_terminal("--db", "demo.db", "zones", servers=servers, cwd=tmp_path)
        assert code == 0 and again == written
        assert status(servers)["served"] == before + 1  # it went through the server
    finally:
        _tidy(servers, tmp_path)


@pytest.mark.parametrize("how", ["LEDGER_DAEMON=off", "--help", "not a terminal", "a directory others may enter"])
def test_no_server_starts_for_scripts_help_or_when_turned_off(tmp_path, how):
    servers = _private_dir()
    try:
        assert ledger("demo", servers=servers, cwd=tmp_path).returncode == 0
        if how == "not a terminal":
            done = ledger("--db", "demo.db", "zones", servers=servers, cwd=tmp_path, extra={"LEDGER_DAEMON": "auto"})
            assert done.returncode == 0
        elif how == "a directory others may enter":
            servers.chmod(0o755)
            assert at_terminal("--db", "demo.db", "zones", servers=servers, cwd=tmp_path)[0] == 0
        else:
            args = ("--help",) if how == "--help" else ("--db", "demo.db", "zones")
            extra = {"LEDGER_DAEMON": "off"} if how.startswith("LEDGER_DAEMON") else {}
            assert at_terminal(*args, servers=servers, cwd=tmp_path, extra=extra)[0] == 0
        # a start in the background is tried only after leaving its mark (start_for_later)
        assert not any(servers.glob("*.tried"))
        assert _started_within(servers, 1) is None
    finally:
        _tidy(servers, tmp_path)


def test_a_start_in_the_background_is_tried_at_most_once_a_minute(tmp_path):
    """A server that cannot start (here: its start's lock is a directory) is not tried
    again at every command typed: once a minute."""
    servers = _private_dir()
    try:
        assert ledger("demo", servers=servers, cwd=tmp_path).returncode == 0
        lock = Path(os.path.splitext(socket_path_in(servers))[0] + ".lock")
        lock.mkdir()  # ledger daemon start cannot take its lock: it fails, quietly
        assert at_terminal("--db", "demo.db", "zones", servers=servers, cwd=tmp_path)[0] == 0
        [mark] = servers.glob("*.tried")
        half = time.time() - 30
        os.utime(mark, (half, half))
        assert at_terminal("--db", "demo.db", "zones", servers=servers, cwd=tmp_path)[0] == 0
        assert mark.stat().st_mtime == half  # tried half a minute ago: not again
        old = time.time() - 90
        os.utime(mark, (old, old))
        assert at_terminal("--db", "demo.db", "zones", servers=servers, cwd=tmp_path)[0] == 0
        assert mark.stat().st_mtime > old + 60  # a minute and a half ago: tried again
        assert status(servers) is None
    finally:
        _tidy(servers, tmp_path, wait=False)  # each start failed at once, on its lock


def socket_path_in(servers: Path) -> str:
    with _servers_in(servers):
        return client.socket_path()


@pytest.mark.skipif(not hasattr(os, "setuid") or os.geteuid() != 0, reason="needs root to act as another user")
def test_a_socket_another_user_listens_on_is_told_nothing(tmp_path):
    """Another user may win a race for the socket's path (a symbolic link flipped to a
    directory of theirs): the client hands its command line, environment and terminal
    only to a server of its own user (SO_PEERCRED), and runs the command itself."""
    from ledger.interface.cli import client

    servers = _private_dir()
    try:
        os.chown(servers, 65534, 65534)  # the other user's own directory, where their socket lies...
        told, tell = os.pipe()
        pid = os.fork()
        if pid == 0:  # ...and their listener: it reports whatever it is told
            try:
                os.setgid(65534)
                os.setuid(65534)
                listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                with _servers_in(servers):
                    listener.bind(client.socket_path())
                listener.listen(1)
                os.write(tell, b"L")
                listener.settimeout(20)
                conn, _ = listener.accept()
                conn.settimeout(5)
                heard = conn.recv(65536)
                os.write(tell, b"heard" if heard else b"hung up")
            except BaseException:  # noqa: BLE001
                os.write(tell, b"hung up")
            os._exit(0)
        os.close(tell)
        assert os.read(told, 1) == b"L"
        os.chown(servers, 0, 0)  # the path now leads through a directory of this user's (as a flipped link would)
        servers.chmod(0o700)
        with _servers_in(servers):
            assert client.forward(["--db", str(tmp_path / "x.db"), "zones"]) is None  # refused: runs here
        os.waitpid(pid, 0)
        with os.fdopen(told) as said:
            assert said.read() == "hung up"
    finally:
        shutil.rmtree(servers, ignore_errors=True)


def test_a_directory_that_is_a_link_is_no_private_directory(tmp_path):
    from ledger.interface.cli import client

    real = _private_dir()
    try:
        link = tmp_path / "link"
        link.symlink_to(real)
        assert client.private_dir(str(real)) and not client.private_dir(str(link))
    finally:
        shutil.rmtree(real, ignore_errors=True)


@pytest.mark.skipif(shutil.which("unshare") is None or os.geteuid() != 0, reason="needs root and unshare")
def test_a_command_from_another_mount_namespace_runs_in_its_own_process(server, tmp_path):
    """A worker acts with the server's standing: a command from a sandbox (here a mount
    namespace with a tmpfs of its own) must not write outside it through the server."""
    servers, work = server
    inside = tmp_path / "sandboxed"
    inside.mkdir()
    env = {**os.environ, "LEDGER_DAEMON_DIR": str(servers)}
    script = (f"mount -t tmpfs none {inside} && cd {inside} && {sys.executable} -m ledger --db x.db demo >/dev/null "
              f"&& test -f {inside}/x.db")
    done = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c", script], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not (inside / "x.db").exists(), "the server wrote outside the sandbox"


def test_a_command_naming_its_own_open_files_runs_in_its_own_process(server, tmp_path):
    """``ledger import <(cat FILE)`` names /dev/fd/63, a file only the client has open: a
    worker would not find it. Such a command is not handed over."""
    servers, work = server
    exported = tmp_path / "demo.jsonl"
    assert ledger("--db", str(work / "demo.db"), "export", str(exported), servers=servers, cwd=tmp_path).returncode == 0
    env = {**os.environ, "LEDGER_DAEMON_DIR": str(servers)}
    done = subprocess.run(["bash", "-c", f'{sys.executable} -m ledger --db copy.db import <(cat "{exported}")'],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert ledger("--db", "copy.db", "verify", servers=servers, cwd=tmp_path).returncode == 0


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv")
def test_a_server_of_this_user_standing_elsewhere_is_told_nothing(tmp_path):
    """A process of this user with less standing (here: no new privileges) that binds the
    socket's path must not be handed the command line, environment and terminal of a
    command with more: the client checks the server's standing as the server checks its
    client's."""
    servers = _private_dir()
    try:
        with _servers_in(servers):
            path = client.socket_path()
        script = ("import socket, sys, os; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1); "
                  "print('L', flush=True); c, _ = s.accept(); c.settimeout(5); "
                  "print('heard' if c.recv(65536) else 'hung up', flush=True)")
        listener = subprocess.Popen(["setpriv", "--no-new-privs", sys.executable, "-c", script, path],
                                    stdout=subprocess.PIPE, text=True)
        try:
            assert listener.stdout.readline().strip() == "L"
            with _servers_in(servers):
                assert client.forward(["--db", str(tmp_path / "x.db"), "zones"]) is None  # runs here
            assert listener.stdout.readline().strip() == "hung up"
        finally:
            listener.kill()
            listener.wait()
    finally:
        shutil.rmtree(servers, ignore_errors=True)


def test_a_client_that_says_nothing_does_not_hold_up_the_next(server, tmp_path):
    """A connection that never sends its request (a stuck or hostile client of the same
    user) is hung up on by its worker; meanwhile the server goes on serving: the next
    command is served well before the silent one's five seconds are up."""
    servers, work = server
    before = served(servers, work)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.connect(socket_path_in(servers))
        t0 = time.monotonic()
        done = ledger("--db", "demo.db", "zones", servers=servers, cwd=work, timeout=60)
        waited = time.monotonic() - t0
        assert done.returncode == 0, done.stderr
        assert served(servers, work) == before + 2  # the silent one was handed to a worker, which hangs up on it
        assert waited < 4.0, f"the next command waited {waited:.1f} s behind a silent client"
        silent.settimeout(30)
        assert silent.recv(1) == b""  # hung up on, once its worker gave up waiting
