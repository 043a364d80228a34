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
        raise StoreError(f"{path} exists and is not a demo campaign; the demo writes to a new file (use --db NEW.db)")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def script() -> list[tuple[str, c.Command]]:
    """The demo's actions, each with a line saying what it shows."""
    return [
        ("Two heroes sit down", c.AddHero(hero="ana", name="Ana", knowledge=1)),
        ("", c.AddHero(hero="bo", name="Bo", knowledge=0)),
        ("The master adds cards from the box to the campaign decks (the first named ends on top)",
         c.Add(cards=("item-sword", "item-bow", "item-rope", "item-shield", "item-lantern"), to="deck:item")),
        ("", c.Add(cards=("skill-dodge", "skill-stealth", "skill-first-aid", "skill-tracking"), to="deck:skill")),
        ("", c.Add(cards=("companion-wolf", "companion-falcon"), to="deck:companion")),
        ("", c.Add(cards=("class-warrior",), to="deck:class")),
        ("…and a few face-up cards to the depot, which refills empty decks",
         c.Add(cards=("item-axe", "item-torch", "item-potion"), to="depot")),
        ("The skill deck is shuffled (the new order is recorded: replay never re-randomises)",
         c.Shuffle(stack="deck:skill", seed=7)),
        ("Ana draws two items into her inventory", c.Draw(actor="ana", stack="deck:item", count=2)),
        ("Refused: Ana may not take back her draw — she has seen the cards, and undoing would give the deck "
         "back in the order she saw (only the master may, and the deck is then shuffled again)",
         c.Undo(actor="ana")),
        ("Bo draws a companion and puts it on his table", c.Draw(actor="bo", stack="deck:companion")),
        ("", c.Send(actor="bo", cards=("companion-wolf",), to="table:bo")),
        ("Ana draws the class card: a sheet card cannot be in an inventory, so it is discarded",
         c.Draw(actor="ana", stack="deck:class")),
        ("The lantern needs knowledge 2; sent to Bo's table (knowledge 0) it goes to his inventory",
         c.Send(cards=("item-lantern",), to="table:bo")),
        ("The master deals Ana four more items: the deck runs out and is refilled from the depot in the same "
         "action (the master may fix a seed, for a demo; a hero's shuffles take theirs from the system)",
         c.Draw(stack="deck:item", count=4, to="inventory:ana", seed=11)),
        ("Refused: a hero may not pick a seed (she could choose the order)",
         c.Shuffle(actor="ana", stack="deck:skill", seed=5)),
        ("An effect lets Ana search the skill deck for first aid; the master records it, and the deck is "
         "reshuffled after",
         c.Search(stack="deck:skill", take=("skill-first-aid",), to="inventory:ana", seed=3)),
        ("Bo attaches the lantern to his wolf (attached, it needs no knowledge) and exhausts the wolf",
         c.Attach(actor="bo", card="item-lantern", host="companion-wolf")),
        ("", c.Exhaust(actor="bo", cards=("companion-wolf",))),
        ("Ana puts the sword on her table and reveals the bow in her hand",
         c.Send(actor="ana", cards=("item-sword",), to="table:ana")),
        ("", c.Reveal(actor="ana", cards=("item-bow",))),
        ("Ana discards the shield, buries the rope (bottom of the item deck) and exiles the bow",
         c.Discard(actor="ana", cards=("item-shield",))),
        ("", c.Bury(actor="ana", cards=("item-rope",))),
        ("", c.Exile(actor="ana", cards=("item-bow",))),
        ("A refused action: the event deck is empty and the depot has no event cards",
         c.Draw(actor="bo", stack="deck:event")),
        ("Another: Bo tries to move a card he cannot see (it is in Ana's hand)",
         c.Send(actor="bo", cards=("skill-first-aid",), to="inventory:bo")),
        # -- trading with the discard pile, locations, battle, activation (§6, §8)
        ("The village lets heroes trade items up to level 2 and skills up to level 1",
         c.AddLocation(location="village", access={"item": 2, "skill": 1})),
        ("", c.Travel(actor="ana", hero="ana", location="village")),
        ("", c.Add(cards=("item-helm", "item-amulet"), to="discard")),
        ("Refused: the helm is worth 6 and the axe only 4 (item price)",
         c.Trade(actor="ana", hero="ana", take=("item-helm",), give=("item-axe",))),
        ("Refused: the amulet is level 3 and the village's item access is 2",
         c.Trade(actor="ana", hero="ana", take=("item-amulet",), give=("item-axe", "item-potion"))),
        ("Refused: a skill cannot pay for an item (value types never mix)",
         c.Trade(actor="ana", hero="ana", take=("item-helm",), give=("skill-first-aid", "item-axe"))),
        ("A fair trade: axe (4) + potion (5) for the helm (6)",
         c.Trade(actor="ana", hero="ana", take=("item-helm",), give=("item-axe", "item-potion"))),
        ("The master takes the trade back (an undo is an action too: nothing is deleted)…", c.Undo()),
        ("…and, on second thought, puts it back", c.Redo()),
        ("A battle starts: every discard pile's access drops to 0", c.StartBattle()),
        ("Refused: no trading during battle", c.Trade(actor="ana", hero="ana", take=("item-shield",), give=("item-helm",))),
        ("…until an event in the scenario reopens the village's item access",
         c.Add(cards=("event-festival",), to="scenario")),
        ("", c.SetAccess(location="village", suit="item", level=2, by="event-festival")),
        ("", c.Trade(actor="ana", hero="ana", take=("item-shield",), give=("item-helm",))),
        ("", c.EndBattle()),
        ("Ana casts a fireball from her hand: its task keyword buries it instead of discarding it",
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
    out.print(f"[bold]ledger demo[/bold] — a sample campaign in {escape(named)}\n", highlight=False)
    out.print(f"  [bold]seq 1[/bold]  campaign started: {len(rec.campaign.catalog)} cards in the box", highlight=False)

    from projections.views import action_view

    for text, command in script():
        if text:
            out.print(f"\n[italic]{text}[/italic]", highlight=False)
        before = ledger.stored_event_count()
        try:
            done = ledger.execute(cid, command)
        except LedgerError as exc:
            after = ledger.stored_event_count()
            out.print(f"  [red]error:[/red] {escape(str(exc))}", highlight=False)
            out.print(f"  (refused: {after - before} events appended)", highlight=False)
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
    out.print(f"\n[bold]verify[/bold]: {'ok' if report.ok else 'BROKEN'} — {report.actions} actions, hash chain "
              "intact, every action decided again under the rules gives back what was recorded", highlight=False)
    kept = ledger.checkpoint(cid)
    out.print(f"[bold]checkpoint[/bold] {kept.text}\n  (every player may keep it: later, ledger verify --expect "
              "SEQ:HEAD fails if the record was cut short or rewritten)", highlight=False)
    campaign = ledger.campaign(cid)
    out.print("\n[bold]The same moment as the referee, the public and Ana see it[/bold]", highlight=False)
    render_compared(out, campaign, ["referee", "public", "ana"])
    quoted = shlex.quote(named)
    out.print(
        "\n[bold]Try next[/bold]\n"
        f"  ledger --db {quoted} zones                  every zone, as the referee sees it\n"
        f"  ledger --db {quoted} --json zones           the same, as JSON\n"
        f"  ledger --db {quoted} zones --at 9           the table right after action 9\n"
        f"  ledger --db {quoted} --as public zones      what everyone at the table sees\n"
        f"  ledger --db {quoted} --as ana zones         what Ana's player sees\n"
        f"  ledger --db {quoted} history --limit 10     the latest actions; --as public hides what the table cannot see\n"
        f"  ledger --db {quoted} explain 27             why the trade at seq 27 was allowed, with the figures\n"
        f"  ledger --db {quoted} undo                   take back the latest action (then: ledger redo)\n"
        f"  ledger --db {quoted} verify                 check the whole record\n"
        f"  ledger --db {quoted} --as ana export        what Ana may know of the whole campaign, as JSON Lines\n"
        f"  ledger --db {quoted} card item-sword        one card: where it is, its states, the actions that touched it\n"
        f"  ledger --db {quoted} --actor ana draw deck:skill\n"
        f"  ledger --db {quoted} send item-sword --to table:ana\n"
        "\n[bold]Play at the table[/bold] (each player on their own device)\n"
        f"  ledger --db {quoted} seat add master ana   a join link for the master and one for Ana\n"
        f"  ledger --db {quoted} serve                 then open the links in a browser\n",
        highlight=False,
    )
    return ledger
