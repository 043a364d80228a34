"""Human output: rich tables of what a viewer sees. The data comes from
``views.py``; this module only lays it out."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ledger.campaign import Campaign


def card_label(entry: dict[str, Any]) -> str:
    if entry["id"] is None:
        return "[dim]▒ hidden[/dim]"
    label = escape(entry["id"])
    if entry.get("face") == "down":
        label += " [dim](down)[/dim]"
    if entry.get("exhausted"):
        label += " [yellow](exhausted)[/yellow]"
    attached = entry.get("attached") or []
    if attached:
        label += " [cyan]+ " + escape(", ".join(a or "hidden" for a in attached)) + "[/cyan]"
    return label


def render_zones(out: Console, view: dict[str, Any], campaign: Campaign) -> None:
    table = Table(
        title=escape(f"{campaign.name} — after seq {view['seq']}, as {view['viewer']}"),
        title_justify="left", show_lines=False, expand=False,
    )
    table.add_column("zone", style="bold", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("cards (decks: top first)")
    specs = campaign.zones()
    for zone_id, cards in view["zones"].items():
        spec = specs[zone_id]
        if spec.kind == "box":
            table.add_row(escape(zone_id), str(len(cards)), "[dim]cards not yet in the campaign[/dim]")
            continue
        table.add_row(escape(zone_id), str(len(cards)), ", ".join(card_label(c) for c in cards) or "[dim]—[/dim]")
    out.print(table)


def render_card(out: Console, view: dict[str, Any]) -> None:
    head = f"[bold]{escape(view['id'])}[/bold] " + escape(f"({view['suit']}, {view['name']}) after seq {view['seq']}")
    out.print(head, highlight=False)
    if view.get("hidden"):
        out.print("  hidden from this viewer now: its place is not shown", highlight=False)
    else:
        place = f"  in {view['zone']}, position {view['position'] + 1}, face-{view['face']}"
        if view["attached_to"]:
            place += f", attached to {view['attached_to']}"
        out.print(place, highlight=False, markup=False)
        if view["attached"]:
            out.print("  carries " + ", ".join(a or "a hidden card" for a in view["attached"]), highlight=False,
                      markup=False)
        out.print("  states: " + ", ".join(view["states"]), highlight=False, markup=False)
        if "affects" in view:
            out.print("  its effects reach: " + (", ".join(view["affects"]) or "no hero"), highlight=False,
                      markup=False)
    out.print("  actions: " + (", ".join(map(str, view["history"])) or "none"), highlight=False, markup=False)


def render_history(out: Console, rows: list[dict[str, Any]], campaign: Campaign, viewer: str) -> None:
    table = Table(title=escape(f"{campaign.name} — history as {viewer}"), title_justify="left")
    table.add_column("seq", justify="right", style="bold")
    table.add_column("time", no_wrap=True)
    table.add_column("actor")
    table.add_column("what happened")
    for row in rows:
        what = escape(row["summary"])
        if row.get("undone_by"):
            what = f"[strike]{what}[/strike] [dim](undone by {row['undone_by']})[/dim]"
        table.add_row(str(row["seq"]), row["time"][:19].replace("T", " "), escape(row["actor"]), what)
    out.print(table)


def render_explain(out: Console, view: dict[str, Any]) -> None:
    out.print(f"[bold]seq {view['seq']}[/bold]  " + escape(f"{view['action']} by {view['actor']} at "
                                                        f"{view['time'][:19].replace('T', ' ')}"), highlight=False)
    out.print(f"  {view['summary']}", highlight=False, markup=False)
    for item in view["checks"]:
        out.print(f"  [cyan]{escape(item['rule'])}[/cyan]: {escape(item['detail'])}", highlight=False)


def render_compared(out: Console, campaign: Campaign, viewers: list[str]) -> None:
    """The same moment side by side, as several viewers see it (non-empty zones)."""
    from .views import zones_view

    views = {v: zones_view(campaign, v)["zones"] for v in viewers}
    table = Table(title=f"after seq {campaign.seq}, side by side", title_justify="left")
    table.add_column("zone", style="bold", no_wrap=True)
    for viewer in viewers:
        table.add_column(f"as {viewer}")
    for zone_id in campaign.zones():
        if zone_id == "box" or not views[viewers[0]][zone_id]:
            continue
        table.add_row(escape(zone_id), *(", ".join(card_label(c) for c in views[v][zone_id]) for v in viewers))
    out.print(table)
