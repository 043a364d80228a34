"""Setting up a campaign (CLI.md "Setting up"): ``init``, ``campaigns``, ``hero``,
``add``, ``location`` and ``travel``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ...errors import BadInput
from ...i18n import ngettext
from .group import SignedArguments, cli
from .session import INTEGER, POSITION, Session, action_data, note_line, pairs, pass_session, record, with_message

if TYPE_CHECKING:
    from rich.console import Console


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
    from ...application import campaign_names
    from ...catalog import load_catalog
    from ...formats import load_format

    catalog = load_catalog(catalog_path)
    fmt = load_format(format_path) if format_path else None
    campaign_names(name, s.campaign_slug)  # refuse a bad id before any file is made
    ledger = s.ledger(create=True)
    s.refuse_cut_log()  # a file whose log lost actions takes no new campaign either
    held = ledger.campaigns()
    if held and name is None and s.campaign_slug is None:  # `init` typed again: no second "campaign" unasked
        from ...postgres import shown

        raise BadInput(ngettext("{db} already holds a campaign ({campaigns}); it may hold several: name the new one "
                                "with --name, or start it in another --db",
                                "{db} already holds {n} campaigns ({campaigns}); it may hold more: name the new one "
                                "with --name, or start it in another --db", len(held)).format(
            db=shown(str(s.db)), n=len(held), campaigns=", ".join(e.slug for e in held)))
    rec = ledger.start(catalog, name=name, slug=s.campaign_slug, fmt=fmt, actor=s.actor)
    s.model()
    from rich.markup import escape

    from ...postgres import shown

    started = ngettext("campaign {slug} started in {db}: {n} card in the box",
                       "campaign {slug} started in {db}: {n} cards in the box", len(catalog))
    line = started.format(slug=rec.campaign.slug, db=shown(str(s.db)), n=len(catalog))
    s.emit(with_message(action_data(s, rec), f"seq 1  {line}"), human="[bold]seq 1[/bold]  " + started.format(
        slug=f"[bold]{escape(rec.campaign.slug)}[/bold]", db=escape(shown(str(s.db))), n=len(catalog)))


@cli.command()
@pass_session
def campaigns(s: Session) -> None:
    """List the campaigns in the database file.

    \b
    Example: ledger --db demo.db campaigns
    """
    entries = s.ledger().campaigns()
    if not entries:
        s.ledger().refuse_unlisted_log()  # a log without its list: said so, not an empty list

    def human(out: Console) -> None:
        from projections.render import escape

        for e in entries:
            out.print(f"{e.slug}  {escape(e.name)}", highlight=False)

    s.emit([{"id": e.slug, "name": e.name} for e in entries], human=human)


@cli.group()
def hero() -> None:
    """Add heroes and change their knowledge.

    \b
    Example: ledger hero add ana --name "Ana" --knowledge 2
    """


@hero.command("add")
@click.argument("hero_id")
@click.option("--name", default=None, help="Display name.")
@click.option("--knowledge", default=0, type=INTEGER, show_default=True, help="Knowledge level.")
@pass_session
def hero_add(s: Session, hero_id: str, name: str | None, knowledge: int) -> None:
    """Add a hero: their table, inventory and extra zone appear.

    \b
    Example: ledger hero add ana --name "Ana" --knowledge 2
    """
    from ...commands import AddHero
    from ...seats import SeatBook

    record(s, AddHero(actor=s.actor, hero=hero_id, name=name, knowledge=knowledge))
    # a seat opened for an earlier hero of that id (whose hero add was undone) is this hero's now
    links = sum(seat.who == hero_id for seat in SeatBook(s.ledger()).seats(s.cid()))
    if links:
        click.echo(note_line(ngettext(
            "a seat for {hero} was opened before, {n} link: it now acts and sees as this hero; if it was given to "
            "someone else, revoke it (ledger seat revoke {hero}) and add a new one",
            "a seat for {hero} was opened before, {n} links: they now act and see as this hero; if they were given "
            "to someone else, revoke them (ledger seat revoke {hero}) and add a new one", links).format(
            hero=hero_id, n=links)), err=True)


@hero.command("knowledge", cls=SignedArguments)  # -1: a level refused as such
@click.argument("hero_id")
@click.argument("level", type=INTEGER)
@pass_session
def hero_knowledge(s: Session, hero_id: str, level: int) -> None:
    """Set a hero's knowledge; table cards they no longer qualify for go to their inventory.

    \b
    Example: ledger hero knowledge ana 3
    """
    from ...commands import SetKnowledge

    record(s, SetKnowledge(actor=s.actor, hero=hero_id, knowledge=level))


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
    from ...commands import Add

    record(s, Add(actor=s.actor, cards=cards, to=to, position=position))


@cli.group()
def location() -> None:
    """Add locations, each with an access level 0-3 per suit, and correct those levels.

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
    from ...commands import AddLocation

    record(s, AddLocation(actor=s.actor, location=location_id, access=pairs(access, "--access")))


@location.command("set")
@click.argument("location_id")
@click.option("--access", "access", multiple=True, help="SUIT=LEVEL (0-3), for each suit to correct.")
@pass_session
def location_set(s: Session, location_id: str, access: tuple[str, ...]) -> None:
    """Correct a location's own access levels (the suits named; the others keep theirs).

    \b
    Example: ledger location set village --access item=3
    """
    from ...commands import SetLocation

    record(s, SetLocation(actor=s.actor, location=location_id, access=pairs(access, "--access")))


@cli.command()
@click.argument("hero_id")
@click.argument("location_id")
@pass_session
def travel(s: Session, hero_id: str, location_id: str) -> None:
    """Move a hero to a location (a hero is at one location at a time).

    \b
    Example: ledger travel ana village
    """
    from ...commands import Travel

    record(s, Travel(actor=s.actor, hero=hero_id, location=location_id))
