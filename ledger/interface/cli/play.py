"""Playing (CLI.md "Playing"): moving, turning and attaching cards, trading with the
discard pile, battles and access effects. Each command records one action."""

from __future__ import annotations

from typing import Any

import click

from ...i18n import N_, _
from .group import SignedArguments, cli
from .session import INTEGER, POSITION, Session, pairs, pass_session, record


@cli.command()
@click.argument("stack")
@click.option("--count", default=1, type=INTEGER, show_default=True, help="How many cards.")
@click.option("--to", "to", default=None, help="Where they go (default: the actor's inventory).")
@click.option("--seed", default=None, type=INTEGER, help="Master only: seed for a refill's shuffle.")
@pass_session
def draw(s: Session, stack: str, count: int, to: str | None, seed: int | None) -> None:
    """Draw from the top of a deck; an empty deck is first refilled from the depot.

    \b
    Example: ledger --actor ana draw deck:item --count 2
    """
    from ...commands import Draw

    record(s, Draw(actor=s.actor, stack=stack, count=count, to=to, seed=seed))


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--to", "to", required=True, help="The zone the cards go to.")
@click.option("--position", type=POSITION, default=None, help="top, bottom or N (1 = top); decks default to top.")
@click.option("--face", type=click.Choice(["up", "down"]), default=None, help="How they lie (not in stacks).")
@pass_session
def send(s: Session, cards: tuple[str, ...], to: str, position: Any, face: str | None) -> None:
    """Send cards to a zone; placement rules may redirect them (and say so).

    \b
    Example: ledger send item-sword --to table:ana
    """
    from ...commands import Send

    record(s, Send(actor=s.actor, cards=cards, to=to, position=position, face=face))


@cli.command()
@click.argument("cards", nargs=-1)
@click.option("--from", "stack", default=None, help="Discard from the top of this deck instead.")
@click.option("--count", default=1, type=INTEGER, show_default=True, help="With --from: how many.")
@click.option("--seed", default=None, type=INTEGER, help="Master only, with --from: seed for a refill's shuffle.")
@pass_session
def discard(s: Session, cards: tuple[str, ...], stack: str | None, count: int, seed: int | None) -> None:
    """Discard cards to their discard pile (face-up), or the top of a deck with --from.

    \b
    Example: ledger discard item-rope    |    ledger discard --from deck:item --count 2
    """
    from ...commands import Discard

    if not cards and stack is None:  # a missing argument: a usage error (exit 2), as click's own
        raise click.UsageError(_("name the cards to discard, or --from DECK to discard from the top of a deck"))
    record(s, Discard(actor=s.actor, cards=cards, stack=stack, count=count, seed=seed))


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--to", "to", default=None, help="A deck (default: the card's suit's campaign deck).")
@pass_session
def bury(s: Session, cards: tuple[str, ...], to: str | None) -> None:
    """Bury cards face-down at the bottom of their suit's deck (or --to a deck).

    \b
    Example: ledger bury item-torch
    """
    from ...commands import Bury

    record(s, Bury(actor=s.actor, cards=cards, to=to))


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@pass_session
def exile(s: Session, cards: tuple[str, ...]) -> None:
    """Exile cards to limbo.

    \b
    Example: ledger exile event-plague
    """
    from ...commands import Exile

    record(s, Exile(actor=s.actor, cards=cards))


@cli.command()
@click.argument("stack")
@click.option("--seed", default=None, type=INTEGER, help="Master only, for tests and demos: the same seed gives the same order, which anyone who knew the cards and guesses the seed can work out (without it, the system's secure random source).")
@click.option("--by", "by", default=None,
              help="The active card whose effect lets you shuffle (a hero needs one for a deck nobody owns).")
@pass_session
def shuffle(s: Session, stack: str, seed: int | None, by: str | None) -> None:
    """Shuffle a deck; the new order is recorded (replay never re-randomises).

    \b
    Example: ledger shuffle deck:item --seed 7
             ledger --actor ana shuffle deck:item --by skill-stealth
    """
    from ...commands import Shuffle

    record(s, Shuffle(actor=s.actor, stack=stack, seed=seed, by=by))


@cli.command()
@click.argument("stack")
@click.argument("more", nargs=-1, metavar="")
@click.option("--take", multiple=True, help="A card to take (repeat for more, or name them after it).")
@click.option("--to", "to", default=None, help="Where taken cards go (default: the actor's inventory).")
@click.option("--seed", default=None, type=INTEGER, help="Master only: seed for the reshuffle after.")
@click.option("--by", "by", default=None, help="The active card whose effect lets you search (heroes need one).")
@pass_session
def search(s: Session, stack: str, more: tuple[str, ...], take: tuple[str, ...], to: str | None, seed: int | None,
           by: str | None) -> None:
    """Look through a stack and take cards; a face-down deck is reshuffled after.

    \b
    Example: ledger search deck:item --take item-bow --to inventory:ana
             ledger --actor ana search deck:item --take item-bow item-rope --by skill-tracking
    """
    from ...commands import Search

    if more and not take:  # --take A B, as trade --take A B: the words beside --take are more cards to take
        raise click.UsageError(_("unexpected {word!r}: name the cards to take after --take").format(word=more[0]))
    record(s, Search(actor=s.actor, stack=stack, take=take + more, to=to, seed=seed, by=by))


def _cards_command(name: str, command: str, text: str) -> None:
    """A command that takes only cards: ``ledger NAME CARD...`` records ``commands.COMMAND``;
    ``text``: its help, marked ``N_()`` (translated when the help is shown)."""

    @cli.command(name, help=text)
    @click.argument("cards", nargs=-1, required=True)
    @pass_session
    def run(s: Session, cards: tuple[str, ...]) -> None:
        from ... import commands

        record(s, getattr(commands, command)(actor=s.actor, cards=cards))


@cli.command()
@click.argument("cards", nargs=-1, required=True)
@click.option("--to", "to", multiple=True, help="Show them to this hero only (repeat for more); they stay face-down.")
@pass_session
def reveal(s: Session, cards: tuple[str, ...], to: tuple[str, ...]) -> None:
    """Turn cards face-up, or with --to show face-down cards to chosen heroes only.

    \b
    Example: ledger reveal item-sword    |    ledger --actor ana reveal item-shield --to bo
    """
    from ...commands import Reveal

    record(s, Reveal(actor=s.actor, cards=cards, to=to))


_cards_command("hide", "Hide", N_("Turn cards face-down.\n\n\b\nExample: ledger hide item-sword"))
_cards_command("exhaust", "Exhaust", N_("Turn cards sideways (on a table, extra zone or scenario).\n\n\b\n"
                                        "Example: ledger exhaust item-sword"))
_cards_command("restore", "Restore", N_("Turn exhausted cards upright again.\n\n\b\nExample: ledger restore item-sword"))


@cli.command()
@click.argument("card")
@click.option("--to", "host", required=True, help="The host card.")
@pass_session
def attach(s: Session, card: str, host: str) -> None:
    """Attach a card to a host card in play.

    \b
    Example: ledger attach item-rope --to companion-wolf
    """
    from ...commands import Attach

    record(s, Attach(actor=s.actor, card=card, host=host))


@cli.command()
@click.argument("card")
@click.option("--to", "to", default=None, help="Where it goes (default: the host's zone).")
@pass_session
def detach(s: Session, card: str, to: str | None) -> None:
    """Detach a card from its host.

    \b
    Example: ledger detach item-rope --to inventory:ana
    """
    from ...commands import Detach

    record(s, Detach(actor=s.actor, card=card, to=to))


# -- battle, access effects, trading, activation (RULES.md §6, §8) ----------------------
@cli.group()
def battle() -> None:
    """Start or end a battle: during a battle every discard pile's access is 0.

    \b
    Example: ledger battle start
    """


@battle.command("start")
@pass_session
def battle_start(s: Session) -> None:
    """Start a battle: trading closes unless an effect reopens access.

    \b
    Example: ledger battle start
    """
    from ...commands import StartBattle

    record(s, StartBattle(actor=s.actor))


@battle.command("end")
@pass_session
def battle_end(s: Session) -> None:
    """End the battle.

    \b
    Example: ledger battle end
    """
    from ...commands import EndBattle

    record(s, EndBattle(actor=s.actor))


@cli.command(cls=SignedArguments)  # -1: a level refused as such
@click.argument("location_id")
@click.argument("suit")
@click.argument("level", type=INTEGER, required=False)
@click.option("--by", "by", default=None, help="The card whose effect changes the access.")
@click.option("--clear", is_flag=True, help="Remove the effect on this suit's access.")
@pass_session
def access(s: Session, location_id: str, suit: str, level: int | None, by: str | None, clear: bool) -> None:
    """Record an effect changing a location's access level (it applies in battle too).

    \b
    Example: ledger access village item 2 --by event-festival
             ledger access village item --clear
    """
    from ...commands import SetAccess

    if clear == (level is not None):
        raise click.UsageError(_("give a LEVEL with --by CARD, or --clear (not both)"))
    record(s, SetAccess(actor=s.actor, location=location_id, suit=suit, level=level, by=by, clear=clear))


def _trade_lists(tokens: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    """--take A B --give C D --attach A=W: each option takes every word up to the next option."""
    lists: dict[str, list[str]] = {"--take": [], "--give": [], "--attach": []}
    current: list[str] | None = None
    for token in tokens:
        if token in lists:
            current = lists[token]
        elif token.startswith("-"):
            raise click.UsageError(_("no such option: {option}").format(option=token))
        elif current is None:
            raise click.UsageError(_("unexpected {word!r}: name cards after --take or --give").format(word=token))
        else:
            current.append(token)
    return lists["--take"], lists["--give"], lists["--attach"]


@cli.command(context_settings={"ignore_unknown_options": True})
@click.argument("hero_id")
@click.argument("cards", nargs=-1, type=click.UNPROCESSED, metavar="--take CARD... [--give CARD...] [--attach TAKEN=COMPANION...]")
@pass_session
def trade(s: Session, hero_id: str, cards: tuple[str, ...]) -> None:
    """Trade with the discard pile (a full action): each value type settled on its own.

    Cards taken come from the discard pile; cards given must be the hero's own (inventory,
    table, or attached to their cards) and go to their discard piles.

    \b
    --take CARD...              the cards taken from the discard pile (at least one)
    --give CARD...              the hero's cards given for them
    --attach TAKEN=COMPANION    a card taken goes attached to a companion of the hero's

    \b
    Example: ledger trade ana --take item-bow --give item-sword item-rope
             ledger trade ana --take item-rope --give item-axe --attach item-rope=companion-wolf
    """
    from ...commands import Trade

    take, give, attach = _trade_lists(cards)
    if not take:
        raise click.UsageError(_("say which cards to take from the discard pile with --take CARD..."))
    record(s, Trade(actor=s.actor, hero=hero_id, take=tuple(take), give=tuple(give),
                    attach=pairs(tuple(attach), "--attach", number=False, example="item-bow=companion-wolf",
                                  form=N_("TAKEN=COMPANION"))))


@cli.command()
@click.argument("hero_id")
@click.argument("card")
@click.option("--by", "by", required=True, type=click.Choice(["progression", "incorporation"]),
              help="The mechanic (Progressão, Incorporação).")
@click.option("--to", "to", default=None, help="The hero's table (default) or extra zone.")
@click.option("--cost", default=None, help="What it cost, as the master decides (recorded, not enforced).")
@pass_session
def obtain(s: Session, hero_id: str, card: str, by: str, to: str | None, cost: str | None) -> None:
    """Master: a hero obtains a sheet card by progression or incorporation, at a location
    whose access admits its level (as for trading).

    \b
    Example: ledger obtain ana class-mage --by progression --cost "3 XP"
    """
    from ...commands import Obtain

    record(s, Obtain(actor=s.actor, hero=hero_id, card=card, by=by, to=to, cost=cost))


@cli.command()
@click.argument("card")
@click.option("--effect", type=INTEGER, default=None, help="Which effect (1 = the card's first); needed if several.")
@click.option("--hero", "hero_id", default=None, help="Who activates, when the master records it.")
@click.option("--target", default=None, help="The target, as text.")
@click.option("--note", default=None, help="A note for the record.")
@click.option("--ap", "action_points", type=INTEGER, default=None, help="Action points paid (recorded, not enforced).")
@click.option("--energy", "energies", multiple=True, help="KIND=N energy paid (recorded, not enforced).")
@click.option("--by", "by", default=None,
              help="The active card whose effect lets a hero activate one she does not control (the scenario's).")
@pass_session
def activate(s: Session, card: str, effect: int | None, hero_id: str | None, target: str | None, note: str | None,
             action_points: int | None, energies: tuple[str, ...], by: str | None) -> None:
    """Activate a card; from the inventory it is then discarded (or follows its task).

    \b
    Example: ledger --actor ana activate item-potion --target ana --ap 1
    """
    from ...commands import Activate

    record(s, Activate(actor=s.actor, card=card, effect=effect, hero=hero_id, target=target, note=note,
                       action_points=action_points, by=by,
                       energies=pairs(energies, "--energy", example="fire=1", form=N_("KIND=N"))))
