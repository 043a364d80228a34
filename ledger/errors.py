"""Why an action is refused. Every refusal is a ``LedgerError`` (a ``ValueError``)
whose message says what was wrong and what would be right; the CLI prints it as
one ``error:`` line and exits 1. ``code`` is the machine-readable name in ``--json``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .i18n import N_, N_plural, _, ngettext, pgettext
from .texts import escaped

if TYPE_CHECKING:
    from pydantic import ValidationError


LONG_WORD = 1_000
"""A run of more characters than this without a space, in a message, is the echo of
something given (a 100 KB card id): said by its start and its end. A file's path is seldom
longer, and is said whole (a QA pass: at 120, a path of 173 characters lost the very
directory that was wrong)."""
LONGEST_LINE = 2_000
"""The most characters a message keeps (a hero name of 100 KB with spaces in it)."""


def one_line(message: str) -> str:
    """A message kept to one line: line breaks inside it (say, from a file's text), and
    any other character that is not printable (an argument's escape, a lone surrogate),
    are written as their codes (``ledger.texts.escaped``); what it echoes of a huge input
    is cut to its start and end, so a refusal stays a line to read."""
    line = escaped(message)
    if len(line) <= LONG_WORD:
        return line
    line = re.sub(r"\S{%d,}" % (LONG_WORD + 1), lambda m: m.group()[:300] + "…" + m.group()[-200:], line)
    return line if len(line) <= LONGEST_LINE else line[:LONGEST_LINE - 1] + "…"


def first_line(exc: BaseException, limit: int = 200) -> str:
    """What an exception says, in one line: the first line of its message (at most
    ``limit`` characters), or its kind when it says nothing."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:limit]


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


class OutdatedLedger(LedgerError):
    """The campaign holds actions decided under rules newer than this ledger knows: it
    records nothing there (what it recorded would claim older rules after newer ones)."""

    code = "outdated-ledger"


class StoreError(LedgerError):
    """The database file cannot be used (missing, not SQLite, busy)."""

    code = "store"


class FileBusy(StoreError):
    """Another connection held the SQLite file's lock for longer than this process
    waits (a command: ``LEDGER_LOCK_TIMEOUT``; the table server's clerk: 20 ms, then it
    tries again later, serving others meanwhile). Nothing of the failed write was stored."""


class DamagedRecord(StoreError):
    """A stored event that cannot be read back (its JSON or its fields were changed or
    damaged in the file); ``cause``: what reading it raised; ``seq``: the first action
    of the campaign's log that is not as recorded, where the read models found it (its
    order in the file); ``campaign``: the slug of the campaign it names, where the read
    models found it while following the whole file (the table server does not name it to
    seats of other campaigns). Not passing, as a busy file is: it stays until the file is
    restored."""

    code = "damaged"

    def __init__(self, message: str, cause: BaseException, seq: int | None = None, campaign: str | None = None):
        super().__init__(message)
        self.cause, self.seq, self.campaign = cause, seq, campaign


# What pydantic finds wrong with a field, by its error ``type``, in pydantic's own English
# words (so that English reads exactly as pydantic writes it: tests/test_i18n_refusals.py
# checks each against pydantic), with the figures of the error's ``ctx`` as placeholders.
# A count reads in the singular or plural: (the figure counted, the two forms).
PROBLEMS: dict[str, str | tuple[str, tuple[str, str]]] = {
    "missing": N_("Field required"),
    "extra_forbidden": N_("Extra inputs are not permitted"),
    "greater_than_equal": N_("Input should be greater than or equal to {ge}"),
    "less_than_equal": N_("Input should be less than or equal to {le}"),
    "greater_than": N_("Input should be greater than {gt}"),
    "less_than": N_("Input should be less than {lt}"),
    "int_parsing": N_("Input should be a valid integer, unable to parse string as an integer"),
    "int_type": N_("Input should be a valid integer"),
    "int_from_float": N_("Input should be a valid integer, got a number with a fractional part"),
    "float_parsing": N_("Input should be a valid number, unable to parse string as a number"),
    "string_type": N_("Input should be a valid string"),
    "string_too_long": ("max_length", N_plural("String should have at most {max_length} character",
                                               "String should have at most {max_length} characters")),
    "string_too_short": ("min_length", N_plural("String should have at least {min_length} character",
                                                "String should have at least {min_length} characters")),
    # TRANSLATORS: {expected} lists the values a field accepts: "'deck' or 'pile'".
    "literal_error": N_("Input should be {expected}"),
    "enum": N_("Input should be {expected}"),
    "bool_parsing": N_("Input should be a valid boolean, unable to interpret input"),
    "bool_type": N_("Input should be a valid boolean"),
    # TRANSLATORS: {field_type} is "List", "Tuple"... (translated on its own); counts of items.
    "too_long": ("max_length", N_plural("{field_type} should have at most {max_length} item after validation, "
                                        "not {actual_length}",
                                        "{field_type} should have at most {max_length} items after validation, "
                                        "not {actual_length}")),
    "too_short": ("min_length", N_plural("{field_type} should have at least {min_length} item after validation, "
                                         "not {actual_length}",
                                         "{field_type} should have at least {min_length} items after validation, "
                                         "not {actual_length}")),
    "list_type": N_("Input should be a valid list"),
    "tuple_type": N_("Input should be a valid tuple"),
    "dict_type": N_("Input should be a valid dictionary"),
    "model_type": N_("Input should be a valid dictionary or instance of {class_name}"),
    # TRANSLATORS: {error} is the JSON parser's own (English) words.
    "json_invalid": N_("Invalid JSON: {error}"),
}

FIELD_TYPES = {
    # TRANSLATORS: kinds of value a field holds, only as the subject of "List should have at most 3 items".
    "List": N_("List"), "Tuple": N_("Tuple"), "Set": N_("Set"), "Dictionary": N_("Dictionary"),
}


def problem(err: Mapping[str, Any]) -> str:
    """What is wrong with one field of a pydantic validation error (an item of
    ``ValidationError.errors()``), in the language being spoken: pydantic's words for
    its ``type`` (``PROBLEMS``) with the figures of its ``ctx``; our own validators'
    ``ValueError`` text (translated when raised) without pydantic's "Value error, "; any
    other type in pydantic's words."""
    msg = str(err.get("msg", "")).removeprefix("Value error, ")
    said = PROBLEMS.get(str(err.get("type")))
    if said is None:
        return msg
    figures = dict(err.get("ctx") or {})
    try:
        if isinstance(said, tuple):
            counted, (singular, plural) = said
            text = ngettext(singular, plural, int(figures[counted]))
        else:
            text = _(said)
        if "field_type" in figures:
            kind = FIELD_TYPES.get(str(figures["field_type"]))
            figures["field_type"] = _(kind) if kind else figures["field_type"]
        if "expected" in figures:
            figures["expected"] = _choices(str(figures["expected"]))
        return text.format(**figures)
    except (KeyError, IndexError, ValueError, TypeError):  # figures this pydantic does not give: its words
        return msg


def _choices(expected: str) -> str:
    """pydantic's list of the values a field accepts (``'a', 'b' or 'c'``), its last "or"
    in the language being spoken."""
    head, sep, last = expected.rpartition(" or ")
    quoted = ("'", '"', *"0123456789")
    if not sep or not head.endswith(quoted) or not last.startswith(quoted):
        return expected
    return f"{head} {pgettext('between choices', 'or')} {last}"


def first_problem(exc: ValidationError, said: Mapping[str, str] | None = None) -> str:
    """One line from a pydantic validation error: ``field: what is wrong``; ``said``: how
    the person named a field (``{"action_points": "--ap"}``), where it differs."""
    err = exc.errors()[0]
    loc = [str(p) for p in err["loc"]]
    if loc and said and loc[0] in said:  # --energy fire, not energies.fire
        field = " ".join([said[loc[0]], ".".join(loc[1:])]).strip()
    else:
        field = ".".join(loc)
    msg = problem(err)
    if field and not msg.startswith(f"{field}:"):
        # TRANSLATORS: a field of a command or file and what is wrong with it.
        return _("{field}: {problem}").format(field=field, problem=msg)
    return msg


class NewerRecord(DamagedRecord):
    """A stored action this ledger cannot read that says a newer ledger recorded it (newer
    rules): not damage; the ledger is to be updated."""
