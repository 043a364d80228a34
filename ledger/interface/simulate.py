"""``ledger simulate``: random legal play through the real command path.

Each step looks at the campaign as it stands, picks an action a player or the master
could take (draw, send, discard, bury, exile, shuffle, search, reveal/hide,
exhaust/restore, attach, trade, travel, battle, undo, redo…), and records it with
``Ledger.execute`` — the same path as the ``ledger`` command. A choice the rules
refuse is simply not recorded (and counted). Every random choice, including the
seeds of shuffles and refills, comes from one generator, so the same seed gives the
same campaign. It is the workload of the benchmark and of long property tests.

The play keeps a campaign going as a real one does, so that a long run looks like
play rather than a campaign drained of cards: the master keeps the level-3 cards in
the box at setup and adds them to their decks as the campaign goes on, returns
discarded asset cards to the depot (an empty deck is refilled from it on the next
draw, RULES.md §4) and buries discarded cards back into their decks; heroes hold a
handful of cards (one sheet card of each suit in its slot on their table, a few
asset cards in hand and on the table), discarding or trading when their hands are
full. Choices are legal by construction where that is cheap to check (a draw names
a deck that has cards or that the depot can refill; a redo follows an undo), so few
are refused.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from .. import commands as c
from ..application import Ledger
from ..campaign import Campaign
from ..catalog import Catalog, load_catalog, sample_catalog_path
from ..errors import LedgerError
from ..i18n import ngettext
from ..vocabulary import ATTACHED_PREFIX, MASTER, Suit, Zone

LOCATIONS = {
    "village": {"item": 2, "skill": 2, "companion": 1, "event": 1},
    "city": {"item": 3, "skill": 3, "companion": 3, "event": 2},
    "wilds": {"item": 1, "companion": 2},
}
LATE_LEVEL = 3  # cards of this level stay in the box at setup and are added during play
HAND_LIMIT = 4  # a hero with this many cards in hand discards or plays before drawing again
TABLE_LIMIT = 4  # asset cards on a hero's table (besides one sheet card per sheet suit)
EXTRA_LIMIT = 2  # cards in a hero's extra zone
ATTACHED_LIMIT = 2  # cards attached to one host
# The kinds of zone the end of a run is reported by (``attached``: cards attached to others).
ZONE_KINDS = ("box", "deck", "depot", "discard", "limbo", "scenario", "inventory", "table", "extra", "attached")


@dataclass
class Stats:
    recorded: int = 0
    refused: int = 0
    by_action: dict[str, int] = field(default_factory=dict)
    zones: dict[str, int] = field(default_factory=dict)  # cards per zone kind at the end

    @property
    def refusal_rate(self) -> float:
        """The share of the commands tried that the rules refused."""
        tried = self.recorded + self.refused
        return self.refused / tried if tried else 0.0


SIMULATION_SLUG = "simulation"


def start_simulation(ledger: Ledger, heroes: int = 3, seed: int = 0, catalog: Catalog | None = None,
                     slug: str = SIMULATION_SLUG) -> UUID:
    """A campaign ready for random play: heroes, locations, and every card of each suit
    in its deck but the level-3 ones, which stay in the box to be added during play."""
    # The campaign's name is recorded data, the same in every language (the same seed, the same campaign).
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
        of_suit = [x for x in campaign.catalog.ids() if campaign.card(x).suit == suit]
        boxed = tuple(x for x in campaign.table.cards_in("box") if campaign.card(x).suit == suit)
        shuffle_seed = rng.randrange(2**31)
        if boxed and len(boxed) == len(of_suit):  # this suit's cards are not in play yet
            early = tuple(x for x in boxed if campaign.card(x).level < LATE_LEVEL) or boxed
            ledger.execute(cid, c.Add(cards=early, to=Zone.deck(suit)))
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
        if attempts > actions * 20 + 1000:  # say what it recorded before: those actions stand
            raise LedgerError(ngettext(
                "the simulation found no legal action to take after recording {recorded} (it stands: the campaign is "
                "at seq {seq})",
                "the simulation found no legal action to take after recording {recorded} (they stand: the campaign "
                "is at seq {seq})", stats.recorded).format(recorded=stats.recorded, seq=campaign.seq))
        kind, command = _choose(campaign, rng, lambda seq: ledger.event(cid, seq),
                                lambda gt, lte: ledger.reshuffles_between(cid, gt, lte))
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
    stats.zones = cards_by_zone_kind(campaign)
    return stats


def cards_by_zone_kind(campaign: Campaign) -> dict[str, int]:
    """How many cards lie in each kind of zone (decks, hands, tables…; ``attached`` for
    the cards attached to others), every kind named even when it holds none."""
    counts: Counter[str] = Counter({kind: 0 for kind in ZONE_KINDS})
    for container, cards in campaign.table.stacks.items():
        kind = "attached" if container.startswith(ATTACHED_PREFIX) else container.split(":", 1)[0]
        counts[kind] += len(cards)
    return dict(counts)


WEIGHTS = {
    "draw": 14, "send": 9, "discard": 8, "clear": 2, "bury": 4, "depot": 5, "exile": 1, "unexile": 2,
    "add": 1, "shuffle": 3, "search": 3, "reveal": 5, "hide": 4, "exhaust": 5, "restore": 5,
    "attach": 2, "detach": 2, "trade": 6, "travel": 2, "battle": 1, "undo": 4, "redo": 2,
}
KINDS = list(WEIGHTS)
KIND_WEIGHTS = [WEIGHTS[k] for k in KINDS]


class _Turn:
    """One step's view of the campaign: the hero chosen and the cards at hand."""

    def __init__(self, campaign: Campaign, rng: random.Random, hero: str,
                 lookup: Callable[[int], Any] | None = None, scan: Callable[[int, int], Any] | None = None):
        self.campaign, self.rng, self.hero, self.lookup, self.scan = campaign, rng, hero, lookup, scan
        table = self.table = campaign.table
        self.hand = table.cards_in(Zone.inventory(hero))
        self.mat = table.cards_in(Zone.table(hero))
        self.extra = table.cards_in(Zone.extra(hero))

    def pick(self, cards: list[str]) -> str | None:
        return self.rng.choice(cards) if cards else None

    def some(self, cards: list[str], most: int) -> tuple[str, ...]:
        """Up to ``most`` of ``cards``: more of them the more there are."""
        n = min(len(cards), most, 1 + len(cards) // 6)
        return tuple(self.rng.sample(cards, n)) if n else ()

    def suit(self, card: str) -> Suit:
        return self.campaign.card(card).suit

    def decks(self) -> list[str]:
        return [z for z, spec in self.campaign.zones().items() if spec.is_deck]

    def can_give(self, deck: str) -> int:
        """How many cards a draw from ``deck`` may take: its own, and once it is empty
        the depot's of its suit (the refill, RULES.md §4)."""
        held = len(self.table.cards_in(deck))
        if held:
            return held
        suit = self.campaign.zones()[deck].suit
        return sum(1 for x in self.table.cards_in(Zone.DEPOT) if self.suit(x) == suit)

    def asset_mat(self) -> list[str]:
        return [x for x in self.mat if self.suit(x).is_asset]


def _choose(campaign: Campaign, rng: random.Random, lookup: Callable[[int], Any] | None = None,
            scan: Callable[[int, int], Any] | None = None) -> tuple[str, c.Command | None]:
    """One random action: its kind and the command (None when this kind of action has
    nothing to act on right now; the caller then simply chooses again). ``lookup``: the
    recorded action at a seq, ``scan``: those between two seqs (a redo is chosen only where
    the rules allow one: undo-kept-the-order, decks-not-shuffled-since)."""
    kind = rng.choices(KINDS, KIND_WEIGHTS)[0]
    heroes = list(campaign.table.heroes)
    if not heroes:
        return kind, None
    turn = _Turn(campaign, rng, rng.choice(heroes), lookup, scan)
    if kind == "draw":
        command = _draw(turn)
        if command is not None:
            return kind, command
        kind = "discard"  # nothing to draw, or a full hand and every slot taken: play a card instead
    return kind, CHOICES[kind](turn)


def _draw(t: _Turn) -> c.Command | None:
    """The master draws for the hero: an asset card into a hand that is not full, or a
    sheet card into the hero's empty slot of that suit on their table."""
    slots = {t.suit(x) for x in t.mat if t.suit(x).is_sheet}
    options = []
    for deck in t.decks():
        suit = t.campaign.zones()[deck].suit
        if suit is None or (suit.is_asset and len(t.hand) >= HAND_LIMIT) or suit in slots:
            continue
        available = t.can_give(deck)
        if available:
            options.append((deck, suit, available))
    if not options:
        return None
    deck, suit, available = t.rng.choice(options)
    count = min(t.rng.choice((1, 1, 1, 2)), available, HAND_LIMIT - len(t.hand)) if suit.is_asset else 1
    to = Zone.inventory(t.hero) if suit.is_asset else Zone.table(t.hero)
    # Recorded by the master for the hero, so the refill's seed (the master's to fix)
    # keeps the simulation reproducible; a hero's own draws take the system's seed.
    return c.Draw(stack=deck, count=count, to=to, seed=t.rng.randrange(2**31))


def _send(t: _Turn) -> c.Command | None:
    """A card from hand to the hero's table (if their knowledge allows it), extra zone
    or, for an event, the scenario."""
    card = t.pick(t.hand)
    if card is None:
        return None
    data = t.campaign.card(card)
    places = []
    if len(t.asset_mat()) < TABLE_LIMIT and t.table.heroes[t.hero].knowledge >= (data.knowledge or 0):
        places += [Zone.table(t.hero)] * 3
    if len(t.extra) < EXTRA_LIMIT:
        places.append(Zone.extra(t.hero))
    if data.suit == Suit.EVENT:
        places += [Zone.SCENARIO] * 2
    if not places:
        return None
    return c.Send(actor=t.hero, cards=(card,), to=t.rng.choice(places))


def _discard(t: _Turn) -> c.Command | None:
    card = t.pick(t.hand + t.mat + t.extra)
    return card and c.Discard(actor=t.hero, cards=(card,))


def _clear(t: _Turn) -> c.Command | None:
    """The master discards an event card played into the scenario."""
    card = t.pick(t.table.cards_in(Zone.SCENARIO))
    return card and c.Discard(cards=(card,))


def _bury(t: _Turn) -> c.Command | None:
    cards = t.some(t.table.cards_in(Zone.DISCARD), 3)
    return c.Bury(cards=cards) if cards else None


def _depot(t: _Turn) -> c.Command | None:
    """The master returns discarded asset cards to the depot (sheet cards may not lie
    there, RULES.md §5: they go back by burial)."""
    cards = t.some([x for x in t.table.cards_in(Zone.DISCARD) if t.suit(x).is_asset], 3)
    return c.Send(cards=cards, to=Zone.DEPOT) if cards else None


def _exile(t: _Turn) -> c.Command | None:
    card = t.pick(t.table.cards_in(Zone.DISCARD))
    return card and c.Exile(cards=(card,))


def _unexile(t: _Turn) -> c.Command | None:
    card = t.pick(t.table.cards_in(Zone.LIMBO))
    if card is None:
        return None
    return c.Send(cards=(card,), to=Zone.DEPOT) if t.suit(card).is_asset else c.Bury(cards=(card,))


def _add(t: _Turn) -> c.Command | None:
    """The master adds a card from the box to its deck, at a random place in it."""
    card = t.pick(t.table.cards_in(Zone.BOX))
    if card is None:
        return None
    deck = Zone.deck(t.suit(card))
    if deck not in t.campaign.zones():
        return None
    return c.Add(cards=(card,), to=deck, position=t.rng.randint(1, len(t.table.cards_in(deck)) + 1))


def _shuffle(t: _Turn) -> c.Command | None:
    decks = [z for z in t.decks() if len(t.table.cards_in(z)) > 1]
    return c.Shuffle(stack=t.rng.choice(decks), seed=t.rng.randrange(2**31)) if decks else None


def _search(t: _Turn) -> c.Command | None:
    """The master searches an asset deck for a card for the hero's hand."""
    if len(t.hand) >= HAND_LIMIT:
        return None
    zones = t.campaign.zones()
    decks = [z for z in t.decks() if t.table.cards_in(z) and zones[z].suit is not None and zones[z].suit.is_asset]
    if not decks:
        return None
    deck = t.rng.choice(decks)
    return c.Search(stack=deck, take=(t.rng.choice(t.table.cards_in(deck)),), to=Zone.inventory(t.hero),
                    seed=t.rng.randrange(2**31))


def _turn_over(kind: str) -> Callable[[_Turn], c.Command | None]:
    reveal = kind == "reveal"

    def choose(t: _Turn) -> c.Command | None:
        card = t.pick([x for x in t.hand if (t.table.face(x) == "down") == reveal])
        return card and (c.Reveal if reveal else c.Hide)(actor=t.hero, cards=(card,))
    return choose


def _tilt(kind: str) -> Callable[[_Turn], c.Command | None]:
    restore = kind == "restore"

    def choose(t: _Turn) -> c.Command | None:
        card = t.pick([x for x in t.mat + t.extra if (x in t.table.exhausted) == restore])
        return card and (c.Restore if restore else c.Exhaust)(actor=t.hero, cards=(card,))
    return choose


def _attach(t: _Turn) -> c.Command | None:
    card = t.pick(t.hand)
    host = t.pick([x for x in t.mat if len(t.table.attached(x)) < ATTACHED_LIMIT])
    return c.Attach(actor=t.hero, card=card, host=host) if card and host else None


def _detach(t: _Turn) -> c.Command | None:
    card = t.pick([x for host in t.mat + t.extra for x in t.table.attached(host)])
    return card and c.Detach(actor=t.hero, card=card)


def _trade(t: _Turn) -> c.Command | None:
    """Take one discard card the hero's location admits, paying with same-type cards."""
    campaign, table, hero, rng = t.campaign, t.table, t.hero, t.rng
    location = table.heroes[hero].location
    if location is None or table.battle or location not in table.locations:
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
    owned = t.hand + t.mat
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


def _travel(t: _Turn) -> c.Command | None:
    here = t.table.heroes[t.hero].location
    places = [x for x in t.table.locations if x != here]
    return c.Travel(actor=t.hero, hero=t.hero, location=t.rng.choice(places)) if places else None


def _battle(t: _Turn) -> c.Command | None:
    """Battles are short: one ends at the first chance, a new one starts at one in three
    (so that most of the time the discard pile is open for trades, RULES.md §8)."""
    if t.table.battle:
        return c.EndBattle()
    return c.StartBattle() if t.rng.random() < 1 / 3 else None


def _undo(t: _Turn) -> c.Command | None:
    return c.Undo(actor=MASTER, seed=t.rng.randrange(2**31)) if t.campaign.live_head is not None else None


def _redo(t: _Turn) -> c.Command | None:
    """A redo the rules allow: the latest undo shuffled no deck again (undo-kept-the-order),
    nor did any undo since its actions were recorded shuffle a deck they touch
    (decks-not-shuffled-since). Without the log to read (``lookup``, ``scan``): none."""
    from .. import rules
    from ..errors import RuleBroken
    from ..play import Play

    stack = t.campaign.redo_stack
    if not stack or t.lookup is None or t.scan is None:
        return None
    undone = t.lookup(stack[-1])
    try:
        rules.undo_kept_the_order(undone)
        rules.decks_not_shuffled_since([t.lookup(seq) for seq in undone.targets],
                                       Play(t.campaign, MASTER, lookup=t.lookup, scan=t.scan).shuffled_again_by)
    except RuleBroken:
        return None
    return c.Redo(actor=MASTER)


CHOICES: dict[str, Callable[[_Turn], c.Command | None]] = {
    "send": _send, "discard": _discard, "clear": _clear, "bury": _bury, "depot": _depot, "exile": _exile,
    "unexile": _unexile, "add": _add, "shuffle": _shuffle, "search": _search, "reveal": _turn_over("reveal"),
    "hide": _turn_over("hide"), "exhaust": _tilt("exhaust"), "restore": _tilt("restore"), "attach": _attach,
    "detach": _detach, "trade": _trade, "travel": _travel, "battle": _battle, "undo": _undo, "redo": _redo,
}
