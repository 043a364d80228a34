"""The game's own words, as a person reads them (RULES.md §1 and §7; the Portuguese of
the seed pages): the display names of zone roles, suits, faces and card states, and of
a whole zone id (``deck:item`` → "Baralho de Item" / "Item Deck").

Ids never change — ``deck:item``, ``discard``, ``revealed`` stay ASCII and stable for
scripts and ``--json``; only what a person reads is translated (``ledger.i18n``). Every
display name of the game lives here, once.
"""

from __future__ import annotations

from collections.abc import Mapping

from .i18n import N_, _, pgettext
from .vocabulary import Role, Suit


def pgettext_noop(context: str, message: str) -> tuple[str, str]:
    """Marks a word with its context for translation (``pgettext`` translates it where shown)."""
    return context, message


SUITS = {
    Suit.HOUSE: N_("House"), Suit.CLASS: N_("Class"), Suit.ENTITY: N_("Entity"), Suit.ITEM: N_("Item"),
    Suit.SKILL: N_("Skill"), Suit.COMPANION: N_("Companion"), Suit.EVENT: N_("Event"),
}
"""Each suit's name (Casa, Classe, Entidade, Item, Habilidade, Companheiro, Evento)."""

ROLES = {
    Role.BOX: N_("Box"), Role.DECK: N_("Deck"), Role.DISCARD: N_("Discard Pile"), Role.DEPOT: N_("Depot"),
    Role.TABLE: N_("Table"), Role.INVENTORY: N_("Inventory"), Role.EXTRA: N_("Extra Zone"),
    Role.SCENARIO: N_("Scenario"), Role.LIMBO: N_("Limbo"),
}
"""Each zone role's name (Caixa, Baralho, Pilha de Descarte, Entreposto, Mesa, Inventário,
Zona Extra, Cenário, Limbo)."""

STATES = {
    "up": N_("Revealed"), "down": N_("Hidden"), "revealed": N_("Revealed"), "hidden": N_("Hidden"),
    "exhausted": N_("Exhausted"), "restored": N_("Restored"), "active": N_("Active"),
    "inactive": N_("Inactive"), "attached": N_("Attached"), "exiled": N_("Exiled"),
}
"""Faces and card states (Revelada/Oculta, Consumida/Restaurada, Ativa/Inativa, Anexada, Banida)."""

GROUPS = {"sheet": N_("Sheet"), "asset": N_("Asset")}
"""The two groups of suits: sheet cards (white: Ficha) and asset cards (black: Recurso)."""

VALUE_TYPES = {
    "price": pgettext_noop("value type", "price"), "xp": pgettext_noop("value type", "xp"),
    "companion": pgettext_noop("value type", "companion"), "event": pgettext_noop("value type", "event"),
}
"""The value types of the standard format (a card's ``value``: an item's price, a skill's
XP...), as running text names them (preço, xp, companheiro, evento)."""

VALUE_UNITS = {"price": pgettext_noop("value unit", "price"), "XP": pgettext_noop("value unit", "XP")}
"""What a value type's sums are counted in (``ledger.formats.VALUE_UNITS``)."""

EFFECT_KINDS = {"activate": pgettext_noop("effect kind", "activate"), "auto": pgettext_noop("effect kind", "auto")}
"""A card effect's kind: one activated by a hero, or one that works by itself."""

OTHER = {"full-action": N_("Full Action"), "knowledge": N_("Knowledge"), "master": N_("Master"), "hero": N_("Hero")}
"""Other words of the game (Ação Total, Conhecimento, Mestre, Herói)."""


def _said(words: dict, key: str | None) -> str | None:
    entry = words.get(key)
    if entry is None:
        return None
    return pgettext(*entry) if isinstance(entry, tuple) else _(entry)


def suit_name(suit: str) -> str:
    """A suit as a person reads it (the id itself when it is not a suit)."""
    return _(SUITS[suit]) if suit in SUITS else suit


def suit_word(suit: str | None) -> str:
    """A suit inside a sentence: lower case (``item``, ``habilidade``); "" for none."""
    return suit_name(suit).lower() if suit else ""


def group_name(group: str) -> str:
    """``sheet`` or ``asset`` in words (Ficha, Recurso)."""
    return _said(GROUPS, group) or group


def value_type_name(value_type: str) -> str:
    """A value type in running text (a format's own type: as the format names it)."""
    return _said(VALUE_TYPES, value_type) or value_type


def value_unit_name(value_type: str) -> str:
    """What a value type's sums are counted in (price, XP; else the type itself)."""
    from .formats import VALUE_UNITS as UNITS

    unit = UNITS.get(value_type)
    return (_said(VALUE_UNITS, unit) or unit) if unit else value_type_name(value_type)


def effect_kind_name(kind: str) -> str:
    return _said(EFFECT_KINDS, kind) or kind


def role_name(role: str) -> str:
    return _(ROLES[role]) if role in ROLES else role


def state_name(state: str) -> str:
    """A face (``up``/``down``) or card state (``exhausted``, ``active``...) in words."""
    return _(STATES[state]) if state in STATES else state


def term(key: str) -> str:
    """Another word of the game (``full-action``, ``knowledge``...) in words."""
    return _said(OTHER, key) or key


def zone_name(zone: str, owners: Mapping[str, str] | None = None) -> str:
    """A zone id in words: "Item Deck" / "Baralho de Item", "ana's Inventory" /
    "Inventário de ana", "Discard Pile" / "Pilha de Descarte". An id it cannot read
    (an attachment's container, a zone a format added) is shown as it is. ``owners``:
    the heroes' names by id, for a hero's zone ("Ana's Inventory": the table's pages)."""
    role, _sep, rest = zone.partition(":")
    if role not in ROLES:
        return zone
    if not rest:
        return role_name(role)
    if role in (Role.DECK, Role.DISCARD) and rest in SUITS:
        # TRANSLATORS: a zone of one suit, e.g. "Item Deck" / "Baralho de Item".
        return pgettext("zone of a suit", "{suit} {role}").format(suit=suit_name(rest), role=role_name(role))
    # TRANSLATORS: a hero's zone, e.g. "ana's Inventory" / "Inventário de ana".
    return pgettext("zone of a hero", "{owner}'s {role}").format(owner=(owners or {}).get(rest, rest),
                                                               role=role_name(role))


ACTIONS = {
    "action": pgettext_noop("action", "action"),
    "init": pgettext_noop("action", "init"), "hero add": pgettext_noop("action", "hero add"),
    "hero knowledge": pgettext_noop("action", "hero knowledge"), "add": pgettext_noop("action", "add"),
    "draw": pgettext_noop("action", "draw"), "send": pgettext_noop("action", "send"),
    "discard": pgettext_noop("action", "discard"), "bury": pgettext_noop("action", "bury"),
    "exile": pgettext_noop("action", "exile"), "shuffle": pgettext_noop("action", "shuffle"),
    "search": pgettext_noop("action", "search"), "reveal": pgettext_noop("action", "reveal"),
    "hide": pgettext_noop("action", "hide"), "exhaust": pgettext_noop("action", "exhaust"),
    "restore": pgettext_noop("action", "restore"), "attach": pgettext_noop("action", "attach"),
    "detach": pgettext_noop("action", "detach"), "location add": pgettext_noop("action", "location add"),
    "location set": pgettext_noop("action", "location set"),
    "travel": pgettext_noop("action", "travel"), "battle start": pgettext_noop("action", "battle start"),
    "battle end": pgettext_noop("action", "battle end"), "access": pgettext_noop("action", "access"),
    "trade": pgettext_noop("action", "trade"), "obtain": pgettext_noop("action", "obtain"),
    "activate": pgettext_noop("action", "activate"), "undo": pgettext_noop("action", "undo"),
    "redo": pgettext_noop("action", "redo"),
}
"""Each recorded action (``ActionRecorded.action``: ``draw``, ``trade``, ``hero add``...)
as a person reads it, a noun in Portuguese (compra, troca, entrada de herói); English
shows the id itself. ``--json`` keeps the id."""

MECHANICS = {
    "progression": pgettext_noop("mechanic", "progression"),
    "incorporation": pgettext_noop("mechanic", "incorporation"),
}
"""The two ways the master records a sheet card obtained (§8: Progressão, Incorporação)."""


def action_name(action: str) -> str:
    """A recorded action's id (``draw``, ``hero add``) in words: "compra", "entrada de herói"
    (English: the id itself; an action not listed: the id)."""
    return _said(ACTIONS, action) or action


def mechanic_name(mechanic: str) -> str:
    """``progression`` or ``incorporation`` in running text (Progressão, Incorporação)."""
    return _said(MECHANICS, mechanic) or mechanic
