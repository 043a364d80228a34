"""Deciding actions: each command checked against the rules and turned into the
event that records it. Load → decide → save happens in ``application.py``; here
a handler gets a ``Play`` (the campaign, the actor, the changes so far) and a
command, calls the named rules (``ledger.rules``, which refuse an illegal action),
then makes the moves, and returns the event class and its parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from . import commands as c
from . import events as e
from . import rules
from .changes import (
    AccessEffect,
    BattleChanged,
    Hero,
    HeroChanged,
    Location,
    LocationChanged,
)
from .errors import BadInput, DamagedRecord
from .formats import ZoneSpec
from .i18n import N_, _
from .play import Play
from .rulesets import ruleset
from .states import affected_by
from .visibility import sees_everything
from .vocabulary import Zone, check_hero_id, check_location_id, check_suit

Decided = tuple[type[e.ActionRecorded], dict[str, Any]]
HANDLERS: dict[type[c.Command], Callable[[Play, Any], Decided]] = {}


def handles(command: type[c.Command]):
    def register(fn):
        HANDLERS[command] = fn
        return fn

    return register


def decide(play: Play, command: c.Command) -> Decided:
    rules.actor_in_campaign(play.campaign, play.actor)
    return HANDLERS[type(command)](play, command)


# -- helpers ------------------------------------------------------------------
# The verbs handlers name to the rules ("send", "draw from") are plain English keys:
# ``ledger.rules.words`` puts them in the language spoken when a refusal is written.
# Longer phrases a rule shows as they are ("adds heroes") are message ids, marked N_.
def _known(play: Play, cards: tuple[str, ...], doing: str) -> None:
    """The cards named exist (for a hero: can be seen; a hidden card and a missing one
    read the same)."""
    for card in cards:
        rules.knows_card(play.campaign, play.actor, card, doing)


def _just_activated(play: Play, card: str | None) -> bool:
    """Is ``card`` the one the latest action in force activated from an inventory, for the
    actor (a hero's own activation; any, for the master)? Its effect is the one being
    resolved, though the card went to the discard pile (ruleset 17: a rules QA pass found
    a hero could not record the search a card played from her hand allows)."""
    head = play.campaign.live_head
    if card is None or head is None or ruleset() < 17:
        return False
    latest = play.lookup(head)
    return (isinstance(latest, e.CardActivated) and latest.card == card and latest.went_to is not None
            and (sees_everything(play.actor) or latest.actor == play.actor))


def _theirs(play: Play, cards: tuple[str, ...], doing: str) -> None:
    """A hero may move only cards they can see and control (fair play)."""
    rules.may_move(play.campaign, play.actor, cards, doing)
    for card in cards:
        rules.controls_card(play.campaign, play.actor, card, doing)


def _index(play: Play, zone_id: str, position: c.Position | None, i: int, block: tuple[str, ...]) -> int | None:
    """The index for the i-th card of a block sent together: the block lands at the
    position asked (counted among the zone's other cards, 1 = top) in the order named."""
    zone = play.campaign.zone(zone_id)
    if position is None:
        position = "top" if zone.ordered else "bottom"
    if position == "bottom":
        return None
    current = [x for x in play.table.cards_in(zone_id) if x != block[i]]
    others = [x for x in current if x not in block]
    rules.position_in_range(zone_id, position, len(others))
    placed = [b for b in block[:i] if b in current]
    if placed:  # right after the block card placed before it
        return current.index(placed[-1]) + 1
    base = 0 if position == "top" else position - 1
    seen = 0
    for index, card in enumerate(current):
        if seen == base:
            return index
        if card not in block:
            seen += 1
    return len(current)


def _draw_top(play: Play, deck: ZoneSpec, given: int = 0, asked: int | None = None) -> str:
    """The top card of a deck, refilled first from the depot if it is empty (RULES.md §4)."""
    if not play.table.cards_in(deck.id):
        play.refill(deck.id)
    rules.deck_can_give(play.campaign, deck, given, asked)
    return play.table.cards_in(deck.id)[0]


# -- setting up ---------------------------------------------------------------
@handles(c.AddHero)
def add_hero(play: Play, cmd: c.AddHero) -> Decided:
    hero = check_hero_id(cmd.hero)
    rules.master_only(play.actor, N_("adds heroes"))
    rules.new_hero(play.campaign, hero)
    rules.hero_zones_new(play.campaign, hero)
    rules.printable_text("--name", cmd.name)
    play.apply(HeroChanged(hero=hero, was=None, now=Hero(name=cmd.name or hero, knowledge=cmd.knowledge)))
    return e.HeroAdded, {"hero": hero}


@handles(c.SetKnowledge)
def set_knowledge(play: Play, cmd: c.SetKnowledge) -> Decided:
    hero = play.campaign.check_hero(cmd.hero)
    rules.master_sets_knowledge(play.actor, hero)
    rules.knowledge_changes(play.campaign, hero, cmd.knowledge)
    was = play.table.heroes[hero]
    play.apply(HeroChanged(hero=hero, was=was, now=was.model_copy(update={"knowledge": cmd.knowledge})))
    # RULES.md §5: an asset card may *be* on a table only while the hero's knowledge
    # meets its requirement; cards that no longer qualify go to the inventory now.
    table_zone = Zone.table(hero)
    for card in list(play.table.cards_in(table_zone)):
        play.place(card, table_zone, play.table.cards_in(table_zone).index(card), play.table.face(card))
    return e.KnowledgeChanged, {"hero": hero, "knowledge": cmd.knowledge}


@handles(c.Add)
def add(play: Play, cmd: c.Add) -> Decided:
    rules.master_only(play.actor, N_("adds cards from the box"))  # first: a hero is told why, whatever the cards
    _known(play, cmd.cards, "add")
    play.campaign.zone(cmd.to)
    rules.may_add_to(cmd.to)
    for card in cmd.cards:
        rules.must_be_in_box(play.campaign, card)
    for i, card in enumerate(cmd.cards):
        play.place(card, cmd.to, _index(play, cmd.to, cmd.position, i, cmd.cards), moving=frozenset(cmd.cards))
    return e.CardsAdded, {"cards": cmd.cards, "to": cmd.to, "position": str(cmd.position)}


# -- playing ------------------------------------------------------------------
@handles(c.Draw)
def draw(play: Play, cmd: c.Draw) -> Decided:
    deck = play.campaign.zone(cmd.stack)
    rules.must_be_deck(deck, "draw")
    rules.may_use_stack(play.campaign, play.actor, deck, "draw from")
    to = rules.hand_for(play.actor, cmd.to, "draw")
    rules.sends_to_own_zone(play.actor, play.campaign.zone(to), "draw")
    rules.draws_elsewhere(deck, play.campaign.zone(to))
    rules.draws_into_its_suit(deck, play.campaign.zone(to))
    rules.seed_is_the_masters(play.actor, cmd.seed)
    if cmd.seed is not None:
        play.rng.seed(cmd.seed)
    drawn = []
    for n in range(cmd.count):
        card = _draw_top(play, deck, given=n, asked=cmd.count)
        play.place(card, to)
        drawn.append(card)
    return e.CardsDrawn, {"stack": deck.id, "count": cmd.count, "to": to, "cards": tuple(drawn), "seed": cmd.seed}


@handles(c.Send)
def send(play: Play, cmd: c.Send) -> Decided:
    _known(play, cmd.cards, "send")
    to = play.campaign.zone(cmd.to)
    rules.may_name(play.campaign, play.actor, cmd.cards, "send")
    _theirs(play, cmd.cards, "send")
    rules.sends_to_own_zone(play.actor, to, "send", scenario_ok=True, named=True)
    moving = frozenset(cmd.cards)
    for i, card in enumerate(cmd.cards):
        play.place(card, cmd.to, _index(play, cmd.to, cmd.position, i, cmd.cards), cmd.face, moving)
    rules.moves_something(play.campaign, play.changes, cmd.cards, cmd.to)
    return e.CardsSent, {"cards": cmd.cards, "to": cmd.to, "position": str(cmd.position or "default"), "face": cmd.face}


@handles(c.Discard)
def discard(play: Play, cmd: c.Discard) -> Decided:
    if cmd.stack is not None:
        if cmd.cards:
            raise BadInput(_("name cards to discard, or --from a deck, not both"))
        rules.master_discards_from_decks(play.actor)
        deck = play.campaign.zone(cmd.stack)
        rules.must_be_deck(deck, "discard --from")
        rules.may_use_stack(play.campaign, play.actor, deck, "discard from")
        if cmd.seed is not None:
            play.rng.seed(cmd.seed)
        taken = []
        for given in range(cmd.count):
            card = _draw_top(play, deck, given=given, asked=cmd.count)
            play.place(card, rules.discard_pile_for(play.campaign, card))
            taken.append(card)
        return e.CardsDiscarded, {"cards": tuple(taken), "stack": deck.id, "seed": cmd.seed}
    if not cmd.cards:
        raise BadInput(_("name the cards to discard, or --from DECK to discard from the top of a deck"))
    if (cmd.count != 1 or cmd.seed is not None) and ruleset() >= 15:  # they were passed over without a word
        raise BadInput(_("--count and --seed go with --from DECK; the cards named are discarded, each once"))
    _known(play, cmd.cards, "discard")
    rules.may_name(play.campaign, play.actor, cmd.cards, "discard")
    _theirs(play, cmd.cards, "discard")
    moving = frozenset(cmd.cards)
    for card in cmd.cards:
        pile = rules.discard_pile_for(play.campaign, card)
        rules.not_already_in(play.campaign, card, pile)
        play.place(card, pile, moving=moving)
    return e.CardsDiscarded, {"cards": cmd.cards}


@handles(c.Bury)
def bury(play: Play, cmd: c.Bury) -> Decided:
    _known(play, cmd.cards, "bury")
    rules.may_name(play.campaign, play.actor, cmd.cards, "bury")
    _theirs(play, cmd.cards, "bury")
    if cmd.to is not None:
        rules.must_be_deck(play.campaign.zone(cmd.to), "bury")
        for card in cmd.cards:
            rules.buries_where_allowed(play.campaign, play.actor, card, play.campaign.zone(cmd.to))
    moving = frozenset(cmd.cards)
    for card in cmd.cards:
        deck = cmd.to or rules.bury_deck_for(play.campaign, card)
        play.place(card, deck, None, moving=moving)
    return e.CardsBuried, {"cards": cmd.cards, "to": cmd.to}


@handles(c.Exile)
def exile(play: Play, cmd: c.Exile) -> Decided:
    _known(play, cmd.cards, "exile")
    rules.may_name(play.campaign, play.actor, cmd.cards, "exile")
    _theirs(play, cmd.cards, "exile")
    moving = frozenset(cmd.cards)
    for card in cmd.cards:
        rules.not_already_in(play.campaign, card, Zone.LIMBO)
        play.place(card, Zone.LIMBO, moving=moving)
    return e.CardsExiled, {"cards": cmd.cards}


@handles(c.Shuffle)
def shuffle(play: Play, cmd: c.Shuffle) -> Decided:
    deck = play.campaign.zone(cmd.stack)
    rules.must_be_ordered(deck)
    rules.may_use_stack(play.campaign, play.actor, deck, "shuffle")
    rules.seed_is_the_masters(play.actor, cmd.seed)
    rules.shuffle_allowed(play.campaign, play.actor, deck, cmd.by)
    rules.shuffles_unseen_order(play.campaign, play.actor, deck)
    rules.enough_to_shuffle(play.campaign, deck)
    if cmd.seed is not None:
        play.rng.seed(cmd.seed)
    play.shuffle(deck.id)
    return e.StackShuffled, {"stack": deck.id, "seed": cmd.seed, "allowed_by": cmd.by if ruleset() >= 17 else None}


@handles(c.Search)
def search(play: Play, cmd: c.Search) -> Decided:
    stack = play.campaign.zone(cmd.stack)
    rules.must_be_stack(stack, "search")
    rules.may_use_stack(play.campaign, play.actor, stack, "search")
    rules.searches_decks(play.actor, stack)
    rules.something_to_search(play.campaign, stack)
    rules.seed_is_the_masters(play.actor, cmd.seed)
    rules.search_allowed(play.campaign, play.actor, cmd.by, _just_activated(play, cmd.by))
    # Everything that does not depend on where the cards lie first (a card named twice is
    # the command's own check): a refusal after the cards were found would tell a hero
    # that a hidden card is in the stack.
    to = rules.hand_for(play.actor, cmd.to, "take the cards") if cmd.take else cmd.to
    if to is not None:
        rules.sends_to_own_zone(play.actor, play.campaign.zone(to), "take", named=ruleset() >= 10)
    for card in cmd.take:  # the suit of each card named: the catalog's, wherever the card lies
        rules.searched_in_its_suit(play.campaign, card, stack)
        if to is not None:
            rules.deck_holds_its_suit(play.campaign, card, play.campaign.zone(to))
    reshuffle = rules.reshuffles_after_search(stack)
    if reshuffle:  # a deck holding a face-up card (ruleset 11), whatever the search names
        rules.shuffles_unseen_order(play.campaign, play.actor, stack, face_up_only=True)
    missed = rules.searched_cards(play.campaign, play.actor, cmd.take, stack.id,
                                  N_("search takes cards from the stack searched"))
    taken = tuple(card for card in cmd.take if card not in missed)
    if not taken and reshuffle:  # a search that takes nothing only shuffles
        rules.shuffles_unseen_order(play.campaign, play.actor, stack)  # (of a stack she sees through: all told)
    moving = frozenset(taken)
    for card in taken:
        play.place(card, to, moving=moving)  # type: ignore[arg-type]
    if reshuffle:
        if cmd.seed is not None:
            play.rng.seed(cmd.seed)
        play.shuffle(stack.id)
    return e.StackSearched, {
        "stack": stack.id, "taken": taken, "to": to, "reshuffled": reshuffle, "seed": cmd.seed,
        "allowed_by": cmd.by, "missed": missed,
    }


def _turn(play: Play, cards: tuple[str, ...], face: str, verb: str) -> None:
    _known(play, cards, verb)
    rules.may_name(play.campaign, play.actor, cards, verb)
    _theirs(play, cards, verb)
    for card in cards:
        rules.not_already_face(play.campaign, card, face)
        spot = play.table.spot(card)
        play.set_card(card, spot.at, spot.index, face, spot.exhausted)  # type: ignore[arg-type]


@handles(c.Reveal)
def reveal(play: Play, cmd: c.Reveal) -> Decided:
    if not cmd.to:
        _turn(play, cmd.cards, "up", "reveal")
        return e.CardsRevealed, {"cards": cmd.cards}
    heroes = tuple(sorted(play.campaign.check_hero(hero) for hero in cmd.to))
    _known(play, cmd.cards, "reveal")
    rules.may_name(play.campaign, play.actor, cmd.cards, "reveal")
    _theirs(play, cmd.cards, "reveal")
    for card in cmd.cards:
        rules.shown_to_new_eyes(play.campaign, card, heroes)
        spot = play.table.spot(card)
        play.set_card(card, spot.at, spot.index, spot.face, spot.exhausted,
                      tuple(sorted(set(spot.shown) | set(heroes))))
    return e.CardsRevealed, {"cards": cmd.cards, "to": heroes}


@handles(c.Hide)
def hide(play: Play, cmd: c.Hide) -> Decided:
    _turn(play, cmd.cards, "down", "hide")
    return e.CardsHidden, {"cards": cmd.cards}


def _tilt(play: Play, cards: tuple[str, ...], exhausted: bool, verb: str) -> None:
    _known(play, cards, verb)
    _theirs(play, cards, verb)
    for card in cards:
        rules.may_exhaust(play.campaign, play.actor, card)
        rules.not_already_tilted(play.campaign, card, exhausted)
        spot = play.table.spot(card)
        play.set_card(card, spot.at, spot.index, spot.face, exhausted, spot.shown)


@handles(c.Exhaust)
def exhaust(play: Play, cmd: c.Exhaust) -> Decided:
    _tilt(play, cmd.cards, True, "exhaust")
    return e.CardsExhausted, {"cards": cmd.cards}


@handles(c.Restore)
def restore(play: Play, cmd: c.Restore) -> Decided:
    _tilt(play, cmd.cards, False, "restore")
    return e.CardsRestored, {"cards": cmd.cards}


@handles(c.Attach)
def attach(play: Play, cmd: c.Attach) -> Decided:
    _known(play, (cmd.card, cmd.host), "attach")
    rules.not_attached_to_itself(cmd.card, cmd.host)
    rules.may_name(play.campaign, play.actor, (cmd.card,), "attach")
    _theirs(play, (cmd.card,), "attach")
    rules.controls_card(play.campaign, play.actor, cmd.host, "attach to")
    rules.host_in_play(play.campaign, cmd.host)
    rules.no_attachment_cycle(play.campaign, cmd.card, cmd.host)
    rules.not_already_attached(play.campaign, cmd.card, cmd.host)
    play.attach(cmd.card, cmd.host)
    return e.CardAttached, {"card": cmd.card, "host": cmd.host}


@handles(c.Detach)
def detach(play: Play, cmd: c.Detach) -> Decided:
    _known(play, (cmd.card,), "detach")
    host = rules.must_be_attached(play.campaign, cmd.card)
    _theirs(play, (cmd.card,), "detach")
    to = cmd.to or play.table.zone_of(host)
    rules.sends_to_own_zone(play.actor, play.campaign.zone(to), "detach", scenario_ok=True)
    actual = play.place(cmd.card, to)
    return e.CardDetached, {"card": cmd.card, "host": host, "to": actual}


# -- locations and battle (RULES.md §8) ------------------------------------------
@handles(c.AddLocation)
def add_location(play: Play, cmd: c.AddLocation) -> Decided:
    rules.master_only(play.actor, N_("may add locations"))
    check_location_id(cmd.location)
    rules.new_location(play.campaign, cmd.location)
    access = rules.access_levels(cmd.access)
    play.apply(LocationChanged(location=cmd.location, was=None, now=Location(access=access)))
    return e.LocationAdded, {"location": cmd.location}


@handles(c.SetLocation)
def set_location(play: Play, cmd: c.SetLocation) -> Decided:
    rules.master_only(play.actor, N_("may correct a location's access levels"))
    place = rules.known_location(play.campaign, cmd.location)
    levels = rules.access_levels(cmd.access)
    rules.access_changes(place, cmd.location, levels)
    now = place.model_copy(update={"access": {**place.access, **levels}})
    play.apply(LocationChanged(location=cmd.location, was=place, now=now))
    return e.LocationSet, {"location": cmd.location, "access": levels}


@handles(c.Travel)
def travel(play: Play, cmd: c.Travel) -> Decided:
    hero = play.campaign.check_hero(cmd.hero)
    rules.acts_for(play.actor, hero, N_("move {hero}"))
    rules.known_location(play.campaign, cmd.location)
    rules.not_already_at(play.campaign, hero, cmd.location)
    was = play.table.heroes[hero]
    play.apply(HeroChanged(hero=hero, was=was, now=was.model_copy(update={"location": cmd.location})))
    return e.HeroTravelled, {"hero": hero, "location": cmd.location}


def _battle(play: Play, on: bool) -> None:
    rules.master_only(play.actor, N_("may start a battle") if on else N_("may end a battle"))
    rules.battle_toggles(play.campaign, on)
    play.apply(BattleChanged(was=not on, now=on))


@handles(c.StartBattle)
def start_battle(play: Play, cmd: c.StartBattle) -> Decided:
    _battle(play, True)
    return e.BattleStarted, {}


@handles(c.EndBattle)
def end_battle(play: Play, cmd: c.EndBattle) -> Decided:
    _battle(play, False)
    return e.BattleEnded, {}


@handles(c.SetAccess)
def set_access(play: Play, cmd: c.SetAccess) -> Decided:
    rules.master_only(play.actor, N_("may record an effect on a location's access"))
    place = rules.known_location(play.campaign, cmd.location)
    suit = str(check_suit(cmd.suit))
    effects = dict(place.effects)
    if ruleset() >= 16 and cmd.clear == (cmd.level is not None):  # an API body without its level cleared
        raise BadInput(_("give a level (0-3) and the card whose effect changes the access (by), or clear the "
                         "effect (clear), not both"))
    if cmd.level is None:
        rules.has_access_effect(place, cmd.location, suit)
        if cmd.by and ruleset() >= 3:  # a card of the catalog, whose effects' reach is recorded from rules 3
            play.campaign.card(cmd.by)
        del effects[suit]
    else:
        rules.access_levels({suit: cmd.level})  # 0-3, said as location add says it
        if not cmd.by:
            raise BadInput(_("say which card's effect changes the access with --by CARD"))
        rules.effect_source_active(play.campaign, cmd.by)
        effects[suit] = AccessEffect(level=cmd.level, by=cmd.by)
    affected = affected_by(play.campaign, cmd.by) if cmd.by and ruleset() >= 3 else None
    play.apply(LocationChanged(location=cmd.location, was=place, now=place.model_copy(update={"effects": effects})))
    return e.AccessChanged, {"location": cmd.location, "suit": suit, "level": cmd.level, "by": cmd.by,
                             "affected": affected}


# -- trading with the discard pile (RULES.md §8) -----------------------------------
@handles(c.Trade)
def trade(play: Play, cmd: c.Trade) -> Decided:
    campaign = play.campaign
    hero = campaign.check_hero(cmd.hero)
    rules.acts_for(play.actor, hero, N_("trade for {hero}"))
    _known(play, cmd.take + cmd.give, "trade")
    if set(cmd.take) & set(cmd.give) or len(set(cmd.take)) != len(cmd.take) or len(set(cmd.give)) != len(cmd.give):
        raise BadInput(_("each card may be named once, either taken or given"))
    rules.trades_assets_only(campaign, cmd.take + cmd.give)
    for card in cmd.take:
        rules.must_be_in(campaign, play.actor, card, rules.TRADE_PILE, N_("trade takes cards from the discard pile"))
    rules.gives_controlled(campaign, play.actor, hero, cmd.give)
    location = rules.trading_location(campaign, hero)
    for card in cmd.take:
        rules.access_admits(campaign, location, card)
    settlement = rules.settle_trade(campaign, cmd.take, cmd.give)
    for taken, companion in cmd.attach.items():
        if taken not in cmd.take:
            raise BadInput(_("--attach {taken}={companion}: {taken} is not among the cards taken").format(
                taken=taken, companion=companion))
        rules.knows_card(campaign, play.actor, companion, "attach to")
        rules.companion_takes(campaign, hero, taken, companion, cmd.give)
    used = sorted({str(campaign.card(card).suit) for card in cmd.take})
    access = [
        {"suit": suit, "level": lvl, "source": src}
        for suit in used
        for lvl, src in [rules.effective_access(campaign, location, suit)]
    ]
    moving = frozenset(cmd.give)
    for card in cmd.give:
        play.place(card, rules.discard_pile_for(campaign, card), moving=moving)
    for card in cmd.take:
        if card in cmd.attach:
            play.attach(card, cmd.attach[card])
        else:
            play.place(card, Zone.inventory(hero))
    return e.TradeCompleted, {
        "hero": hero, "taken": cmd.take, "given": cmd.give, "attach": dict(cmd.attach),
        "location": location, "battle": play.table.battle, "access": tuple(access), "settlement": tuple(settlement),
    }


@handles(c.Obtain)
def obtain(play: Play, cmd: c.Obtain) -> Decided:
    campaign = play.campaign
    rules.master_only(play.actor, N_("records a sheet card obtained by progression or incorporation (the master "
                                     "decides where it comes from and what it costs)"))
    hero = campaign.check_hero(cmd.hero)
    rules.knows_card(campaign, play.actor, cmd.card, "obtain")
    rules.obtains_sheet_only(campaign, cmd.card)
    rules.printable_text("--cost", cmd.cost)
    source = rules.obtained_from(campaign, hero, cmd.card)
    to = rules.obtained_to(campaign, hero, cmd.to)
    location = rules.trading_location(campaign, hero, cmd.by)
    rules.access_admits(campaign, location, cmd.card)
    suit = str(campaign.card(cmd.card).suit)
    level, why = rules.effective_access(campaign, location, suit)
    play.place(cmd.card, to, face="up")
    return e.SheetCardObtained, {
        "hero": hero, "card": cmd.card, "mechanic": cmd.by, "source": source, "to": to, "location": location,
        "battle": play.table.battle, "access": {"suit": suit, "level": level, "source": why}, "cost": cmd.cost,
    }


# -- activation (RULES.md §6) ---------------------------------------------------------
@handles(c.Activate)
def activate(play: Play, cmd: c.Activate) -> Decided:
    campaign = play.campaign
    rules.knows_card(campaign, play.actor, cmd.card, "activate")
    data = campaign.card(cmd.card)
    rules.may_name(campaign, play.actor, (cmd.card,), "activate")
    source = campaign.zone_of(cmd.card).id
    hero = rules.activating_hero(campaign, play.actor, cmd.hero, cmd.card)
    rules.may_activate(campaign, play.actor, hero, cmd.card)
    rules.activation_allowed(campaign, play.actor, cmd.card, cmd.by)
    index = rules.chosen_effect(campaign, cmd.card, cmd.effect)
    rules.energies_paid(cmd.energies)
    rules.printable_text("--target", cmd.target)
    rules.printable_text("--note", cmd.note)
    rules.effect_usable(campaign, cmd.card, index, cmd.action_points, cmd.energies)
    rules.activator_knowledge(campaign, hero, cmd.card)
    rules.stack_effect_reaches(campaign, cmd.card, cmd.target)
    affected = affected_by(campaign, cmd.card) if ruleset() >= 3 else None
    went_to = None
    if rules.from_inventory(campaign, cmd.card):
        went_to = play.place(cmd.card, rules.after_activation_from_inventory(campaign, cmd.card))
    return e.CardActivated, {
        "card": cmd.card, "hero": hero, "effect": index, "effect_kind": data.effects[index - 1].kind,
        "source": source, "went_to": went_to, "target": cmd.target, "note": cmd.note,
        "action_points": cmd.action_points, "energies": dict(cmd.energies), "affected": affected,
        "allowed_by": cmd.by if ruleset() >= 17 else None,
    }


# -- undo and redo ------------------------------------------------------------------
@handles(c.Undo)
def undo(play: Play, cmd: c.Undo) -> Decided:
    """Takes back the latest action still in force (or every one after ``to``) by
    applying the inverses of their changes, newest first. Nothing is deleted."""
    if cmd.to is not None and cmd.to > play.campaign.version:  # said as --at says it (a QA pass: "nothing to undo")
        raise BadInput(_("seq {at} is past the last action (seq {last})").format(at=cmd.to, last=play.campaign.version))
    if cmd.seq is not None:
        rules.undoes_the_action_named(play.campaign, cmd.seq, cmd.to)
    if cmd.to is not None and ruleset() >= 16:
        targets, seq = _not_in_force_at(play, cmd.to)
    else:
        head = rules.something_to_undo(play.campaign, cmd.to)
        targets = []
        seq = head
        while seq is not None and (seq > cmd.to if cmd.to is not None else not targets):
            event = play.lookup(seq)
            targets.append(event)
            seq = _earlier_in_force(event)
    rules.may_take_back(play.actor, targets, "undo")
    rules.showed_nothing_hidden(play.actor, targets)
    rules.left_nothing_to_chance(play.campaign, play.actor, targets)
    rules.keeps_order_by_master(play.actor, cmd.keep_order)
    rules.seed_is_the_masters(play.actor, cmd.seed)
    if cmd.seed is not None:
        play.rng.seed(cmd.seed)
    for event in targets:  # newest first
        for change in reversed(event.changes):
            play.apply_again(change.inverse(), event.seq)
    # Fair play: a deck a seen card returns to gets a new order nobody has seen.
    seen = tuple(rules.decks_to_reshuffle(play.campaign, targets)) if not cmd.keep_order or ruleset() >= 16 else ()
    reshuffled = () if cmd.keep_order else seen
    for stack in reshuffled:
        play.shuffle(stack)
    # from ruleset 16 the master's keep_order is recorded where it kept a deck's order (the
    # history said he kept the order of decks seen cards returned to when no card returned to one)
    kept = cmd.keep_order and (bool(seen) or ruleset() < 16)
    return e.ActionUndone, {"targets": tuple(ev.seq for ev in targets), "live_head": seq,
                            "reshuffled_stacks": reshuffled, "keep_order": kept}


CHAIN_SHARE, CHAIN_FREE = 10, 10
"""``undo --to SEQ`` reads at most (actions since SEQ) / CHAIN_SHARE + CHAIN_FREE actions undone
since SEQ on its walk; past that it reads the undos and redos since SEQ instead."""


def _not_in_force_at(play: Play, to: int) -> tuple[list[e.ActionRecorded], int | None]:
    """``undo --to SEQ`` (ruleset 16): the actions in force now that were not at seq SEQ,
    newest first, and the latest action in force that stays. Those are the actions
    recorded after SEQ, and those a redo recorded after SEQ applied again: a redone action
    keeps its own seq, and before ruleset 16 an ``undo --to`` between its undo and its redo
    left it in force (the table was not the one at SEQ). Each action links to the one in
    force before it (``prev_live``, fixed when it is recorded), so the actions in force at
    any moment are a chain down that tree: the chain now and the chain at SEQ are walked
    together, newest first, until they meet; the actions in force at SEQ and undone since
    are read on the way. When those outnumber a tenth of the log since SEQ (a far undo
    since), the undos and redos since SEQ are read instead (``_in_force_since_scanned``):
    either way the cost follows what happened since SEQ, never the whole log."""
    if to >= play.campaign.version:  # nothing recorded after it: said as before
        rules.something_to_undo(play.campaign, to)
    now = rules.something_to_undo(play.campaign, None)
    at_to = play.lookup(to)
    books = SimpleNamespace(live_head=at_to.prev_live, redo_stack=[])
    at_to.keep_books(books)  # the latest action in force once seq SEQ was recorded: the log's own bookkeeping
    then: int | None = books.live_head
    budget = (play.campaign.version - to) // CHAIN_SHARE + CHAIN_FREE
    targets: list[e.ActionRecorded] = []
    seq: int | None = now
    while seq is not None and seq != then:
        if then is not None and then > seq:  # in force at SEQ, not now: undone since
            budget -= 1
            if budget < 0:
                return _in_force_since_scanned(play, to, now)
            then = _earlier_in_force(play.lookup(then))
            continue
        event = play.lookup(seq)  # in force now, not at SEQ
        targets.append(event)
        seq = _earlier_in_force(event)
    rules.something_in_force_since(targets, to)
    return targets, seq


def _in_force_since_scanned(play: Play, to: int, now: int) -> tuple[list[e.ActionRecorded], int | None]:
    """``_not_in_force_at`` from the undos and redos since SEQ: an action in force now
    that the first of them to name it took back was in force at SEQ, one it applied again
    was not; the walk down the chain now stops at the first action in force at SEQ (those
    before it in the chain were too)."""
    redone: dict[int, bool] = {}  # action -> whether the first undo or redo after SEQ naming it is a redo
    for _at, is_redo, named in play.takebacks(to, play.campaign.version):
        for target in named:
            redone.setdefault(target, is_redo)
    targets: list[e.ActionRecorded] = []
    seq: int | None = now
    while seq is not None and (seq > to or redone.get(seq, False)):
        event = play.lookup(seq)
        targets.append(event)
        seq = _earlier_in_force(event)
    rules.something_in_force_since(targets, to)
    return targets, seq


def _earlier_in_force(event: e.ActionRecorded) -> int | None:
    """The action in force before this one (``prev_live``), which is always older: a link
    forward or to itself is a record edited (a walk down the chain would never end)."""
    if event.prev_live is not None and event.prev_live >= event.seq:
        raise DamagedRecord(_("seq {seq} names seq {link} as the action in force before it, which is not older: "
                              "the record was changed (ledger verify names it)").format(seq=event.seq,
                                                                                      link=event.prev_live),
                            ValueError(event.prev_live), seq=event.seq)
    return event.prev_live


@handles(c.Redo)
def redo(play: Play, cmd: c.Redo) -> Decided:
    """Applies again what the latest undo took back, if no other action came since."""
    undone = play.lookup(rules.something_to_redo(play.campaign))
    assert isinstance(undone, e.ActionUndone)
    rules.redoes_own_undo(play.actor, undone)
    rules.undo_kept_the_order(undone)
    targets = [play.lookup(seq) for seq in undone.targets]
    rules.may_take_back(play.actor, targets, "redo")
    rules.decks_not_shuffled_since(targets, play.shuffled_again_by)
    for event in reversed(targets):  # oldest first
        for change in event.changes:
            play.apply_again(change, event.seq)
    return e.ActionRedone, {"undo": undone.seq, "targets": undone.targets}
