"""What a plug-in adds to the account of its events: one module per ruleset or layer,
``bot/rulesets/text/<id>.py``, found through the registry.

The account (:mod:`bot.text.account`) shows every event field by the shared conventions (units and sides by
name, hexes by label, keywords in the reader's words); a plug-in whose templates need more (exo's crew by their
station's name, mech's shots by weapon) exposes ``TEXT``, an :class:`EventText` (the same shape as an order
panel, a record sheet and a render overlay: a class whose hooks do nothing by default). A plug-in without a text
module adds nothing. The hooks of the plug-ins playing the game (its ruleset, then its layers) and of the event's
own plug-in are asked, so they also see the shared events (a roll, a note) a plug-in fills with its own fields.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

from rules.events import Event
from rules.registry import plugin_module


@dataclass(frozen=True, slots=True)
class EventFields:
    """An event as its template's parameters are being made: ``raw`` holds each field as the event holds it (a
    roll's ``detail`` and a note's ``args`` spread out), ``shown`` each as the shared conventions show it so far,
    ``names`` the units' names by id."""

    event: Event
    raw: Mapping[str, object]
    shown: Mapping[str, Any]
    names: Mapping[str, str]
    locale: str | None


class EventText:
    """A plug-in's words for its events. Subclass it, override the hooks you need, and expose an instance as
    ``TEXT`` in ``bot/rulesets/text/<id>.py``."""

    __slots__ = ()

    #: fields that hold a name a person typed (exo's crew): a Discord post escapes them so they never read as
    #: markup
    typed_fields: ClassVar[tuple[str, ...]] = ()

    def event_params(self, fields: EventFields) -> Mapping[str, Any]:
        """Parameters to add to (or replace in) the template's: only for fields this plug-in's events hold; any
        other event is left alone (return nothing)."""
        return {}

    def modifier_params(self, arg: str, locale: str | None) -> Mapping[str, Any]:
        """What a roll modifier's label (``rolls.mod.<reason>``, its reason written ``<reason>:<arg>``) reads of
        its argument besides ``value`` (exo: the assistant's ``name``)."""
        return {}


def text_for(pid: str) -> EventText | None:
    """The text hooks of plug-in ``pid`` (None: it has no text module, or the registry does not know it)."""
    try:
        name = plugin_module(pid, "text")
    except KeyError:
        return None
    return _module_text(name) if name else None


@cache  # every line of an account asks: a plug-in without a text module is looked for once
def _module_text(name: str) -> EventText | None:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if (
            exc.name == name
        ):  # the plug-in adds nothing to the account; a broken import inside one still raises
            return None
        raise
    text: object = vars(module).get("TEXT")
    if not isinstance(text, EventText):
        raise TypeError(f"{name}.TEXT must be a bot.rulesets.text.EventText, got {text!r}")
    return text


def texts_for(pids: Iterable[str]) -> tuple[EventText, ...]:
    """The text hooks of ``pids`` in order, each once, leaving out the plug-ins that have none."""
    found: list[EventText] = []
    for pid in dict.fromkeys(p for p in pids if p):
        text = text_for(pid)
        if text is not None and text not in found:
            found.append(text)
    return tuple(found)
