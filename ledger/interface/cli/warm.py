"""The warm command server behind ``ledger daemon start``: one process that has imported
the ledger and built its validators once, and forks a worker for each ``ledger``
command handed to it (``ledger.interface.cli.client``), so that a command costs a
fork instead of starting Python, importing pydantic and eventsourcing, and building
the event and command classes again (most of a cold command's time).

Each worker is a copy of the warmed process that takes the client's stdin, stdout
and stderr, working directory, environment, umask, ignored signals and resource limits,
and stops if the client vanishes (one stopped with its client by Ctrl-Z is continued
first, ``_wake_orphans``); it runs the command exactly as
``ledger`` would (``group.main``), and sends its exit status back. Workers share
nothing with each other or with the server: the server opens no database (its
warm-up plays a short campaign in a temporary directory and closes it), so every
worker opens its own connections, as a separate process would.

Trust: the socket lies in a directory only its user may enter, and every connection's
peer must be that user (``SO_PEERCRED``); anyone else is hung up on. Staleness: when
a file of the ledger's code changes after the server started, it declines the next
command (which then runs cold, in its own process) and stops. It also stops after
``idle`` seconds without a command, and on SIGTERM (``ledger daemon stop``).
"""

from __future__ import annotations

import contextlib
import io
import marshal
import os
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path

from .client import (
    DECLINED,
    IDLE,
    STATUS,
    int_bytes,
    peer_of,
    private_dir,
    recv_exact,
    same_standing,
    signal_worker,
    socket_path,
)

PACKAGES = ("ledger", "projections")


def fingerprint(libraries: tuple[str, ...] = ()) -> tuple[tuple[str, int, int], ...]:
    """The ledger's code on disk: every file of its packages, and the ``libraries`` files
    (``libraries_in_use``), with size and mtime."""
    root = Path(__file__).resolve().parents[3]
    found = []
    for name in libraries:
        try:
            st = os.stat(name)
        except OSError:  # removed (an upgrade under way): a change too
            found.append((name, -1, -1))
        else:
            found.append((name, st.st_size, st.st_mtime_ns))
    for package in PACKAGES:
        for folder, dirs, files in os.walk(root / package):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:  # gone since the walk listed it (an upgrade under way): a change too
                    found.append((os.path.join(folder, name), -1, -1))
                    continue
                found.append((os.path.join(folder, name), st.st_size, st.st_mtime_ns))
    return tuple(sorted(found))


def libraries_in_use() -> tuple[str, ...]:
    """The file of each library the warm server has imported (each top-level module from
    outside the standard library: pydantic, eventsourcing, click…, not the ledger's own
    packages, which ``fingerprint`` walks whole). Installing another version of one
    (``pip install -U pydantic``) writes that file again, and the server steps aside as
    when the ledger's code changes, rather than serve on with what it imported before."""
    import sysconfig

    paths = sysconfig.get_paths()
    standard = tuple(os.path.realpath(paths[key]) + os.sep for key in ("stdlib", "platstdlib"))
    installed = tuple(os.path.realpath(paths[key]) + os.sep for key in ("purelib", "platlib"))
    found = set()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if "." in name or name in PACKAGES or not isinstance(file, str):
            continue
        real = os.path.realpath(file)
        if real.startswith(installed) or not real.startswith(standard):
            found.add(real)
    return tuple(sorted(found))


def warm_up() -> None:
    """Imports every command and builds what a command would build on first use, by
    playing the demo in a temporary directory and reading it back every way."""
    from .group import load_commands, main

    load_commands()
    import pydantic

    from ... import changes, commands, events
    for module in (events, commands, changes):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, pydantic.BaseModel) and value.__module__ == module.__name__:
                getattr(value.__pydantic_validator__, "validate_python")
                getattr(value.__pydantic_serializer__, "to_python")
    here, environment = os.getcwd(), dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="ledger-warm-") as folder:
        os.chdir(folder)
        # no key, configuration or campaign of the user's is read or written while warming
        os.environ.update({"HOME": folder, "XDG_CONFIG_HOME": folder, "LEDGER_KEY": os.path.join(folder, "no-key"),
                           "LEDGER_DB": os.path.join(folder, "demo.db")})
        sink = io.StringIO()
        try:
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                for argv in (["demo"], ["--db", "demo.db", "zones"], ["--db", "demo.db", "--json", "zones"],
                             ["--db", "demo.db", "history", "--limit", "5"], ["--db", "demo.db", "undo"],
                             ["--db", "demo.db", "redo"], ["--db", "demo.db", "--lang", "pt", "zones"],
                             ["--db", "demo.db", "explain", "2"], ["--db", "demo.db", "verify"]):
                    with contextlib.suppress(SystemExit):
                        main(argv)
        finally:
            os.chdir(here)
            os.environ.clear()
            os.environ.update(environment)
    import gc

    gc.collect()
    gc.freeze()  # the warmed objects never collected: a worker's collections do not touch (and copy) them


def serve(path: str, idle: float = IDLE) -> None:
    """Listens on ``path`` until idle, stale or told to stop (SIGTERM)."""
    warm_up()
    import threading

    if threading.active_count() != 1:  # a fork copies only the thread that forks
        raise SystemExit(f"error: warming up left threads running ({threading.enumerate()}); not serving")
    libraries = libraries_in_use()
    code = fingerprint(libraries)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    mask = os.umask(0o177)  # the socket made 600 as it is bound: no chmod by path, which follows a link
    try:
        listener.bind(path)
    finally:
        os.umask(mask)
    listener.listen(64)
    listener.settimeout(min(idle, 60.0))
    started, served, last = time.time(), 0, time.monotonic()
    workers: dict[int, bool] = {}  # pid -> is it running a command (not answering a status)
    clients: dict[int, _Client] = {}  # worker's pid -> its client

    def stop(_signum: int = 0, _frame: object = None) -> None:
        with contextlib.suppress(OSError):
            if os.stat(path).st_ino == own:
                os.unlink(path)
        listener.close()
        sys.exit(0)

    own = os.stat(path).st_ino
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(f"ledger command server {os.getpid()} listening on {path}", flush=True)
    while True:
        _reap(workers)
        _wake_orphans(workers, clients)
        listener.settimeout(ORPHAN_CHECK if workers else min(idle, 60.0))
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            if not workers and time.monotonic() - last > idle:
                print("idle: stopping", flush=True)
                stop()
            continue
        last = time.monotonic()
        _reap(workers)
        with conn:
            pid = peer_of(conn)
            if pid is None:  # another user's: hung up on
                continue
            # A worker acts with the server's standing: a command from a sandbox (unshare, bwrap),
            # with capabilities or groups taken away, or from another root runs cold, as it asked.
            if not same_standing(pid):
                with contextlib.suppress(OSError):
                    conn.sendall(int_bytes(DECLINED))
                continue
            client = _Client(pid)  # before the fork: the pid cannot have been reused yet
            try:
                asking = _asks_for_status(conn)
            except OSError:
                client.close()
                continue
            if fingerprint(libraries) != code:
                print("the ledger's code (or a library's) changed on disk: declining and stopping", flush=True)
                with contextlib.suppress(OSError):
                    conn.sendall(int_bytes(DECLINED))
                stop()
            status = {"pid": os.getpid(), "started": started, "served": served, "working": sum(workers.values())}
            sys.stdout.flush()
            try:
                worker = os.fork()
            except OSError as exc:  # no room for a worker: the client, hung up on, runs the command itself
                print(f"cannot fork a worker ({exc}); the command runs in its own process", flush=True)
                client.close()
                continue
            if worker == 0:
                listener.close()
                for kept in (client, *clients.values()):  # the clients are the server's business, not the command's
                    kept.close()
                _work(conn, status)  # never returns
            workers[worker] = not asking
            clients[worker] = client
            served += not asking


ORPHAN_CHECK = 5.0
"""Seconds between looks for a worker whose client is gone while the worker is stopped."""

FIRST_WORD = 0.2
"""Seconds the server waits for a client's first byte to tell a status request from a
command: a client sends its request as soon as it connects, and one that says nothing
holds up the next clients this long, not the worker's ``REQUEST_WITHIN``."""

REQUEST_WITHIN = 5.0
"""Seconds a worker waits for its client's request: one that connects and says nothing
is hung up on."""


def _asks_for_status(conn: socket.socket) -> bool:
    """Whether the client's first byte asks for the server's status (looked at, left for
    the worker to read); a client that has said nothing yet is taken to run a command."""
    import select

    poll = select.poll()  # (select.select fails on a descriptor past 1023)
    poll.register(conn, select.POLLIN)
    if not poll.poll(FIRST_WORD * 1000):
        return False
    conn.setblocking(False)
    try:
        return conn.recv(1, socket.MSG_PEEK) == STATUS
    except BlockingIOError:
        return False
    finally:
        conn.setblocking(True)


class _Client:
    """The client of a worker, as the server follows it: by a pidfd where Linux gives one
    (it tells the client's end even once its pid is reused), else by its pid; a client
    whose pid it was not told (0: another pid namespace) is never taken for gone."""

    def __init__(self, pid: int):
        self.pid, self.fd = pid, None
        if pid > 0:
            with contextlib.suppress(AttributeError, OSError):
                self.fd = os.pidfd_open(pid)

    def gone(self) -> bool:
        if self.fd is not None:  # readable once the process has ended
            import select

            poll = select.poll()
            poll.register(self.fd, select.POLLIN)
            return bool(poll.poll(0))
        if self.pid <= 0:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        return False

    def close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None


def _wake_orphans(workers: dict[int, bool], clients: dict[int, _Client]) -> None:
    """A worker stopped with its client (Ctrl-Z) whose client is then killed would stay
    stopped for good, holding what it holds (a write lock, say): it is continued, and
    then notices the hang-up (``_hang_up_with``) and stops as a hung-up command would."""
    for worker in list(clients):
        client = clients[worker]
        if worker in workers and not client.gone():
            continue
        if worker in workers:
            signal_worker(worker, signal.SIGCONT)
        del clients[worker]
        client.close()


def _reap(workers: dict[int, bool]) -> None:
    for worker in list(workers):
        with contextlib.suppress(ChildProcessError):
            done, _status = os.waitpid(worker, os.WNOHANG)
            if not done:
                continue
        del workers[worker]


def _work(conn: socket.socket, server: dict) -> None:
    """The worker: becomes the client's process in all that a command can see, runs
    the command, and sends back its exit status (or, asked for it, the server's
    ``status``)."""
    status, told = 1, False  # told: the client has this worker's pid (before that, it hears nothing)
    try:
        os.setpgid(0, 0)  # a group of its own with what it starts: the client signals the whole job
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)  # a server started under nohup ignores it; a command need not
        signal.signal(signal.SIGINT, signal.default_int_handler)
        conn.settimeout(REQUEST_WITHIN)  # a client that connects and says nothing is not waited for long
        message, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
        if len(message) < 5:
            os._exit(1)
        size = int.from_bytes(message[1:5], "big")
        payload = message[5:] + recv_exact(conn, size - (len(message) - 5))
        conn.settimeout(None)
        request = marshal.loads(payload)
        if request.get("status"):
            conn.sendall(int_bytes(os.getpid()) + marshal.dumps(server))
            conn.shutdown(socket.SHUT_WR)
            os._exit(0)
        if len(fds) != 3:
            os._exit(1)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _become(request)
        for name in request.get("ignored", ()):  # as the client ignores them (nohup, a script's background job)
            signal.signal(getattr(signal, name), signal.SIG_IGN)
        _limit(request.get("limits", {}))
        conn.sendall(int_bytes(os.getpid()))
        told = True
        _hang_up_with(conn)
        status = _run(request["argv"])
    except BaseException:  # the client is told the command failed; nothing else to do here
        status = 1
    finally:
        if told:  # else the client, hung up on, runs the command itself
            with contextlib.suppress(BaseException):
                conn.sendall(int_bytes(status))
        os._exit(0)


def _hang_up_with(conn: socket.socket) -> None:
    """The command stops as a hung-up one would (SIGHUP) if its client goes away without a
    word: killed (SIGKILL), it can relay no signal. The client sends nothing after its
    request, so the connection becomes readable only when it closes: the kernel says so
    with SIGIO (``O_ASYNC``)."""
    import fcntl

    def gone(_signum: int, _frame: object) -> None:
        try:
            closed = conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
        except BlockingIOError:  # woken for something else: still there
            return
        except ConnectionError:  # reset
            closed = True
        except OSError:  # not a hang-up (say, no memory for the peek): the command goes on
            return
        if closed:
            signal.signal(signal.SIGHUP, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGHUP)

    signal.signal(signal.SIGIO, gone)
    fcntl.fcntl(conn.fileno(), fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(conn.fileno(), fcntl.F_SETFL, fcntl.fcntl(conn.fileno(), fcntl.F_GETFL) | os.O_ASYNC)
    gone(signal.SIGIO, None)  # it may have gone already


def _limit(limits: dict[str, tuple[int, int]]) -> None:
    """Takes on the client's resource limits (``ulimit``). A hard limit above the server's
    cannot be raised by its user: the soft one is then kept within the server's hard one."""
    import resource

    for name, (soft, hard) in limits.items():
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            resource.setrlimit(which, (soft, hard))
        except (OSError, ValueError):
            _soft, ours = resource.getrlimit(which)
            with contextlib.suppress(OSError, ValueError):
                resource.setrlimit(which, (soft if ours == resource.RLIM_INFINITY or 0 <= soft <= ours else ours,
                                           ours))


def _become(request: dict) -> None:
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    os.umask(request["umask"])
    time.tzset()  # the client's $TZ
    streams = []
    for fd, (encoding, errors) in enumerate(request["streams"]):
        mode = "r" if fd == 0 else "w"
        raw = io.FileIO(fd, mode, closefd=False)
        buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
        streams.append(io.TextIOWrapper(buffered, encoding=encoding, errors=errors,
                                        line_buffering=fd > 0 and os.isatty(fd), write_through=fd == 2))
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
    sys.argv = ["ledger", *request["argv"]]


def _run(argv: list[str]) -> int:
    """``ledger ARGV`` as the installed command runs it; its exit status."""
    from .group import main

    try:
        main(argv)
        status = 0
    except SystemExit as done:
        if done.code is None:
            status = 0
        elif isinstance(done.code, int):
            status = done.code
        else:
            sys.stderr.write(f"{done.code}\n")
            status = 1
    except KeyboardInterrupt:
        status = 130
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    return status


def main(argv: list[str] | None = None) -> None:
    """``python -m ledger.interface.cli.warm [IDLE]``: serve this installation's socket."""
    args = sys.argv[1:] if argv is None else argv
    path = socket_path()
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not private_dir(folder):
        sys.exit(f"error: {folder} is not a private directory of this user's (mode 700); not serving there")
    if _answers(path):  # a server runs there (maybe for another standing: its clients are not ours)
        sys.exit(f"error: a command server already listens on {path}; not serving there")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    serve(path, float(args[0]) if args else IDLE)


def _answers(path: str) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
        return True
    except OSError:
        return False
    finally:
        probe.close()


if __name__ == "__main__":
    main()
