"""msgspec Structs derived from the ledger's pydantic models, and stored actions read
back through them without building pydantic validators.

pydantic builds a model's validator the first time the model is used (``defer_build``),
~1.5 ms an event class. A command loads its campaign from a snapshot and the up to 99
actions after it, often of a dozen or more classes, so a one-off CLI command spent
~20–25 ms (a seventh of it) building validators it used once. ``quick_event`` reads a
stored action instead with msgspec, into a Struct derived from the event class (strict:
an unknown field, a wrong type or an unknown kind of change is refused), and makes the
pydantic event as ``model_construct`` would, every field given (no validation left to
do: the values are the ones pydantic would have made of the same JSON). The canonical
content the hash chain checks (``integrity``) is taken from the stored JSON itself, so
checking a link needs no ``model_dump`` either (``integrity.read_canonical``).

What the quick read does not take, pydantic reads as before: a class whose models
validate or constrain anything (the start of a campaign, with its catalog), a timestamp
in any form but the ledger's own, a recorded command nested deeper than any the ledger
records, any JSON msgspec refuses (it is stricter than pydantic's lax mode: ``"1"`` for
a number). A link whose stored JSON does not give the stored hash is checked again over
pydantic's dump of the event (``integrity.check_link``), so the verdict on an edited
record is pydantic's. The one difference: a record rewritten in another spelling of the
same values *with its hash recomputed over that spelling* is accepted at load (the
values folded are the same either way); ``verify``, which reads each action it checks
with pydantic and checks it over its dump, names it. ``tests/test_quick_read.py`` holds the
quick read to pydantic's, event by event.

``struct_type`` and ``struct_fields`` map a pydantic model's fields to msgspec's; the
read side's light classes (``projections.decoding``) are derived with them too.
"""

from __future__ import annotations

import copy
import datetime as dt
import enum
import re
import types
import typing
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union, get_args, get_origin
from uuid import UUID

import msgspec
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from . import events as e
from .integrity import remember_canonical


def struct_type(annotation: Any, struct_of: Callable[[type[BaseModel]], type], checked: bool = True) -> Any:
    """The msgspec type for a pydantic field's annotation; ``struct_of`` gives the
    Struct of a nested model. ``checked``: an ``Annotated`` constraint or validator
    (which msgspec would not check) raises ``TypeError``; unchecked, it is passed over
    (the read side's light classes read what the write side validated)."""
    origin = get_origin(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return struct_of(annotation)
    if origin is Annotated:
        inner, *metadata = get_args(annotation)
        harmless = all(isinstance(m, FieldInfo) and m.discriminator is not None and not m.metadata for m in metadata)
        if checked and not harmless:
            raise TypeError(f"{annotation!r} validates more than its type")  # a constraint, a validator
        return struct_type(inner, struct_of, checked)
    if origin in (Union, types.UnionType):
        return Union[tuple(struct_type(arg, struct_of, checked) for arg in get_args(annotation))]  # type: ignore[return-value]
    if origin is tuple:
        args = get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple[struct_type(args[0], struct_of, checked), ...]  # type: ignore[misc]
        return tuple[tuple(struct_type(arg, struct_of, checked) for arg in args)]  # type: ignore[misc]
    if origin is dict:
        key, value = get_args(annotation)
        return dict[struct_type(key, struct_of, checked), struct_type(value, struct_of, checked)]  # type: ignore[misc]
    if origin is list:
        return list[struct_type(get_args(annotation)[0], struct_of, checked)]  # type: ignore[misc]
    if origin is Literal or annotation in (str, int, bool, float, type(None), Any, dt.datetime, uuid.UUID):
        return annotation
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return annotation
    if isinstance(annotation, typing.TypeVar):
        return Any
    raise TypeError(f"no msgspec type for {annotation!r}")


def struct_fields(model: type[BaseModel], struct_of: Callable[[type[BaseModel]], type],
                  leave_out: frozenset[str] = frozenset(), text: frozenset[str] = frozenset(),
                  checked: bool = True) -> list[Any]:
    """The msgspec fields of a Struct standing for ``model``: each field's type
    (``struct_type``) and default (a mutable one copied for each value, as pydantic
    copies it), but ``kind`` (the tag, ``tag_of``) and the fields in ``leave_out``; the
    fields in ``text`` are kept as their stored text, and required (pydantic's default
    for them, a time, is no text). ``checked``: a field pydantic constrains
    (``Field(ge=1)``…) raises ``TypeError``, since msgspec would not check it."""
    fields: list[Any] = []
    for name, info in model.model_fields.items():
        if name in leave_out or name == "kind":
            continue
        if checked and info.metadata:
            raise TypeError(f"{model.__name__}.{name} is constrained")
        if name in text:
            fields.append((name, str))
            continue
        kind = struct_type(info.annotation, struct_of, checked)
        if info.is_required():
            fields.append((name, kind))
        else:
            default = info.get_default(call_default_factory=True)
            fields.append((name, kind, msgspec.field(default_factory=lambda d=default: copy.deepcopy(d))
                           if isinstance(default, (dict, list, set)) else default))
    return fields


def tag_of(model: type[BaseModel]) -> dict[str, Any]:
    """The options of a Struct for a change class: tagged by its ``kind``, as the union's discriminator."""
    tag = model.model_fields.get("kind")
    return {"tag_field": "kind", "tag": tag.default} if tag is not None else {}


# The ledger's own form of a stored timestamp: a UTC time to the microsecond that is a
# valid datetime (a day past the 28th, a whole second, any other form: read another way).
LEDGER_TIME = re.compile(r"[1-9][0-9]{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
                         r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.(?!000000)[0-9]{6}Z")


def ledger_time_text(stamp: str) -> str | None:
    """What ``datetime.isoformat()`` gives for a stored timestamp in the ledger's own
    form (``...121709Z`` -> ``...121709+00:00``), or None for any other form."""
    return stamp[:26] + "+00:00" if LEDGER_TIME.fullmatch(stamp) else None


# -- the quick read of stored actions ----------------------------------------------
_IDS = ("originator_id", "originator_version")
_structs: dict[type, type] = {}
_makers: dict[type, Callable[..., BaseModel]] = {}  # Struct -> what makes its model of a decoded one


def _struct(model: type[BaseModel]) -> type:
    """The whole Struct of a model: every stored field (an event's ids are not stored;
    its timestamp is kept as text, see ``_when``), unknown fields refused."""
    if model not in _structs:
        if _checks(model):
            raise TypeError(f"{model.__name__} has validators or private state")
        event = issubclass(model, e.DomainEvent)
        fields = struct_fields(model, _struct, leave_out=frozenset(_IDS),
                               text=frozenset({"timestamp"} if event else ()))
        kinds = {field[0]: field[1] for field in fields}
        plan: list[tuple[str, Any, Callable[[Any], Any] | None]] = []  # (name, constant, conversion), in order
        for name, info in model.model_fields.items():
            if name == "kind":
                plan.append((name, info.default, None))
            elif name in kinds and not (event and name == "timestamp"):  # that one is given with the ids
                plan.append((name, _NONE, _built if _holds_struct(kinds[name]) else None))
        struct = msgspec.defstruct(f"Whole{model.__name__}", fields, kw_only=True, forbid_unknown_fields=True,
                                   **tag_of(model))
        _structs[model] = struct
        _makers[struct] = _maker(model, plan)
    return _structs[model]


_NONE = object()


def _checks(model: type[BaseModel]) -> bool:
    """Does the model do anything ``_maker``'s objects would lack: validate (validators;
    constraints are refused by ``struct_fields``), or set up more than its fields
    (private attributes, ``model_post_init``)?"""
    found = model.__pydantic_decorators__
    return bool(found.validators or found.field_validators or found.root_validators or found.model_validators
                or model.__private_attributes__ or model.__pydantic_post_init__)


def _holds_struct(kind: Any) -> bool:
    """Can a value of this msgspec type hold a Struct (so need ``_built``)?"""
    if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
        return True
    return any(_holds_struct(arg) for arg in get_args(kind))


def _maker(model: type[BaseModel],
           plan: list[tuple[str, Any, Callable[[Any], Any] | None]]) -> Callable[..., BaseModel]:
    """Makes the model of a decoded Struct, its fields in the model's order: what
    ``model_construct`` does given every field (``_checks``). Every field counts as set
    (``model_fields_set``), where validation counts only those the JSON holds; nothing
    reads which fields of an event were set."""
    def make(decoded: Any, head: dict[str, Any] | None = None) -> BaseModel:
        values = dict(head) if head else {}
        for name, constant, conversion in plan:
            if constant is not _NONE:
                values[name] = constant
            elif conversion is None:
                values[name] = getattr(decoded, name)
            else:
                values[name] = conversion(getattr(decoded, name))
        made = model.__new__(model)
        _set(made, "__dict__", values)
        _set(made, "__pydantic_fields_set__", set(values))
        _set(made, "__pydantic_extra__", None)
        _set(made, "__pydantic_private__", None)
        return made
    return make


_set = object.__setattr__


def _built(value: Any) -> Any:
    """The pydantic value of a decoded one: Structs become their models."""
    maker = _makers.get(type(value))
    if maker is not None:
        return maker(value)
    if type(value) is tuple:
        return tuple(_built(item) for item in value)
    if type(value) is dict:
        return {key: _built(item) for key, item in value.items()}
    return value


def _when(stamp: str) -> dt.datetime | None:
    text = ledger_time_text(stamp)
    return dt.datetime.fromisoformat(text) if text is not None else None


_decode = msgspec.json.Decoder().decode
_readers: dict[str, type | None] = {}


def _reader(topic: str) -> type | None:
    """The Struct a stored action of this topic is read into, or None (pydantic reads it)."""
    if topic not in _readers:
        try:
            cls = e.event_class(topic)
            wanted = cls is not None and issubclass(cls, e.ActionRecorded)
            _readers[topic] = _struct(cls) if wanted else None
        except (TypeError, ValueError, LookupError, ImportError):  # validators, or a type msgspec has not
            _readers[topic] = None
    return _readers[topic]


# How deeply the recorded command (free JSON) may nest for the quick read: a command the
# ledger records nests two or three levels; past ~255, pydantic cannot dump it (so its
# hash cannot be checked), and the quick read leaves such a record to pydantic.
FREE_DEPTH = 32


def _deeper(value: Any, limit: int) -> bool:
    """Does this JSON value nest more than ``limit`` levels?"""
    level, stack = 0, [value]
    while stack:
        level += 1
        if level > limit:
            return True
        stack = [item for container in stack if isinstance(container, (dict, list))
                 for item in (container.values() if isinstance(container, dict) else container)]
    return False


def quick_event(topic: str, state: bytes, originator_id: UUID, originator_version: int) -> Any | None:
    """The stored action as the ledger's event, read without pydantic validation; None
    when the quick path does not take it (the caller then reads it with pydantic)."""
    struct = _reader(topic)
    if struct is None:
        return None
    try:
        data = _decode(state)
        decoded = msgspec.convert(data, struct)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    when = _when(decoded.timestamp)
    if when is None or _deeper(getattr(decoded, "command", None), FREE_DEPTH):
        return None
    event = _makers[struct](decoded, {"originator_id": originator_id, "originator_version": originator_version,
                                      "timestamp": when})
    data.update(originator_id=str(originator_id), originator_version=originator_version)
    remember_canonical(event, data)
    return event
