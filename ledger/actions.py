"""Deciding actions: each command checked against the rules and turned into the
event that records it. Load → decide → save happens in ``application.py``; here
a handler gets a ``Play`` (the campaign, the actor, the changes so far) and a
command, and returns the event class and its parameters, or raises a refusal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import commands as c
from . import events as e
from . import rules
from .changes import AccessEffect, BattleChanged, Hero, HeroChanged, Location, LocationChanged
from .errors import BadInput, CardNotThere, DeckEmpty, NotAllowed, RuleBroken, UnknownZone
from .play import Play
from .visibility import can_identify, sees_everything, where_for
from .vocabulary import MASTER, check_hero_id, check_location_id, check_suit

Decided = tuple[type[e.ActionRecorded], dict[str, Any]]
HANDLERS: dict[type[c.Command], Callable[[Play, Any], Decided]] = {}


def handles(command: type[c.Command]):
    def register(fn):
        HANDLERS[command] = fn
        return fn

    return register


def decide(play: Play, command: c.Command) -> Decided:
    if play.actor != MASTER:
        check_hero_id(play.actor)
        play.campaign.check_hero(play.actor)  # an actor is the master or a hero of this campaign
    return HANDLERS[type(command)](play, command)


# -- helpers ------------------------------------------------------------------
def _known(play: Play, cards: tuple[str, ...]) -> None:
    for card in cards:
        play.campaign.card(card)


def _in_campaign(play: Play, cards: tuple[str, ...], doing: str) -> None:
    for card in cards:
        if not sees_everything(play.actor) and not can_identify(play.campaign, play.actor, card):
            # Say nothing of where it is, not even "in the box".
            raise NotAllowed(f"{play.actor} cannot see card {card}; a hero {doing}s only cards they can see")
        rules.must_be_in_campaign(play.campaign, play.actor, card, doing)


def _may_move(play: Play, cards: tuple[str, ...], doing: str) -> None:
    """A hero may move only cards they can see, from zones they own or that nobody owns."""
    for card in cards:
        if not can_identify(play.campaign, play.actor, card):
            raise NotAllowed(
                f"{play.actor} cannot see card {card}; a hero moves hidden cards only by drawing "
                "or searching (or the master moves it)"
            )
        rules.may_use_stack(play.campaign, play.actor, play.campaign.zone_of(card), doing + " cards from")


def _default_hand(play: Play, to: str | None, doing: str) -> str:
    if to is not None:
        return to
    if sees_everything(play.actor):
        raise BadInput(f"the master has no inventory; say where to {doing} with --to inventory:HERO")
    return f"inventory:{play.actor}"


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
    if isinstance(position, int) and not 1 <= position <= len(others) + 1:
        raise BadInput(
            f"position {position} is outside {zone_id}, which holds {len(others)} other card(s); "
            f"use 1 (top) to {len(others) + 1} (bottom), top or bottom"
        )
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


def _attached_under(play: Play, host: str) -> list[str]:
    """Every card attached to a host, directly or through other attachments."""
    found, todo = [], [host]
    while todo:
        for card in play.table.attached(todo.pop()):
            found.append(card)
            todo.append(card)
    return found


def _draw_top(play: Play, deck: str, doing: str) -> str:
    if not play.table.cards_in(deck):
        if play.refill(deck) == 0:
            suit = play.campaign.zone(deck).suit
            raise DeckEmpty(
                f"{deck} is empty and the depot has no {suit or 'matching'} cards to refill it; "
                f"add cards to it first (ledger add CARD --to {deck})"
            )
    return play.table.cards_in(deck)[0]


# -- setting up ---------------------------------------------------------------
@handles(c.AddHero)
def add_hero(play: Play, cmd: c.AddHero) -> Decided:
    hero = check_hero_id(cmd.hero)
    if play.actor != MASTER:
        raise NotAllowed(f"only the master adds heroes (not {play.actor})")
    if hero in play.table.heroes:
        raise RuleBroken(f"hero {hero} is already in this campaign")
    play.apply(HeroChanged(hero=hero, was=None, now=Hero(name=cmd.name or hero, knowledge=cmd.knowledge)))
    return e.HeroAdded, {"hero": hero}


@handles(c.SetKnowledge)
def set_knowledge(play: Play, cmd: c.SetKnowledge) -> Decided:
    hero = play.campaign.check_hero(cmd.hero)
    if not sees_everything(play.actor) and play.actor != hero:
        raise NotAllowed(f"{play.actor} may not change {hero}'s knowledge (the master or {hero} may)")
    was = play.table.heroes[hero]
    if was.knowledge == cmd.knowledge:
        raise RuleBroken(f"hero {hero}'s knowledge is already {cmd.knowledge}")
    play.apply(HeroChanged(hero=hero, was=was, now=was.model_copy(update={"knowledge": cmd.knowledge})))
    # RULES.md §5: an asset card may *be* on a table only while the hero's knowledge
    # meets its requirement; cards that no longer qualify go to the inventory now.
    table_zone = f"table:{hero}"
    for card in list(play.table.cards_in(table_zone)):
        play.place(card, table_zone, play.table.cards_in(table_zone).index(card), play.table.face(card))
    return e.KnowledgeChanged, {"hero": hero, "knowledge": cmd.knowledge}


@handles(c.Add)
def add(play: Play, cmd: c.Add) -> Decided:
    _known(play, cmd.cards)
    if not sees_everything(play.actor):
        raise NotAllowed(f"only the master adds cards from the box (not {play.actor})")
    play.campaign.zone(cmd.to)
    if cmd.to == "box":
        raise BadInput("add brings cards from the box into the campaign; name another zone with --to")
    for card in cmd.cards:
        if play.table.zone_of(card) != "box":
            raise CardNotThere(
                f"card {card} is already in the campaign, not in the box; add takes cards from "
                "the box (use send to move a card in play)"
            )
    for i, card in enumerate(cmd.cards):
        play.place(card, cmd.to, _index(play, cmd.to, cmd.position, i, cmd.cards), moving=frozenset(cmd.cards))
    return e.CardsAdded, {"cards": cmd.cards, "to": cmd.to, "position": str(cmd.position)}


# -- playing ------------------------------------------------------------------
@handles(c.Draw)
def draw(play: Play, cmd: c.Draw) -> Decided:
    deck = play.campaign.zone(cmd.stack)
    rules.must_be_deck(deck, "draw")
    rules.may_use_stack(play.campaign, play.actor, deck, "draw from")
    to = _default_hand(play, cmd.to, "draw")
    play.campaign.zone(to)
    if cmd.seed is not None:
        play.rng.seed(cmd.seed)
    drawn = []
    for n in range(cmd.count):
        try:
            card = _draw_top(play, deck.id, "draw")
        except DeckEmpty as exc:
            if n == 0:
                raise
            raise DeckEmpty(
                f"{deck.id} can give only {n} of the {cmd.count} cards asked (the depot has no more "
                f"{deck.suit} cards to refill it); draw at most {n}"
            ) from exc
        play.place(card, to)
        drawn.append(card)
    return e.CardsDrawn, {"stack": deck.id, "count": cmd.count, "to": to, "cards": tuple(drawn), "seed": cmd.seed}


@handles(c.Send)
def send(play: Play, cmd: c.Send) -> Decided:
    _known(play, cmd.cards)
    play.campaign.zone(cmd.to)
    _in_campaign(play, cmd.cards, "send")
    _may_move(play, cmd.cards, "send")
    moving = frozenset(cmd.cards)
    for i, card in enumerate(cmd.cards):
        play.place(card, cmd.to, _index(play, cmd.to, cmd.position, i, cmd.cards), cmd.face, moving)
    if not play.changes:
        raise RuleBroken(f"nothing to do: {', '.join(cmd.cards)} already lie(s) that way in {cmd.to}")
    return e.CardsSent, {"cards": cmd.cards, "to": cmd.to, "position": str(cmd.position or "default"), "face": cmd.face}


@handles(c.Discard)
def discard(play: Play, cmd: c.Discard) -> Decided:
    if cmd.stack is not None:
        if cmd.cards:
            raise BadInput("name cards to discard, or --from a deck, not both")
        deck = play.campaign.zone(cmd.stack)
        rules.must_be_deck(deck, "discard --from")
        rules.may_use_stack(play.campaign, play.actor, deck, "discard from")
        if cmd.seed is not None:
            play.rng.seed(cmd.seed)
        taken = []
        for n in range(cmd.count):
            card = _draw_top(play, deck.id, "discard")
            play.place(card, rules.discard_pile_for(play.campaign, card))
            taken.append(card)
        return e.CardsDiscarded, {"cards": tuple(taken), "stack": deck.id, "seed": cmd.seed}
    if not cmd.cards:
        raise BadInput("name the cards to discard, or --from DECK to discard from the top of a deck")
    _known(play, cmd.cards)
    _in_campaign(play, cmd.cards, "discard")
    _may_move(play, cmd.cards, "discard")
    moving = frozenset(cmd.cards)
    for card in cmd.cards:
        pile = rules.discard_pile_for(play.campaign, card)
        if play.table.zone_of(card) == pile:
            raise RuleBroken(f"card {card} is already in {pile}")
        play.place(card, pile, moving=moving)
    return e.CardsDiscarded, {"cards": cmd.cards}


@handles(c.Bury)
def bury(play: Play, cmd: c.Bury) -> Decided:
    _known(play, cmd.cards)
    _in_campaign(play, cmd.cards, "bury")
    _may_move(play, cmd.cards, "bury")
    if cmd.to is not None:
        rules.must_be_deck(play.campaign.zone(cmd.to), "bury")
    moving = frozenset(cmd.cards)
    for card in cmd.cards:
        deck = cmd.to or rules.bury_deck_for(play.campaign, card)
        play.place(card, deck, None, moving=moving)
    return e.CardsBuried, {"cards": cmd.cards, "to": cmd.to}


@handles(c.Exile)
def exile(play: Play, cmd: c.Exile) -> Decided:
    _known(play, cmd.cards)
    _in_campaign(play, cmd.cards, "exile")
    _may_move(play, cmd.cards, "exile")
    moving = frozenset(cmd.cards)
    for card in cmd.cards:
        if play.table.zone_of(card) == "limbo":
            raise RuleBroken(f"card {card} is already in limbo")
        play.place(card, "limbo", moving=moving)
    return e.CardsExiled, {"cards": cmd.cards}


@handles(c.Shuffle)
def shuffle(play: Play, cmd: c.Shuffle) -> Decided:
    deck = play.campaign.zone(cmd.stack)
    if not deck.ordered:
        raise RuleBroken(f"{deck.id} is unordered (its order has no meaning); shuffle works on decks")
    rules.may_use_stack(play.campaign, play.actor, deck, "shuffle")
    if len(play.table.cards_in(deck.id)) < 2:
        raise RuleBroken(f"{deck.id} holds {len(play.table.cards_in(deck.id))} card(s); nothing to shuffle")
    if cmd.seed is not None:
        play.rng.seed(cmd.seed)
    play.shuffle(deck.id)
    return e.StackShuffled, {"stack": deck.id, "seed": cmd.seed}


@handles(c.Search)
def search(play: Play, cmd: c.Search) -> Decided:
    stack = play.campaign.zone(cmd.stack)
    rules.must_be_stack(stack, "search")
    rules.may_use_stack(play.campaign, play.actor, stack, "search")
    _known(play, cmd.take)
    to = _default_hand(play, cmd.to, "take the cards") if cmd.take else cmd.to
    if to is not None:
        play.campaign.zone(to)
    for card in cmd.take:
        rules.must_be_in(play.campaign, play.actor, card, stack.id, "search takes cards from the stack searched")
    if len(set(cmd.take)) != len(cmd.take):
        raise BadInput("a card is named twice in --take")
    moving = frozenset(cmd.take)
    for card in cmd.take:
        play.place(card, to, moving=moving)  # type: ignore[arg-type]
    # RULES.md §4: after searching a face-down deck it is shuffled again.
    reshuffle = stack.visibility != "face-up" and stack.ordered
    if reshuffle:
        if cmd.seed is not None:
            play.rng.seed(cmd.seed)
        play.shuffle(stack.id)
    return e.StackSearched, {
        "stack": stack.id, "taken": cmd.take, "to": to, "reshuffled": reshuffle, "seed": cmd.seed,
    }


def _turn(play: Play, cards: tuple[str, ...], face: str, verb: str) -> None:
    _known(play, cards)
    _in_campaign(play, cards, verb)
    _may_move(play, cards, verb)
    for card in cards:
        if play.table.face(card) == face:
            raise RuleBroken(f"card {card} is already face-{face}")
        spot = play.table.spot(card)
        play.set_card(card, spot.at, spot.index, face, spot.exhausted)  # type: ignore[arg-type]


@handles(c.Reveal)
def reveal(play: Play, cmd: c.Reveal) -> Decided:
    _turn(play, cmd.cards, "up", "reveal")
    return e.CardsRevealed, {"cards": cmd.cards}


@handles(c.Hide)
def hide(play: Play, cmd: c.Hide) -> Decided:
    _turn(play, cmd.cards, "down", "hide")
    return e.CardsHidden, {"cards": cmd.cards}


def _tilt(play: Play, cards: tuple[str, ...], exhausted: bool, verb: str) -> None:
    _known(play, cards)
    _may_move(play, cards, verb)
    for card in cards:
        rules.may_exhaust(play.campaign, play.actor, card)
        spot = play.table.spot(card)
        if spot.exhausted == exhausted:
            raise RuleBroken(f"card {card} is already {'exhausted' if exhausted else 'restored'}")
        play.set_card(card, spot.at, spot.index, spot.face, exhausted)


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
    _known(play, (cmd.card, cmd.host))
    if cmd.card == cmd.host:
        raise RuleBroken(f"card {cmd.card} cannot be attached to itself")
    _in_campaign(play, (cmd.card,), "attach")
    _may_move(play, (cmd.card,), "attach")
    host_zone = play.campaign.zone_of(cmd.host)
    if not host_zone.in_play or play.table.zone_of(cmd.host) == "box":
        raise RuleBroken(
            f"card {cmd.host} is not in play; a host must be on a table, in an inventory, "
            "in an extra zone or in the scenario"
        )
    # No cycles: the host may not hang (directly or not) from the card.
    up = play.table.host(cmd.host)
    while up is not None:
        if up == cmd.card:
            raise RuleBroken(f"card {cmd.host} is attached to {cmd.card}; attach the other way round")
        up = play.table.host(up)
    if play.table.host(cmd.card) == cmd.host:
        raise RuleBroken(f"card {cmd.card} is already attached to {cmd.host}")
    play.attach(cmd.card, cmd.host)
    return e.CardAttached, {"card": cmd.card, "host": cmd.host}


@handles(c.Detach)
def detach(play: Play, cmd: c.Detach) -> Decided:
    play.campaign.card(cmd.card)
    host = play.table.host(cmd.card)
    if host is None:
        raise RuleBroken(f"card {cmd.card} is not attached to any card")
    _may_move(play, (cmd.card,), "detach")
    to = cmd.to or play.table.zone_of(host)
    play.campaign.zone(to)
    actual = play.place(cmd.card, to)
    return e.CardDetached, {"card": cmd.card, "host": host, "to": actual}


# -- locations and battle (RULES.md §8) ------------------------------------------
def _master_only(play: Play, doing: str) -> None:
    if not sees_everything(play.actor):
        raise NotAllowed(f"only the master may {doing} (not {play.actor})")


def _location(play: Play, location: str) -> Location:
    check_location_id(location)
    found = play.table.locations.get(location)
    if found is None:
        known = ", ".join(play.table.locations) or "none yet; add one with location add"
        raise UnknownZone(f"no location {location!r} in this campaign (locations: {known})")
    return found


@handles(c.AddLocation)
def add_location(play: Play, cmd: c.AddLocation) -> Decided:
    _master_only(play, "add locations")
    check_location_id(cmd.location)
    if cmd.location in play.table.locations:
        raise RuleBroken(f"location {cmd.location} already exists")
    access = {}
    for suit, level in cmd.access.items():
        if not 0 <= level <= 3:
            raise BadInput(f"access for {suit} is {level}; access levels go from 0 to 3")
        access[str(check_suit(suit))] = level
    play.apply(LocationChanged(location=cmd.location, was=None, now=Location(access=access)))
    return e.LocationAdded, {"location": cmd.location}


@handles(c.Travel)
def travel(play: Play, cmd: c.Travel) -> Decided:
    hero = play.campaign.check_hero(cmd.hero)
    if not sees_everything(play.actor) and play.actor != hero:
        raise NotAllowed(f"{play.actor} may not move {hero} (act as --actor {hero} or --actor master)")
    _location(play, cmd.location)
    was = play.table.heroes[hero]
    if was.location == cmd.location:
        raise RuleBroken(f"{hero} is already at {cmd.location}")
    play.apply(HeroChanged(hero=hero, was=was, now=was.model_copy(update={"location": cmd.location})))
    return e.HeroTravelled, {"hero": hero, "location": cmd.location}


def _battle(play: Play, on: bool) -> None:
    _master_only(play, "start a battle" if on else "end a battle")
    if play.table.battle == on:
        raise RuleBroken("a battle is already on; end it with battle end" if on
                         else "no battle is on; start one with battle start")
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
    _master_only(play, "record an effect on a location's access")
    place = _location(play, cmd.location)
    suit = str(check_suit(cmd.suit))
    effects = dict(place.effects)
    if cmd.level is None:
        if suit not in effects:
            raise RuleBroken(f"no effect changes the access for {suit} at {cmd.location}")
        del effects[suit]
    else:
        if not cmd.by:
            raise BadInput("say which card's effect changes the access with --by CARD")
        play.campaign.card(cmd.by)
        if play.table.zone_of(cmd.by) == "box" or "active" not in rules.card_states(play.campaign, cmd.by):
            raise RuleBroken(
                f"card {cmd.by} is not active (its effects are not available); an access effect comes "
                "from an active card, such as a face-up event in the scenario"
            )
        effects[suit] = AccessEffect(level=cmd.level, by=cmd.by)
    play.apply(LocationChanged(location=cmd.location, was=place, now=place.model_copy(update={"effects": effects})))
    return e.AccessChanged, {"location": cmd.location, "suit": suit, "level": cmd.level, "by": cmd.by}


# -- trading with the discard pile (RULES.md §8) -----------------------------------
@handles(c.Trade)
def trade(play: Play, cmd: c.Trade) -> Decided:
    campaign = play.campaign
    hero = campaign.check_hero(cmd.hero)
    if not sees_everything(play.actor) and play.actor != hero:
        raise NotAllowed(f"{play.actor} may not trade for {hero} (act as --actor {hero} or --actor master)")
    _known(play, cmd.take + cmd.give)
    if set(cmd.take) & set(cmd.give) or len(set(cmd.take)) != len(cmd.take) or len(set(cmd.give)) != len(cmd.give):
        raise BadInput("each card may be named once, either taken or given")
    for card in cmd.take + cmd.give:
        if campaign.card(card).suit.is_sheet:
            raise RuleBroken(f"{card} is a sheet card ({campaign.card(card).suit}); sheet cards never trade")
    for card in cmd.take:
        rules.must_be_in(campaign, play.actor, card, rules.TRADE_PILE, "trade takes cards from the discard pile")
    for card in cmd.give:
        if not rules.controlled_by(campaign, hero, card) or not can_identify(campaign, hero, card):
            raise CardNotThere(
                f"{hero} does not control card {card} ({where_for(campaign, play.actor, card)}); a hero gives "
                "cards from their inventory, their table, or attached to their cards"
            )
    location = campaign.table.heroes[hero].location
    if location is None:
        raise RuleBroken(f"{hero} is at no location; trading needs one that allows it (ledger travel {hero} LOCATION)")
    for card in cmd.take:
        rules.access_admits(campaign, location, card)
    settlement = rules.settle_trade(campaign, cmd.take, cmd.give)
    for taken, companion in cmd.attach.items():
        if taken not in cmd.take:
            raise BadInput(f"--attach {taken}={companion}: {taken} is not among the cards taken")
        campaign.card(companion)
        if campaign.card(companion).suit != "companion" or not rules.controlled_by(campaign, hero, companion):
            raise RuleBroken(f"{companion} is not a companion card {hero} controls; taken cards attach to one")
        leaving = set(cmd.give)
        for given in cmd.give:
            leaving.update(_attached_under(play, given))
        if companion in leaving:
            raise RuleBroken(f"{companion} leaves with the cards given in this trade; attach {taken} elsewhere")
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
            play.place(card, f"inventory:{hero}")
    return e.TradeCompleted, {
        "hero": hero, "taken": cmd.take, "given": cmd.give, "attach": dict(cmd.attach),
        "location": location, "battle": play.table.battle, "access": tuple(access), "settlement": tuple(settlement),
    }


# -- activation (RULES.md §6) ---------------------------------------------------------
@handles(c.Activate)
def activate(play: Play, cmd: c.Activate) -> Decided:
    campaign = play.campaign
    data = campaign.card(cmd.card)
    _in_campaign(play, (cmd.card,), "activate")
    zone = campaign.zone_of(cmd.card)
    hero = cmd.hero or (None if sees_everything(play.actor) else play.actor) or zone.owner
    if hero is not None:
        campaign.check_hero(hero)
    if not sees_everything(play.actor) and hero != play.actor:
        raise NotAllowed(f"{play.actor} activates cards as themself, not as {hero}")
    if not sees_everything(play.actor) and not can_identify(campaign, play.actor, cmd.card):
        raise NotAllowed(f"{play.actor} cannot see card {cmd.card}; only cards you can see can be activated")
    if zone.owner is not None and zone.owner != hero:
        raise NotAllowed(f"card {cmd.card} is in {zone.id}; only {zone.owner} may activate it")
    if not (zone.in_play or zone.kind == "pile"):
        raise RuleBroken(f"card {cmd.card} is not in play ({where_for(campaign, play.actor, cmd.card)}); "
                         "cards are activated from an inventory, a table, an attachment or a zone in play")
    effects = list(data.effects)
    if cmd.effect is None:
        manual = [i for i, eff in enumerate(effects, start=1) if eff.kind == "activate"]
        if not manual:
            raise RuleBroken(f"card {cmd.card} has no activate effect, so it cannot be activated manually "
                             "(its auto effects fire on their own; record one with --effect N)")
        if len(manual) > 1:
            raise BadInput(f"card {cmd.card} has {len(manual)} activate effects; choose one with --effect "
                           + " or ".join(map(str, manual)))
        index = manual[0]
    else:
        if cmd.effect > len(effects):
            raise BadInput(f"card {cmd.card} has {len(effects)} effect(s); --effect {cmd.effect} is not one of them")
        index = cmd.effect
    effect = effects[index - 1]
    host = play.table.host(cmd.card)
    from_hand = zone.kind == "hand" and host is None
    if from_hand and effect.kind != "activate":
        raise RuleBroken(f"only activate effects may be activated from the inventory; effect {index} of "
                         f"{cmd.card} is {effect.kind}")
    if effect.kind == "auto" and (cmd.action_points or cmd.energies):
        raise RuleBroken("auto effects cost no action points or energy; record the activation without them")
    if host is not None:
        if effect.scope != "attachment" or play.table.face(host) != "up":
            raise RuleBroken(f"card {cmd.card} is attached; only its attachment effects can be used, and only "
                             "while its host is face-up")
    elif zone.kind == "pile":
        if effect.scope not in ("anywhere", "discard") or play.table.face(cmd.card) != "up":
            raise RuleBroken(f"card {cmd.card} is in {zone.id}; only its stack effects (@anywhere, @discard) work there")
    elif not from_hand and play.table.face(cmd.card) != "up":
        raise RuleBroken(f"card {cmd.card} is face-down (inactive); reveal it before activating it")
    if hero is not None:
        rules.knowledge_meets(campaign, hero, cmd.card)
    elif data.knowledge:
        raise BadInput(f"say which hero activates {cmd.card} with --hero HERO (its knowledge must be checked)")
    went_to = None
    if from_hand:
        went_to = play.place(cmd.card, rules.after_activation_from_inventory(campaign, cmd.card))
    return e.CardActivated, {
        "card": cmd.card, "hero": hero, "effect": index, "effect_kind": effect.kind, "source": zone.id,
        "went_to": went_to, "target": cmd.target, "note": cmd.note,
        "action_points": cmd.action_points, "energies": dict(cmd.energies),
    }


# -- undo and redo ------------------------------------------------------------------
def _may_take_back(play: Play, events: list[e.ActionRecorded], verb: str) -> None:
    """The master may take back any action; a hero only actions they made."""
    if sees_everything(play.actor):
        return
    others = [ev.seq for ev in events if ev.actor != play.actor]
    if others:
        raise NotAllowed(
            f"{play.actor} may {verb} only their own actions; seq {others[0]} was made by "
            f"{next(ev.actor for ev in events if ev.seq == others[0])} (ask the master)"
        )


@handles(c.Undo)
def undo(play: Play, cmd: c.Undo) -> Decided:
    """Takes back the latest action still in force (or every one after ``to``) by
    applying the inverses of their changes, newest first. Nothing is deleted."""
    head = play.campaign.live_head
    if head is None:
        raise RuleBroken("nothing to undo: no action is in force since the campaign started")
    if cmd.to is not None and cmd.to >= head:
        raise RuleBroken(f"nothing to undo after seq {cmd.to}: the latest action in force is seq {head}")
    targets: list[e.ActionRecorded] = []
    seq: int | None = head
    while seq is not None and (seq > cmd.to if cmd.to is not None else not targets):
        event = play.lookup(seq)
        targets.append(event)
        seq = event.prev_live
    _may_take_back(play, targets, "undo")
    for event in targets:  # newest first
        for change in reversed(event.changes):
            play.apply(change.inverse())
    return e.ActionUndone, {"targets": tuple(ev.seq for ev in targets), "live_head": seq}


@handles(c.Redo)
def redo(play: Play, cmd: c.Redo) -> Decided:
    """Applies again what the latest undo took back, if no other action came since."""
    if not play.campaign.redo_stack:
        raise RuleBroken(
            "nothing to redo: redo applies again what the latest undo took back, and only while "
            "no other action has been recorded after that undo"
        )
    undone = play.lookup(play.campaign.redo_stack[-1])
    assert isinstance(undone, e.ActionUndone)
    targets = [play.lookup(seq) for seq in undone.targets]
    _may_take_back(play, targets, "redo")
    for event in reversed(targets):  # oldest first
        for change in event.changes:
            play.apply(change)
    return e.ActionRedone, {"undo": undone.seq, "targets": undone.targets}
