"""The record itself (CLI.md "History, replay, undo"): ``undo`` and ``redo``, ``verify``,
``export`` and ``import``, ``rebuild`` of the read models, and the ``simulate`` and
``demo`` campaigns."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ...errors import BadInput
from .group import cli
from .session import SEQ, Session, pass_session, record


@cli.command()
@click.option("--to", "to", type=SEQ, default=None, help="Undo every action after SEQ, in one action.")
@click.option("--keep-order", is_flag=True,
              help="Master only: do not shuffle again the decks that seen cards return to (recorded).")
@click.option("--seed", default=None, type=int, help="Master only: seed for shuffling those decks again.")
@pass_session
def undo(s: Session, to: int | None, keep_order: bool, seed: int | None) -> None:
    """Take back the latest action (or every one after SEQ); it stays in the history.

    A hero takes back only their own actions, and none that showed anyone a hidden card
    (ask the master: a deck such cards return to is shuffled again).

    \b
    Example: ledger undo    |    ledger undo --to 12    |    ledger undo --keep-order
    """
    from ...commands import Undo

    record(s, Undo(actor=s.actor, to=to, keep_order=keep_order, seed=seed))


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
def verify(s: Session) -> None:
    """Check the whole log: hash chain, and every action decided again under the rules.

    Exits 1 and names the first bad seq if the record was altered.

    \b
    Example: ledger verify
    """
    from ...audit import verify as verify_log

    ledger = s.ledger()
    cid = s.cid()
    report = verify_log(ledger, cid)
    s.emit(report.as_dict(), human=(
        f"ok: {report.actions} actions of {report.campaign}: hash chain intact, every action "
        "replays under the rules"
    ) if report.ok else None)
    if not report.ok:
        click.echo(f"error: the log is not intact: {report.reason} (first bad seq: {report.bad_seq})", err=True)
        sys.exit(1)


@cli.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, writable=True))
@pass_session
def export(s: Session, file: str | None) -> None:
    """Write the campaign's log as JSON Lines, one action per line (stdout without FILE).

    \b
    Example: ledger export campaign.jsonl
    """
    from ...audit import export as export_log

    ledger = s.ledger()
    cid = s.cid()
    if file is None:
        export_log(ledger, cid, sys.stdout)  # the log itself is the output, with or without --json
        return
    target = Path(file)
    partial = target.with_name(f".{target.name}.partial")
    with partial.open("w", encoding="utf-8") as out:
        count = export_log(ledger, cid, out)
    partial.replace(target)
    s.emit({"exported": count, "file": str(target)}, human=f"exported {count} actions to {target}")


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--db", "target", default=None, help="The database to import into (default: the global --db).")
@pass_session
def import_(s: Session, file: str, target: str | None) -> None:
    """Create a campaign from an export, verified first; a tampered file is refused.

    \b
    Example: ledger import campaign.jsonl --db copy.db
    """
    from ...audit import import_campaign

    destination = target or s.db
    report = import_campaign(file, destination)
    s.close()
    s.db = destination
    s.model()
    s.emit({"imported": report.actions, "campaign": report.campaign, "db": destination},
           human=f"imported {report.actions} actions of {report.campaign} into {destination} (verified)")


@cli.command()
@pass_session
def rebuild(s: Session) -> None:
    """Rebuild the read-model tables from the log, with a progress bar.

    \b
    Example: ledger rebuild
    """
    model = s.model(catch_up=False)
    total = s.ledger().stored_event_count()
    with s.progress("rebuilding", "events", total) as update:
        done = model.rebuild(progress=lambda n, _total: update(n))
    s.emit({"rebuilt": done, "position": model.position()}, human=f"rebuilt the read models from {done} events")


@cli.command()
@click.option("--actions", "count", type=int, required=True, help="How many actions to record.")
@click.option("--seed", type=int, default=0, show_default=True, help="The same seed gives the same campaign.")
@click.option("--heroes", type=int, default=3, show_default=True, help="Heroes in a new simulated campaign.")
@pass_session
def simulate(s: Session, count: int, seed: int, heroes: int) -> None:
    """Random legal play through the real command path, for trying things at scale.

    Starts a simulated campaign in a new --db file, or continues the campaign there.

    \b
    Example: ledger --db sim.db simulate --actions 10000 --seed 7
    """
    from ..simulate import SIMULATION_SLUG, finish_setup, start_simulation
    from ..simulate import simulate as play_randomly

    if count < 1:
        raise BadInput(f"--actions {count}: give a number of actions, at least 1")
    if not 1 <= heroes <= 12:
        raise BadInput(f"--heroes {heroes}: between 1 and 12 heroes")
    ledger = s.ledger(create=True)
    if not ledger.campaigns():
        cid = start_simulation(ledger, heroes, seed)
    else:
        cid = s.cid()
        campaign = ledger.campaign(cid)
        if campaign.slug == SIMULATION_SLUG:
            finish_setup(ledger, cid, heroes, seed)  # a setup cut short (say, by a crash) is completed
        elif not campaign.table.heroes:
            raise BadInput("simulate needs a campaign with heroes; add some with hero add, or use a new --db file")
    with s.progress("simulating", "actions", count) as update:
        stats = play_randomly(ledger, cid, count, seed, progress=update)
    s.model()
    seq = ledger.campaign(cid).seq
    s.emit({"recorded": stats.recorded, "refused": stats.refused, "seq": seq, "by_action": stats.by_action},
           human=f"recorded {stats.recorded} random legal actions (and {stats.refused} refused choices "
                 f"appended nothing); the campaign is at seq {seq}")


@cli.command()
@click.pass_context
def demo(ctx: click.Context) -> None:
    """Play a short sample campaign into demo.db (or --db) and show it, to look around in.

    \b
    Example: ledger demo && ledger --db demo.db zones
    """
    from ..demo import run_demo

    s: Session = ctx.obj
    explicit = ctx.parent is not None and ctx.parent.get_parameter_source("db") != click.core.ParameterSource.DEFAULT
    run_demo(s.db if explicit else "demo.db", s.out).close()  # no connection outlives the command
