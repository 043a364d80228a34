"""The game's own words, as a person reads them (RULES.md §1 and §7; the Portuguese of
the seed pages): the display names of zone roles, suits, faces and card states, and of
a whole zone id (``deck:item`` → "Baralho de Item" / "Item deck").

Ids never change — ``deck:item``, ``discard``, ``revealed`` stay ASCII and stable for
scripts and ``--json``; only what a person reads is translated (``ledger.i18n``). Every
display name of the game lives here, once.
"""

from __future__ import annotations

from .i18n import N_, _, pgettext
from .vocabulary import Role, Suit

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
"""Faces and card states (Revelada/Oculta, Exaurida/Restaurada, Ativa/Inativa, Anexada, Banida)."""

OTHER = {
    "full-action": N_("Full Action"), "token": N_("Token"), "resource": N_("Resource"),
    "knowledge": N_("Knowledge"), "master": N_("Master"), "hero": N_("Hero"), "card": N_("Card"),
}
"""Other words of the game (Ação Total, Ficha, Recurso, Conhecimento, Mestre, Herói, Carta)."""


def suit_name(suit: str) -> str:
    """A suit as a person reads it (the id itself when it is not a suit)."""
    return _(SUITS[suit]) if suit in SUITS else suit


def role_name(role: str) -> str:
    return _(ROLES[role]) if role in ROLES else role


def state_name(state: str) -> str:
    """A face (``up``/``down``) or card state (``exhausted``, ``active``...) in words."""
    return _(STATES[state]) if state in STATES else state


def term(key: str) -> str:
    """Another word of the game (``full-action``, ``token``...) in words."""
    return _(OTHER[key]) if key in OTHER else key


def zone_name(zone: str) -> str:
    """A zone id in words: "Item Deck" / "Baralho de Item", "ana's Inventory" /
    "Inventário de ana", "Discard Pile" / "Pilha de Descarte". An id it cannot read
    (an attachment's container, a zone a format added) is shown as it is."""
    role, _sep, rest = zone.partition(":")
    if role not in ROLES:
        return zone
    if not rest:
        return role_name(role)
    if role in (Role.DECK, Role.DISCARD) and rest in SUITS:
        # TRANSLATORS: a zone of one suit, e.g. "Item Deck" / "Baralho de Item".
        return pgettext("zone of a suit", "{suit} {role}").format(suit=suit_name(rest), role=role_name(role))
    # TRANSLATORS: a hero's zone, e.g. "ana's Inventory" / "Inventário de ana".
    return pgettext("zone of a hero", "{owner}'s {role}").format(owner=rest, role=role_name(role))
