"""The bodies of ``POST /api/campaigns/{cid}/actions`` (SERVER.md): ``{"action": NAME,
...}`` with the same names and parameters as the CLI command (``"action": "battle
start"`` for ``ledger battle start``; ``"from"`` for ``discard --from``; ``"ap"`` and
``"energy"`` for ``activate``). Each body model is made from its command
(``ledger.commands``), so a command's fields and limits are written once; a body
names no actor (the seat decides who acts), and anything it does not know is refused.
"""

from __future__ import annotations

import copy
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator, model_validator

from ... import commands as c
from ...bounds import LONGEST_ID, TEXTS, bounded
from ...i18n import _

# action name (as in the history) -> the command, and the body's name for each field
# the CLI names otherwise.
ACTIONS: dict[str, tuple[type[c.Command], dict[str, str]]] = {
    "hero add": (c.AddHero, {}),
    "hero knowledge": (c.SetKnowledge, {}),
    "add": (c.Add, {}),
    "location add": (c.AddLocation, {}),
    "location set": (c.SetLocation, {}),
    "travel": (c.Travel, {}),
    "draw": (c.Draw, {}),
    "send": (c.Send, {}),
    "discard": (c.Discard, {"stack": "from"}),
    "bury": (c.Bury, {}),
    "exile": (c.Exile, {}),
    "shuffle": (c.Shuffle, {}),
    "search": (c.Search, {}),
    "reveal": (c.Reveal, {}),
    "hide": (c.Hide, {}),
    "exhaust": (c.Exhaust, {}),
    "restore": (c.Restore, {}),
    "attach": (c.Attach, {"host": "to"}),
    "detach": (c.Detach, {}),
    "battle start": (c.StartBattle, {}),
    "battle end": (c.EndBattle, {}),
    "access": (c.SetAccess, {}),
    "trade": (c.Trade, {}),
    "obtain": (c.Obtain, {}),
    "activate": (c.Activate, {"action_points": "ap", "energies": "energy"}),
    "undo": (c.Undo, {}),
    "redo": (c.Redo, {}),
}
class Body(BaseModel):
    # strict: a value of the wrong type is refused, never converted ("2" is no count, "yes" no true)
    model_config = ConfigDict(extra="forbid", populate_by_name=False, strict=True)
    _command: type[c.Command]
    _renamed: dict[str, str]

    @model_validator(mode="before")
    @classmethod
    def _no_huge_numbers(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key, value in data.items():
                field = cls.model_fields.get(_attr(str(key)))
                if field is not None:  # a key it does not know is refused as such
                    flags = field.annotation in (bool, bool | None)
                    bounded(value, str(key), TEXTS.get(str(key), LONGEST_ID), flags)
        return data

    @field_validator("to", check_fields=False)
    @classmethod
    def _someone_to_reveal_to(cls, value: Any) -> Any:
        """``reveal``'s ``"to": []`` is refused: left out, a card is revealed to everyone, and
        a page whose hero picker had nobody ticked must not reveal it to the whole table."""
        if cls._command is c.Reveal and isinstance(value, list) and not value:
            raise ValueError(_("name at least one hero, or leave \"to\" out to reveal to everyone"))
        return value

    @field_validator("energy", check_fields=False)
    @classmethod
    def _no_negative_energy(cls, value: Any) -> Any:
        for kind, amount in (value or {}).items():
            if amount < 0:
                raise ValueError(_("{kind}={amount}: an energy paid is 0 or more").format(kind=kind, amount=amount))
        return value

    def command(self, actor: str) -> c.Command:
        """The command this body asks for, by ``actor`` (the seat's, never the body's);
        what the body leaves out takes the command's default."""
        given = {}
        for name in self._command.model_fields:
            attr = _attr(self._renamed.get(name, name))
            if name not in ("actor", "type") and attr in self.model_fields_set:
                given[name] = getattr(self, attr)
        return self._command(actor=actor, **given)


def _attr(name: str) -> str:
    return "from_" if name == "from" else name


def _as_json(annotation: Any) -> Any:
    """A command field's type as a JSON body gives it: an array where the command keeps a
    tuple (strict validation takes no list for a tuple; the command makes its tuples)."""
    origin = get_origin(annotation)
    if origin is tuple:
        args = get_args(annotation)
        if len(args) == 2 and args[1] is Ellipsis:
            return list[_as_json(args[0])]  # type: ignore[misc]
    if origin in (Union, types.UnionType):
        return Union[tuple(_as_json(arg) for arg in get_args(annotation))]  # noqa: UP007 (a union of a tuple)
    return annotation


def _someone_in_schema(schema: dict[str, Any]) -> None:
    """``reveal``'s ``to`` as the schema shows it: at least one hero when given, and no
    default of ``[]`` (the value ``Body`` refuses; left out, the cards go to everyone)."""
    schema.pop("default", None)
    schema["minItems"] = 1


def _body(action: str, command: type[c.Command], renamed: dict[str, str]) -> type[Body]:
    fields: dict[str, Any] = {"action": (Literal[action], ...)}  # type: ignore[valid-type]
    for name, info in command.model_fields.items():
        if name in ("actor", "type"):
            continue
        shown = renamed.get(name, name)
        info = copy.copy(info)
        if shown != _attr(shown):
            info.alias = shown
            info.validation_alias = shown
        if command is c.Reveal and name == "to":  # left out: everyone; given: at least one hero
            info.json_schema_extra = _someone_in_schema
        fields[_attr(shown)] = (_as_json(info.annotation), info)
    model = create_model(  # type: ignore[call-overload]
        "Act" + "".join(w.capitalize() for w in action.split()), __base__=Body, **fields)
    model._command = command
    model._renamed = renamed
    model.__doc__ = f"``ledger {action}``: {(command.__doc__ or command.__name__).strip().splitlines()[0]}"
    return model


BODIES = [_body(name, command, renamed) for name, (command, renamed) in ACTIONS.items()]
ActionBody = Annotated[Union[tuple(BODIES)], Field(discriminator="action")]  # type: ignore[valid-type]  # noqa: UP007 (a union of a list)


def named_once(raw: bytes) -> str | None:
    """The first key a JSON body names twice in one object, or None. A parser keeps the
    last (``{"stack": "deck:item", "stack": "deck:skill"}`` drew from deck:skill, and
    ``{"action": "draw", "action": "undo"}`` was an undo): an ambiguous body is refused."""
    import json

    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _value in items:
            if key in seen and not found:
                found.append(key)
            seen.add(key)
        return dict(items)

    try:
        json.loads(raw, object_pairs_hook=pairs)
    except (ValueError, RecursionError):  # not JSON it could read: FastAPI says so
        return None
    return found[0] if found else None

