"""Text that came from outside — a command's argument, a file, a player's note in the
record — as the ledger shows it: on one line, and never driving a terminal. A character
that is not printable (a control character such as a terminal's escape, a line break, a
format character such as a right-to-left override, a lone surrogate) is written as its
code; spaces of any kind are kept."""

from __future__ import annotations

import unicodedata


def _shown(char: str) -> bool:
    return char.isprintable() or unicodedata.category(char) == "Zs"


def printable(text: str) -> bool:
    """Whether ``text`` shows as it is: printable characters and spaces, on one line."""
    return text.isprintable() or all(map(_shown, text))


def escaped(text: str) -> str:
    """``text`` with every character that is not printable written as its code (``\\x1b``,
    ``\\n``, ``\\u202e``)."""
    if printable(text):
        return text
    return "".join(char if _shown(char) else ascii(char)[1:-1] for char in text)
