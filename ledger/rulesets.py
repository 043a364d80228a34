"""Which rules an action is decided under (``ledger.rulebook.RULESET``, recorded in every
action): ``verify`` decides an older action again under the rules it was recorded under,
so every rule that changed reads ``ruleset()``. Apart from the rules package, so that the
card states (``ledger.states``), which rules and views share, can read it too."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from .rulebook import RULESET

_RULESET: ContextVar[int] = ContextVar("ruleset", default=RULESET)


def ruleset() -> int:
    """The rules actions are being decided under (``RULESET`` unless ``verify`` is
    deciding an older action again)."""
    return _RULESET.get()


@contextmanager
def decided_under(version: int) -> Iterator[None]:
    """Decide actions under the rules of ``version``."""
    token = _RULESET.set(version)
    try:
        yield
    finally:
        _RULESET.reset(token)
