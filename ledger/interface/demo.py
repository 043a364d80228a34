"""``ledger demo``: a short scripted session on the sample catalog, written to
``demo.db``, so a newcomer has a campaign to look around in."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape

from .. import commands as c
from ..application import Ledger
from ..catalog import load_catalog, sample_catalog_path
from ..errors import LedgerError, StoreError
from ..i18n import ENGLISH, _, language, ngettext

DEMO_SLUG = "demo"


def _fresh(path: Path) -> None:
    """Replace an earlier demo file, but never a file holding anything else."""
    if not path.exists():
        return
    try:
        old = Ledger.open(path)
        slugs = [e.slug for e in old.campaigns()]
        old.close()
    except LedgerError:
        slugs = ["?"]
    if slugs != [DEMO_SLUG]:
        raise StoreError(_("{path} exists and is not a demo campaign; the demo writes to a new file (use --db NEW.db)")
                         .format(path=path))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def script() -> list[tuple[str, c.Command]]:
    """The demo's actions, each with a line saying what it shows (in the language spoken)."""
    return [
        (_("Two heroes sit down"), c.AddHero(hero="ana", name="Ana", knowledge=1)),
        ("", c.AddHero(hero="bo", name="Bo", knowledge=0)),
        (_("The master adds cards from the box to the campaign decks (the first named ends on top)"),
         c.Add(cards=("item-sword", "item-bow", "item-rope", "item-shield", "item-lantern"), to="deck:item")),
        ("", c.Add(cards=("skill-dodge", "skill-stealth", "skill-first-aid", "skill-tracking"), to="deck:skill")),
        ("", c.Add(cards=("companion-wolf", "companion-falcon"), to="deck:companion")),
        ("", c.Add(cards=("class-warrior",), to="deck:class")),
        (_("…and a few face-up cards to the depot, which refills empty decks"),
         c.Add(cards=("item-axe", "item-torch", "item-potion"), to="depot")),
        (_("The skill deck is shuffled (the new order is recorded: replay never re-randomises)"),
         c.Shuffle(stack="deck:skill", seed=7)),
        (_("Ana draws two items into her inventory"), c.Draw(actor="ana", stack="deck:item", count=2)),
        (_("Refused: Ana may not take back her draw — she has seen the cards, and undoing would give the deck "
           "back in the order she saw (only the master may, and the deck is then shuffled again)"),
         c.Undo(actor="ana")),
        (_("Bo draws a companion and puts it on his table"), c.Draw(actor="bo", stack="deck:companion")),
        ("", c.Send(actor="bo", cards=("companion-wolf",), to="table:bo")),
        (_("Ana draws the class card: a sheet card cannot be in an inventory, so it is discarded"),
         c.Draw(actor="ana", stack="deck:class")),
        (_("The lantern needs knowledge 2; sent to Bo's table (knowledge 0) it goes to his inventory"),
         c.Send(cards=("item-lantern",), to="table:bo")),
        (_("The master deals Ana four more items: the deck runs out and is refilled from the depot in the same "
           "action (the master may fix a seed, for a demo; a hero's shuffles take theirs from the system)"),
         c.Draw(stack="deck:item", count=4, to="inventory:ana", seed=11)),
        (_("Refused: a hero may not pick a seed (she could choose the order)"),
         c.Shuffle(actor="ana", stack="deck:skill", seed=5)),
        (_("An effect lets Ana search the skill deck for first aid; the master records it, and the deck is "
           "reshuffled after"),
         c.Search(stack="deck:skill", take=("skill-first-aid",), to="inventory:ana", seed=3)),
        (_("Bo attaches the lantern to his wolf (attached, it needs no knowledge) and exhausts the wolf"),
         c.Attach(actor="bo", card="item-lantern", host="companion-wolf")),
        ("", c.Exhaust(actor="bo", cards=("companion-wolf",))),
        (_("Ana puts the sword on her table and reveals the bow in her hand"),
         c.Send(actor="ana", cards=("item-sword",), to="table:ana")),
        ("", c.Reveal(actor="ana", cards=("item-bow",))),
        (_("Ana discards the shield, buries the rope (bottom of the item deck) and exiles the bow"),
         c.Discard(actor="ana", cards=("item-shield",))),
        ("", c.Bury(actor="ana", cards=("item-rope",))),
        ("", c.Exile(actor="ana", cards=("item-bow",))),
        (_("A refused action: the event deck is empty and the depot has no event cards"),
         c.Draw(actor="bo", stack="deck:event")),
        (_("Another: Bo tries to move a card he cannot see (it is in Ana's hand)"),
         c.Send(actor="bo", cards=("skill-first-aid",), to="inventory:bo")),
        # -- trading with the discard pile, locations, battle, activation (§6, §8)
        (_("The village lets heroes trade items up to level 2 and skills up to level 1"),
         c.AddLocation(location="village", access={"item": 2, "skill": 1})),
        ("", c.Travel(actor="ana", hero="ana", location="village")),
        ("", c.Add(cards=("item-helm", "item-amulet"), to="discard")),
        (_("Refused: the helm is worth 6 and the axe only 4 (item price)"),
         c.Trade(actor="ana", hero="ana", take=("item-helm",), give=("item-axe",))),
        (_("Refused: the amulet is level 3 and the village's item access is 2"),
         c.Trade(actor="ana", hero="ana", take=("item-amulet",), give=("item-axe", "item-potion"))),
        (_("Refused: a skill cannot pay for an item (value types never mix)"),
         c.Trade(actor="ana", hero="ana", take=("item-helm",), give=("skill-first-aid", "item-axe"))),
        (_("A fair trade: axe (4) + potion (5) for the helm (6)"),
         c.Trade(actor="ana", hero="ana", take=("item-helm",), give=("item-axe", "item-potion"))),
        (_("The master takes the trade back (an undo is an action too: nothing is deleted)…"), c.Undo()),
        (_("…and, on second thought, puts it back"), c.Redo()),
        (_("A battle starts: every discard pile's access drops to 0"), c.StartBattle()),
        (_("Refused: no trading during battle"), c.Trade(actor="ana", hero="ana", take=("item-shield",), give=("item-helm",))),
        (_("…until an event in the scenario reopens the village's item access"),
         c.Add(cards=("event-festival",), to="scenario")),
        ("", c.SetAccess(location="village", suit="item", level=2, by="event-festival")),
        ("", c.Trade(actor="ana", hero="ana", take=("item-shield",), give=("item-helm",))),
        ("", c.EndBattle()),
        (_("Ana casts a fireball from her hand: its task keyword buries it instead of discarding it"),
         c.Add(cards=("skill-fireball",), to="inventory:ana")),
        ("", c.Activate(actor="ana", card="skill-fireball", target="goblin chief", action_points=2,
                        energies={"fire": 1})),
    ]


def run_demo(db: str | Path, out: Console) -> Ledger:
    from ..postgres import is_postgres, shown

    if is_postgres(db):  # a PostgreSQL schema: start() refuses one that holds a demo already
        path: Any = db
        named = shown(str(db))
    else:
        path = Path(db)
        _fresh(path)
        named = str(path)
    ledger = Ledger.open(path, create=True)
    rec = ledger.start(load_catalog(sample_catalog_path()), name="Demo: Campanha do Norte", slug=DEMO_SLUG)
    cid = rec.campaign.id
    out.print("[bold]ledger demo[/bold] — " + escape(_("a sample campaign in {file}").format(file=named)) + "\n",
              highlight=False)
    out.print("  [bold]seq 1[/bold]  " + ngettext("campaign started: {n} card in the box",
                                                  "campaign started: {n} cards in the box",
                                                  len(rec.campaign.catalog)).format(n=len(rec.campaign.catalog)),
              highlight=False)

    from projections.views import action_view

    for text, command in script():
        if text:
            out.print(f"\n[italic]{escape(text)}[/italic]", highlight=False)
        before = ledger.stored_event_count()
        try:
            done = ledger.execute(cid, command)
        except LedgerError as exc:
            after = ledger.stored_event_count()
            out.print(f"  [red]error:[/red] {escape(str(exc))}", highlight=False)
            appended = after - before  # always 0: a refusal appends nothing, and the demo shows it
            out.print("  " + (_("(refused: 0 events appended)") if appended == 0 else ngettext(
                "(refused: {n} event appended)", "(refused: {n} events appended)", appended).format(n=appended)),
                highlight=False)
            continue
        view = action_view(done.event, done.campaign, "referee")
        out.print(f"  [bold]seq {done.seq}[/bold]  {escape(view['summary'])}", highlight=False)

    from projections.readmodel import ReadModel
    from projections.render import render_compared

    model = ReadModel(ledger, path)
    model.catch_up()  # the read models (history, cards, zones tables) are ready to query
    model.close()
    from ..audit import verify

    report = verify(ledger, cid)
    # "verify", "ok" and "checkpoint" are the command's words (ledger verify, ledger checkpoint)
    out.print("\n[bold]verify[/bold]: " + ("ok" if report.ok else _("BROKEN")) + " — " + ngettext(
        "{n} action, hash chain intact, every action decided again under the rules gives back what was recorded",
        "{n} actions, hash chain intact, every action decided again under the rules gives back what was recorded",
        report.actions).format(n=report.actions), highlight=False)
    kept = ledger.checkpoint(cid)
    out.print(f"[bold]checkpoint[/bold] {kept.text}\n  " + _(
        "(every player may keep it: later, ledger verify --expect SEQ:HEAD fails if the record was cut short or "
        "rewritten)"), highlight=False)
    campaign = ledger.campaign(cid)
    out.print("\n[bold]" + _("The same moment as the referee, the public and Ana see it") + "[/bold]", highlight=False)
    render_compared(out, campaign, ["referee", "public", "ana"])
    quoted = escape(shlex.quote(named))
    tries = [
        ("zones", _("every zone, as the referee sees it")),
        ("--json zones", _("the same, as JSON")),
        ("zones --at 9", _("the table right after action 9")),
        ("--as public zones", _("what everyone at the table sees")),
        ("--as ana zones", _("what Ana's player sees")),
        ("history --limit 10", _("the latest actions; --as public hides what the table cannot see")),
        ("explain 27", _("why the trade at seq 27 was allowed, with the figures")),
        ("undo", _("take back the latest action (then: ledger redo)")),
        ("verify", _("check the whole record")),
        ("--as ana export", _("what Ana may know of the whole campaign, as JSON Lines")),
        ("card item-sword", _("one card: where it is, its states, the actions that touched it")),
        ("--actor ana draw deck:skill", ""),
        ("send item-sword --to table:ana", ""),
    ]
    at_the_table = [
        ("seat add master ana", _("a join link for the master and one for Ana")),
        ("serve", _("then open the links in a browser")),
    ]
    lines = ["", "[bold]" + _("Try next") + "[/bold]"]
    if language() != ENGLISH:  # the commands below speak English unless told otherwise
        # TRANSLATORS: shown only in a language other than English; {code} is its code (pt).
        keep = _("(to keep this language in the commands below, first: export LEDGER_LANG={code})")
        lines.append("  " + escape(keep.format(code=language())))
    lines += [f"  ledger --db {quoted} {what:<23}{escape(why)}".rstrip() for what, why in tries]
    lines += ["", "[bold]" + _("Play at the table") + "[/bold] " + escape(_("(each player on their own device)"))]
    lines += [f"  ledger --db {quoted} {what:<22}{escape(why)}".rstrip() for what, why in at_the_table]
    out.print("\n".join(lines) + "\n", highlight=False)
    return ledger
