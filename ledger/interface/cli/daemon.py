"""``ledger daemon start|stop|status``: the warm command server (``warm``) that makes
every later ``ledger`` command of this user quick (``client``)."""

from __future__ import annotations

import os
import signal
import sys
import time

import click

from ...errors import BadInput
from ...i18n import _, ngettext
from .client import IDLE, private_dir, socket_path, status, turned_off
from .group import cli
from .session import Session, WholeRange, note_line, pass_session

START_PATIENCE = 60.0
"""Seconds ``start`` waits for the server to answer (it warms up first: ~1–3 s)."""


@cli.group()
def daemon() -> None:
    """A warm command server that makes every ledger command quick.

    Started once, it keeps the ledger loaded; each later ledger command of yours
    (from any directory, on any campaign file) is handed to it and runs in a fresh copy
    of it, several times faster. Output, exit status, Ctrl-C and files behave as
    without it. Only you can reach it; it stops by itself after --idle seconds without
    a command (4 hours), or when the ledger's code or a library's changes. The first
    command you type at a terminal starts one for the next ones, which stops after 30
    minutes without a command. With LEDGER_DAEMON=off a command neither starts a server
    nor uses one.

    \b
    Example: ledger daemon start
    """


@daemon.command("start")
@click.option("--idle", default=IDLE, show_default=True, type=WholeRange(1),
              help="Stop after this many seconds without a command.")
@pass_session
def daemon_start(s: Session, idle: int) -> None:
    """Start the command server (nothing happens if one is running).

    \b
    Example: ledger daemon start --idle 3600
    """
    import fcntl
    import socket

    if not (hasattr(socket, "SO_PEERCRED") and hasattr(os, "fork")):  # Linux: who connects is known for sure
        raise BadInput(_("the command server runs on Linux only (it must know which user connects); commands run "
                         "as before"))
    path = socket_path()
    folder = os.path.dirname(path)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise BadInput(_("cannot make {folder} for the command server ({reason})").format(
            folder=folder, reason=exc.strerror)) from None
    if not private_dir(folder):
        raise BadInput(_("{folder} may be entered by other users; the command server only listens in a directory "
                         "of yours with mode 700 (chmod 700 {folder}, or set $LEDGER_DAEMON_DIR)").format(folder=folder))
    with open(os.path.splitext(path)[0] + ".lock", "ab") as lock:  # two starts at once: the second waits, then finds it
        fcntl.flock(lock, fcntl.LOCK_EX)
        _start(s, path, idle)
    if turned_off():
        click.echo(note_line(_("LEDGER_DAEMON is {value}: commands run with it set use no command server; unset it, "
                               "or set it to auto, for them to use this one").format(
            value=os.environ.get("LEDGER_DAEMON", "").strip())), err=True)


def _start(s: Session, path: str, idle: int) -> None:
    """Starts the server listening on ``path``, unless one is running (under start's lock)."""
    import subprocess

    running = status()
    if running is not None:
        s.emit({"running": True, "started": False, **_shown(running)},
               human=_("the command server is already running (pid {pid})").format(pid=running["pid"]))
        return
    log = open(os.path.splitext(path)[0] + ".log", "ab")
    with log:
        child = subprocess.Popen([sys.executable, "-P", "-m", "ledger.interface.cli.warm", str(idle)], cwd="/",
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
    deadline = time.monotonic() + START_PATIENCE
    while (running := status()) is None:
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()  # one that answers later would be a second server
            child.wait()
            raise BadInput(_("the command server did not start (see {log})").format(log=log.name))
        time.sleep(0.05)
    s.emit({"running": True, "started": True, **_shown(running)},
           human=_("command server started (pid {pid}); ledger commands are now quick").format(pid=running["pid"]))


@daemon.command("stop")
@pass_session
def daemon_stop(s: Session) -> None:
    """Stop the command server (commands then start cold again).

    \b
    Example: ledger daemon stop
    """
    running = status()
    if running is None:
        s.emit({"running": False, "stopped": False}, human=_("no command server is running"))
        return
    os.kill(running["pid"], signal.SIGTERM)
    deadline = time.monotonic() + 10
    while status() is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    s.emit({"running": False, "stopped": True, "pid": running["pid"]},
           human=_("command server stopped (pid {pid})").format(pid=running["pid"]))


@daemon.command("status")
@pass_session
def daemon_status(s: Session) -> None:
    """Whether the command server runs, since when, and how many commands it ran.

    \b
    Example: ledger --json daemon status
    """
    running = status()
    if running is None:
        s.emit({"running": False, "socket": socket_path()}, human=_("no command server is running"))
        return
    shown = _shown(running)
    served = ngettext("{n} command run", "{n} commands run", shown["served"]).format(n=shown["served"])
    s.emit({"running": True, **shown},
           human=_("command server running (pid {pid}) since {since}; {served}; socket {socket}").format(
               pid=shown["pid"], since=shown["since"], served=served, socket=shown["socket"]))


def _shown(running: dict) -> dict:
    since = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(running["started"]))
    return {"pid": running["pid"], "since": since, "served": running["served"], "working": running["working"],
            "socket": socket_path()}
