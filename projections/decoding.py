"""Fast decoding of stored actions for the read side (msgspec), where a rebuild reads
the whole log: pydantic validation of every stored action costs more than everything
else the read models do with it.

The write side's pydantic events stay the contract. From each event class this module
derives a *light* msgspec ``Struct`` with the same field names and types (nested models
become Structs too; the changes' discriminated union becomes a tagged union on
``kind``), leaving out the fields no read model uses (the recorded command, seeds,
hashes, and the parts of nested models in ``UNREAD``). The light class borrows the
event class's plain methods (``named_cards``, ``cards_touched``…) and its ``action``
name, so code that only reads attributes — ``projections.summaries``, the read models'
rows — works on either. Nothing is written here: the stored JSON was validated when
the action was recorded, and ``verify`` checks it against the rules again.

msgspec is strict where pydantic (lax mode) is not: stored JSON edited to ``"count":
"1"`` still reads as the same event for pydantic, whose output the action's hash is
taken over, so ``verify`` passes it. A stored action the light decoder refuses is
therefore decoded and folded with pydantic instead (``_Fold._rows_light``), as a short
batch would; only what pydantic refuses too is a damaged record.

The stored timestamp stays text on the light classes: ``light_time`` gives the history
row's time from it, the text ``datetime.isoformat()`` gives for it, without building
a datetime for every action.

``light_decoder(topic)`` gives the decoder of one stored topic, or None for topics
that are no actions, or that the read side always decodes with pydantic (the start
of a campaign and a hero joining are rare, and their rows read nested models by
class).
"""

from __future__ import annotations

import datetime as dt
import types
from collections.abc import Callable
from typing import Any

import msgspec
from pydantic import BaseModel

from ledger import changes as ch
from ledger import events as e
from ledger.structs import ledger_time_text, struct_fields, tag_of

from .summaries import summarised_like

# Fields the read models never read: skipped by the decoder, never built.
SKIPPED = frozenset({"originator_id", "originator_version", "command", "rng", "hash", "state_digest", "identified",
                     "prev_live", "seed"})
# Fields of nested models the read models never read either: of where a card lies, its
# container (``at``) alone; of a shuffle, the order before (its cards), not the one after.
UNREAD: dict[type, frozenset[str]] = {
    ch.Spot: frozenset({"index", "face", "exhausted", "shown"}),
    ch.StackReordered: frozenset({"now"}),
}
# Plain methods the light classes borrow from the event and change classes.
BORROWED = ("seq", "named_cards", "named_by_actor", "cards_touched", "shown_to_all", "cards")
# Always decoded with pydantic (see the module's docstring).
HEAVY = (e.CampaignStarted, e.HeroAdded)
# Fields of the events kept as their stored text (``light_time``).
TEXT = frozenset({"timestamp"})

_structs: dict[type, type] = {}


def light_class(model: type[BaseModel]) -> type:
    """The light Struct of a pydantic model class (made once)."""
    if model not in _structs:
        event = issubclass(model, e.DomainEvent)
        head: list[Any] = [("originator_id", Any, None), ("originator_version", int, 0)] if event else []
        fields = head + struct_fields(model, light_class, leave_out=SKIPPED | UNREAD.get(model, frozenset()),
                                      text=TEXT if event else frozenset(), checked=False)
        namespace: dict[str, Any] = {"action": getattr(model, "action", None)}
        for method in BORROWED:
            found = getattr(model, method, None)
            if isinstance(found, (types.FunctionType, property)):
                namespace[method] = found
        light = msgspec.defstruct(f"Light{model.__name__}", fields, namespace=namespace, kw_only=True,
                                  **tag_of(model))
        if event:
            summarised_like(light, model)
        _structs[model] = light
    return _structs[model]


_decoders: dict[str, Callable[[bytes], Any] | None] = {}


def light_decoder(topic: str) -> Callable[[bytes], Any] | None:
    """Decodes the stored state of an action of this topic into its light class; None
    when the topic is no action or is decoded with pydantic (``HEAVY``)."""
    if topic not in _decoders:
        cls = e.event_class(topic)
        wanted = cls is not None and issubclass(cls, e.ActionRecorded) and not issubclass(cls, HEAVY)
        _decoders[topic] = msgspec.json.Decoder(light_class(cls)).decode if wanted else None
    return _decoders[topic]


_as_json = msgspec.json.Encoder().encode
_as_datetime = msgspec.json.Decoder(dt.datetime).decode


def light_time(stamp: Any) -> str:
    """The history row's time of a light action: what ``datetime.isoformat()`` gives
    for its stored timestamp (the text, e.g. ``2026-12-01T17:19:34.121709Z``), as for
    the pydantic event. The ledger's own form is rewritten (``...121709+00:00``); any
    other is decoded to a datetime first (and refused as the datetime field would be)."""
    if isinstance(stamp, str):
        text = ledger_time_text(stamp)
        if text is not None:
            return text
        stamp = _as_datetime(_as_json(stamp))
    return stamp.isoformat()


def is_action(topic: str) -> bool:
    """Is a stored topic one of the campaign's actions (not a log entry or a seat)?"""
    cls = e.event_class(topic)
    return cls is not None and issubclass(cls, e.ActionRecorded)


def is_other_record(topic: str) -> bool:
    """Is a stored topic one of the ledger's records that are no action (a log entry, a
    seat)? An unknown topic is neither: a record that cannot be read."""
    cls = e.event_class(topic)
    return cls is not None and not issubclass(cls, e.ActionRecorded)


# The light classes of the changes the read models tell apart.
CARD, ORDER, HERO = (light_class(ch.CardChanged), light_class(ch.StackReordered), light_class(ch.HeroChanged))
