"""What no command takes, whichever way it comes (the CLI's arguments, the table server's
bodies): a number beyond what a seq, count or seed can mean, a text longer than an id or
a free text can be, an empty name. The command models say what each field is; these are
the limits on the size of what is given, shared by both interfaces."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .i18n import _

if TYPE_CHECKING:
    from .commands import Command

LARGEST = 2**53  # a number beyond this is no seq, count or seed a player means
LONGEST_ID = 1_000
"""Characters in an id (card, zone, hero, location, suit, energy kind): more than any the
rules take, so that the rules, not this, say what is wrong with an id (a card's is at most
64, a hero's 32, a zone's parts 64 each, and a format may give a zone several: a QA pass
found a zone of 102 characters refused at 100)."""
TEXTS = {"name": 200, "target": 500, "note": 2000, "cost": 500}  # the free texts (the command's own limit, if any, holds too)


def bounded(value: Any, where: str, longest: int, flags: bool) -> None:
    """Refuses (``ValueError``, one line) what no command takes: a number too large,
    true/false where no yes/no goes, a string too long or an empty key, anywhere in ``value``."""
    if isinstance(value, bool):
        if not flags:
            raise ValueError(_("{where}: {value} is not a value this takes").format(where=where, value=str(value).lower()))
    elif isinstance(value, int) and not -LARGEST <= value <= LARGEST:
        digits = str(value)
        shown = digits if len(digits) <= 20 else digits[:20] + "…"
        raise ValueError(_("{where}: {number} is too large a number").format(where=where, number=shown))
    elif isinstance(value, str) and len(value) > longest:
        raise ValueError(_("{where}: a text of {length} characters; at most {longest} here").format(
            where=where, length=len(value), longest=longest))
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and not key:
                raise ValueError(_("{where}: an empty name").format(where=where))
            bounded(key, where, longest, flags)
            bounded(item, where, longest, flags)
    elif isinstance(value, list | tuple):
        for item in value:
            bounded(item, where, longest, flags)


def check_command(command: Command, named: Callable[[str, Any], str] | None = None) -> None:
    """A command as an interface made it, within the limits (``ValueError`` if not, naming
    the field as ``named(field, value)`` says the interface calls it, asked only then): the
    CLI's ``hero add --name`` of 100 KB is refused as the API's is."""
    for name in type(command).model_fields:
        if name in ("actor", "type"):
            continue
        value, longest = getattr(command, name), TEXTS.get(name, LONGEST_ID)
        try:
            bounded(value, name, longest, flags=True)
        except ValueError:
            if named is None:
                raise
            bounded(value, named(name, value), longest, flags=True)  # the same refusal, in the interface's words
            raise
