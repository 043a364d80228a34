"""The ``ledger`` command (CLI.md). It only parses arguments, calls one library
function, and turns refusals into one ``error:`` line (exit 1); usage errors exit 2.
Everything it does, Python can do through ``ledger.application.Ledger``.

``group`` holds the group, its global options and the error handling; ``session`` what
every command shares (the session, its one output path, argument types); the commands
sit by topic in ``setup``, ``play``, ``record``, ``trust``, ``read`` and ``table`` (the
table server's seats and ``serve``). A command's module is imported when the command is
run (``group.COMMAND_MODULES``), every one for ``ledger --help``.

In-process, with the same output and exit status as the real command::

    from click.testing import CliRunner
    from ledger.interface.cli import cli
    result = CliRunner().invoke(cli, ["--db", "demo.db", "zones"])
"""

from .group import cli, main

__all__ = ["cli", "main"]
