"""The record itself (CLI.md "History, replay, undo"): ``undo`` and ``redo``, ``rebuild``
of the read models, and the ``simulate`` and ``demo`` campaigns (checking the record and
moving it between files: ``trust``)."""

from __future__ import annotations

import click

from ...errors import BadInput
from ...i18n import N_, _, ngettext, pgettext
from .group import cli
from .session import INTEGER, SEQ, Session, note_line, note_stopped, pass_session, record, with_message
from .speech import plural_form


@cli.command()
@click.option("--to", "to", type=SEQ, default=None, help="Undo every action in force that was not at SEQ (after it, or redone after it), in one action.")
@click.option("--keep-order", is_flag=True,
              help="Master only: do not shuffle again the decks that seen cards return to (recorded).")
@click.option("--seed", default=None, type=INTEGER, help="Master only: seed for shuffling those decks again.")
@click.option("--seq", "seq", type=SEQ, default=None,
              help="The action meant: refused unless SEQ is still the latest action in force (another may have come since).")
@pass_session
def undo(s: Session, to: int | None, keep_order: bool, seed: int | None, seq: int | None) -> None:
    """Take back the latest action (or every one after SEQ); it stays in the history.

    A hero takes back only their own actions, and none that showed anyone a hidden card,
    refilled a deck, shuffled one whose new order they could see or searched for a card it
    did not hold (ask the master: a deck seen cards return to is shuffled again).

    \b
    Example: ledger undo    |    ledger undo --seq 42    |    ledger undo --to 12    |    ledger undo --keep-order
    """
    from ...commands import Undo

    record(s, Undo(actor=s.actor, to=to, keep_order=keep_order, seed=seed, seq=seq))


@cli.command()
@pass_session
def redo(s: Session) -> None:
    """Apply again what the latest undo took back (while nothing else came after it).

    \b
    Example: ledger redo
    """
    from ...commands import Redo

    record(s, Redo(actor=s.actor))


@cli.command()
@pass_session
def rebuild(s: Session) -> None:
    """Rebuild the read-model tables from the log, with a progress bar.

    \b
    Example: ledger rebuild
    """
    model = s.model(catch_up=False)
    cut = model.cut_log()
    if cut is not None:  # the one trace of the loss the file kept goes with the old rows
        click.echo(note_line(_("rebuilding accepts a log that lost actions: {reason}").format(reason=cut[1])),
                   err=True)
    total = s.ledger().stored_event_count()
    with s.progress(_("rebuilding"), "events", total) as update:
        done = model.rebuild(progress=lambda n, _total: update(n))
    line = ngettext("rebuilt the read models from the database's {n} stored event (actions, seats, checkpoints…)",
                    "rebuilt the read models from the database's {n} stored events (actions, seats, checkpoints…)",
                    done).format(n=done)
    stopped = model.damaged()
    note_stopped(stopped)
    s.emit(with_message({"rebuilt": done, "position": model.position(),
                         "stopped": [{"campaign": b.slug, "seq": b.seq, "why": b.kind} for b in stopped]}, line),
           human=line)


@cli.command()
@click.option("--actions", "count", type=INTEGER, required=True, help="How many actions to record.")
@click.option("--seed", type=INTEGER, default=0, show_default=True, help="The same seed gives the same campaign.")
@click.option("--heroes", type=INTEGER, default=3, show_default=True, help="Heroes in a new simulated campaign.")
@pass_session
def simulate(s: Session, count: int, seed: int, heroes: int) -> None:
    """Random legal play through the real command path, for trying things at scale.

    Starts a simulated campaign in a new --db file, or continues the campaign there.

    \b
    Example: ledger --db sim.db simulate --actions 10000 --seed 7
    """
    from ...bounds import LONGEST_ID, bounded
    from ...rules.actors import master_only
    from ..simulate import SIMULATION_SLUG, finish_setup, start_simulation
    from ..simulate import simulate as play_randomly

    # it records the master's actions and every hero's, and the master's seeds come from --seed
    master_only(s.actor, N_("runs a simulation"))
    if count < 1:
        raise BadInput(_("--actions {count}: give a number of actions, at least 1").format(count=count))
    for option, number in (("--actions", count), ("--seed", seed)):
        try:
            bounded(number, option, LONGEST_ID, flags=False)  # 2**63 actions: no campaign, a seed no shuffle takes
        except ValueError as exc:
            raise BadInput(str(exc)) from None
    if not 1 <= heroes <= 12:
        raise BadInput(_("--heroes {heroes}: between 1 and 12 heroes").format(heroes=heroes))
    ledger = s.ledger(create=True)
    if not ledger.campaigns():
        s.refuse_cut_log()  # a file whose log lost actions takes no new campaign either
        cid = start_simulation(ledger, heroes, seed)
    else:
        cid = s.cid()
        campaign = ledger.campaign(cid)
        if campaign.slug == SIMULATION_SLUG:
            finish_setup(ledger, cid, heroes, seed)  # a setup cut short (say, by a crash) is completed
        elif not campaign.table.heroes:
            raise BadInput(_("simulate needs a campaign with heroes; add some with hero add, or use a new --db file"))
    with s.progress(_("simulating"), "actions", count) as update:
        stats = play_randomly(ledger, cid, count, seed, progress=update)
    s.model()
    seq = ledger.campaign(cid).seq
    rate = round(stats.refusal_rate, 4)
    kinds = zone_kind_names()
    end = ", ".join(f"{kinds.get(kind, kind)} {n}" for kind, n in stats.zones.items())
    line = _simulated(stats.recorded, stats.refused).format(
        recorded=stats.recorded, refused=stats.refused, rate=f"{rate:.1%}", seq=seq)
    line += "\n" + _("cards at the end, by zone kind: {counts}").format(counts=end)
    s.emit(with_message({"recorded": stats.recorded, "refused": stats.refused, "refusal_rate": rate, "seq": seq,
                         "by_action": stats.by_action, "zones": stats.zones}, line), human=line)


def _simulated(recorded: int, refused: int) -> str:
    """The sentence ``simulate`` reports with, whole: one for one refused choice and one
    for several, each counting the recorded actions (two counts, so two sentences)."""
    one_refused = (
        # TRANSLATORS: {refused} is a count the singular counts ("1 refused choice"; used when ngettext would
        # choose the singular for it); {rate} is a percentage, e.g. "1.5%".
        ngettext("recorded {recorded} random legal action (and {refused} refused choice, {rate} of those tried, "
                 "appended nothing); the campaign is at seq {seq}",
                 "recorded {recorded} random legal actions (and {refused} refused choice, {rate} of those tried, "
                 "appended nothing); the campaign is at seq {seq}", recorded))
    several_refused = (
        # TRANSLATORS: {refused} is a count the plural counts ("0 refused choices", "3 refused choices"); {rate} is
        # a percentage, e.g. "1.5%".
        ngettext("recorded {recorded} random legal action (and {refused} refused choices, {rate} of those tried, "
                 "appended nothing); the campaign is at seq {seq}",
                 "recorded {recorded} random legal actions (and {refused} refused choices, {rate} of those tried, "
                 "appended nothing); the campaign is at seq {seq}", recorded))
    return several_refused if plural_form(refused) else one_refused


def zone_kind_names() -> dict[str, str]:
    """The kinds of zone ``simulate`` reports (``ledger.interface.simulate.ZONE_KINDS``),
    in the language spoken; the ``--json`` keys stay the ids."""
    return {
        "box": pgettext("zone kind", "box"), "deck": pgettext("zone kind", "deck"),
        "depot": pgettext("zone kind", "depot"), "discard": pgettext("zone kind", "discard"),
        "limbo": pgettext("zone kind", "limbo"), "scenario": pgettext("zone kind", "scenario"),
        "inventory": pgettext("zone kind", "inventory"), "table": pgettext("zone kind", "table"),
        "extra": pgettext("zone kind", "extra"), "attached": pgettext("zone kind", "attached"),
    }


@cli.command()
@click.pass_context
def demo(ctx: click.Context) -> None:
    """Play a short sample campaign into demo.db (or --db) and show it, to look around in.

    \b
    Example: ledger demo && ledger --db demo.db zones
    """
    import io

    from rich.console import Console

    from ..demo import play_demo

    s: Session = ctx.obj
    explicit = ctx.parent is not None and ctx.parent.get_parameter_source("db") != click.core.ParameterSource.DEFAULT
    db = s.db if explicit else "demo.db"
    if not s.as_json:
        # the whole demo is recorded before a line is printed: `ledger demo | head -3` (or a
        # pager quit early) cut it after its first action, leaving a demo the next run refused
        buffer, out = io.StringIO(), s.out
        narration = Console(file=buffer, width=out.width, force_terminal=out.is_terminal,
                            color_system=out.color_system, soft_wrap=True, emoji=False)  # type: ignore[arg-type]
        play_demo(db, narration)[0].close()  # no connection outlives the command
        click.echo(buffer.getvalue(), nl=False, color=out.is_terminal)  # (FORCE_COLOR into a pipe: kept)
        return

    # --json: the narration (tables and all) is left out; stdout is the one JSON document
    ledger, facts = play_demo(db, Console(file=io.StringIO()))
    ledger.close()
    line = ngettext("played the demo into {file}: {n} action recorded",
                    "played the demo into {file}: {n} actions recorded",
                    facts["recorded"]).format(file=facts["db"], n=facts["recorded"])
    s.emit(with_message(facts, line))
