"""The ``ledger`` command (CLI.md). It only parses arguments, calls one library
function, and turns refusals into one ``error:`` line (exit 1); usage errors exit 2.
Everything it does, Python can do through ``ledger.application.Ledger``.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, NoReturn
from uuid import UUID

import click
from pydantic import ValidationError
from rich.console import Console

from .. import commands as c
from ..application import Ledger, Recorded, campaign_names
from ..campaign import Campaign
from ..catalog import load_catalog
from ..errors import BadInput, LedgerError, first_problem
from ..formats import load_format
from ..vocabulary import MASTER, PUBLIC, REFEREE, check_hero_id

try:
    __version__ = version("campaign-ledger")
except PackageNotFoundError:  # running from a checkout
    __version__ = "0.0.0"


@dataclass
class Session:
    db: str
    campaign_slug: str | None
    actor: str
    viewer: str
    as_json: bool
    out: Console = field(default_factory=lambda: Console(soft_wrap=True))
    _ledger: Ledger | None = None
    _model: Any = None

    def ledger(self, create: bool = False) -> Ledger:
        if self._ledger is None:
            self._ledger = Ledger.open(self.db, create=create)
        return self._ledger

    def close(self) -> None:
        if self._model is not None:
            self._model.close()
            self._model = None
        if self._ledger is not None:
            self._ledger.close()
            self._ledger = None

    def model(self, catch_up: bool = True, recorded: Recorded | None = None) -> Any:
        """The read-model tables of this file, caught up with the log (``recorded``:
        the action just recorded, handed over so that it is not read back)."""
        from projections.readmodel import ReadModel

        if self._model is None:
            self._model = ReadModel(self.ledger(), self.db)
        if catch_up:
            self._model.safe_catch_up(recorded)
        return self._model

    def cid(self) -> UUID:
        return self.ledger().resolve(self.campaign_slug)

    def viewing(self, campaign: Campaign) -> str:
        """The viewer, checked: referee, public, or a hero of this campaign."""
        if self.viewer not in (REFEREE, PUBLIC):
            campaign.check_hero(self.viewer)
        return self.viewer

    def run(self, command: c.Command) -> Recorded:
        return self.ledger().execute(self.cid(), command)


def fail(message: str, code: str = "refused", as_json: bool = False) -> NoReturn:
    if as_json:
        click.echo(json.dumps({"error": {"code": code, "message": message}}))
    click.echo(f"error: {message}", err=True)
    sys.exit(1)


def _check_viewer(viewer: str) -> str:
    if viewer in (REFEREE, PUBLIC):
        return viewer
    return check_hero_id(viewer)


def _check_actor(actor: str) -> str:
    return actor if actor == MASTER else check_hero_id(actor)


class Position(click.ParamType):
    name = "top|bottom|N"

    def convert(self, value: Any, param: Any, ctx: Any) -> Any:
        if isinstance(value, int) or value in ("top", "bottom"):
            return value
        try:
            n = int(value)
        except ValueError:
            self.fail(f"{value!r} is not top, bottom or a number (1 = top)", param, ctx)
        if n < 1:
            self.fail(f"{n} is not a position; positions count from 1 (the top)", param, ctx)
        return n


POSITION = Position()


class Count(click.ParamType):
    """A whole number from 1: a seq (an action's number, 1 = init) or a count. A bad one
    is refused like any bad input (exit 1), not as a usage error."""

    name = "N"

    def __init__(self, what: str):
        self.what = what

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        if isinstance(value, int):
            number = value
        else:
            try:
                number = int(value)
            except ValueError:
                raise BadInput(f"{value!r} is not {self.what}; it is a whole number from 1") from None
        if not 1 <= number <= 2**62:
            raise BadInput(f"{number} is not {self.what}; it is a whole number from 1")
        return number


SEQ = Count("a seq (seqs count actions from 1, the init)")


def _print_recorded(s: Session, rec: Recorded, named: tuple[str, ...] = ()) -> None:
    from projections.views import action_view

    view = action_view(rec.event, rec.campaign, s.actor, known=frozenset(named))
    if s.as_json:
        click.echo(json.dumps({"seq": rec.seq, "action": rec.action, "events": [view]}))
    else:
        s.out.print(f"[bold]seq {rec.seq}[/bold]  {view['summary']}", highlight=False)


def record(s: Session, command: c.Command, named: tuple[str, ...] = ()) -> None:
    rec = s.run(command)
    s.model(recorded=rec)  # every action leaves the read models caught up
    _print_recorded(s, rec, named)


# -- the group -----------------------------------------------------------------
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.option("--db", "db", envvar="LEDGER_DB", default="campaign.db", show_default=True,
              help="The campaign database file ($LEDGER_DB).")
@click.option("--campaign", "campaign_slug", default=None, help="Which campaign, when the file holds several.")
@click.option("--actor", default=MASTER, show_default=True, help="Who acts: master or a hero id.")
@click.option("--as", "viewer", default=REFEREE, show_default=True, help="Whose view a read shows: referee, public or a hero id.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output on stdout.")
@click.version_option(
    __version__, "--version", prog_name="ledger",
    message=f"%(prog)s %(version)s (SQLite {sqlite3.sqlite_version}, Python {sys.version.split()[0]})",
)
@click.pass_context
def cli(ctx: click.Context, db: str, campaign_slug: str | None, actor: str, viewer: str, as_json: bool) -> None:
    """Campaign ledger: every card action of a campaign, recorded and checked.

    \b
    Start:    ledger init --catalog cards.toml --name "Campanha"
    Play:     ledger --actor ana draw deck:item
    Look:     ledger zones
    Try it:   ledger demo
    """
    ctx.obj = Session(db=db, campaign_slug=campaign_slug, actor=actor, viewer=viewer, as_json=as_json)
    ctx.call_on_close(ctx.obj.close)  # no connection outlives the command
    try:
        _check_actor(actor)
        _check_viewer(viewer)
    except LedgerError as exc:
        fail(str(exc), exc.code, as_json)


pass_session = click.pass_obj


# -- setting up ------------------------------------------------------------------
@cli.command()
@click.option("--catalog", "catalog_path", required=True, type=click.Path(dir_okay=False),
              help="Card catalog, TOML ([[cards]]) or CSV.")
@click.option("--name", default=None, help="The campaign's name.")
@click.option("--format", "format_path", default=None, type=click.Path(dir_okay=False),
              help="A format file adding stacks to the standard format.")
@pass_session
def init(s: Session, catalog_path: str, name: str | None, format_path: str | None) -> None:
    """Start a campaign from a card catalog; every card starts in the box.

    \b
    Example: ledger init --catalog cards.toml --name "Campanha do Norte"
    """
    catalog = load_catalog(catalog_path)
    fmt = load_format(format_path) if format_path else None
    campaign_names(name, s.campaign_slug)  # refuse a bad id before any file is made
    rec = s.ledger(create=True).start(catalog, name=name, slug=s.campaign_slug, fmt=fmt, actor=s.actor)
    s.model()
    if s.as_json:
        _print_recorded(s, rec)
    else:
        s.out.print(
            f"[bold]seq 1[/bold]  campaign [bold]{rec.campaign.slug}[/bold] started in {s.db}: "
            f"{len(catalog)} cards in the box", highlight=False,
        )


@cli.command()
@pass_session
def campaigns(s: Session) -> None:
    """List the campaigns in the database file.

    \b
    Example: ledger --db demo.db campaigns
    """
    entries = s.ledger().campaigns()
    if s.as_json:
        click.echo(json.dumps([{"id": e.slug, "name": e.name} for e in entries]))
        return
    for e in entries:
        s.out.print(f"{e.slug}  {e.name}", highlight=False)


@cli.group()
def hero() -> None:
    """Add heroes and change their knowledge.

    \b
    Example: ledger hero add ana --name "Ana" --knowledge 2
    """


@hero.command("add")
@click.argument("hero_id")
@click.option("--name", default=None, help="Display name.")
@click.option("--knowledge", default=0, type=int, show_default=True, help="Knowledge level.")
@pass_session
def hero_add(s: Session, hero_id: str, name: str | None, knowledge: int) -> None:
    """Add a hero: their table, inventory and extra zone appear.

    \b
    Example: ledger hero add ana --name "Ana" --knowledge 2
    """
    record(s, c.AddHero(actor=s.actor, hero=hero_id, name=name, knowledge=knowledge))


@hero.command("knowledge")
@click.argument("hero_id")
@click.argument("level", type=int)
@pass_session
def hero_knowledge(s: Session, hero_id: str, level: int) -> None:
    """Set a hero's knowledge; table cards they no longer qualify for go to their inventory.

    \b
    Example: ledger hero knowledge ana 3
    """
    record(s, c.SetKnowledge(actor=s.actor, hero=hero_id, knowledge=level))


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--to", "to", required=True, help="The zone, usually a deck or the depot.")
@click.option("--position", type=POSITION, default="top", show_default=True, help="top, bottom or N (1 = top).")
@pass_session
def add(s: Session, cards: tuple[str, ...], to: str, position: Any) -> None:
    """Bring cards from the box into the campaign (first named ends on top).

    \b
    Example: ledger add item-sword item-bow --to deck:item --position bottom
    """
    record(s, c.Add(actor=s.actor, cards=cards, to=to, position=position), cards)


# -- playing ---------------------------------------------------------------------
@cli.command()
@click.argument("stack")
@click.option("--count", default=1, type=int, show_default=True, help="How many cards.")
@click.option("--to", "to", default=None, help="Where they go (default: the actor's inventory).")
@click.option("--seed", default=None, type=int, help="Seed for a refill's shuffle.")
@pass_session
def draw(s: Session, stack: str, count: int, to: str | None, seed: int | None) -> None:
    """Draw from the top of a deck; an empty deck is first refilled from the depot.

    \b
    Example: ledger --actor ana draw deck:item --count 2
    """
    record(s, c.Draw(actor=s.actor, stack=stack, count=count, to=to, seed=seed))


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--to", "to", required=True, help="The zone the cards go to.")
@click.option("--position", type=POSITION, default=None, help="top, bottom or N (1 = top); decks default to top.")
@click.option("--face", type=click.Choice(["up", "down"]), default=None, help="How they lie (not in stacks).")
@pass_session
def send(s: Session, cards: tuple[str, ...], to: str, position: Any, face: str | None) -> None:
    """Send cards to a zone; placement rules may redirect them (and say so).

    \b
    Example: ledger send item-sword --to table:ana
    """
    record(s, c.Send(actor=s.actor, cards=cards, to=to, position=position, face=face), cards)


@cli.command()
@click.argument("cards", nargs=-1)
@click.option("--from", "stack", default=None, help="Discard from the top of this deck instead.")
@click.option("--count", default=1, type=int, show_default=True, help="With --from: how many.")
@click.option("--seed", default=None, type=int, help="With --from: seed for a refill's shuffle.")
@pass_session
def discard(s: Session, cards: tuple[str, ...], stack: str | None, count: int, seed: int | None) -> None:
    """Discard cards to their discard pile (face-up), or the top of a deck with --from.

    \b
    Example: ledger discard item-rope    |    ledger discard --from deck:item --count 2
    """
    record(s, c.Discard(actor=s.actor, cards=cards, stack=stack, count=count, seed=seed), cards)


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--to", "to", default=None, help="A deck (default: the card's suit's campaign deck).")
@pass_session
def bury(s: Session, cards: tuple[str, ...], to: str | None) -> None:
    """Bury cards face-down at the bottom of their suit's deck (or --to a deck).

    \b
    Example: ledger bury item-torch
    """
    record(s, c.Bury(actor=s.actor, cards=cards, to=to), cards)


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@pass_session
def exile(s: Session, cards: tuple[str, ...]) -> None:
    """Exile cards to limbo.

    \b
    Example: ledger exile event-plague
    """
    record(s, c.Exile(actor=s.actor, cards=cards), cards)


@cli.command()
@click.argument("stack")
@click.option("--seed", default=None, type=int, help="Makes the shuffle reproducible.")
@pass_session
def shuffle(s: Session, stack: str, seed: int | None) -> None:
    """Shuffle a deck; the new order is recorded (replay never re-randomises).

    \b
    Example: ledger shuffle deck:item --seed 7
    """
    record(s, c.Shuffle(actor=s.actor, stack=stack, seed=seed))


@cli.command()
@click.argument("stack")
@click.option("--take", multiple=True, help="A card to take (repeat for more).")
@click.option("--to", "to", default=None, help="Where taken cards go (default: the actor's inventory).")
@click.option("--seed", default=None, type=int, help="Seed for the reshuffle after.")
@pass_session
def search(s: Session, stack: str, take: tuple[str, ...], to: str | None, seed: int | None) -> None:
    """Look through a stack and take cards; a face-down deck is reshuffled after.

    \b
    Example: ledger search deck:item --take item-bow --to inventory:ana
    """
    record(s, c.Search(actor=s.actor, stack=stack, take=take, to=to, seed=seed), take)


def _cards_command(name: str, model: type[c.Cards], text: str, example: str) -> None:
    @cli.command(name, help=f"{text}\n\n\b\nExample: {example}")
    @click.argument("cards", nargs=-1, required=True)
    @pass_session
    def command(s: Session, cards: tuple[str, ...]) -> None:
        record(s, model(actor=s.actor, cards=cards), cards)


_cards_command("reveal", c.Reveal, "Turn cards face-up.", "ledger reveal item-sword")
_cards_command("hide", c.Hide, "Turn cards face-down.", "ledger hide item-sword")
_cards_command("exhaust", c.Exhaust, "Turn cards sideways (on a table, extra zone or scenario).", "ledger exhaust item-sword")
_cards_command("restore", c.Restore, "Turn exhausted cards upright again.", "ledger restore item-sword")


@cli.command()
@click.argument("card")
@click.option("--to", "host", required=True, help="The host card.")
@pass_session
def attach(s: Session, card: str, host: str) -> None:
    """Attach a card to a host card in play.

    \b
    Example: ledger attach item-rope --to companion-wolf
    """
    record(s, c.Attach(actor=s.actor, card=card, host=host), (card, host))


@cli.command()
@click.argument("card")
@click.option("--to", "to", default=None, help="Where it goes (default: the host's zone).")
@pass_session
def detach(s: Session, card: str, to: str | None) -> None:
    """Detach a card from its host.

    \b
    Example: ledger detach item-rope --to inventory:ana
    """
    record(s, c.Detach(actor=s.actor, card=card, to=to), (card,))


# -- locations, battle, trading, activation (RULES.md §6, §8) ---------------------
def _pairs(values: tuple[str, ...], option: str, number: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for value in values:
        key, sep, raw = value.partition("=")
        if not sep or not key or not raw:
            raise BadInput(f"{option} {value!r}: write it as NAME=VALUE (e.g. {option} item=2)")
        if number:
            try:
                out[key] = int(raw)
            except ValueError:
                raise BadInput(f"{option} {value!r}: {raw!r} is not a whole number") from None
        else:
            out[key] = raw
    return out


@cli.group()
def location() -> None:
    """Add locations, each with an access level 0-3 per suit.

    \b
    Example: ledger location add village --access item=2 --access skill=1
    """


@location.command("add")
@click.argument("location_id")
@click.option("--access", "access", multiple=True, help="SUIT=LEVEL (0-3); unlisted suits are 0.")
@pass_session
def location_add(s: Session, location_id: str, access: tuple[str, ...]) -> None:
    """Add a location with its access levels (unlisted suits: 0, which admits nothing).

    \b
    Example: ledger location add village --access item=2 --access skill=1
    """
    record(s, c.AddLocation(actor=s.actor, location=location_id, access=_pairs(access, "--access")))


@cli.command()
@click.argument("hero_id")
@click.argument("location_id")
@pass_session
def travel(s: Session, hero_id: str, location_id: str) -> None:
    """Move a hero to a location (a hero is at one location at a time).

    \b
    Example: ledger travel ana village
    """
    record(s, c.Travel(actor=s.actor, hero=hero_id, location=location_id))


@cli.group()
def battle() -> None:
    """Start or end a battle: during a battle every discard pile's access is 0.

    \b
    Example: ledger battle start
    """


@battle.command("start")
@pass_session
def battle_start(s: Session) -> None:
    """Start a battle: trading closes unless an effect reopens access.

    \b
    Example: ledger battle start
    """
    record(s, c.StartBattle(actor=s.actor))


@battle.command("end")
@pass_session
def battle_end(s: Session) -> None:
    """End the battle.

    \b
    Example: ledger battle end
    """
    record(s, c.EndBattle(actor=s.actor))


@cli.command()
@click.argument("location_id")
@click.argument("suit")
@click.argument("level", type=int, required=False)
@click.option("--by", "by", default=None, help="The card whose effect changes the access.")
@click.option("--clear", is_flag=True, help="Remove the effect on this suit's access.")
@pass_session
def access(s: Session, location_id: str, suit: str, level: int | None, by: str | None, clear: bool) -> None:
    """Record an effect changing a location's access level (it applies in battle too).

    \b
    Example: ledger access village item 2 --by event-festival
             ledger access village item --clear
    """
    if clear == (level is not None):
        raise BadInput("give a LEVEL with --by CARD, or --clear (not both)")
    record(s, c.SetAccess(actor=s.actor, location=location_id, suit=suit, level=level, by=by), (by,) if by else ())


def _trade_lists(tokens: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    """--take A B --give C D --attach A=W: each option takes every word up to the next option."""
    lists: dict[str, list[str]] = {"--take": [], "--give": [], "--attach": []}
    current: list[str] | None = None
    for token in tokens:
        if token in lists:
            current = lists[token]
        elif token.startswith("-"):
            raise click.UsageError(f"no such option: {token}")
        elif current is None:
            raise click.UsageError(f"unexpected {token!r}: name cards after --take or --give")
        else:
            current.append(token)
    return lists["--take"], lists["--give"], lists["--attach"]


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("hero_id")
@click.argument("cards", nargs=-1, type=click.UNPROCESSED, metavar="--take CARD... [--give CARD...] [--attach TAKEN=COMPANION...]")
@pass_session
def trade(s: Session, hero_id: str, cards: tuple[str, ...]) -> None:
    """Trade with the discard pile (a full action): each value type settled on its own.

    Cards taken come from the discard pile; cards given must be the hero's own (inventory,
    table, or attached to their cards) and go to their discard piles.

    \b
    Example: ledger trade ana --take item-bow --give item-sword item-rope
             ledger trade ana --take item-rope --give item-axe --attach item-rope=companion-wolf
    """
    take, give, attach = _trade_lists(cards)
    if not take:
        raise click.UsageError("say which cards to take from the discard pile with --take CARD...")
    record(s, c.Trade(actor=s.actor, hero=hero_id, take=tuple(take), give=tuple(give),
                      attach=_pairs(tuple(attach), "--attach", number=False)), tuple(take + give))


@cli.command()
@click.argument("card")
@click.option("--effect", type=int, default=None, help="Which effect (1 = the card's first); needed if several.")
@click.option("--hero", "hero_id", default=None, help="Who activates, when the master records it.")
@click.option("--target", default=None, help="The target, as text.")
@click.option("--note", default=None, help="A note for the record.")
@click.option("--ap", "action_points", type=int, default=None, help="Action points paid (recorded, not enforced).")
@click.option("--energy", "energies", multiple=True, help="KIND=N energy paid (recorded, not enforced).")
@pass_session
def activate(s: Session, card: str, effect: int | None, hero_id: str | None, target: str | None, note: str | None,
             action_points: int | None, energies: tuple[str, ...]) -> None:
    """Activate a card; from the inventory it is then discarded (or follows its task).

    \b
    Example: ledger --actor ana activate item-potion --target ana --ap 1
    """
    record(s, c.Activate(actor=s.actor, card=card, effect=effect, hero=hero_id, target=target, note=note,
                         action_points=action_points, energies=_pairs(energies, "--energy")), (card,))


# -- undo, redo, and the record itself ------------------------------------------------
@cli.command()
@click.option("--to", "to", type=SEQ, default=None, help="Undo every action after SEQ, in one action.")
@pass_session
def undo(s: Session, to: int | None) -> None:
    """Take back the latest action (or every one after SEQ); it stays in the history.

    \b
    Example: ledger undo    |    ledger undo --to 12
    """
    record(s, c.Undo(actor=s.actor, to=to))


@cli.command()
@pass_session
def redo(s: Session) -> None:
    """Apply again what the latest undo took back (while nothing else came after it).

    \b
    Example: ledger redo
    """
    record(s, c.Redo(actor=s.actor))


@cli.command()
@pass_session
def verify(s: Session) -> None:
    """Check the whole log: hash chain, and every action decided again under the rules.

    Exits 1 and names the first bad seq if the record was altered.

    \b
    Example: ledger verify
    """
    from ..audit import verify as verify_log

    ledger = s.ledger()
    cid = s.cid()
    report = verify_log(ledger, cid)
    if s.as_json:
        click.echo(json.dumps(report.as_dict()))
    if not report.ok:
        click.echo(f"error: the log is not intact: {report.reason} (first bad seq: {report.bad_seq})", err=True)
        sys.exit(1)
    if not s.as_json:
        s.out.print(f"ok: {report.actions} actions of {report.campaign}: hash chain intact, every action "
                    "replays under the rules", highlight=False)


@cli.command()
@click.argument("file", required=False, type=click.Path(dir_okay=False, writable=True))
@pass_session
def export(s: Session, file: str | None) -> None:
    """Write the campaign's log as JSON Lines, one action per line (stdout without FILE).

    \b
    Example: ledger export campaign.jsonl
    """
    from ..audit import export as export_log

    ledger = s.ledger()
    cid = s.cid()
    if file is None:
        export_log(ledger, cid, sys.stdout)
        return
    target = Path(file)
    partial = target.with_name(f".{target.name}.partial")
    with partial.open("w", encoding="utf-8") as out:
        count = export_log(ledger, cid, out)
    partial.replace(target)
    if s.as_json:
        click.echo(json.dumps({"exported": count, "file": str(target)}))
    else:
        s.out.print(f"exported {count} actions to {target}", highlight=False)


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--db", "target", default=None, help="The database to import into (default: the global --db).")
@pass_session
def import_(s: Session, file: str, target: str | None) -> None:
    """Create a campaign from an export, verified first; a tampered file is refused.

    \b
    Example: ledger import campaign.jsonl --db copy.db
    """
    from ..audit import import_campaign

    destination = target or s.db
    report = import_campaign(file, destination)
    s.close()
    s.db = destination
    s.model()
    if s.as_json:
        click.echo(json.dumps({"imported": report.actions, "campaign": report.campaign, "db": destination}))
    else:
        s.out.print(f"imported {report.actions} actions of {report.campaign} into {destination} (verified)",
                    highlight=False)


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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from .simulate import SIMULATION_SLUG, finish_setup, simulate as play_randomly, start_simulation

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
    with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), disable=s.as_json, transient=True) as bar:
        task = bar.add_task("actions", total=count)
        stats = play_randomly(ledger, cid, count, seed, progress=lambda n: bar.update(task, completed=n))
    s.model()
    seq = ledger.campaign(cid).seq
    if s.as_json:
        click.echo(json.dumps({"recorded": stats.recorded, "refused": stats.refused, "seq": seq,
                               "by_action": stats.by_action}))
    else:
        s.out.print(f"recorded {stats.recorded} random legal actions (and {stats.refused} refused choices "
                    f"appended nothing); the campaign is at seq {seq}", highlight=False)


# -- reading ---------------------------------------------------------------------
@cli.command()
@click.option("--at", "at", default=None, type=SEQ, help="Right after action SEQ (time travel).")
@pass_session
def zones(s: Session, at: int | None) -> None:
    """Every zone as the viewer sees it, now or right after action SEQ.

    \b
    Example: ledger --as public zones --at 12
    """
    from projections.render import render_zones
    from projections.views import zones_view

    campaign = s.ledger().campaign(s.cid(), at=at)
    view = zones_view(campaign, s.viewing(campaign))
    if s.as_json:
        click.echo(json.dumps(view))
    else:
        render_zones(s.out, view, campaign)


@cli.command()
@click.argument("card_id", metavar="CARD")
@click.option("--at", "at", default=None, type=SEQ, help="Right after action SEQ (time travel).")
@pass_session
def card(s: Session, card_id: str, at: int | None) -> None:
    """One card's place and states, and the actions that touched it.

    \b
    Example: ledger --as ana card item-sword --at 12
    """
    from projections.queries import card_view
    from projections.render import render_card

    ledger = s.ledger()
    campaign = ledger.campaign(s.cid(), at=at)
    campaign.card(card_id)
    view = card_view(ledger, s.model(), campaign, s.viewing(campaign), card_id)
    if s.as_json:
        click.echo(json.dumps(view))
    else:
        render_card(s.out, view)


@cli.command()
@click.option("--from", "start", type=SEQ, default=None, help="From action SEQ.")
@click.option("--to", "end", type=SEQ, default=None, help="Up to action SEQ.")
@click.option("--card", "card_id", default=None, help="Only actions that touched this card.")
@click.option("--actor", "actor", default=None, help="Only actions by master or this hero.")
@click.option("--limit", type=Count("a number of actions"), default=None, help="Only the latest N actions (default: all).")
@pass_session
def history(s: Session, start: int | None, end: int | None, card_id: str | None, actor: str | None,
            limit: int | None) -> None:
    """The campaign's actions: what happened, when, to which card, by whom.

    \b
    Example: ledger --as public history --card item-sword --from 10
    """
    from projections.queries import history_view
    from projections.render import render_history

    ledger = s.ledger()
    cid = s.cid()
    campaign = ledger.campaign(cid)
    if card_id is not None:
        campaign.card(card_id)
    if limit is not None and limit < 1:
        raise BadInput(f"--limit {limit}: give a number of actions, at least 1")
    rows = history_view(ledger, s.model(), cid, campaign.slug, s.viewing(campaign), start=start, end=end,
                        card=card_id, actor=actor, limit=limit)
    if s.as_json:
        click.echo(json.dumps(rows))
    else:
        render_history(s.out, rows, campaign, s.viewer)


@cli.command()
@click.argument("seq", type=SEQ)
@pass_session
def explain(s: Session, seq: int) -> None:
    """Which rules an action was checked against, with the figures.

    \b
    Example: ledger explain 27
    """
    from projections.explain import explain as explain_action
    from projections.render import render_explain

    ledger = s.ledger()
    cid = s.cid()
    after = ledger.campaign(cid, at=seq)
    viewer = s.viewing(after)
    event = ledger.event(cid, seq)
    before = ledger.campaign(cid, at=seq - 1) if seq > 1 else None
    view = explain_action(event, before, after, viewer)
    if s.as_json:
        click.echo(json.dumps(view))
    else:
        render_explain(s.out, view)


@cli.command()
@pass_session
def rebuild(s: Session) -> None:
    """Rebuild the read-model tables from the log, with a progress bar.

    \b
    Example: ledger rebuild
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    model = s.model(catch_up=False)
    total = s.ledger().stored_event_count()
    with Progress(TextColumn("rebuilding"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=Console(stderr=True), disable=s.as_json, transient=True) as bar:
        task = bar.add_task("events", total=total)
        done = model.rebuild(progress=lambda n, _total: bar.update(task, completed=n))
    if s.as_json:
        click.echo(json.dumps({"rebuilt": done, "position": model.position()}))
    else:
        s.out.print(f"rebuilt the read models from {done} events", highlight=False)


@cli.command()
@click.pass_context
def demo(ctx: click.Context) -> None:
    """Play a short sample campaign into demo.db (or --db) and show it, to look around in.

    \b
    Example: ledger demo && ledger --db demo.db zones
    """
    from .demo import run_demo

    s: Session = ctx.obj
    explicit = ctx.parent is not None and ctx.parent.get_parameter_source("db") != click.core.ParameterSource.DEFAULT
    run_demo(s.db if explicit else "demo.db", s.out)


# -- entry point -----------------------------------------------------------------
def main(argv: list[str] | None = None) -> None:
    as_json = "--json" in (argv if argv is not None else sys.argv[1:])
    try:
        cli.main(args=argv, prog_name="ledger", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:  # bare `ledger` or `ledger hero`: show help
        click.echo(exc.ctx.get_help() if exc.ctx else "see ledger --help")
        sys.exit(0)
    except click.Abort:
        click.echo("error: aborted", err=True)
        sys.exit(1)
    except click.UsageError as exc:
        hint = f" (see ledger {exc.ctx.command_path.removeprefix('ledger').strip()} --help)".replace("  ", " ") if exc.ctx else ""
        click.echo(f"error: {exc.format_message()}{hint}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        fail(exc.format_message(), "bad-input", as_json)
    except LedgerError as exc:
        fail(str(exc), exc.code, as_json)
    except ValidationError as exc:
        fail(first_problem(exc), "bad-input", as_json)
    except sqlite3.Error as exc:
        fail(f"the campaign database cannot be used ({exc})", "store", as_json)
    except KeyboardInterrupt:
        click.echo("error: interrupted; nothing half-recorded (each action is saved whole or not at all)", err=True)
        sys.exit(1)
    except Exception as exc:  # never a traceback at the table
        fail(f"unexpected failure ({exc.__class__.__name__}: {str(exc)[:200]}); please report it", "internal", as_json)
