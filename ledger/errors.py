"""Why an action is refused. Every refusal is a ``LedgerError`` (a ``ValueError``)
whose message says what was wrong and what would be right; the CLI prints it as
one ``error:`` line and exits 1. ``code`` is the machine-readable name in ``--json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


# What str.splitlines() breaks a line at; a file or an argument may hold any of them.
_LINE_BREAKS = {ord(ch): repr(ch)[1:-1] for ch in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"}


def one_line(message: str) -> str:
    """A message kept to one line: line breaks inside it (say, from a file's text)
    are written escaped."""
    return message.translate(_LINE_BREAKS)


class LedgerError(ValueError):
    code = "refused"

    def __init__(self, message: str = "") -> None:
        super().__init__(one_line(str(message)))


class BadInput(LedgerError):
    """A malformed id, number or option."""

    code = "bad-input"


class BadCatalog(LedgerError):
    """A catalog or format file that cannot be used: names the file, row and field."""

    code = "bad-file"


class UnknownCard(LedgerError):
    code = "unknown-card"


class UnknownZone(LedgerError):
    code = "unknown-zone"


class UnknownHero(LedgerError):
    code = "unknown-hero"


class UnknownCampaign(LedgerError):
    code = "unknown-campaign"


class RuleBroken(LedgerError):
    """The action is well formed but a rule of the game forbids it."""

    code = "rule"


class CardNotThere(RuleBroken):
    code = "card-not-there"


class DeckEmpty(RuleBroken):
    code = "deck-empty"


class NotAllowed(RuleBroken):
    """The actor may not do this (ownership, control)."""

    code = "not-allowed"


class StoreError(LedgerError):
    """The database file cannot be used (missing, not SQLite, busy)."""

    code = "store"


def first_problem(exc: ValidationError) -> str:
    """One line from a pydantic validation error: ``field: what is wrong``."""
    from .i18n import _  # not at the top: ledger.i18n imports this module

    err = exc.errors()[0]
    field = ".".join(str(p) for p in err["loc"])
    msg = err["msg"].removeprefix("Value error, ")  # pydantic's words, or ours (translated when raised)
    if field and not msg.startswith(f"{field}:"):
        # TRANSLATORS: a field of a command or file and what is wrong with it (pydantic's words).
        return _("{field}: {problem}").format(field=field, problem=msg)
    return msg
