"""The tamper-evident chain: each action's hash is SHA-256 over the previous
action's hash and the action's own canonical content (its JSON with sorted keys,
the hash itself left out). Changing, deleting, inserting or reordering a stored
action breaks the chain at the first action touched.
"""

from __future__ import annotations

import hashlib
import json

from .events import ActionRecorded

GENESIS = "0" * 64


def canonical(event: ActionRecorded) -> bytes:
    data = event.model_dump(mode="json", exclude={"hash"})
    fields = type(event).model_fields
    for name in event.later:  # facts added later, left out at their default (older hashes hold)
        if getattr(event, name) == fields[name].get_default():
            data.pop(name, None)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def chain_hash(previous: str, event: ActionRecorded) -> str:
    digest = hashlib.sha256()
    digest.update(previous.encode("ascii"))
    digest.update(canonical(event))
    return digest.hexdigest()


def sealed(previous: str, event: ActionRecorded) -> ActionRecorded:
    """The event with its place in the chain written into it."""
    return event.model_copy(update={"hash": chain_hash(previous, event)})
