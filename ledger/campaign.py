"""The campaign aggregate: catalog, format and the table, rebuilt from its events.

One campaign is one aggregate; its version is the ``seq`` of its latest action.
It is rebuilt by ``project``: the start position from ``CampaignStarted`` (or a
snapshot), then each action's changes through the shared fold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from functools import singledispatch
from uuid import UUID

from .catalog import Card, Catalog
from .errors import UnknownHero, UnknownZone
from .events import ActionRecorded, CampaignSnapshot, CampaignStarted
from .fold import Table
from .formats import Format, ZoneSpec
from .i18n import _
from .integrity import GENESIS
from .snapshots import digest, state_of
from .vocabulary import Role, Zone


class Campaign:
    def __init__(
        self,
        id: UUID,
        version: int,
        created_on: datetime,
        modified_on: datetime,
        name: str,
        slug: str,
        catalog: Catalog,
        format: Format,
        table: Table,
    ):
        self.id = id
        self.version = version
        self.created_on = created_on
        self.modified_on = modified_on
        self.name = name
        self.slug = slug
        self.catalog = catalog
        self.format = format
        self.table = table
        self._zones: tuple[tuple[str, ...], dict[str, ZoneSpec]] | None = None
        # Log bookkeeping: the latest action still in force (undo follows each
        # action's prev_live link back from here), the undos a redo may take back
        # (latest last), and the hash the next action chains to.
        self.live_head: int | None = None
        self.redo_stack: list[int] = []
        self.last_hash: str = GENESIS
        # the newest rules an action folded here was decided under (a snapshot does not keep
        # it: ``Ledger._load`` reads its action's): a ledger knowing older rules records nothing
        self.rules = 0

    @property
    def seq(self) -> int:
        return self.version

    # -- zones ----------------------------------------------------------------
    def zones(self) -> dict[str, ZoneSpec]:
        heroes = tuple(self.table.heroes)
        if self._zones is None or self._zones[0] != heroes:
            self._zones = (heroes, self.format.zones(heroes))
        return self._zones[1]

    def zone(self, zone_id: str) -> ZoneSpec:
        Zone.parse(zone_id)  # a malformed id gets the syntax message
        spec = self.zones().get(zone_id)
        if spec is None:
            zone = Zone.parse(zone_id)
            if zone.role in (Role.TABLE, Role.INVENTORY, Role.EXTRA) and zone.args:
                raise UnknownHero(
                    _("{zone} is not a zone: there is no hero {hero} (heroes: {heroes})").format(
                        zone=zone_id, hero=repr(zone.args[0]), heroes=self._heroes_named())
                )
            raise UnknownZone(
                _("{zone} is not a zone of this campaign; zones are {zones} and table:/inventory:/extra: "
                  "of each hero").format(
                    zone=zone_id, zones=", ".join(z for z in self.zones() if ":" not in z or z.startswith("deck:")))
            )
        return spec

    def card(self, card_id: str) -> Card:
        return self.catalog[card_id]

    def check_hero(self, hero: str) -> str:
        if hero not in self.table.heroes:
            raise UnknownHero(
                _("no hero {hero} in this campaign (heroes: {heroes})").format(
                    hero=repr(hero), heroes=self._heroes_named())
            )
        return hero

    def _heroes_named(self) -> str:
        """The campaign's heroes, for a refusal that names a hero it does not have."""
        return ", ".join(self.table.heroes) or _("none yet; add one with hero add")

    def zone_of(self, card_id: str) -> ZoneSpec:
        return self.zones()[self.table.zone_of(card_id)]

    def record(self, event: ActionRecorded) -> None:
        """Moves the bookkeeping past an action whose changes are already applied."""
        self.version = event.originator_version
        self.modified_on = event.timestamp
        self.last_hash = event.hash or self.last_hash
        self.rules = max(self.rules, event.ruleset)
        event.keep_books(self)

    def copy(self) -> Campaign:
        """An independent copy (the catalog and format, which never change, shared):
        a reader may step it back and forth without touching the live campaign."""
        twin = Campaign(self.id, self.version, self.created_on, self.modified_on, self.name, self.slug,
                        self.catalog, self.format, self.table.copy())
        twin.live_head, twin.redo_stack, twin.last_hash = self.live_head, list(self.redo_stack), self.last_hash
        twin.rules = self.rules
        return twin

    def snapshot(self) -> dict:
        """The state a snapshot stores: the table and the bookkeeping, the head hash it
        was taken at, and the digest of its state (``ledger.snapshots``)."""
        state = {"name": self.name, "slug": self.slug,
                 **state_of(self.table, self.live_head, self.redo_stack), "last_hash": self.last_hash}
        state["digest"] = digest(state)
        return state


CatalogLoader = Callable[[UUID], tuple[Catalog, Format, str, str]]  # what the start says: catalog, format, name, slug


@singledispatch
def _fold_event(event: object, campaign: Campaign | None, load_catalog: CatalogLoader) -> Campaign | None:
    """One stored event folded into the campaign (unknown kinds change nothing)."""
    return campaign


@_fold_event.register
def _fold_started(event: CampaignStarted, campaign: Campaign | None, load_catalog: CatalogLoader) -> Campaign:
    catalog = Catalog(event.catalog)
    started = Campaign(
        id=event.originator_id, version=event.originator_version, created_on=event.timestamp,
        modified_on=event.timestamp, name=event.name, slug=event.slug, catalog=catalog,
        format=event.format, table=Table.new(catalog.ids()),
    )
    started.table.apply_all(event.changes)
    started.record(event)
    return started


@_fold_event.register
def _fold_snapshot(event: CampaignSnapshot, campaign: Campaign | None, load_catalog: CatalogLoader) -> Campaign:
    catalog, fmt, name, slug = load_catalog(event.originator_id)
    restored = Campaign(
        id=event.originator_id, version=event.originator_version, created_on=event.timestamp,
        modified_on=event.timestamp, name=name, slug=slug,
        catalog=catalog, format=fmt, table=Table.from_dict(event.state["table"]),
    )
    restored.live_head = event.state.get("live_head")
    restored.redo_stack = list(event.state.get("redo_stack", []))
    restored.last_hash = event.state.get("last_hash", GENESIS)
    return restored


@_fold_event.register
def _fold_action(event: ActionRecorded, campaign: Campaign | None, load_catalog: CatalogLoader) -> Campaign | None:
    if campaign is not None:
        campaign.table.apply_all(event.changes)
        campaign.record(event)
    return campaign


def make_projector(load_catalog: CatalogLoader):
    """The projector eventsourcing's repository calls: snapshot or start, then the fold.

    Snapshots leave out the catalog and format (they never change); they are read
    once from the campaign's first event through ``load_catalog``, with the campaign's
    name and slug, which never change either: a snapshot's own copy of those is not
    covered by its digest, so it is not believed (a forged name would show everywhere).
    """

    def project(campaign: Campaign | None, events: Iterable[object]) -> Campaign | None:
        for event in events:
            campaign = _fold_event(event, campaign, load_catalog)
        return campaign

    return project
