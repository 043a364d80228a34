"""Committed shuffles: whenever a hidden ordered stack (a face-down deck) gets a new
random order, the action records a commitment to that order that every viewer sees
at once, while the order itself and the salt stay the referee's.

    digest = SHA-256 of the text  SALT ":" CARD1 "," CARD2 "," …   (top card first)

A player who kept a digest can later be shown the salt and the order (the master
does so when the stack is searched or emptied, or when the campaign ends) and check
them with any SHA-256 tool, e.g. ``printf '%s' 'SALT:item-bow,item-axe' | sha256sum``:
the order cannot have been changed after the shuffle. The salt is derived from the
action's secret seed, so deciding the action again (``verify``) gives the very same
commitment, and knowing a salt tells nothing of the seed.
"""

from __future__ import annotations

import hashlib
import hmac

from pydantic import BaseModel, ConfigDict


class Commitment(BaseModel):
    """A stack's new order, committed: the stack, how many cards, the digest (public)
    and the salt (referee-only until the order is opened)."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    stack: str
    size: int
    digest: str
    salt: str


def digest_of(salt: str, order: tuple[str, ...] | list[str]) -> str:
    return hashlib.sha256(f"{salt}:{','.join(order)}".encode("utf-8")).hexdigest()


def commit(seed: int, seq: int, stack: str, order: tuple[str, ...] | list[str]) -> Commitment:
    """The commitment to ``order`` of ``stack`` made by action ``seq`` with its seed."""
    key = str(seed).encode("ascii")
    salt = hmac.new(key, f"{seq}:{stack}".encode("utf-8"), hashlib.sha256).hexdigest()[:32]
    return Commitment(stack=stack, size=len(order), digest=digest_of(salt, order), salt=salt)


def holds(commitment: Commitment, order: tuple[str, ...] | list[str]) -> bool:
    """Does the commitment match this order?"""
    return hmac.compare_digest(commitment.digest, digest_of(commitment.salt, order))
