"""The CLI in the reader's language (``ledger.i18n``): ``--lang``, then ``$LEDGER_LANG``,
then the locale. Help texts are English msgids kept on the commands and options and
translated when a help page is written (``TranslatedCommand``), so that the language
is the one chosen for this run even for commands imported before it was chosen; click's
own texts ("Usage:", "Missing argument"...) are looked up in the ledger's catalog too
(``CLICK_TEXTS``, ``speak_for_click``)."""

from __future__ import annotations

import copy
from collections.abc import Collection, Sequence
from typing import Any

import click

from ...i18n import (
    LANGUAGES,
    N_,
    N_plural,
    _,
    from_environment,
    help_text,
    language,
    ngettext,
    parse_language,
    translations,
)

HELP_OPTION_TEXT = N_("Show this message and exit.")
"""The help of ``--help`` (click's own text), translated where it is written."""

CLICK_TEXTS = (
    N_("Usage:"), N_("Options"), N_("Commands"), N_("Aborted!"),
    N_("Missing argument"), N_("Missing option"), N_("Missing parameter"), N_("Missing command."),
    N_("Missing {param_type}"), N_("Missing parameter: {param_name}"),
    N_("No such option {name!r}."), N_("No such command {name!r}."), N_("Invalid value: {message}"),
    N_("Invalid value for {param_hint}: {message}"), N_("{value!r} is not a valid {number_type}."),
    N_("{value} is not in the range {range}."), N_("default: {default}"), N_("env var: {var}"),
    N_("required"), N_("Choose from:\n\t{choices}"), N_("{name} {filename!r} does not exist."),
    N_("{name} {filename!r} is a directory."), N_("{name} {filename!r} is not readable."),
    N_("file"), N_("directory"), N_("path"), N_("Option {name!r} does not take a value."),
    N_plural("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})"),
    N_plural("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments."),
    N_plural("{value!r} is not {choice}.", "{value!r} is not one of {choices}."),
    N_plural("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)"),
)
"""click's own texts a user of ``ledger`` meets, translated in the ledger's catalog."""

USAGE_PIECES = {"[OPTIONS]": N_("[OPTIONS]"), "COMMAND [ARGS]...": N_("COMMAND [ARGS]...")}
"""The words of a usage line that click does not translate (``Usage: ledger [OPTIONS]
COMMAND [ARGS]...``); the arguments' names (STACK, CARDS...) stay, as the help texts
name them."""


def speak_for_click() -> None:
    """Makes click look its texts up in the ledger's catalog (it calls ``gettext`` at the
    moment it writes them, through each module's ``_`` and ``ngettext``)."""
    import click.core
    import click.decorators
    import click.exceptions
    import click.formatting
    import click.parser
    import click.types

    for module in (click.core, click.decorators, click.exceptions, click.formatting, click.parser, click.types):
        if hasattr(module, "_"):
            module._ = _
        if hasattr(module, "ngettext"):
            module.ngettext = ngettext


def chosen_language(argv: Sequence[str], takes_value: Collection[str] = ()) -> str:
    """The language of this run: ``--lang`` among the group's options (before the
    command's name), else ``from_environment``. ``takes_value``: the group's options that
    take a value (``--db FILE``: FILE is not the command's name). A ``--lang`` the ledger
    does not speak is left to the option's own check (a usage error)."""
    skip = False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if not arg.startswith("-"):
            break  # the command: its own arguments are not the group's
        value = arg.partition("=")[2] if arg.startswith("--lang=") else (
            argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else None)
        if value is not None and parse_language(value):
            return parse_language(value)
        skip = arg in takes_value  # "--db=FILE" holds its value; "--db FILE" does not
    return from_environment()


def plural_form(n: int) -> int:
    """Which plural form the language being spoken counts ``n`` with, as ``ngettext``
    chooses it: 0 for the singular (English: 1; Portuguese: 0 and 1), 1 for the plural.
    For a sentence with two counts: ``ngettext`` over one count, in the variant this
    picks for the other."""
    plural = getattr(translations(language()), "plural", None)  # a compiled catalog's rule
    return int(plural(n)) if plural is not None else int(n != 1)


class LanguageChoice(click.Choice):
    """``--lang``: a language the ledger speaks, as ``ledger.i18n.parse_language`` reads a
    setting (``pt``, ``pt_BR``, ``pt-BR``, ``en_US.UTF-8``...), given as its code; shown
    as ``[en|pt]`` in the help. Anything else is refused as click refuses a choice."""

    def __init__(self) -> None:
        super().__init__(sorted(LANGUAGES))

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        code = parse_language(value) if isinstance(value, str) else None
        return code if code is not None else super().convert(value, param, ctx)


LANG_CHOICE = LanguageChoice()


class TranslatedCommand(click.Command):
    """A command whose help (its text, short help and options' help) is translated as it
    is written: click writes a translated shallow copy of the command (and of its
    options), so the shared command is never changed."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return [_(USAGE_PIECES[piece]) if piece in USAGE_PIECES else piece
                for piece in super().collect_usage_pieces(ctx)]

    def _said(self) -> TranslatedCommand:
        """A copy of this command with its help texts in the language being spoken."""
        said = copy.copy(self)
        said.help, said.short_help = help_text(self.help), help_text(self.short_help)
        return said

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super(TranslatedCommand, self._said()).format_help_text(ctx, formatter)

    def get_short_help_str(self, limit: int = 45) -> str:
        return super(TranslatedCommand, self._said()).get_short_help_str(limit)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        params = [_said_option(param) for param in self.get_params(ctx)]
        said = copy.copy(self)
        said.get_params = lambda _ctx: params  # type: ignore[method-assign]
        super(TranslatedCommand, said).format_options(ctx, formatter)

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)
        if option is not None:  # click makes it once, in the language then spoken: keep its msgid
            option.help = HELP_OPTION_TEXT
        return option


TYPE_METAVARS = {"text": N_("TEXT"), "integer": N_("INTEGER"), "float": N_("FLOAT"), "path": N_("PATH")}
"""click's names for the value of an option of a plain type (``--db TEXT``), as a help page
shows them; an option with a metavar of its own (``--out FILE``) keeps it."""


def _said_option(param: click.Parameter) -> click.Parameter:
    """A copy of an option with its help, and the name of its value when click names it by
    its type, in the language being spoken (an argument as it is)."""
    if not isinstance(param, click.Option) or not param.help:
        return param
    said = copy.copy(param)
    said.help = help_text(param.help)
    named = TYPE_METAVARS.get(getattr(param.type, "name", ""))
    if param.metavar is None and not param.is_flag and named is not None:
        said.metavar = _(named)
    return said


class TranslatedGroup(TranslatedCommand, click.Group):
    """A group of translated commands (its subcommands and subgroups are too)."""

    command_class = TranslatedCommand
    group_class = type  # subgroups: this class
