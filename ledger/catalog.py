"""The card catalog: the cards a campaign may use, loaded from TOML or CSV.

A catalog is data the campaign is started with (RULES.md §2). It is validated with
pydantic; a bad file is refused with the file, the row (or card id) and the field.

TOML: one ``[[cards]]`` table per card. CSV: the columns
``id,suit,name,level,value,knowledge,task,effects`` (and optionally
``rarity,art,artist``). ``effects`` is a ``;``-separated list of ``activate`` or
``auto``, each optionally with a scope after ``@``: ``auto@attachment``,
``activate@anywhere``, ``auto@discard`` (RULES.md §7, what makes a card active).
"""

from __future__ import annotations

import csv
import io
import re
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_serializer, model_validator

from .errors import BadCatalog, UnknownCard, first_problem
from .vocabulary import EffectKind, EffectScope, Suit, Task

CARD_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
RESERVED_CARD_IDS = frozenset({"box", "discard", "depot", "scenario", "limbo", "master", "referee", "public"})



class Effect(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: EffectKind
    scope: EffectScope = "card"

    @classmethod
    def parse(cls, text: str) -> Effect:
        kind, _, scope = text.strip().partition("@")
        return cls(kind=kind, scope=scope or "card")  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.kind if self.scope == "card" else f"{self.kind}@{self.scope}"


class Card(BaseModel):
    """One card of the catalog. Names are cosmetic: rules look only at ids and data."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    suit: Suit
    name: str = Field(min_length=1, max_length=200)
    name_en: str | None = Field(default=None, min_length=1, max_length=200)
    name_pt: str | None = Field(default=None, min_length=1, max_length=200)
    level: int = Field(ge=1, le=3)
    value: int | None = Field(default=None, ge=0, le=1_000_000)
    knowledge: int | None = Field(default=None, ge=0, le=100)
    task: Task | None = None
    effects: tuple[Effect, ...] = ()
    rarity: str = "common"
    art: str = "standard"
    artist: str = ""

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not CARD_ID.fullmatch(v):
            raise ValueError("must be lower-case letters, digits, '-', '_' or '.' (e.g. item-017)")
        if v in RESERVED_CARD_IDS:
            raise ValueError(f"{v!r} names a zone or a viewer; pick another card id")
        return v

    @field_validator("level", "value", "knowledge", mode="before")
    @classmethod
    def _whole_number(cls, v: Any) -> Any:
        if isinstance(v, bool) or isinstance(v, float):
            raise ValueError("must be a whole number")
        return v

    @field_validator("effects", mode="before")
    @classmethod
    def _effects(cls, v: Any) -> Any:
        if v is None or v == "":
            return ()
        if isinstance(v, str):
            v = [p for p in v.split(";") if p.strip()]
        if not isinstance(v, (list, tuple)):
            raise ValueError("a list of effects: activate or auto, each optionally @scope")
        return tuple(Effect.parse(e) if isinstance(e, str) else e for e in v)

    @field_validator("task", mode="before")
    @classmethod
    def _task(cls, v: Any) -> Any:
        return None if v == "" else v

    @model_validator(mode="after")
    def _group_fields(self) -> Card:
        if self.suit.is_asset:
            if self.value is None:
                raise ValueError(f"value: required for an asset card ({self.suit})")
            if self.knowledge is None:
                raise ValueError(f"knowledge: required for an asset card ({self.suit})")
        else:
            if self.value is not None:
                raise ValueError(f"value: a sheet card ({self.suit}) has no value")
            if self.knowledge is not None:
                raise ValueError(f"knowledge: a sheet card ({self.suit}) has no knowledge requirement")
        return self

    @model_serializer(mode="wrap")
    def _without_absent_names(self, handler: Any) -> Any:
        """``name_en``/``name_pt`` only when given: a card of an older catalog serialises
        (and so hashes, in the recorded ``CampaignStarted``) exactly as it always did."""
        data = handler(self)
        if isinstance(data, dict):
            for key in ("name_en", "name_pt"):
                if data.get(key, "") is None:
                    del data[key]
        return data

    @property
    def shown_name(self) -> str:
        """The card's name in the language being spoken (``name_pt``, ``name_en``), else
        ``name``, else its name in the other language. Names are cosmetic: ids never change."""
        from .i18n import PORTUGUESE, language

        ours, other = (self.name_pt, self.name_en) if language() == PORTUGUESE else (self.name_en, self.name_pt)
        return ours or self.name or other or self.id

    def has_effect(self, *, kind: EffectKind | None = None, scope: EffectScope | None = None) -> bool:
        return any(
            (kind is None or e.kind == kind) and (scope is None or e.scope == scope)
            for e in self.effects
        )


class Catalog:
    """The campaign's cards by id, in catalog order."""

    def __init__(self, cards: Iterable[Card]):
        self.cards: dict[str, Card] = {}
        for card in cards:
            if card.id in self.cards:
                raise BadCatalog(f"card id {card.id!r} appears twice in the catalog")
            self.cards[card.id] = card
        if not self.cards:
            raise BadCatalog("the catalog has no cards")

    def __getitem__(self, card_id: str) -> Card:
        try:
            return self.cards[card_id]
        except (KeyError, TypeError):
            raise UnknownCard(
                f"no card {card_id!r} in this campaign's catalog; card ids look like "
                f"{next(iter(self.cards))}"
            ) from None

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.cards

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards.values())

    def __len__(self) -> int:
        return len(self.cards)

    def ids(self) -> list[str]:
        return list(self.cards)


CSV_COLUMNS = ("id", "suit", "name", "level", "value", "knowledge", "task", "effects")
OPTIONAL_CSV_COLUMNS = ("rarity", "art", "artist")


def _card(raw: dict[str, Any], where: str) -> Card:
    try:
        return Card.model_validate(raw)
    except ValidationError as exc:
        raise BadCatalog(f"{where}: {first_problem(exc)}") from None


def _blank_to_none(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if v == "" and k in ("value", "knowledge", "task") else v) for k, v in raw.items()}


def parse_toml(text: str, source: str = "catalog") -> Catalog:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0][:120] if str(exc) else exc.__class__.__name__
        raise BadCatalog(f"{source}: not valid TOML ({reason})") from None
    rows = data.get("cards")
    if not isinstance(rows, list) or not rows:
        raise BadCatalog(f"{source}: no [[cards]] tables; each card is a [[cards]] table with id, suit, name, level")
    cards = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise BadCatalog(f"{source}: cards entry {i} is not a table")
        label = f"card {row.get('id')!r}" if isinstance(row.get("id"), str) else f"cards entry {i}"
        cards.append(_card(row, f"{source} {label}"))
    return _catalog(cards, source)


def parse_csv(text: str, source: str = "catalog") -> Catalog:
    try:
        return _parse_csv(text.removeprefix("\ufeff"), source)
    except csv.Error as exc:
        raise BadCatalog(f"{source}: not valid CSV ({str(exc)[:120]})") from None


def _parse_csv(text: str, source: str) -> Catalog:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if len(set(header)) != len(header):
        twice = next(h for h in header if header.count(h) > 1)
        raise BadCatalog(f"{source}: column {twice!r} appears twice in the header")
    missing = [c for c in CSV_COLUMNS if c not in header]
    if missing:
        raise BadCatalog(
            f"{source}: missing column(s) {', '.join(missing)}; the header must be "
            f"{','.join(CSV_COLUMNS)}"
        )
    unknown = [c for c in header if c not in CSV_COLUMNS + OPTIONAL_CSV_COLUMNS]
    if unknown:
        raise BadCatalog(f"{source}: unknown column(s) {', '.join(unknown)}")
    reader.fieldnames = header
    cards = []
    first_seen: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        if None in row:
            raise BadCatalog(f"{source} row {line}: more fields than columns")
        raw = {k: (v.strip() if isinstance(v, str) else v) for k, v in row.items() if v is not None}
        shown = raw.get("id") if CARD_ID.fullmatch(raw.get("id") or "") else repr(raw.get("id"))
        label = f"row {line} ({shown})" if raw.get("id") else f"row {line}"
        card = _card(_blank_to_none(raw), f"{source} {label}")
        if card.id in first_seen:
            raise BadCatalog(f"{source} row {line}: id: {card.id!r} is already the id of row {first_seen[card.id]}")
        first_seen[card.id] = line
        cards.append(card)
    return _catalog(cards, source)


def _catalog(cards: list[Card], source: str) -> Catalog:
    try:
        return Catalog(cards)
    except BadCatalog as exc:
        raise BadCatalog(f"{source}: {exc}") from None


def load_catalog(path: str | Path) -> Catalog:
    """Loads a catalog file; ``.csv`` is CSV, anything else TOML."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadCatalog(f"{path}: no such catalog file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BadCatalog(f"{path}: cannot read it ({exc.__class__.__name__})") from None
    if path.suffix.lower() == ".csv":
        return parse_csv(text, str(path))
    return parse_toml(text, str(path))


def sample_catalog_path() -> Path:
    """The sample catalog shipped with the package (for the demo)."""
    return Path(__file__).with_name("data") / "sample_catalog.toml"
