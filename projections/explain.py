"""``ledger explain SEQ``: which rules an action was checked against, with the figures.

Everything comes from the stored event (a trade records its sums, location, access
levels and battle state; a draw its refills; a placement its redirects) and, for the
figures an event does not carry, from the campaign right before the action. The
checks common to every action (refills, redirects, attachments left behind) come
first; then each event type adds its own (``functools.singledispatch``).

Each check is ``{"rule": "§4 empty deck", "label": "§4 baralho vazio", "detail": ...}``:
``rule`` names the rule in English in every language (stable for scripts, like the
codes and ids of ``--json``), ``label`` is that name in the language being spoken (what
a person reads), ``detail`` what the check found, in the language being spoken too. A
rule's id (``§5 sheet-card-placement``) is its own label; zone, card and hero ids stay
as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch
from typing import Any

from ledger import events as e
from ledger.campaign import Campaign
from ledger.changes import StackReordered
from ledger.i18n import N_, _, ngettext, pgettext
from ledger.rulebook import REFILL_LIMIT, RULESET, hero_may, rule_text
from ledger.states import EFFECTS_LAST_WHILE_ACTIVE_FROM, card_states
from ledger.terms import effect_kind_name, mechanic_name, pgettext_noop, suit_word, value_type_name
from ledger.visibility import sees_everything
from ledger.vocabulary import MASTER
from ledger.witness import visible_cards

from .summaries import HIDDEN_NAME, attachments_that_followed, summary

Rule = str | tuple[str, str]
"""A rule's English name, marked for translation: ``N_("§3 decks")``, or with a context
``pgettext_noop("rule", "undo")``."""
Check = Callable[..., None]
Name = Callable[[str | None], str]


def explain(event: e.ActionRecorded, before: Campaign | None, after: Campaign, viewer: str) -> dict[str, Any]:
    cards = event.cards_mentioned()
    hidden = set() if sees_everything(viewer) else cards - visible_cards(event, after, viewer, cards)
    if event.actor == viewer:  # the cards they named themselves (as recorded_view says them)
        hidden -= set(event.named_by_actor())

    def n(card: str | None) -> str:
        return _(HIDDEN_NAME) if card is None or card in hidden else card

    checks: list[dict[str, str]] = []

    def check(rule: Rule, detail: str, label: str | None = None) -> None:
        """A rule checked and what it found; ``label``: the rule's name as shown (default:
        ``rule`` translated)."""
        english = rule[1] if isinstance(rule, tuple) else rule
        if label is None:
            label = pgettext(*rule) if isinstance(rule, tuple) else _(rule)
        checks.append({"rule": english, "label": label, "detail": detail})

    for refill in event.refills:
        check(N_("§4 empty deck"), ngettext(
            "{deck} was empty: refilled with {count} card(s) of its suit from the {source} (up to {limit}), "
            "shuffled face-down, in this same action",
            "{deck} was empty: refilled with {count} card(s) of its suit from the {source} (up to {limit}), "
            "shuffled face-down, in this same action", refill.count).format(
            deck=refill.deck, count=refill.count, source=refill.source, limit=REFILL_LIMIT))
    for redirect in event.redirects:
        if redirect.card in hidden:  # which rule sent it would say what kind of card it is (an asset, say)
            check(N_("§5 placement"), _("{card} was sent to {asked} but went to {actual}").format(
                card=n(redirect.card), asked=redirect.asked, actual=redirect.actual))
            continue
        rule_id = f"§5 {redirect.rule}"  # a rule's id: the same in every language
        check(rule_id, _("{card} was sent to {asked} but went to {actual}: {rule}").format(
            card=n(redirect.card), asked=redirect.asked, actual=redirect.actual, rule=_(rule_text(redirect.rule))),
            label=rule_id)
    for card, host, zone in attachments_that_followed(event):
        check(N_("§5 attachments follow no host"), _(
            "{card} was attached to {host}, which left its zone: it went to {zone} in the same action").format(
            card=n(card), host=n(host), zone=zone))
    for commitment in event.commitments:
        committed = ngettext("the new order of {stack} ({size} card) is committed: sha256 {digest}",
                             "the new order of {stack} ({size} cards) is committed: sha256 {digest}",
                             commitment.size).format(stack=commitment.stack, size=commitment.size,
                                                     digest=commitment.digest)
        if sees_everything(viewer):
            committed += _("; salt {salt}, order {order} (referee only; sha256 of SALT:ORDER gives the digest)").format(
                salt=commitment.salt, order=",".join(after.table.cards_in(commitment.stack)))
        else:
            committed += _("; keep it: the master can later show the salt and the order, and any SHA-256 tool "
                           "checks them")
        check(N_("§4 committed shuffle"), committed)
    _checks(event, before, viewer, check, n)
    may = None if event.actor == MASTER else hero_may(event.action, event.ruleset)
    if may is not None:
        check(N_("§9 what a hero may do"), _("{hero} is a hero: {may}").format(hero=event.actor, may=_(may)))
    if not checks:
        check(pgettext_noop("rule", "rules"),
              _("no rule beyond the action's own checks (cards where they must be, the actor allowed)"))
    return {
        "seq": event.seq, "action": event.action, "actor": event.actor, "time": event.timestamp.isoformat(),
        "ruleset": event.ruleset, "older_rules": _older_rules(event.ruleset),
        "summary": summary(event, hidden, in_order=sees_everything(viewer)),
        "checks": checks,
    }


@singledispatch
def _checks(event: e.ActionRecorded, before: Campaign | None, viewer: str, check: Check, n: Name) -> None:
    """The rules one event type was checked against (none beyond the common ones)."""


@_checks.register
def _revealed(event: e.CardsRevealed, before, viewer, check: Check, n: Name) -> None:
    if event.to:
        check(N_("§9 revealed to"), ngettext(
            "shown to {heroes} only, face-down where they lie: that hero may identify them while they stay there; "
            "everyone else still sees hidden cards",
            "shown to {heroes} only, face-down where they lie: those heroes may identify them while they stay there; "
            "everyone else still sees hidden cards", len(event.to)).format(heroes=", ".join(event.to)))


def _from_the_top(stack: str) -> str:
    return _("{stack} is a deck: cards come from its top").format(stack=stack)


@_checks.register
def _drawn(event: e.CardsDrawn, before, viewer, check: Check, n: Name) -> None:
    check(N_("§3 decks"), _from_the_top(event.stack))


@_checks.register
def _discarded(event: e.CardsDiscarded, before, viewer, check: Check, n: Name) -> None:
    if event.stack:
        check(N_("§3 decks"), _from_the_top(event.stack))
    else:
        check(N_("§5 discard"), _("discarded cards go face-up to their format's discard pile"))


@_checks.register
def _shuffled(event: e.StackShuffled, before, viewer, check: Check, n: Name) -> None:
    order = next((c for c in event.changes if isinstance(c, StackReordered)), None)
    # under rules before 10 a shuffle that left the order as it was recorded no change: its
    # commitment gives the size (else "0 cards" told the table that the order had held)
    size = len(order.now) if order else next((c.size for c in event.commitments if c.stack == event.stack), 0)
    detail = ngettext("{stack} was shuffled: the new order of its {size} cards is recorded, so replay never "
                      "shuffles again",
                      "{stack} was shuffled: the new order of its {size} cards is recorded, so replay never "
                      "shuffles again", size).format(stack=event.stack, size=size)
    if event.seed is not None and sees_everything(viewer):
        detail += _(" (seed {seed})").format(seed=event.seed)
    check(N_("§3 decks keep their order"), detail)
    if event.allowed_by:
        check(N_("§3 decks keep their order"),
              _("reordering it was allowed by the effect of {card}, an active card").format(card=n(event.allowed_by)))


@_checks.register
def _searched(event: e.StackSearched, before, viewer, check: Check, n: Name) -> None:
    if event.allowed_by and before is not None and event.allowed_by in before.catalog.cards \
            and "active" not in card_states(before, event.allowed_by):  # ruleset 17: played from the hand just before
        check(N_("§4 search"), _("searching was allowed by the effect of {card}, activated from the inventory in the "
                                "action just before").format(card=n(event.allowed_by)))
    elif event.allowed_by:
        check(N_("§4 search"), _("searching was allowed by the effect of {card}, an active card").format(
            card=n(event.allowed_by)))
    if event.missed:
        check(N_("§9 search"), _("the search did not find {cards} in {stack}: a hero's search records what it did not "
                                "find rather than being refused (a refusal would tell a hero what a deck holds at no "
                                "cost)").format(stack=event.stack, cards=", ".join(n(card) for card in event.missed)))
    if event.reshuffled:
        check(N_("§4 search"), _("{stack} is face-down, so it was reshuffled after the search, in the same "
                                "action").format(stack=event.stack))


@_checks.register
def _buried(event: e.CardsBuried, before, viewer, check: Check, n: Name) -> None:
    detail = _("buried cards go face-down to the bottom of their suit's campaign deck")
    if event.to:
        detail += _(" ({zone} was named)").format(zone=event.to)
    check(N_("§5 bury"), detail)


@_checks.register
def _exiled(event: e.CardsExiled, before, viewer, check: Check, n: Name) -> None:
    check(N_("§5 exile"), _("exiled cards go to limbo"))


@_checks.register
def _location_set(event: e.LocationSet, before, viewer, check: Check, n: Name) -> None:
    was = before.table.locations.get(event.location) if before is not None else None
    levels = ", ".join(_("{suit} {level} (was {was})").format(
        suit=suit_word(suit), level=level, was=was.access.get(suit, 0) if was is not None else "?")
        for suit, level in event.access.items())
    check(N_("§8 location access"), _("the master corrected the access levels of {location}: {levels}; its other "
                                     "suits keep theirs").format(location=event.location, levels=levels))


@_checks.register
def _access_changed(event: e.AccessChanged, before, viewer, check: Check, n: Name) -> None:
    if event.level is None:
        check(N_("§8 location access"), _("the effect on {suit} access at {location} was cleared").format(
            suit=suit_word(event.suit), location=event.location))
    elif event.ruleset < EFFECTS_LAST_WHILE_ACTIVE_FROM:
        check(N_("§8 location access"), _("the effect of {card} sets {suit} access at {location} to {level}; it "
                                         "applies during battle too").format(
            card=n(event.by), suit=suit_word(event.suit), location=event.location, level=event.level))
    else:
        check(N_("§8 location access"), _("the effect of {card} sets {suit} access at {location} to {level} while "
                                         "{card} is active; it applies during battle too").format(
            card=n(event.by), suit=suit_word(event.suit), location=event.location, level=event.level))
    if event.affected is not None:
        check(N_("§7 affected"), _("an effect from a stack card reaches {heroes} (its stack's affected)").format(
            heroes=_heroes(event.affected)))


def _heroes(heroes: tuple[str, ...]) -> str:
    return ", ".join(heroes) if heroes else _("no hero")


@_checks.register
def _undone(event: e.ActionUndone, before, viewer, check: Check, n: Name) -> None:
    check(pgettext_noop("rule", "undo"), _("seq(s) {seqs} taken back: their changes were inverted, newest first, so "
                                      "the table is exactly as before them; they stay in the history").format(
        seqs=", ".join(map(str, event.targets))))
    if event.reshuffled_stacks:
        check(N_("§9 fair play"), _("{stacks} shuffled again in the same undo: it then held cards someone had seen "
                                   "(returned to it, or hidden again in it), so its old order must not come back").format(
            stacks=", ".join(event.reshuffled_stacks)))
    if event.keep_order:
        check(N_("§9 fair play"), _("the master decided to keep the order of the decks seen cards returned to"))


@_checks.register
def _redone(event: e.ActionRedone, before, viewer, check: Check, n: Name) -> None:
    check(pgettext_noop("rule", "redo"),
          _("what undo seq {undo} took back was applied again (no other action came between)").format(undo=event.undo))


@_checks.register
def _battle_started(event: e.BattleStarted, before, viewer, check: Check, n: Name) -> None:
    check(N_("§8 battle"), _("during a battle every discard pile's access level is 0, unless an effect changes it"))


def _access_source(source: str, location: str, n: Name) -> str:
    """Where an access level came from: the location's own level, a battle, or an effect's
    card (named as the viewer may name it)."""
    if source == "location":
        return _("{location}'s own level").format(location=location)
    if source == "battle":
        return _("a battle")
    return _("effect of {card}").format(card=n(source.removeprefix("effect of ")))  # as events record it


@_checks.register
def _traded(event: e.TradeCompleted, before, viewer, check: Check, n: Name) -> None:
    if event.battle:
        spent = _("{hero} spent a full action to trade with the discard pile at {location} during a battle")
    else:
        spent = _("{hero} spent a full action to trade with the discard pile at {location}")
    check(N_("§8 full action"), spent.format(hero=event.hero, location=event.location))
    for used in event.access:
        check(N_("§8 access"), _("access for {suit} at {location} was {level} ({source}); a taken card's level must "
                                "be at most that, and access 0 admits nothing").format(
            suit=suit_word(used.suit), location=event.location, level=used.level,
            source=_access_source(used.source, event.location, n)))
    for entry in event.settlement:
        check(N_("§8 value types"), _("{type} ({suits}): gave {give} ≥ took {take}; each value type is settled on "
                                     "its own").format(
            type=value_type_name(entry.type), suits="/".join(suit_word(s) for s in entry.suits), give=entry.give,
            take=entry.take))
    if event.given:
        check(N_("§8 given cards"), ngettext("{cards} went to their discard pile(s)",
                                            "{cards} went to their discard pile(s)", len(event.given)).format(
            cards=", ".join(n(c) for c in event.given)))
    for taken, companion in event.attach.items():
        check(N_("§8 taken cards"), _("{card} was attached to {host}").format(card=n(taken), host=n(companion)))
    rest = [c for c in event.taken if c not in event.attach]
    if rest:
        check(N_("§8 taken cards"), ngettext("{cards} went to {hero}'s inventory", "{cards} went to {hero}'s inventory",
                                            len(rest)).format(cards=", ".join(n(c) for c in rest), hero=event.hero))


@_checks.register
def _obtained(event: e.SheetCardObtained, before, viewer, check: Check, n: Name) -> None:
    if event.battle:
        where = _("{mechanic} needs a location that allows it: {hero} was at {location} during a battle")
    else:
        where = _("{mechanic} needs a location that allows it: {hero} was at {location}")
    check(N_("§8 location"), where.format(mechanic=mechanic_name(event.mechanic), hero=event.hero, location=event.location))
    used = event.access
    check(N_("§8 access"), _("access for {suit} at {location} was {level} ({source}); the card's level must be at "
                            "most that, and access 0 admits nothing (the same rule as trading)").format(
        suit=suit_word(used.suit), location=event.location, level=used.level,
        source=_access_source(used.source, event.location, n)))
    came = _("{card} came from {source} and went to {to}; ").format(card=n(event.card), source=event.source,
                                                                    to=event.to)
    check(N_("§8 the master's decision"), came + (_("cost recorded as given: {cost}").format(cost=event.cost)
                                                if event.cost else _("no cost recorded")))


@_checks.register
def _activated(event: e.CardActivated, before, viewer, check: Check, n: Name) -> None:
    check(N_("§6 activation"), _("{hero} activated effect {effect} ({kind}) of {card} from {source}").format(
        hero=event.hero or _("the master"), effect=event.effect, kind=effect_kind_name(event.effect_kind),
        card=n(event.card),
        source=event.source))
    if event.allowed_by:
        check(N_("§6 activation"), _("activating a card {hero} does not control was allowed by the effect of {card}, "
                                    "an active card").format(hero=event.hero or _("the master"),
                                                             card=n(event.allowed_by)))
    if before is not None and event.hero and event.hero in before.table.heroes:
        need = before.card(event.card).knowledge or 0
        have = before.table.heroes[event.hero].knowledge
        check(N_("§6 knowledge"), _("{card} needs knowledge {need}; {hero} had {have}").format(
            card=n(event.card), need=need, hero=event.hero, have=have))
    if event.went_to:
        task = before.card(event.card).task if before is not None else None
        why = (_("its task keyword ({task}) wins").format(task=task) if task
               else _("activated from the inventory, a card is discarded"))
        check(N_("§6 from the inventory"), _("{card} went to {zone}: {why}").format(
            card=n(event.card), zone=event.went_to, why=why))
    elif event.source:
        check(N_("§6 in play"), _("activated from a table, an attachment or a zone, the card stays where and as it is"))
    if event.affected is not None:
        check(N_("§7 affected"), _("the effects of {card} in {source} reach {heroes} (its stack's affected: "
                                  "{affected}); a hero targeted is among them").format(
            card=n(event.card), source=event.source, heroes=_heroes(event.affected),
            affected=before.zone(event.source).affected if before else "?"))
    if before is not None and event.source and before.zone(event.source).is_stack and event.ruleset >= 3 \
            and before.table.host(event.card) is None:
        effect = before.card(event.card).effects[event.effect - 1]
        check(N_("§7 stack effects"), _("in {source} only the stack effects its stack lets count are used (use: "
                                       "{use}); effect {effect} is {spec}").format(
            source=event.source, use=before.zone(event.source).use, effect=event.effect, spec=effect))
    if event.action_points is not None or event.energies:
        paid = [ngettext("{n} action point(s)", "{n} action point(s)", event.action_points).format(
            n=event.action_points)] if event.action_points is not None else []
        paid += [f"{v} {k}" for k, v in event.energies.items()]
        check(N_("§6 costs"), _("paid {costs}: recorded as given, not enforced").format(costs=", ".join(paid)))


def _older_rules(ruleset: int) -> str | None:
    """A line saying that an action was decided under older rules than this ledger's (its
    checks, the words of what a hero may do included, read as its rules did), or None."""
    if ruleset >= RULESET:
        return None
    return _("decided under ruleset {ruleset} (this ledger's rules: {current})").format(
        ruleset=ruleset, current=RULESET)
