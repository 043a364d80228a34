"""Checkpoints: a campaign's head hash at a seq, for every player to keep.

The hash chain shows that a record was not changed *inside* itself; it cannot show
that it was not cut short or rewritten and re-hashed from some seq on. A checkpoint
held outside the file can: ``ledger verify --expect SEQ:HEAD`` fails unless the log
still holds that head at that seq. Every view the public or a hero gets carries the
latest checkpoint, ``ledger checkpoint`` prints one (and keeps it in the file, where
``verify`` checks it too), and an export ends with one (its trailer).

With the master's key (``ledger.signing``) a checkpoint is signed: Ed25519 over
``campaign-ledger checkpoint\\n{campaign id}\\n{seq}\\n{head}``, so that nobody without
the key can hand out checkpoints (or exports) of a rewritten record.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from .errors import BadInput
from .i18n import _
from .signing import Signer, signature_holds

_EXPECTED = re.compile(r"(\d{1,18}):([0-9a-f]{64})")


@dataclass(frozen=True)
class Checkpoint:
    seq: int
    head: str
    key: str | None = None
    signature: str | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"seq": self.seq, "head": self.head}
        if self.signature is not None:
            data.update(key=self.key, signature=self.signature)
        return data

    @property
    def text(self) -> str:
        """How ``verify --expect`` takes it back: ``SEQ:HEAD``."""
        return f"{self.seq}:{self.head}"

    def holds_for(self, cid: UUID) -> bool:
        """Is it unsigned, or signed with a signature that holds for campaign ``cid``?"""
        if self.signature is None:
            return True
        return self.key is not None and signature_holds(self.key, message(cid, self.seq, self.head), self.signature)


def message(cid: UUID, seq: int, head: str, what: str = "checkpoint") -> bytes:
    """The bytes a signature signs: a checkpoint's ("the log held this head at this seq"),
    or an export trailer's (``what="export"``: "and this export ends there"). Two
    statements, two messages: a master's checkpoint at seq N put as the trailer of an
    export cut at N would otherwise vouch for the cut (a QA pass)."""
    return f"campaign-ledger {what}\n{cid}\n{seq}\n{head}".encode("ascii")


def take(cid: UUID, seq: int, head: str, signer: Signer | None = None, what: str = "checkpoint") -> Checkpoint:
    """The checkpoint at ``seq`` (signed when there is a key; ``what="export"``: as an
    export's trailer)."""
    if signer is None:
        return Checkpoint(seq, head)
    return Checkpoint(seq, head, key=signer.public, signature=signer.sign(message(cid, seq, head, what)))


def parse_expected(text: str) -> tuple[int, str]:
    """``SEQ:HEAD`` as a player kept it (from a view's checkpoint or ``ledger checkpoint``)."""
    found = _EXPECTED.fullmatch(text.strip().lower())
    if not found or int(found[1]) < 1:
        raise BadInput(_("--expect {text}: write a checkpoint as SEQ:HEAD, e.g. 42:00000000… (the 64-character head "
                         "hash a view or ledger checkpoint printed)").format(text=repr(text[:80])))
    return int(found[1]), found[2]
