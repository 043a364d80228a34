"""The rules of RULES.md, each once, as named functions of the campaign's state.

Rules decide; they never change state. Each returns what the rule says (a
destination, a face, a hero) or raises a ``LedgerError`` whose message carries the
state that made the action illegal. Each rule is named, with its section and one
line of text, in ``ledger.rulebook``; tests are named after the rules.

One module per topic; this package re-exports them all (``rules.acts_for``):

- ``actors``: who may act, and for whom (§1, §3, §9)
- ``heroes``: joining a campaign, changing knowledge (§1)
- ``stacks``: stacks and campaign decks (§3, §4)
- ``placement``: where cards may be, discard and bury (§5)
- ``attachments``: attaching cards to cards (§5)
- ``activation``: activating cards (§6)
- ``states``: card states (§7; derived in ``ledger.states``)
- ``locations``: locations, battle, access levels (§8)
- ``trading``: trading with the discard pile (§8)
- ``undo``: undo and redo
- ``fair_play``: what a hero may do through the ledger (§1, §4, §8, §9)

Refusals are written in the language being spoken (``ledger.i18n``); ``words`` gives
the verbs the handlers name (``"send"``, ``"draw from"``) in that language.
"""

from __future__ import annotations

from ..rulebook import REFILL_LIMIT, rule_text
from .activation import (
    activating_hero,
    activator_knowledge,
    after_activation_from_inventory,
    chosen_effect,
    effect_usable,
    energies_paid,
    from_inventory,
    knowledge_meets,
    may_activate,
    stack_effect_reaches,
)
from .actors import (
    actor_in_campaign,
    acts_for,
    hand_for,
    master_only,
    may_act_for,
    may_move,
    may_name,
    may_use_stack,
)
from .attachments import (
    host_in_play,
    must_be_attached,
    no_attachment_cycle,
    not_already_attached,
    not_attached_to_itself,
)
from .fair_play import (
    activation_allowed,
    buries_where_allowed,
    controls_card,
    decks_to_reshuffle,
    keeps_order_by_master,
    knows_card,
    left_nothing_to_chance,
    master_discards_from_decks,
    master_sets_knowledge,
    printable_text,
    redoes_own_undo,
    search_allowed,
    searched_cards,
    searches_decks,
    seed_is_the_masters,
    sends_to_own_zone,
    showed_nothing_hidden,
    shuffle_allowed,
    shuffles_unseen_order,
)
from .heroes import hero_zones_new, knowledge_changes, new_hero
from .locations import (
    access_changes,
    access_levels,
    battle_toggles,
    effect_source_active,
    effective_access,
    has_access_effect,
    known_location,
    new_location,
    not_already_at,
)
from .obtaining import obtained_from, obtained_to, obtains_sheet_only
from .placement import (
    PLACEMENT_RULES,
    SHEET_CARD_ZONES,
    asset_knowledge_placement,
    bury_deck_for,
    deck_holds_its_suit,
    discard_pile_for,
    draws_elsewhere,
    draws_into_its_suit,
    moves_something,
    not_already_in,
    placement,
    searched_in_its_suit,
    sheet_card_placement,
)
from .stacks import (
    deck_can_give,
    enough_to_shuffle,
    entry_face,
    may_add_to,
    must_be_deck,
    must_be_in,
    must_be_in_box,
    must_be_in_campaign,
    must_be_ordered,
    must_be_stack,
    position_in_range,
    refill_candidates,
    reshuffles_after_search,
    something_to_search,
)
from .states import card_states, may_exhaust, not_already_face, not_already_tilted, shown_to_new_eyes
from .trading import (
    TRADE_PILE,
    access_admits,
    companion_takes,
    controlled_by,
    gives_controlled,
    settle_trade,
    trades_assets_only,
    trading_location,
)
from .undo import (
    decks_not_shuffled_since,
    may_take_back,
    something_in_force_since,
    something_to_redo,
    something_to_undo,
    undo_kept_the_order,
    undoes_the_action_named,
)

__all__ = [
    # data and the rulebook's API
    "PLACEMENT_RULES", "REFILL_LIMIT", "SHEET_CARD_ZONES", "TRADE_PILE", "rule_text",
    # §1 actors and heroes
    "actor_in_campaign", "may_act_for", "acts_for", "master_only", "hand_for", "new_hero", "hero_zones_new",
    "knowledge_changes",
    # §3 stacks, §9 naming cards
    "entry_face", "may_use_stack", "may_name", "may_move", "must_be_in", "must_be_deck", "must_be_stack",
    "must_be_ordered", "enough_to_shuffle", "position_in_range",
    # §4 campaign decks
    "must_be_in_campaign", "must_be_in_box", "may_add_to", "refill_candidates", "deck_can_give",
    "reshuffles_after_search", "something_to_search", "deck_holds_its_suit", "draws_into_its_suit",
    "searched_in_its_suit", "draws_elsewhere",
    # §5 placement and attachments
    "sheet_card_placement", "asset_knowledge_placement", "placement", "discard_pile_for", "bury_deck_for",
    "not_already_in", "moves_something", "not_attached_to_itself", "host_in_play", "no_attachment_cycle",
    "not_already_attached", "must_be_attached",
    # §6 activation
    "activating_hero", "may_activate", "chosen_effect", "from_inventory", "effect_usable", "energies_paid",
    "stack_effect_reaches", "knowledge_meets",
    "activator_knowledge", "after_activation_from_inventory",
    # §7 card states
    "card_states", "may_exhaust", "not_already_face", "not_already_tilted", "shown_to_new_eyes",
    # §8 locations, battle, trading
    "known_location", "new_location", "access_levels", "access_changes", "not_already_at", "battle_toggles", "has_access_effect",
    "effect_source_active", "effective_access", "trades_assets_only", "controlled_by", "gives_controlled",
    "trading_location", "access_admits", "settle_trade", "companion_takes",
    # §8, seed 000: obtaining sheet cards by progression or incorporation
    "obtains_sheet_only", "obtained_from", "obtained_to",
    # undo and redo
    "something_to_undo", "undoes_the_action_named", "something_in_force_since", "something_to_redo", "undo_kept_the_order", "decks_not_shuffled_since", "may_take_back",
    # fair play: what a hero may do
    "knows_card", "searched_cards", "controls_card", "sends_to_own_zone", "buries_where_allowed",
    "seed_is_the_masters", "search_allowed", "shuffle_allowed", "activation_allowed", "searches_decks",
    "showed_nothing_hidden", "left_nothing_to_chance", "keeps_order_by_master", "redoes_own_undo", "decks_to_reshuffle",
    "master_sets_knowledge", "master_discards_from_decks", "printable_text",
    "shuffles_unseen_order",
]
