"""The card catalog: the cards a campaign may use, loaded from TOML or CSV.

A catalog is data the campaign is started with (RULES.md §2). It is validated with
pydantic; a bad file is refused with the file, the row (or card id) and the field.

TOML: one ``[[cards]]`` table per card. CSV: the columns
``id,suit,name,level,value,knowledge,task,effects`` (and optionally
``name_en,name_pt,rarity,art,artist``). ``effects`` is a ``;``-separated list of ``activate`` or
``auto``, each optionally with a scope after ``@``: ``auto@attachment``,
``activate@anywhere``, ``auto@discard`` (RULES.md §7, what makes a card active).

Names: ``name``, and optionally ``name_en`` (English) and ``name_pt`` (Portuguese),
each shown in its language (``Card.shown_name``). ``name`` may be left out or empty
(in CSV, a blank cell or no ``name`` column) when ``name_en`` or ``name_pt`` is given:
the card's ``name`` is then its English name, else its Portuguese one, so every card
has one. Blank ``name_en``/``name_pt`` cells of a CSV are absent names.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_serializer, model_validator

from .errors import BadCatalog, UnknownCard, first_problem
from .i18n import PORTUGUESE, _, language
from .texts import escaped, printable
from .vocabulary import EffectKind, EffectScope, Suit, Task

CARD_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
WHOLE = re.compile(r"-?[0-9]{1,50}")
RESERVED_CARD_IDS = frozenset({"box", "discard", "depot", "scenario", "limbo", "master", "referee", "public"})



class Effect(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    kind: EffectKind
    scope: EffectScope = "card"

    @classmethod
    def parse(cls, text: str) -> Effect:
        kind, at, scope = text.strip().partition("@")
        if at and not scope:  # activate@: a scope was meant
            raise ValueError(_("{effect}: a scope after @ (card, attachment, anywhere or discard)").format(
                effect=repr(text.strip())))
        return cls(kind=kind, scope=scope or "card")  # type: ignore[arg-type]

    def __str__(self) -> str:
        return self.kind if self.scope == "card" else f"{self.kind}@{self.scope}"


class Card(BaseModel):
    """One card of the catalog. Names are cosmetic: rules look only at ids and data."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

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

    @model_validator(mode="before")
    @classmethod
    def _name_from_a_language(cls, data: Any) -> Any:
        """A card given only ``name_en`` and/or ``name_pt`` takes its ``name`` from them
        (English first); a card with no name at all is refused saying which keys name it."""
        if not isinstance(data, dict) or data.get("name") not in (None, ""):
            return data
        given = next((data[key] for key in ("name_en", "name_pt") if isinstance(data.get(key), str) and data[key]),
                     None)
        if given is None:
            # TRANSLATORS: name, name_en and name_pt are the keys (and CSV columns) of a catalog file
            raise ValueError(_("name: missing; give the card a name, name_en or name_pt"))
        return {**data, "name": given}

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not CARD_ID.fullmatch(v):
            raise ValueError(_("must be lower-case letters, digits, '-', '_' or '.' (e.g. item-017)"))
        if v in RESERVED_CARD_IDS:
            raise ValueError(_("{id!r} names a zone or a viewer; pick another card id").format(id=v))
        return v

    @field_validator("level", "value", "knowledge", mode="before")
    @classmethod
    def _whole_number(cls, v: Any) -> Any:
        # digits as a person writes them: not 1.0, +1, 1_000 or 1e3, which Python's int() or
        # pydantic would read (a CSV cell is a string); a negative one is refused by its range
        if isinstance(v, bool) or isinstance(v, float) or (isinstance(v, str) and not WHOLE.fullmatch(v)):
            raise ValueError(_("must be a whole number, written in digits (e.g. 2)"))
        return v

    @field_validator("effects", mode="before")
    @classmethod
    def _effects(cls, v: Any) -> Any:
        if v is None or v == "":
            return ()
        if isinstance(v, str):
            v = v.split(";")
            if len(v) > 1 and not v[-1].strip():  # one ; after the last (a spreadsheet's habit)
                v = v[:-1]
            if any(not p.strip() for p in v):  # activate;;  or a lone ;
                raise ValueError(_("an empty effect between ';'; effects are activate or auto, each optionally "
                                   "@scope, separated by ';'"))
        if not isinstance(v, (list, tuple)):
            raise ValueError(_("a list of effects: activate or auto, each optionally @scope"))
        return tuple(Effect.parse(e) if isinstance(e, str) else e for e in v)

    @field_validator("task", mode="before")
    @classmethod
    def _task(cls, v: Any) -> Any:
        return None if v == "" else v

    @model_validator(mode="after")
    def _group_fields(self) -> Card:
        if self.suit.is_asset:
            if self.value is None:
                raise ValueError(_("value: required for an asset card ({suit})").format(suit=self.suit))
            if self.knowledge is None:
                raise ValueError(_("knowledge: required for an asset card ({suit})").format(suit=self.suit))
        else:
            if self.value is not None:
                raise ValueError(_("value: a sheet card ({suit}) has no value").format(suit=self.suit))
            if self.knowledge is not None:
                raise ValueError(
                    _("knowledge: a sheet card ({suit}) has no knowledge requirement").format(suit=self.suit))
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
                raise BadCatalog(_("card id {card!r} appears twice in the catalog").format(card=card.id))
            self.cards[card.id] = card
        if not self.cards:
            raise BadCatalog(_("the catalog has no cards"))

    def __getitem__(self, card_id: str) -> Card:
        try:
            return self.cards[card_id]
        except (KeyError, TypeError):
            raise UnknownCard(self.unknown(card_id)) from None

    def unknown(self, card_id: object) -> str:
        """Why ``card_id`` names no card: with the catalog's id most like it, if one is
        (a misspelling: ``item-swrd``), else an example of what ids look like. The
        catalog is no secret: any viewer may be told its ids."""
        import difflib

        if isinstance(card_id, str) and ":" in card_id:  # no card id holds one: a zone's id (a QA pass)
            return _("{card!r} is no card: card ids hold no colon (zone ids do), e.g. {example}").format(
                card=card_id, example=next(iter(self.cards)))
        near = difflib.get_close_matches(card_id, list(self.cards), n=1, cutoff=0.75) if isinstance(card_id, str) else []
        if near:
            return _("no card {card!r} in this campaign's catalog; did you mean {near}?").format(
                card=card_id, near=near[0])
        return _("no card {card!r} in this campaign's catalog; card ids look like {example}").format(
            card=card_id, example=next(iter(self.cards)))

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.cards

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards.values())

    def __len__(self) -> int:
        return len(self.cards)

    def ids(self) -> list[str]:
        return list(self.cards)


CSV_COLUMNS = ("id", "suit", "name", "level", "value", "knowledge", "task", "effects")
OPTIONAL_CSV_COLUMNS = ("name_en", "name_pt", "rarity", "art", "artist")
NAME_COLUMNS = ("name", "name_en", "name_pt")
"""A CSV catalog needs one of these (``name`` is in ``CSV_COLUMNS``, but ``name_en`` or
``name_pt`` may stand for it)."""


TEXT_FIELDS = ("name", "name_en", "name_pt", "rarity", "art", "artist")
LONGEST_TEXT = 200  # a name's limit (the model's), for the other texts of a file too


def _card(raw: dict[str, Any], where: str) -> Card:
    try:
        card = Card.model_validate(raw)
    except ValidationError as exc:
        raise BadCatalog(f"{where}: {first_problem(exc)}") from None
    for field in TEXT_FIELDS:  # a file's, not the log's: a campaign recorded with one still loads
        text = getattr(card, field)
        if text is not None and not printable(text):
            raise BadCatalog(_("{where}: {field}: '{text}' holds a character that is not printable (a control or "
                               "format character, a line break): the ledger would show it as its code; write the "
                               "text on one line, without it").format(
                where=where, field=field, text=escaped(text)[:60]))
        if text is not None and len(text) > LONGEST_TEXT:
            raise BadCatalog(_("{where}: {field}: a text of {length} characters; at most {longest}").format(
                where=where, field=field, length=len(text), longest=LONGEST_TEXT))
    return card


def _blank_to_none(raw: dict[str, Any]) -> dict[str, Any]:
    return {k: (None if v == "" and k in ("value", "knowledge", "task", *NAME_COLUMNS) else v)
            for k, v in raw.items()}


def parse_toml(text: str, source: str = "catalog") -> Catalog:
    import tomllib  # here: a command on a recorded campaign reads its catalog from the log, never TOML

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        reason = str(exc).splitlines()[0][:120] if str(exc) else exc.__class__.__name__
        raise BadCatalog(_("{source}: not valid TOML ({reason})").format(source=source, reason=reason)) from None
    rows = data.get("cards")
    if not isinstance(rows, list) or not rows:
        raise BadCatalog(
            _("{source}: no [[cards]] tables; each card is a [[cards]] table with id, suit, name, level").format(
                source=source))
    cards = []
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise BadCatalog(_("{source}: cards entry {n} is not a table").format(source=source, n=i))
        # TRANSLATORS: which card of a TOML catalog is wrong; "cards" is the file's key ([[cards]] tables)
        label = (_("card {card!r}").format(card=row["id"]) if isinstance(row.get("id"), str)
                 else _("cards entry {n}").format(n=i))
        cards.append(_card(row, f"{source} {label}"))
    return _catalog(cards, source)


def parse_csv(text: str, source: str = "catalog") -> Catalog:
    try:
        return _parse_csv(text.removeprefix("\ufeff"), source)
    except csv.Error as exc:
        raise BadCatalog(_("{source}: not valid CSV ({reason})").format(source=source, reason=str(exc)[:120])) from None


def _parse_csv(text: str, source: str) -> Catalog:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = [h.strip() for h in (reader.fieldnames or [])]
    if len(set(header)) != len(header):
        twice = next(h for h in header if header.count(h) > 1)
        raise BadCatalog(_("{source}: column {column!r} appears twice in the header").format(
            source=source, column=twice))
    named = any(c in header for c in NAME_COLUMNS)  # name_en or name_pt may stand for name
    missing = [c for c in CSV_COLUMNS if c not in header and not (c == "name" and named)]
    if missing:
        text = (_("{source}: missing column(s) {columns}; the header must be {header} "
                  "(a name_en or name_pt column may stand for name)") if "name" in missing
                else _("{source}: missing column(s) {columns}; the header must be {header}"))
        raise BadCatalog(text.format(source=source, columns=", ".join(missing), header=",".join(CSV_COLUMNS)))
    unknown = [c for c in header if c not in CSV_COLUMNS + OPTIONAL_CSV_COLUMNS]
    if unknown:
        raise BadCatalog(_("{source}: unknown column(s) {columns}").format(source=source, columns=", ".join(unknown)))
    reader.fieldnames = header
    cards = []
    first_seen: dict[str, int] = {}
    for row in reader:
        # the row's first line (line_num is its last: a quoted cell may hold line breaks)
        line = reader.line_num - sum(v.count("\n") for v in _cells(row))
        if None in row:
            raise BadCatalog(_("{source} row {line}: more fields than columns").format(source=source, line=line))
        raw = {k: (v.strip() if isinstance(v, str) else v) for k, v in row.items() if v is not None}
        shown = raw.get("id") if CARD_ID.fullmatch(raw.get("id") or "") else repr(raw.get("id"))
        label = (_("row {line} ({card})").format(line=line, card=shown) if raw.get("id")
                 else _("row {line}").format(line=line))
        card = _card(_blank_to_none(raw), f"{source} {label}")
        if card.id in first_seen:
            raise BadCatalog(_("{source} row {line}: id: {card!r} is already the id of row {first}").format(
                source=source, line=line, card=card.id, first=first_seen[card.id]))
        first_seen[card.id] = line
        cards.append(card)
    return _catalog(cards, source)


def _cells(row: dict[Any, Any]) -> Iterator[str]:
    """The cells of a CSV row, the surplus ones (more fields than columns) too."""
    for value in row.values():
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (cell for cell in value if isinstance(cell, str))


def _catalog(cards: list[Card], source: str) -> Catalog:
    try:
        return Catalog(cards)
    except BadCatalog as exc:
        raise BadCatalog(f"{source}: {exc}") from None


def load_catalog(path: str | Path) -> Catalog:
    """Loads a catalog file; ``.csv`` is CSV, anything else TOML."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte order mark (Notepad's) is no text
    except FileNotFoundError:
        raise BadCatalog(_("{path}: no such catalog file; a sample ships with the ledger: {sample}").format(
            path=path, sample=sample_catalog_path())) from None
    except UnicodeDecodeError:
        raise BadCatalog(_("{path}: not UTF-8 text; a catalog is a TOML or CSV file in UTF-8").format(
            path=path)) from None
    except OSError as exc:
        raise BadCatalog(
            _("{path}: cannot read it ({reason})").format(path=path, reason=exc.__class__.__name__)) from None
    if path.suffix.lower() == ".csv":
        return parse_csv(text, str(path))
    return parse_toml(text, str(path))


def sample_catalog_path() -> Path:
    """The sample catalog shipped with the package (for the demo)."""
    return Path(__file__).with_name("data") / "sample_catalog.toml"
