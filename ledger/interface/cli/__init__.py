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

import contextlib
import gc
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
    plugins), and spares itself importing pydantic's loader of plugins too
    (``_no_plugins``).

    The installed command's process ends with its objects frozen (``gc.freeze``): Python's
    last collection at exit then skips the tens of thousands that the imports and
    pydantic's validators made (~25 ms of a ~190 ms command, for nothing, since the
    process is ending); files and connections are still closed as before, by the command
    itself and by reference counting as the modules are torn down."""
    if argv is None:
        if os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__") in PLUGINS_OFF:
            _no_plugins()
        from .client import forward, start_for_later

        status = forward(sys.argv[1:])
        if status is not None:
            sys.exit(status)
        start_for_later(sys.argv[1:])
    from .group import main as run

    try:
        run(argv)
    finally:
        if argv is None:
            gc.freeze()


PLUGIN_LOADER = "pydantic.plugin._loader"
PLUGINS_OFF = ("__all__", "1", "true")  # what pydantic's loader reads as "every plugin off"


def _no_plugins() -> None:
    """With every pydantic plugin turned off, pydantic's loader of plugins answers "none"
    whatever it would find, yet importing it imports ``importlib.metadata`` (email, zipfile,
    tempfile…: ~15 ms of a ~180 ms command, which uses none of them). So the import system
    is given, for that one module, a stand-in (``_StandIn``) that answers "none" itself
    (``get_plugins``) while ``PYDANTIC_DISABLE_PLUGINS`` still says so, and hands anything
    else pydantic may ask of it (a later pydantic's loader may hold more) to the real
    loader, imported then."""
    if PLUGIN_LOADER not in sys.modules and _StandIn not in sys.meta_path:
        sys.meta_path.insert(0, _StandIn)  # type: ignore[arg-type]


class _StandIn:
    """Finder and loader of the stand-in for pydantic's loader of plugins (``_no_plugins``):
    found through the import system, it is imported as the real module would be (its
    package first, then bound on it; ``importlib.reload`` makes it again)."""

    @classmethod
    def find_spec(cls, name: str, path: Any = None, target: Any = None) -> Any:
        if name != PLUGIN_LOADER:
            return None
        from importlib.machinery import ModuleSpec

        return ModuleSpec(name, cls)  # type: ignore[arg-type]

    @staticmethod
    def create_module(spec: Any) -> None:
        return None  # a plain module

    @staticmethod
    def exec_module(module: Any) -> None:
        module.__doc__ = "pydantic's loader of plugins, stood in for while every plugin is off (ledger)"

        def get_plugins() -> Any:
            if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in PLUGINS_OFF:
                return ()
            return _real(module, "get_plugins")()

        module.get_plugins = get_plugins
        module.__getattr__ = lambda attribute: _real(module, attribute)


def _real(stand_in: Any, attribute: str) -> Any:
    """``attribute`` of pydantic's own loader of plugins, imported in the stand-in's place."""
    if attribute.startswith("__"):  # what the import system asks of any module (``__path__``…)
        raise AttributeError(attribute)
    import importlib

    with contextlib.suppress(ValueError):
        sys.meta_path.remove(_StandIn)  # type: ignore[arg-type]
    if sys.modules.get(PLUGIN_LOADER) is stand_in:
        del sys.modules[PLUGIN_LOADER]
    return getattr(importlib.import_module(PLUGIN_LOADER), attribute)


def __getattr__(name: str) -> Any:
    """``cli`` (the click group), imported when asked for: the installed command imports
    this package before it knows whether a warm server will run the command."""
    if name == "cli":
        from .group import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
