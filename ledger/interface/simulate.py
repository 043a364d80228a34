"""``ledger simulate``: random legal play through the real command path.

Each step looks at the campaign as it stands, picks an action a player or the master
could take (draw, send, discard, bury, exile, shuffle, search, reveal/hide,
exhaust/restore, attach, trade, travel, battle, undo, redo…), and records it with
``Ledger.execute`` — the same path as the ``ledger`` command. A choice the rules
refuse is simply not recorded (and counted). Every random choice, including the
seeds of shuffles and refills, comes from one generator, so the same seed gives the
same campaign. It is the workload of the benchmark and of long property tests.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from uuid import UUID

from .. import commands as c
from ..application import Ledger
from ..campaign import Campaign
from ..catalog import Catalog, load_catalog, sample_catalog_path
from ..errors import LedgerError
from ..vocabulary import MASTER, Role, Suit, Zone

LOCATIONS = {
    "village": {"item": 2, "skill": 2, "companion": 1, "event": 1},
    "city": {"item": 3, "skill": 3, "companion": 3, "event": 2},
    "wilds": {"item": 1, "companion": 2},
}


@dataclass
class Stats:
    recorded: int = 0
    refused: int = 0
    by_action: dict[str, int] = field(default_factory=dict)


SIMULATION_SLUG = "simulation"


def start_simulation(ledger: Ledger, heroes: int = 3, seed: int = 0, catalog: Catalog | None = None,
                     slug: str = SIMULATION_SLUG) -> UUID:
    """A campaign ready for random play: heroes, locations, every card in a deck."""
    rec = ledger.start(catalog or load_catalog(sample_catalog_path()), name="Simulated campaign", slug=slug)
    return finish_setup(ledger, rec.campaign.id, heroes, seed)


def finish_setup(ledger: Ledger, cid: UUID, heroes: int = 3, seed: int = 0) -> UUID:
    """Records whatever part of a simulated campaign's setup is missing (all of it for a
    new campaign; the rest of it for one whose setup was interrupted)."""
    rng = random.Random(seed)
    for i in range(heroes):
        knowledge = rng.randint(0, 3)
        if f"hero{i + 1}" not in ledger.campaign(cid).table.heroes:
            ledger.execute(cid, c.AddHero(hero=f"hero{i + 1}", knowledge=knowledge))
    for name, access in LOCATIONS.items():
        if name not in ledger.campaign(cid).table.locations:
            ledger.execute(cid, c.AddLocation(location=name, access=access))
    for suit in Suit:
        campaign = ledger.campaign(cid)
        boxed = tuple(x for x in campaign.table.cards_in("box") if campaign.card(x).suit == suit)
        shuffle_seed = rng.randrange(2**31)
        if boxed:
            ledger.execute(cid, c.Add(cards=boxed, to=Zone.deck(suit)))
            if len(ledger.campaign(cid).table.cards_in(Zone.deck(suit))) > 1:
                ledger.execute(cid, c.Shuffle(stack=Zone.deck(suit), seed=shuffle_seed))
    for hero, info in ledger.campaign(cid).table.heroes.items():
        if info.location is None:
            ledger.execute(cid, c.Travel(actor=hero, hero=hero, location="village"))
    return cid


def simulate(ledger: Ledger, cid: UUID, actions: int, seed: int = 0,
             progress: Callable[[int], None] | None = None) -> Stats:
    """Records ``actions`` random legal actions (refused choices are not counted)."""
    rng = random.Random(seed)
    stats = Stats()
    attempts = 0
    campaign = ledger.campaign(cid)
    while stats.recorded < actions:
        attempts += 1
        if attempts > actions * 20 + 1000:
            raise LedgerError("the simulation found no legal action to take")
        kind, command = _choose(campaign, rng)
        if command is None:
            continue
        try:
            # the campaign a command returns is the live one: no need to load it again
            campaign = ledger.execute(cid, command).campaign
        except LedgerError:
            stats.refused += 1
            continue
        stats.recorded += 1
        stats.by_action[kind] = stats.by_action.get(kind, 0) + 1
        if progress is not None:
            progress(stats.recorded)
    return stats


WEIGHTS = {
    "draw": 14, "send": 10, "discard": 10, "bury": 5, "exile": 1, "unexile": 1, "shuffle": 4,
    "search": 3, "reveal": 5, "hide": 4, "exhaust": 5, "restore": 5, "attach": 3, "detach": 2,
    "trade": 6, "travel": 2, "battle": 1, "depot": 6, "undo": 4, "redo": 2,
}
KINDS = list(WEIGHTS)
CUMULATIVE = [WEIGHTS[k] for k in KINDS]


def _choose(campaign: Campaign, rng: random.Random) -> tuple[str, c.Command | None]:
    kind = rng.choices(KINDS, CUMULATIVE)[0]
    table = campaign.table
    heroes = list(table.heroes)
    if not heroes:
        return kind, None
    hero = rng.choice(heroes)
    hand = table.cards_in(Zone.inventory(hero))
    mat = table.cards_in(Zone.table(hero))
    seed = rng.randrange(2**31)

    def pick(cards: list[str]) -> str | None:
        return rng.choice(cards) if cards else None

    if kind == "draw":
        decks = [z for z in campaign.zones() if Zone.parse(z).role == Role.DECK]
        # Recorded by the master for the hero, so the refill's seed (the master's to fix)
        # keeps the simulation reproducible; a hero's own draws take the system's seed.
        return kind, c.Draw(stack=rng.choice(decks), count=rng.choice((1, 1, 1, 2)), to=Zone.inventory(hero),
                            seed=seed)
    if kind == "send":
        card = pick(hand)
        return kind, card and c.Send(actor=hero, cards=(card,), to=rng.choice((Zone.table(hero), Zone.extra(hero))))
    if kind == "discard":
        card = pick(hand + mat)
        return kind, card and c.Discard(actor=hero, cards=(card,))
    if kind == "bury":
        card = pick(table.cards_in(Zone.DISCARD))
        return kind, card and c.Bury(cards=(card,))
    if kind == "exile":
        card = pick(table.cards_in(Zone.DISCARD))
        return kind, card and c.Exile(cards=(card,))
    if kind == "unexile":
        card = pick(table.cards_in(Zone.LIMBO))
        return kind, card and c.Send(cards=(card,), to=Zone.DEPOT)
    if kind == "depot":
        card = pick(table.cards_in(Zone.DISCARD))
        return kind, card and c.Send(cards=(card,), to=Zone.DEPOT)
    if kind == "shuffle":
        decks = [z for z in campaign.zones() if Zone.parse(z).role == Role.DECK and len(table.cards_in(z)) > 1]
        return kind, decks and c.Shuffle(stack=rng.choice(decks), seed=seed) or None
    if kind == "search":
        decks = [z for z in campaign.zones() if Zone.parse(z).role == Role.DECK and table.cards_in(z)]
        if not decks:
            return kind, None
        deck = rng.choice(decks)
        return kind, c.Search(stack=deck, take=(rng.choice(table.cards_in(deck)),), to=Zone.inventory(hero), seed=seed)
    if kind in ("reveal", "hide"):
        card = pick([x for x in hand if (table.face(x) == "down") == (kind == "reveal")])
        return kind, card and (c.Reveal if kind == "reveal" else c.Hide)(actor=hero, cards=(card,))
    if kind in ("exhaust", "restore"):
        card = pick([x for x in mat if (x in table.exhausted) == (kind == "restore")])
        return kind, card and (c.Exhaust if kind == "exhaust" else c.Restore)(actor=hero, cards=(card,))
    if kind == "attach":
        card, host = pick(hand), pick(mat)
        return kind, card and host and c.Attach(actor=hero, card=card, host=host) or None
    if kind == "detach":
        attached = [x for host in mat for x in table.attached(host)]
        card = pick(attached)
        return kind, card and c.Detach(actor=hero, card=card)
    if kind == "trade":
        return kind, _trade(campaign, hero, rng)
    if kind == "travel":
        here = table.heroes[hero].location
        return kind, c.Travel(actor=hero, hero=hero, location=rng.choice([x for x in LOCATIONS if x != here]))
    if kind == "battle":
        return kind, c.EndBattle() if table.battle else c.StartBattle()
    if kind == "undo":
        return kind, c.Undo(actor=MASTER, seed=seed)
    return kind, c.Redo(actor=MASTER)


def _trade(campaign: Campaign, hero: str, rng: random.Random) -> c.Command | None:
    """Take one discard card the hero's location admits, paying with same-type cards."""
    table = campaign.table
    location = table.heroes[hero].location
    if location is None or table.battle:
        return None
    access = table.locations[location].access
    options = [x for x in table.cards_in(Zone.DISCARD)
               if campaign.card(x).suit.is_asset and 0 < campaign.card(x).level <= access.get(str(campaign.card(x).suit), 0)]
    if not options:
        return None
    take = rng.choice(options)
    vtype = campaign.format.value_type(campaign.card(take).suit)
    need = campaign.card(take).value or 0
    give: list[str] = []
    owned = table.cards_in(Zone.inventory(hero)) + table.cards_in(Zone.table(hero))
    for card in rng.sample(owned, len(owned)):
        if need <= 0:
            break
        data = campaign.card(card)
        if data.suit.is_asset and campaign.format.value_type(data.suit) == vtype and not table.attached(card):
            give.append(card)
            need -= data.value or 0
    if need > 0:
        return None
    return c.Trade(actor=hero, hero=hero, take=(take,), give=tuple(give))
