"""Stacks and zones as data: the campaign format (RULES.md §3).

A ``Format`` lists stack templates (``deck:{suit}``, ``inventory:{hero}``…); a
campaign's zones are those templates expanded for its suits and heroes. The
standard format ships as ``data/standard_format.toml``; a format file given at
``init`` adds stacks and may say where ``discard`` and ``bury`` send cards.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from .errors import BadCatalog, problem
from .i18n import _
from .vocabulary import Affected, Face, Suit, Use, Visibility, Zone, ZoneKind


class StackSpec(BaseModel):
    """A stack template: one zone, or one per suit / per hero."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    id: str
    kind: ZoneKind
    visibility: Visibility
    ordered: bool = False
    use: Use = "never"
    affected: Affected = "none"
    suit: Suit | None = None
    suits: tuple[Suit, ...] | None = None

    @model_validator(mode="after")
    def _check(self) -> StackSpec:
        probe = self.id.replace("{suit}", "item").replace("{hero}", "ana")
        Zone.parse(probe)  # raises UnknownZone with a helpful message
        if self.kind == "deck" and self.visibility == "face-up":
            raise ValueError(_("visibility: a deck is face-down (a face-up stack is a pile)"))
        if self.kind == "pile" and self.visibility != "face-up":
            raise ValueError(_("visibility: a pile is face-up (a face-down stack is a deck)"))
        return self


class ZoneSpec(BaseModel):
    """One zone of a campaign with its settings."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    id: str
    kind: ZoneKind
    owner: str | None
    visibility: Visibility
    ordered: bool
    use: Use
    affected: Affected
    suit: Suit | None

    @property
    def role(self) -> str:
        """What the zone is in the game: the first part of its id (deck, discard, table…)."""
        return self.id.split(":", 1)[0]

    @property
    def is_stack(self) -> bool:
        """Decks and piles: a card entering takes the stack's orientation."""
        return self.kind in ("deck", "pile")

    @property
    def is_deck(self) -> bool:
        return self.kind == "deck"

    @property
    def secret_order(self) -> bool:
        """An ordered face-down stack (a deck): its order is a secret worth keeping
        (fair play shuffles it again after an undo; its shuffles are committed)."""
        return self.ordered and self.visibility != "face-up"

    @property
    def in_play(self) -> bool:
        """Zones whose cards are in play: tables, inventories, extra zones, the scenario."""
        return self.kind in ("hand", "area")

    @property
    def entry_face(self) -> Face:
        return "up" if self.visibility == "face-up" else "down"


DEFAULT_VALUE_TYPES = {"item": "price", "skill": "xp", "companion": "companion", "event": "event"}
VALUE_UNITS = {"price": "price", "xp": "XP"}


class Format(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str = "standard"
    discard_to: str = "discard"
    bury_to: str = "deck:{suit}"
    # The value type of each asset suit (RULES.md §2): cards trade only within a type.
    value_types: dict[Suit, str] = {}
    stacks: tuple[StackSpec, ...] = ()

    def zones(self, heroes: tuple[str, ...]) -> dict[str, ZoneSpec]:
        return _expand(self.stacks, heroes)

    def hero_zones(self, hero: str) -> dict[str, str]:
        """The zones this format makes for one hero, each with the stack template it comes from."""
        return {zone: spec.id for spec in self.stacks if "{hero}" in spec.id for zone in _expand((spec,), (hero,))}

    def value_type(self, suit: Suit) -> str:
        return self.value_types.get(suit) or DEFAULT_VALUE_TYPES.get(str(suit), str(suit))

    def extended_by(self, other: Format) -> Format:
        """This format with another's stacks added; a stack may not replace one of ours."""
        probe = ("hero",)
        ours = set(self.zones(probe)) | {s.id for s in self.stacks}
        for spec in other.stacks:
            theirs = set(_expand((spec,), probe)) | {spec.id}
            clash = sorted(theirs & ours)
            if clash:
                raise BadCatalog(_("stack {stack} would replace {zone} of the standard format").format(
                    stack=repr(spec.id), zone=repr(clash[0])))
            ours |= theirs  # nor may a stack of the file replace another of the file
        extended = Format(
            name=other.name,
            discard_to=other.discard_to,
            bury_to=other.bury_to,
            value_types={**self.value_types, **other.value_types},
            stacks=self.stacks + other.stacks,
        )
        for setting in ("discard_to", "bury_to"):
            _names_a_zone(extended, setting)
        return extended


PLACEHOLDERS = ("{suit}", "{owner}")


def destination(template: str, suit: str, owner: str) -> str:
    """A format's ``discard_to`` or ``bury_to`` filled in for a card of ``suit`` whose
    zone's owner is ``owner`` ("" for none)."""
    return template.replace("{suit}", suit).replace("{owner}", owner)


def _names_a_zone(fmt: Format, setting: str) -> None:
    """A format's ``discard_to`` or ``bury_to`` is a zone id, perhaps with ``{suit}`` and
    ``{owner}`` in it, that names a zone of the format for some card (else every card
    would silently go to the default pile or deck instead)."""
    template: str = getattr(fmt, setting)
    rest = template
    for placeholder in PLACEHOLDERS:
        rest = rest.replace(placeholder, "")
    if "{" in rest or "}" in rest:
        raise BadCatalog(_("{setting} = {template}: the only placeholders are {{suit}} and {{owner}}").format(
            setting=setting, template=repr(template)))
    zones = fmt.zones(("hero",))
    if not any(destination(template, str(suit), "hero") in zones for suit in Suit):
        raise BadCatalog(_("{setting} = {template} names no zone of the format (e.g. discard, discard:{{owner}}, "
                           "deck:{{suit}})").format(setting=setting, template=repr(template)))


@lru_cache(maxsize=256)
def _expand(stacks: tuple[StackSpec, ...], heroes: tuple[str, ...]) -> dict[str, ZoneSpec]:
    zones: dict[str, ZoneSpec] = {}
    for spec in stacks:
        suits: tuple[Suit | None, ...] = (spec.suit,)
        if "{suit}" in spec.id:
            suits = spec.suits or tuple(Suit)
        owners: tuple[str | None, ...] = heroes if "{hero}" in spec.id else (None,)
        for hero in owners:
            for suit in suits:
                zid = spec.id.replace("{suit}", str(suit)).replace("{hero}", hero or "")
                zones[zid] = ZoneSpec(
                    id=zid, kind=spec.kind, owner=hero, visibility=spec.visibility,
                    ordered=spec.ordered, use=spec.use, affected=spec.affected, suit=suit,
                )
    return zones


def _parse(text: str, source: str) -> Format:
    import tomllib  # here: a command on a recorded campaign reads its format from the log, never TOML

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadCatalog(_("{file}: not valid TOML ({problem})").format(file=source, problem=exc)) from None
    try:
        return Format.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        stacks = data.get("stacks") if isinstance(data, dict) else None
        if err["loc"][:1] == ("stacks",) and len(err["loc"]) > 1 and isinstance(stacks, list):
            i = err["loc"][1]
            if isinstance(i, int) and i < len(stacks) and isinstance(stacks[i], dict):
                # TRANSLATORS: where in a format file a problem is: a stack by its id, then the field.
                loc = _("stack {stack} {field}").format(stack=repr(stacks[i].get("id")),
                                                        field=".".join(str(p) for p in err["loc"][2:]))
        raise BadCatalog(f"{source}: {loc}: {problem(err)}") from None


@lru_cache(maxsize=1)
def standard_format() -> Format:
    path = Path(__file__).with_name("data") / "standard_format.toml"
    return _parse(path.read_text(encoding="utf-8"), str(path))


def load_format(path: str | Path) -> Format:
    """The standard format extended by the stacks and settings of a format file."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte order mark (Notepad's) is no text
    except FileNotFoundError:
        raise BadCatalog(_("{file}: no such format file").format(file=path)) from None
    except UnicodeDecodeError:
        raise BadCatalog(_("{file}: not UTF-8 text; a format is a TOML file in UTF-8").format(
            file=path)) from None
    except OSError as exc:
        reason = exc.__class__.__name__
        raise BadCatalog(_("{file}: cannot read it ({problem})").format(file=path, problem=reason)) from None
    fmt = _parse(text, str(path))  # its refusals name the file
    try:
        return standard_format().extended_by(fmt)
    except BadCatalog as exc:
        raise BadCatalog(f"{path}: {exc}") from None
