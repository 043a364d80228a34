"""Stores pydantic events as readable JSON through eventsourcing's mapper seam
(eventsourcing 9.5 has no built-in pydantic support; this follows its aggregate7
example). The stored ``state`` column is plain UTF-8 JSON a person can read.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from eventsourcing.persistence import Mapper, StoredEvent, Transcoder
from eventsourcing.utils import TopicError, get_topic
from pydantic import BaseModel

from .events import event_class
from .i18n import N_
from .integrity import stored_state
from .structs import quick_event


class JSONTranscoder(Transcoder):
    def encode(self, obj: Any) -> bytes:
        """Compact UTF-8 JSON (msgspec: the bytes ``json.dumps`` would write, faster)."""
        try:
            return msgspec.json.encode(obj)
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError):
            return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

    def decode(self, data: bytes) -> Any:
        return json.loads(data)


class PydanticMapper(Mapper):
    def to_stored_event(self, domain_event: Any) -> StoredEvent:
        assert isinstance(domain_event, BaseModel)
        dumped = stored_state(domain_event)  # the dump its hash was computed over, if just sealed
        if dumped is not None:
            state = {k: v for k, v in dumped.items() if k not in ("originator_id", "originator_version")}
        else:
            state = domain_event.model_dump(mode="json", exclude={"originator_id", "originator_version"})
        stored = self.transcoder.encode(state)
        if self.compressor:
            stored = self.compressor.compress(stored)
        if self.cipher:
            stored = self.cipher.encrypt(stored)
        return StoredEvent(
            originator_id=domain_event.originator_id,  # type: ignore[attr-defined]
            originator_version=domain_event.originator_version,  # type: ignore[attr-defined]
            topic=get_topic(type(domain_event)),
            state=stored,
        )

    def to_domain_event(self, stored_event: StoredEvent, quick: bool = True) -> Any:
        """The stored event as the ledger's own; one that cannot be read back (changed or
        damaged in the file) raises ``DamagedRecord``, which says which seq and that
        ``verify`` tells more, rather than whatever the JSON or the model raised.
        ``quick``: an action may be read without pydantic (``ledger.structs``); verify,
        which hashes every action's dump anyway, reads with pydantic (~6% faster there)."""
        try:
            return self._to_domain_event(stored_event, quick)
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError, TopicError) as exc:
            from .errors import DamagedRecord
            from .i18n import _

            error = exc.__class__.__name__
            kept = _kept_in(stored_event.topic)
            if kept is not None:  # not an action: verify, which checks each campaign's own log, would not name it
                raise DamagedRecord(_("a record of the database's {log} cannot be read ({error}): the database was "
                                      "changed or damaged; restore it from a copy").format(log=_(kept), error=error),
                                    exc) from exc
            newer = _newer_rules(stored_event.state)
            if newer is not None:  # a newer ledger's record (a field or a kind of action this one lacks), not damage
                from .errors import NewerRecord
                from .rulebook import RULESET

                raise NewerRecord(_("seq {seq} was recorded by a newer campaign-ledger (rules {newer}; this one "
                                      "knows {known}): update campaign-ledger to read it").format(
                    seq=stored_event.originator_version, newer=newer, known=RULESET), exc) from exc
            raise DamagedRecord(_("the record at seq {seq} cannot be read ({error}): the database was changed or damaged; "
                                  "ledger verify names the first bad seq").format(
                seq=stored_event.originator_version, error=error), exc) from exc

    def _to_domain_event(self, stored_event: StoredEvent, quick: bool = True) -> Any:
        stored = stored_event.state
        if self.cipher:
            stored = self.cipher.decrypt(stored)
        if self.compressor:
            stored = self.compressor.decompress(stored)
        if quick and isinstance(self.transcoder, JSONTranscoder):  # an action read without building its validator
            quick = quick_event(stored_event.topic, stored, stored_event.originator_id,
                                stored_event.originator_version)
            if quick is not None:
                return quick
        state = self.transcoder.decode(stored)
        cls = event_class(stored_event.topic)
        if cls is None:
            raise TopicError(f"{stored_event.topic!r} is no event of the ledger's")
        return cls.model_validate(
            {
                **state,
                "originator_id": stored_event.originator_id,
                "originator_version": stored_event.originator_version,
            }
        )


# The logs of a campaign file that are no campaign's actions, by the topics of their records.
_KEPT = {"CampaignRegistered": N_("list of campaigns"), "CheckpointTaken": N_("checkpoints"),
         "SeatOpened": N_("seats"), "SeatRevoked": N_("seats")}


def _kept_in(topic: str) -> str | None:
    """The file's own log a record of this topic belongs to (the list of campaigns, the
    checkpoints, the seats); None for a campaign's action, or a topic nobody wrote."""
    module, _, name = topic.partition(":")
    return _KEPT.get(name) if module == "ledger.events" else None


def _newer_rules(state: bytes) -> int | None:
    """The rules a stored action that this ledger cannot read says it was decided under,
    when newer than this ledger's (a review: an older ledger called a newer one's records
    damaged); None otherwise, or when its JSON says nothing readable."""
    import json

    from .rulebook import RULESET

    try:
        recorded = json.loads(state).get("ruleset")
    except (ValueError, AttributeError, RecursionError):
        return None
    return recorded if type(recorded) is int and recorded > RULESET else None
