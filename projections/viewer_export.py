"""``ledger --as VIEWER export``: what one viewer may know of a campaign, as JSON Lines.

The referee's export (``ledger export``, without ``--as``) is the log itself: every seed, deck
order, salt, hash and recorded command, and it can be imported. A viewer's export is
what that viewer may know (RULES.md §9): a header line that says so, then one line per
action, each exactly the view ``action_view`` gives that viewer of it (cards they may
not identify as null, the moves they witnessed without deck positions, shuffles as a
stack and a count, public commitments, their own share of ``identified``). It cannot
be imported, and says so. Its texts (the header's note, each action's summary) are in
the language being spoken; its keys, ids and codes are the same in every language.

It streams: the log is read page by page through the ``EventLog`` protocol and one
campaign of its own is folded forward with the one fold, so memory stays flat however
long the log is, and nothing the caller holds is touched.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any
from uuid import UUID

from ledger.campaign import Campaign
from ledger.events import ActionRecorded, CampaignStarted
from ledger.i18n import _
from ledger.integrity import GENESIS, check_link
from ledger.visibility import sees_everything

from .source import EventLog
from .views import action_view

PAGE = 1000  # actions read from the log at a time
# The keys every action line starts with, in this order (the rest of the view follows).
LEADING = ("seq", "action", "type", "actor", "timestamp", "summary")


def viewer_export(log: EventLog, cid: UUID, viewer: str, *, page: int = PAGE) -> Iterator[dict[str, Any]]:
    """The header, then one dict per action in seq order, as ``viewer`` may know them.

    Refuses the referee (and the master): their export is the importable log
    (``ledger export``), and this one promises to hold no seeds or orders. ``page``:
    how many actions are read from the log at a time."""
    if sees_everything(viewer):
        raise ValueError(_("{viewer} sees everything: the referee's export is the log itself (ledger export)").format(
            viewer=viewer))
    if page < 1:
        raise ValueError(_("page {page}: the log is read at least one action at a time").format(page=page))
    campaign: Campaign | None = None
    for event in _actions(log, cid, page):
        campaign = log.project(campaign, [event])  # the campaign right after the action: fold, then view
        assert campaign is not None
        if isinstance(event, CampaignStarted):
            yield header(event.slug, event.name, viewer)
        yield action_line(event, campaign, viewer)


def write_viewer_export(log: EventLog, cid: UUID, viewer: str, out: IO[str], *, page: int = PAGE) -> int:
    """Writes ``viewer_export`` to ``out``, one compact JSON document per line; returns
    how many actions it wrote (the header is not one)."""
    lines = viewer_export(log, cid, viewer, page=page)
    out.write(_compact(next(lines)) + "\n")  # the header
    count = 0
    for line in lines:
        out.write(_compact(line) + "\n")
        count += 1
    return count


def _compact(line: dict[str, Any]) -> str:
    return json.dumps(line, ensure_ascii=False, separators=(",", ":"))


def header(slug: str, name: str, viewer: str) -> dict[str, Any]:
    """The first line: what the file is, for whom, and that it cannot be imported."""
    return {"export": {
        "campaign": slug, "name": name, "viewer": viewer, "importable": False,
        "note": _("what {viewer} may know of campaign {campaign}: cards {viewer} may not identify are null; "
                  "no seeds, deck orders or hashes of single actions (the trailer holds the public checkpoint). "
                  "Only the referee's export can be imported.").format(viewer=viewer, campaign=slug),
    }}


def action_line(event: ActionRecorded, campaign: Campaign, viewer: str) -> dict[str, Any]:
    """One action as ``viewer`` sees it right after it (``campaign``): the view
    ``action_view`` gives, its identifying keys first."""
    view = action_view(event, campaign, viewer)
    return {**{key: view[key] for key in LEADING if key in view}, **view}


def _actions(log: EventLog, cid: UUID, page: int) -> Iterator[ActionRecorded]:
    """The campaign's actions in seq order, read ``page`` at a time, each checked
    against the chain (``check_link``: an action edited in the file without its hash is
    never exported). The first must be the campaign's start (the fold begins there)."""
    last, previous = 0, GENESIS
    while True:
        batch = log.actions(cid, gt=last, lte=last + page)
        if not batch:
            if last == 0:
                raise ValueError(_("that campaign has no actions in this database"))
            return
        for event in batch:
            if event.seq != last + 1 or (last == 0) != isinstance(event, CampaignStarted):
                raise ValueError(_("seq {seq} of the log cannot be read in order; run ledger verify").format(
                    seq=last + 1))
            check_link(previous, event)
            previous = event.hash
            yield event
            last = event.seq
