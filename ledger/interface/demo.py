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
DEMO_NAME = "Demo: Campanha do Norte"
DEMO_ACTIONS = 35
"""How many of the script's commands the demo records (the others are refused on purpose);
a test checks it against a run."""


def _fresh(path: Path) -> None:
    """Make room for the demo at ``path``: remove a file there only when it holds an
    untouched demo that the demo itself wrote (``_untouched_demo``); refuse anything else
    with one line naming the file and the way on, touching nothing."""
    if not path.exists():
        return
    try:
        old = Ledger.open(path)
    except LedgerError:
        untouched = None  # not a campaign database this ledger can read: surely not its demo
    else:
        try:
            untouched = _untouched_demo(old)
        except LedgerError:
            untouched = None
        finally:
            old.close()
    if untouched is None:
        raise StoreError(_("{path} holds something other than the demo's own campaign, and the demo replaces only "
                           "a demo it wrote itself: remove {path} or pick another file with --db NEW.db")
                         .format(path=path))
    if not untouched:
        raise StoreError(_("{path} holds a demo campaign played on since (actions, seats or checkpoints added "
                           "after the demo) or cut short, which the demo will not replace: keep it and pick another "
                           "file with --db NEW.db, or remove {path} to start the demo again").format(path=path))
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def _untouched_demo(ledger: Ledger) -> bool | None:
    """Does this database hold exactly a demo that ``run_demo`` wrote and nothing else?

    ``None``: it holds no demo campaign at all (other campaigns, or a campaign with
    another slug or name). ``False``: a demo campaign, touched since. ``True`` only when
    all of these hold:

    * its only campaign is the demo's (slug ``demo`` and the demo's name: a campaign
      someone started with ``ledger init --name Demo`` has another name);
    * the log holds nothing but that campaign's registration and its actions (no seat
      opened, no checkpoint kept, no other campaign: each of those is an event too);
    * it holds exactly the ``DEMO_ACTIONS`` actions a whole demo records, and each is the
      command the demo's script gives next, in order (the script's refused commands
      recorded nothing, so they are skipped). The commands are stored in their actions
      exactly as asked, seeds included, and the script names no language, so a demo in
      any language matches.

    A player's action recorded after the demo (an undo too: it is an action) makes one
    action too many. A demo cut short (a crash, Ctrl-C) is not taken for untouched
    either: a player may have played on in it with commands that happen to come later in
    the script, so it is refused like a demo played on, and the message says to remove
    the file."""
    entries = ledger.campaigns()
    if [(e.slug, e.name) for e in entries] != [(DEMO_SLUG, DEMO_NAME)]:
        return None
    cid = entries[0].campaign_id
    planned = [command.to_record() for _text, command in script()]
    seq = ledger.last_seq(cid)
    if seq != DEMO_ACTIONS + 1 or ledger.stored_event_count() != seq + 1:
        return False  # checked first, so that a long campaign is never read in full
    remaining = iter(planned)
    # ``any`` consumes the script up to the command matched: the next action must match a later one
    return all(any(getattr(action, "command", None) == command for command in remaining)
               for action in ledger.actions(cid, gt=1))


def script() -> list[tuple[str, c.Command]]:
    """The demo's actions, each with a line saying what it shows (in the language spoken)."""
    return [
        (_("Two heroes sit down"), c.AddHero(hero="ana", name="Ana", knowledge=1)),
        ("", c.AddHero(hero="bo", name="Bo", knowledge=0)),
        (_("The master adds cards from the box to the campaign decks (the first named ends on top; the record "
           "lists them by id, so that it does not tell the order)"),
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
    """Play the demo into ``db``, narrated on ``out``; the ledger, still open."""
    return play_demo(db, out)[0]


def _refuse_cut_log(ledger: Ledger, path: Any) -> None:
    from projections.readmodel import ReadModel

    model = ReadModel(ledger, path)
    try:
        model.refuse_cut_log()
    except BaseException:
        ledger.close()
        raise
    finally:
        model.close()


def play_demo(db: str | Path, out: Console) -> tuple[Ledger, dict[str, Any]]:
    """``run_demo``, also giving what ``ledger --json demo`` reports: the file, the
    campaign, its seq, how many of the script's actions were recorded and refused, the
    verdict of ``verify`` and the checkpoint."""
    from ..postgres import is_postgres, shown

    if is_postgres(db):  # a PostgreSQL schema: start() refuses one that holds a demo already
        path: Any = db
        named = shown(str(db))
    else:
        path = Path(db)
        _fresh(path)
        named = str(path)
    ledger = Ledger.open(path, create=True)
    if is_postgres(db):  # a schema whose log lost a demo the read models recorded: not played over
        _refuse_cut_log(ledger, path)
    rec = ledger.start(load_catalog(sample_catalog_path()), name=DEMO_NAME, slug=DEMO_SLUG)
    cid = rec.campaign.id
    out.print("[bold]ledger demo[/bold] — " + escape(_("a sample campaign in {file}").format(file=named)) + "\n",
              highlight=False)
    out.print("  [bold]seq 1[/bold]  " + ngettext("campaign started: {n} card in the box",
                                                  "campaign started: {n} cards in the box",
                                                  len(rec.campaign.catalog)).format(n=len(rec.campaign.catalog)),
              highlight=False)

    from projections.views import action_view

    recorded = refused = 0
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
            refused += 1
            continue
        recorded += 1
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
        ("--actor ana draw deck:skill", _("Ana draws a card")),
        ("--actor ana send item-shield --to table:ana", _("and plays her shield onto her table")),
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
    lines += [f"  ledger --db {quoted} {what}{' ' * max(2, 23 - len(what))}{escape(why)}".rstrip()
              for what, why in tries]
    lines += ["", "[bold]" + _("Play at the table") + "[/bold] " + escape(_("(each player on their own device)"))]
    lines += [f"  ledger --db {quoted} {what:<22}{escape(why)}".rstrip() for what, why in at_the_table]
    out.print("\n".join(lines) + "\n", highlight=False)
    facts = {"db": named, "campaign": DEMO_SLUG, "seq": campaign.seq, "recorded": recorded, "refused": refused,
             "verify": "ok" if report.ok else "broken", "checkpoint": kept.as_dict()}
    return ledger, facts
