"""The tamper-evident chain: each action's hash is SHA-256 over the previous
action's hash and the action's own canonical content (its JSON with sorted keys,
the hash itself left out). Changing, deleting, inserting or reordering a stored
action breaks the chain at the first action touched.
"""

from __future__ import annotations

import hashlib
import json
import threading
import weakref
from collections.abc import Iterable, Iterator
from functools import cache
from typing import Any

import msgspec

from .events import ActionRecorded

GENESIS = "0" * 64


def canonical(event: ActionRecorded) -> bytes:
    return _canonical_bytes(event, event.model_dump(mode="json"))


def _canonical_bytes(event: ActionRecorded, data: dict) -> bytes:
    """The hashed content of ``event`` from ``data``, its ``model_dump(mode="json")`` (or
    its stored JSON with its ids, ``remember_canonical``): every field but the hash,
    sorted, without the facts added later when at their default; and from ruleset 10 the
    kind of action (``action``: "hide", "exile"…), which the stored event's topic says and
    its fields do not (a hide and an exile record the same fields: the topic changed in the
    file made one read as the other)."""
    data = {key: value for key, value in data.items() if key != "hash"}
    for name, default in _later_defaults(type(event)):  # facts added later, left out at their default
        if getattr(event, name) == default:                # (older hashes hold)
            data.pop(name, None)
    if event.ruleset >= KIND_HASHED_FROM:
        data["action"] = type(event).action
    return sorted_json(data, free=FREE_FIELDS)


KIND_HASHED_FROM = 10
"""The ruleset from which an action's hash covers its kind (``_canonical_bytes``)."""


FREE_FIELDS = ("command",)
"""The fields of an action that may hold any JSON (the recorded command, a free dict); every
other field is typed without floats (tests/test_verify.py checks the event classes)."""


def sorted_json(data: dict, free: tuple[str, ...] | None = None) -> bytes:
    """Compact UTF-8 JSON with sorted keys: what the chain hashes. msgspec writes the very
    bytes ``json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
    does for the JSON of events (strings, whole numbers, booleans, null, lists, objects:
    tests/test_verify.py checks it property by property), ten times faster; a value
    holding a float, or anything msgspec will not write, goes the ``json`` way, as it
    always did. ``free``: the only keys that may hold a float (else every value is looked
    through)."""
    floats = _has_float(data) if free is None else any(_has_float(data.get(key)) for key in free)
    if not floats:  # msgspec writes 1e16 and 1e-05 its own way (1e16, 0.00001)
        try:
            return msgspec.json.encode(data, order="sorted")
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
            pass
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _has_float(value: Any) -> bool:
    """Is there a float anywhere in this JSON-able value? (No typed field of an event is
    one; a recorded command is a free dict, which an import could fill with anything.)"""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return False


@cache
def _later_defaults(event_class: type[ActionRecorded]) -> tuple[tuple[str, Any], ...]:
    fields = event_class.model_fields
    return tuple((name, fields[name].get_default()) for name in event_class.later)


def chain_hash(previous: str, event: ActionRecorded, data: dict | None = None) -> str:
    return _hash_of(previous, _canonical_bytes(event, event.model_dump(mode="json") if data is None else data))


def _hash_of(previous: str, canonical: bytes) -> str:
    digest = hashlib.sha256()
    digest.update(previous.encode("ascii"))
    digest.update(canonical)
    return digest.hexdigest()


# The canonical content of events read from stored JSON (``ledger.structs``), by the
# event object's id, each with a weak reference that drops it when the event goes.
_read: dict[int, tuple[weakref.ref, bytes]] = {}


def remember_canonical(event: ActionRecorded, stored: dict) -> None:
    """Keeps the canonical content of ``event`` as its stored JSON gives it (``stored``:
    that JSON decoded, with the event's ids), for ``check_link``."""
    key = id(event)
    _read[key] = (weakref.ref(event, lambda _gone, key=key: _read.pop(key, None)), _canonical_bytes(event, stored))


def read_canonical(event: ActionRecorded) -> bytes | None:
    found = _read.get(id(event))
    return found[1] if found is not None and found[0]() is event else None


def check_link(previous: str, event: ActionRecorded) -> None:
    """Raises ``DamagedRecord`` unless ``event``'s hash is the chain's over ``previous``
    (the hash of the action before it) and its own content: an action changed in the file
    without its hash recomputed (ledger verify checks the whole log the same way). An
    action read by ``ledger.structs`` is checked over its stored JSON first, then, if
    that does not give its hash, over its dump, as any other."""
    read = read_canonical(event)
    if read is not None and _hash_of(previous, read) == event.hash:
        return
    if _dumped_hash(previous, event) != event.hash:
        from .errors import DamagedRecord
        from .i18n import _
        from .rulebook import RULESET

        seq = event.originator_version
        if event.ruleset > RULESET:  # hashed as newer rules hash it (KIND_HASHED_FROM): not damaged, not ours
            raise DamagedRecord(_("seq {seq} was decided under rules {ruleset}, newer than this ledger knows "
                                  "({known}): use a newer ledger").format(seq=seq, ruleset=event.ruleset,
                                                                          known=RULESET),
                                ValueError(f"seq {seq} is of rules {event.ruleset}"))
        raise DamagedRecord(_("the record at seq {seq} does not match its hash: the database was changed or damaged; "
                              "ledger verify names the first bad seq").format(seq=seq),
                            ValueError(f"seq {seq} does not match its hash"))


def _dumped_hash(previous: str, event: ActionRecorded) -> str | None:
    """``chain_hash``, or None for an action pydantic cannot dump (a recorded command
    nested past pydantic's depth: only a forged record holds one)."""
    try:
        return chain_hash(previous, event)
    except (ValueError, RecursionError):
        return None


def checked_chain(events: Iterable[ActionRecorded], previous: str) -> Iterator[ActionRecorded]:
    """``events`` as they are read, each checked against the chain from ``previous`` (the
    hash of the action before the first) before it is handed on (``check_link``)."""
    for event in events:
        check_link(previous, event)
        previous = event.hash
        yield event


def sealed(previous: str, event: ActionRecorded) -> ActionRecorded:
    """The event with its place in the chain written into it. The one ``model_dump`` it
    hashes is kept, with the hash, for the mapper to store (``stored_state``): an action
    is dumped once on its way to the log."""
    data = event.model_dump(mode="json")
    data["hash"] = chain_hash(previous, event, data)
    done = event.model_copy(update={"hash": data["hash"]})
    _just_sealed.last = (done, data)
    return done


class _LastSealed(threading.local):
    last: tuple[ActionRecorded, dict] | None = None


_just_sealed = _LastSealed()


def stored_state(event: object) -> dict | None:
    """The dump ``sealed`` made of exactly this event object (this thread's latest), or
    None: the mapper then dumps the event itself."""
    last = _just_sealed.last
    return last[1] if last is not None and last[0] is event else None
