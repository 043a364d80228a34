"""Human output: rich tables of what a viewer sees. The data comes from
``views.py``; this module only lays it out, in the language being spoken.

Ids stay what the players type (``deck:item``, ``item-sword``, ``ana``). In English the
ids are their own words, so the output shows them alone; in another language a zone,
a suit or a card state is shown in that language's words too (``ledger.terms``):
"Baralho de Item (deck:item)", "Habilidade", "Ativa". A card's name is the one in the
language being spoken (``Card.shown_name``, given by the view)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape as markup_escape
from rich.table import Table

from ledger.campaign import Campaign
from ledger.i18n import ENGLISH, _, language, ngettext, pgettext
from ledger.terms import action_name, state_name, suit_name, suit_word, zone_name
from ledger.texts import escaped
from ledger.vocabulary import Suit

from .summaries import HIDDEN_NAME


def escape(text: str) -> str:
    """``text`` escaped for rich markup, any character in it that is not printable written
    as its code (``ledger.texts.escaped``): what the table recorded never drives a terminal."""
    return markup_escape(escaped(text))


def _in_words(code: str, words: str) -> str:
    """``code`` in English (where the ids are the words), else ``words``."""
    return code if language() == ENGLISH else words


def zone_label(zone: str, *, markup: bool = True) -> str:
    """A zone as a person reads it: its id, after its display name in a language other
    than English ("Baralho de Item (deck:item)"); escaped for rich markup with ``markup``."""
    shown = zone if language() == ENGLISH else zone_name(zone)
    if shown == zone:
        return escape(zone) if markup else zone
    if markup:
        return f"{escape(shown)} [dim]({escape(zone)})[/dim]"
    return f"{shown} ({zone})"


def card_label(entry: dict[str, Any]) -> str:
    if entry["id"] is None:
        # TRANSLATORS: a card the viewer may not identify, in a zone's list of cards.
        label = "[dim]▒ " + escape(pgettext("a card", "hidden")) + "[/dim]"
    else:
        label = escape(entry["id"])
    if entry["id"] is not None and entry.get("face") == "down":
        label += " [dim]" + escape(_("(down)")) + "[/dim]"
    if entry.get("exhausted"):
        label += " [yellow]" + escape(_("(exhausted)")) + "[/yellow]"
    attached = entry.get("attached") or []
    if attached:
        label += " [cyan]+ " + escape(", ".join(a or pgettext("a card", "hidden") for a in attached)) + "[/cyan]"
    return label


def render_zones(out: Console, view: dict[str, Any], campaign: Campaign) -> None:
    table = Table(
        title=escape(_("{campaign} — after seq {seq}, as {viewer}").format(
            campaign=campaign.name, seq=view["seq"], viewer=view["viewer"])),
        title_justify="left", show_lines=False, expand=False,
    )
    table.add_column(_("zone"), style="bold", no_wrap=True)
    # TRANSLATORS: the column of how many cards a zone holds (a short heading).
    table.add_column(pgettext("how many cards", "n"), justify="right")
    table.add_column(_("cards (decks: top first)"), overflow="fold")  # an id broken, never cut short
    specs = campaign.zones()
    for zone_id, cards in view["zones"].items():
        spec = specs[zone_id]
        if spec.kind == "box":
            box = escape(_("cards not yet in the campaign"))
            table.add_row(zone_label(zone_id), str(len(cards)), f"[dim]{box}[/dim]")
            continue
        table.add_row(zone_label(zone_id), str(len(cards)), ", ".join(card_label(c) for c in cards) or "[dim]—[/dim]")
    out.print(table)
    render_table_facts(out, view)


def render_table_facts(out: Console, view: dict[str, Any]) -> None:
    """Under the zones: each hero's name, knowledge and location, each location's access
    levels (an effect's level in its place, "by CARD", or "by a hidden card"; a lapsed one
    said so), and a battle, when on: where a hero stands decides what they may trade."""
    def say(text: str) -> None:
        out.print(text, highlight=False, markup=False)

    for hero, facts in view.get("heroes", {}).items():
        where = (_("at {place}").format(place=facts["location"]) if facts["location"] is not None
                 else _("at no location"))
        say(_("hero {hero} ({name}): knowledge {level}, {where}").format(
            hero=hero, name=escaped(facts["name"]), level=facts["knowledge"], where=where))
    for place, facts in view.get("locations", {}).items():
        levels = []
        for suit in sorted(set(facts["access"]) | set(facts["effects"]), key=_SUIT_ORDER.get):
            effect = facts["effects"].get(suit)
            if effect is None:
                levels.append(f"{_suit(suit)} {facts['access'][suit]}")
                continue
            by = effect["by"] if effect["by"] is not None else _(HIDDEN_NAME)
            said = (_("{suit} {level} (by {card})") if effect["in_force"]
                    else _("{suit} {base} (the {level} by {card} has lapsed)"))
            levels.append(said.format(suit=_suit(suit), level=effect["level"], card=by,
                                      base=facts["access"].get(suit, 0)))
        say(_("location {place}: {levels}").format(place=place, levels=", ".join(levels) or _("no access")))
    if view.get("battle"):
        say(_("a battle is on: no trading with a discard pile unless an effect opens it"))


_SUIT_ORDER = {str(suit): rank for rank, suit in enumerate(Suit)}  # the rulebook's order of the suits


def _suit(suit: str) -> str:
    return _in_words(suit, suit_word(suit))


def render_card(out: Console, view: dict[str, Any]) -> None:
    suit = _in_words(view["suit"], suit_name(view["suit"]))
    head = f"[bold]{escape(view['id'])}[/bold] " + escape(_("({suit}, {name}) after seq {seq}").format(
        suit=suit, name=view["name"], seq=view["seq"]))
    out.print(head, highlight=False)
    if view.get("hidden"):
        out.print(_("  hidden from this viewer after seq {seq}: its place is not shown").format(seq=view["seq"]),
                  highlight=False, markup=False)
    else:
        face = _("face-up") if view["face"] == "up" else _("face-down") if view["face"] == "down" else view["face"]
        place = _("  in {zone}, position {position}, {face}").format(
            zone=zone_label(view["zone"], markup=False), position=view["position"] + 1, face=face)
        if view["attached_to"]:
            place += _(", attached to {host}").format(host=view["attached_to"])
        out.print(place, highlight=False, markup=False)
        if view["attached"]:
            out.print(_("  carries {cards}").format(cards=", ".join(a or _(HIDDEN_NAME) for a in view["attached"])),
                      highlight=False, markup=False)
        states = ", ".join(_in_words(s, state_name(s)) for s in view["states"])
        out.print(_("  states: {states}").format(states=states), highlight=False, markup=False)
        if "affects" in view:
            out.print(_("  its effects reach: {heroes}").format(heroes=", ".join(view["affects"]) or _("no hero")),
                      highlight=False, markup=False)
    seqs = ", ".join(map(str, view["history"])) or pgettext("no actions", "none")
    out.print(_("  actions: {seqs}").format(seqs=seqs), highlight=False, markup=False)


def render_history(out: Console, rows: list[dict[str, Any]], campaign: Campaign, viewer: str) -> None:
    table = Table(title=escape(_("{campaign} — history as {viewer}").format(campaign=campaign.name, viewer=viewer)),
                  title_justify="left")
    table.add_column(_("seq"), justify="right", style="bold")
    table.add_column(_("time (UTC)"), no_wrap=True)
    table.add_column(_("actor"))
    table.add_column(_("what happened"))
    for row in rows:
        what = escape(row["summary"])
        if row.get("undone_by"):
            undone = escape(_("(undone by {seq})").format(seq=row["undone_by"]))
            what = f"[strike]{what}[/strike] [dim]{undone}[/dim]"
        table.add_row(str(row["seq"]), row["time"][:19].replace("T", " "), escape(row["actor"]), what)
    out.print(table)


def render_catalog(out: Console, rows: list[dict[str, Any]], campaign: str, in_box: bool) -> None:
    """One line a card: its id (what commands name, never cut), its name, and the rest."""
    title = _("{campaign} — cards in the box") if in_box else _("{campaign} — the catalog")
    table = Table(title=escape(title.format(campaign=campaign)), title_justify="left")
    table.add_column(_("card"), no_wrap=True)
    table.add_column(_("name"), min_width=10)
    table.add_column(_("details"))
    for row in rows:
        facts = [suit_name(row["suit"]), _("level {level}").format(level=row["level"])]
        if row["value"] is not None:
            facts += [_("value {value}").format(value=row["value"]),
                      _("knowledge {knowledge}").format(knowledge=row["knowledge"])]
        facts += row["effects"] + ([_("task {task}").format(task=row["task"])] if row["task"] else [])
        table.add_row(escape(row["id"]), escape(row["name"]), escape(" · ".join(facts)))
    out.print(table)
    out.print(escape(ngettext("{n} card", "{n} cards", len(rows)).format(n=len(rows))), highlight=False)


def render_explain(out: Console, view: dict[str, Any]) -> None:
    seq = escape(_("seq {seq}").format(seq=view["seq"]))
    # TRANSLATORS: {action} is the action's name (translated with the context "action": "draw", "trade"...).
    out.print(f"[bold]{seq}[/bold]  " + escape(_("{action} by {actor} at {time} UTC").format(
        action=action_name(view["action"]), actor=view["actor"], time=view["time"][:19].replace("T", " "))),
        highlight=False)
    out.print(f"  {escaped(view['summary'])}", highlight=False, markup=False)
    if view.get("older_rules"):  # its checks read as its rules did
        out.print(f"  [dim]{escape(view['older_rules'])}[/dim]", highlight=False)
    for item in view["checks"]:  # the rule as the language spoken names it (``rule``: in English)
        label = item.get("label", item["rule"])
        out.print(f"  [cyan]{escape(label)}[/cyan]: {escape(item['detail'])}", highlight=False)


def render_compared(out: Console, campaign: Campaign, viewers: list[str]) -> None:
    """The same moment side by side, as several viewers see it (non-empty zones)."""
    from .views import zones_view

    views = {v: zones_view(campaign, v)["zones"] for v in viewers}
    table = Table(title=escape(_("after seq {seq}, side by side").format(seq=campaign.seq)), title_justify="left")
    table.add_column(_("zone"), style="bold")  # wrapped, never cut: narrow terminals, longer languages
    for viewer in viewers:
        table.add_column(escape(_("as {viewer}").format(viewer=viewer)), overflow="fold")
    for zone_id in campaign.zones():
        if zone_id == "box" or not views[viewers[0]][zone_id]:
            continue
        table.add_row(zone_label(zone_id), *(", ".join(card_label(c) for c in views[v][zone_id]) for v in viewers))
    out.print(table)
