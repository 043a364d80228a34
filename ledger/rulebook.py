"""Every rule the ledger enforces, named once: its name, its section of RULES.md and
one line of text. Pure data, so that the read side (``projections/explain.py``) can
cite a rule by name without importing the rules themselves. The texts (and ``HERO_MAY``'s)
are English message ids, marked ``N_``: whoever shows one translates it with ``_()``. A
text names the rulebook's figures by placeholder (``{limit}``, ``REFILL_LIMIT``): ``stated``
translates a rule's text and fills them in.

A rule's name is the name of the function in ``ledger.rules`` that decides it, in
kebab case (``acts_for`` is ``acts-for``); placement rules' names are also stored in
events (``Redirect.rule``), so they never change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple


def N_(text: str) -> str:
    """Marks a text for translation (``ledger.i18n.N_``, kept here so that the rulebook
    imports nothing of the ledger): the texts stay English, the read side shows them
    through ``ledger.i18n._``."""
    return text


REFILL_LIMIT = 100  # RULES.md §4: an empty deck takes up to 100 cards of its suit from the depot
ENERGY_KINDS = 20  # kinds of energy one activation may record as paid (from ruleset 9)
MOST_PAID = 100  # of any one kind, as of action points (from ruleset 9)
ENERGY_NAME = 40  # characters that name a kind of energy (from ruleset 10)

# The rules an action is decided under, recorded in every action so that ``verify``
# decides it again under the same rules: 1 = the first ledger; 2 = fair play (what a
# hero may do through the ledger, seen-aware undo, seeds for the master only); 3 = a
# card in a stack is activated only by the stack effects its stack lets count (seed 002);
# 4 = no redo of an undo that shuffled decks again (fair play: their new order stays unseen);
# 5 = the state digest every hundredth action records covers the order of the heroes too
# (``ledger.snapshots.ORDERED_FROM``: a snapshot with its heroes reordered no longer checks out);
# 6 = a hero buries a card only into its suit's deck or a deck of their own (fair play);
# 7 = a hero searches only a face-down deck or a stack of their own, and may not take back an
# action that refilled a deck from the depot (its order was left to chance: fair play);
# 8 = a hero names no card of a face-down deck, even one of their own they may look through,
# and puts a card they name into one only by bury (a free search, a stacked deck: fair play);
# 9 = a hero may not take back an action that shuffled a stack whose new order they could see
# (a face-up one, or a deck of their own they may look through: shuffling again until the order
# suits would be picking it), and a hero's search that names hidden cards the stack does not hold
# is recorded, missing them, rather than refused (a free probe of what a deck holds; fair play);
# and an activation records energies paid from 0 to MOST_PAID, of at most ENERGY_KINDS kinds;
# 10 = a hero may not take back a search that missed a card they named (it told them what the
# stack lacks, and the undo would return the order from before its reshuffle: fair play), and
# an energy's kind is named in at most ENERGY_NAME characters; the free text an action records
# (target, note, kinds of energy, a hero's name, a cost) is printable, on one line; and a shuffle
# records the new order of a stack of two cards or more even when it is the old one (whether the
# order moved was seen by all), and a hero does not shuffle a stack whose order they can see
# (shuffling until the order suits: fair play); 11 = a face-down deck holding a face-up card
# (turned so in it by an effect; a shuffle leaves it face-up) is one whose order a hero can see:
# they do not shuffle it, search it taking nothing, nor take back such a shuffle (shuffling until
# that card lands on top would be picking the next draw: fair play); 12 = an undo or a redo
# records each change as made to the table as it stands (``Play.apply_again``): it changes only
# what the recorded change changed (whom a card is shown to, hero by hero), the record no longer
# says a card was shown to a hero who could not tell it apart then, and no card is shown again to
# a hero, nor an older order put back, in a deck an undo shuffled again since the change was
# recorded (RULES.md §9; fair play: undoing and redoing her own shuffle gave a hero back the order
# she had drawn from before the master's undo shuffled the deck again), and a redo is refused when
# an undo has shuffled again a deck its actions order or put cards in, since they were recorded
# (applied again, their cards' old places would rebuild an order someone saw); 13 = an effect on a
# location's access holds while the card that causes it is active (RULES.md §7-8: an event
# discarded or exiled from the scenario no longer opens the discard pile; before, it did until the
# master cleared it: ``ledger.states.effect_in_force``); 14 = a campaign deck holds the cards of
# its own suit (RULES.md §2, seed 001: "um para cartas de cada naipe"; a card sent, added, buried
# or drawn into a deck of another suit is refused: a typo, deck:skill for deck:item, put an item
# among the skills silently, and a later search pulled it out of the wrong deck), and a search of
# an empty stack is refused (there is nothing to look through; it was recorded, reshuffling
# nothing, and a hero could not take it back, as a search that missed), and a card sent to the
# pile keeping no order that it lies in (the discard pile) is nothing to do (it was recorded
# each time, moving it to the pile's end, while --position top on it was refused); a search of a
# deck of one suit for a card of another is refused by the catalog before it looks (a hero's was
# recorded as a miss she could not take back), and a draw into the deck drawn from is refused;
# 15 = a hero id that would name a zone the campaign has already, through a format's stack made
# for each hero (hero ``item`` and ``deck:{hero}``: ``deck:item``), is refused (RULES.md §3: the
# hero's zone replaced the campaign's item deck, which she then looked through as her own), and
# a discard of named cards given a count or a seed (which go with a discard from a deck's top,
# and were passed over without a word) is refused, as is the master's search --by a card that is
# not active (the record would say its effect allowed the search; the master needs no --by);
# 16 = an access change without a level says it clears the effect (``clear``): a table-server
# body that left its level out (``"by"`` alone too) cleared the effect silently, the opposite of
# what the master meant, where the CLI's ``--clear`` was always explicit; and ``undo --to SEQ``
# takes back every action in force that was not at SEQ, those a redo after SEQ applied again
# too (a redone action keeps its own seq: it was left in force, the table not the one at SEQ);
# and an undo records the master's ``keep_order`` only where it kept a deck's order (the history
# said so of undos that returned no card to any deck); and an action's summary names the cards
# attached to a card it moved that went along (``projections.summaries``; the stored summaries
# of older actions stay as written); 17 = a search, or an access effect, names (``--by``) a card
# that has an effect (seeds 000-001: they come from effects; any face-up card a hero controlled
# allowed her a search, as often as she liked); and a hero shuffles a stack nobody owns, or
# activates a card of the scenario, only by such an effect, named with ``--by`` (seeds 001-002: a
# deck keeps its order unless an effect allows reordering it; by default a hero activates only
# the cards she controls): she shuffled away a card the master had put on top of a deck; and a
# hero's search may name the card she played from her hand in her action just before (it went
# to the discard pile as it was activated, and its search was refused); 18 = an undo may name the
# action it is meant for (``seq``), and is refused unless that is the latest action in force (the
# table page's Undo names the action it shows: a master's tap took back a hero's draw recorded a
# moment before it, for good).
RULESET = 18


class Rule(NamedTuple):
    name: str
    section: str  # of RULES.md, e.g. "§5" (undo is CLI.md's)
    text: str


RULEBOOK: tuple[Rule, ...] = (
    # -- §1 who acts: the master and the heroes -----------------------------------------
    Rule("actor-in-campaign", "§1", N_("an actor is the master or a hero of this campaign")),
    Rule("may-act-for", "§1", N_("the master may act for any hero; a hero acts only for themself")),
    Rule("acts-for", "§1", N_("only the master or that hero may act for a hero")),
    Rule("master-only", "§1", N_("the master runs the campaign: only the master adds heroes, cards, "
         "locations and battles, and records effects on a location's access")),
    Rule("hand-for", "§1", N_("cards a hero takes go to their inventory unless told otherwise; "
         "the master has no inventory")),
    Rule("new-hero", "§1", N_("a hero joins a campaign once")),
    Rule("hero-zones-new", "§3", N_("the zones a format makes for each hero are the new hero's own: a hero id "
         "that would name a zone the campaign has already is refused")),
    Rule("knowledge-changes", "§1", N_("a knowledge change must change the hero's knowledge")),
    # -- §3 stacks -----------------------------------------------------------------------
    Rule("entry-face", "§3", N_("a card entering a stack takes the stack's orientation, however it gets there")),
    Rule("may-use-stack", "§3", N_("only the owner of a stack may use its cards; anyone may use a stack "
         "with no owner")),
    Rule("may-name", "§9", N_("a hero names only cards they can see, and only cards in the campaign")),
    Rule("may-move", "§3", N_("a hero moves only cards they can see, from zones they own or that nobody owns")),
    Rule("must-be-in", "§3", N_("an action takes a card only from the stack it names")),
    Rule("must-be-deck", "§3", N_("drawing, discarding from the top and burying work on decks")),
    Rule("must-be-stack", "§3", N_("searching works on decks and piles")),
    Rule("must-be-ordered", "§3", N_("only ordered stacks (decks) are shuffled; a pile's order has no meaning")),
    Rule("enough-to-shuffle", "§3", N_("a shuffle needs at least two cards")),
    Rule("position-in-range", "§3", N_("a card sent to a position goes between the cards already there")),
    # -- §4 campaign decks ---------------------------------------------------------------
    Rule("must-be-in-campaign", "§4", N_("cards in the box are not in the campaign until they are added")),
    Rule("must-be-in-box", "§4", N_("add brings cards from the box into the campaign")),
    Rule("may-add-to", "§4", N_("cards are added from the box to a zone of the campaign, not to the box")),
    Rule("refill-candidates", "§4", N_("an empty deck is refilled with up to {limit} cards of its "
         "suit from the depot, shuffled face-down")),
    Rule("deck-can-give", "§4", N_("a deck the depot cannot refill stays empty and cannot be used "
         "until cards are added")),
    Rule("reshuffles-after-search", "§4", N_("after searching a face-down deck it is shuffled again")),
    Rule("something-to-search", "§4", N_("a search looks through a stack that holds cards")),
    Rule("deck-holds-its-suit", "§4", N_("a campaign deck holds the cards of its own suit")),
    Rule("draws-into-its-suit", "§4", N_("a draw into a deck of one suit is from a deck of that suit")),
    Rule("searched-in-its-suit", "§4", N_("a search of a deck of one suit looks for cards of that suit")),
    Rule("draws-elsewhere", "§4", N_("a draw takes cards out of the deck it draws from")),
    # -- §5 where cards may be -----------------------------------------------------------
    Rule("sheet-card-placement", "§5", N_("a sheet card may only be on a table, in a deck, in a discard "
         "pile, attached or in an extra zone")),
    Rule("asset-knowledge-placement", "§5", N_("an asset card goes on a table only if the hero's knowledge "
         "meets its requirement")),
    Rule("placement", "§5", N_("a card sent to a zone goes where the placement rules say")),
    Rule("discard-pile-for", "§5", N_("discard sends a card to the discard pile of its format")),
    Rule("bury-deck-for", "§5", N_("bury puts a card face-down at the bottom of its suit's campaign deck")),
    Rule("not-already-in", "§5", N_("a card is not sent to the pile or limbo it already is in")),
    Rule("moves-something", "§5", N_("a send must move or turn at least one card")),
    # -- §5 attachments ------------------------------------------------------------------
    Rule("not-attached-to-itself", "§5", N_("a card cannot be attached to itself")),
    Rule("host-in-play", "§5", N_("a host is on a table, in an inventory, in an extra zone or in the scenario")),
    Rule("no-attachment-cycle", "§5", N_("a card cannot be attached to a card attached to it")),
    Rule("not-already-attached", "§5", N_("a card is not attached again to its own host")),
    Rule("must-be-attached", "§5", N_("only an attached card is detached")),
    # -- §6 activation -------------------------------------------------------------------
    Rule("activating-hero", "§6", N_("a hero activates as themself; the master names the hero, or the "
         "card's owner activates it")),
    Rule("may-activate", "§6", N_("a hero activates the cards they control and can see, in play")),
    Rule("chosen-effect", "§6", N_("manual activation uses an activate effect; a card with several names one")),
    Rule("from-inventory", "§6", N_("a card in an inventory, not attached, is activated from the inventory")),
    Rule("stack-effect-reaches", "§7", N_("a stack card's effects reach only the heroes its stack's affected setting "
         "names (none, the owner, all): a hero targeted must be among them")),
    Rule("energies-paid", "§7", N_("an activation records as paid whole amounts of energy from 0 to {most_paid}, "
         "of at most {energy_kinds} kinds, each named in at most {energy_name} characters")),
    Rule("effect-usable", "§6", N_("only activate effects work from the inventory; auto effects cost nothing; "
         "attached cards use only their attachment effects; a card in a stack only the stack effects its "
         "stack lets count (its use), face-up: exactly when its state there is active")),
    Rule("knowledge-meets", "§6", N_("a hero activates an asset card only if their knowledge meets its requirement")),
    Rule("activator-knowledge", "§6", N_("a card with a knowledge requirement is activated by a named hero")),
    Rule("after-activation-from-inventory", "§6", N_("activated from the inventory a card is discarded, "
         "unless its task keyword says where it goes")),
    # -- §7 card states ------------------------------------------------------------------
    Rule("card-states", "§7", N_("a card's states follow from where and how it lies")),
    Rule("may-exhaust", "§7", N_("only cards on a table, in an extra zone or in the scenario, not attached, "
         "are exhausted or restored")),
    Rule("not-already-face", "§7", N_("a card is turned only if it lies the other way")),
    Rule("shown-to-new-eyes", "§9", N_("a card is revealed to chosen heroes only while face-down in the campaign, "
         "to someone who cannot see it yet; they see it while it stays where it was shown")),
    Rule("not-already-tilted", "§7", N_("a card is exhausted or restored only if it is not so already")),
    # -- §8 locations, battle and trading ------------------------------------------------
    Rule("known-location", "§8", N_("a location must exist in the campaign")),
    Rule("new-location", "§8", N_("a location is added once")),
    Rule("access-levels", "§8", N_("a location's access level for each deck goes from 0 to 3")),
    Rule("access-changes", "§8", N_("a correction of a location's access levels changes some level")),
    Rule("not-already-at", "§8", N_("a hero travels to a location they are not at")),
    Rule("battle-toggles", "§8", N_("a battle starts when none is on and ends when one is on")),
    Rule("has-access-effect", "§8", N_("only an access effect that is recorded can be cleared")),
    Rule("obtains-sheet-only", "§8", N_("progression and incorporation obtain sheet cards; asset cards are traded")),
    Rule("obtained-from", "§8", N_("an obtained sheet card comes from where the master says, not from a hero's zones")),
    Rule("obtained-to", "§8", N_("an obtained sheet card goes to the hero's table or extra zone (§5)")),
    Rule("effect-source-active", "§8", N_("an effect on a location's access comes from an active card")),
    Rule("effective-access", "§8", N_("an effect sets a location's access while its card is active; otherwise a "
         "battle closes every discard pile; otherwise the location's own level")),
    Rule("trades-assets-only", "§8", N_("only asset cards trade; sheet cards never trade")),
    Rule("controlled-by", "§8", N_("a hero controls the cards in their inventory, on their table, in their "
         "extra zone and attached to those")),
    Rule("gives-controlled", "§8", N_("a hero gives cards they control")),
    Rule("trading-location", "§8", N_("trading needs a location that allows it")),
    Rule("access-admits", "§8", N_("a card may be obtained only if its level is at most the access level; "
         "access 0 admits nothing")),
    Rule("settle-trade", "§8", N_("the cards given must be worth at least the cards taken, each value type "
         "settled on its own")),
    Rule("companion-takes", "§8", N_("a taken card may be attached to a companion the hero controls and keeps")),
    # -- undo and redo (CLI.md "History, replay, undo") ----------------------------
    Rule("something-to-undo", "CLI.md undo", N_("undo takes back an action still in force")),
    Rule("undoes-the-action-named", "CLI.md undo", N_("undo --seq SEQ takes back seq SEQ only while it is the latest "
         "action in force")),
    Rule("something-in-force-since", "CLI.md undo", N_("undo --to SEQ takes back the actions in force that were "
         "not at SEQ: those recorded after it, and those a redo after it applied again")),
    Rule("something-to-redo", "CLI.md undo", N_("redo applies again what the latest undo took back, "
         "if nothing came since")),
    Rule("undo-kept-the-order", "§9", N_("a redo applies again only an undo that shuffled no deck again")),
    Rule("decks-not-shuffled-since", "§9", N_("a redo applies again only actions whose decks no undo has "
         "shuffled again since")),
    Rule("may-take-back", "CLI.md undo", N_("the master may take back any action; a hero only their own")),
    # -- fair play: what a hero may do through the ledger (§1, §4, §8, §9) -----------
    Rule("knows-card", "§9", N_("a hero names only cards they can see; a hidden card and a missing one read the same")),
    Rule("searched-cards", "§9", N_("a hero's search of a stack takes the hidden cards they named that it holds and "
         "records the others as not found; no refusal tells a hero where a hidden card lies")),
    Rule("controls-card", "§8", N_("a hero moves, turns or tilts only cards they control, never a card of a "
         "face-down deck by name; the discard pile is reached by trading")),
    Rule("sends-to-own-zone", "§3", N_("a hero puts cards only into their own zones (and plays them into the "
         "scenario), cards they name into a face-down deck only by bury; the master anywhere")),
    Rule("buries-where-allowed", "§5", N_("a hero buries a card into its suit's deck or a deck of their own; the "
         "master into any deck")),
    Rule("seed-is-the-masters", "§4", N_("only the master chooses a seed; every other shuffle draws its seed "
         "from the system")),
    Rule("search-allowed", "§4", N_("a hero searches a stack only by the effect of an active card they control")),
    Rule("shuffle-allowed", "§3", N_("a hero shuffles a stack nobody owns only by the effect of an active card they "
         "control; a deck keeps its order otherwise")),
    Rule("activation-allowed", "§6", N_("a hero activates a card they do not control (the scenario's) only by the "
         "effect of an active card they control")),
    Rule("searches-decks", "§4", N_("a hero searches a face-down deck or a stack of their own; the discard pile is "
         "reached by trading, the depot by the master")),
    Rule("showed-nothing-hidden", "§9", N_("a hero may not take back an action that showed anyone a hidden card, "
         "nor a search that missed a card they named")),
    Rule("left-nothing-to-chance", "§9", N_("a hero may not take back an action that refilled a deck from the depot "
         "or shuffled a stack whose new order, or the place of a face-up card in it, they could see (its order was "
         "left to chance)")),
    Rule("keeps-order-by-master", "§9", N_("keeping a seen deck's order after an undo is the master's decision")),
    Rule("redoes-own-undo", "§9", N_("a hero redoes only their own undo")),
    Rule("master-sets-knowledge", "§1", N_("only the master changes a hero's knowledge")),
    Rule("master-discards-from-decks", "§4", N_("only the master discards from the top of a deck")),
    Rule("shuffles-unseen-order", "§9", N_("a hero does not shuffle a stack whose order they can see, nor shuffle "
         "or search a deck holding a face-up card; the master does")),
    Rule("printable-text", "§9", N_("the text an action records (a target, a note, a kind of energy, a name, a "
         "cost) is printable, on one line")),
    Rule("decks-to-reshuffle", "§9", N_("an undo shuffles again every face-down deck a card it returns was "
         "seen going out of")),
)

# What a hero may do with each action (the master may do anything): fair play, once.
HERO_MAY: dict[str, str] = {
    "init": N_("only the master starts a campaign"),
    "hero add": N_("only the master adds heroes"),
    "hero knowledge": N_("only the master changes a hero's knowledge"),
    "add": N_("only the master brings cards from the box"),
    "draw": N_("a hero draws from a deck nobody owns or their own, into their own inventory, table or extra "
            "zone; the refill's seed comes from the system"),
    "send": N_("a hero sends cards they control to their own inventory, table or extra zone, or the scenario"),
    "discard": N_("a hero discards cards they control; only the master discards from the top of a deck"),
    "bury": N_("a hero buries cards they control"),
    "exile": N_("a hero exiles cards they control"),
    "shuffle": N_("a hero shuffles a deck of their own, or one nobody owns by the effect of an active card they "
               "control, with a seed from the system, but none whose order they can see, nor one holding a face-up "
               "card"),
    "search": N_("a hero searches a face-down deck or a stack of their own, by the effect of an active card they "
              "control, taking cards into their own zones, but no deck holding a face-up card"),
    "reveal": N_("a hero reveals cards they control, to everyone or to chosen heroes"),
    "hide": N_("a hero hides cards they control"),
    "exhaust": N_("a hero exhausts cards they control"),
    "restore": N_("a hero restores cards they control"),
    "attach": N_("a hero attaches a card they control to a card they control"),
    "detach": N_("a hero detaches a card they control, into their own zones"),
    "activate": N_("a hero activates cards they control, stack cards whose stack effects reach them, or a card of "
                "the scenario by the effect of an active card they control"),
    "trade": N_("a hero trades for themself, giving cards they control"),
    "obtain": N_("only the master records a sheet card obtained by progression or incorporation (the master "
              "decides where it comes from and what it costs)"),
    "travel": N_("a hero travels themself"),
    "location add": N_("only the master adds locations"),
    "location set": N_("only the master corrects a location's access levels"),
    "battle start": N_("only the master starts a battle"),
    "battle end": N_("only the master ends a battle"),
    "access": N_("only the master records an effect on a location's access"),
    "undo": N_("a hero takes back only their own actions, and none that showed anyone a hidden card, missed a "
            "searched card, refilled a deck or shuffled one whose new order, or the place of a face-up card in "
            "it, they could see"),
    "redo": N_("a hero redoes only their own undo"),
}

FAIR_PLAY_FROM = 2  # the ruleset from which HERO_MAY holds (ruleset 1: a hero acted as the master)

# What HERO_MAY said before a ruleset changed its words: an action is explained by the words in
# force when it was decided. For each action, (the first ruleset of the next words, the older
# words), oldest first.
HERO_MAY_BEFORE: dict[str, tuple[tuple[int, str], ...]] = {
    "search": ((7, N_("a hero searches by the effect of an active card they control, taking cards into their own "
                      "zones")),
               (11, N_("a hero searches a face-down deck or a stack of their own, by the effect of an active card "
                       "they control, taking cards into their own zones"))),
    "shuffle": ((10, N_("a hero shuffles a deck nobody owns or their own, with a seed from the system")),
                (11, N_("a hero shuffles a deck nobody owns or their own, with a seed from the system, but none whose "
                        "order they can see")),
                (17, N_("a hero shuffles a deck nobody owns or their own, with a seed from the system, but none whose "
                        "order they can see, nor one holding a face-up card"))),
    "activate": ((17, N_("a hero activates cards they control, or stack cards whose stack effects reach them")),),
    "undo": ((7, N_("a hero takes back only their own actions, and none that showed anyone a hidden card")),
             (9, N_("a hero takes back only their own actions, and none that showed anyone a hidden card or "
                    "refilled a deck")),
             (10, N_("a hero takes back only their own actions, and none that showed anyone a hidden card, "
                     "refilled a deck or shuffled one whose new order they could see")),
             (11, N_("a hero takes back only their own actions, and none that showed anyone a hidden card, missed a "
                     "searched card, refilled a deck or shuffled one whose new order they could see"))),
}


def hero_may(action: str, ruleset: int) -> str | None:
    """What a hero may do with ``action`` under ``ruleset`` (a message id of HERO_MAY or of
    its older words), or None: no such action, or a ruleset before fair play."""
    if ruleset < FAIR_PLAY_FROM:
        return None
    for until, words in HERO_MAY_BEFORE.get(action, ()):
        if ruleset < until:
            return words
    return HERO_MAY.get(action)


BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULEBOOK}


def rule(name: str) -> Rule:
    """The rule named ``name`` (a ``KeyError`` if there is none)."""
    return BY_NAME[name]


def rule_text(name: str) -> str:
    """The one line that states the rule named ``name``: its message id, figures as
    placeholders (``{limit}``); ``stated`` gives it as a person reads it."""
    return BY_NAME[name].text


FIGURES = {"limit": REFILL_LIMIT, "energy_kinds": ENERGY_KINDS, "most_paid": MOST_PAID, "energy_name": ENERGY_NAME}
"""The figures a rule's text names by placeholder, filled in after translation."""


def stated(name: str, translate: Callable[[str], str] = str) -> str:
    """The rule named ``name`` as a person reads it: its text translated by ``translate``
    (``ledger.i18n._``, the language being spoken; without it, English), then its
    figures filled in ("... refilled with up to 100 cards of its suit ...").
    """
    return translate(BY_NAME[name].text).format(**FIGURES)


def rule_section(name: str) -> str:
    """The section of RULES.md the rule named ``name`` comes from (e.g. ``§5``)."""
    return BY_NAME[name].section
