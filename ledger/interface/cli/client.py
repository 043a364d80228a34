"""The quick way into a warm ledger: when ``ledger daemon start`` left a command server
running for this user and this installation, ``ledger`` hands it the command line
instead of importing the ledger itself (``ledger.interface.cli.warm``).

What is handed over: the arguments, the working directory, the environment, the umask,
the signals this process ignores, its resource limits, and its own stdin, stdout and
stderr (passed as file descriptors over a Unix socket), so that the command reads and
writes exactly where it would have, terminal or pipe. The server forks a worker that
runs the command as this process would have, and sends back its exit status. This
module imports nothing beyond the standard library's smallest modules: its whole cost
is starting Python and one round trip (and, with no server running, one ``stat``).

Only the user who started the server reaches it: the socket lies in a directory only
that user may open (``socket_dir`` refuses any other), and the server checks the
peer's uid on every connection (``SO_PEERCRED``). A command it should not run (``daemon``
itself, ``serve``) or a server that does not answer leaves the command to run in this
process, as without a server.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket

NOT_FORWARDED = frozenset({"daemon", "serve"})
"""Commands always run in their own process: the server's own control, and the table
server (a long-running process of its own)."""

COMMAND, STATUS = b"C", b"S"
"""The first byte of a request: a command to run, or the question ``ledger daemon status`` asks."""

IDLE = 4 * 3600
"""Seconds without a command after which the server stops (``ledger daemon start --idle``)."""
AUTO_IDLE = 30 * 60
"""The same for a server started by itself for a person at a terminal (``start_for_later``)."""
AUTO_PATIENCE = 60
"""Seconds after a start in the background during which no other is tried: the server
warms up for ~1–3 s, and one that could not start is not tried again at every command."""
DECLINED = 0
"""The worker pid a server answers with when it declines (its code has changed on disk
since it started: it stops, and the command runs in this process)."""


def socket_dir() -> str:
    """Where this user's command servers listen: ``$LEDGER_DAEMON_DIR``, else
    ``$XDG_RUNTIME_DIR/campaign-ledger``, else ``/tmp/campaign-ledger-UID``."""
    chosen = os.environ.get("LEDGER_DAEMON_DIR")
    if chosen:
        return chosen
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "campaign-ledger")
    return f"/tmp/campaign-ledger-{os.getuid()}"


def socket_path() -> str:
    """The socket of the server for this installation (this environment, sys.prefix, and this copy
    of the code: two virtual environments never share a server)."""
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    key = f"{sys.prefix}\0{here}".encode()
    # a stable short name (hash() of a str is salted per process): FNV-1a, 64 bits
    h = 0xCBF29CE484222325
    for byte in key:
        h = ((h ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return os.path.join(socket_dir(), f"{h:016x}.sock")


def private_dir(path: str) -> bool:
    """Is ``path`` a directory of this user's that no one else may enter or write, itself,
    not a symbolic link to one (another user could point such a link elsewhere between
    this look and the connection)?"""
    try:
        return _private(os.lstat(path))
    except OSError:
        return False


def _private(st: os.stat_result) -> bool:
    import stat

    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and (st.st_mode & 0o077) == 0


def forward(argv: list[str]) -> int | None:
    """Runs ``ledger ARGV`` in the warm server; its exit status, or None when no server
    took the command (then it runs in this process), as with ``LEDGER_DAEMON=off``."""
    if turned_off() or NOT_FORWARDED.intersection(argv) or not os.path.exists(socket_path()) or _names_own_fds(argv):
        return None
    try:
        request = _request(argv)
    except OSError:  # say, a working directory that was removed: the command tells what is wrong
        return None
    found = _connect(COMMAND, request, [0, 1, 2])
    if found is None:
        return None
    return _wait(*found, as_json="--json" in argv)


def start_for_later(argv: list[str]) -> None:
    """When a person types ledger commands at a terminal and no command server runs, starts
    one in the background (``ledger daemon start --idle 1800``, output discarded) for
    their next commands, and returns at once: this command runs as it would have. Not for
    scripts and pipes (stdin or stderr not a terminal), ``daemon`` and ``serve``, ``--help``,
    nor with ``LEDGER_DAEMON=off``; at most one try a minute (``AUTO_PATIENCE``: a mark
    left beside the socket, in the private directory only). Nothing here may fail the
    command."""
    if (turned_off() or sys.platform != "linux"
            or not sys.executable or getattr(sys, "frozen", False)
            or not argv or NOT_FORWARDED.intersection(argv) or {"--help", "-h", "--version"}.intersection(argv)):
        return
    try:
        if not (os.isatty(0) and os.isatty(2)) or not _mark_try(os.path.splitext(socket_path())[0] + ".tried"):
            return
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            os.posix_spawn(sys.executable, [sys.executable, "-P", "-m", "ledger", "daemon", "start", "--idle",
                                            str(AUTO_IDLE)], os.environ,
                           file_actions=[(os.POSIX_SPAWN_DUP2, devnull, fd) for fd in (0, 1, 2)], setsid=True)
        finally:
            os.close(devnull)
    except Exception:  # noqa: BLE001 — no room for a server: commands run as they always did
        return


AUTO_OFF = frozenset({"off", "0", "no", "false", "never"})


def turned_off() -> bool:
    """``LEDGER_DAEMON=off`` (or 0, no, false, never): commands neither use a command server
    nor start one; each runs in its own process, as if none ran."""
    return os.environ.get("LEDGER_DAEMON", "auto").strip().lower() in AUTO_OFF


def _mark_try(mark: str) -> bool:
    """Leaves the mark of a start tried now, unless one was tried in the last minute; False
    then, or when the directory is not a real one of this user's that no one else may
    enter (opened without following links, and checked as opened)."""
    import time

    folder = os.path.dirname(mark)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        if not _private(os.fstat(fd)):
            return False
        name = os.path.basename(mark)
        try:
            if os.stat(name, dir_fd=fd, follow_symlinks=False).st_mtime > time.time() - AUTO_PATIENCE:
                return False
        except FileNotFoundError:
            pass
        left = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600, dir_fd=fd)
        try:
            os.utime(left)
        finally:
            os.close(left)
        return True
    finally:
        os.close(fd)


def status() -> dict | None:
    """The running server's pid, start time, commands served and commands being run;
    None when no server answers."""
    import marshal

    found = _connect(STATUS, marshal.dumps({"status": True}), [])
    if found is None:
        return None
    conn, _worker = found
    data = b""
    try:
        with conn:
            while chunk := conn.recv(1 << 16):
                data += chunk
        found_status = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return found_status if isinstance(found_status, dict) else None


def _connect(kind: bytes, request: bytes, fds: list[int]) -> tuple[socket.socket, int] | None:
    """Hands a request (and file descriptors) to the server; the connection and the
    worker's pid, or None when no server took it."""
    import socket

    path = socket_path()
    if not private_dir(os.path.dirname(path)):
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
        if not _served_by_me(conn):  # whatever the path led to, nothing is told to another user
            conn.close()
            return None
        socket.send_fds(conn, [kind + len(request).to_bytes(4, "big") + request], fds)
        worker = _int(conn)
    except OSError:
        conn.close()
        return None
    if worker is None or worker <= 1:  # DECLINED, or no worker's pid: the command runs here
        conn.close()
        return None
    return conn, worker


def _names_own_fds(argv: list[str]) -> bool:
    """Does the command line name this process's own open files (``<(cmd)`` is
    ``/dev/fd/63``)? A worker has only the client's stdin, stdout and stderr: such a
    command runs here."""
    own = ("/dev/fd/", "/proc/self/", "/dev/stdin", "/proc/thread-self/")
    return any(arg.startswith(own) or any(f"={prefix}" in arg for prefix in own) for arg in argv)


def peer_of(conn: socket.socket) -> int | None:
    """The pid of the process at the other end of a connection, if it is this user's
    (``SO_PEERCRED``); else None. The server asks it of its clients, a client of its server."""
    import socket
    import struct

    pid, uid, _gid = struct.unpack("3i", conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    return pid if uid == os.getuid() else None


def _served_by_me(conn: socket.socket) -> bool:
    """Is the server at the other end this user's (``peer_of``), standing where this
    process does (``same_standing``), before the command line, the environment and the
    terminal are handed over?"""
    pid = peer_of(conn)
    return pid is not None and pid > 0 and same_standing(pid)


# What of a process decides what it may reach, besides its uid (/proc/PID/status).
STANDING = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp",
            "Seccomp_filters")
NAMESPACES = ("mnt", "user", "pid", "net", "ipc", "uts", "cgroup")


def _standing(pid: str) -> tuple[object, ...]:
    """A process's groups, capabilities, no-new-privileges and seccomp, security label,
    namespaces and root."""
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.rstrip("\n").split(":\t", 1) for line in status if ":\t" in line)
    found: list[object] = [fields.get(name) for name in STANDING]
    try:
        with open(f"/proc/{pid}/attr/current", "rb") as label:  # AppArmor, SELinux
            found.append(label.read())
    except OSError:
        found.append(None)
    for name in NAMESPACES:
        try:
            found.append(os.stat(f"/proc/{pid}/ns/{name}").st_ino)
        except FileNotFoundError:  # a kernel without that kind
            found.append(None)
    root = os.stat(f"/proc/{pid}/root/")
    found.append((root.st_dev, root.st_ino))
    return tuple(found)


def same_standing(pid: int) -> bool:
    """Does process ``pid`` stand where this one does: the same groups, capabilities,
    no-new-privileges, seccomp, security label, namespaces (mounts above all) and root?
    The server and its client must: a worker acts with the server's standing, and a
    client hands the server its environment and terminal. Anything that cannot be read
    counts as different (the command then runs in its own process). Landlock cannot be
    seen from /proc."""
    try:
        return _standing(str(pid)) == _standing("self")
    except (OSError, ValueError):
        return False


def _request(argv: list[str]) -> bytes:
    import marshal

    streams = [(getattr(s, "encoding", None) or "utf-8", getattr(s, "errors", None) or "strict")
               for s in (sys.stdin, sys.stdout, sys.stderr)]
    umask = os.umask(0)
    os.umask(umask)
    return marshal.dumps({"argv": list(argv), "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask,
                          "streams": streams, "ignored": _ignored(), "limits": _limits()})


def _limits() -> dict[str, tuple[int, int]]:
    """This process's resource limits (``ulimit``), by name: the worker takes them on."""
    import resource

    found = {}
    for name in dir(resource):
        if name.startswith("RLIMIT_"):
            try:
                found[name] = resource.getrlimit(getattr(resource, name))
            except (OSError, ValueError):
                pass
    return found


RELAYED = ("SIGINT", "SIGTERM", "SIGHUP")
"""The signals that would stop the command, passed on to the worker running it."""


def _ignored() -> list[str]:
    """The signals of ``RELAYED`` this process ignores (``nohup``; SIGINT for a background
    job of a script): the worker ignores them too, as the command would have."""
    import signal

    return [name for name in RELAYED if signal.getsignal(getattr(signal, name)) is signal.SIG_IGN]


def recv_exact(conn: socket.socket, n: int) -> bytes:
    """``n`` bytes from ``conn``, or fewer if the other side hung up first."""
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            break
        data += chunk
    return data


def int_bytes(n: int) -> bytes:
    """``n`` as the server sends it (a worker's pid, an exit status): 4 bytes, signed."""
    return n.to_bytes(4, "big", signed=True)


def _int(conn: socket.socket) -> int | None:
    """One 4-byte signed integer from the server (``int_bytes``), or None when it hung up."""
    data = recv_exact(conn, 4)
    return int.from_bytes(data, "big", signed=True) if len(data) == 4 else None


def _wait(conn: socket.socket, worker: int, as_json: bool) -> int:
    """Waits for the worker's exit status, passing on the signals that would have
    stopped this process (Ctrl-C reaches the worker as it would the command). A worker
    that a passed-on signal stopped outright (SIGTERM, SIGHUP) sends no status: this
    process then dies of the same signal, as the command run cold would have. Ctrl-Z
    (SIGTSTP) stops the worker too, and continuing this process continues it."""
    import signal

    relayed: list[int] = []
    try:  # this very worker: once it has ended, its pid may be another process's
        handle: int | None = os.pidfd_open(worker)
    except (AttributeError, OSError):
        handle = None

    def to_worker(signum: int) -> None:
        if handle is not None:
            import select

            if select.select([handle], [], [], 0)[0]:  # readable: it has ended
                return
        signal_worker(worker, signum)

    def relay(signum: int, _frame: object) -> None:
        relayed.append(signum)
        to_worker(signum)

    def suspend(_signum: int, _frame: object) -> None:
        """Ctrl-Z: the worker stops with this process, and goes on when it does (fg, bg)."""
        to_worker(signal.SIGSTOP)
        signal.signal(signal.SIGTSTP, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTSTP)  # stopped here until continued
        signal.signal(signal.SIGTSTP, suspend)
        to_worker(signal.SIGCONT)

    ignored = _ignored()  # stays ignored, as for the command
    before = {}
    for name in RELAYED:
        if name not in ignored:
            before[name] = signal.signal(getattr(signal, name), relay)
    if signal.getsignal(signal.SIGTSTP) is signal.SIG_DFL:  # a shell's job control may stop this process
        before["SIGTSTP"] = signal.signal(signal.SIGTSTP, suspend)
    try:
        status = _int(conn)
    except OSError:
        status = None
    finally:
        conn.close()
        for name, handler in before.items():  # the worker is gone: nothing more to pass on
            signal.signal(getattr(signal, name), handler)
        if handle is not None:
            os.close(handle)
    deadly = [signum for signum in relayed if signum != signal.SIGINT]  # Ctrl-C stops a command with a word
    if status is None and deadly:
        _die_of(deadly[-1])
    if status is None:
        from ...i18n import _, from_environment, speaking

        with speaking(from_environment()):
            message = _("the ledger's command server stopped before the command finished (see ledger history for "
                        "what was recorded)")
        if as_json:
            import json

            sys.stdout.write(json.dumps({"error": {"code": "internal", "message": message}}) + "\n")
        sys.stderr.write(f"error: {message}\n")
        return 1
    return status


def signal_worker(worker: int, signum: int) -> None:
    """A signal to the worker and the processes it started (its process group: a verify's
    parts, a rebuild's helper), as a terminal signals a command's whole job; to the
    worker alone if it has no group of its own."""
    try:
        os.killpg(worker, signum)
    except OSError:
        try:
            os.kill(worker, signum)
        except OSError:
            pass


def _die_of(signum: int) -> None:
    """Ends this process by signal ``signum``, at its default action (its status then
    says so to the shell: 143 for SIGTERM). Returns if that does not end it (as pid 1 of
    a container, which no signal at its default action ends): the caller then says why."""
    import signal

    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)
