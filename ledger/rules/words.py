"""The words a refusal takes from the action refused: the verb a handler names it by
(``send``, ``draw from``, ``attach to``: English, as ``ledger.actions`` passes it to a
rule), in the language being spoken (``ledger.i18n``).

A refusal says "ana may not *draw from* it" or "a hero *sends* only cards they can
see": ``doing`` gives the verb as the first kind of sentence reads it (English: as
named; Portuguese: the infinitive), ``does`` as the second (English: the third person;
Portuguese too). A verb not listed here is shown as named. Looked up only when a
refusal is written, never when an action is allowed.
"""

from __future__ import annotations

from ..i18n import pgettext


def doing(verb: str) -> str:
    """``verb`` as "ana may not ___ it" / "ana may ___ only cards they control" read it."""
    words = {
        "add": pgettext("doing", "add"),
        "send": pgettext("doing", "send"),
        "discard": pgettext("doing", "discard"),
        "bury": pgettext("doing", "bury"),
        "exile": pgettext("doing", "exile"),
        "reveal": pgettext("doing", "reveal"),
        "hide": pgettext("doing", "hide"),
        "exhaust": pgettext("doing", "exhaust"),
        "restore": pgettext("doing", "restore"),
        "attach": pgettext("doing", "attach"),
        "attach to": pgettext("doing", "attach to"),
        "detach": pgettext("doing", "detach"),
        "activate": pgettext("doing", "activate"),
        "search by": pgettext("doing", "search by"),
        "draw": pgettext("doing", "draw"),
        "draw from": pgettext("doing", "draw from"),
        "discard from": pgettext("doing", "discard from"),
        "shuffle": pgettext("doing", "shuffle"),
        "search": pgettext("doing", "search"),
        "take": pgettext("doing", "take"),
        "take the cards": pgettext("doing", "take the cards"),
        "trade": pgettext("doing", "trade"),
        "obtain": pgettext("doing", "obtain"),
        "undo": pgettext("doing", "undo"),
        "redo": pgettext("doing", "redo"),
    }
    return words.get(verb, verb)


def doing_cards_from(verb: str) -> str:
    """``verb`` as moving cards out of a zone: "send cards from"."""
    # TRANSLATORS: {doing} is a verb such as "send" (translated as "doing"); "ana may not send cards from table:bo".
    return pgettext("doing", "{doing} cards from").format(doing=doing(verb))


def does(verb: str) -> str:
    """``verb`` as "a hero ___ only cards they can see" reads it (English: ``sends``)."""
    words = {
        "add": pgettext("does", "adds"),
        "send": pgettext("does", "sends"),
        "discard": pgettext("does", "discards"),
        "bury": pgettext("does", "buries"),
        "exile": pgettext("does", "exiles"),
        "reveal": pgettext("does", "reveals"),
        "hide": pgettext("does", "hides"),
        "exhaust": pgettext("does", "exhausts"),
        "restore": pgettext("does", "restores"),
        "attach": pgettext("does", "attaches"),
        "attach to": pgettext("does", "attaches to"),
        "detach": pgettext("does", "detaches"),
        "activate": pgettext("does", "activates"),
        "search by": pgettext("does", "searches by"),
        "trade": pgettext("does", "trades"),
        "obtain": pgettext("does", "obtains"),
    }
    return words.get(verb) or _third_person(verb)


def _third_person(verb: str) -> str:
    """``attach to`` -> ``attaches to``, ``bury`` -> ``buries``, ``send`` -> ``sends``
    (English, for a verb the table above does not list)."""
    first, _sep, rest = verb.partition(" ")
    if first.endswith(("ch", "sh", "s", "x")):
        first += "es"
    elif first.endswith("y") and first[-2:-1] not in "aeiou":
        first = first[:-1] + "ies"
    else:
        first += "s"
    return f"{first} {rest}".strip()


def activity(name: str) -> str:
    """What needs a location that allows it (``trading``, or an obtaining mechanic:
    ``progression``, ``incorporation``), as "___ needs one that allows it" reads it."""
    words = {
        "trading": pgettext("activity", "trading"),
        "progression": pgettext("activity", "progression"),
        "incorporation": pgettext("activity", "incorporation"),
    }
    return words.get(name, name)
