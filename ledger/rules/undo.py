"""Undo and redo (CLI.md "History, replay, undo"): what may be taken back, and by whom.
Nothing is deleted: an undo is an action that applies its targets' inverses."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..campaign import Campaign
from ..errors import BadInput, NotAllowed, RuleBroken
from ..events import ActionRecorded, ActionUndone
from ..i18n import _
from ..rulesets import ruleset
from ..visibility import sees_everything
from .words import doing


def something_to_undo(campaign: Campaign, to: int | None) -> int:
    """Undo takes back the latest action still in force (or every one after ``to``);
    returns the seq of the latest action in force."""
    head = campaign.live_head
    if head is None:
        raise RuleBroken(_("nothing to undo: no action is in force since the campaign started"))
    if to is not None and to >= head:
        raise RuleBroken(_("nothing to undo after seq {to}: the latest action in force is seq {head}").format(
            to=to, head=head))
    return head


def undoes_the_action_named(campaign: Campaign, seq: int, to: int | None) -> None:
    """``undo --seq SEQ`` (ruleset 18): the undo is meant for seq SEQ, which must be the
    latest action in force when it is decided. A QA pass: the master's Undo on the table
    page took back a hero's draw recorded a moment before his tap, for good (the deck was
    shuffled again); the page names the action it shows on the button."""
    if to is not None:
        raise BadInput(_("undo takes --seq (the one action meant) or --to (every action after it), not both"))
    head = something_to_undo(campaign, None)
    if seq != head:
        raise RuleBroken(_("seq {seq} is not the latest action in force, seq {head} is (recorded or taken back since "
                           "you looked): look again, then undo").format(seq=seq, head=head))


def something_in_force_since(targets: Sequence[ActionRecorded], to: int) -> None:
    """``undo --to SEQ`` (ruleset 16) takes back something: an action in force now that
    was not at SEQ."""
    if not targets:
        raise RuleBroken(_("nothing to undo after seq {to}: every action in force now was in force then").format(
            to=to))


def something_to_redo(campaign: Campaign) -> int:
    """Redo applies again what the latest undo not yet redone took back, while nothing but
    undos and redos has been recorded since that undo (as an editor's redo: undos stack up,
    each redo takes the latest, and any other action empties the stack); returns the seq
    of that undo."""
    if not campaign.redo_stack:
        raise RuleBroken(_("nothing to redo: redo applies again what the latest undo not yet redone took back, and "
                           "only while nothing but undos and redos has been recorded since that undo"))
    return campaign.redo_stack[-1]


def undo_kept_the_order(undo: ActionUndone) -> None:
    """Fair play (ruleset 4): a redo applies again only an undo that shuffled no deck
    again. One that did gave those decks an order nobody has seen; applying the old
    changes again would take cards from other places than they record, and show a card
    revealed to someone where it now lies in that order."""
    if undo.reshuffled_stacks and ruleset() >= 4:
        raise RuleBroken(_("seq {seq} shuffled {stacks} again when it took those actions back, so a redo cannot put "
                           "the cards back as they were (nor show anyone where they now lie); record the actions "
                           "again instead (an undo with --keep-order, the master's decision, can be redone)").format(
            seq=undo.seq, stacks=", ".join(undo.reshuffled_stacks)))


def decks_not_shuffled_since(targets: Sequence[ActionRecorded], shuffled_by: Callable[[int, str], int | None]
                             ) -> None:
    """Fair play (ruleset 12): a redo applies again only actions none of whose stacks (one
    they order, or put a card in or take one from) an undo has shuffled again since they
    were recorded (``shuffled_by(seq, stack)``: that undo's seq, if any). Applied again over
    the new order, their cards' old places would rebuild, in part or whole, an order a hero
    saw (a refill's, a shuffle's she drew from, the bottom she buried a card at)."""
    if ruleset() < 12:
        return
    for event in sorted(targets, key=lambda event: event.seq):
        for stack in sorted(event.containers_touched()):
            undo = shuffled_by(event.seq, stack)
            if undo is not None:
                raise RuleBroken(_("seq {undo} shuffled {stack} again after seq {seq}, which this redo would apply "
                                   "again: its cards cannot be put back as they were (nor an order anyone saw be "
                                   "rebuilt); record the actions again instead").format(undo=undo, stack=stack,
                                                                                         seq=event.seq))


def may_take_back(actor: str, events: Sequence[ActionRecorded], verb: str) -> None:
    """The master may take back (undo or redo) any action; a hero only actions they made."""
    if sees_everything(actor):
        return
    others = [ev.seq for ev in events if ev.actor != actor]
    if others:
        raise NotAllowed(_("{actor} may {doing} only their own actions; seq {seq} was made by {other} (ask the "
                           "master)").format(actor=actor, doing=doing(verb), seq=others[0],
                                             other=next(ev.actor for ev in events if ev.seq == others[0])))
