"""Human output: rich tables of what a viewer sees. The data comes from
``views.py``; this module only lays it out."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from ledger.campaign import Campaign


def card_label(entry: dict[str, Any]) -> str:
    if entry["id"] is None:
        return "[dim]▒ hidden[/dim]"
    label = entry["id"]
    if entry.get("face") == "down":
        label += " [dim](down)[/dim]"
    if entry.get("exhausted"):
        label += " [yellow](exhausted)[/yellow]"
    attached = entry.get("attached") or []
    if attached:
        label += " [cyan]+ " + ", ".join(a or "hidden" for a in attached) + "[/cyan]"
    return label


def render_zones(out: Console, view: dict[str, Any], campaign: Campaign) -> None:
    table = Table(
        title=f"{campaign.name} — after seq {view['seq']}, as {view['viewer']}",
        title_justify="left", show_lines=False, expand=False,
    )
    table.add_column("zone", style="bold", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("cards (decks: top first)")
    specs = campaign.zones()
    for zone_id, cards in view["zones"].items():
        spec = specs[zone_id]
        if spec.kind == "box":
            table.add_row(zone_id, str(len(cards)), "[dim]cards not yet in the campaign[/dim]")
            continue
        table.add_row(zone_id, str(len(cards)), ", ".join(card_label(c) for c in cards) or "[dim]—[/dim]")
    out.print(table)
