"""The ``ledger`` group: its global options, ``--version``, and the one place where a
failure becomes an ``error:`` line (exit 1, or 2 for a usage error), however the
group is run: by ``main`` (the installed command, ``python -m ledger``) or directly,
as ``click.testing.CliRunner().invoke(cli, args)`` does.

The commands sit by topic in the modules of ``COMMAND_MODULES``; running one imports
only its module (each registers its commands on the group when imported), while
``ledger --help`` and a name no module is listed for import them all.
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from ...errors import BadInput, LedgerError, first_line, first_problem
from ...i18n import _, speaking
from ...vocabulary import MASTER, REFEREE
from .session import Session, check_actor, check_viewer, ctrl_c, error_line, fail, option_name
from .speech import LANG_CHOICE, TranslatedCommand, TranslatedGroup, chosen_language, speak_for_click

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

COMMAND_MODULES = {
    "setup": ("init", "campaigns", "hero", "location", "travel", "add"),
    "play": ("draw", "send", "discard", "bury", "exile", "shuffle", "search", "reveal", "hide", "exhaust",
             "restore", "attach", "detach", "battle", "access", "trade", "obtain", "activate"),
    "record": ("undo", "redo", "rebuild", "simulate", "demo"),
    "trust": ("verify", "checkpoint", "keys", "export", "import"),
    "read": ("zones", "card", "history", "explain", "catalog"),
    "table": ("seat", "serve"),
    "daemon": ("daemon",),
}
"""The modules of this package that hold the commands, and the top-level commands each
registers (tests/test_cli_imports.py checks the list against the group)."""
_MODULE_OF = {name: module for module, names in COMMAND_MODULES.items() for name in names}


def load_commands(module: str | None = None) -> None:
    """Registers the commands of one module of ``COMMAND_MODULES`` (importing it), or of all."""
    for name in (module,) if module else COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}")


class GivenOnce(click.Command):
    """An option that takes one value is given once: click kept the last of ``--count 1
    --count 2`` (or ``--db a.db --db b.db``) without a word, as a query string's repeated
    key is refused by the table server. Options that gather values (``--to`` of reveal),
    flags (``--json``: twice is the same) and ``--help`` may repeat."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            order = self.make_parser(ctx).parse_args(args=list(args))[2]
        except click.ClickException:  # click says what is wrong, as ever
            return super().parse_args(ctx, args)
        seen: set[str | None] = set()
        for param in order:
            if isinstance(param, click.Option) and not (param.multiple or param.count or param.is_eager
                                                        or param.is_flag):  # (a flag twice is the flag)
                if param.name in seen:
                    raise click.UsageError(_("{option} is given twice; give it once").format(
                        option=max(param.opts, key=len)), ctx)
                seen.add(param.name)
        return super().parse_args(ctx, args)


class LedgerCommand(GivenOnce, TranslatedCommand):
    """A command whose refused values name the option the person typed: a command's
    field that pydantic refuses (``action_points``) is said as its option (``--ap``)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            if "pydantic" not in sys.modules:  # no model was made: not pydantic's refusal
                raise
            from pydantic import ValidationError

            if not isinstance(exc, ValidationError):
                raise
            said = {param.name: name for param in self.params
                    if param.name and (name := option_name(param)) is not None}
            raise BadInput(first_problem(exc, said)) from exc


class SignedArguments(LedgerCommand):
    """A command whose number argument may be typed negative (``explain -1``, ``hero
    knowledge ana -1``, ``access village item -1 --by CARD``): a lone ``-N`` is the number,
    refused as such, not an unknown option; any other unknown option is still a usage
    error, and options after the number are read as options."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        options = [param for param in self.get_params(ctx) if isinstance(param, click.Option)]
        known = {opt for param in options for opt in (*param.opts, *param.secondary_opts)}
        valued = {opt for param in options if not (param.is_flag or param.count) for opt in param.opts}
        signed = False
        tokens = iter(args)
        for token in tokens:
            if token == "--":
                break
            if token in valued:
                next(tokens, None)  # its value, whatever it looks like (--by -x)
            elif token[:1] == "-" and token[1:].isdigit() and token[1:].isascii():
                signed = True
            elif token[:1] == "-" and token != "-" and token.split("=", 1)[0] not in known:  # as click would say it
                from difflib import get_close_matches

                option = token.split("=", 1)[0]
                raise click.NoSuchOption(option, possibilities=get_close_matches(option, known), ctx=ctx)
        if signed:
            ctx.ignore_unknown_options = True
        return super().parse_args(ctx, args)


class LedgerGroup(GivenOnce, TranslatedGroup):
    """A click group whose ``main`` never lets a traceback reach the user: refusals and
    bad input print one ``error:`` line on stderr (and the error object on stdout with
    ``--json``) and exit 1; usage errors exit 2; a bare ``ledger`` shows the help.
    A command's module is imported when the command is looked up (``load_commands``)."""

    command_class = LedgerCommand

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            load_commands(_MODULE_OF.get(cmd_name))
            if cmd_name not in self.commands:  # not listed (or not where listed): every module
                load_commands()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        """Runs the command; Ctrl-C is passed on as ``Interrupted``, which click's own
        ``main`` would otherwise turn into a blank line and ``aborted``, and noted
        (``session.CtrlC``) so that a press lost in a finalizer still stops a long command."""
        import signal

        ours = (not ctrl_c.armed and threading.current_thread() is threading.main_thread()
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler)  # not if the caller chose otherwise
        if ours:
            ctrl_c.pressed = False
            signal.signal(signal.SIGINT, ctrl_c.handler)
            ctrl_c.armed = True
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None
        finally:
            if ours:  # put back as found, with Ctrl-C held meanwhile (a press then comes right after)
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
                try:
                    signal.signal(signal.SIGINT, signal.default_int_handler)
                    ctrl_c.armed = ctrl_c.pressed = False
                finally:
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    def list_commands(self, ctx: click.Context) -> list[str]:
        load_commands()
        return super().list_commands(ctx)

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        """Errors are always turned into their line and exit status; ``standalone_mode``
        only decides whether success exits (status 0, or ``ctx.exit``'s) or returns."""
        argv = list(args) if args is not None else sys.argv[1:]
        as_json = "--json" in argv
        try:
            takes_value = {name for param in self.params if isinstance(param, click.Option) and not param.is_flag
                           for name in param.opts}
            language = chosen_language(argv, takes_value)
        except LedgerError as exc:  # a $LEDGER_LANG the ledger does not speak
            fail(str(exc), exc.code, as_json)
        speak_for_click()
        with speaking(language):
            return self._main(argv, prog_name, complete_var, standalone_mode, as_json, **extra)

    def _main(self, argv: list[str], prog_name: str | None, complete_var: str | None, standalone_mode: bool,
              as_json: bool, **extra: Any) -> Any:
        try:
            result = super().main(args=argv, prog_name=prog_name or "ledger", complete_var=complete_var,
                                  standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # bare `ledger` or `ledger hero`: show help
            click.echo(exc.ctx.get_help() if exc.ctx else _("see ledger --help"))
            sys.exit(0)
        except click.Abort:
            click.echo(error_line(_("aborted")), err=True)
            sys.exit(1)
        except click.BadParameter as exc:
            if isinstance(exc, click.MissingParameter):
                usage_error(exc, as_json)
            fail(clicks_refusal(exc), "bad-input", as_json)  # a value refused (1), as the ledger's own types do
        except click.UsageError as exc:
            usage_error(exc, as_json)
        except (KeyboardInterrupt, Interrupted):
            click.echo(error_line(_("interrupted; nothing half-recorded (each action is saved whole or not at all)")),
                       err=True)
            sys.exit(1)
        except Exception as exc:  # never a traceback at the table
            code, message = refusal(exc)
            fail(message, code, as_json)
        if standalone_mode:  # click returns ctx.exit's status (--help, --version) as an int
            sys.exit(result if isinstance(result, int) else 0)
        return result


class Interrupted(Exception):
    """Ctrl-C while a command ran (see ``LedgerGroup.invoke``)."""


def usage_error(exc: click.UsageError, as_json: bool = False) -> NoReturn:
    """A usage error: one line, with the help to read, and exit 2 (``--json``: the error
    object on stdout too, code ``usage``, as a refusal's). A global option typed after the
    command (``ledger draw deck:item --actor ana``) is told where it goes, rather than
    offered a look-alike of the command's own (``Did you mean '--to'?``)."""
    hint = ""
    command = ""
    if exc.ctx:
        command = f"ledger {exc.ctx.command_path.removeprefix('ledger').strip()}".strip()
        hint = " " + _("(see {command} --help)").format(command=command)
    if isinstance(exc, click.NoSuchOption) and exc.ctx is not None and exc.ctx.parent is not None:
        option = exc.option_name.partition("=")[0]
        given = next((param for param in cli.params if option in param.opts), None)
        if isinstance(given, click.Option):
            value = "" if given.is_flag else " …"
            message = _("{option} is a global option: it goes before the command ({example})").format(
                option=option, example=f"ledger {option}{value} {command.removeprefix('ledger ')} …")
            _usage_exit(message, as_json)
    _usage_exit(f"{exc.format_message()}{hint}", as_json)


def _usage_exit(message: str, as_json: bool) -> NoReturn:
    if as_json:
        click.echo(json.dumps({"error": {"code": "usage", "message": message}}))
    click.echo(error_line(message), err=True)
    sys.exit(2)


def clicks_refusal(exc: click.BadParameter) -> str:
    """The line for a value click's own types refused (a choice, a range): the option as
    named (``option_name``, as for the ledger's own types' ``bad_value``) or the argument
    as the usage line names it, then what was wrong (``--by: 'luck' is not one of …``)."""
    param = exc.param
    if param is None:
        return exc.format_message()
    return _("{field}: {problem}").format(field=option_name(param) or param.human_readable_name, problem=exc.message)


def refusal(exc: Exception) -> tuple[str, str]:
    """A failure as ``(code, message)`` for its ``error:`` line and ``--json`` object. A
    storage failure that reached here unnamed (one the application did not turn into a
    ``StoreError``, say from a read-model connection) is put in words all the same."""
    import sqlite3

    from eventsourcing.persistence import PersistenceError
    from pydantic import ValidationError

    from ...storage_errors import database_failure, os_error_advice, os_error_reason

    if isinstance(exc, click.ClickException):
        return "bad-input", exc.format_message()
    if isinstance(exc, LedgerError):
        return exc.code, str(exc)
    if isinstance(exc, ValidationError):
        return "bad-input", first_problem(exc)
    from_store = isinstance(exc, sqlite3.Error | PersistenceError)
    found = database_failure(exc, None, writing=False, recorded=-1) if from_store else None
    if found is not None:
        return "store", str(found)
    if isinstance(exc, sqlite3.Error):
        return "store", _("the campaign database cannot be used ({reason})").format(reason=exc)
    from ...postgres import connection_lost, missing_relation, refused_privilege

    lost = refused_privilege(exc) or missing_relation(exc) or connection_lost(exc)
    if lost is not None:
        return "store", str(lost)
    if from_store and isinstance(exc.__cause__, sqlite3.DatabaseError) \
            and not isinstance(exc.__cause__, sqlite3.ProgrammingError | sqlite3.IntegrityError):
        # eventsourcing's own words for SQLite's failing file (malformed, say); its words for a
        # bug in the ledger's SQL stay an unexpected failure, to be reported
        return "store", _("the campaign database cannot be used ({reason})").format(reason=first_line(exc))
    if isinstance(exc, OSError) and exc.filename:
        advice = os_error_advice(exc)
        return "file", _("cannot use {file}: {reason}").format(file=exc.filename, reason=os_error_reason(exc)) + (
            f" ({advice})" if advice else "")
    return "internal", _("unexpected failure ({kind}: {detail}); please report it").format(
        kind=exc.__class__.__name__, detail=str(exc)[:200])


def show_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the package's version (looked up only when asked), SQLite's and Python's."""
    if not value or ctx.resilient_parsing:
        return
    import sqlite3
    from importlib.metadata import PackageNotFoundError, version

    try:
        number = version("campaign-ledger")
    except PackageNotFoundError:  # running from a checkout
        number = "0.0.0"
    click.echo(f"ledger {number} (SQLite {sqlite3.sqlite_version}, Python {sys.version.split()[0]})",
               color=ctx.color)
    ctx.exit()


@click.group(name="ledger", cls=LedgerGroup, context_settings=CONTEXT)
@click.option("--db", "db", envvar="LEDGER_DB", default="campaign.db", show_default=True,
              help="The campaign database file ($LEDGER_DB).")
@click.option("--campaign", "campaign_slug", default=None, help="Which campaign, when the file holds several.")
@click.option("--actor", default=MASTER, show_default=True, help="Who acts: master or a hero id.")
@click.option("--as", "viewer", default=REFEREE, show_default=True,
              help="Whose view a read (and an action's result) shows: referee (master: the same), public or a "
                   "hero id.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@click.option("--lang", type=LANG_CHOICE, default=None, expose_value=False,
              help="The language to speak: pt (Português) or en (default: $LEDGER_LANG, then the locale).")
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=show_version,
              help="Show the version and exit.")
@click.pass_context
def cli(ctx: click.Context, db: str, campaign_slug: str | None, actor: str, viewer: str, as_json: bool) -> None:
    """Campaign ledger: every card action of a campaign, recorded and checked.

    \b
    Start:    ledger init --catalog cards.toml --name "Campanha"
    Play:     ledger --actor ana draw deck:item
    Look:     ledger zones
    Try it:   ledger demo
    """
    try:
        check_actor(actor)
        viewer = check_viewer(viewer)
    except LedgerError as exc:
        fail(str(exc), exc.code, as_json)
    ctx.obj = Session(db=db, campaign_slug=campaign_slug, actor=actor, viewer=viewer, as_json=as_json)
    ctx.call_on_close(ctx.obj.close)  # no connection outlives the command


def main(argv: list[str] | None = None) -> None:
    """The ``ledger`` command (``python -m ledger``, the installed script); returns on
    success, exits 1 or 2 with one ``error:`` line otherwise."""
    sys.unraisablehook = _unraisable
    cli.main(args=argv, prog_name="ledger", standalone_mode=False)


def _unraisable(unraisable: Any) -> None:
    """Python's report of an exception it could not raise (a Ctrl-C landing in a
    finalizer) names the object it met, whose text may be a face-down deck's order:
    a Ctrl-C is raised again in the command's thread (which says ``error:
    interrupted``); anything else is said in one line without the object."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):  # not lost: raised again where the command runs
        import _thread

        _thread.interrupt_main()
        return
    print("note: " + _("ignored {kind} while cleaning up").format(kind=type(unraisable.exc_value).__name__),
          file=sys.stderr)
