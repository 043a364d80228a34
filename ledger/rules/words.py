"""The words a refusal takes from the action refused: the verb a handler names it by
(``send``, ``draw from``, ``attach to``: English, as ``ledger.actions`` passes it to a
rule), in the language being spoken (``ledger.i18n``).

A refusal says "ana may not *draw from* it" or "a hero *sends* only cards they can
see": ``doing`` gives the verb as the first kind of sentence reads it (English: as
named; Portuguese: the infinitive), ``does`` as the second (English: the third person;
Portuguese too). Every verb a handler names is listed here (a verb missing would read
in English inside Portuguese: tests/test_i18n_refusals.py fails on one). Looked up only
when a refusal is written, never when an action is allowed.
"""

from __future__ import annotations

from ..i18n import pgettext
from ..terms import pgettext_noop

DOING = {
    "add": pgettext_noop("doing", "add"),
    "send": pgettext_noop("doing", "send"),
    "discard": pgettext_noop("doing", "discard"),
    "bury": pgettext_noop("doing", "bury"),
    "exile": pgettext_noop("doing", "exile"),
    "reveal": pgettext_noop("doing", "reveal"),
    "hide": pgettext_noop("doing", "hide"),
    "exhaust": pgettext_noop("doing", "exhaust"),
    "restore": pgettext_noop("doing", "restore"),
    "attach": pgettext_noop("doing", "attach"),
    "attach to": pgettext_noop("doing", "attach to"),
    "detach": pgettext_noop("doing", "detach"),
    "activate": pgettext_noop("doing", "activate"),
    "search by": pgettext_noop("doing", "search by"),
    "name for a shuffle": pgettext_noop("doing", "name for a shuffle"),
    "name for an activation": pgettext_noop("doing", "name for an activation"),
    "draw": pgettext_noop("doing", "draw"),
    "draw from": pgettext_noop("doing", "draw from"),
    "discard from": pgettext_noop("doing", "discard from"),
    "shuffle": pgettext_noop("doing", "shuffle"),
    "search": pgettext_noop("doing", "search"),
    "take": pgettext_noop("doing", "take"),
    "take the cards": pgettext_noop("doing", "take the cards"),
    "trade": pgettext_noop("doing", "trade"),
    "obtain": pgettext_noop("doing", "obtain"),
    "undo": pgettext_noop("doing", "undo"),
    "redo": pgettext_noop("doing", "redo"),
}
"""Each verb a handler names, as "ana may not ___ it" reads it (English: as named;
Portuguese: the infinitive)."""

DOES = {
    "add": pgettext_noop("does", "adds"),
    "send": pgettext_noop("does", "sends"),
    "discard": pgettext_noop("does", "discards"),
    "bury": pgettext_noop("does", "buries"),
    "exile": pgettext_noop("does", "exiles"),
    "reveal": pgettext_noop("does", "reveals"),
    "hide": pgettext_noop("does", "hides"),
    "exhaust": pgettext_noop("does", "exhausts"),
    "restore": pgettext_noop("does", "restores"),
    "attach": pgettext_noop("does", "attaches"),
    "attach to": pgettext_noop("does", "attaches to"),
    "detach": pgettext_noop("does", "detaches"),
    "activate": pgettext_noop("does", "activates"),
    "search by": pgettext_noop("does", "searches by"),
    "name for a shuffle": pgettext_noop("does", "names for a shuffle"),
    "name for an activation": pgettext_noop("does", "names for an activation"),
    "trade": pgettext_noop("does", "trades"),
    "obtain": pgettext_noop("does", "obtains"),
}
"""The verbs of the refusals "a hero ___ only cards they can see", as they read there
(English: the third person; Portuguese too)."""

ACTIVITIES = {
    "trading": pgettext_noop("activity", "trading"),
    "progression": pgettext_noop("activity", "progression"),
    "incorporation": pgettext_noop("activity", "incorporation"),
}
"""What needs a location that allows it: trading, or an obtaining mechanic."""


def _said(words: dict[str, tuple[str, str]], key: str) -> str:
    """``key``'s word in the language being spoken (``key`` itself if it has none)."""
    entry = words.get(key)
    return pgettext(*entry) if entry else key


def doing(verb: str) -> str:
    """``verb`` as "ana may not ___ it" / "ana may ___ only cards they control" read it."""
    return _said(DOING, verb)


def doing_cards_from(verb: str) -> str:
    """``verb`` as moving cards out of a zone: "send cards from"."""
    # TRANSLATORS: {doing} is a verb such as "send" (translated as "doing"); "ana may not send cards from table:bo".
    return pgettext("doing", "{doing} cards from").format(doing=doing(verb))


def does(verb: str) -> str:
    """``verb`` as "a hero ___ only cards they can see" reads it (English: ``sends``)."""
    return _said(DOES, verb)


def activity(name: str) -> str:
    """What needs a location that allows it (``trading``, or an obtaining mechanic:
    ``progression``, ``incorporation``), as "___ needs one that allows it" reads it."""
    return _said(ACTIVITIES, name)
