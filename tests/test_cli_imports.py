"""What the ``ledger`` command imports: ``ledger --help`` loads none of the heavy
libraries (pydantic, rich, eventsourcing, the read side), and a command loads only the
module of ``ledger.interface.cli`` that defines it (``group.COMMAND_MODULES``), so
that starting the command stays quick."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from ledger.catalog import sample_catalog_path
from ledger.interface.cli import cli
from ledger.interface.cli.group import COMMAND_MODULES, load_commands

HEAVY = ("pydantic", "pydantic_core", "rich", "eventsourcing", "msgspec", "sqlite_utils", "projections",
         "importlib.metadata", "ledger.application", "ledger.events", "ledger.commands")

SCRIPT = """
import json, sys
from ledger.interface.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
with open(sys.argv[1], "w") as f:
    json.dump(sorted(sys.modules), f)
"""


def modules_loaded(tmp_path: Path, *args: str) -> set[str]:
    """The modules a fresh ``ledger ARGS`` process has imported when it ends."""
    out = tmp_path / "modules.json"
    subprocess.run([sys.executable, "-c", SCRIPT, str(out), *args], cwd=tmp_path, capture_output=True,
                   check=True, timeout=120)
    return set(json.loads(out.read_text()))


def loaded(modules: set[str], name: str) -> bool:
    return any(m == name or m.startswith(f"{name}.") for m in modules)


@pytest.mark.parametrize("args", [["--help"], ["draw", "--help"], []])
def test_help_loads_no_heavy_library(args, tmp_path):
    modules = modules_loaded(tmp_path, *args)
    assert [name for name in HEAVY if loaded(modules, name)] == []


def test_a_command_loads_only_its_own_module(tmp_path):
    # refused (there is no such file), after the command was found and run
    modules = modules_loaded(tmp_path, "--db", str(tmp_path / "missing.db"), "draw", "deck:item")
    assert not (tmp_path / "missing.db").exists()
    commands = {m.rsplit(".", 1)[1] for m in modules if m.startswith("ledger.interface.cli.")}
    assert commands == {"group", "session", "speech", "play"}


def test_every_command_is_listed_under_the_module_that_defines_it():
    load_commands()
    ctx = click.Context(cli)
    defined = {name: cli.get_command(ctx, name).callback.__module__.rsplit(".", 1)[1]  # type: ignore[union-attr]
               for name in cli.list_commands(ctx)}
    listed = {name: module for module, names in COMMAND_MODULES.items() for name in names}
    assert listed == defined


def test_every_event_and_command_type_builds():
    """Event and command types build their validators on first use (``defer_build``), so
    that a command builds only the few it meets; a type that cannot be built would then
    fail only where it is first used, so each is built here."""
    from pydantic import BaseModel

    from ledger import commands, events

    types = [value for module in (events, commands) for value in vars(module).values()
             if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == module.__name__]
    assert len(types) > 50
    for model in types:
        model.model_rebuild(force=True)
        assert model.__pydantic_complete__, model


def test_a_recorded_action_prints_without_rich_or_the_light_decoding(tmp_path):
    """The commonest command of a game — one action, one line — loads neither rich (its
    one line is click's) nor the rebuild's msgspec classes."""
    db = tmp_path / "demo.db"
    subprocess.run([sys.executable, "-m", "ledger", "--db", str(db), "demo"], cwd=tmp_path, capture_output=True,
                   check=True, timeout=120)
    modules = modules_loaded(tmp_path, "--db", str(db), "--actor", "ana", "exhaust", "item-sword")
    assert "ledger.events" in modules  # it did record (or at least decide)
    assert not loaded(modules, "rich") and "projections.decoding" not in modules


def test_the_installed_command_asks_the_warm_server_before_importing_click(tmp_path):
    """``ledger`` offers its command line to a warm command server (``ledger daemon
    start``) before importing anything of its own: with one running, that offer is the
    whole of the process (tests/test_daemon.py); without one, it costs a ``stat``: not
    even the standard library's socket module is imported."""
    out = tmp_path / "modules.json"
    script = ("import json, sys\nfrom ledger.interface.cli import client\n"
              "assert client.forward(['--db', 'x.db', 'zones']) is None\n"
              "json.dump(sorted(sys.modules), open(sys.argv[1], 'w'))\n")
    servers = tmp_path / "servers"
    servers.mkdir(mode=0o700)
    subprocess.run([sys.executable, "-c", script, str(out)], cwd=tmp_path, capture_output=True, check=True,
                   timeout=120, env={**os.environ, "LEDGER_DAEMON_DIR": str(servers), "LEDGER_DAEMON": "auto"})
    modules = set(json.loads(out.read_text()))
    assert [name for name in (*HEAVY, "click", "ledger.i18n", "ledger.errors", "socket")
            if loaded(modules, name)] == []


@pytest.mark.parametrize("setting", [None, ""])
def test_the_command_does_not_search_for_pydantic_plugins_unless_asked(tmp_path, setting):
    """pydantic looks through every installed distribution for plugins when it builds its
    first validator; the ledger uses none, so the command skips that search (a fake
    plugin on the path is never loaded) unless ``PYDANTIC_DISABLE_PLUGINS`` is set
    already: set empty, the plugin is found and loaded."""
    plugins = tmp_path / "plugins"
    (plugins / "fakeplug-1.0.dist-info").mkdir(parents=True)
    (plugins / "fakeplug-1.0.dist-info" / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeplug\nVersion: 1.0\n")
    (plugins / "fakeplug-1.0.dist-info" / "entry_points.txt").write_text("[pydantic]\nfake = fakeplug:plugin\n")
    marker = tmp_path / "loaded"
    (plugins / "fakeplug.py").write_text(
        f"open({str(marker)!r}, 'w').close()\n"
        "class _Plugin:\n"
        "    def new_schema_validator(self, *args, **kwargs):\n"
        "        return None, None, None\n"
        "plugin = _Plugin()\n")
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join([str(plugins), *filter(None, [env.get("PYTHONPATH")])])
    if setting is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = setting
    db = tmp_path / "c.db"
    done = subprocess.run([sys.executable, "-m", "ledger", "--db", str(db), "init", "--catalog", str(sample_catalog_path())],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert marker.exists() == (setting == ""), "the plugin was loaded" if marker.exists() else "it was not"


INSTALLED = """
import json, sys
sys.argv = ["ledger", *sys.argv[2:]]
from ledger.interface.cli import main
try:
    main()
except SystemExit as exc:
    status = exc.code
else:
    status = 0
loader = sys.modules.get("pydantic.plugin._loader")
with open(OUT, "w") as f:
    json.dump({"status": status, "modules": sorted(sys.modules), "real_loader": hasattr(loader, "__file__")}, f)
"""


def test_a_recorded_action_of_the_installed_command_imports_no_plugin_machinery(tmp_path):
    """The installed command (its own process, no ``argv`` given to ``main``) records an
    action without importing ``importlib.metadata``: with every pydantic plugin off, the
    loader of plugins, which would import it, is not imported either (``_no_plugins``)."""
    db = tmp_path / "demo.db"
    subprocess.run([sys.executable, "-m", "ledger", "--db", str(db), "demo"], cwd=tmp_path, capture_output=True,
                   check=True, timeout=120)
    out = tmp_path / "out.json"
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    env["LEDGER_DAEMON"] = "off"
    subprocess.run([sys.executable, "-c", INSTALLED.replace("OUT", repr(str(out))), "-",
                    "--db", str(db), "--actor", "ana", "exhaust", "item-sword"],
                   cwd=tmp_path, capture_output=True, check=True, timeout=120, env=env)
    found = json.loads(out.read_text())
    assert found["status"] == 0
    assert "ledger.events" in found["modules"]  # it decided and recorded, building validators
    assert not loaded(set(found["modules"]), "importlib.metadata")
    assert found["real_loader"] is False


STAND_IN = """
import importlib, os, sys
os.environ["PYDANTIC_DISABLE_PLUGINS"] = "__all__"  # as the installed command sets it
from ledger.interface.cli import _no_plugins, PLUGIN_LOADER
_no_plugins()
import pydantic.plugin._loader as stand_in  # its package not imported yet: the import system does it
assert tuple(stand_in.get_plugins()) == () and not hasattr(stand_in, "__file__")
import pydantic.plugin
assert pydantic.plugin._loader is stand_in  # bound on its package, as any submodule
from pydantic import BaseModel
class M(BaseModel):
    x: int
assert M(x="1").x == 1  # pydantic builds validators with it
assert "importlib.metadata" not in sys.modules
importlib.reload(stand_in)
assert tuple(stand_in.get_plugins()) == ()
os.environ["PYDANTIC_DISABLE_PLUGINS"] = ""  # plugins turned on again in the process: the real loader answers
assert tuple(stand_in.get_plugins()) == ()  # (none is installed)
assert sys.modules[PLUGIN_LOADER].__file__.endswith("_loader.py")
assert stand_in.PYDANTIC_ENTRY_POINT_GROUP == "pydantic"  # anything else: from the real one
"""


def test_the_stand_in_loader_is_imported_as_a_module_and_hands_anything_else_to_pydantics_own():
    """The stand-in answers ``get_plugins`` itself ("none", as pydantic's loader does with
    every plugin off), is imported and reloaded as the real module would be (through the
    import system: its package first, then bound on it), and hands anything else, and
    ``get_plugins`` once plugins are turned on again, to the real loader."""
    done = subprocess.run([sys.executable, "-c", STAND_IN], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
