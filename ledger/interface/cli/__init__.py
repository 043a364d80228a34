"""The ``ledger`` command (CLI.md). It only parses arguments, calls one library
function, and turns refusals into one ``error:`` line (exit 1); usage errors exit 2.
Everything it does, Python can do through ``ledger.application.Ledger``.

``group`` holds the group, its global options and the error handling; ``session`` what
every command shares (the session, its one output path, argument types); the commands
sit by topic in ``setup``, ``play``, ``record``, ``trust``, ``read`` and ``table`` (the
table server's seats and ``serve``), ``daemon`` (the warm command server: ``warm``, reached
through ``client``). A command's module is imported when the command is
run (``group.COMMAND_MODULES``), every one for ``ledger --help``.

In-process, with the same output and exit status as the real command::

    from click.testing import CliRunner
    from ledger.interface.cli import cli
    result = CliRunner().invoke(cli, ["--db", "demo.db", "zones"])
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["cli", "main"]


def main(argv: list[str] | None = None) -> None:
    """The ``ledger`` command. Run as the installed command (no ``argv``), it first offers
    the command line to this user's warm command server, if one is running
    (``ledger daemon start``; ``client``), and exits with its status; otherwise, and
    when called with ``argv``, it runs the command in this process (``group.main``),
    typed at a terminal having first started a server for the next commands
    (``client.start_for_later``).

    pydantic looks for plugins in every installed distribution's entry points (through
    ``importlib.metadata``, ~20 ms and more the more is installed) when it builds its first
    validator; the ledger uses none, so the installed command (its own process) turns that
    search off unless ``PYDANTIC_DISABLE_PLUGINS`` is set already (set it empty to load
    plugins)."""
    if argv is None:
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        from .client import forward, start_for_later

        status = forward(sys.argv[1:])
        if status is not None:
            sys.exit(status)
        start_for_later(sys.argv[1:])
    from .group import main as run

    run(argv)


def __getattr__(name: str) -> Any:
    """``cli`` (the click group), imported when asked for: the installed command imports
    this package before it knows whether a warm server will run the command."""
    if name == "cli":
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
