"""Every rule the ledger enforces, named once: its name, its section of RULES.md and
one line of text. Pure data, so that the read side (``projections/explain.py``) can
cite a rule by name without importing the rules themselves.

A rule's name is the name of the function in ``ledger.rules`` that decides it, in
kebab case (``acts_for`` is ``acts-for``); placement rules' names are also stored in
events (``Redirect.rule``), so they never change.
"""

from __future__ import annotations

from typing import NamedTuple

REFILL_LIMIT = 100  # RULES.md §4: an empty deck takes up to 100 cards of its suit from the depot

# The rules an action is decided under, recorded in every action so that ``verify``
# decides it again under the same rules: 1 = the first ledger; 2 = fair play (what a
# hero may do through the ledger, seen-aware undo, seeds for the master only); 3 = a
# card in a stack is activated only by the stack effects its stack lets count (seed 002).
RULESET = 3


class Rule(NamedTuple):
    name: str
    section: str  # of RULES.md, e.g. "§5" (undo is CLI.md's)
    text: str


RULEBOOK: tuple[Rule, ...] = (
    # -- §1 who acts: the master and the heroes -----------------------------------------
    Rule("actor-in-campaign", "§1", "an actor is the master or a hero of this campaign"),
    Rule("may-act-for", "§1", "the master may act for any hero; a hero acts only for themself"),
    Rule("acts-for", "§1", "only the master or that hero may act for a hero"),
    Rule("master-only", "§1", "the master runs the campaign: only the master adds heroes, cards, "
         "locations and battles, and records effects on a location's access"),
    Rule("hand-for", "§1", "cards a hero takes go to their inventory unless told otherwise; "
         "the master has no inventory"),
    Rule("new-hero", "§1", "a hero joins a campaign once"),
    Rule("knowledge-changes", "§1", "a knowledge change must change the hero's knowledge"),
    # -- §3 stacks -----------------------------------------------------------------------
    Rule("entry-face", "§3", "a card entering a stack takes the stack's orientation, however it gets there"),
    Rule("may-use-stack", "§3", "only the owner of a stack may use its cards; anyone may use a stack "
         "with no owner"),
    Rule("may-name", "§9", "a hero names only cards they can see, and only cards in the campaign"),
    Rule("may-move", "§3", "a hero moves only cards they can see, from zones they own or that nobody owns"),
    Rule("must-be-in", "§3", "an action takes a card only from the stack it names"),
    Rule("must-be-deck", "§3", "drawing, discarding from the top and burying work on decks"),
    Rule("must-be-stack", "§3", "searching works on decks and piles"),
    Rule("must-be-ordered", "§3", "only ordered stacks (decks) are shuffled; a pile's order has no meaning"),
    Rule("enough-to-shuffle", "§3", "a shuffle needs at least two cards"),
    Rule("position-in-range", "§3", "a card sent to a position goes between the cards already there"),
    # -- §4 campaign decks ---------------------------------------------------------------
    Rule("must-be-in-campaign", "§4", "cards in the box are not in the campaign until they are added"),
    Rule("must-be-in-box", "§4", "add brings cards from the box into the campaign"),
    Rule("may-add-to", "§4", "cards are added from the box to a zone of the campaign, not to the box"),
    Rule("refill-candidates", "§4", f"an empty deck is refilled with up to {REFILL_LIMIT} cards of its "
         "suit from the depot, shuffled face-down"),
    Rule("deck-can-give", "§4", "a deck the depot cannot refill stays empty and cannot be used "
         "until cards are added"),
    Rule("reshuffles-after-search", "§4", "after searching a face-down deck it is shuffled again"),
    # -- §5 where cards may be -----------------------------------------------------------
    Rule("sheet-card-placement", "§5", "a sheet card may only be on a table, in a deck, in a discard "
         "pile, attached or in an extra zone"),
    Rule("asset-knowledge-placement", "§5", "an asset card goes on a table only if the hero's knowledge "
         "meets its requirement"),
    Rule("placement", "§5", "a card sent to a zone goes where the placement rules say"),
    Rule("discard-pile-for", "§5", "discard sends a card to the discard pile of its format"),
    Rule("bury-deck-for", "§5", "bury puts a card face-down at the bottom of its suit's campaign deck"),
    Rule("not-already-in", "§5", "a card is not sent to the pile or limbo it already is in"),
    Rule("moves-something", "§5", "a send must move or turn at least one card"),
    # -- §5 attachments ------------------------------------------------------------------
    Rule("not-attached-to-itself", "§5", "a card cannot be attached to itself"),
    Rule("host-in-play", "§5", "a host is on a table, in an inventory, in an extra zone or in the scenario"),
    Rule("no-attachment-cycle", "§5", "a card cannot be attached to a card attached to it"),
    Rule("not-already-attached", "§5", "a card is not attached again to its own host"),
    Rule("must-be-attached", "§5", "only an attached card is detached"),
    # -- §6 activation -------------------------------------------------------------------
    Rule("activating-hero", "§6", "a hero activates as themself; the master names the hero, or the "
         "card's owner activates it"),
    Rule("may-activate", "§6", "a hero activates the cards they control and can see, in play"),
    Rule("chosen-effect", "§6", "manual activation uses an activate effect; a card with several names one"),
    Rule("from-inventory", "§6", "a card in an inventory, not attached, is activated from the inventory"),
    Rule("stack-effect-reaches", "§7", "a stack card's effects reach only the heroes its stack's affected setting "
         "names (none, the owner, all): a hero targeted must be among them"),
    Rule("effect-usable", "§6", "only activate effects work from the inventory; auto effects cost nothing; "
         "attached cards use only their attachment effects; a card in a stack only the stack effects its "
         "stack lets count (its use), face-up: exactly when its state there is active"),
    Rule("knowledge-meets", "§6", "a hero activates an asset card only if their knowledge meets its requirement"),
    Rule("activator-knowledge", "§6", "a card with a knowledge requirement is activated by a named hero"),
    Rule("after-activation-from-inventory", "§6", "activated from the inventory a card is discarded, "
         "unless its task keyword says where it goes"),
    # -- §7 card states ------------------------------------------------------------------
    Rule("card-states", "§7", "a card's states follow from where and how it lies"),
    Rule("may-exhaust", "§7", "only cards on a table, in an extra zone or in the scenario, not attached, "
         "are exhausted or restored"),
    Rule("not-already-face", "§7", "a card is turned only if it lies the other way"),
    Rule("shown-to-new-eyes", "§9", "a card is revealed to chosen heroes only while face-down in the campaign, "
         "to someone who cannot see it yet; they see it while it stays where it was shown"),
    Rule("not-already-tilted", "§7", "a card is exhausted or restored only if it is not so already"),
    # -- §8 locations, battle and trading ------------------------------------------------
    Rule("known-location", "§8", "a location must exist in the campaign"),
    Rule("new-location", "§8", "a location is added once"),
    Rule("access-levels", "§8", "a location's access level for each deck goes from 0 to 3"),
    Rule("not-already-at", "§8", "a hero travels to a location they are not at"),
    Rule("battle-toggles", "§8", "a battle starts when none is on and ends when one is on"),
    Rule("has-access-effect", "§8", "only an access effect that is recorded can be cleared"),
    Rule("obtains-sheet-only", "§8", "progression and incorporation obtain sheet cards; asset cards are traded"),
    Rule("obtained-from", "§8", "an obtained sheet card comes from where the master says, not from a hero's zones"),
    Rule("obtained-to", "§8", "an obtained sheet card goes to the hero's table or extra zone (§5)"),
    Rule("effect-source-active", "§8", "an effect on a location's access comes from an active card"),
    Rule("effective-access", "§8", "an effect sets a location's access; otherwise a battle closes every "
         "discard pile; otherwise the location's own level"),
    Rule("trades-assets-only", "§8", "only asset cards trade; sheet cards never trade"),
    Rule("controlled-by", "§8", "a hero controls the cards in their inventory, on their table, in their "
         "extra zone and attached to those"),
    Rule("gives-controlled", "§8", "a hero gives cards they control"),
    Rule("trading-location", "§8", "trading needs a location that allows it"),
    Rule("access-admits", "§8", "a card may be obtained only if its level is at most the access level; "
         "access 0 admits nothing"),
    Rule("settle-trade", "§8", "the cards given must be worth at least the cards taken, each value type "
         "settled on its own"),
    Rule("companion-takes", "§8", "a taken card may be attached to a companion the hero controls and keeps"),
    # -- undo and redo (CLI.md "History, replay, undo") ----------------------------
    Rule("something-to-undo", "CLI.md undo", "undo takes back an action still in force"),
    Rule("something-to-redo", "CLI.md undo", "redo applies again what the latest undo took back, "
         "if nothing came since"),
    Rule("may-take-back", "CLI.md undo", "the master may take back any action; a hero only their own"),
    # -- fair play: what a hero may do through the ledger (§1, §4, §8, §9) -----------
    Rule("knows-card", "§9", "a hero names only cards they can see; a hidden card and a missing one read the same"),
    Rule("searched-card", "§9", "a card a hero searches for and one that does not exist read the same"),
    Rule("controls-card", "§8", "a hero moves, turns or tilts only cards they control; the discard pile "
         "is reached by trading"),
    Rule("sends-to-own-zone", "§3", "a hero puts cards only into their own zones (and plays them into the "
         "scenario); the master anywhere"),
    Rule("seed-is-the-masters", "§4", "only the master chooses a seed; every other shuffle draws its seed "
         "from the system"),
    Rule("search-allowed", "§4", "a hero searches a stack only by the effect of an active card they control"),
    Rule("showed-nothing-hidden", "§9", "a hero may not take back an action that showed anyone a hidden card"),
    Rule("keeps-order-by-master", "§9", "keeping a seen deck's order after an undo is the master's decision"),
    Rule("redoes-own-undo", "§9", "a hero redoes only their own undo"),
    Rule("master-sets-knowledge", "§1", "only the master changes a hero's knowledge"),
    Rule("master-discards-from-decks", "§4", "only the master discards from the top of a deck"),
    Rule("decks-to-reshuffle", "§9", "an undo shuffles again every face-down deck a card it returns was seen "
         "going out of"),
)

# What a hero may do with each action (the master may do anything): fair play, once.
HERO_MAY: dict[str, str] = {
    "init": "only the master starts a campaign",
    "hero add": "only the master adds heroes",
    "hero knowledge": "only the master changes a hero's knowledge",
    "add": "only the master brings cards from the box",
    "draw": "a hero draws from a deck nobody owns or their own, into their own inventory, table or extra "
            "zone; the refill's seed comes from the system",
    "send": "a hero sends cards they control to their own inventory, table or extra zone, or the scenario",
    "discard": "a hero discards cards they control; only the master discards from the top of a deck",
    "bury": "a hero buries cards they control",
    "exile": "a hero exiles cards they control",
    "shuffle": "a hero shuffles a deck nobody owns or their own, with a seed from the system",
    "search": "a hero searches by the effect of an active card they control, taking cards into their own zones",
    "reveal": "a hero reveals cards they control, to everyone or to chosen heroes",
    "hide": "a hero hides cards they control",
    "exhaust": "a hero exhausts cards they control",
    "restore": "a hero restores cards they control",
    "attach": "a hero attaches a card they control to a card they control",
    "detach": "a hero detaches a card they control, into their own zones",
    "activate": "a hero activates cards they control, or stack cards whose stack effects reach them",
    "trade": "a hero trades for themself, giving cards they control",
    "obtain": "only the master records a sheet card obtained by progression or incorporation (the master "
              "decides where it comes from and what it costs)",
    "travel": "a hero travels themself",
    "location add": "only the master adds locations",
    "battle start": "only the master starts a battle",
    "battle end": "only the master ends a battle",
    "access": "only the master records an effect on a location's access",
    "undo": "a hero takes back only their own actions, and none that showed anyone a hidden card",
    "redo": "a hero redoes only their own undo",
}

BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULEBOOK}


def rule(name: str) -> Rule:
    """The rule named ``name`` (a ``KeyError`` if there is none)."""
    return BY_NAME[name]


def rule_text(name: str) -> str:
    """The one line that states the rule named ``name``."""
    return BY_NAME[name].text


def rule_section(name: str) -> str:
    """The section of RULES.md the rule named ``name`` comes from (e.g. ``§5``)."""
    return BY_NAME[name].section
